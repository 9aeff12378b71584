"""Who is at each table: people arriving and leaving, and the grace before an away person's seat
may be handed to a bot.

Presence itself lives in the hub (shared by every process); each table keeps what the hub last
said (:meth:`~nimmt.server.tables.table.Table.see`), as its host hears it with each
:class:`~.commands.Arrived` and :class:`~.commands.Left`. A replaced person who comes back while the
table awaits their seat gets it back then (the host's settling after a write).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from ..hub import Hub, Presence
from .commands import Arrived, AwayGraceOver, Left, Port
from .table import Table

logger = logging.getLogger("nimmt.server")


class Attendance:
    """Arrivals, departures and the away watches of one process's tables."""

    def __init__(self, tables: Port, hub: Hub) -> None:
        self.tables = tables
        self.hub = hub
        self.watches: dict[tuple[str, int], asyncio.Task[None]] = {}  # publish when a person's grace runs out
        self.leaving: set[asyncio.Future[None]] = set()  # departures told after their connection was cancelled

    async def arrive(self, table: Table, seat: int | None) -> None:
        if seat is None:
            return
        presence = await self.hub.arrive(table.id, seat)  # counted by the hub first, whatever follows
        await self.tables.submit(table, Arrived(seat, presence))

    async def leave(self, table: Table, seat: int | None) -> None:
        """A page closed: counted by the hub at once, then told to the table at once when it is free
        (in the closing connection's own task, as before), and even when that connection is cancelled
        while the table is busy (then in a task of its own)."""
        if seat is None:
            return
        presence = await self.hub.leave(table.id, seat)
        try:
            await self._left(table, seat, presence)
        except asyncio.CancelledError:
            later = asyncio.ensure_future(self._left(table, seat, presence))
            self.leaving.add(later)
            later.add_done_callback(self.leaving.discard)
            raise

    async def _left(self, table: Table, seat: int, presence: Presence) -> None:
        await self.tables.submit(table, Left(seat, presence))
        if not table.is_present(seat):
            self.watch(table, seat)

    def watch_all(self, table: Table) -> None:
        """Presence changed (on any process): watch each away seat."""
        for seat in range(len(table.seats)):
            self.watch(table, seat)

    def watch(self, table: Table, seat: int) -> None:
        """Publish an update once this seat's person has been away ``away_grace`` seconds, so every page
        learns that the seat may now go to a bot (the update carries each seat's ``away_seconds``)."""
        if self.tables.closed or table.away_seconds(seat) is None:
            return
        if table.away_grace <= 0 and table.options.absent != "bot":
            return
        since = table.away_since.get(seat, table.loaded_at)
        key = (table.id, seat)
        earlier = self.watches.get(key)
        if earlier is not None:
            earlier.cancel()  # the person came and went again: only the latest absence counts
        watch = self.watches[key] = asyncio.create_task(self._publish_after_grace(table, seat, since))
        watch.add_done_callback(lambda done: self.watches.pop(key) if self.watches.get(key) is done else None)

    def forget(self, table: Table) -> None:
        """The table left memory: its watches stop."""
        for seat in range(len(table.seats)):
            watch = self.watches.get((table.id, seat))
            if watch is not None:
                watch.cancel()

    async def _publish_after_grace(self, table: Table, seat: int, since: float) -> None:
        tables = self.tables
        grace = table.absent_grace if table.options.absent == "bot" else table.away_grace
        delay = since + grace - time.monotonic() + 0.01
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(tables.stopping.wait(), max(0.0, delay))
        still_away = table.away_seconds(seat) is not None and table.away_since.get(seat, table.loaded_at) == since
        if not tables.closed and still_away and table.seats[seat].bot is None and tables.holds(table):
            await tables.submit(table, AwayGraceOver(seat))
