"""The lobby for strangers: the open public tables (``GET /api/lobby``), quick match
(``POST /api/lobby/quick``) and the lobby's page (``/lobby``).

The list comes from the store (:mod:`nimmt.server.public`), so every process shows the same tables.
It holds no names: a public table shows nobody's name, group or history outside the table.
"""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field, field_validator

from nimmt.i18n import LANGUAGE_NAMES, LANGUAGES

from ..listing import Listing
from ..matching import NoTurn, QuickTurns
from ..models import CreateTable, Name, SeatToken, TableOptions, _Body, known_language
from ..public import OpenTable, PublicTables
from ..tables import ActionError, Table, TableService
from .common import ApiError, Service, errors, links
from .pages import page
from .people import MaybeMe, adopt_name

router = APIRouter(tags=["lobby"])
logger = logging.getLogger("nimmt.server")

QUICK_SEATS = 4  # the table quick match opens when none is open: four seats, for people only
QUICK_CLOCK = 60  # seconds a decision at that table
QUICK_START = 60  # seconds after which that table starts by itself, bots in the free seats (nimmt/server/quickstart.py)
QUICK_TRIES = 5  # open tables tried before opening one (each may fill meanwhile)
QUICK_SETTLE = 2.0  # seconds quick match waits at most for this process's rows under way


class OpenTableInfo(BaseModel):
    table_id: str
    language: str = Field(json_schema_extra={"enum": list(LANGUAGES)})
    clock: int | None = Field(description="seconds for each decision (null: no clock)")
    seats: int
    taken: int
    free: int
    opened_at: str = Field(description="when the table was opened (ISO 8601, UTC)")


class QuickMatch(_Body):
    name: Name
    language: str = Field(description="join a table in this language (the page's)",
                          json_schema_extra={"enum": list(LANGUAGES)})

    _language = field_validator("language")(known_language)


def _rows(request: Request) -> Listing:
    listing = request.app.state.listing
    assert isinstance(listing, Listing)
    return listing


def _listing(request: Request) -> PublicTables:
    public = _rows(request).tables
    if public is None:
        raise ApiError(503, "server_error", "this server keeps no list of public tables")
    assert isinstance(public, PublicTables)
    return public


@router.get("/api/lobby", response_model=list[OpenTableInfo], responses=errors(503))
async def open_tables(request: Request, language: Annotated[str | None, Query(
        description="only tables in this language", json_schema_extra={"enum": list(LANGUAGES)})] = None,
                      ) -> list[OpenTableInfo]:
    """The public tables open now (not started, a seat free, somebody at them), longest waiting first."""
    if language is not None and language not in LANGUAGES:
        raise ApiError(422, "bad_request", f"language: must be one of {', '.join(LANGUAGES)}", language=language[:16])
    try:
        tables = await _listing(request).open_tables(language)
    except ApiError:
        raise
    except Exception as error:
        logger.warning("the lobby's list could not be read: %s", error)
        raise ApiError(503, "server_error", "the list of tables cannot be read now: try again") from None
    return [OpenTableInfo(**table.to_json()) for table in tables]


@router.post("/api/lobby/quick", response_model=SeatToken, status_code=201, responses=errors(503))
async def quick_match(body: QuickMatch, request: Request, service: Service, me: MaybeMe) -> SeatToken:
    """Take a seat at the open public table in this language that has waited longest; when there is
    none, open one (public, four seats, a minute a decision) for the next people to join. That table
    starts by itself a minute after it was opened, bots in the seats still free (its creator may
    start it sooner). A table is opened only during the language's turn, one asker at a time over
    every process (the store's: nimmt/server/matching.py), after a last look at the lobby, so two
    strangers asking at once sit at one table."""
    # This process's rows are written in the background: the ones under way go first, so a stranger
    # who sat down here a moment ago is found (another process's are as fresh as its writes).
    await _rows(request).settled(timeout=QUICK_SETTLE)
    turns = request.app.state.quick_turns
    if turns is None:
        raise ApiError(503, "server_error", "this server keeps no list of public tables")
    assert isinstance(turns, QuickTurns)
    player = me.id if me is not None else None  # the person's player keeps the game (docs/people.md)
    seat = await _join_waiting(request, service, body, player)  # most often a table has room: no turn needed
    if seat is None:
        try:
            async with turns.turn(body.language):
                # Again in the turn: the stranger before may have opened a table meanwhile.
                seat = await _join_waiting(request, service, body, player) or await _open(service, body, player)
                await _rows(request).written(seat[0].id)  # the next asker reads this table's row as it is now
        except NoTurn:
            raise ApiError(503, "server_error", "quick match is busy: try again in a moment") from None
    table, number, token = seat
    await adopt_name(request, me, body.name)
    return SeatToken(table_id=table.id, seat=number, token=token, **links(request, table))


async def _join_waiting(request: Request, service: TableService, body: QuickMatch,
                        player: str | None = None) -> tuple[Table, int, str] | None:
    """A seat at the table with room that has waited longest (its people present, or on their way)."""
    try:
        candidates = await _listing(request).open_tables(body.language, limit=QUICK_TRIES, arriving=True)
    except ApiError:
        raise
    except Exception as error:
        logger.warning("quick match could not read the lobby's list: %s", error)
        candidates = []
    for candidate in candidates:
        seat = await _try_join(service, candidate, body.name, player)
        if seat is not None:
            return seat
    return None


async def _open(service: TableService, body: QuickMatch, player: str | None = None) -> tuple[Table, int, str]:
    """A new quick-match table, its creator in seat 0 (during the language's turn)."""
    options = TableOptions(public=True, clock=QUICK_CLOCK, start_after=QUICK_START)
    table, token = await service.create(CreateTable(name=body.name, seats=QUICK_SEATS, options=options,
                                                    language=body.language), player)
    return table, 0, token


async def _try_join(service: TableService, candidate: OpenTable, name: str,
                    player: str | None = None) -> tuple[Table, int, str] | None:
    """A seat at this table, or None when it is gone, not public or full by now."""
    table = await service.get(candidate.table_id)
    if table is None or not table.options.public or table.status != "lobby":
        return None
    try:
        seat, token = await service.join(table, name, player)
    except ActionError as error:
        if error.code in ("table_full", "already_started"):
            return None
        raise
    return table, seat, token


@router.get("/lobby", response_class=HTMLResponse, include_in_schema=False)
async def lobby_page(request: Request) -> HTMLResponse:
    return page("lobby", request, {"languages": {code: LANGUAGE_NAMES[code] for code in LANGUAGES}})
