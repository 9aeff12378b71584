"""Where tables live between restarts: one small interface and its SQLAlchemy implementation.

A table is an append-only journal of accepted entries (table id, sequence number, entry JSON).
The journal is the truth: a table is rebuilt by replaying it through the rules core. Beside it,
each game's ``nimmt/1`` record is kept, written in the same transaction as the entry it comes
with, so a finished game can be downloaded without a replay. Only :class:`Store` is used by the
rest of the server.

:class:`SqlStore` runs on SQLite (aiosqlite, the default) and on PostgreSQL (asyncpg) from the same
code; its schema is made and changed by the Alembic migrations in :mod:`nimmt.server.migrations`,
applied when the store starts. Its appends are committed in groups: one writer task gathers the
appends that arrive while a transaction is being written and writes them all in the next one (one
fsync for many actions), and each caller returns once its own entry is committed.

On PostgreSQL the two statements of every action, a group of entries alone (one INSERT) and the
entries of a table since a number (a catch-up), go through asyncpg directly, as statements it
prepares once per connection: SQLAlchemy's hand-off between its greenlet and the event loop and
its compiling of each statement cost more CPU than the database's own work on them. Everything
else (creating tables, game records, migrations) stays on SQLAlchemy.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    CompoundSelect,
    Connection,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    Select,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    select,
    union_all,
)
from sqlalchemy.dialects.postgresql import Insert as PgInsert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import Insert as SqliteInsert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from nimmt.core.errors import NimmtError

# Sequence and game numbers are 32-bit columns on PostgreSQL: a number outside them is no entry.
_LARGEST = 2**31 - 1
_ID_LENGTH = 64  # the table id's column


class StoreConflict(NimmtError):
    """Somebody else wrote this sequence number first: the caller's copy of the table is stale."""


class StoreClosed(NimmtError, RuntimeError):
    """The store was closed before this entry could be stored."""


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
        """Store one accepted entry (and the game's record as it now stands, when given) atomically.

        ``seq`` is 0 for the entry that creates the table; each later entry takes the next
        number. Raises :class:`StoreConflict` if ``seq`` is already taken.
        """
        ...

    async def journal(self, table_id: str, since: int = 0) -> list[dict[str, Any]] | None:
        """The table's entries from sequence number ``since`` on, in order (all of them by
        default; none when ``since`` is past the last), or None for an unknown table."""
        ...

    async def game(self, table_id: str, game: int) -> GameRow | None: ...


# The schema at the newest migration (the contract test compares them), used through SQLAlchemy
# Core: no ORM objects, sessions or flushes on the way of an action.
SCHEMA = MetaData()
_TABLES = Table(
    "tables", SCHEMA,
    Column("id", String(_ID_LENGTH), primary_key=True),
    Column("created_seq", Integer, nullable=False),
)
_JOURNAL = Table(
    "journal", SCHEMA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", ForeignKey("tables.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("entry", Text, nullable=False),
    UniqueConstraint("table_id", "seq"),  # its index also serves every look-up by table
)
_GAMES = Table(
    "games", SCHEMA,
    Column("table_id", ForeignKey("tables.id"), primary_key=True),
    Column("game", Integer, primary_key=True),
    Column("record", JSON, nullable=False),
    Column("finished", Boolean, nullable=False),
)


# The hot path's statements on PostgreSQL, in asyncpg's form. A group of entries is one statement
# whatever its size (arrays, not a VALUES list per size), so it is prepared once per connection.
# ON CONFLICT DO NOTHING with no target, as SQLAlchemy's: a taken number is skipped, not an error;
# rows go in in the arrays' order (sorted by table and number, see _write).
_PG_ENTRIES = """INSERT INTO journal (table_id, seq, entry)
SELECT * FROM unnest($1::varchar[], $2::integer[], $3::text[])
ON CONFLICT DO NOTHING RETURNING table_id, seq"""
# SQLite's hot path, run by the plain driver: a group of entries in one statement (at most BATCH rows,
# 3 parameters each, within SQLite's 999 of old).
_SQLITE_ENTRIES = "INSERT INTO journal (table_id, seq, entry) VALUES {} ON CONFLICT DO NOTHING RETURNING table_id, seq"
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


class _Encoded(str):
    """A record already turned into JSON text by its caller (see :func:`_json_text`)."""

    __slots__ = ()


def _json_text(value: Any) -> str:
    # The engine's JSON serializer: a record arrives encoded (and checked) by the caller of append,
    # so that a record that cannot be stored fails its own append, never the group it is written in.
    return value if isinstance(value, _Encoded) else json.dumps(value)


@dataclass(slots=True)
class _Pending:
    """One append: checked and encoded, waiting for the transaction that writes it."""

    table_id: str
    seq: int
    entry: str  # JSON
    game: int | None
    record: _Encoded | None
    finished: bool
    stored: asyncio.Future[bool] | None = field(default=None)  # True: stored; False: a conflict


class SqlStore:
    """:class:`Store` on SQLAlchemy's asyncio engine: ``sqlite+aiosqlite:///file`` or
    ``postgresql+asyncpg://user:password@host/database``.

    With ``group=False`` each append writes its own transaction as it comes (the way before group
    commit, kept to measure against: ``benchmarks/bench_store.py``).
    """

    # At most this many entries in one transaction: their INSERT stays one statement (SQLAlchemy
    # cuts at 1,000 rows, and SQLite's and PostgreSQL's bound parameters are 32,766 and 32,767).
    BATCH = 256
    CLOSE_GRACE = 10.0  # seconds close() lets the writer finish what is pending

    def __init__(self, url: str, *, group: bool = True) -> None:
        self.url = url = async_url(url)
        self.dialect = make_url(url).get_backend_name()
        self.group = group
        if self.dialect == "sqlite":
            self._engine: AsyncEngine = create_async_engine(url, json_serializer=_json_text)
            event.listen(self._engine.sync_engine, "connect", _sqlite_pragmas)
            self._autocommit = self._engine  # SQLite's driver begins no transaction for a read anyway
            # Writes go through the plain driver in a thread of their own: a whole transaction is one
            # hand-off to that thread, where aiosqlite makes one for each step of it, and each of
            # those waits for the event loop's next turn (tens of ms when the server is busy).
            self._writes: Engine = create_engine(make_url(url).set(drivername="sqlite"), json_serializer=_json_text)
            event.listen(self._writes, "connect", _sqlite_pragmas)
        else:  # a server: a connection it closed (a restart) is noticed before it is used
            self._engine = create_async_engine(url, pool_pre_ping=True, json_serializer=_json_text)
            self._writes = self._engine.sync_engine
            # For single statements (reads, and a group that is one INSERT): without BEGIN and
            # COMMIT or ROLLBACK around it, one round trip (and the ping) instead of three.
            self._autocommit = create_async_engine(url, pool_pre_ping=True, isolation_level="AUTOCOMMIT",
                                                   json_serializer=_json_text)
        self._thread: ThreadPoolExecutor | None = None  # SQLite's writing thread, while there is one
        self._waiting: deque[_Pending] = deque()
        self._writing: list[_Pending] = []
        self._wake = asyncio.Event()  # made anew with each writer: an event belongs to one event loop
        self._writer: asyncio.Task[None] | None = None
        self._closing = False
        # PostgreSQL's hot path: asyncpg's own pool, made in the event loop that first needs it.
        self._pg: _Pool | None = None
        self._pg_loop: asyncio.AbstractEventLoop | None = None
        self._pg_made: asyncio.Task[_Pool] | None = None

    @property
    def shown_url(self) -> str:
        """The URL without its password, for logs and messages."""
        return make_url(self.url).render_as_string(hide_password=True)

    @classmethod
    def sqlite(cls, path: str | Path, *, group: bool = True) -> SqlStore:
        return cls(f"sqlite+aiosqlite:///{Path(path)}", group=group)

    async def start(self) -> None:
        """Bring the schema to the newest migration (a new database gets every table)."""
        from . import migrations  # Alembic is imported only by a store that starts

        async with self._engine.begin() as connection:
            await connection.run_sync(migrations.upgrade)
        self._closing = False  # a closed store may be started again (an app's second lifespan)

    async def close(self) -> None:
        """Write what is pending (for at most :attr:`CLOSE_GRACE` seconds), refuse what comes after,
        and let the database go. An append the writer could not finish raises :class:`StoreClosed`."""
        self._closing = True
        writer, self._writer = self._writer, None
        if writer is not None and not writer.done():
            self._wake.set()
            _, late = await asyncio.wait({writer}, timeout=self.CLOSE_GRACE)
            if late:  # the database hangs: its callers hear it now, not when the driver gives up
                closed = StoreClosed("the store closed before this entry was known to be stored")
                for pending in [*self._writing, *self._waiting]:
                    if pending.stored is not None and not pending.stored.done():
                        pending.stored.set_exception(closed)
                writer.cancel()
                # PostgreSQL's query is cancelled at once; SQLite's ends within its busy timeout.
                await asyncio.wait({writer})
        self._writing, self._waiting = [], deque()
        thread, self._thread = self._thread, None
        if thread is not None:  # its connection is closed in the thread that used it, then it ends
            await asyncio.get_running_loop().run_in_executor(thread, self._writes.dispose)
            thread.shutdown()
        await self._close_pg()
        await self._engine.dispose()
        if self._autocommit is not self._engine:
            await self._autocommit.dispose()

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

    async def append(
        self, table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None = None
    ) -> None:
        pending = _pending(table_id, seq, entry, game)
        if self._closing:
            raise StoreClosed(f"the store is closed: entry {seq} of table {table_id} was not stored")
        if self.group:
            loop = asyncio.get_running_loop()
            if self._writer is None or self._writer.done() or self._writer.get_loop() is not loop:
                if self._writer is not None and self._writer.get_loop() is not loop:
                    self._waiting.clear()  # their callers' event loop is gone (a test's second app run)
                self._wake = asyncio.Event()
                self._writer = loop.create_task(self._write_groups(), name="nimmt store writer")
            pending.stored = loop.create_future()
            self._waiting.append(pending)
            self._wake.set()
            stored = await pending.stored
        else:
            stored = (await self._write([pending]))[0]
        if not stored:
            raise StoreConflict(f"entry {seq} of table {table_id} is already stored")

    async def _write_groups(self) -> None:
        """The writer: everything that arrived while the last transaction was written goes in the
        next one (no waiting for company: a lone append is written at once)."""
        while True:
            if not self._waiting:
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            group: list[_Pending] = []
            while self._waiting and len(group) < self.BATCH:
                pending = self._waiting.popleft()
                if pending.stored is not None and not pending.stored.done():  # not given up (cancelled)
                    group.append(pending)
            if not group:
                continue
            self._writing = group
            try:
                outcomes = await self._write(group)
            except Exception as error:  # nothing of the group is stored: each of its callers hears why
                for pending in group:
                    if pending.stored is not None and not pending.stored.done():
                        pending.stored.set_exception(error)
            else:
                for pending, stored in zip(group, outcomes, strict=True):
                    if pending.stored is not None and not pending.stored.done():
                        pending.stored.set_result(stored)
            self._writing = []

    async def _write(self, group: Sequence[_Pending]) -> list[bool]:
        """Write a group in one transaction; for each of its entries (in order), whether it was stored
        (False: its sequence number was taken, or its table is unknown)."""
        # Within a group a (table, seq) after the first can only be a conflict, whatever the first meets.
        first: dict[tuple[str, int], _Pending] = {}
        for pending in group:
            first.setdefault((pending.table_id, pending.seq), pending)
        # Rows go in sorted by (table, seq): two processes writing groups that share tables take
        # their locks in one order (no deadlock), and a table's entries still go in their order.
        candidates = sorted(first.values(), key=lambda pending: (pending.table_id, pending.seq))
        try:
            stored = await self._insert(candidates, look=False)
        except IntegrityError:  # only an entry of a table nobody made breaks a rule: look, and leave it out
            stored = await self._insert(candidates, look=True)
        return [first[pending.table_id, pending.seq] is pending and (pending.table_id, pending.seq) in stored
                for pending in group]

    async def _insert(self, candidates: list[_Pending], *, look: bool) -> set[tuple[str, int]]:
        """One transaction: the tables of the 0th entries, the entries (a taken number is skipped), the
        records; the (table, seq) of the entries stored. Without ``look``, an entry of an unknown table
        fails it all (its foreign key): tables are looked for only then, not on every append."""
        if self.dialect != "sqlite":
            if look or any(pending.seq == 0 or pending.game is not None for pending in candidates):
                async with self._engine.begin() as connection:
                    return await connection.run_sync(self._insert_in, candidates, look)
            # Entries alone (nearly every action) are one INSERT, atomic by itself: committed as it
            # returns, with no BEGIN and COMMIT round trips (each waits for a turn of a busy event loop).
            return await self._insert_entries(candidates)
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="nimmt-store-writer")
        return await asyncio.get_running_loop().run_in_executor(self._thread, self._insert_in_thread, candidates, look)

    async def _insert_entries(self, candidates: list[_Pending]) -> set[tuple[str, int]]:
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

    def _insert_in_thread(self, candidates: list[_Pending], look: bool) -> set[tuple[str, int]]:
        if not look and all(pending.seq != 0 and pending.game is None for pending in candidates):
            return self._insert_entries_sqlite(candidates)
        with self._writes.begin() as connection:
            return self._insert_in(connection, candidates, look)

    def _insert_entries_sqlite(self, candidates: list[_Pending]) -> set[tuple[str, int]]:
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

    def _insert_in(self, connection: Connection, candidates: list[_Pending], look: bool) -> set[tuple[str, int]]:
        created: set[str] = set()
        if new := [pending.table_id for pending in candidates if pending.seq == 0]:
            made = connection.execute(
                self._dialect_insert(_TABLES).on_conflict_do_nothing().returning(_TABLES.c.id),
                [{"id": table_id, "created_seq": 0} for table_id in new],
            )
            created = set(made.scalars())
        # A 0th entry goes in only with the table it made (a table that was there is a conflict).
        writes = [pending for pending in candidates if pending.seq != 0 or pending.table_id in created]
        if look and (asked := {pending.table_id for pending in writes} - created):
            # Tables are never deleted: one look holds for the rest of the transaction.
            found = connection.execute(select(_TABLES.c.id).where(_TABLES.c.id.in_(asked)))
            known = created | set(found.scalars())
            writes = [pending for pending in writes if pending.table_id in known]
        if not writes:
            return set()
        insert = self._dialect_insert(_JOURNAL).on_conflict_do_nothing()
        inserted = connection.execute(
            insert.returning(_JOURNAL.c.table_id, _JOURNAL.c.seq),
            [{"table_id": p.table_id, "seq": p.seq, "entry": p.entry} for p in writes],
        )
        stored = {(table_id, seq) for table_id, seq in inserted}
        # Each game's record as the last stored entry of the group left it (one row each: an
        # upsert may not touch one row twice in one statement).
        games = {(p.table_id, p.game): p for p in writes if p.game is not None and (p.table_id, p.seq) in stored}
        if games:
            upsert = self._dialect_insert(_GAMES)
            upsert = upsert.on_conflict_do_update(
                index_elements=[_GAMES.c.table_id, _GAMES.c.game],
                set_={"record": upsert.excluded.record, "finished": upsert.excluded.finished},
            )
            connection.execute(upsert, [
                {"table_id": p.table_id, "game": p.game, "record": p.record, "finished": p.finished}
                for p in sorted(games.values(), key=lambda pending: (pending.table_id, pending.game or 0))
            ])
        return stored

    def _dialect_insert(self, table: Table) -> SqliteInsert | PgInsert:
        # ON CONFLICT (DO NOTHING, DO UPDATE) is spelt alike on both, but only their own Insert has it.
        return sqlite_insert(table) if self.dialect == "sqlite" else pg_insert(table)

    async def journal(self, table_id: str, since: int = 0) -> list[dict[str, Any]] | None:
        if not _storable_id(table_id):
            return None
        since = max(since, 0)
        if self.dialect != "sqlite":
            pool = await self._pool()
            if since > 0:
                found = await pool.fetch(_PG_JOURNAL_SINCE, table_id, min(since, _LARGEST))
            else:
                found = await pool.fetch(_PG_JOURNAL, table_id)
            if not found:
                return None
            return [json.loads(row[1]) for row in found if row[0] >= since]
        seq = _JOURNAL.c.seq
        entries = select(seq, _JOURNAL.c.entry).where(_JOURNAL.c.table_id == table_id)
        query: Select[int, str] | CompoundSelect[int, str] = entries.order_by(seq)
        if since > 0:
            # One query, two index look-ups: entry 0 exists for every known table, so asking for it
            # too tells "unknown table" (no rows) from "nothing since" (entry 0 alone).
            query = union_all(entries.where(seq == 0), entries.where(seq >= min(since, _LARGEST))).order_by("seq")
        async with self._autocommit.connect() as connection:
            rows = (await connection.execute(query)).all()
        if not rows:
            return None
        return [json.loads(text) for number, text in rows if number >= since]

    async def game(self, table_id: str, game: int) -> GameRow | None:
        if not 0 <= game <= _LARGEST or not _storable_id(table_id):
            return None
        query = select(_GAMES.c.record, _GAMES.c.finished).where(_GAMES.c.table_id == table_id,
                                                                 _GAMES.c.game == game)
        async with self._autocommit.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else GameRow(table_id, game, row.record, row.finished)


def _storable_id(table_id: str) -> bool:
    """Whether a table id fits the column on both databases (PostgreSQL takes no NUL, and asyncpg
    no lone surrogate)."""
    if not 0 < len(table_id) <= _ID_LENGTH or "\x00" in table_id:
        return False
    try:
        table_id.encode()
    except UnicodeEncodeError:
        return False
    return True


def _pending(table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None) -> _Pending:
    """Check and encode an append in its caller, so that bad input is refused (ValueError or
    TypeError) on its own and never fails the other appends of the group it would be written in."""
    if not _storable_id(table_id):
        raise ValueError(f"a table id is 1 to {_ID_LENGTH} characters, without NUL: {table_id!r}")
    if not 0 <= seq <= _LARGEST:
        raise ValueError(f"a sequence number is from 0 to {_LARGEST}: {seq}")
    text = json.dumps(entry)
    if game is None:
        return _Pending(table_id, seq, text, None, None, False)
    if game.table_id != table_id:
        raise ValueError(f"the game row of table {game.table_id} came with an entry of table {table_id}")
    if not 0 <= game.game <= _LARGEST:
        raise ValueError(f"a game number is from 0 to {_LARGEST}: {game.game}")
    # No NaN: PostgreSQL's json refuses it.
    return _Pending(table_id, seq, text, game.game, _Encoded(json.dumps(game.record, allow_nan=False)),
                    bool(game.finished))


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
