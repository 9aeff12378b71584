"""The store on PostgreSQL (asyncpg), for several server processes sharing one database.

The two statements of every action, a group of entries alone (one INSERT) and the entries of a
table since a number (a catch-up), go through asyncpg directly, as statements it prepares once per
connection: SQLAlchemy's hand-off between its greenlet and the event loop and its compiling of
each statement cost more CPU than the database's own work on them. Everything else (creating
tables, game records, migrations) stays on SQLAlchemy.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, Protocol

from sqlalchemy import Table
from sqlalchemy.dialects.postgresql import Insert as PgInsert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine

from .base import LARGEST, Pending, SqlStore, json_text

# The hot path's statements on PostgreSQL, in asyncpg's form. A group of entries is one statement
# whatever its size (arrays, not a VALUES list per size), so it is prepared once per connection.
# ON CONFLICT DO NOTHING with no target, as SQLAlchemy's: a taken number is skipped, not an error;
# rows go in in the arrays' order (sorted by table and number, see SqlStore.write).
_PG_ENTRIES = """INSERT INTO journal (table_id, seq, entry)
SELECT * FROM unnest($1::varchar[], $2::integer[], $3::text[])
ON CONFLICT DO NOTHING RETURNING table_id, seq"""
_PG_JOURNAL = "SELECT seq, entry FROM journal WHERE table_id = $1 ORDER BY seq"
# Entry 0 exists for every known table: asking for it too tells "unknown" (no rows) from "nothing since".
_PG_JOURNAL_SINCE = """SELECT seq, entry FROM journal WHERE table_id = $1 AND seq = 0
UNION ALL SELECT seq, entry FROM journal WHERE table_id = $1 AND seq >= $2 ORDER BY seq"""
_PG_CONNECTIONS = 10  # asyncpg connections of the hot path at most (SQLAlchemy's pool beside them)
_PG_CONNECT_TIMEOUT = 10.0  # seconds to open one (PostgreSQL down: the action fails with server_error)


class _Pool(Protocol):
    """What the store uses of an ``asyncpg.Pool`` (asyncpg ships no type information)."""

    async def fetch(self, query: str, *args: Any) -> list[Any]: ...

    async def close(self) -> None: ...

    def terminate(self) -> None: ...


def _asyncpg() -> Any:
    import asyncpg  # type: ignore[import-untyped]  # imported by a store on PostgreSQL only

    return asyncpg


async def _as_it_was(_connection: Any) -> None:
    """Nothing to reset when a connection goes back to the pool: the hot path's statements change no
    session state, and asyncpg's default reset would cost a round trip (four statements) each time."""


class PostgresStore(SqlStore, dialect="postgresql"):
    """:class:`~nimmt.server.store.Store` on PostgreSQL (``postgresql+asyncpg://user:password@host/db``)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        url = self.url
        # A server: a connection it closed (a restart) is noticed before it is used. For single
        # statements (reads, and a group that is one INSERT), an engine without BEGIN and COMMIT or
        # ROLLBACK around them: one round trip (and the ping) instead of three.
        self._engine = create_async_engine(url, pool_pre_ping=True, json_serializer=json_text)
        self._autocommit = create_async_engine(url, pool_pre_ping=True, isolation_level="AUTOCOMMIT",
                                               json_serializer=json_text)
        self._writes = self._engine.sync_engine  # where its transactions are written
        # The hot path: asyncpg's own pool, made in the event loop that first needs it.
        self._pg: _Pool | None = None
        self._pg_loop: asyncio.AbstractEventLoop | None = None
        self._pg_made: asyncio.Task[_Pool] | None = None

    async def _let_go(self) -> None:
        await self._close_pg()

    async def _pool(self) -> _Pool:
        """asyncpg's pool for this event loop (a store may outlive a loop: a test's second app run)."""
        loop = asyncio.get_running_loop()
        if self._pg is not None and self._pg_loop is loop:
            return self._pg
        if self._pg_made is None or self._pg_loop is not loop:
            self._pg, self._pg_loop = None, loop
            self._pg_made = loop.create_task(self._make_pool())
        made = self._pg_made
        try:
            pool = await asyncio.shield(made)
        except BaseException:
            if made.done() and self._pg_made is made:
                self._pg_made = None  # try again next time
            raise
        if self._pg_made is made:
            self._pg = pool
        return pool

    async def _make_pool(self) -> _Pool:
        _args, options = self._engine.dialect.create_connect_args(make_url(self.url))
        # min_size 0: no connection is opened until one is needed (a store that only migrates opens none).
        pool: _Pool = await _asyncpg().create_pool(min_size=0, max_size=_PG_CONNECTIONS, reset=_as_it_was,
                                         timeout=_PG_CONNECT_TIMEOUT, max_inactive_connection_lifetime=300,
                                         **options)
        return pool

    async def _close_pg(self) -> None:
        made, self._pg_made, self._pg, self._pg_loop = self._pg_made, None, None, None
        if made is None or made.get_loop() is not asyncio.get_running_loop():
            return  # none, or its loop is gone with its connections
        if not made.done():
            made.cancel()
        with contextlib.suppress(BaseException):
            pool = await made
            try:  # politely, then at once: a query stuck behind a lock must not hold close() up
                await asyncio.wait_for(pool.close(), 2.0)
            except BaseException:
                pool.terminate()

    async def _insert(self, candidates: list[Pending], *, look: bool) -> set[tuple[str, int]]:
        if look or any(pending.seq == 0 or pending.game is not None for pending in candidates):
            async with self._engine.begin() as connection:
                return await connection.run_sync(self._insert_in, candidates, look)
        # Entries alone (nearly every action) are one INSERT, atomic by itself: committed as it
        # returns, with no BEGIN and COMMIT round trips (each waits for a turn of a busy event loop).
        return await self._insert_entries(candidates)

    async def _insert_entries(self, candidates: list[Pending]) -> set[tuple[str, int]]:
        """PostgreSQL: a group of entries (no 0th, no record) in one prepared statement through asyncpg."""
        pool = await self._pool()
        try:
            rows = await pool.fetch(_PG_ENTRIES, [p.table_id for p in candidates], [p.seq for p in candidates],
                                    [p.entry for p in candidates])
        except _asyncpg().IntegrityConstraintViolationError as error:
            # A table nobody made (its foreign key): nothing of the statement was stored; the caller
            # looks for the tables and writes the rest, as SQLAlchemy's IntegrityError makes it do.
            raise IntegrityError(_PG_ENTRIES, None, error) from error
        return {(row[0], row[1]) for row in rows}

    def _dialect_insert(self, table: Table) -> PgInsert:
        return pg_insert(table)

    async def _entries(self, table_id: str, since: int) -> list[dict[str, Any]] | None:
        pool = await self._pool()
        if since > 0:
            found = await pool.fetch(_PG_JOURNAL_SINCE, table_id, min(since, LARGEST))
        else:
            found = await pool.fetch(_PG_JOURNAL, table_id)
        if not found:
            return None
        return [json.loads(row[1]) for row in found if row[0] >= since]
