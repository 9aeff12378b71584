"""The ``expert`` bot: the strongest player nimmt makes. See ``docs/ladder.md``.

It reasons about the cards it cannot see by sampling: every sample deals the unseen cards out
consistently with its view (each other player gets as many cards as they hold; in this game
nothing else is known about them), then plays the round to its end in the compiled rollouts of
:mod:`nimmt.batch`, each player in the style its model guesses (below). Each card of its hand is
scored by the bullheads it takes from now to the end of the round, all cards on the same samples;
cards that are clearly worse stop being sampled, so the time goes to the close calls. It samples
until its time budget for the decision is spent (``time_budget`` seconds, 1 by default; a
tournament sets it with ``--time-budget``): a rollout of careful styles costs tens of
microseconds, so a decision weighs tens of thousands of them (about a million at a table that
looks random, where every rollout is random play, about a microsecond each).

Who it plays is guessed from the cards they reveal (:mod:`nimmt.bots.opponents`): a posterior for
each other player over a few styles (nimmt's ``heuristic``, ``snug`` play like ``field:risk``,
``mc`` the noisy play of Monte-Carlo bots, ``random``; with the ``styles`` option also ``learned``, the
network's play, a model of searching players, or ``learned-drawn``, its card drawn from the network's
softmax); the rollouts give each player a style drawn
from it (:mod:`nimmt.bots.styles`), or play everybody at random when every other player looks
random. A card is worth its bullheads minus the mean of what each other player takes in the same
rollouts (``others=1``): the search plays for a lead over the table, not only for a low score. Near
the game's end (a total, this round's bullheads included, within 30 of the threshold, or the table's
fixed last round), at a table of 5 players or more, it plays against the table's leader instead
(``objective="lowest"``, the default): a rollout is worth its final total minus the lowest other
final total (:mod:`nimmt.bots.ending`), which at ten players wins more games (``docs/ladder.md``).

In the rollouts it plays its own later cards like ``heuristic`` (``own="heuristic"``, the default),
or like the learned network of :mod:`nimmt.bots.learned` (``own="learned"``: its features and
layers compiled into the rollouts, :attr:`nimmt.batch.CardPolicy.NET`; each rollout costs some
four times as much). Measured side by side in ``docs/ladder.md``.

Its row choice is searched the same way: when its card is below every row, each of the four rows
is scored by what it costs now *and* by what the table it leaves costs its remaining cards later.

Without Numba (the ``sim`` extra) it falls back to the pure-Python rollouts of
:mod:`nimmt.bots.rollout` with everybody at random (no model of the other players), some sixty
times slower than the compiled random rollouts, hence weaker.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from nimmt.core import ROW_COUNT, View

from .base import DEFAULT_TIME_BUDGET, Bot, BotError
from .ending import NEAR, TAU, VERSUS, end_scorer, margin_scorer, near_end
from .opponents import OpponentModel
from .search import Estimate, batch_available, evaluate, evaluate_batch
from .styles import STYLES, Seats, seats_of

if TYPE_CHECKING:
    from .ending import Floats, Ints


def _warm_up() -> None:
    """:func:`nimmt.batch.warm_up` when Numba is there: the compiled rollouts loaded once per process,
    so that the first decision is not the one paying; without Numba nothing (the fallback is Python)."""
    if batch_available():
        from nimmt.batch import warm_up

        warm_up()


class ExpertBot(Bot):
    name = "expert"
    description = (
        "Samples the hidden hands tens of thousands of times and plays each round out, scoring every "
        "card and every row by its bullheads to the end of the round, within a time budget per "
        "decision (default 1 s)."
    )

    FALLBACK_POLICY = "random"  # rollout policy of the pure-Python engine
    Z = 3.5  # a card is dropped when it is this many standard errors worse than the best
    # Samples per call of the batch engine, by rollout policy: enough to pay its Python overhead
    # once per call, few enough to stop close to the deadline (a heuristic rollout costs ~50 us).
    CHUNKS: ClassVar[dict[str, int]] = {"random": 128, "heuristic": 16, "learned": 8}
    OWN: ClassVar[tuple[str, ...]] = ("heuristic", "learned")
    # Share of the budget used, leaving room for the caller's own work and clock jitter.
    MARGIN = 0.85
    PRIOR_KEEP = 2  # the prior never leaves fewer cards than this to search

    CLOCKS: ClassVar[dict[str, Callable[[], float]]] = {"wall": time.perf_counter, "cpu": time.thread_time}

    def __init__(
        self,
        rng: random.Random | None = None,
        time_budget: float = DEFAULT_TIME_BUDGET,
        samples: int | None = None,
        clock: str = "wall",
        prior_margin: float | None = None,
        prior_weight: float = 0.0,
        styles: str | None = None,
        others: float = 1.0,
        own: str = "heuristic",
        ending: bool = False,
        objective: str = "lowest",
        end_win: float = 0.0,
        end_gate: float | None = None,
        near: int = NEAR,
        leader_from: int = 5,
        tau: float = TAU,
    ) -> None:
        super().__init__(rng)
        if clock not in self.CLOCKS:
            raise BotError(f"the budget clock is 'wall' or 'cpu', not {clock!r}")
        self.time_budget = time_budget
        # "wall": the budget is wall-clock time (what a waiting table sees); "cpu": CPU time of this
        # thread (what one dedicated core would take, the fair measure on a shared machine).
        self.clock = clock
        self.samples = samples  # a fixed sample count (also capped by the budget): reproducible runs
        # The learned network (nimmt.bots.learned) as a prior: cards it values more than
        # ``prior_margin`` bullheads worse than its best are not searched (at least PRIOR_KEEP are), and
        # its values count as ``prior_weight`` samples each in the final choice. None and 0: no prior.
        self.prior_margin = prior_margin
        self.prior_weight = prior_weight
        self.batch = batch_available()
        # > 0: a card's (or row's) value is its bullheads minus this times the mean of each other
        # player's, in the same rollouts (a lead over the table, not only a low score; 1 by default,
        # measured in docs/ladder.md). 0: its own bullheads only, as before.
        self.others = others
        # The styles its model of the other players weighs (comma-separated names of
        # nimmt.bots.styles.STYLES), at every table size; None: the default for the table's size
        # (nimmt.bots.styles.default_styles).
        family = None if styles is None else tuple(s.strip() for s in styles.split(","))
        if family is not None and (any(s not in STYLES for s in family) or "random" not in family):
            raise BotError(f"styles are among {', '.join(STYLES)} and include 'random', not {styles!r}")
        self.opponents = OpponentModel(random.Random(self.rng.getrandbits(64)), family)
        # How the rollouts play its own later cards: like ``heuristic``, or like the learned network
        # (nimmt.bots.learned, compiled into the rollouts: stronger play, each rollout some 4 times
        # as costly; measured in docs/ladder.md).
        if own not in self.OWN:
            raise BotError(f"its own rollout play is {' or '.join(map(repr, self.OWN))}, not {own!r}")
        self.own = own
        # True: near the game's end (the fixed last round, or a total close to the threshold) a card is
        # worth its chance of leaving this player with the lowest total when the game ends
        # (nimmt.bots.ending), not its bullheads; off by default until measured at 1 s (docs/ladder.md).
        self.ending = ending
        # Near the end (``near``, nimmt.bots.ending.near_end) a rollout is valued by ``objective``: "lead"
        # (as elsewhere), "end" (= ``ending``), or a margin in bullheads (nimmt.bots.ending.margin_scorer)
        # against the "mean" of the others or the "lowest" other total (the default, measured in
        # docs/ladder.md), ``end_win`` bullheads off for a won ending, and only when at least
        # ``end_gate`` of the first chunk's rollouts end the game.
        if objective not in ("lead", "end", *VERSUS):
            raise BotError(f"the objective is 'lead', 'end', 'mean' or 'lowest', not {objective!r}")
        if end_gate is not None and not 0 <= end_gate <= 1:
            raise BotError(f"end_gate is a share between 0 and 1, not {end_gate!r}")
        self.objective = "end" if ending else objective
        self.end_win = end_win
        self.end_gate = end_gate
        self.near = near
        # The margin objectives ("mean", "lowest") apply at tables of at least this many players; at
        # smaller ones the lead as elsewhere (at 4 players "lowest" did not help: docs/ladder.md).
        self.leader_from = leader_from
        # The end play's stand-in for a game that goes on (objective "end"): a softmax over the totals,
        # ``tau`` bullheads of total to a factor e (nimmt.bots.ending.end_scorer).
        if not tau > 0:
            raise BotError(f"tau is a number of bullheads above 0, not {tau!r}")
        self.tau = tau
        _warm_up()

    def _prior(self, view: View) -> dict[int, float]:
        """card -> the network's expected bullheads to the end of the round (empty without a prior)."""
        if self.prior_margin is None and self.prior_weight <= 0:
            return {}
        from .learned import load

        return {card: q for card, (q, _) in load().score_view(view).items()}

    def _candidates(self, view: View, prior: dict[int, float]) -> list[int]:
        """The cards worth searching: all of them, or those the prior does not rule out."""
        if not prior or self.prior_margin is None:
            return list(view.hand)
        ranked = sorted(view.hand, key=lambda c: prior[c])
        best = prior[ranked[0]]
        return [c for i, c in enumerate(ranked) if i < self.PRIOR_KEEP or prior[c] <= best + self.prior_margin]

    def _search(self, view: View, kind: str, cards: list[int] | None = None) -> list[Estimate]:
        clock = self.CLOCKS[self.clock]
        deadline = clock() + self.time_budget * self.MARGIN
        if self.batch:
            if kind == "card":
                self.opponents.observe(view)
            policy: str | Callable[[], Seats] = "random"
            if not self.opponents.careless_table(view):
                # Each chunk of samples: every other player in a style drawn from its posterior.
                policy = self._seats(view)
            chunk = self.CHUNKS["random" if policy == "random" else self.own]
            score = self._scorer(view)
            return evaluate_batch(
                view, kind, rng=self.rng, policy=policy, samples=self.samples,
                deadline=deadline, prune=True, clock=clock, chunk=chunk, min_samples=chunk, z=self.Z, cards=cards,
                others=self.others, score=score,
            )
        options = (view.hand if cards is None else cards) if kind == "card" else range(ROW_COUNT)
        return evaluate(
            view, options, kind, rng=self.rng, engine=self.FALLBACK_POLICY,
            samples=self.samples, deadline=deadline, prune=True, clock=clock,
        )

    def _scorer(self, view: View) -> Callable[[Ints], Floats] | None:
        """How a rollout is valued here when not as the default lead (None: as the default)."""
        if self.objective == "lead" or not near_end(view, self.near):
            return None
        if self.objective == "end":
            return end_scorer(view, self.tau)
        if view.players < self.leader_from:
            return None
        return margin_scorer(view, self.objective, self.end_win, self.end_gate)

    def _seats(self, view: View) -> Callable[[], Seats]:
        """A new draw of the other players' styles for each chunk of samples; its own seat plays ``own``."""
        me = view.player
        assert me is not None, "a spectator has no cards to search"

        def draw() -> Seats:
            styles = self.opponents.draw(view, self.rng)
            styles[me] = self.own
            return seats_of(styles)

        return draw

    def choose_card(self, view: View) -> int:
        if len(view.hand) == 1:
            return view.hand[0]
        prior = self._prior(view)
        estimates = self._search(view, "card", self._candidates(view, prior))
        if not prior or self.prior_weight <= 0:
            return min(estimates, key=lambda e: (e.mean, -e.option)).option
        # The prior on the search's level (its mean over the searched cards), weighed as that many samples.
        shift = sum(e.mean - prior[e.option] for e in estimates) / len(estimates)
        k = self.prior_weight

        def score(e: Estimate) -> tuple[float, int]:
            return ((e.samples * e.mean + k * (prior[e.option] + shift)) / (e.samples + k), -e.option)

        return min(estimates, key=score).option

    def choose_row(self, view: View) -> int:
        return min(self._search(view, "row"), key=lambda e: (e.mean, e.option)).option
