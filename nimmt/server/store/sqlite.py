"""The store on SQLite (aiosqlite, the default): one file, written by one thread of its own."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import CompoundSelect, Engine, Select, Table, create_engine, event, select, union_all
from sqlalchemy.dialects.sqlite import Insert as SqliteInsert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine

from .base import JOURNAL, LARGEST, Pending, SqlStore, json_text

# SQLite's hot path, run by the plain driver: a group of entries in one statement (at most BATCH rows,
# 3 parameters each, within SQLite's 999 of old).
_SQLITE_ENTRIES = "INSERT INTO journal (table_id, seq, entry) VALUES {} ON CONFLICT DO NOTHING RETURNING table_id, seq"


class SqliteStore(SqlStore, dialect="sqlite"):
    """:class:`~nimmt.server.store.Store` on a SQLite file (``sqlite+aiosqlite:///file``)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        url = self.url
        self._engine = create_async_engine(url, json_serializer=json_text)
        event.listen(self._engine.sync_engine, "connect", sqlite_pragmas)
        self._autocommit = self._engine  # SQLite's driver begins no transaction for a read anyway
        # Writes go through the plain driver in a thread of their own: a whole transaction is one
        # hand-off to that thread, where aiosqlite makes one for each step of it, and each of
        # those waits for the event loop's next turn (tens of ms when the server is busy).
        self._writes: Engine = create_engine(make_url(url).set(drivername="sqlite"), json_serializer=json_text)
        event.listen(self._writes, "connect", sqlite_pragmas)
        self._thread: ThreadPoolExecutor | None = None  # the writing thread, while there is one

    async def _let_go(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:  # its connection is closed in the thread that used it, then it ends
            await asyncio.get_running_loop().run_in_executor(thread, self._writes.dispose)
            thread.shutdown()

    async def _insert(self, candidates: list[Pending], *, look: bool) -> set[tuple[str, int]]:
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="nimmt-store-writer")
        return await asyncio.get_running_loop().run_in_executor(self._thread, self._insert_in_thread, candidates, look)

    async def check_write(self) -> None:
        """The health check's write, in the writer's thread, on its plain driver: the write lock is held
        for the statements alone (through aiosqlite it would be held across turns of a busy event loop,
        and the tables' writer would wait for it), and what it proves is the tables' own write path."""
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="nimmt-store-writer")
        await asyncio.get_running_loop().run_in_executor(self._thread, self._probe_in_thread)

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

    def _dialect_insert(self, table: Table) -> SqliteInsert:
        return sqlite_insert(table)

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


def sqlite_pragmas(connection: Any, _record: Any) -> None:
    # WAL keeps readers off the writer's back; FULL sync: an acknowledged action survives a crash.
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
