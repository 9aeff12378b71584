"""Public tables: what the lobby lists and quick match joins, kept in the store.

A table opened to strangers has one row in ``public_tables``: its language, clock, seats and seats
taken, and whether it is **open** (not started, a seat free, and somebody at it or a turn-based
clock). The tables' listener :class:`~nimmt.server.listing.Listing` writes the row whenever one
of these changes; the lobby reads the rows,
so every process lists the same tables and nothing lives in one process's memory. Rows hold no
names: a public table shows nobody's name, group or history outside the table.

Quick match also takes a table whose people are **arriving**: somebody took a seat less than
:data:`ARRIVING` seconds ago and their page has not opened yet (``arriving_until``), so the stranger
who asks a moment after another sits at the table the first one opened (nimmt/server/matching.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    or_,
    select,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from .store.database import Database, Dialect

Clock = Callable[[], datetime]
TURN_BASED = 3600  # a clock of an hour or more a move: people come and go, the table stays listed
LISTED_FOR = timedelta(days=7)  # a row unchanged for this long is no longer listed
LISTED = 50  # at most this many tables in one answer
REMEMBERED = 100_000  # started tables one process remembers not to write again
ARRIVING = 30.0  # seconds a person who took a seat has to open the table's page, for quick match


def turn_based(clock: int | None) -> bool:
    """Whether a table with this clock (seconds a decision; None: no clock) is turn-based: people
    come and go, the table is listed without them, its people get notices (docs/push.md)."""
    return (clock or 0) >= TURN_BASED


logger = logging.getLogger("nimmt.server")

PUBLIC_SCHEMA = MetaData()
_WHEN = DateTime(timezone=True)
PUBLIC_TABLES = Table(
    "public_tables", PUBLIC_SCHEMA,
    Column("table_id", String(64), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("language", String(8), nullable=False),
    Column("clock", Integer, nullable=True),
    Column("seats", Integer, nullable=False),
    Column("taken", Integer, nullable=False),
    Column("open", Boolean, nullable=False),
    Column("opened_at", _WHEN, nullable=False),
    Column("changed_at", _WHEN, nullable=False),
    Column("arriving_until", _WHEN, nullable=True),  # somebody who just sat down is expected until then
    Index("ix_public_tables_open", "open", "language", "opened_at"),
)


@dataclass(frozen=True, slots=True)
class OpenTable:
    """One line of the lobby: no names, only what a stranger needs to choose."""

    table_id: str
    language: str
    clock: int | None  # seconds a move, None: no clock
    seats: int
    taken: int
    opened_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "language": self.language, "clock": self.clock, "seats": self.seats,
                "taken": self.taken, "free": self.seats - self.taken, "opened_at": self.opened_at.isoformat()}


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class PublicTables:
    """The ``public_tables`` rows (made by the store's migrations, which run first), on the
    :class:`~nimmt.server.store.Database` it is given (the clock rows and quick match's turns use it
    through this object). Given a URL instead, it makes the database and closes it with itself."""

    def __init__(self, database: Database | str, *, clock: Clock = _now) -> None:
        self.clock = clock
        self._owns_database = not isinstance(database, Database)
        self.database = database if isinstance(database, Database) else Database(database)
        self._engine: AsyncEngine = self.database.engine

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    @property
    def dialect(self) -> Dialect:
        return self.database.dialect

    async def close(self) -> None:
        if self._owns_database:
            await self.database.close()

    async def note(self, table_id: str, *, language: str, clock: int | None, seats: int, taken: int,
                   open: bool, arriving_until: datetime | None = None) -> None:
        """Write what the lobby shows of a public table (its row is made the first time)."""
        now = self.clock()
        values = {"table_id": table_id, "language": language, "clock": clock, "seats": seats, "taken": taken,
                  "open": open, "opened_at": now, "changed_at": now, "arriving_until": arriving_until}
        insert = self.database.insert(PUBLIC_TABLES).values(values)
        changed = {name: insert.excluded[name] for name in ("taken", "open", "changed_at", "arriving_until")}
        async with self._engine.begin() as connection:
            await connection.execute(insert.on_conflict_do_update(index_elements=["table_id"], set_=changed))

    async def opened_at(self, table_id: str) -> datetime | None:
        """When the table's row was first written (the table was opened), or None: no row yet."""
        query = select(PUBLIC_TABLES.c.opened_at).where(PUBLIC_TABLES.c.table_id == table_id)
        async with self._engine.connect() as connection:
            when = (await connection.execute(query)).scalar()
        return None if when is None else _utc(when)

    async def open_tables(self, language: str | None = None, limit: int = LISTED, *,
                          arriving: bool = False) -> list[OpenTable]:
        """The open public tables, oldest first (the one waiting longest fills first); in one
        language, or in every language. ``arriving``: with the tables whose people are on their way
        (quick match's)."""
        columns, now = PUBLIC_TABLES.c, self.clock()
        room = or_(columns.open, columns.arriving_until > now) if arriving else columns.open
        query = select(columns.table_id, columns.language, columns.clock, columns.seats, columns.taken,
                       columns.opened_at).where(room, columns.changed_at > now - LISTED_FOR)
        if language is not None:
            query = query.where(columns.language == language)
        query = query.order_by(columns.opened_at, columns.table_id).limit(max(0, min(limit, LISTED)))
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [OpenTable(row.table_id, row.language, row.clock, row.seats, row.taken, _utc(row.opened_at))
                for row in rows]
