"""The ``expert`` bot: the strongest player nimmt makes. See ``docs/ladder.md``.

It reasons about the cards it cannot see by sampling: every sample deals the unseen cards out
consistently with its view (each other player gets as many cards as they hold; in this game
nothing else is known about them), then plays the round to its end with every player, itself
included, following a fast greedy policy that avoids sixth cards and dear rows. Each card of its
hand is scored by the bullheads it takes from now to the end of the round, all cards on the same
samples; cards that are clearly worse stop being sampled, so the time goes to the close calls.
It samples until its time budget for the decision is spent (``time_budget`` seconds, 1 by default;
a tournament sets it with ``--time-budget``).

Its row choice is searched the same way: when its card is below every row, each of the four rows
is scored by what it costs now *and* by what the table it leaves costs its remaining cards later.
"""

from __future__ import annotations

import random
import time

from nimmt.core import ROW_COUNT, View

from .base import Bot
from .search import evaluate


class ExpertBot(Bot):
    name = "expert"
    description = (
        "Samples the hidden hands and plays each round out with a greedy policy, scoring every card "
        "and every row by its bullheads to the end of the round, within a time budget per decision "
        "(default 1 s)."
    )

    POLICY = "greedy"
    # Share of the budget used, leaving room for the caller's own work and clock jitter.
    MARGIN = 0.9

    def __init__(
        self, rng: random.Random | None = None, time_budget: float = 1.0, samples: int | None = None
    ) -> None:
        super().__init__(rng)
        self.time_budget = time_budget
        self.samples = samples  # a fixed sample count (also capped by the budget): reproducible runs

    def _deadline(self, start: float) -> float:
        return start + self.time_budget * self.MARGIN

    def choose_card(self, view: View) -> int:
        start = time.perf_counter()
        if len(view.hand) == 1:
            return view.hand[0]
        estimates = evaluate(
            view, view.hand, "card", rng=self.rng, engine=self.POLICY,
            samples=self.samples, deadline=self._deadline(start), prune=True,
        )
        return min(estimates, key=lambda e: (e.mean, -e.option)).option

    def choose_row(self, view: View) -> int:
        start = time.perf_counter()
        estimates = evaluate(
            view, range(ROW_COUNT), "row", rng=self.rng, engine=self.POLICY,
            samples=self.samples, deadline=self._deadline(start), prune=True,
        )
        return min(estimates, key=lambda e: (e.mean, e.option)).option
