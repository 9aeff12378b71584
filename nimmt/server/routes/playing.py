"""A person's games in progress, for the home page and My games (``GET /api/me/tables``): the
tables at which they hold a seat and whose game is not over, whose move it is at each, and the
time left where there is a clock; the tables that await this person first.

Which tables: the rows :mod:`nimmt.server.seated` keeps per person. What each shows is read from
the table itself: this process's copy when it holds the table (caught up with the store), else a
fold of its journal, read from the store and never loaded into this process (reading the list
wakes no bot and starts no clock).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection
from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from nimmt.core import Phase
from nimmt.people.store import PeopleStore

from ..journal import JournalError
from ..seated import SeatedRow, SeatedTables
from ..tables import ActionError, Table, TableService
from ..tables.clock import clock_left
from .common import Service
from .people import Me, People, people_errors

router = APIRouter(tags=["people"])
logger = logging.getLogger("nimmt.server")


class PlayingOut(BaseModel):
    table_id: str
    url: str = Field(description="the table's page (this person's other devices take their seat there)")
    seat: int
    status: Literal["lobby", "playing"]
    your_move: bool = Field(description="the table awaits this person's decision")
    asked: Literal["card", "row"] | None = Field(description="what the table awaits of this person, if anything")
    waiting_for: list[str] = Field(description="the other people whose decision the table awaits (their names)")
    clock: int | None = Field(description="seconds each decision may take (null: no clock)")
    clock_left: float | None = Field(
        description="seconds left: on this person's clock when it is their move, else on the nearest of the "
        "clocks the table awaits (null: no clock running)")
    bot_plays: bool = Field(description="a bot plays this person's seat until they are back at the table")
    others: list[str] = Field(description="the names at the other seats, in seat order (bots' too)")
    group: str | None = Field(description="the name of the person's group the table plays for")
    round: int
    bullheads: int = Field(description="this person's bullheads so far in the game")
    seats: int
    taken: int


class PlayingListOut(BaseModel):
    tables: list[PlayingOut]


def seat_of(table: Table, player_ids: Collection[str]) -> int | None:
    """The first seat held by one of these ids (a person's player, and the players merged into it:
    a table's journal keeps the id a seat was taken with), or None."""
    return next((index for index, seat in enumerate(table.seats)
                 if seat.player in player_ids and seat.token_hash is not None), None)


async def answering(people: PeopleStore, table: Table, player_id: str) -> str:
    """The id the person holds their seat at this table with: their own, or that of a player merged
    into theirs by a one-time code (:mod:`nimmt.people.aliases`); their own when they hold none."""
    if seat_of(table, (player_id,)) is not None:
        return player_id
    seat = seat_of(table, await people.aliases.answers_to(player_id))
    player = None if seat is None else table.seats[seat].player
    return player_id if player is None else player


def playing_of(table: Table, seat: int, group: str | None = None) -> PlayingOut | None:
    """What the list shows of one table from ``seat``; None when the game is over (or the seat is no
    longer the person's)."""
    status = table.status
    if status == "over" or not 0 <= seat < len(table.seats) or table.seats[seat].token_hash is None:
        return None
    mine = table.seats[seat]
    waiting: tuple[int, ...] = ()
    asked: Literal["card", "row"] | None = None
    round_, bullheads = 0, 0
    if table.recorder is not None:
        state = table.recorder.state
        waiting = state.waiting_for
        round_ = state.round
        bullheads = state.totals[seat] + (state.penalties[seat] if state.penalties else 0)
        if state.phase is Phase.CHOOSE_ROW:
            asked = "row"
        elif state.phase is Phase.CHOOSE_CARDS:
            asked = "card"
    people = [index for index in waiting if table.seats[index].bot is None and table.seats[index].token_hash]
    your_move = seat in people
    others = [index for index in people if index != seat]
    if your_move:
        left = clock_left(table, seat)
    else:
        lefts = [value for index in others if (value := clock_left(table, index)) is not None]
        left = min(lefts, default=None)
    return PlayingOut(
        table_id=table.id, url=f"/t/{table.id}", seat=seat, status=status, your_move=your_move,
        asked=asked if your_move else None, waiting_for=[table.seats[index].name or "" for index in others],
        clock=table.options.clock, clock_left=left, bot_plays=mine.bot is not None,
        others=[other.name or "" for index, other in enumerate(table.seats) if index != seat and other.taken],
        group=group, round=round_, bullheads=bullheads, seats=len(table.seats),
        taken=sum(other.taken for other in table.seats))


async def read_table(service: TableService, table_id: str) -> Table | None:
    """The table as it is now: this process's copy (caught up), else the fold of its stored journal."""
    if table_id in service.tables:
        return await service.get(table_id)
    entries = await service.store.journal(table_id)
    if not entries:
        return None
    try:  # a few ms a game played (4 players: some 4 ms a game at a load of 12), off the event loop
        return await asyncio.to_thread(Table.replay, table_id, entries)
    except (JournalError, ActionError, ValueError, TypeError) as error:  # a damaged journal: said, and left out
        logger.error("table %s cannot be read back from its journal: %s", table_id, error)
        return None


def order(shown: list[tuple[PlayingOut, SeatedRow]]) -> list[PlayingOut]:
    """The tables that await this person first (the least time left first), then the others, most
    recently changed first."""
    def key(item: tuple[PlayingOut, SeatedRow]) -> tuple[bool, float, float]:
        out, row = item
        left = out.clock_left if out.your_move and out.clock_left is not None else float("inf")
        return (not out.your_move, left, -row.changed_at.timestamp())
    return [out for out, _row in sorted(shown, key=key)]


@router.get("/api/me/tables", response_model=PlayingListOut, responses=people_errors(401, 503))
async def my_tables(request: Request, me: Me, people: People, service: Service) -> PlayingListOut:
    """This player's games in progress: the tables where they hold a seat and whose game is not
    over, those awaiting their move first."""
    seated: SeatedTables | None = getattr(request.app.state, "seated", None)
    if seated is None:
        return PlayingListOut(tables=[])
    rows = await seated.of_player(me.id)
    groups = {group.id: group.name for group in await people.groups_of(me.id)} if rows else {}
    ids = set(await people.aliases.answers_to(me.id)) if rows else {me.id}  # with the players merged into theirs
    shown: list[tuple[PlayingOut, SeatedRow]] = []
    gone: list[str] = []
    started = time.monotonic()
    for row in rows:
        table = await read_table(service, row.table_id)
        if table is None:
            continue
        seat = seat_of(table, ids)
        if seat is None:
            gone.append(row.table_id)
            continue
        out = playing_of(table, seat, groups.get(table.group) if table.group else None)
        if out is not None:
            shown.append((out, row))
    if gone:
        await seated.forget(me.id, gone)
    logger.debug("games in progress of a person: %d tables read in %.3f s", len(rows), time.monotonic() - started)
    return PlayingListOut(tables=order(shown))
