"""The coach: advice for one player, computed from that player's view only.

The coach never plays and never chooses: it returns numbers, and the player decides. A table may
turn it off; that is the table's business (the coach itself has no state).

Two questions, two functions:

:func:`advise_cards` — during card choice, for each card of the hand:

* ``take_chance``: the chance that this card takes a row **this turn** (it is the sixth card of its
  row, or it is below every row when its turn comes), and ``turn_bullheads``: the bullheads it is
  expected to take this turn;
* ``round_bullheads``: the bullheads this player is expected to take from now to the end of the
  round if they play this card now (Monte Carlo, below).

:func:`advise_rows` — when the player's card is below every row, for each row: ``now``, the
bullheads taken now (exact: the row's bullheads); ``later``, the bullheads expected from the rest
of the round after that choice (Monte Carlo); and ``total = now + later``.

Both also give the learned network's view (``net_bullheads`` and ``net_chance`` per card,
``net_total`` per row: see "The network's view" below).

Method
------
*This turn* (``take_chance``, ``turn_bullheads``). The other players' cards this turn are taken as
unknown: each other player holds a hand dealt at random from the unseen cards and plays any card
of it, so together they play a uniformly random set of distinct unseen cards, one each. Only the
cards below the advised card can change its fate (cards resolve lowest first), so the coach counts
how many of the other players' cards fall below it (a hypergeometric count) and then goes through
**every** set of that many lower unseen cards, placing the cards as the rules do; a player whose
card is below every row is assumed to take the row with the fewest bullheads, and so is the advised
card itself when it is below every row (the advice's usual choice: the player may choose any row).
That makes these two numbers exact under the model. When there are too many sets to go through
(``exact_limit``), it draws ``samples`` of them at random instead, and says so (``exact=False``).

*The rest of the round* (``round_bullheads``, ``later``). Monte Carlo: ``samples`` deals of the
unseen cards consistent with the view, each played to the end of the round by every player
playing like the ``heuristic`` bot (the compiled rollouts of :mod:`nimmt.batch`; without Numba,
the pure-Python greedy rollouts of :mod:`nimmt.bots.rollout`); all options are scored on the same
deals. The standard error is given with each mean.

*The network's view* (``net_bullheads``, ``net_chance``, ``net_total``). The learned policy and
value of :mod:`nimmt.bots.learned`, a small network trained on the same kind of rollouts: for
each card the bullheads it expects from now to the end of the round (``net_bullheads``, the same
question as ``round_bullheads``, answered in about a millisecond and without sampling) and the
policy's probability that it is the best card (``net_chance``; they sum to 1 over the hand); for
each row, its bullheads now plus the network's value of the hand afterwards (``net_total``). A
second opinion, not a measurement: where it and the Monte Carlo numbers disagree, trust the Monte
Carlo ones (their standard error says how far). ``learned=False`` leaves these fields None.

A shortcut, exact as well: when no row can reach five cards before the advised card and some row
end stays below it, the card is safe this turn (chance 0) whatever the others play.

>>> from nimmt.core import Deal, apply, new_game, view
>>> hands = (tuple(range(41, 51)), tuple(range(51, 61)))
>>> state = apply(new_game(2), Deal((1, 2, 3, 4), hands)).state
>>> advice = advise_cards(view(state, 0), samples=20)
>>> [(a.card, a.take_chance, a.turn_bullheads) for a in advice][:2]
[(41, 0.0, 0.0), (42, 0.0, 0.0)]
"""

from __future__ import annotations

import random
from bisect import bisect_left
from dataclasses import dataclass
from itertools import combinations
from math import comb

from nimmt.bots.rollout import place, table_of
from nimmt.bots.search import Estimate, batch_available, evaluate, evaluate_batch
from nimmt.core import ROW_COUNT, ROW_LIMIT, NimmtError, View

DEFAULT_SAMPLES = 400
DEFAULT_EXACT_LIMIT = 5000


class CoachError(NimmtError, ValueError):
    """Advice was asked for at a moment when it makes no sense (no hand, no row to choose...)."""


@dataclass(frozen=True, slots=True)
class CardAdvice:
    """What playing ``card`` now is expected to cost."""

    card: int
    take_chance: float  # chance of taking a row this turn
    turn_bullheads: float  # expected bullheads taken this turn
    exact: bool  # True: the two numbers above are exact under the coach's model; False: sampled
    round_bullheads: float  # expected bullheads from now to the end of the round (Monte Carlo)
    round_stderr: float  # standard error of round_bullheads
    row: int | None  # the row the card goes to as the rows stand; None: below every row
    net_bullheads: float | None = None  # the learned network's expected bullheads to the end of the round
    net_chance: float | None = None  # the learned policy's probability that this is the best card


@dataclass(frozen=True, slots=True)
class RowAdvice:
    """What taking ``row`` for the waiting card costs, now and later."""

    row: int
    now: int  # bullheads taken now: the row's bullheads
    later: float  # expected bullheads from the rest of the round after this choice (Monte Carlo)
    later_stderr: float
    total: float  # now + later
    net_total: float | None = None  # the learned network's now + later


def _turn_outcome(view: View, card: int, lower: tuple[int, ...]) -> int:
    """Bullheads ``card`` takes this turn when the other players' cards below it are ``lower``
    (ascending). Cards above ``card`` resolve after it and cannot change its fate. Every row holds
    at least one bullhead, so a positive result means the card took a row.
    """
    table = table_of(view.rows)
    penalties = [0, 0]
    for other in lower:
        place(table, other, 1, penalties)
    place(table, card, 0, penalties)
    return penalties[0]


def turn_risk(
    view: View,
    card: int,
    *,
    rng: random.Random | None = None,
    samples: int = DEFAULT_SAMPLES,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
) -> tuple[float, float, bool]:
    """(take_chance, expected bullheads, exact) for playing ``card`` this turn."""
    assert view.player is not None
    unseen = sorted(view.unseen_cards())
    others = view.players - 1
    u = len(unseen)
    below = unseen[: bisect_left(unseen, card)]
    b = len(below)
    if u < others:
        raise CoachError(f"only {u} unseen cards for {others} other players: this view is not possible")
    # P(k of the other players' cards are below the card): hypergeometric.
    if (card > min(row[-1] for row in view.rows) and others < ROW_COUNT
            and max(map(len, view.rows)) + others < ROW_LIMIT):
        # No row can reach five cards before this card, and some row stays below it: it is safe.
        return 0.0, 0.0, True
    total_sets = comb(u, others)
    weights = [comb(b, k) * comb(u - b, others - k) / total_sets for k in range(others + 1)]
    configurations = sum(comb(b, k) for k in range(others + 1) if weights[k] > 0)
    chance = 0.0
    heads = 0.0
    if configurations <= exact_limit:
        for k in range(others + 1):
            if weights[k] == 0:
                continue
            each = weights[k] / comb(b, k)
            for lower in combinations(below, k):
                taken = _turn_outcome(view, card, lower)
                if taken:
                    chance += each
                    heads += each * taken
        return chance, heads, True
    rng = rng or random.Random()
    for _ in range(samples):
        chosen = rng.sample(unseen, others)
        lower = tuple(sorted(c for c in chosen if c < card))
        taken = _turn_outcome(view, card, lower)
        if taken:
            chance += 1
            heads += taken
    return chance / samples, heads / samples, False


def _sample(view: View, kind: str, rng: random.Random, samples: int, compiled: bool = True) -> list[Estimate]:
    """Monte Carlo to the end of the round: compiled heuristic rollouts when Numba is there (and
    ``compiled``; else the pure-Python ones, which need nothing compiled first)."""
    # The batch engine rolls out from a card still to choose; a player who has already chosen this
    # turn (and asks anyway) is served by the pure-Python rollouts.
    if compiled and batch_available() and (kind == "row" or view.must_play_card):
        return evaluate_batch(view, kind, rng=rng, policy="heuristic", samples=samples, chunk=64)
    options = view.hand if kind == "card" else range(ROW_COUNT)
    return evaluate(view, options, kind, rng=rng, engine="greedy", samples=samples)


def _net_cards(view: View) -> dict[int, tuple[float, float]]:
    """card -> (expected bullheads, policy probability) from the learned network; empty without NumPy."""
    try:
        from nimmt.bots.learned import load
    except ImportError:
        return {}
    return load().score_view(view)


def _net_rows(view: View) -> list[float]:
    """Each row's bullheads now plus the learned network's value of the hand afterwards; empty without NumPy."""
    try:
        from nimmt.bots.learned import load, row_values
    except ImportError:
        return []
    return row_values(load(), view)


def advise_cards(
    view: View,
    *,
    samples: int = DEFAULT_SAMPLES,
    rng: random.Random | None = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    learned: bool = True,
    compiled: bool = True,
) -> list[CardAdvice]:
    """Advice for each card of ``view.hand``, in hand order. See the module's method. ``compiled=False``:
    the pure-Python rollouts even when the compiled ones are installed (they may not be compiled yet)."""
    if view.player is None:
        raise CoachError("a spectator has no cards to be advised on")
    if not view.hand:
        raise CoachError("there is no card in the hand to be advised on")
    if view.row_choice_card is not None:
        raise CoachError("a card waits for a row choice: ask for advice on the rows")
    rng = rng or random.Random()
    estimates = {e.option: e for e in _sample(view, "card", rng, samples, compiled)}
    net = _net_cards(view) if learned else {}
    advice = []
    for card in view.hand:
        chance, heads, exact = turn_risk(view, card, rng=rng, samples=samples, exact_limit=exact_limit)
        estimate = estimates[card]
        advice.append(
            CardAdvice(
                card=card,
                take_chance=chance,
                turn_bullheads=heads,
                exact=exact,
                round_bullheads=estimate.mean,
                round_stderr=estimate.stderr,
                row=view.target_row(card),
                net_bullheads=net[card][0] if net else None,
                net_chance=net[card][1] if net else None,
            )
        )
    return advice


def advise_rows(
    view: View,
    *,
    samples: int = DEFAULT_SAMPLES,
    rng: random.Random | None = None,
    learned: bool = True,
    compiled: bool = True,
) -> list[RowAdvice]:
    """Advice for each row when ``view.player``'s card is below every row. See the module's method
    (``compiled`` as for :func:`advise_cards`)."""
    if view.player is None or not view.must_choose_row:
        raise CoachError("no card of this player waits for a row choice")
    rng = rng or random.Random()
    heads = view.row_bullheads()
    estimates = {e.option: e for e in _sample(view, "row", rng, samples, compiled)}
    net = _net_rows(view) if learned else []
    advice = []
    for row in range(ROW_COUNT):
        estimate = estimates[row]
        later = estimate.mean - heads[row]  # the sampled total counts the row taken now
        advice.append(
            RowAdvice(row=row, now=heads[row], later=later, later_stderr=estimate.stderr, total=heads[row] + later,
                      net_total=net[row] if net else None)
        )
    return advice
