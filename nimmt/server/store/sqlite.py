"""The store on SQLite (aiosqlite, the default): one file, written by one thread of its own."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from sqlalchemy import CompoundSelect, Select, select, union_all
from sqlalchemy.exc import IntegrityError

from .base import JOURNAL, LARGEST, Pending, SqlStore
from .database import Database

# SQLite's hot path, run by the plain driver: a group of entries in one statement (at most BATCH rows,
# 3 parameters each, within SQLite's 999 of old).
_SQLITE_ENTRIES = "INSERT INTO journal (table_id, seq, entry) VALUES {} ON CONFLICT DO NOTHING RETURNING table_id, seq"


class SqliteStore(SqlStore, dialect="sqlite"):
    """:class:`~nimmt.server.store.Store` on a SQLite file (``sqlite+aiosqlite:///file``)."""

    def __init__(self, database: Database | str) -> None:
        super().__init__(database)
        # Writes go through the plain driver in a thread of their own: a whole transaction is one
        # hand-off to that thread, where aiosqlite makes one for each step of it, and each of
        # those waits for the event loop's next turn (tens of ms when the server is busy).
        self._writer_thread = self.database.plain_thread("nimmt-store-writer")
        self._writes = self._writer_thread.engine

    async def _let_go(self) -> None:
        await self._writer_thread.close()  # its connection closed in the thread that used it

    async def _insert(self, candidates: list[Pending], *, look: bool) -> set[tuple[str, int]]:
        return await self._writer_thread.run(self._insert_in_thread, candidates, look)

    async def check_write(self) -> None:
        """The health check's write, in the writer's thread, on its plain driver: the write lock is held
        for the statements alone (through aiosqlite it would be held across turns of a busy event loop,
        and the tables' writer would wait for it), and what it proves is the tables' own write path."""
        await self._writer_thread.run(self._probe_in_thread)

    def _probe_in_thread(self) -> None:
        with self._writes.begin() as connection:
            self._probe_in(connection)

    def _insert_in_thread(self, candidates: list[Pending], look: bool) -> set[tuple[str, int]]:
        if not look and all(pending.seq != 0 and pending.game is None for pending in candidates):
            return self._insert_entries_sqlite(candidates)
        with self._writes.begin() as connection:
            return self._insert_in(connection, candidates, look)

    def _insert_entries_sqlite(self, candidates: list[Pending]) -> set[tuple[str, int]]:
        """SQLite: entries alone (nearly every action) through the plain driver, in the writer's thread:
        one statement and a commit, without SQLAlchemy's layers, whose every step is a turn for the GIL
        while the event loop is busy. Same outcome as :meth:`_insert_in`: a taken number is skipped, an
        unknown table fails the whole statement (IntegrityError, and the caller looks)."""
        statement = _SQLITE_ENTRIES.format(",".join(["(?, ?, ?)"] * len(candidates)))
        values = [value for pending in candidates for value in (pending.table_id, pending.seq, pending.entry)]
        connection = self._writes.raw_connection()  # from the writes' pool: its pragmas are set
        try:
            try:
                rows = connection.cursor().execute(statement, values).fetchall()  # the driver begins
                connection.commit()
            except sqlite3.IntegrityError as error:
                connection.rollback()
                raise IntegrityError(statement, None, error) from error
            except BaseException:
                connection.rollback()
                raise
        finally:
            connection.close()  # back to the pool
        return {(table_id, seq) for table_id, seq in rows}

    async def _entries(self, table_id: str, since: int) -> list[dict[str, Any]] | None:
        seq = JOURNAL.c.seq
        entries = select(seq, JOURNAL.c.entry).where(JOURNAL.c.table_id == table_id)
        query: Select[int, str] | CompoundSelect[int, str] = entries.order_by(seq)
        if since > 0:
            # One query, two index look-ups: entry 0 exists for every known table, so asking for it
            # too tells "unknown table" (no rows) from "nothing since" (entry 0 alone).
            query = union_all(entries.where(seq == 0), entries.where(seq >= min(since, LARGEST))).order_by("seq")
        async with self._autocommit.connect() as connection:
            rows = (await connection.execute(query)).all()
        if not rows:
            return None
        return [json.loads(text) for number, text in rows if number >= since]
