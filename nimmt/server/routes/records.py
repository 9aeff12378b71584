"""Records and replays: a finished game's ``nimmt/1`` record, the same game turn by turn, and any
record a person uploads, cut into turns for the replay page."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from nimmt.records import RecordError, loads

from ..models import valid_unicode
from ..replay import frames
from ..tables import TableService
from .common import ApiError, Service, errors, the_table

MAX_RECORD_UPLOAD = 2 * 1024 * 1024
router = APIRouter(tags=["records"])


@router.get("/api/tables/{table_id}/games/{game}/record", responses=errors(404, 409))
async def game_record(table_id: str, game: int, service: Service) -> Response:
    """A finished game as a ``nimmt/1`` record (a game in progress is secret: its hands)."""
    row = await finished_game(service, table_id, game)
    return Response(
        json.dumps(row, ensure_ascii=False, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="nimmt-{table_id}-{game}.json"'},
    )


@router.get("/api/tables/{table_id}/games/{game}/replay", responses=errors(404, 409))
async def game_replay(table_id: str, game: int, service: Service) -> dict[str, Any]:
    """A finished game turn by turn, for the replay page."""
    return frames(loads(json.dumps(await finished_game(service, table_id, game))))


@router.post("/api/replay", openapi_extra={"requestBody": {
    "required": True, "description": f"a nimmt/1 record, at most {MAX_RECORD_UPLOAD} bytes",
    "content": {"application/json": {"schema": {"type": "object"}}}}})
async def replay_upload(request: Request) -> dict[str, Any]:
    """Any ``nimmt/1`` record (the body), checked and cut into turns for the replay page."""
    body = await request.body()
    if len(body) > MAX_RECORD_UPLOAD:
        raise ApiError(413, "too_large", f"the record is larger than {MAX_RECORD_UPLOAD} bytes")
    try:
        replay = frames(loads(body))
    except RecordError as error:
        raise ApiError(422, "bad_record", str(error)) from None
    if not valid_unicode(replay):  # a name spelled with a lone surrogate: no answer could hold it
        raise ApiError(422, "bad_record", "the record holds text that is not valid Unicode (a lone surrogate)")
    return replay


async def finished_game(service: TableService, table_id: str, game: int) -> dict[str, Any]:
    """A finished game's record; 404 for no such table or game, 409 for a game still being played."""
    await the_table(service, table_id)
    # A number no game can have (the store's integers are 64-bit) is simply no game.
    row = await service.store.game(table_id, game) if 0 <= game < 2**63 else None
    if row is None:
        raise ApiError(404, "unknown_game", f"table {table_id} has no game {game}", game=game)
    if not row.finished:
        raise ApiError(409, "game_not_finished", "only a finished game can be downloaded", game=game)
    return row.record
