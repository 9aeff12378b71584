"""The ``random`` bot: any card of its hand, any row, uniformly."""

from __future__ import annotations

from nimmt.core import View

from .base import Bot


class RandomBot(Bot):
    name = "random"
    description = "Plays a uniformly random card and, when it must take a row, a uniformly random row."

    def choose_card(self, view: View) -> int:
        return self.rng.choice(view.hand)

    def choose_row(self, view: View) -> int:
        return self.rng.randrange(len(view.rows))
