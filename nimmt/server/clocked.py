"""Timed tables whose clock runs, kept in the store, so that no clock waits for its table to be loaded.

A table's clock is rebuilt from its journal (:mod:`nimmt.server.tables.clock`) and armed when a
process loads the table. After a restart, or when the process that held a turn-based table has
gone, nothing would load it until somebody opened it, and an absent person's day could run out
unseen. So every timed table has one row in ``clocked_tables``: whether its clock runs (a game is
being played). It is written when that changes (by :class:`~nimmt.server.listing.Listing`, which
hears every change of a table); every process scans the running rows at start-up and then every
:data:`SCAN_EVERY` seconds, :data:`SCAN_BATCH` rows a scan (a cursor walks through them all), and
loads each table it does not hold: loading arms its clock. When several processes load one table,
the store lets one hand-over in (as when their timers fire together).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Container

from sqlalchemy import Boolean, Column, DateTime, ForeignKey, Index, Integer, String, Table, select
from sqlalchemy.ext.asyncio import AsyncEngine

from .public import PUBLIC_SCHEMA, PublicTables
from .tables.commands import Announce, Port

logger = logging.getLogger("nimmt.server")
SCAN_EVERY = 60.0  # seconds between two scans of one process
SCAN_BATCH = 200  # rows read, and tables loaded at most, in one scan

CLOCKED_TABLES = Table(
    "clocked_tables", PUBLIC_SCHEMA,
    Column("table_id", String(64), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("clock", Integer, nullable=False),
    Column("running", Boolean, nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
    Index("ix_clocked_tables_running", "running", "table_id"),
)


class ClockedTables:
    """The ``clocked_tables`` rows, on the lobby's engine (the store's database)."""

    def __init__(self, public: PublicTables) -> None:
        self.database, self.clock = public.database, public.clock
        self._engine: AsyncEngine = public.engine

    async def note(self, table_id: str, clock: int, is_running: bool) -> None:
        values = {"table_id": table_id, "clock": clock, "running": is_running, "changed_at": self.clock()}
        insert = self.database.insert(CLOCKED_TABLES).values(values)
        changed = {name: insert.excluded[name] for name in ("clock", "running", "changed_at")}
        async with self._engine.begin() as connection:
            await connection.execute(insert.on_conflict_do_update(index_elements=["table_id"], set_=changed))

    async def running_after(self, after: str, limit: int = SCAN_BATCH) -> list[str]:
        """The ids of running timed tables after ``after``, in id order (one page of the scan)."""
        columns = CLOCKED_TABLES.c
        query = (select(columns.table_id).where(columns.running, columns.table_id > after)
                 .order_by(columns.table_id).limit(limit))
        async with self._engine.connect() as connection:
            return [row.table_id for row in (await connection.execute(query)).all()]


class ClockScan:
    """One process's scan: every running timed table it does not hold is loaded (its clock armed)."""

    def __init__(self, tables: Port, held: Container[str], rows: ClockedTables) -> None:
        """``held``: the ids of the tables this process holds (they are not loaded again)."""
        self.tables, self.held, self.rows = tables, held, rows
        self.after = ""  # the scan's cursor: the last table id looked at
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        tables = self.tables
        while not tables.closed:
            try:
                await self.scan()
            except Exception:  # the store is away: the next scan tries again
                logger.exception("the scan of timed tables failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tables.stopping.wait(), SCAN_EVERY)

    async def scan(self) -> list[str]:
        """Load the running timed tables of one page that this process does not hold; their ids."""
        ids = await self.rows.running_after(self.after)
        self.after = ids[-1] if len(ids) == SCAN_BATCH else ""  # a short page: the next scan starts over
        loaded = []
        for table_id in ids:
            if self.tables.closed:
                break
            if table_id in self.held:
                continue
            try:
                table = await self.tables.get(table_id)
            except Exception:  # a damaged journal is said once by the service; the others go on
                logger.exception("timed table %s could not be loaded", table_id)
                continue
            if table is not None:
                loaded.append(table_id)
                await self.tables.submit(table, Announce())  # a row that said "running" wrongly is put right
        return loaded

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.wait([self.task])
