"""The one small interface every bot implements. A bot sees only its player's view."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import ClassVar

from nimmt.core import ChooseRow, NimmtError, PlayCard, View

# Seconds a bot that searches thinks over one decision unless told otherwise (``expert``, ``field:dmc``);
# a tournament writes it in its files as the budget in force when ``--time-budget`` is not given.
DEFAULT_TIME_BUDGET = 1.0


class BotError(NimmtError, ValueError):
    """A bot asked for something it cannot do (an unknown bot, a bad option, an impossible position)."""


class Bot(ABC):
    """A player program. ``choose_card`` picks a card of ``view.hand``; ``choose_row`` picks the
    row (0 to 3) to take when this bot's card is below every row."""

    name: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()

    @abstractmethod
    def choose_card(self, view: View) -> int: ...

    @abstractmethod
    def choose_row(self, view: View) -> int: ...

    def act(self, view: View) -> PlayCard | ChooseRow:
        """The action this bot takes in ``view``, which must be waiting for this bot."""
        assert view.player is not None
        if view.must_choose_row:
            return ChooseRow(view.player, self.choose_row(view))
        return PlayCard(view.player, self.choose_card(view))
