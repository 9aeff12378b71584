"""The ``beginner`` bot: the first thing people try.

It plays the card that fits closest above a row's last card, as long as that card would not be
the sixth card of its row; if every card would be a sixth card or falls below every row, it plays
its lowest card. When it must take a row, it takes the one with the fewest bullheads. It looks
only at the rows: never at the cards already played, nor at what the others might hold.
"""

from __future__ import annotations

from nimmt.core import View

from .base import Bot


class BeginnerBot(Bot):
    """The policy is written once, as the batch engine's kernel (``nimmt/batch/_choices.py``:
    ``beginner_card``, and ``fewest`` for the row), which the bot calls through
    :mod:`nimmt.batch.decide` and the whole-table kernels play for every beginner seat."""

    name = "beginner"
    description = (
        "Plays the card that fits closest above a row without being its sixth card; "
        "otherwise its lowest card. Takes the row with the fewest bullheads."
    )

    def choose_card(self, view: View) -> int:
        from nimmt.batch.decide import beginner_card

        return beginner_card(view.rows, view.hand)

    def choose_row(self, view: View) -> int:
        from nimmt.batch.decide import beginner_row

        return beginner_row(view.rows)
