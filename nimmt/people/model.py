"""What the people part holds, as plain values: players, their devices, groups, finished games.

No storage and no web here: :mod:`nimmt.people.store` keeps these, the server shows them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from nimmt.core.errors import NimmtError

NAME_LENGTH = 24  # a player's name, as a seat's name at a table
GROUP_NAME_LENGTH = 40
FORMER = "former"  # what a deleted player's seat is called in ids ("former:<game>:<seat>")
Ending = Literal["played", "bots", "abandoned"]


class PeopleError(NimmtError, ValueError):
    """A request about people that cannot be done; nothing was changed.

    ``code`` says why for the client to tell in its language (``unknown_key``, ``code_used``,
    ``invite_closed``, ...); ``str()`` says it in English for logs.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str | None  # None until the person chooses one
    created_at: datetime
    public: bool = False  # whether strangers may see their games and groups
    language: str | None = None  # the language they chose in a menu (None: their browser's)


@dataclass(frozen=True, slots=True)
class Device:
    """One key of a player: each browser or phone holds its own, so each can be signed out."""

    id: str
    how: Literal["first", "code", "passkey"]
    created_at: datetime
    last_used_at: datetime | None


@dataclass(frozen=True, slots=True)
class Passkey:
    credential_id: str  # base64url, as WebAuthn names it
    player_id: str
    public_key: str  # base64url of the COSE key
    sign_count: int
    created_at: datetime
    last_used_at: datetime | None

    @property
    def short_id(self) -> str:
        """A short id of the passkey for links and lists (its credential id may be long)."""
        return hashlib.sha256(self.credential_id.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Group:
    id: str
    name: str
    host_id: str | None  # None: the host deleted their player and nobody was left to take over
    invite: str  # the invite code (in the group's link and QR code)
    invite_open: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Member:
    player_id: str
    name: str | None
    joined_at: datetime


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    player_id: str | None  # None: a bot, a person without a player, or a former player
    name: str | None  # the name at the table (None: a former player)
    bot: str | None  # the bot's name for a bot's seat
    total: int
    left: bool = False  # its person left before the end (a bot played on, or the game was abandoned)
    confirmed: bool = True  # a score sheet's seat: its member said it was them (a table's seat always is)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "player": self.player_id, "name": self.name, "bot": self.bot, "total": self.total,
                "left": self.left, "confirmed": self.confirmed}


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A game that ended, from a web table (``table``) or a real-deck score sheet (``sheet``)."""

    id: str
    source: Literal["table", "sheet"]
    finished_at: datetime
    end_above: int
    seats: tuple[SeatResult, ...]
    rounds: tuple[tuple[int, ...], ...]  # each round's bullheads per seat
    table_id: str | None = None  # the web table's id and its game number, for the replay and the record
    game: int | None = None
    group_id: str | None = None
    # "played": somebody played it to the end; "bots": bots finished it after every person left;
    # "abandoned": it stopped with nobody left to play it (docs/people.md, Fair records)
    ending: Ending = "played"
    rated: bool = True  # whether it moves anyone's rating and counts in the league's figures
    saved_by: str | None = None  # the player who saved a score sheet

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(seat.total for seat in self.seats)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the lowest total among those who did not leave (a tie shares the win)."""
        stayed = [seat for seat in self.seats if not seat.left]
        if not stayed:
            return ()
        best = min(seat.total for seat in stayed)
        return tuple(seat.seat for seat in stayed if seat.total == best)

    @property
    def left(self) -> tuple[int, ...]:
        return tuple(seat.seat for seat in self.seats if seat.left)

    def person_ids(self) -> tuple[str, ...]:
        """An id per seat, for leagues and ratings: the player, ``bot:<name>``, or a seat's own id for
        somebody nimmt does not know (a guest, a former player, a member who has not confirmed a
        score sheet)."""
        return tuple(seat.player_id if seat.player_id is not None and seat.confirmed
                     else f"bot:{seat.bot}" if seat.bot is not None
                     else f"{FORMER}:{self.id}:{seat.seat}" for seat in self.seats)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "source": self.source, "finished_at": self.finished_at.isoformat(),
                "end_above": self.end_above, "table_id": self.table_id, "game": self.game,
                "group_id": self.group_id, "seats": [seat.to_json() for seat in self.seats],
                "rounds": [list(row) for row in self.rounds], "winners": list(self.winners),
                "ending": self.ending, "rated": self.rated, "saved_by": self.saved_by}
