"""A fast path for whole rounds, for simulation and benchmarks.

It applies the same rules as :mod:`nimmt.core.game` (the tests play both side by side and compare
every penalty) but keeps only what scoring needs: the last card, the length and the bullheads of
each row. Rows are also kept sorted by their last card, so the row a card goes to is one
``bisect`` away; placing a card on its row never changes that order, and only a card below every
row (which starts the row again at the bottom) moves a row within it.

Each player's cards are given in the order they will be played, one per turn. A player who plays
a uniformly random card from their hand each turn plays a uniformly random ordering of it, so a
random sample of the deck dealt in sample order *is* random play.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Sequence

from .cards import BULLHEADS, DECK, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, ROW_COUNT
from .errors import RulesError

# (player, card, last card of each row, bullheads of each row) -> chosen row
RowChooser = Callable[[int, int, Sequence[int], Sequence[int]], int]


def fewest_bullheads(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
    """Advice, not a rule: the row with the fewest bullheads, the first one on a tie."""
    return min(range(ROW_COUNT), key=heads.__getitem__)


def play_round(
    rows: Sequence[int],
    orders: Sequence[Sequence[int]],
    choose_row: RowChooser = fewest_bullheads,
) -> list[int]:
    """Play one round and return each player's penalty.

    ``rows`` are the four starting cards; ``orders[p]`` the cards player ``p`` plays, turn by turn.

    >>> play_round((10, 20, 30, 40), ((1, 11), (21, 22)))
    [3, 0]
    """
    ends = list(rows)
    penalties = [0] * len(orders)
    play_turns(ends, [1] * ROW_COUNT, [BULLHEADS[c] for c in rows], orders, penalties, choose_row)
    return penalties


def play_turns(
    ends: list[int],
    counts: list[int],
    heads: list[int],
    orders: Sequence[Sequence[int]],
    penalties: list[int],
    choose_row: RowChooser | None = None,
) -> None:
    """Play whole turns from any table: each row's last card, length and bullheads.

    ``orders[p][t]`` is player ``p``'s card in the ``t``-th turn still to play. The three lists
    and ``penalties`` are updated in place. Without ``choose_row``, a card below every row takes
    the row with the fewest bullheads (the first one on a tie), decided inline for speed.
    """
    n = len(orders)
    turns = len(orders[0]) if n else 0
    bull = BULLHEADS
    order = sorted(range(ROW_COUNT), key=ends.__getitem__)
    sorted_ends = [ends[r] for r in order]
    seats = range(n)
    for t in range(turns):
        for key in sorted([orders[p][t] * 16 + p for p in seats]):
            card = key >> 4
            slot = bisect_left(sorted_ends, card) - 1
            if slot >= 0:
                r = order[slot]
                if counts[r] == 5:
                    penalties[key & 15] += heads[r]
                    counts[r] = 1
                    heads[r] = bull[card]
                else:
                    counts[r] += 1
                    heads[r] += bull[card]
                sorted_ends[slot] = card
                ends[r] = card
            else:
                player = key & 15
                if choose_row is None:
                    r = min(range(ROW_COUNT), key=heads.__getitem__)
                else:
                    r = choose_row(player, card, tuple(ends), tuple(heads))
                penalties[player] += heads[r]
                counts[r] = 1
                heads[r] = bull[card]
                ends[r] = card
                slot = order.index(r)
                del order[slot]
                del sorted_ends[slot]
                order.insert(0, r)
                sorted_ends.insert(0, card)


def random_rounds(players: int, count: int, rng: random.Random) -> list[int]:
    """Deal and play ``count`` rounds of random play (random cards, random row choices).

    Returns the summed penalty of each player. This is the loop behind the speed figures.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RulesError(f"a table has 2 to 10 players, not {players!r}")
    bull = BULLHEADS
    deck = DECK
    dealt = players * HAND_SIZE + ROW_COUNT
    sample = rng.sample
    rand = rng.random
    totals = [0] * players
    seats = range(players)
    for _ in range(count):
        cards = sample(deck, dealt)
        rows = cards[-4:]
        ends = rows[:]
        counts = [1, 1, 1, 1]
        heads = [bull[c] for c in rows]
        order = sorted(range(4), key=ends.__getitem__)
        sorted_ends = [ends[r] for r in order]
        for t in range(HAND_SIZE):
            # cards[p * 10 + t] is player p's card in turn t: the sample's order is a random order.
            for key in sorted([cards[p * HAND_SIZE + t] * 16 + p for p in seats]):
                card = key >> 4
                slot = bisect_left(sorted_ends, card) - 1
                if slot >= 0:
                    r = order[slot]
                    if counts[r] == 5:
                        totals[key & 15] += heads[r]
                        counts[r] = 1
                        heads[r] = bull[card]
                    else:
                        counts[r] += 1
                        heads[r] += bull[card]
                    sorted_ends[slot] = card
                    ends[r] = card
                else:
                    r = int(rand() * 4)
                    totals[key & 15] += heads[r]
                    counts[r] = 1
                    heads[r] = bull[card]
                    ends[r] = card
                    slot = order.index(r)
                    del order[slot]
                    del sorted_ends[slot]
                    order.insert(0, r)
                    sorted_ends.insert(0, card)
    return totals
