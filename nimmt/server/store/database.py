"""The one owner of nimmt's database: its engines, its dialect, and how connections to it are made.

Everything nimmt keeps lives in one database, SQLite (one file) or PostgreSQL (several server
processes): the tables' journals (:mod:`nimmt.server.store`), the lobby's public tables, the clock
rows and quick match's turns (:mod:`nimmt.server.public`, ``clocked.py``, ``matching.py``), and
the people part (:mod:`nimmt.people.store` and its parts). A :class:`Database` is made once from
the URL and handed to each of them: none opens an engine of its own or asks which database it is on
beyond :attr:`Database.dialect` and :meth:`Database.insert`. Whoever makes a ``Database`` closes it
(the server's journal store, which the app starts first and closes last).

One set of connection settings, on every connection:

- **SQLite**: WAL (readers never wait for the writer), ``synchronous=FULL`` (an acknowledged action
  survives a power cut), foreign keys enforced, and a writer that meets another's lock waits for it
  up to :data:`SQLITE_BUSY` seconds (a ``?timeout=`` in the URL wins). Write transactions that
  must not hold SQLite's one write lock across turns of a busy event loop (the journal's groups,
  the counts) run whole in a :class:`PlainThread`: a thread of their own on the plain driver.
- **PostgreSQL**: one pool of :data:`PG_POOL` connections kept and :data:`PG_OVERFLOW` more at peaks,
  each pinged before use (a connection a restart closed is noticed first), beside a small
  autocommit engine for single reads and asyncpg's own pool for the journal's two hot statements
  (:meth:`Database.asyncpg`; a connection the server ended is noticed there too, without a ping:
  :func:`hot_fetch`): at most 39 connections a process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, Protocol, Self, TypeVar

from sqlalchemy import Engine, Table, create_engine, event
from sqlalchemy.dialects.postgresql import Insert as PgInsert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import Insert as SqliteInsert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

Dialect = Literal["sqlite", "postgresql"]
T = TypeVar("T")

SQLITE_BUSY = 30.0  # seconds a SQLite connection waits for another's write lock before it fails
# One pool for every store, as large as the ones it replaced together (so no store waits for more
# than it did): SQLite 15 kept and 30 more at peaks, PostgreSQL 10 and 14. On PostgreSQL the
# autocommit engine reads game records alone (the journal's reads go through asyncpg): 2 and 3.
# A process holds at most 24 + 5 + 10 connections to PostgreSQL (docs/deploy, "The database").
SQLITE_POOL, SQLITE_OVERFLOW = 15, 30
PG_POOL, PG_OVERFLOW = 10, 14
PG_AUTOCOMMIT_POOL, PG_AUTOCOMMIT_OVERFLOW = 2, 3
PG_HOT_CONNECTIONS = 10  # asyncpg's pool for the journal's hot statements, at most
PG_CONNECT_TIMEOUT = 10.0  # seconds to open one (PostgreSQL down: the action fails with server_error)


class Encoded(str):
    """A JSON value already turned into text by its caller (see :func:`json_text`)."""

    __slots__ = ()


def json_text(value: Any) -> str:
    # The engines' JSON serializer: a game record arrives encoded (and checked) by the caller of the
    # journal's append, so that a record that cannot be stored fails its own append, not its group.
    return value if isinstance(value, Encoded) else json.dumps(value)


def async_url(url: str) -> str:
    """The URL with the asyncio driver nimmt uses when it names none (``postgres://`` and
    ``postgresql://`` take asyncpg, ``sqlite://`` aiosqlite); any other URL as it is.

    >>> async_url("postgres://nimmt:pw@db/nimmt")
    'postgresql+asyncpg://nimmt:pw@db/nimmt'
    >>> async_url("sqlite:///games.sqlite3")
    'sqlite+aiosqlite:///games.sqlite3'
    """
    scheme, separator, rest = url.partition("://")
    driver = {"postgres": "postgresql+asyncpg", "postgresql": "postgresql+asyncpg", "sqlite": "sqlite+aiosqlite"}
    return f"{driver[scheme]}://{rest}" if separator and scheme in driver else url


def sqlite_pragmas(connection: Any, _record: Any) -> None:
    """The settings of every SQLite connection (a ``connect`` event's listener)."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_args(url: URL) -> dict[str, Any]:
    return {} if "timeout" in url.query else {"timeout": SQLITE_BUSY}


class HotPool(Protocol):
    """What the journal uses of an ``asyncpg.Pool`` (asyncpg ships no type information)."""

    async def acquire(self) -> Any: ...

    async def release(self, connection: Any) -> None: ...

    async def close(self) -> None: ...

    def terminate(self) -> None: ...


async def hot_fetch(pool: HotPool, query: str, *args: Any) -> list[Any]:
    """``pool.fetch(query, *args)`` on a connection the server has not ended. asyncpg's pool hands
    out any connection it has not seen close, and on a busy event loop a connection the server has
    ended (a restart, a session cut: its FATAL, then its close) may not have been read yet: the
    statement then failed ("connection was closed in the middle of operation", or, the FATAL read
    but not the close, "cannot switch to state 12"). SQLAlchemy's engines ping first; this looks,
    without a round trip, whether the idle connection has anything to read (an idle connection is
    told nothing but its end) and takes another one if so."""
    for _ in range(PG_HOT_CONNECTIONS + 1):
        connection = await pool.acquire()
        try:
            if not _ended(connection):
                return list(await connection.fetch(query, *args))
            connection.terminate()  # the pool opens a new one in its place
        finally:
            await pool.release(connection)
    raise asyncpg_module().InterfaceError("every connection of the pool was ended by the server")


def _ended(connection: Any) -> bool:
    """Whether an idle asyncpg connection has been ended by the server, read or not yet."""
    transport = getattr(connection, "_transport", None)
    if connection.is_closed() or transport is None or transport.is_closing():
        return True
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    readable, _writable, _failed = select.select([sock.fileno()], [], [], 0)
    return bool(readable)


def asyncpg_module() -> Any:
    import asyncpg  # type: ignore[import-untyped]  # imported on PostgreSQL only

    return asyncpg


async def _as_it_was(_connection: Any) -> None:
    """Nothing to reset when a connection goes back to asyncpg's pool: the hot statements change no
    session state, and asyncpg's default reset would cost a round trip (four statements) each time."""


class PlainThread:
    """One thread of its own with a plain-driver (synchronous) engine on SQLite, where a write
    transaction runs whole: a single hand-off, and SQLite's write lock held for the statements
    alone, never across turns of a busy event loop (as through aiosqlite, one hand-off a step)."""

    def __init__(self, engine: Engine, name: str) -> None:
        self.engine = engine
        self.name = name
        self._thread: ThreadPoolExecutor | None = None

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in the thread (made the first time it is needed)."""
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix=self.name)
        return await asyncio.get_running_loop().run_in_executor(self._thread, work, *args)

    async def close(self) -> None:
        """Close the engine's connections in the thread that used them, then end the thread (it is
        made again if the thread is needed after)."""
        thread, self._thread = self._thread, None
        if thread is not None:
            await asyncio.get_running_loop().run_in_executor(thread, self.engine.dispose)
            thread.shutdown()


class Database:
    """The database at ``url`` (``sqlite+aiosqlite:///file``, ``postgresql+asyncpg://user:pw@host/db``,
    or the same without the driver): its engines, made here with the module's settings.

    :attr:`engine` is for transactions; :attr:`autocommit` for single statements (on PostgreSQL an
    engine without BEGIN and COMMIT around them, one round trip instead of three; on SQLite the same
    engine, whose driver begins no transaction for a read anyway). Closing disposes every connection;
    a closed database may be used again (its connections are opened anew)."""

    def __init__(self, url: str) -> None:
        self.url = async_url(url)
        parsed = make_url(self.url)
        self.dialect: Dialect = self.dialect_of(self.url)
        self._threads: weakref.WeakSet[PlainThread] = weakref.WeakSet()
        if self.dialect == "sqlite":
            self.engine: AsyncEngine = create_async_engine(
                self.url, json_serializer=json_text, pool_size=SQLITE_POOL, max_overflow=SQLITE_OVERFLOW,
                connect_args=_sqlite_args(parsed))
            event.listen(self.engine.sync_engine, "connect", sqlite_pragmas)
            self.autocommit: AsyncEngine = self.engine
        else:
            self.engine = create_async_engine(self.url, json_serializer=json_text, pool_pre_ping=True,
                                              pool_size=PG_POOL, max_overflow=PG_OVERFLOW)
            self.autocommit = create_async_engine(self.url, json_serializer=json_text, pool_pre_ping=True,
                                                  isolation_level="AUTOCOMMIT", pool_size=PG_AUTOCOMMIT_POOL,
                                                  max_overflow=PG_AUTOCOMMIT_OVERFLOW)
        # PostgreSQL's hot path: asyncpg's own pool, made in the event loop that first needs it.
        self._pg: HotPool | None = None
        self._pg_loop: asyncio.AbstractEventLoop | None = None
        self._pg_made: asyncio.Task[HotPool] | None = None

    @staticmethod
    def dialect_of(url: str) -> Dialect:
        """``sqlite`` for a SQLite URL, else ``postgresql`` (the one other database nimmt runs on)."""
        return "sqlite" if make_url(async_url(url)).get_backend_name() == "sqlite" else "postgresql"

    @classmethod
    def sqlite(cls, path: str | Path) -> Self:
        """The database of a SQLite file."""
        return cls(f"sqlite+aiosqlite:///{Path(path)}")

    @property
    def shown_url(self) -> str:
        """The URL without its password, for logs and messages."""
        return make_url(self.url).render_as_string(hide_password=True)

    def insert(self, table: Table) -> SqliteInsert | PgInsert:
        """An INSERT of this database's dialect: ON CONFLICT (DO NOTHING, DO UPDATE) is spelt alike on
        both, but only their own ``Insert`` has it."""
        return sqlite_insert(table) if self.dialect == "sqlite" else pg_insert(table)

    def plain_thread(self, name: str) -> PlainThread:
        """SQLite: a :class:`PlainThread` on a plain-driver engine with this database's settings.
        Its user closes it (and :meth:`close` does, if its user has not)."""
        if self.dialect != "sqlite":
            raise ValueError("a plain thread is SQLite's way; PostgreSQL writes through its pools")
        url = make_url(self.url)
        engine = create_engine(url.set(drivername="sqlite"), json_serializer=json_text,
                               connect_args=_sqlite_args(url))
        event.listen(engine, "connect", sqlite_pragmas)
        thread = PlainThread(engine, name)
        self._threads.add(thread)
        return thread

    async def asyncpg(self) -> HotPool:
        """PostgreSQL: asyncpg's pool for this event loop (a database may outlive a loop: a test's
        second app run), at most :data:`PG_HOT_CONNECTIONS`, none opened before one is needed."""
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

    async def _make_pool(self) -> HotPool:
        _args, options = self.engine.dialect.create_connect_args(make_url(self.url))
        pool: HotPool = await asyncpg_module().create_pool(
            min_size=0, max_size=PG_HOT_CONNECTIONS, reset=_as_it_was, timeout=PG_CONNECT_TIMEOUT,
            max_inactive_connection_lifetime=300, **options)
        return pool

    async def close_asyncpg(self) -> None:
        """Close asyncpg's pool: politely, then at once (a query stuck behind a lock must not hold
        closing up)."""
        made, self._pg_made, self._pg, self._pg_loop = self._pg_made, None, None, None
        if made is None or made.get_loop() is not asyncio.get_running_loop():
            return  # none, or its loop is gone with its connections
        if not made.done():
            made.cancel()
        with contextlib.suppress(BaseException):
            pool = await made
            try:
                await asyncio.wait_for(pool.close(), 2.0)
            except BaseException:
                pool.terminate()

    async def close(self) -> None:
        """Let every connection go: the plain threads', asyncpg's, then the engines' pools."""
        for thread in list(self._threads):
            await thread.close()
        await self.close_asyncpg()
        await self.engine.dispose()
        if self.autocommit is not self.engine:
            await self.autocommit.dispose()
