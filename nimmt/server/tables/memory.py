"""Which tables stay in this process's memory: a table nobody is connected to and whose bots have
nothing to do leaves it after a while, and comes back from the store when asked for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from .commands import Port
from .host import TableHost
from .table import Table

logger = logging.getLogger("nimmt.server")

FIRST_LOADS_KEPT = 100_000  # tables whose first load this process remembers


class Memory:
    """Open connections and last use of each table, the sweeper that drops idle ones, and when this
    process first loaded each table (a restart gives everyone their grace to reconnect)."""

    def __init__(self, tables: Port, hosts: dict[str, TableHost], idle_after: float | None, *,
                 busy: Callable[[str], bool], gone: Callable[[Table], None],
                 abandoned: Callable[[Table], Awaitable[None]] | None = None) -> None:
        """``hosts``: the process's tables, by id (a table leaves memory when it leaves them);
        ``busy(table_id)``: whether a part is at work on the table (its bots, the coach, its clock);
        ``gone(table)``: heard when a table leaves memory; ``abandoned(table)``: heard then too when
        its game is in progress and nobody is at it (the people part keeps it as abandoned)."""
        self.tables = tables
        self.hosts = hosts
        self.busy = busy
        self.gone = gone
        self.abandoned = abandoned
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

    def idle(self, host: TableHost, now: float) -> bool:
        table = host.table
        return (self.idle_after is not None and table.connections == 0 and not host.busy()
                and not table.waiting_bots() and not table.needs_deal() and now - table.last_active >= self.idle_after
                and not self.busy(table.id))

    def evict_idle(self, later: float = 0.0) -> list[str]:
        """Drop every idle table from memory (it comes back from the store when asked for); their ids.
        ``later``: as if that many seconds more had passed (for tests)."""
        now = time.monotonic()
        gone = [host.table for host in self.hosts.values() if self.idle(host, now + later)]
        for table in gone:
            del self.hosts[table.id]
            self.gone(table)
            hook = self.abandoned
            if hook is not None and table.status == "playing" and not table.present:
                # a game in progress that nobody is at: the people part keeps it as abandoned
                task: asyncio.Task[None] = asyncio.ensure_future(hook(table))
                self.abandoning.add(task)
                task.add_done_callback(self.abandoning.discard)
        return [table.id for table in gone]

    def sweep_soon(self) -> None:
        if self.idle_after is None or self.tables.closed or (self.sweeper is not None and not self.sweeper.done()):
            return
        self.sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        assert self.idle_after is not None
        every = min(60.0, max(0.05, self.idle_after / 4))
        while not self.tables.closed and self.hosts:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.tables.stopping.wait(), every)
            if self.tables.closed:
                return
            gone = self.evict_idle()
            if gone:
                logger.debug("%d idle table(s) left memory", len(gone))
