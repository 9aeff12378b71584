"""Who is at each table: people arriving and leaving, and the grace before an away person's seat
may be handed to a bot.

Presence itself lives in the hub (shared by every process); each table keeps what the hub last
said (:meth:`~nimmt.server.tables.table.Table.see`). A replaced person who comes back while the
table awaits their seat gets it back through the service's settling after a write.
"""

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


class Attendance:
    """Arrivals, departures and the away watches of one process's tables."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self.watches: dict[tuple[str, int], asyncio.Task[None]] = {}  # publish when a person's grace runs out

    async def arrive(self, table: Table, seat: int | None) -> None:
        if seat is None:
            return
        service = self.service
        presence = await service.hub.arrive(table.id, seat)
        table.see(presence)
        service.clocks.arm(table)  # a person back before the clock handed their seat: nothing to hand
        back = table.seats[seat].bot is not None and (seat in table.waiting_bots() or table.status == "over")
        if table.needs_deal() or back:
            # A replaced person is back while the table awaits their seat: theirs again, before the bot acts.
            try:
                async with table.lock:
                    await service.settle(table)
            except Exception:  # storing failed: the bot plays on, and the next decision tries again
                logger.exception("giving seat %s of table %s back failed", seat, table.id)
        await service.hub.publish(table.news(presence))
        await service.changed(table)

    async def leave(self, table: Table, seat: int | None) -> None:
        if seat is None:
            return
        presence = await self.service.hub.leave(table.id, seat)
        table.see(presence)
        if not table.is_present(seat):
            self.watch(table, seat)
            self.service.clocks.arm(table)  # a person gone after their clock ran out: the clock hands the seat
        if not self.service.closed:
            await self.service.hub.publish(table.news(presence))
            await self.service.changed(table)

    def watch_all(self, table: Table) -> None:
        """Presence changed (on any process): watch each away seat, and set the clock's timer again."""
        for seat in range(len(table.seats)):
            self.watch(table, seat)
        self.service.clocks.arm(table)

    def watch(self, table: Table, seat: int) -> None:
        """Publish an update once this seat's person has been away ``away_grace`` seconds, so every page
        learns that the seat may now go to a bot (the update carries each seat's ``away_seconds``)."""
        if self.service.closed or table.away_seconds(seat) is None:
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
        service = self.service
        grace = table.absent_grace if table.options.absent == "bot" else table.away_grace
        delay = since + grace - time.monotonic() + 0.01
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(service.stopping.wait(), max(0.0, delay))
        still_away = table.away_seconds(seat) is not None and table.away_since.get(seat, table.loaded_at) == since
        loaded = service.tables.get(table.id) is table
        if not service.closed and still_away and table.seats[seat].bot is None and loaded:
            if seat in table.absent_for_bot():  # the absent rule "bot": nobody waits, the seat goes now
                try:
                    async with table.lock:
                        await service.settle(table)
                except Exception:  # storing failed: the next write tries again, or anyone may hand it
                    logger.exception("handing seat %s of table %s to a bot failed", seat, table.id)
            await service.hub.publish(table.news())
