"""Which process makes a game's review: one row per game in ``review_claims``, so that in a cluster
(several ``nimmt serve`` on one database) a game is reviewed by one process, not by each that holds
its table (``docs/deploy/cost.md``; :mod:`nimmt.server.tables.reviews`).

A row is a lease: its ``holder`` (a process's random mark) reviews the game until ``until`` (wall
clock seconds), renewing it while it works; a lapsed lease may be taken by another process (its
holder died or stopped: the review is made there instead, never lost). ``ended`` says that another
process saw the game end (its holder may not have: it then finishes the review from the stored
record); ``done`` that the review is stored: the row is never taken again, and is forgotten a day later.
The same statements on SQLite and PostgreSQL (ON CONFLICT is spelt alike), as the quick match's turns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlalchemy import (
    Boolean,
    Column,
    ColumnElement,
    Float,
    Index,
    Integer,
    String,
    Table,
    and_,
    delete,
    or_,
    select,
    update,
)

from .base import ID_LENGTH, SCHEMA
from .database import Database

CLAIM_SECONDS = 30.0  # a lease not renewed for this long may be taken by another process
FORGET_AFTER = 86400.0  # rows done (or lapsed) this long ago are deleted

REVIEW_CLAIMS = Table(
    "review_claims", SCHEMA,
    Column("table_id", String(ID_LENGTH), primary_key=True),
    Column("game", Integer, primary_key=True),
    Column("holder", String(32), nullable=False),
    Column("until", Float, nullable=False),
    Column("ended", Boolean, nullable=False),
    Column("done", Boolean, nullable=False),
    Index("ix_review_claims_holder", "holder"),
)

Key = tuple[str, int]  # table id, game


@dataclass(frozen=True, slots=True)
class Claim:
    """A game's row after a try to take it: who holds it, and what is known of the game."""

    holder: str
    ended: bool
    done: bool

    def ours(self, holder: str) -> bool:
        return self.holder == holder and not self.done


class ReviewClaims:
    """The ``review_claims`` rows on the store's database (its engine for single statements)."""

    def __init__(self, database: Database, clock: Callable[[], float] = time.time) -> None:
        self.database = database
        self.clock = clock

    async def take(self, key: Key, holder: str, *, ended: bool = False) -> Claim:
        """Take the game's lease for ``holder`` (or keep it): it is taken when nobody holds it, when its
        lease has lapsed, or when it is ``holder``'s already, never once the review is done. ``ended``:
        the game is over (said in the row for whoever holds it). The row as it is after the try."""
        now = self.clock()
        columns = REVIEW_CLAIMS.c
        insert = self.database.insert(REVIEW_CLAIMS).values(
            table_id=key[0], game=key[1], holder=holder, until=now + CLAIM_SECONDS, ended=ended, done=False)
        take = insert.on_conflict_do_update(
            index_elements=["table_id", "game"],
            set_={"holder": insert.excluded.holder, "until": insert.excluded.until,
                  "ended": or_(columns.ended, insert.excluded.ended)},
            where=and_(~columns.done, or_(columns.until < now, columns.holder == insert.excluded.holder)))
        async with self.database.engine.begin() as connection:
            await connection.execute(take)
            if ended:  # said even when another process holds it: it finishes from the stored record
                await connection.execute(update(REVIEW_CLAIMS).where(*self._where(key)).values(ended=True))
            row = (await connection.execute(
                select(columns.holder, columns.ended, columns.done).where(*self._where(key)))).one()
        return Claim(row.holder, row.ended, row.done)

    async def renew(self, holder: str) -> list[Key]:
        """Renew every lease ``holder`` holds; the games among them another process saw end."""
        columns = REVIEW_CLAIMS.c
        async with self.database.engine.begin() as connection:
            await connection.execute(update(REVIEW_CLAIMS).where(columns.holder == holder, ~columns.done)
                                     .values(until=self.clock() + CLAIM_SECONDS))
            rows = (await connection.execute(select(columns.table_id, columns.game).where(
                columns.holder == holder, columns.ended, ~columns.done))).all()
        return [(row.table_id, row.game) for row in rows]

    async def done(self, key: Key) -> None:
        """The game's review is stored: nobody takes it again."""
        async with self.database.engine.begin() as connection:
            await connection.execute(update(REVIEW_CLAIMS).where(*self._where(key))
                                     .values(done=True, until=self.clock()))

    async def release(self, holder: str, keys: Iterable[Key] | None = None) -> None:
        """``holder`` lets go of the leases of ``keys`` (None: all it holds) whose review is not done:
        another process may take them at once."""
        columns = REVIEW_CLAIMS.c
        async with self.database.engine.begin() as connection:
            if keys is None:
                await connection.execute(delete(REVIEW_CLAIMS).where(columns.holder == holder, ~columns.done))
                return
            for key in keys:
                await connection.execute(delete(REVIEW_CLAIMS).where(
                    *self._where(key), columns.holder == holder, ~columns.done))

    async def forget(self) -> int:
        """Delete the rows done, or lapsed, :data:`FORGET_AFTER` ago; how many."""
        async with self.database.engine.begin() as connection:
            result = await connection.execute(delete(REVIEW_CLAIMS).where(
                REVIEW_CLAIMS.c.until < self.clock() - FORGET_AFTER))
        return int(result.rowcount or 0)

    @staticmethod
    def _where(key: Key) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
        return REVIEW_CLAIMS.c.table_id == key[0], REVIEW_CLAIMS.c.game == key[1]
