"""A table at run time: its state (the fold of the journal) with what one process keeps around it.

The bots' seeds, who is here (as the hub says) and since when the others have been away, the
coach's last answers, the hub's news being taken in, and what the process's memory needs to know
(open connections, last use). None of it is stored: another process rebuilds it all from the store
and the hub. Only the table's host (:mod:`.host`) changes it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Self

from nimmt.core import Phase
from nimmt.names import told_apart

from ..botpool import SeatBot
from ..hub import Presence, Update
from ..journal import Entry, Joined, SeatBack, entry_from_json, entry_to_json
from .state import Prepared, TableState

ABSENT_FLOOR = 5.0  # seconds away before a person has left: the least the absent rule "bot" waits, too


@dataclass
class Table(TableState):
    """One table of this process: the journal's fold, plus its presence and caches."""

    present: set[int] = field(default_factory=set)  # seats whose person is here (on any process)
    away_grace: float = 30.0  # seconds a person must be away before anyone may hand their seat to a bot
    away_since: dict[int, float] = field(default_factory=dict)  # seat -> when its person left (monotonic)
    loaded_at: float = field(default_factory=time.monotonic)  # a person not seen since is away since then
    bots: dict[int, SeatBot] = field(default_factory=dict)  # seat -> its bot's seed and state
    advice: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # seat -> (seed, last answer)
    connections: int = 0  # WebSockets open on this table (spectators too)
    last_active: float = field(default_factory=time.monotonic)  # last asked for, acted on or left
    last_news: Update | None = None  # the hub's latest news taken in (each connection hears it)
    news_taken: asyncio.Future[None] | None = None  # taking it in: the table's connections wait for it
    kept_game: int = 0  # the last finished game handed to the people part (docs/people.md)
    seated_at: dict[int, float] = field(default_factory=dict)  # seat -> when its person took it (wall clock)
    arrived: set[int] = field(default_factory=set)  # seats whose person the hub has seen here since

    @classmethod
    def created(cls, table_id: str, entry: Entry) -> Self:
        table: Self = super().created(table_id, entry)
        table.away_since[0] = since(getattr(entry, "at", None))  # the creator, until their page opens
        table._seated(0, getattr(entry, "at", None))
        return table

    @classmethod
    def replay(cls, table_id: str, entries: list[dict[str, Any]]) -> Self:
        """The table its stored journal makes: the fold of its entries."""
        table = cls.created(table_id, entry_from_json(entries[0]))
        for data in entries[1:]:
            table.apply(entry_from_json(data))
        return table

    def apply(self, entry: Entry, prepared: Prepared | None = None) -> None:
        super().apply(entry, prepared)
        if isinstance(entry, Joined):
            self.away_since[entry.seat] = since(entry.at)  # until the person's page connects
            self._seated(entry.seat, entry.at)
        elif isinstance(entry, SeatBack):
            self.bots.pop(entry.seat, None)

    def _seated(self, seat: int, at: float | None) -> None:
        if at is not None:  # entries stored before entries were dated: nobody is waited for
            self.seated_at[seat] = at
        self.arrived.discard(seat)

    # -- who is here -----------------------------------------------------------------------------
    def see(self, presence: Presence) -> None:
        """Who is at the table now, as the hub says: the people present, and since when the others left."""
        now, wall = time.monotonic(), time.time()
        self.present = {seat for seat, left in presence.items() if left is None}
        self.arrived.update(presence)
        for seat, left in presence.items():
            if left is None:
                self.away_since.pop(seat, None)
            else:
                self.away_since[seat] = now - max(0.0, wall - left)

    def arriving_until(self, within: float) -> float | None:
        """Until when (wall clock) somebody who took a seat less than ``within`` seconds ago, and whose
        page has not opened yet, is expected here; None when nobody is on their way."""
        times = [at + within for seat, at in self.seated_at.items()
                 if seat not in self.arrived and self.seats[seat].bot is None and at + within > time.time()]
        return max(times, default=None)

    def is_present(self, seat: int) -> bool:
        """Whether the person of this seat has a connection open now (whoever plays the seat)."""
        return seat in self.present

    def out_of_time(self, seat: int) -> bool:
        """Whether this seat's person has let the clock of the decision awaited of them run out."""
        deadline = deadlines(self).get(seat)
        return deadline is not None and deadline <= time.time()

    def away_seconds(self, seat: int, now: float | None = None) -> float | None:
        """How long the person of a seat has been away; None for a present person, a free seat or a
        seat a bot plays for nobody. A person not seen since the table was loaded is away since then."""
        if self.seats[seat].token_hash is None or self.is_present(seat):
            return None
        now = time.monotonic() if now is None else now
        return max(0.0, now - self.away_since.get(seat, self.loaded_at))

    def absent_for_bot(self, now: float | None = None) -> list[int]:
        """The seats the absent rule "bot" hands to a bot now: a person's seat, in a game in progress,
        no bot playing it, its person away for the grace or longer."""
        if self.options.absent != "bot" or self.status != "playing":
            return []
        return [seat for seat in range(len(self.seats)) if self.seats[seat].bot is None
                and (away := self.away_seconds(seat, now)) is not None and away >= self.absent_grace]

    @property
    def absent_grace(self) -> float:
        """How long the absent rule "bot" waits: the grace, and never less than ABSENT_FLOOR seconds,
        so that a reload or a brief loss of the network never costs a person their seat."""
        return max(self.away_grace, ABSENT_FLOOR)

    @property
    def host(self) -> int | None:
        """The seat that holds the host's buttons (start, rematch): the creator (seat 0) when present,
        else the first present person in seat order whose seat no bot plays; None if nobody is here."""
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and seat.bot is None and self.is_present(index):
                return index
        return None

    def seat_info(self, index: int) -> dict[str, Any]:
        seat = self.seats[index]
        return {
            "seat": index,
            "name": seat.name,
            "bot": seat.bot,
            "taken": seat.taken,
            "present": seat.bot is not None or self.is_present(index),
            "away_seconds": None if (away := self.away_seconds(index)) is None else round(away, 1),
            "replaced": seat.bot is not None and seat.token_hash is not None,  # a bot plays a person's seat
            "clock_left": clock_left(self, index),
            # another seat's name looks like this one: its number among them, in seat order (nimmt/names.py)
            "mark": told_apart([other.name for other in self.seats])[index],
        }

    def news(self, presence: Presence | None = None, entry: Entry | None = None) -> Update:
        return Update(self.id, self.version, presence, entry=None if entry is None else entry_to_json(entry))


def since(at: float | None) -> float:
    """When a create or join entry was made, on this process's monotonic clock (now, for an entry
    stored before entries were dated)."""
    now = time.monotonic()
    return now if at is None else now - max(0.0, time.time() - at)


# -- the clock's rules on a table (nimmt/server/tables/clock.py says them) --------------------------------
def deadlines(table: Table) -> dict[int, float]:
    """When each person's clock runs out (wall clock), for the decisions the table awaits of people."""
    clock = table.options.clock
    if not clock or table.recorder is None:
        return {}
    state = table.recorder.state
    if state.phase not in (Phase.CHOOSE_CARDS, Phase.CHOOSE_ROW):
        return {}
    loaded = time.time() - (time.monotonic() - table.loaded_at)  # a decision of unknown start: since loaded
    out = {}
    for seat in state.waiting_for:
        if table.seats[seat].bot is None and table.seats[seat].token_hash is not None:
            began = table.asked_at.get(seat)
            out[seat] = (loaded if began is None else began) + clock
    return out


def next_due(table: Table, now: float | None = None) -> float | None:
    """When the clock next has something to do (wall clock): the earliest deadline still to come, and
    for a person away at or after theirs, the moment they have been away :data:`ABSENT_FLOOR` seconds.
    A present person whose clock has run out is due nothing: the table waits for them."""
    now = time.time() if now is None else now
    due = []
    for seat, deadline in deadlines(table).items():
        if deadline > now:
            due.append(deadline)
        elif (away := table.away_seconds(seat)) is not None:
            due.append(max(deadline, now + ABSENT_FLOOR - away))
    return min(due, default=None)


def clock_left(table: Table, seat: int) -> float | None:
    """Seconds left on this seat's clock (tenths), or None: no clock, or nothing awaited of this person."""
    deadline = deadlines(table).get(seat)
    return None if deadline is None else round(max(0.0, deadline - time.time()), 1)
