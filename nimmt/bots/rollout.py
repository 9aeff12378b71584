"""Playing the rest of a round quickly, for the search bots and the coach.

The search bots ask one question thousands of times per decision: *if the hidden cards were these,
and everybody played like this, what would each player take by the end of the round?* This module
answers it in pure Python on a small table kept as three lists (the last card, the number of cards
and the bullheads of each row), placing cards with :mod:`nimmt.core.fast` (its ``target`` and
``lay``), from any moment of a round (rows of any length, cards of this turn still to place).

Two playing policies are built in; every rollout function takes a ``policy`` name:

``random``
    Each player plays the cards of their hand in a uniformly random order: the policy of the
    classic Monte Carlo bots. A player whose card is below every row takes the row with the
    fewest bullheads.
``greedy``
    Each turn each player plays the card that looks cheapest on the rows as they stand before the
    turn (a sixth card costs the row; a fifth-card spot costs a share of it that grows with the
    gap; a card below every row costs the cheapest row), ties and near ties broken at random.
    As a player it is about as strong as the ``beginner`` bot and weaker than ``heuristic``, but
    it costs a few microseconds a card: it is the fallback of the ``expert`` when the compiled
    batch engine (:mod:`nimmt.batch`, which can roll out with the ``heuristic`` policy) is missing.

The rollout engine is swappable: :func:`nimmt.bots.search.evaluate` takes a :class:`RolloutEngine`
(:data:`ENGINES` lists them by name), and :func:`nimmt.bots.search.evaluate_batch` runs the same
search on the compiled rollouts of :mod:`nimmt.batch`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nimmt.core import BULLHEADS, ROW_COUNT, ROW_LIMIT, row_bullheads
from nimmt.core.fast import lay, play_turns, target

# A table: last card, number of cards and bullheads of each row, rows in their own order.
Table = tuple[list[int], list[int], list[int]]


def table_of(rows: Sequence[Sequence[int]]) -> Table:
    """The compact table of ``rows``.

    >>> table_of(((3, 4), (10,), (20, 55), (30,)))
    ([4, 10, 55, 30], [2, 1, 2, 1], [2, 3, 10, 3])
    """
    return (
        [row[-1] for row in rows],
        [len(row) for row in rows],
        [row_bullheads(row) for row in rows],
    )


def place(table: Table, card: int, player: int, penalties: list[int], row_if_low: int | None = None) -> None:
    """Place one card as the rules do; a card below every row takes ``row_if_low`` (default: the
    row with the fewest bullheads, the first on a tie). Adds what ``player`` takes to ``penalties``.

    >>> t = table_of(((10,), (20,), (30,), (40, 41, 42, 43, 44)))
    >>> pens = [0, 0]
    >>> place(t, 45, 1, pens); place(t, 5, 0, pens, row_if_low=2); pens
    [3, 11]
    """
    ends, counts, heads = table
    row = target(ends, card)
    low = row < 0
    if low:
        row = row_if_low if row_if_low is not None else min(range(ROW_COUNT), key=heads.__getitem__)
    penalties[player] += lay(ends, counts, heads, row, card, low, BULLHEADS)


def finish_random(table: Table, orders: Sequence[Sequence[int]], penalties: list[int]) -> None:
    """Play whole turns: ``orders[p][t]`` is player ``p``'s card in the ``t``-th turn still to play.

    Mutates ``table`` and adds to ``penalties``. Cards below every row take the cheapest row.
    """
    ends, counts, heads = table
    play_turns(ends, counts, heads, orders, penalties)


# Share of a row's bullheads charged to a card that would be its fifth card, by gap size.
_FIFTH_RISK = 0.04
# Random jitter (bullheads) added to every card's score, so that rollouts differ.
_JITTER = 0.3


def greedy_pick(table: Table, hand: Sequence[int], players: int, rand: Callable[[], float]) -> int:
    """The card of ``hand`` that looks cheapest on ``table``, near ties broken by ``rand``."""
    ends, counts, heads = table
    low_cost = min(heads)
    best_card = hand[0]
    best_score = 1e9
    spread = (players - 1) * _FIFTH_RISK
    for card in hand:
        row = target(ends, card)
        if row < 0:
            # A low card costs the cheapest row now, but it is also the card that can later take a
            # cheap row on purpose: charge a little less than the row.
            score = low_cost * 0.9 + 0.5
        else:
            c = counts[row]
            if c == ROW_LIMIT:
                score = heads[row] + 0.5
            elif c >= 3:
                risk = (card - ends[row]) * spread * (c - 2) * 0.5
                score = heads[row] * (risk if risk < 1.0 else 1.0)
            else:
                score = 0.0
        # Prefer playing high cards when equally safe: they find rows later more often.
        score -= card * 0.001
        score += _JITTER * rand()
        if score < best_score:
            best_score, best_card = score, card
    return best_card


def finish_greedy(
    table: Table, hands: Sequence[list[int]], penalties: list[int], rng: random.Random
) -> None:
    """Play out the ``hands`` (all the same size) with the greedy policy; mutates ``hands`` too."""
    n = len(hands)
    turns = len(hands[0]) if n else 0
    rand = rng.random
    for _ in range(turns):
        keys = []
        for p in range(n):
            hand = hands[p]
            card = greedy_pick(table, hand, n, rand) if len(hand) > 1 else hand[0]
            hand.remove(card)
            keys.append(card * 16 + p)
        keys.sort()
        for key in keys:
            place(table, key >> 4, key & 15, penalties)


@dataclass(frozen=True)
class RolloutEngine:
    """Plays the rest of a round from a table and full (sampled) hands; returns each penalty.

    ``first`` holds cards already fixed for the next turn (player -> card): they are played in
    that turn, the other players' cards of that turn come from the policy.
    """

    name: str
    finish: Callable[[Table, list[list[int]], dict[int, int], list[int], random.Random], None]

    def finish_round(
        self,
        table: Table,
        hands: list[list[int]],
        first: dict[int, int],
        penalties: list[int],
        rng: random.Random,
    ) -> None:
        self.finish(table, hands, first, penalties, rng)


def _random_finish(
    table: Table, hands: list[list[int]], first: dict[int, int], penalties: list[int], rng: random.Random
) -> None:
    orders: list[list[int]] = []
    shuffle = rng.shuffle
    for p, hand in enumerate(hands):
        rest = hand[:]
        fixed = first.get(p)
        if fixed is not None:
            rest.remove(fixed)
            shuffle(rest)
            rest.insert(0, fixed)
        else:
            shuffle(rest)
        orders.append(rest)
    finish_random(table, orders, penalties)


def _greedy_finish(
    table: Table, hands: list[list[int]], first: dict[int, int], penalties: list[int], rng: random.Random
) -> None:
    if first and hands and hands[0]:
        n = len(hands)
        rand = rng.random
        keys = []
        for p in range(n):
            hand = hands[p]
            fixed = first.get(p)
            card = fixed if fixed is not None else (
                greedy_pick(table, hand, n, rand) if len(hand) > 1 else hand[0]
            )
            hand.remove(card)
            keys.append(card * 16 + p)
        keys.sort()
        for key in keys:
            place(table, key >> 4, key & 15, penalties)
    finish_greedy(table, hands, penalties, rng)


ENGINES: dict[str, RolloutEngine] = {
    "random": RolloutEngine("random", _random_finish),
    "greedy": RolloutEngine("greedy", _greedy_finish),
}
