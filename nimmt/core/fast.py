"""A fast path for whole rounds, for simulation and benchmarks.

It applies the same rules as :mod:`nimmt.core.game` (``tests/conformance`` plays both side by side
and compares every penalty) but keeps only what scoring needs: the last card, the length and the
bullheads of each row. :func:`target` and :func:`lay` are that placement, the one copy the
faster engines share: the rollouts of :mod:`nimmt.bots.rollout` call them, and the batch engine's
kernels compile them. :func:`play_turns`, which whole rounds play, is its measured speed variant.

Each player's cards are given in the order they will be played, one per turn. A player who plays
a uniformly random card from their hand each turn plays a uniformly random ordering of it, so a
random sample of the deck dealt in sample order *is* random play.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, MutableSequence, Sequence

from .cards import BULLHEADS, DECK, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, ROW_COUNT, ROW_LIMIT
from .errors import RulesError

# (player, card, last card of each row, bullheads of each row) -> chosen row
RowChooser = Callable[[int, int, Sequence[int], Sequence[int]], int]


def fewest_bullheads(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
    """Advice, not a rule: the row with the fewest bullheads, the first one on a tie."""
    return min(range(ROW_COUNT), key=heads.__getitem__)


def target(ends: Sequence[int], card: int) -> int:
    """The row ``card`` goes to on rows ending with ``ends``: the highest last card below it; -1 when
    it is below every row. The one writing of this rule: the reference core asks it too
    (:func:`nimmt.core.target_row`, on the rows themselves).

    Written, like :func:`lay`, in the subset of Python that Numba compiles: the batch engine's
    kernels (:mod:`nimmt.batch`) compile these two functions, so that they place cards with the
    same code.

    >>> target([10, 20, 30, 40], 27), target([10, 20, 30, 40], 5)
    (1, -1)
    """
    best = -1
    best_end = 0
    for r in range(ROW_COUNT):
        end = ends[r]
        if best_end < end < card:
            best = r
            best_end = end
    return best


def lay(
    ends: MutableSequence[int], counts: MutableSequence[int], heads: MutableSequence[int], row: int, card: int,
    low: bool, bullheads: Sequence[int],
) -> int:
    """Place ``card`` on ``row`` of rows kept as their last card, length and bullheads (changed in
    place): the rule of :func:`nimmt.core.game.apply` on that summary. ``row`` is the card's
    :func:`target`, or when ``low`` (below every row) the row its player chose; a low card, or a
    sixth card, takes the row. Returns the bullheads taken (0 when none: every card has at least
    one). ``bullheads``: :data:`nimmt.core.BULLHEADS` (compiled code passes it as an array).

    >>> ends, counts, heads = [10, 20, 30, 40], [1, 1, 5, 1], [3, 3, 7, 3]
    >>> lay(ends, counts, heads, 2, 35, False, BULLHEADS), ends, counts, heads
    (7, [10, 20, 35, 40], [1, 1, 1, 1], [3, 3, 2, 3])
    >>> lay(ends, counts, heads, 0, 11, False, BULLHEADS), lay(ends, counts, heads, 3, 5, True, BULLHEADS)
    (0, 3)
    """
    taken = 0
    if low or counts[row] >= ROW_LIMIT:
        taken = heads[row]
        counts[row] = 1
        heads[row] = bullheads[card]
    else:
        counts[row] += 1
        heads[row] += bullheads[card]
    ends[row] = card
    return taken


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

    The speed variant of :func:`target` and :func:`lay`, measured to matter (calling them costs this
    loop about a quarter of its speed): the rows are also kept sorted by their last card, so the row
    a card goes to is one ``bisect`` away; placing a card on its row never changes that order, and
    only a card below every row (which starts the row again at the bottom) moves a row within it.
    ``tests/conformance`` holds it to the core.
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
                if counts[r] == ROW_LIMIT:
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

    def random_row(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
        return int(rand() * ROW_COUNT)

    for _ in range(count):
        cards = sample(deck, dealt)
        rows = cards[-4:]
        # cards[p * 10 + t] is player p's card in turn t: the sample's order is a random order.
        orders = [cards[p * HAND_SIZE : (p + 1) * HAND_SIZE] for p in seats]
        play_turns(rows, [1, 1, 1, 1], [bull[c] for c in rows], orders, totals, random_row)
    return totals
