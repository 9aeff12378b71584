"""The ``beginner`` bot: the first thing people try.

It plays the card that fits closest above a row's last card, as long as that card would not be
the sixth card of its row; if every card would be a sixth card or falls below every row, it plays
its lowest card. When it must take a row, it takes the one with the fewest bullheads. It looks
only at the rows: never at the cards already played, nor at what the others might hold.
"""

from __future__ import annotations

from nimmt.core import ROW_COUNT, ROW_LIMIT, View

from .base import Bot


class BeginnerBot(Bot):
    name = "beginner"
    description = (
        "Plays the card that fits closest above a row without being its sixth card; "
        "otherwise its lowest card. Takes the row with the fewest bullheads."
    )

    def choose_card(self, view: View) -> int:
        best: tuple[int, int] | None = None
        for card in view.hand:
            row = view.target_row(card)
            if row is None or len(view.rows[row]) >= ROW_LIMIT:
                continue
            gap = card - view.rows[row][-1]
            if best is None or gap < best[0]:
                best = (gap, card)
        return best[1] if best is not None else min(view.hand)

    def choose_row(self, view: View) -> int:
        heads = view.row_bullheads()
        return min(range(ROW_COUNT), key=heads.__getitem__)
