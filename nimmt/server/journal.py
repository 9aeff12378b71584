"""A table's history: typed entries, like the core's actions, and their JSON form in the store.

A table is the fold of its entries (:meth:`nimmt.server.tables.state.TableState.apply`, one step
per entry, from :meth:`~nimmt.server.tables.state.TableState.created` of the first). Every entry
the server writes is made here, and every entry it reads back comes through
:func:`entry_from_json`, which refuses anything else with a :class:`JournalError` that says what
is wrong.

>>> entry_from_json({"kind": "play", "seat": 1, "card": 55})
Played(seat=1, card=55)
>>> entry_to_json(RowChosen(seat=0, row=3))
{'kind': 'row', 'seat': 0, 'row': 3}
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from nimmt.core import NimmtError


class JournalError(NimmtError):
    """A stored entry that is not one nimmt writes (a damaged or foreign journal)."""


@dataclass(frozen=True, slots=True)
class Created:
    """The table is made: its seats, the bots in some of them, its options, and the creator in seat 0."""

    seats: int
    bots: Mapping[int, str]  # seat -> bot name
    options: Mapping[str, Any]  # TableOptions' fields
    language: str
    name: str
    token_hash: str
    at: float | None = None  # when (wall clock); None in journals written before entries were dated
    player: str | None = None  # the creator's player (docs/people.md), when their browser has one
    group: str | None = None  # the group whose league the table's games count toward


@dataclass(frozen=True, slots=True)
class Joined:
    seat: int
    name: str
    token_hash: str
    at: float | None = None
    player: str | None = None


@dataclass(frozen=True, slots=True)
class Started:
    """The first game starts (the host pressed start); with ``fill``, a bot of that name takes each
    seat still free."""

    fill: str | None = None


@dataclass(frozen=True, slots=True)
class BotSeated:
    """In the lobby, the host seats a bot in a free seat."""

    seat: int
    bot: str


@dataclass(frozen=True, slots=True)
class BotUnseated:
    """In the lobby, the host takes a bot off its seat: the seat is free again."""

    seat: int


@dataclass(frozen=True, slots=True)
class RematchAsked:
    """After a game, a person asks for a rematch (the host starts it): everyone sees who asked."""

    seat: int


@dataclass(frozen=True, slots=True)
class Rematched:
    """The next game starts, with the same people and options."""


@dataclass(frozen=True, slots=True)
class SeatToBot:
    """A bot plays a person's seat from now on. ``clock``: the server handed it because the seat's
    clock ran out while its person was away (the bot plays the decision at hand; the person, once
    here, gets the seat back at their next one). ``keep``: someone at the table handed it because a
    present person's clock ran out; the bot keeps it until its person takes it back (``SeatBack``)."""

    seat: int
    bot: str
    clock: bool = False
    keep: bool = False


@dataclass(frozen=True, slots=True)
class SeatBack:
    """The person is back: the bot stops playing their seat."""

    seat: int
    at: float | None = field(default=None, compare=False, repr=False)  # when stored: a clock runs from it


@dataclass(frozen=True, slots=True)
class DeviceAdded:
    """A person's other device takes their seat (asked with their player key): its token opens the seat
    too, and the seat's other devices keep theirs."""

    seat: int
    token_hash: str


@dataclass(frozen=True, slots=True)
class Dealt:
    """A round's cards, as they were dealt (chance is data)."""

    rows: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...] = field(default=())
    at: float | None = field(default=None, compare=False, repr=False)  # when stored: a clock runs from it


@dataclass(frozen=True, slots=True)
class Played:
    seat: int
    card: int
    at: float | None = field(default=None, compare=False, repr=False)  # when stored: a clock runs from it


@dataclass(frozen=True, slots=True)
class TakenBack:
    """A person takes their face-down card back into their hand before the turn is revealed, to choose
    again (the game's record never holds it: only revealed cards are recorded)."""

    seat: int


@dataclass(frozen=True, slots=True)
class RowChosen:
    seat: int
    row: int
    at: float | None = field(default=None, compare=False, repr=False)  # when stored: a clock runs from it


@dataclass(frozen=True, slots=True)
class Reviewed:
    """The review of a finished game (``docs/review.md``), in the compact form of
    :func:`nimmt.review.to_store`: written once, after the game's end."""

    game: int
    review: Mapping[str, Any]


Entry = (Created | Joined | Started | Rematched | SeatToBot | SeatBack | Dealt | Played | RowChosen | Reviewed
         | TakenBack | BotSeated | BotUnseated | RematchAsked | DeviceAdded)
GameEntry = Dealt | Played | RowChosen  # the entries that are the core's actions

_KINDS: dict[type, str] = {Created: "create", Joined: "join", Started: "start", Rematched: "rematch",
                           SeatToBot: "seat_to_bot", SeatBack: "seat_back", Dealt: "deal", Played: "play",
                           RowChosen: "row", Reviewed: "review", TakenBack: "take_back", BotSeated: "bot_seat",
                           BotUnseated: "bot_unseat", RematchAsked: "rematch_ask", DeviceAdded: "device"}


def now() -> float:
    """The time an entry is dated with: wall-clock seconds, to the millisecond."""
    return round(time.time(), 3)


def entry_to_json(entry: Entry) -> dict[str, Any]:
    """The entry as the store keeps it: a JSON object with its ``kind``."""
    data: dict[str, Any] = {"kind": _KINDS[type(entry)]}
    match entry:
        case Created():
            data.update(seats=entry.seats, bots={str(seat): bot for seat, bot in entry.bots.items()},
                        options=dict(entry.options), language=entry.language, name=entry.name,
                        token_hash=entry.token_hash)
        case Joined():
            data.update(seat=entry.seat, name=entry.name, token_hash=entry.token_hash)
        case SeatToBot():
            data.update(seat=entry.seat, bot=entry.bot)
            if entry.clock:
                data["clock"] = True
            if entry.keep:  # written only when set: older entries are as they were
                data["keep"] = True
        case SeatBack():
            data.update(seat=entry.seat)
        case Dealt():
            data.update(rows=list(entry.rows), hands=[list(hand) for hand in entry.hands])
        case Played():
            data.update(seat=entry.seat, card=entry.card)
        case RowChosen():
            data.update(seat=entry.seat, row=entry.row)
        case Reviewed():
            data.update(game=entry.game, review=dict(entry.review))
        case TakenBack() | BotUnseated() | RematchAsked():
            data.update(seat=entry.seat)
        case BotSeated():
            data.update(seat=entry.seat, bot=entry.bot)
        case DeviceAdded():
            data.update(seat=entry.seat, token_hash=entry.token_hash)
        case Started() if entry.fill is not None:  # written only when there is one: older entries unchanged
            data.update(fill=entry.fill)
    if isinstance(entry, Created | Joined | SeatBack | Dealt | Played | RowChosen) and entry.at is not None:
        data["at"] = entry.at
    # Written only when there is one: the entries of tables without people are as they were.
    if isinstance(entry, Created | Joined) and entry.player is not None:
        data["player"] = entry.player
    if isinstance(entry, Created) and entry.group is not None:
        data["group"] = entry.group
    return data


def dated(entry: Entry) -> Entry:
    """The entry with the time it is stored at, if it is one that is dated and is not yet."""
    if isinstance(entry, SeatBack | Dealt | Played | RowChosen) and entry.at is None:
        return replace(entry, at=now())
    return entry


def entry_from_json(data: object) -> Entry:
    """Read back what :func:`entry_to_json` wrote; :class:`JournalError` for anything else."""
    if not isinstance(data, dict):
        raise JournalError(f"a journal entry is a JSON object, not {type(data).__name__}")
    kind = data.get("kind")
    try:
        match kind:
            case "create":
                bots = {_seat_key(key): _str_value(bot, "bots") for key, bot in _object(data, "bots").items()}
                return Created(_int(data, "seats"), bots, _object(data, "options"), _str(data, "language"),
                               _str(data, "name"), _str(data, "token_hash"), _at(data), _maybe_str(data, "player"),
                               _maybe_str(data, "group"))
            case "join":
                return Joined(_int(data, "seat"), _str(data, "name"), _str(data, "token_hash"), _at(data),
                              _maybe_str(data, "player"))
            case "start":
                return Started(_maybe_str(data, "fill"))
            case "rematch":
                return Rematched()
            case "seat_to_bot":
                return SeatToBot(_int(data, "seat"), _str(data, "bot"), data.get("clock") is True,
                                 data.get("keep") is True)
            case "seat_back":
                return SeatBack(_int(data, "seat"), _at(data))
            case "deal":
                return Dealt(_ints(data.get("rows"), "rows"),
                             tuple(_ints(hand, "hands") for hand in _list(data, "hands")), _at(data))
            case "play":
                return Played(_int(data, "seat"), _int(data, "card"), _at(data))
            case "row":
                return RowChosen(_int(data, "seat"), _int(data, "row"), _at(data))
            case "review":
                return Reviewed(_int(data, "game"), _object(data, "review"))
            case "take_back":
                return TakenBack(_int(data, "seat"))
            case "bot_seat":
                return BotSeated(_int(data, "seat"), _str(data, "bot"))
            case "bot_unseat":
                return BotUnseated(_int(data, "seat"))
            case "rematch_ask":
                return RematchAsked(_int(data, "seat"))
            case "device":
                return DeviceAdded(_int(data, "seat"), _str(data, "token_hash"))
    except KeyError as missing:
        raise JournalError(f"a {kind!r} entry has no {missing.args[0]!r}") from None
    raise JournalError(f"unknown journal entry kind {kind!r}")


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise JournalError(f"the entry's {key!r} must be a whole number, not {value!r}")
    return value


def _str(data: Mapping[str, Any], key: str) -> str:
    return _str_value(data[key], key)


def _maybe_str(data: Mapping[str, Any], key: str) -> str | None:
    return None if data.get(key) is None else _str(data, key)


def _str_value(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise JournalError(f"the entry's {key!r} must be text, not {value!r}")
    return value


def _object(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data[key]
    if not isinstance(value, dict):
        raise JournalError(f"the entry's {key!r} must be an object, not {value!r}")
    return value


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise JournalError(f"the entry's {key!r} must be a list, not {value!r}")
    return value


def _ints(value: object, key: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise JournalError(f"the entry's {key!r} must be lists of whole numbers, not {value!r}")
    return tuple(value)


def _seat_key(key: str) -> int:
    if not key.isdigit():
        raise JournalError(f"a seat of the entry's 'bots' must be a number, not {key!r}")
    return int(key)


def _at(data: Mapping[str, Any]) -> float | None:
    at = data.get("at")
    if at is None:
        return None
    if not isinstance(at, int | float) or isinstance(at, bool):
        raise JournalError(f"the entry's 'at' must be a time in seconds, not {at!r}")
    return float(at)
