"""The ``montecarlo`` bot: the classic Monte Carlo player, kept as the baseline of the ladder.

For each card of its hand it samples 100 completions of the hidden cards consistent with its view
(:mod:`nimmt.bots.sampling`), plays each round out with every player playing random cards
(:mod:`nimmt.bots.rollout`, policy ``random``), and plays the card with the fewest bullheads taken
on average by the end of the round. That is the method behind the strongest published 6 nimmt!
bots. When its card is below every row it scores the four rows the same way (100 completions per
row, the row's bullheads now included), so its row choice looks ahead too.

Cards (and rows) are compared on the same completions (common random numbers), which makes this
baseline a little stronger than one drawing fresh completions for every card.
"""

from __future__ import annotations

import random

from nimmt.core import ROW_COUNT, View

from .base import Bot
from .search import evaluate


class MonteCarloBot(Bot):
    name = "montecarlo"
    description = (
        "Classic Monte Carlo: for each card, 100 random completions of the hidden hands played out "
        "at random to the end of the round; plays the card (and takes the row) that costs least on average."
    )

    SAMPLES = 100
    POLICY = "random"

    def __init__(self, rng: random.Random | None = None, samples: int | None = None) -> None:
        super().__init__(rng)
        self.samples = samples if samples is not None else self.SAMPLES

    def choose_card(self, view: View) -> int:
        if len(view.hand) == 1:
            return view.hand[0]
        estimates = evaluate(view, view.hand, "card", rng=self.rng, engine=self.POLICY, samples=self.samples)
        return min(estimates, key=lambda e: (e.mean, -e.option)).option

    def choose_row(self, view: View) -> int:
        estimates = evaluate(
            view, range(ROW_COUNT), "row", rng=self.rng, engine=self.POLICY, samples=self.samples
        )
        return min(estimates, key=lambda e: (e.mean, e.option)).option
