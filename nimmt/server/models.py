"""The shapes of what crosses the server's edges, checked by pydantic.

HTTP bodies of the lobby API, and the messages a browser sends over the WebSocket. Everything
the server sends back is built from the core's view by :mod:`nimmt.server.table`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, field_validator

from nimmt.core import MAX_PLAYERS, MIN_PLAYERS
from nimmt.i18n import LANGUAGES

MAX_MESSAGE_BYTES = 4096  # a WebSocket message from a browser is a few dozen bytes
NAME_LENGTH = 24
TABLE_ID_PATTERN = r"^[A-Za-z0-9_-]{6,40}$"

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_LENGTH)]
Ref = Annotated[str, StringConstraints(max_length=64)]


def _clean_name(value: str) -> str:
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in value):
        raise ValueError("a name cannot hold control characters")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class TableOptions(_Strict):
    end_above: int = Field(default=66, ge=0, le=1000, description="the game ends after a round with a total above this")
    rounds: int | None = Field(default=None, ge=1, le=30, description="play exactly this many rounds instead")
    countdown: bool = Field(default=False, description="show scores counting down from the threshold")
    # Tables stored before this option existed load with it on: the default.
    coach: bool = Field(default=True, description="players may ask the coach for advice on their own decisions")


class CreateTable(_Strict):
    name: Name = Field(description="the creator's name; the creator sits in seat 0")
    seats: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    bots: list[str] = Field(default_factory=list, max_length=MAX_PLAYERS - 1, description="bot names, one per bot seat")
    options: TableOptions = Field(default_factory=TableOptions)
    language: str = Field(default="en", description=f"one of {', '.join(LANGUAGES)}")
    start: bool = Field(default=False, description="play now: bots take every seat but the creator's and the "
                        "game starts at once (seats_not_filled otherwise)")

    _name = field_validator("name")(_clean_name)

    @field_validator("language")
    @classmethod
    def _language(cls, value: str) -> str:
        if value not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}")
        return value


class JoinTable(_Strict):
    name: Name
    _name = field_validator("name")(_clean_name)


class SeatToken(BaseModel):
    table_id: str
    seat: int
    token: str = Field(description="the seat's secret: keep it; it is shown only once")
    table_url: str
    invite_url: str
    watch_url: str


class SeatInfo(BaseModel):
    seat: int
    name: str | None
    bot: str | None
    taken: bool
    present: bool
    away_seconds: float | None = Field(description="how long this seat's person has been away (null: present, "
                                       "a free seat, or a bot's seat for nobody)")
    replaced: bool = Field(description="a bot plays this person's seat; they get it back at their next decision")


class TableInfo(BaseModel):
    id: str
    status: Literal["lobby", "playing", "over"]
    language: str
    options: TableOptions
    seats: list[SeatInfo]
    game: int
    version: int
    games_finished: list[int]
    host: int | None = Field(description="the seat holding the host's buttons (start, rematch): the creator "
                             "when present, else the first present person; null when nobody is here")
    away_grace: float = Field(description="seconds a person must be away before anyone may hand their seat to a bot")


class BotInfo(BaseModel):
    name: str
    description: str


class ScoreSheetNew(_Strict):
    players: list[Name] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    end_above: int = Field(default=66, ge=0, le=1000)
    rounds: int | None = Field(default=None, ge=1, le=30)


class ScoreSheetRound(_Strict):
    sheet: dict[str, object]
    penalties: list[int] = Field(max_length=MAX_PLAYERS)


class ScoreSheetUndo(_Strict):
    sheet: dict[str, object]


# -- WebSocket messages from the browser -------------------------------------------------------


class Hello(_Strict):
    type: Literal["hello"]
    token: Annotated[str, StringConstraints(max_length=128)] | None = None  # None: a spectator


class Play(_Strict):
    type: Literal["play"]
    card: int
    version: int
    ref: Ref | None = None


class ChooseRowMessage(_Strict):
    type: Literal["choose_row"]
    row: int
    version: int
    ref: Ref | None = None


class Start(_Strict):
    type: Literal["start"]
    ref: Ref | None = None


class Rematch(_Strict):
    type: Literal["rematch"]
    ref: Ref | None = None


class SeatToBot(_Strict):
    type: Literal["seat_to_bot"]
    seat: int
    bot: Annotated[str, StringConstraints(max_length=40)]
    ref: Ref | None = None


class AskAdvice(_Strict):
    """Ask the coach about this seat's own decision now; the answer goes to this connection only."""

    type: Literal["advice"]
    ref: Ref | None = None


class Ping(_Strict):
    type: Literal["ping"]


AnyClientMessage = Hello | Play | ChooseRowMessage | Start | Rematch | SeatToBot | AskAdvice | Ping
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
client_message: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)
