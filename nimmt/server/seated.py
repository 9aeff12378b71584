"""Where each person sits: one row per person and table at which they hold a seat, so that the home
page and My games list a person's games in progress (``GET /api/me/tables``,
:mod:`nimmt.server.routes.playing`) without reading every table's journal.

A row holds the seat, the table's status (lobby, playing) and whether its clock is a turn-based one;
when the game ends the table's rows go (My games and the finished games read the kept games,
:mod:`nimmt.people`, never these rows; a rematch writes them again), and :meth:`SeatedTables.sweep`
removes, a bounded batch at a time, the rows no list shows any more (a game over written before, a
table not turn-based quiet for :data:`QUIET_FOR`); whose move it is and the time left are read from
the table itself when the list is asked for. :class:`SeatedRows` is a keeper of the tables (it hears
every change before the change's news goes out, which waits for its write, bounded): it writes a
table's rows when what they hold changes (a seat taken, a game started, over or played again), each
table's in the order of its changes, so a page that shows a game started or over finds it so on the
home page. A person deleted meanwhile gets no row (the rows go with them: ``ON DELETE CASCADE``). A
table from before these rows gets its rows at its next change.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal

from sqlalchemy import Boolean, Column, DateTime, ForeignKey, Integer, String, Table, delete, or_, select, tuple_
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from nimmt.people.aliases import resolved

from .public import PUBLIC_SCHEMA, REMEMBERED, PublicTables, turn_based

if TYPE_CHECKING:
    from .tables import Table as GameTable
    from .tables.changes import TableChanged

logger = logging.getLogger("nimmt.server")
Status = Literal["lobby", "playing", "over"]
QUIET_FOR = timedelta(days=7)  # a table not turn-based, unchanged this long, is no longer listed
LISTED = 20  # at most this many tables for one person
SWEPT = 1000  # rows one sweep removes at most

SEATED_TABLES = Table(
    "seated_tables", PUBLIC_SCHEMA,
    Column("player_id", String(32), ForeignKey("people_players.id", ondelete="CASCADE"), primary_key=True),
    Column("table_id", String(64), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True, index=True),
    Column("seat", Integer, nullable=False),
    Column("status", String(8), nullable=False),
    Column("turn_based", Boolean, nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True, slots=True)
class SeatedRow:
    table_id: str
    seat: int
    status: Status
    turn_based: bool
    changed_at: datetime


def seated_people(table: GameTable) -> dict[str, int]:
    """Each person's seat at the table (their first, should they hold two): seats with a player."""
    seats: dict[str, int] = {}
    for index, seat in enumerate(table.seats):
        if seat.player is not None and seat.token_hash is not None:
            seats.setdefault(seat.player, index)
    return seats


class SeatedTables:
    """The ``seated_tables`` rows, on the lobby's engine (the store's database)."""

    def __init__(self, public: PublicTables) -> None:
        self._engine: AsyncEngine = public.engine
        self.database, self.clock = public.database, public.clock

    async def note(self, table_id: str, seats: dict[str, int], status: Status, turn_based: bool) -> None:
        """Write the table's rows: one per person seated (a person deleted meanwhile gets none; a
        player merged into another one by a code, :mod:`nimmt.people.aliases`: the row is that one's)."""
        missing = [player for player, seat in seats.items()
                   if not await self._write(player, table_id, seat, status, turn_based)]
        if not missing:
            return
        async with self._engine.connect() as connection:
            now_as = await resolved(connection, missing)
        for old in missing:
            player = now_as.get(old)
            if player is None:
                logger.info("table %s: a seat's player is no longer known; no row kept", table_id)
            elif player not in seats:  # the person sits here under their merged player's id only
                await self._write(player, table_id, seats[old], status, turn_based)

    async def _write(self, player: str, table_id: str, seat: int, status: Status, turn_based: bool) -> bool:
        """One person's row; False when no such player is kept (deleted, merged, or a table from
        another site's store)."""
        values = {"player_id": player, "table_id": table_id, "seat": seat, "status": status,
                  "turn_based": turn_based, "changed_at": self.clock()}
        insert = self.database.insert(SEATED_TABLES).values(values)
        changed = {name: insert.excluded[name] for name in ("seat", "status", "turn_based", "changed_at")}
        try:
            async with self._engine.begin() as connection:
                await connection.execute(insert.on_conflict_do_update(
                    index_elements=["player_id", "table_id"], set_=changed))
        except IntegrityError:
            return False
        return True

    async def of_player(self, player_id: str, limit: int = LISTED) -> list[SeatedRow]:
        """The person's tables whose game is not over, most recently changed first: a turn-based
        table while it is not over, any other one for :data:`QUIET_FOR` after its last change."""
        columns = SEATED_TABLES.c
        query = (select(columns.table_id, columns.seat, columns.status, columns.turn_based, columns.changed_at)
                 .where(columns.player_id == player_id, columns.status != "over")
                 .order_by(columns.changed_at.desc(), columns.table_id).limit(max(0, min(limit, LISTED)) * 3))
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        quiet = self.clock() - QUIET_FOR
        kept = [SeatedRow(row.table_id, row.seat, row.status, row.turn_based, _utc(row.changed_at))
                for row in rows if row.turn_based or _utc(row.changed_at) > quiet]
        return kept[:limit]

    async def export(self, player_id: str) -> list[dict[str, object]]:
        """Every row of the person's (their data: ``GET /api/me/export``), oldest change first."""
        columns = SEATED_TABLES.c
        query = (select(columns.table_id, columns.seat, columns.status, columns.changed_at)
                 .where(columns.player_id == player_id).order_by(columns.changed_at, columns.table_id))
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [{"table_id": row.table_id, "seat": row.seat, "status": row.status,
                 "changed_at": _utc(row.changed_at).isoformat()} for row in rows]

    async def drop(self, table_id: str) -> None:
        """The table's game is over: its rows go (every person's)."""
        async with self._engine.begin() as connection:
            await connection.execute(delete(SEATED_TABLES).where(SEATED_TABLES.c.table_id == table_id))

    async def sweep(self, most: int = SWEPT) -> int:
        """Remove at most ``most`` rows that no list shows any more: a game over (rows written before
        the rows of a game over went at its end), a table not turn-based unchanged for
        :data:`QUIET_FOR`. How many went (the next sweep takes the rest)."""
        columns = SEATED_TABLES.c
        old = or_(columns.status == "over",
                  (columns.turn_based.is_(False)) & (columns.changed_at < self.clock() - QUIET_FOR))
        async with self._engine.begin() as connection:
            keys = (await connection.execute(select(columns.player_id, columns.table_id).where(old)
                                             .limit(max(0, most)))).all()
            if keys:
                await connection.execute(delete(SEATED_TABLES).where(
                    tuple_(columns.player_id, columns.table_id).in_([tuple(key) for key in keys])))
        return len(keys)

    async def forget(self, player_id: str, table_ids: Sequence[str]) -> None:
        """Drop rows that no longer hold (the person's seat is gone from the table)."""
        if not table_ids:
            return
        columns = SEATED_TABLES.c
        async with self._engine.begin() as connection:
            await connection.execute(delete(SEATED_TABLES).where(columns.player_id == player_id,
                                                                 columns.table_id.in_(list(table_ids))))


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class SeatedRows:
    """What this process writes of its tables' seats: a table's rows when who sits there, its status
    or its clock changed since this process last wrote them (a keeper of the table service: the
    write it returns is awaited, bounded, before the change's news goes out)."""

    def __init__(self, rows: SeatedTables) -> None:
        self.rows = rows
        self.written: dict[str, tuple[object, ...]] = {}  # each table's rows as last written by this process
        self.writes: dict[str, asyncio.Task[None]] = {}  # each table's latest write

    def note(self, change: TableChanged) -> asyncio.Task[None] | None:
        table = change.table
        seats = seated_people(table)
        if not seats:
            return None
        status: Status = table.status
        clocked = turn_based(table.options.clock)
        shown = (tuple(sorted(seats.items())), status, clocked)
        if self.written.get(table.id) == shown:
            return self.writes.get(table.id)  # an earlier write still under way: the news waits for it too
        if len(self.written) > REMEMBERED:
            self.written.clear()  # writing a row again is harmless
        self.written[table.id] = shown
        before = self.writes.get(table.id)
        task = self.writes[table.id] = asyncio.create_task(
            self._write(table.id, seats, status, clocked, before))
        task.add_done_callback(lambda done: self.writes.pop(table.id, None) if self.writes.get(table.id) is done
                               else None)
        return task

    async def _write(self, table_id: str, seats: dict[str, int], status: Status, turn_based: bool,
                     before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await asyncio.wait([before])
        try:
            if status == "over":  # the game is over: nothing lists it any more (a rematch writes them again)
                await self.rows.drop(table_id)
            else:
                await self.rows.note(table_id, seats, status, turn_based)
        except Exception:
            self.written.pop(table_id, None)  # the next change writes again
            logger.exception("the seats' rows of table %s were not written", table_id)

    async def settled(self) -> None:
        """Wait for the writes under way (tests, closing)."""
        while self.writes:
            await asyncio.wait(list(self.writes.values()))
