"""What may be asked of a table: a closed union of typed commands, what one returns, and the port
through which the tables' parts ask.

Every change of a table is one :data:`Command` submitted to its host
(:class:`~nimmt.server.tables.host.TableHost`), which runs it under the table's lock: check, store,
apply, publish, then what the write calls for (a deal, a seat back, an absent person's seat to a
bot), then the listeners hear one :class:`~nimmt.server.tables.changes.TableChanged`. The parts
(bots, clocks, presence, reviews, quick start, the clock scan) never write a table: they hold a
:class:`Port` and submit.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from nimmt.core import View

from .. import models
from ..botpool import SeatBot, Thought
from ..hub import Presence, Update
from ..journal import Entry
from .state import Decision
from .table import Table


@dataclass(frozen=True, slots=True)
class Act:
    """A person's action at the table, as their message said it (``seat`` None: a spectator's)."""

    seat: int | None
    message: models.TableAction


@dataclass(frozen=True, slots=True)
class Join:
    """A person takes the first free seat, under their name (``player``: their player key's, or None)."""

    name: str
    token_hash: str
    player: str | None = None


@dataclass(frozen=True, slots=True)
class AddDevice:
    """A person's other device takes their own seat (``player``: their player key's)."""

    player: str
    token_hash: str


@dataclass(frozen=True, slots=True)
class StartGame:
    """Start the game if the table is still in the lobby (``fill``: a bot for each free seat): quick
    start's, when a waiting table's time has come, and a table made to play at once."""

    fill: str | None = None


@dataclass(frozen=True, slots=True)
class Ask:
    """One decision asked of a bot: its seat, the game and decision it answers, the bot, its view."""

    seat: int
    game: int
    decision: Decision | None
    seat_bot: SeatBot
    seen: View


@dataclass(frozen=True, slots=True)
class AskBots:
    """Which bots the table waits for now, each with its view (the bots think outside the lock)."""


@dataclass(frozen=True, slots=True)
class BotAnswer:
    """A bot's answer to what it was asked; dropped when the table has moved on since."""

    ask: Ask
    thought: Thought


@dataclass(frozen=True, slots=True)
class ClockRanOut:
    """A decision's clock ran out: a person who has left has their seat handed to the clock's bot;
    for a person who is here, every page is told (nothing is played for them)."""


@dataclass(frozen=True, slots=True)
class Arrived:
    """A page of this seat's person opened; ``presence``: who is here now, as the hub counted it."""

    seat: int
    presence: Presence


@dataclass(frozen=True, slots=True)
class Left:
    """A page of this seat's person closed; ``presence``: who is here now, as the hub counted it."""

    seat: int
    presence: Presence


@dataclass(frozen=True, slots=True)
class AwayGraceOver:
    """A seat's person has been away the grace: every page learns it; under the absent rule "bot"
    the seat goes to the table's bot now."""

    seat: int


@dataclass(frozen=True, slots=True)
class ReviewDone:
    """A finished game's review, made: kept as a ``review`` entry (once)."""

    game: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Due:
    """Whatever the table's state calls for now (a deal a failed store left undone, say), nothing else."""


@dataclass(frozen=True, slots=True)
class Announce:
    """Nothing to write: the listeners hear the table as it is (a row that said otherwise is put right)."""


@dataclass(frozen=True, slots=True)
class CatchUp:
    """Another process wrote the table: take in what it stored (``update``: the hub's news of it,
    the next entry and who is here; None: read the store)."""

    update: Update | None = None


Command = (Act | Join | AddDevice | StartGame | AskBots | BotAnswer | ClockRanOut | Arrived | Left | AwayGraceOver
           | ReviewDone | Due | Announce | CatchUp)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command did: the table's version after it, the entries it stored (oldest first), the seat
    a join or a device took, the bots' decisions it asked (:class:`AskBots`), and whether it took in
    another process's entries (:class:`CatchUp`)."""

    version: int
    stored: tuple[Entry, ...] = ()
    seat: int | None = None
    asks: tuple[Ask, ...] = ()
    moved: bool = False


class Port(Protocol):
    """What a part of the tables may do with them: read which are held, and submit commands."""

    @property
    def closed(self) -> bool:
        """The process is stopping: nothing more is written."""

    @property
    def stopping(self) -> asyncio.Event:
        """Set once the process stops: a part's pause ends early on it."""

    def holds(self, table: Table) -> bool:
        """Whether ``table`` is this process's copy of its table now (it has not left memory)."""

    async def get(self, table_id: str) -> Table | None:
        """The table, loaded from the store if need be; None when there is none."""

    async def submit(self, table: Table, command: Command) -> Outcome:
        """Run ``command`` on the table's host (see :mod:`nimmt.server.tables.host`)."""
