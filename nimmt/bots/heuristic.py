"""The ``heuristic`` bot: plays the card with the lowest expected penalty, from its view only.

The bot is a thin adapter: the policy is written once, as the batch engine's kernels
(``nimmt/batch/_choices.py``: ``card_cost``, ``heuristic_pick``, ``heuristic_row``), which the
bot calls through :mod:`nimmt.batch.decide` with its view packed, and which the rollouts and
simulations play for every seat. The weights (``TIE``, ``LOOK``, ``FEW``, ``LATER`` below) are
``nimmt.batch.HEURISTIC_TIE`` and its kin, defined once there. What the kernels compute:

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
most ``FEW`` (3) players the bot therefore scores each card by its cost now plus ``LOOK`` (0.5) times the
mean cost of the rest of its hand on the rows that card leaves (the same estimate, the others'
cards of this turn unknown; heads-up with as many of the opponent's cards landing first as half
the hand's size, since the hand's later cards are played over the turns to come and the
opponent's cards keep filling the rows meanwhile), and on a near tie it plays the card that joins the shortest row, then
the one closest above its row's end: it keeps rows short and gaps tight, where its opponents' cards
must squeeze in. (Heads-up the old choice, the highest card of the near ties, lost to every careful
style of the field: ``docs/ladder.md``.)

At larger tables this turn's danger dominates. There it plays the card with the lowest expected
cost and on a near tie (within ``TIE``, 0.05 bullheads) the higher card, since high cards find a row later more
often than low ones and it keeps the low cards, which can take a cheap row on purpose.

Choosing a row
--------------
When its card is below every row, the bot looks at each of the four rows: the bullheads it takes
now, plus what the table would look like afterwards. The cards still to resolve in this turn are
already face up, so it plays them out on the rows that choice would leave (an opponent with a
low card is assumed to take the cheapest row), then estimates, as above, the cost of each card
still in its hand on the rows that result. The score is ``now + LATER * mean(later costs)`` (``LATER`` = 1):
taking a slightly dearer row can be right when it leaves the bot's next cards safe.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from nimmt.core import BULLHEADS, View, fast, row_bullheads

from .base import Bot

_READY_AGAIN = 10.0  # seconds before asking again whether the compiled kernels are prepared
_ready: list[float] = [0.0]  # when compiled() last found them unprepared (monotonic); inf once prepared


def compiled() -> bool:
    """Whether the policies run compiled here: Numba installed, on and already loaded by this process
    (a process that loads it for the bots alone waits about a second: a server's event loop, a
    terminal game), and the kernels prepared (``nimmt prepare``: no decision ever waits minutes for
    a compile). Else the same kernels run as plain Python, a fraction of a millisecond a decision.
    Asked again at most every few seconds."""
    if _ready[0] == float("inf"):
        return True
    if "numba" not in sys.modules:
        return False
    now = time.monotonic()
    if _ready[0] and now - _ready[0] < _READY_AGAIN:
        return False
    from nimmt.batch.cache import compiled_engine, is_prepared

    ready = compiled_engine() and is_prepared()
    _ready[0] = float("inf") if ready else now
    return ready


def card_cost(rows: Sequence[Sequence[int]], card: int, unseen: Sequence[int], opponents: int) -> float:
    """Expected bullheads ``card`` takes if played now on ``rows`` (``unseen``: the cards not seen)
    by the kernels' estimate (:func:`nimmt.batch.decide.card_costs`).

    >>> card_cost(((10,), (20,), (30,), (40, 41, 42, 43, 44)), 45, (), 3)  # sixth card: 3+1+1+1+5
    11.0
    >>> card_cost(((10,), (20,), (30,), (40,)), 41, (), 3)
    0.0
    """
    from nimmt.batch.decide import card_costs

    return card_costs(rows, (card,), unseen, opponents + 1, compiled())[card]


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


def choose(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int) -> int:
    """The card :class:`HeuristicBot` plays from ``hand`` on ``rows`` (``unseen``: the cards it has
    not seen) at a table of ``players``.

    >>> rows = ((10,), (20,), (30,), (40,))
    >>> choose(rows, (41, 42), (), 4), choose(rows, (21, 43), (), 2)  # near ties: highest; snuggest
    (42, 21)
    """
    from nimmt.batch.decide import heuristic_card

    return heuristic_card(rows, hand, unseen, players, compiled=compiled())


class HeuristicBot(Bot):
    name = "heuristic"
    description = (
        "Plays the card with the lowest expected penalty (where it lands, how many unseen cards "
        "can land first, sixth card, bullheads at stake; at small tables also what it leaves for "
        "its next cards); picks a row by its bullheads now and what it leaves for its next cards."
    )

    def choose_card(self, view: View) -> int:
        return choose(view.rows, view.hand, view.unseen_cards(), view.players)

    def choose_row(self, view: View) -> int:
        from nimmt.batch.decide import heuristic_row

        card = view.row_choice_card
        assert card is not None
        still = [c for c, _ in view.revealed[view.resolved + 1 :]]
        return heuristic_row(view.rows, card, still, view.hand, view.unseen_cards(), view.players, compiled())
