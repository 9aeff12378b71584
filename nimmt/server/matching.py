"""Quick match's turns: one quick match at a time per language, over every process, decided in the store.

Two strangers asking at the same moment on two processes would each read an empty lobby and each
open a table. So quick match reads the lobby and takes its seat (or opens its table, and writes its
row) during a **turn** that the store grants to one asker at a time per language: a transaction's
advisory lock on PostgreSQL (released when the transaction ends, or its connection dies), a row of
``quick_turns`` on SQLite (taken by one upsert, given up when done, and lapsed after
:data:`LEASE` seconds should its process die). The next asker in that language reads the lobby
after the first one's row is written, and sits at that table when it has room.

The askers of one process queue for their turn in the process first (an ``asyncio.Lock``), so they
never hold more than one of the lobby's database connections while they wait; that lock keeps
nothing: the store decides.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import Column, Float, String, Table, delete, select, text

from nimmt.core.errors import NimmtError

from .public import PUBLIC_SCHEMA, PublicTables

WAIT = 20.0  # seconds an asker waits at most for its turn (then: try again)
LEASE = 30.0  # seconds a SQLite turn lasts at most, should its process die in it
POLL = 0.02  # seconds between two tries of a SQLite turn held by another process
SPACE = 0x6E696D74  # "nimt": the advisory locks' first key (the second is the language's)

QUICK_TURNS = Table(
    "quick_turns", PUBLIC_SCHEMA,
    Column("language", String(8), primary_key=True),
    Column("holder", String(32), nullable=False),
    Column("until", Float, nullable=False),  # wall clock, seconds
)


class NoTurn(NimmtError):
    """The turn did not come within :data:`WAIT` seconds (the store is busy or away)."""


def language_key(language: str) -> int:
    """The language as a signed 32-bit key of PostgreSQL's two-key advisory locks."""
    return zlib.crc32(language.encode("utf-8")) - (1 << 31)


class QuickTurns:
    """Quick match's turns on the lobby's database (see the module)."""

    def __init__(self, public: PublicTables) -> None:
        self.public = public
        self._here = asyncio.Lock()

    @asynccontextmanager
    async def turn(self, language: str) -> AsyncIterator[None]:
        """Hold the language's turn while the body runs; NoTurn when it does not come in time."""
        try:
            await asyncio.wait_for(self._here.acquire(), WAIT)
        except TimeoutError:
            raise NoTurn(language) from None
        try:
            if self.public.dialect == "postgresql":
                async with self._advisory(language):
                    yield
            else:
                async with self._leased(language):
                    yield
        finally:
            self._here.release()

    @asynccontextmanager
    async def _advisory(self, language: str) -> AsyncIterator[None]:
        async with self.public.engine.connect() as connection, connection.begin():
            await connection.execute(text(f"SET LOCAL lock_timeout = '{int(WAIT * 1000)}ms'"))
            try:
                await connection.execute(text("SELECT pg_advisory_xact_lock(:space, :key)"),
                                         {"space": SPACE, "key": language_key(language)})
            except Exception as error:  # lock_timeout, or the database went away
                raise NoTurn(language) from error
            yield  # the lock goes with the transaction's end

    @asynccontextmanager
    async def _leased(self, language: str) -> AsyncIterator[None]:
        holder = secrets.token_hex(16)
        deadline = time.monotonic() + WAIT
        while not await self._take(language, holder):
            if time.monotonic() > deadline:
                raise NoTurn(language)
            await asyncio.sleep(POLL)
        try:
            yield
        finally:
            async with self.public.engine.begin() as connection:
                await connection.execute(delete(QUICK_TURNS).where(QUICK_TURNS.c.language == language,
                                                                   QUICK_TURNS.c.holder == holder))

    async def _take(self, language: str, holder: str) -> bool:
        """One try: the turn is this holder's if nobody holds it or its holder's lease has lapsed."""
        now = time.time()
        insert = self.public.database.insert(QUICK_TURNS).values(language=language, holder=holder, until=now + LEASE)
        take = insert.on_conflict_do_update(index_elements=["language"], set_={
            "holder": insert.excluded.holder, "until": insert.excluded.until}, where=QUICK_TURNS.c.until < now)
        async with self.public.engine.begin() as connection:
            await connection.execute(take)
            held = (await connection.execute(select(QUICK_TURNS.c.holder).where(
                QUICK_TURNS.c.language == language))).scalar()
        return held == holder
