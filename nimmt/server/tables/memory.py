"""Which tables stay in this process's memory: a table nobody is connected to and whose bots have
nothing to do leaves it after a while, and comes back from the store when asked for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from .table import Table

if TYPE_CHECKING:
    from .service import TableService

logger = logging.getLogger("nimmt.server")

FIRST_LOADS_KEPT = 100_000  # tables whose first load this process remembers


class Memory:
    """Open connections and last use of each table, the sweeper that drops idle ones, and when this
    process first loaded each table (a restart gives everyone their grace to reconnect)."""

    def __init__(self, service: TableService, idle_after: float | None) -> None:
        self.service = service
        self.idle_after = idle_after
        self.first_loaded: dict[str, float] = {}  # table -> when this process first loaded or made it
        self.sweeper: asyncio.Task[None] | None = None
        self.abandoning: set[asyncio.Task[None]] = set()  # the people part keeping games nobody came back to

    def loaded(self, table: Table) -> float:
        """Note a table loaded or made; when this process first did (the floor of everyone's absence)."""
        floor = self.first_loaded.setdefault(table.id, table.loaded_at)
        while len(self.first_loaded) > FIRST_LOADS_KEPT:  # the oldest are forgotten first
            del self.first_loaded[next(iter(self.first_loaded))]
        return floor

    def opened(self, table: Table) -> None:
        """A WebSocket is open on the table (a spectator's too): it stays in memory meanwhile."""
        table.connections += 1
        table.last_active = time.monotonic()

    def closed(self, table: Table) -> None:
        table.connections = max(0, table.connections - 1)
        table.last_active = time.monotonic()

    def idle(self, table: Table, now: float) -> bool:
        return (self.idle_after is not None and table.connections == 0 and not table.lock.locked()
                and (table.bot_task is None or table.bot_task.done()) and not table.waiting_bots()
                and not table.needs_deal() and now - table.last_active >= self.idle_after
                and not self.service.coach.busy_with(table.id) and not self.service.clocks.armed(table.id))

    def evict_idle(self, later: float = 0.0) -> list[str]:
        """Drop every idle table from memory (it comes back from the store when asked for); their ids.
        ``later``: as if that many seconds more had passed (for tests)."""
        now = time.monotonic()
        tables = self.service.tables
        gone = [table for table in tables.values() if self.idle(table, now + later)]
        for table in gone:
            del tables[table.id]
            self.service.attendance.forget(table)
            hook = self.service.game_abandoned
            if hook is not None and table.status == "playing" and not table.present:
                # a game in progress that nobody is at: the people part keeps it as abandoned
                task: asyncio.Task[None] = asyncio.ensure_future(hook(table))
                self.abandoning.add(task)
                task.add_done_callback(self.abandoning.discard)
        return [table.id for table in gone]

    def sweep_soon(self) -> None:
        if self.idle_after is None or self.service.closed or (self.sweeper is not None and not self.sweeper.done()):
            return
        self.sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        assert self.idle_after is not None
        every = min(60.0, max(0.05, self.idle_after / 4))
        while not self.service.closed and self.service.tables:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.service.stopping.wait(), every)
            if self.service.closed:
                return
            gone = self.evict_idle()
            if gone:
                logger.debug("%d idle table(s) left memory", len(gone))
