"""The shapes of what crosses the server's edges, checked by pydantic.

HTTP bodies of the lobby API, and the messages a browser sends over the WebSocket. Everything
the server sends back is built from the core's view by :mod:`nimmt.server.render`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    field_validator,
    model_validator,
)

from nimmt.core import MAX_PLAYERS, MIN_PLAYERS
from nimmt.i18n import LANGUAGES
from nimmt.names import NAME_LENGTH, NameRefused, clean_name

MAX_MESSAGE_BYTES = 4096  # a WebSocket message from a browser is a few dozen bytes
TABLE_ID_PATTERN = r"^[A-Za-z0-9_-]{6,40}$"

# Integers in a message or a body: those a browser's JavaScript holds exactly (Number.MAX_SAFE_INTEGER).
# Past them (2**64, 10**40...) a message is refused as bad_message: never echoed, never stored (the
# answers are written by orjson, which holds 64 bits at most).
MOST_INTEGER = 2**53 - 1
Whole = Annotated[int, Field(ge=-MOST_INTEGER, le=MOST_INTEGER)]
Ref = Annotated[str, StringConstraints(max_length=64)]
BotName = Annotated[str, StringConstraints(max_length=40)]

# What the cleaning makes a space or drops (nimmt/names.py), past the characters it refuses.
_SPACES = r"\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_INVISIBLE = r"\u00ad\u061c\u180e\u200b\u200e\u200f\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb"
_REFUSED = r"\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"  # controls, direction controls
# The rule of nimmt.names.clean_name, for the OpenAPI description (as far as a pattern can say it):
# no control or direction control, and at least one character that is neither a space nor invisible.
NAME_PATTERN = f"^[^{_REFUSED}]*[^{_REFUSED}\\x20{_SPACES}{_INVISIBLE}][^{_REFUSED}]*$"


def _clean_name(value: str) -> str:
    """The name as kept (nimmt/names.py: one rule for every interface, after Unicode's advice), or
    refused with why (a lone surrogate is refused before, by pydantic, as text that is not Unicode)."""
    try:
        return clean_name(value)
    except NameRefused as error:
        raise ValueError(str(error)) from None


# At most NAME_LENGTH characters as sent (spaces around it included), then stripped.
Name = Annotated[str, StringConstraints(min_length=1, max_length=NAME_LENGTH), AfterValidator(_clean_name),
                 Field(json_schema_extra={"pattern": NAME_PATTERN})]


def known_language(value: str) -> str:
    """A language nimmt speaks, as a body names it (a table's, the lobby's)."""
    if value not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}")
    return value


def _whole(value: object) -> object:
    """A whole number sent as 7.0 is 7: JSON (and the OpenAPI description) do not tell them apart.
    Anything else goes on to the strict check as it came ("7" and true stay refused)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole(item) for item in value]
    return value


def valid_unicode(data: Any) -> bool:
    """Whether every text in a decoded JSON value is valid Unicode: JSON's escapes can spell a lone
    surrogate (``"\\ud800"``), which no answer could hold (it cannot be written as UTF-8)."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    except (TypeError, ValueError, RecursionError):  # not plain JSON: the fields' own checks refuse it
        return True
    return True


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Body(_Strict):
    """An HTTP request's body: refused whole when any text in it, checked by a field or not (a
    score sheet, say), is not valid Unicode."""

    @model_validator(mode="before")
    @classmethod
    def _unicode(cls, data: Any) -> Any:
        if not valid_unicode(data):
            raise ValueError("the body holds text that is not valid Unicode (a lone surrogate)")
        return data


CLOCK_MIN, CLOCK_MAX = 5, 7 * 24 * 3600  # a decision's clock: from 5 seconds to a week


class TableOptions(_Strict):
    end_above: int = Field(default=66, ge=0, le=1000, description="the game ends after a round with a total above this")
    rounds: int | None = Field(default=None, ge=1, le=30, description="play exactly this many rounds instead")
    countdown: bool = Field(default=False, description="show scores counting down from the threshold")
    # Tables stored before this option existed load with it on: the default.
    coach: bool = Field(default=True, description="players may ask the coach for advice on their own decisions")
    public: bool = Field(default=False, description="listed in the lobby for anyone to join (false: by invitation)")
    clock: int | None = Field(default=None, ge=CLOCK_MIN, le=CLOCK_MAX, description="seconds for each decision; at "
                              "zero a bot plays it and the seat is its person's again at their next (null: no clock)")
    # The absent rule: what happens to the seat of a person away for the server's grace (--away-grace)
    # during a game. "bot": it goes to absent_bot at once, nobody waits (the person gets it back at
    # their next decision when they return); "ask": anyone at the table may hand it to a bot. Tables
    # stored before this option existed load with "ask", the way they played.
    absent: Literal["bot", "ask"] = Field(default="ask", description="an absent person's seat after the grace: "
                                          "'bot' hands it to absent_bot at once, 'ask' lets anyone at the table")
    absent_bot: BotName = Field(default="heuristic", description="the bot that plays an absent person's seat "
                                "when absent is 'bot'")
    start_after: int | None = Field(default=None, ge=CLOCK_MIN, le=3600, description="seconds after the table was "
                                    "opened at which it starts by itself, bots in the free seats, if somebody is at "
                                    "it (quick match's tables; null: only its creator starts it)")

    _whole = field_validator("end_above", "rounds", "clock", "start_after", mode="before")(_whole)


class CreateTable(_Body):
    name: Name = Field(description="the creator's name; the creator sits in seat 0")
    seats: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    bots: list[BotName] = Field(default_factory=list, max_length=MAX_PLAYERS - 1,
                                description="bot names, one per bot seat")
    options: TableOptions = Field(default_factory=TableOptions)
    language: str = Field(default="en", description="the table's language", json_schema_extra={"enum": list(LANGUAGES)})
    start: bool = Field(default=False, description="play now: bots take every seat but the creator's and the "
                        "game starts at once (seats_not_filled otherwise)")
    group: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        default=None, description="a group of the creator's (docs/people.md): the table's games count toward its "
        "league; needs the creator's player key (X-Player-Key)")

    _whole = field_validator("seats", mode="before")(_whole)
    _language = field_validator("language")(known_language)


class JoinTable(_Body):
    name: Name


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
    replaced: bool = Field(description="a bot plays this person's seat: they get it back at their next decision "
                           "once here, or (handed while they were here) when they take it back")
    clock_left: float | None = Field(default=None, description="seconds left on this seat's clock for the decision "
                                     "the table awaits of it (null: no clock, or nothing awaited)")
    mark: int | None = Field(default=None, description="when another seat's name looks like this one (the same "
                             "letters in another script, another case...): its number among them, in seat order")


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
    absent_grace: float = Field(default=0.0, description="seconds the absent rule 'bot' waits before it hands "
                                "an away person's seat to a bot (the grace, at least 5)")
    rematch_asked: list[int] = Field(default_factory=list, description="the seats that asked for a rematch after "
                                     "this game, in order (the host starts it)")
    start_left: float | None = Field(default=None, description="seconds (tenths) until a waiting table with "
                                     "options.start_after starts by itself, as of this answer; 0 once due (it "
                                     "starts when somebody is at it); null for any other table")
    start_waits: Literal["player"] | None = Field(default=None, description="what a waiting table with "
                                                  "options.start_after waits for besides its time: 'player' "
                                                  "while no seated person is here; null otherwise")
    turn_based: bool = Field(default=False, description="whether the table is turn-based (a clock of an hour "
                             "or more a decision): its people come and go, and may get notices (docs/push.md)")


class ApiErrorBody(BaseModel):
    """Every refusal of the HTTP API: a code the client translates, an English message for logs."""

    code: str = Field(description="what went wrong, for the client to show in its own language "
                      "(bad_request, unknown_table, rate_limited, too_large, ...)")
    message: str = Field(description="the same in English, for people reading logs")
    params: dict[str, Any] = Field(description="the numbers and names the code's text needs")


class Health(BaseModel):
    status: Literal["ok", "unavailable"]
    store: Literal["up", "down"]
    writes: Literal["ok", "refused"] | None = Field(default=None, description="whether a write reaches the store "
                                                    "(this process's probe row, written and committed)")
    failed: Literal["read", "write"] | None = Field(default=None, description="what failed (when unavailable)")
    error: str | None = Field(default=None, description="what the database said (when unavailable), one line")
    version: str
    tables: int | None = Field(default=None, description="tables in this process's memory (when up)")


class BotInfo(BaseModel):
    name: str
    description: str


class ScoreSheetNew(_Body):
    players: list[Name] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    end_above: int = Field(default=66, ge=0, le=1000)
    rounds: int | None = Field(default=None, ge=1, le=30)

    _whole = field_validator("end_above", "rounds", mode="before")(_whole)


class ScoreSheetRound(_Body):
    sheet: dict[str, object]
    penalties: list[Whole] = Field(max_length=MAX_PLAYERS)

    _whole = field_validator("penalties", mode="before")(_whole)


class ScoreSheetUndo(_Body):
    sheet: dict[str, object]


# -- WebSocket messages from the browser -------------------------------------------------------


class Hello(_Strict):
    type: Literal["hello"]
    token: Annotated[str, StringConstraints(max_length=128)] | None = None  # None: a spectator
    # True: after the first whole state, send what changed (docs/protocol.md, *Patches*).
    patches: bool = False
    ref: Ref | None = None


class Play(_Strict):
    type: Literal["play"]
    card: Whole
    version: Whole
    ref: Ref | None = None


class ChooseRowMessage(_Strict):
    type: Literal["choose_row"]
    row: Whole
    version: Whole
    ref: Ref | None = None


class Start(_Strict):
    type: Literal["start"]
    fill: BotName | None = None  # a bot of this name takes each seat still free
    ref: Ref | None = None


class AddBot(_Strict):
    """The host, in the lobby: a bot takes the first free seat."""

    type: Literal["add_bot"]
    bot: BotName
    ref: Ref | None = None


class RemoveBot(_Strict):
    """The host, in the lobby: the bot in this seat leaves it."""

    type: Literal["remove_bot"]
    seat: Whole
    ref: Ref | None = None


class TakeBack(_Strict):
    """This seat's face-down card back into its hand, before the turn is revealed."""

    type: Literal["take_back"]
    ref: Ref | None = None


class AskRematch(_Strict):
    """After the game: this seat asks for a rematch (everyone sees it; the host starts it)."""

    type: Literal["ask_rematch"]
    ref: Ref | None = None


class Rematch(_Strict):
    type: Literal["rematch"]
    ref: Ref | None = None


class SeatToBot(_Strict):
    type: Literal["seat_to_bot"]
    seat: Whole
    bot: BotName
    ref: Ref | None = None


class SeatBack(_Strict):
    """This seat's person takes back the seat a bot plays for them."""

    type: Literal["seat_back"]
    ref: Ref | None = None


class AskAdvice(_Strict):
    """Ask the coach about this seat's own decision now; the answer goes to this connection only."""

    type: Literal["advice"]
    ref: Ref | None = None


class Ping(_Strict):
    type: Literal["ping"]
    ref: Ref | None = None


class React(_Strict):
    """A quick emote to the table (see nimmt.server.reactions): shown on the sender's chip, never stored."""

    type: Literal["react"]
    reaction: Annotated[str, StringConstraints(max_length=32)]
    ref: Ref | None = None


AnyClientMessage = (Hello | Play | ChooseRowMessage | Start | Rematch | SeatToBot | AskAdvice | Ping | React | AddBot
                    | RemoveBot | TakeBack | AskRematch | SeatBack)
TableAction = (Play | ChooseRowMessage | Start | Rematch | SeatToBot | AddBot | RemoveBot | TakeBack | AskRematch
               | SeatBack)
"""The client messages that ask the table for a change: each becomes one journal entry, or a refusal."""
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
client_message: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)
