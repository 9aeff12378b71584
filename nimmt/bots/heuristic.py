"""The ``heuristic`` bot: plays the card with the lowest expected penalty, from its view only.

The idea, card by card
----------------------
For every card of its hand the bot estimates the bullheads it would take this turn:

* **Where it lands.** The card goes to the row whose last card is the highest one below it.
* **What can land first.** Only an unseen card lying between that row's last card and this card
  can reach the same row earlier in the turn (cards resolve lowest first). With ``u`` unseen
  cards (the other hands and the cards not dealt) and ``g`` of them in that gap, each opponent's
  card falls in the gap with chance about ``g / u``; the number ``k`` of cards arriving first is
  taken as binomial over the opponents.
* **Sixth card or not.** A row holding ``L`` cards is taken by the card that finds it with 5. For
  each ``k`` the bot follows the row's length (``L``, then 5 -> 1 when somebody else takes it)
  and, when the row would hold 5 cards on arrival, counts the bullheads then in it: the row's
  bullheads now plus ``k`` times the average bullheads of the gap cards (or five gap cards if
  somebody else took the row in between).
* **Below every row.** Then the bot must take a row: the cost is the cheapest row's bullheads,
  unless an opponent plays an even lower card first, takes a row, and leaves the bot's card to
  land on it (counted with its probability).

Looking one card ahead (small tables)
-------------------------------------
With one or two opponents a turn adds only two or three cards to the table, so a card's danger
lies less in this turn than in the turns after, and mostly for the bot's own next cards: a card
that makes a row long, or covers the spot its other cards need, costs them later. At tables of at
most ``FEW`` players the bot therefore scores each card by its cost now plus ``LOOK`` times the
mean cost of the rest of its hand on the rows that card leaves (the same estimate, the others'
cards of this turn unknown; heads-up with as many of the opponent's cards landing first as half
the hand's size, since the hand's later cards are played over the turns to come and the
opponent's cards keep filling the rows meanwhile), and on a near tie it plays the card that joins the shortest row, then
the one closest above its row's end: it keeps rows short and gaps tight, where its opponents' cards
must squeeze in. (Heads-up the old choice, the highest card of the near ties, lost to every careful
style of the field: ``docs/ladder.md``.)

At larger tables this turn's danger dominates. There it plays the card with the lowest expected
cost and on a near tie (within ``TIE``) the higher card, since high cards find a row later more
often than low ones and it keeps the low cards, which can take a cheap row on purpose.

Choosing a row
--------------
When its card is below every row, the bot looks at each of the four rows: the bullheads it takes
now, plus what the table would look like afterwards. The cards still to resolve in this turn are
already face up, so it plays them out on the rows that choice would leave (an opponent with a
low card is assumed to take the cheapest row), then estimates, as above, the cost of each card
still in its hand on the rows that result. The score is ``now + LATER * mean(later costs)``:
taking a slightly dearer row can be right when it leaves the bot's next cards safe.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from math import comb

from nimmt.core import BULLHEADS, ROW_COUNT, ROW_LIMIT, View, fast, row_bullheads, target_row

from .base import Bot


def _binomial(n: int, p: float) -> list[float]:
    """P(K = k) for k = 0..n, K ~ Binomial(n, p)."""
    q = 1.0 - p
    return [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)]


def at_least(n: int, p: float, k: int) -> float:
    """P(X >= k) for X ~ Binomial(n, p) (the learned network's features and the ``field:risk`` bot
    use it; the batch kernels' ``at_least`` repeats it float operation for float operation).

    >>> at_least(3, 0.5, 2), at_least(3, 0.5, 0), at_least(3, 0.5, 4)
    (0.5, 1.0, 0.0)
    """
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    q = 1.0 - p
    return sum(comb(n, i) * p**i * q ** (n - i) for i in range(k, n + 1))


def card_cost(
    rows: Sequence[Sequence[int]], card: int, unseen: Sequence[int], opponents: int
) -> float:
    """Expected bullheads ``card`` takes if played now on ``rows`` (``unseen`` sorted).

    >>> card_cost(((10,), (20,), (30,), (40, 41, 42, 43, 44)), 45, (), 3)  # sixth card: 3+1+1+1+5
    11.0
    >>> card_cost(((10,), (20,), (30,), (40,)), 41, (), 3)
    0.0
    """
    total = len(unseen)
    row = target_row(rows, card)
    if row is None:
        cheapest = min(row_bullheads(r) for r in rows)
        if total == 0:
            return float(cheapest)
        lower = bisect_left(unseen, card)
        # Chance that nobody plays an even lower card (which would take a row and catch this one).
        alone = (1.0 - lower / total) ** opponents
        return alone * cheapest
    cards = rows[row]
    length = len(cards)
    heads = row_bullheads(cards)
    start = bisect_left(unseen, cards[-1])
    stop = bisect_left(unseen, card)
    gap = stop - start
    if gap == 0 or total == 0:
        return float(heads) if length >= ROW_LIMIT else 0.0
    mean_gap = sum(BULLHEADS[unseen[i]] for i in range(start, stop)) / gap
    expected = 0.0
    for k, chance in enumerate(_binomial(opponents, min(1.0, gap / total))):
        if chance == 0.0 or (length - 1 + k) % ROW_LIMIT + 1 != ROW_LIMIT:
            continue
        if length + k <= ROW_LIMIT:
            expected += chance * (heads + k * mean_gap)
        else:
            expected += chance * ROW_LIMIT * mean_gap
    return expected


def play_out(
    rows: Sequence[Sequence[int]], cards: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    """The rows after ``cards`` (lowest first) are placed; a card below every row takes the
    cheapest row (what an opponent is assumed to do). Placed by the core's compact placement
    (:func:`nimmt.core.fast.target` and :func:`~nimmt.core.fast.lay`, what every engine places
    with); the rows' cards follow what it did.

    >>> play_out(((10,), (20, 21, 22, 23, 24), (30,), (40,)), (5, 25))
    ((5,), (25,), (30,), (40,))
    """
    table = [tuple(r) for r in rows]
    ends = [r[-1] for r in table]
    counts = [len(r) for r in table]
    heads = [row_bullheads(r) for r in table]
    for card in cards:
        row = fast.target(ends, card)
        low = row < 0
        if low:
            row = fast.fewest_bullheads(-1, card, ends, heads)
        taken = fast.lay(ends, counts, heads, row, card, low, BULLHEADS)
        table[row] = (card,) if taken else (*table[row], card)
    return tuple(table)


# The weights of the bot (the batch engine repeats them: tests/batch/test_exact.py holds them equal).
TIE = 0.05  # expected bullheads under which two cards count as equally safe
LATER = 1.0  # weight of the hand's later risk when choosing a row
LOOK = 0.5  # weight of the rest of the hand's cost on the rows a card leaves (small tables)
FEW = 3  # tables of at most this many players look one card ahead


def fit(rows: Sequence[Sequence[int]], card: int) -> tuple[int, int, int]:
    """How snugly ``card`` fits: the length of the row it joins, its gap to that row's end, the
    card; a card below every row comes after every card that lands.

    >>> fit(((10,), (20, 21), (30,), (40,)), 25), fit(((10,), (20,), (30,), (40,)), 5)
    ((2, 4, 25), (6, 0, 5))
    """
    row = target_row(rows, card)
    if row is None:
        return (ROW_LIMIT + 1, 0, card)
    return (len(rows[row]), card - rows[row][-1], card)


def choose(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int) -> int:
    """The card :class:`HeuristicBot` plays from ``hand`` on ``rows`` (``unseen`` sorted: the cards
    it has not seen) at a table of ``players``.

    >>> rows = ((10,), (20,), (30,), (40,))
    >>> choose(rows, (41, 42), (), 4), choose(rows, (21, 43), (), 2)  # near ties: highest; snuggest
    (42, 21)
    """
    hand = sorted(hand)  # the same order of additions as the batch engine's, to the last bit
    opponents = players - 1
    costs = [card_cost(rows, card, unseen, opponents) for card in hand]
    if players <= FEW:
        # Heads-up, a later card of the hand meets about half the opponent's remaining cards, not one.
        ahead = opponents * max(1, len(hand) // 2) if players == 2 else opponents
        for i, card in enumerate(hand):
            rest = [c for c in hand if c != card]
            if rest:
                after = play_out(rows, (card,))
                later = sum(card_cost(after, c, unseen, ahead) for c in rest) / len(rest)
                costs[i] = costs[i] + LOOK * later
    best = min(costs)
    near = [card for cost, card in zip(costs, hand, strict=True) if cost <= best + TIE]
    if players <= FEW:
        return min(near, key=lambda card: fit(rows, card))
    return max(near)


class HeuristicBot(Bot):
    name = "heuristic"
    description = (
        "Plays the card with the lowest expected penalty (where it lands, how many unseen cards "
        "can land first, sixth card, bullheads at stake; at small tables also what it leaves for "
        "its next cards); picks a row by its bullheads now and what it leaves for its next cards."
    )

    TIE = TIE
    LATER = LATER
    LOOK = LOOK
    FEW = FEW

    def choose_card(self, view: View) -> int:
        return choose(view.rows, view.hand, view.unseen_cards(), view.players)

    def choose_row(self, view: View) -> int:
        unseen = view.unseen_cards()
        opponents = view.players - 1
        card = view.row_choice_card
        assert card is not None
        still = [c for c, _ in view.revealed[view.resolved + 1 :]]
        scores = []
        for row in range(ROW_COUNT):
            now = row_bullheads(view.rows[row])
            rows = list(view.rows)
            rows[row] = (card,)
            after = play_out(rows, still)
            later = 0.0
            if view.hand:
                later = sum(card_cost(after, c, unseen, opponents) for c in view.hand) / len(view.hand)
            scores.append((now + self.LATER * later, now, row))
        return min(scores)[2]
