"""The store on PostgreSQL (asyncpg), for several server processes sharing one database.

The two statements of every action, a group of entries alone (one INSERT) and the entries of a
table since a number (a catch-up), go through asyncpg directly, as statements it prepares once per
connection: SQLAlchemy's hand-off between its greenlet and the event loop and its compiling of
each statement cost more CPU than the database's own work on them. Everything else (creating
tables, game records, migrations) stays on SQLAlchemy.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.exc import IntegrityError

from .base import LARGEST, Pending, SqlStore
from .database import Database, asyncpg_module, hot_fetch

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


class PostgresStore(SqlStore, dialect="postgresql"):
    """:class:`~nimmt.server.store.Store` on PostgreSQL (``postgresql+asyncpg://user:password@host/db``).
    Transactions and game records go through the database's engines; the hot path through its
    asyncpg pool (:meth:`~nimmt.server.store.database.Database.asyncpg`)."""

    def __init__(self, database: Database | str) -> None:
        super().__init__(database)
        self._writes = self.database.engine.sync_engine  # where its transactions are written

    async def _let_go(self) -> None:
        await self.database.close_asyncpg()

    async def _insert(self, candidates: list[Pending], *, look: bool) -> set[tuple[str, int]]:
        if look or any(pending.seq == 0 or pending.game is not None for pending in candidates):
            async with self._engine.begin() as connection:
                return await connection.run_sync(self._insert_in, candidates, look)
        # Entries alone (nearly every action) are one INSERT, atomic by itself: committed as it
        # returns, with no BEGIN and COMMIT round trips (each waits for a turn of a busy event loop).
        return await self._insert_entries(candidates)

    async def _insert_entries(self, candidates: list[Pending]) -> set[tuple[str, int]]:
        """PostgreSQL: a group of entries (no 0th, no record) in one prepared statement through asyncpg."""
        pool = await self.database.asyncpg()
        try:
            rows = await hot_fetch(pool, _PG_ENTRIES, [p.table_id for p in candidates],
                                   [p.seq for p in candidates], [p.entry for p in candidates])
        except asyncpg_module().IntegrityConstraintViolationError as error:
            # A table nobody made (its foreign key): nothing of the statement was stored; the caller
            # looks for the tables and writes the rest, as SQLAlchemy's IntegrityError makes it do.
            raise IntegrityError(_PG_ENTRIES, None, error) from error
        return {(row[0], row[1]) for row in rows}

    async def _entries(self, table_id: str, since: int) -> list[dict[str, Any]] | None:
        pool = await self.database.asyncpg()
        if since > 0:
            found = await hot_fetch(pool, _PG_JOURNAL_SINCE, table_id, min(since, LARGEST))
        else:
            found = await hot_fetch(pool, _PG_JOURNAL, table_id)
        if not found:
            return None
        return [json.loads(row[1]) for row in found if row[0] >= since]
