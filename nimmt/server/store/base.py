"""The store's shared part: the interface, the schema, and the group writer both databases use.

A table is an append-only journal of accepted entries (table id, sequence number, entry JSON).
The journal is the truth: a table is rebuilt by replaying it through the rules core. Beside it,
each game's ``nimmt/1`` record is kept, written in the same transaction as the entry it comes
with, so a finished game can be downloaded without a replay.

Appends are committed in groups: one writer task gathers the appends that arrive while a
transaction is being written and writes them all in the next one (one fsync for many actions),
and each caller returns once its own entry is committed. How a group is written and how a journal
is read is each database's own: :mod:`.sqlite` and :mod:`.postgres`. The engines they use, and how
connections are made, are the :class:`~.database.Database`'s.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    delete,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from nimmt.core.errors import NimmtError

from .database import Database, Encoded

# Sequence and game numbers are 32-bit columns on PostgreSQL: a number outside them is no entry.
LARGEST = 2**31 - 1
ID_LENGTH = 64  # the table id's column


def probe_process() -> str:
    """This process's row of ``health_probe`` (asked each time: a forked worker has its own)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}"



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
        default; an empty list when ``since`` is past the last), or None for an unknown table."""
        ...

    async def game(self, table_id: str, game: int) -> GameRow | None: ...

    async def check_write(self) -> None:
        """Raise unless a write reaches the database now (one small row per process, committed)."""
        ...


# The schema at the newest migration (the contract test compares them), used through SQLAlchemy
# Core: no ORM objects, sessions or flushes on the way of an action.
SCHEMA = MetaData()
TABLES = Table(
    "tables", SCHEMA,
    Column("id", String(ID_LENGTH), primary_key=True),
    Column("created_seq", Integer, nullable=False),
)
JOURNAL = Table(
    "journal", SCHEMA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", ForeignKey("tables.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("entry", Text, nullable=False),
    UniqueConstraint("table_id", "seq"),  # its index also serves every look-up by table
)
GAMES = Table(
    "games", SCHEMA,
    Column("table_id", ForeignKey("tables.id"), primary_key=True),
    Column("game", Integer, primary_key=True),
    Column("record", JSON, nullable=False),
    Column("finished", Boolean, nullable=False),
)
HEALTH_PROBE = Table(  # one row per server process, written by each health check (check_write)
    "health_probe", SCHEMA,
    Column("process", String(80), primary_key=True),
    Column("at", Float, nullable=False),
    Column("n", BigInteger, nullable=False),
)


@dataclass(slots=True)
class Pending:
    """One append: checked and encoded, waiting for the transaction that writes it."""

    table_id: str
    seq: int
    entry: str  # JSON
    game: int | None
    record: Encoded | None
    finished: bool
    stored: asyncio.Future[bool] | None = field(default=None)  # True: stored; False: a conflict


class SqlStore:
    """:class:`Store` on SQLAlchemy's asyncio engine. ``SqlStore(database)`` makes the store of the
    :class:`~.database.Database`'s dialect: a :class:`~nimmt.server.store.sqlite.SqliteStore` or a
    :class:`~nimmt.server.store.postgres.PostgresStore`. Each writes a group (:meth:`_insert`) and
    reads a journal (:meth:`_entries`) its own way. Given a URL instead (``sqlite+aiosqlite:///file``,
    ``postgresql+asyncpg://user:password@host/db``), the store makes the database, and closes it with
    itself; a database given to it is its maker's to close.
    """

    # At most this many entries in one transaction: their INSERT stays one statement (SQLAlchemy
    # cuts at 1,000 rows, and SQLite's and PostgreSQL's bound parameters are 32,766 and 32,767).
    BATCH = 256
    CLOSE_GRACE = 10.0  # seconds close() lets the writer finish what is pending

    # Each database's store, as it names itself (``class SqliteStore(SqlStore, dialect="sqlite")``):
    # this module never imports its subclasses (the package imports them all).
    _DIALECTS: ClassVar[dict[str, type[SqlStore]]] = {}

    def __init_subclass__(cls, dialect: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if dialect is not None:
            SqlStore._DIALECTS[dialect] = cls

    def __new__(cls, database: Database | str) -> SqlStore:
        if cls is SqlStore:  # the store of the database's dialect
            dialect = database.dialect if isinstance(database, Database) else Database.dialect_of(database)
            return super().__new__(SqlStore._DIALECTS[dialect])
        return super().__new__(cls)

    _writes: Engine  # the engine write transactions are committed on

    def __init__(self, database: Database | str) -> None:
        self._owns_database = not isinstance(database, Database)
        self.database = database if isinstance(database, Database) else Database(database)
        self.url = self.database.url
        self._waiting: deque[Pending] = deque()
        self._writing: list[Pending] = []
        self._wake = asyncio.Event()  # made anew with each writer: an event belongs to one event loop
        self._writer: asyncio.Task[None] | None = None
        self._closing = False
        # Told of each group of entries the database refused (their number): /metrics counts them.
        self.on_refused_write: Callable[[int], None] | None = None

    @property
    def _engine(self) -> AsyncEngine:  # for transactions
        return self.database.engine

    @property
    def _autocommit(self) -> AsyncEngine:  # for single statements (may be the same engine)
        return self.database.autocommit

    @property
    def shown_url(self) -> str:
        """The URL without its password, for logs and messages."""
        return self.database.shown_url

    @classmethod
    def sqlite(cls, path: str | Path) -> Self:
        """The store of a SQLite file."""
        return cls(f"sqlite+aiosqlite:///{Path(path)}")

    async def start(self) -> None:
        """Bring the schema to the newest migration (a new database gets every table)."""
        from .. import migrations  # Alembic is imported only by a store that starts

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
        await self._let_go()
        if self._owns_database:
            await self.database.close()

    async def _let_go(self) -> None:
        """Close what the database's own write path holds (a thread, a pool)."""

    async def append(
        self, table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None = None
    ) -> None:
        pending = make_pending(table_id, seq, entry, game)
        if self._closing:
            raise StoreClosed(f"the store is closed: entry {seq} of table {table_id} was not stored")
        loop = asyncio.get_running_loop()
        if self._writer is None or self._writer.done() or self._writer.get_loop() is not loop:
            if self._writer is not None and self._writer.get_loop() is not loop:
                self._waiting.clear()  # their callers' event loop is gone (a test's second app run)
            self._wake = asyncio.Event()
            self._writer = loop.create_task(self._write_groups(), name="nimmt store writer")
        pending.stored = loop.create_future()
        self._waiting.append(pending)
        self._wake.set()
        if not await pending.stored:
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
            group: list[Pending] = []
            while self._waiting and len(group) < self.BATCH:
                pending = self._waiting.popleft()
                if pending.stored is not None and not pending.stored.done():  # not given up (cancelled)
                    group.append(pending)
            if not group:
                continue
            self._writing = group
            try:
                outcomes = await self.write(group)
            except Exception as error:  # nothing of the group is stored: each of its callers hears why
                if self.on_refused_write is not None:
                    self.on_refused_write(len(group))
                for pending in group:
                    if pending.stored is not None and not pending.stored.done():
                        pending.stored.set_exception(error)
            else:
                for pending, stored in zip(group, outcomes, strict=True):
                    if pending.stored is not None and not pending.stored.done():
                        pending.stored.set_result(stored)
            self._writing = []

    async def write(self, group: Sequence[Pending]) -> list[bool]:
        """Write a group in one transaction; for each of its entries (in order), whether it was stored
        (False: its sequence number was taken, or its table is unknown)."""
        # Within a group a (table, seq) after the first can only be a conflict, whatever the first meets.
        first: dict[tuple[str, int], Pending] = {}
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

    async def _insert(self, candidates: list[Pending], *, look: bool) -> set[tuple[str, int]]:
        """One transaction: the tables of the 0th entries, the entries (a taken number is skipped), the
        records; the (table, seq) of the entries stored. Without ``look``, an entry of an unknown table
        fails it all (its foreign key): tables are looked for only then, not on every append."""
        raise NotImplementedError

    async def journal(self, table_id: str, since: int = 0) -> list[dict[str, Any]] | None:
        if not storable_id(table_id):
            return None
        return await self._entries(table_id, max(since, 0))

    async def _entries(self, table_id: str, since: int) -> list[dict[str, Any]] | None:
        """:meth:`journal` of a table id that fits the column, from ``since`` (0 or more)."""
        raise NotImplementedError

    async def check_write(self) -> None:
        """A real write, committed: this process's row of ``health_probe`` written (its time and a
        count) and the transaction committed, so that it reaches the disk (SQLite's WAL, PostgreSQL's
        log, both synced at commit); rows of processes gone for a day are removed in it. Raises when
        the database refuses writes (a full disk, made read-only, a file it cannot write, a lock held
        too long). For the health check."""
        async with self._engine.begin() as connection:
            await connection.run_sync(self._probe_in)

    def _probe_in(self, connection: Connection) -> None:
        """:meth:`check_write`'s statements, on a connection whose transaction the caller commits."""
        now = time.time()
        upsert = self.database.insert(HEALTH_PROBE).values(process=probe_process(), at=now, n=1)
        upsert = upsert.on_conflict_do_update(index_elements=[HEALTH_PROBE.c.process],
                                              set_={"at": upsert.excluded.at, "n": HEALTH_PROBE.c.n + 1})
        connection.execute(upsert)
        connection.execute(delete(HEALTH_PROBE).where(HEALTH_PROBE.c.at < now - 86_400))

    def _insert_in(self, connection: Connection, candidates: list[Pending], look: bool) -> set[tuple[str, int]]:
        created: set[str] = set()
        if new := [pending.table_id for pending in candidates if pending.seq == 0]:
            made = connection.execute(
                self.database.insert(TABLES).on_conflict_do_nothing().returning(TABLES.c.id),
                [{"id": table_id, "created_seq": 0} for table_id in new],
            )
            created = set(made.scalars())
        # A 0th entry goes in only with the table it made (a table that was there is a conflict).
        writes = [pending for pending in candidates if pending.seq != 0 or pending.table_id in created]
        if look and (asked := {pending.table_id for pending in writes} - created):
            # Tables are never deleted: one look holds for the rest of the transaction.
            found = connection.execute(select(TABLES.c.id).where(TABLES.c.id.in_(asked)))
            known = created | set(found.scalars())
            writes = [pending for pending in writes if pending.table_id in known]
        if not writes:
            return set()
        insert = self.database.insert(JOURNAL).on_conflict_do_nothing()
        inserted = connection.execute(
            insert.returning(JOURNAL.c.table_id, JOURNAL.c.seq),
            [{"table_id": p.table_id, "seq": p.seq, "entry": p.entry} for p in writes],
        )
        stored = {(table_id, seq) for table_id, seq in inserted}
        # Each game's record as the last stored entry of the group left it (one row each: an
        # upsert may not touch one row twice in one statement).
        games = {(p.table_id, p.game): p for p in writes if p.game is not None and (p.table_id, p.seq) in stored}
        if games:
            upsert = self.database.insert(GAMES)
            upsert = upsert.on_conflict_do_update(
                index_elements=[GAMES.c.table_id, GAMES.c.game],
                set_={"record": upsert.excluded.record, "finished": upsert.excluded.finished},
            )
            connection.execute(upsert, [
                {"table_id": p.table_id, "game": p.game, "record": p.record, "finished": p.finished}
                for p in sorted(games.values(), key=lambda pending: (pending.table_id, pending.game or 0))
            ])
        return stored

    async def game(self, table_id: str, game: int) -> GameRow | None:
        if not 0 <= game <= LARGEST or not storable_id(table_id):
            return None
        query = select(GAMES.c.record, GAMES.c.finished).where(GAMES.c.table_id == table_id,
                                                                 GAMES.c.game == game)
        async with self._autocommit.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else GameRow(table_id, game, row.record, row.finished)


def storable_id(table_id: str) -> bool:
    """Whether a table id fits the column on both databases (PostgreSQL takes no NUL, and asyncpg
    no lone surrogate)."""
    if not 0 < len(table_id) <= ID_LENGTH or "\x00" in table_id:
        return False
    try:
        table_id.encode()
    except UnicodeEncodeError:
        return False
    return True


def make_pending(table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None) -> Pending:
    """Check and encode an append in its caller, so that bad input is refused (ValueError or
    TypeError) on its own and never fails the other appends of the group it would be written in."""
    if not storable_id(table_id):
        raise ValueError(f"a table id is 1 to {ID_LENGTH} characters, without NUL: {table_id!r}")
    if not 0 <= seq <= LARGEST:
        raise ValueError(f"a sequence number is from 0 to {LARGEST}: {seq}")
    text = json.dumps(entry)
    if game is None:
        return Pending(table_id, seq, text, None, None, False)
    if game.table_id != table_id:
        raise ValueError(f"the game row of table {game.table_id} came with an entry of table {table_id}")
    if not 0 <= game.game <= LARGEST:
        raise ValueError(f"a game number is from 0 to {LARGEST}: {game.game}")
    # No NaN: PostgreSQL's json refuses it.
    return Pending(table_id, seq, text, game.game, Encoded(json.dumps(game.record, allow_nan=False)),
                    bool(game.finished))
