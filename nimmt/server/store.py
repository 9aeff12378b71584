"""Where tables live between restarts: one small interface and its SQLAlchemy implementation.

A table is an append-only journal of accepted entries (table id, sequence number, entry JSON).
The journal is the truth: a table is rebuilt by replaying it through the rules core. Beside it,
each game's ``nimmt/1`` record is kept up to date in the same transaction, so a finished game can
be downloaded without a replay. Only :class:`Store` is used by the rest of the server.

:class:`SqlStore` runs on SQLite (aiosqlite, the default) and on PostgreSQL (asyncpg) from the same
code; its schema is made and changed by the Alembic migrations in :mod:`nimmt.server.migrations`,
applied when the store starts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint, event, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Sequence and game numbers are 32-bit columns on PostgreSQL: a number outside them is no entry.
_LARGEST = 2**31 - 1


class StoreConflict(Exception):
    """Somebody else wrote this sequence number first: the caller's copy of the table is stale."""


@dataclass(frozen=True, slots=True)
class GameRow:
    table_id: str
    game: int  # 1 for the first game at a table, 2 after a rematch...
    record: dict[str, Any]  # nimmt/1
    finished: bool


class Store(Protocol):
    """The storage interface: a journal per table, plus each game's record."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def append(
        self, table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None = None
    ) -> None:
        """Store one accepted entry (and the game's record as it now stands) atomically.

        ``seq`` is 0 for the entry that creates the table; each later entry takes the next
        number. Raises :class:`StoreConflict` if ``seq`` is already taken.
        """
        ...

    async def journal(self, table_id: str, since: int = 0) -> list[dict[str, Any]] | None:
        """The table's entries from sequence number ``since`` on, in order (all of them by
        default; none when ``since`` is past the last), or None for an unknown table."""
        ...

    async def game(self, table_id: str, game: int) -> GameRow | None: ...


class _Base(DeclarativeBase):
    pass


class _Table(_Base):
    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_seq: Mapped[int] = mapped_column(Integer, default=0)


class _Entry(_Base):
    __tablename__ = "journal"
    __table_args__ = (UniqueConstraint("table_id", "seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    entry: Mapped[str] = mapped_column(Text)


class _Game(_Base):
    __tablename__ = "games"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    game: Mapped[int] = mapped_column(Integer, primary_key=True)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    finished: Mapped[bool] = mapped_column(default=False)


class SqlStore:
    """:class:`Store` on SQLAlchemy's asyncio engine: ``sqlite+aiosqlite:///file`` or
    ``postgresql+asyncpg://user:password@host/database``."""

    def __init__(self, url: str) -> None:
        self.url = url = async_url(url)
        self.dialect = make_url(url).get_backend_name()
        if self.dialect == "sqlite":
            self._engine: AsyncEngine = create_async_engine(url)
            event.listen(self._engine.sync_engine, "connect", _sqlite_pragmas)
        else:  # a server: a connection it closed (a restart) is noticed before it is used
            self._engine = create_async_engine(url, pool_pre_ping=True)
        self._sessions = async_sessionmaker(self._engine, expire_on_commit=False)

    @property
    def shown_url(self) -> str:
        """The URL without its password, for logs and messages."""
        return make_url(self.url).render_as_string(hide_password=True)

    @classmethod
    def sqlite(cls, path: str | Path) -> SqlStore:
        return cls(f"sqlite+aiosqlite:///{Path(path)}")

    async def start(self) -> None:
        """Bring the schema to the newest migration (a new database gets every table)."""
        from . import migrations  # Alembic is imported only by a store that starts

        async with self._engine.begin() as connection:
            await connection.run_sync(migrations.upgrade)

    async def close(self) -> None:
        await self._engine.dispose()

    async def append(
        self, table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None = None
    ) -> None:
        try:
            async with self._sessions.begin() as session:
                if seq == 0:
                    session.add(_Table(id=table_id))
                    await session.flush()
                session.add(_Entry(table_id=table_id, seq=seq, entry=json.dumps(entry)))
                if game is not None:
                    row = await session.get(_Game, (game.table_id, game.game))
                    if row is None:
                        session.add(
                            _Game(table_id=table_id, game=game.game, record=game.record, finished=game.finished)
                        )
                    else:
                        row.record = game.record
                        row.finished = game.finished
        except IntegrityError:
            raise StoreConflict(f"entry {seq} of table {table_id} is already stored") from None

    async def journal(self, table_id: str, since: int = 0) -> list[dict[str, Any]] | None:
        async with self._sessions() as session:
            if await session.get(_Table, table_id) is None:
                return None
            if since > _LARGEST:
                return []
            result = await session.scalars(
                select(_Entry.entry)
                .where(_Entry.table_id == table_id, _Entry.seq >= max(since, 0))
                .order_by(_Entry.seq)
            )
            return [json.loads(text) for text in result]

    async def game(self, table_id: str, game: int) -> GameRow | None:
        if not 0 <= game <= _LARGEST:
            return None
        async with self._sessions() as session:
            row = await session.get(_Game, (table_id, game))
            if row is None:
                return None
            return GameRow(row.table_id, row.game, row.record, row.finished)


def async_url(url: str) -> str:
    """The URL with the asyncio driver this store uses when it names none (``postgres://`` and
    ``postgresql://`` take asyncpg, ``sqlite://`` aiosqlite); any other URL as it is.

    >>> async_url("postgres://nimmt:pw@db/nimmt")
    'postgresql+asyncpg://nimmt:pw@db/nimmt'
    >>> async_url("sqlite:///games.sqlite3")
    'sqlite+aiosqlite:///games.sqlite3'
    """
    scheme, separator, rest = url.partition("://")
    driver = {"postgres": "postgresql+asyncpg", "postgresql": "postgresql+asyncpg", "sqlite": "sqlite+aiosqlite"}
    return f"{driver[scheme]}://{rest}" if separator and scheme in driver else url


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # WAL keeps readers off the writer's back; FULL sync: an acknowledged action survives a crash.
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
