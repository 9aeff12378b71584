"""The events: what happened, in order, so that a table can show it one step at a time.

:func:`nimmt.core.game.apply` returns them in its :class:`~nimmt.core.game.Step`, and the terminal
and the web table show them. None holds a secret: a card chosen face down is told as
:class:`CardChosen`, who and never what.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round: int
    rows: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardChosen:
    player: int  # who has chosen; never what


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    cards: tuple[int, ...]  # in player order


@dataclass(frozen=True, slots=True)
class RowChoiceNeeded:
    player: int
    card: int


@dataclass(frozen=True, slots=True)
class RowTaken:
    player: int
    row: int
    cards: tuple[int, ...]
    bullheads: int
    chosen: bool  # True when the player chose the row for a low card, False for a sixth card


@dataclass(frozen=True, slots=True)
class CardPlaced:
    player: int
    card: int
    row: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    turn: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    round: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    totals: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    RoundStarted
    | CardChosen
    | CardsRevealed
    | RowChoiceNeeded
    | RowTaken
    | CardPlaced
    | TurnEnded
    | RoundEnded
    | GameEnded
)
