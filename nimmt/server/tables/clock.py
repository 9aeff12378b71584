"""The clock of a timed table: each decision has ``options.clock`` seconds; nothing is chosen for a
person who is here.

A decision's clock starts when the table begins to await it: the stored time (``at``) of the entry
that made the table ask (a deal, the card or row choice before), or of the seat's return; any
process rebuilds it from the journal. When a present person's clock runs out, nothing is played
for them: every page is told (``clock_left`` 0), and the others at the table may hand the seat to
a bot (``seat_to_bot``, stored with ``keep``: the bot plays it until its person takes it back).
Only a person who has left (away :data:`ABSENT_FLOOR` seconds or more: a reload never counts) has
their seat handed by the clock itself: this process stores a ``seat_to_bot`` entry marked
``clock`` (:data:`CLOCK_BOT`), and the seat is theirs again at their next decision once they are
here, as with the absent rule. A table where nobody else can hand the seat (every other seat a
bot's) waits for its person: the clock is only shown.

Every process that holds the table arms a timer for the earliest moment something is due (a
deadline, or a person gone long enough after theirs; after each change and each arrival or
departure: :class:`Clocks`, a listener of the tables); when one fires it submits
:class:`~.commands.ClockRanOut` to the table's host; when several processes' fire, the store lets
one entry in and the others find the seat is a bot's already. The deadlines themselves are read
from the table (:func:`~.table.deadlines`). A table with a clock running stays in
memory; after a restart, the scan of :mod:`nimmt.server.clocked` loads every timed table whose
game runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from ..journal import Entry, SeatToBot
from .changes import TableChanged
from .commands import ClockRanOut, Port
from .table import ABSENT_FLOOR, Table, clock_left, deadlines, next_due

logger = logging.getLogger("nimmt.server")
CLOCK_BOT = "heuristic"  # quick, and plays a sensible card for the person
RETRY = 2.0  # seconds before a hand-over that could not be stored is tried again
# the clock's rules, read from the table (table.py), are named here too
__all__ = ["ABSENT_FLOOR", "CLOCK_BOT", "Clocks", "clock_left", "deadlines", "hand_over_due", "next_due"]


class Clocks:
    """One timer per timed table of this process: at a deadline, every page is told; a person gone past
    theirs has their seat handed to a bot."""

    def __init__(self, tables: Port) -> None:
        self.tables = tables
        self.timers: dict[str, tuple[float, asyncio.Task[None]]] = {}  # table -> (deadline, timer)

    def armed(self, table_id: str) -> bool:
        return table_id in self.timers

    def arm(self, table: Table) -> None:
        """Set the table's timer to the next moment something is due (none: no timer)."""
        if self.tables.closed:
            return
        due = next_due(table)
        current = self.timers.get(table.id)
        if current is not None and current[0] == due and not current[1].done():
            return
        self.disarm(table.id)
        if due is not None:
            timer = asyncio.create_task(self._run_out(table, due))
            self.timers[table.id] = (due, timer)
            timer.add_done_callback(lambda done: self._forget(table.id, done))

    def disarm(self, table_id: str) -> None:
        current = self.timers.pop(table_id, None)
        if current is not None:
            current[1].cancel()

    def tasks(self) -> list[asyncio.Task[None]]:
        return [timer for _due, timer in self.timers.values() if not timer.done()]

    def _forget(self, table_id: str, done: asyncio.Task[None]) -> None:
        current = self.timers.get(table_id)
        if current is not None and current[1] is done:
            del self.timers[table_id]

    def heard(self, change: TableChanged) -> None:
        """A listener of the tables: after every change, the clock of the decisions now awaited."""
        self.arm(change.table)

    async def _run_out(self, table: Table, due: float) -> None:
        tables = self.tables
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(tables.stopping.wait(), max(0.0, due - time.time()))
        if tables.closed or not tables.holds(table):
            return
        if self.timers.get(table.id, (None, None))[1] is asyncio.current_task():
            del self.timers[table.id]  # from here on, arming sets a new timer and never cancels this one mid-write
        try:
            # a seat handed to the clock's bot, or every page told the clock ran out (the version is the same)
            await tables.submit(table, ClockRanOut())
        except Exception:  # the store is away: try again shortly (the clock has run out all the same)
            logger.exception("the clock's hand-over on table %s failed", table.id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tables.stopping.wait(), RETRY)
        self.arm(table)  # the next deadline (another seat, the next decision), or again after a failure


def hand_over_due(table: Table) -> Entry | None:
    """The first seat whose clock has run out and whose person has left, to the clock's bot (asked
    again after another process's write: None when there is none any more). Never a present person's."""
    now = time.time()
    for seat, deadline in sorted(deadlines(table).items(), key=lambda item: item[1]):
        away = table.away_seconds(seat)
        if deadline <= now and away is not None and away >= ABSENT_FLOOR:
            return SeatToBot(seat, CLOCK_BOT, clock=True)
    return None
