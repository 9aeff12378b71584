"""Quick-match tables start by themselves: after ``options.start_after`` seconds of waiting, with bots
in the free seats.

Quick match opens a public table of four for strangers (:mod:`nimmt.server.routes.public`). As on
the lobbies people know (Board Game Arena's "start when ready"), nobody should wait there for long:
a table with ``start_after`` starts that many seconds after it was opened (its journal's first
entry is dated, so any process rebuilds the moment and every page counts down to the same one,
:func:`start_left`; an undated journal falls back to the lobby's row, ``public_tables.opened_at``),
when at least one person is at it, and :data:`FILL_BOT` takes every seat still free. Its creator
may start it sooner, bots in the free seats too (the lobby's Start with ``fill``). A table nobody is
at does not start; it starts as soon as someone comes back after its time. When several processes
hold the table, the store lets one ``start`` in; the others find the table started.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from .tables.commands import Port, StartGame

if TYPE_CHECKING:
    from .public import PublicTables
    from .tables.changes import TableChanged
    from .tables.state import TableState
    from .tables.table import Table

logger = logging.getLogger("nimmt.server")
FILL_BOT = "heuristic"  # quick to answer, and a fair opponent for strangers
RETRY = 5.0  # seconds before a start that could not be stored is tried again
REMEMBERED = 100_000  # opening times one process keeps at most


def start_left(table: TableState) -> float | None:
    """Seconds (tenths) until a waiting table starts by itself, as its journal dates it; None when it
    does not (no ``start_after``, not in the lobby, or an undated journal). Zero once due."""
    after = table.options.start_after
    if not after or table.status != "lobby" or table.created_at is None:
        return None
    return round(max(0.0, table.created_at + after - time.time()), 1)


def start_waits(table: Table) -> str | None:
    """What a waiting table that starts by itself waits for besides its time: ``"player"`` while no
    seated person is here (it starts when one is, once due); None otherwise. From the hub's presence,
    so every process says the same."""
    if not table.options.start_after or table.status != "lobby" or table.present:
        return None
    return "player"


class QuickStart:
    """One timer per waiting table with ``start_after`` in this process."""

    def __init__(self, tables: Port, public: PublicTables | None) -> None:
        self.tables = tables
        self.public = public
        self.opened: dict[str, float] = {}  # table -> when it was opened (wall clock), as the store says
        self.timers: dict[str, asyncio.Task[None]] = {}

    def arm(self, change: TableChanged) -> None:
        """After any change of a table: (re)arm its start, or forget it once it has started (a listener
        of the tables)."""
        table = change.table
        after = table.options.start_after
        if not after or self.tables.closed:
            return
        if table.status != "lobby":
            self.forget(table.id)
            return
        timer = self.timers.get(table.id)
        if timer is None or timer.done():
            self.timers[table.id] = asyncio.create_task(self._wait(table, float(after)))

    def forget(self, table_id: str) -> None:
        self.opened.pop(table_id, None)
        timer = self.timers.pop(table_id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()

    async def _opened_at(self, table: Table) -> float:
        if table.created_at is not None:
            return table.created_at  # the journal's date: what every page counts down to
        table_id = table.id
        if table_id not in self.opened:
            if len(self.opened) > REMEMBERED:
                self.opened.clear()  # tables left waiting for good: read again from the store when asked
            when = await self.public.opened_at(table_id) if self.public is not None else None
            self.opened[table_id] = time.time() if when is None else when.timestamp()  # none yet: made just now
        return self.opened[table_id]

    async def _wait(self, table: Table, after: float) -> None:
        tables = self.tables
        try:
            due = await self._opened_at(table) + after
            while not tables.closed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(tables.stopping.wait(), max(0.0, due - time.time()))
                if tables.closed or not tables.holds(table) or table.status != "lobby":
                    return
                if start_waits(table) is not None:
                    return  # nobody here: the next arrival arms it again, and it starts then
                try:
                    await tables.submit(table, StartGame(fill=FILL_BOT))  # nothing if it has started meanwhile
                    return
                except Exception:  # the store is away: try again shortly
                    logger.exception("the quick start of table %s failed", table.id)
                    due = time.time() + RETRY
        finally:
            if self.timers.get(table.id) is asyncio.current_task():
                del self.timers[table.id]

    async def close(self) -> None:
        timers = [timer for timer in self.timers.values() if not timer.done()]
        for timer in timers:
            timer.cancel()
        if timers:
            await asyncio.wait(timers)
