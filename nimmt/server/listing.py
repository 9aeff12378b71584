"""The lobby's and the clocks' rows of this process's tables, written as the tables change.

:class:`Listing` is a listener of the tables (:meth:`~nimmt.server.tables.TableService.subscribe`):
after each change it writes a public table's lobby row (:mod:`nimmt.server.public`) and a timed
table's clock row (:mod:`nimmt.server.clocked`), in the background, in the order of the changes.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from .clocked import ClockedTables
from .public import ARRIVING, REMEMBERED, PublicTables, turn_based
from .tables.changes import TableChanged
from .tables.table import Table

logger = logging.getLogger("nimmt.server")


class Listing:
    """What this process tells the store about its tables outside their journals: a public table's
    lobby row, written when something the lobby shows may have changed (made, joined, started,
    somebody came or left), and a timed table's clock row (:mod:`nimmt.server.clocked`), written
    when its clock starts or stops running. A table is open while it has not started, has a free
    seat, and somebody is at it (a turn-based table stays open without anyone). Rows are written
    in the background, each table's writes in the order of their changes (a person's leaving is
    never held up by the database); a write that fails is logged, and the next change writes again."""

    def __init__(self, tables: PublicTables | None = None, clocked: ClockedTables | None = None) -> None:
        self.tables = tables
        self.clocked = clocked
        self.closed: set[str] = set()  # tables this process wrote as started: no more to write for them
        self.clock_rows: dict[str, bool] = {}  # whether each timed table's clock was last written running
        self.writes: dict[str, asyncio.Task[None]] = {}  # each table's latest write

    def note(self, change: TableChanged) -> None:
        """Write the table's rows as the table is now (soon, after its earlier writes): a listener of
        the tables (:meth:`~nimmt.server.tables.TableService.subscribe`)."""
        table = change.table
        self._note_clock(table)
        if self.tables is None or not table.options.public or table.id in self.closed:
            return
        taken = sum(seat.taken for seat in table.seats)
        lobby = table.status == "lobby"
        somebody = bool(table.present) or turn_based(table.options.clock)
        room = lobby and taken < len(table.seats)
        arriving = table.arriving_until(ARRIVING) if room else None
        values: dict[str, Any] = {"language": table.language, "clock": table.options.clock,
                                  "seats": len(table.seats), "taken": taken, "open": room and somebody,
                                  "arriving_until": None if arriving is None else datetime.fromtimestamp(arriving, UTC)}
        if not lobby:
            self.closed.add(table.id)
            if len(self.closed) > REMEMBERED:
                self.closed.clear()  # writing a started table's row again is harmless
        self._queue(table.id, functools.partial(self.tables.note, table.id, **values))

    def _note_clock(self, table: Table) -> None:
        if self.clocked is None or not table.options.clock:
            return
        running = bool(table.options.clock) and table.status == "playing"
        if self.clock_rows.get(table.id) == running:
            return
        if len(self.clock_rows) > REMEMBERED:
            self.clock_rows.clear()  # writing a row again is harmless
        self.clock_rows[table.id] = running
        self._queue(table.id, functools.partial(self.clocked.note, table.id, table.options.clock, running))

    def _queue(self, table_id: str, write: Callable[[], Awaitable[None]]) -> None:
        before = self.writes.get(table_id)
        task = self.writes[table_id] = asyncio.create_task(self._write(table_id, write, before))
        task.add_done_callback(lambda done: self.writes.pop(table_id, None) if self.writes.get(table_id) is done
                               else None)

    async def _write(self, table_id: str, write: Callable[[], Awaitable[None]],
                     before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await asyncio.wait([before])
        try:
            await write()
        except Exception:
            logger.exception("a row of table %s (lobby or clock) was not written", table_id)

    async def written(self, table_id: str) -> None:
        """Wait until the table's rows, as noted so far, are written (or their write has failed)."""
        latest = self.writes.get(table_id)
        if latest is not None:
            await asyncio.wait([latest])  # each write waits for the one before

    async def settled(self, timeout: float | None = None) -> None:
        """Wait for the writes under way (tests, closing, and quick match: a person who arrived at a
        table of this process a moment ago is in the list it reads); at most ``timeout`` seconds."""
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        while self.writes:
            left = None if deadline is None else deadline - asyncio.get_running_loop().time()
            if left is not None and left <= 0:
                return
            await asyncio.wait(list(self.writes.values()), timeout=left)

    async def close(self) -> None:
        await self.settled()
        if self.tables is not None:
            await self.tables.close()
