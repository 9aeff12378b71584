"""Records and replays: a finished game's ``nimmt/1`` record, the same game turn by turn, and any
record a person uploads, cut into turns for the replay page."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse

from ..checker import CheckRefused, RecordChecker
from ..limits import client_key
from ..tables import TableService
from ..uploads import MAX_REVIEW_UPLOAD, MOST_DECISIONS, UploadReviews
from .common import ApiError, Service, error_response, errors, the_table

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


@router.get("/api/tables/{table_id}/games/{game}/replay", responses=errors(404, 409, 413, 503))
async def game_replay(table_id: str, game: int, service: Service, request: Request) -> Response:
    """A finished game turn by turn, for the replay page (cut into turns in a worker, as an upload)."""
    record = json.dumps(await finished_game(service, table_id, game)).encode()
    return await _turns(request, record)


@router.post("/api/replay", responses=errors(413, 422, 503), openapi_extra={"requestBody": {
    "required": True, "description": f"a nimmt/1 record, at most {MAX_RECORD_UPLOAD} bytes",
    "content": {"application/json": {"schema": {"type": "object"}}}}})
async def replay_upload(request: Request) -> Response:
    """Any ``nimmt/1`` record (the body), checked and cut into turns for the replay page: in a worker
    process, within a time and size budget (``nimmt/server/checker.py``), never on the event loop."""
    body = await request.body()
    if len(body) > MAX_RECORD_UPLOAD:
        raise ApiError(413, "too_large", f"the record is larger than {MAX_RECORD_UPLOAD} bytes")
    return await _turns(request, body)


@router.post("/api/replay/review", responses=errors(413, 422, 503), openapi_extra={"requestBody": {
    "required": True,
    "description": f"a nimmt/1 record, at most {MAX_REVIEW_UPLOAD} bytes and {MOST_DECISIONS} decisions",
    "content": {"application/json": {"schema": {"type": "object"}}}}})
async def replay_review(request: Request) -> Response:
    """The review of any ``nimmt/1`` record (the body), as ``GET /api/tables/{id}/games/{n}/review`` answers
    for a table's game: made in the bot pool's workers within a time budget, kept nowhere
    (``nimmt/server/uploads.py``, docs/review.md). With ``Accept: application/x-ndjson`` (the replay
    page), the record's turns first, as ``POST /api/replay`` answers them, one line at once, then the
    review's answer as the next line (``{"status": "ready", ...}``, or ``{"status": "refused", "code",
    "message", "params"}``): the record is read and checked once for both."""
    uploads: UploadReviews = request.app.state.uploads
    body = await request.body()
    if "application/x-ndjson" in request.headers.get("accept", ""):
        return await _turns_then_review(uploads, body, client_key(request.scope))
    try:
        review = await uploads.review(body, client_key(request.scope))
    except CheckRefused as refused:
        return refused_response(refused)
    # Escaped JSON: a name the record holds is sent whatever characters it has.
    return Response(json.dumps({"status": "ready", "review": review}), media_type="application/json")


async def _turns_then_review(uploads: UploadReviews, body: bytes, who: str) -> Response:
    try:
        turns, checked = await uploads.read(body, turns=True, who=who)
    except CheckRefused as refused:  # not a record to replay: nothing to stream
        return refused_response(refused)

    async def lines() -> AsyncIterator[bytes]:
        yield (turns or b"{}") + b"\n"
        try:
            answer: dict[str, Any] = {"status": "ready", "review": await uploads.make(checked, who)}
        except CheckRefused as refused:
            answer = {"status": "refused", "code": refused.code, "message": str(refused), "params": refused.params}
        yield json.dumps(answer).encode() + b"\n"

    # Not held back by a proxy (nginx buffers answers by default): the turns are shown at once.
    return StreamingResponse(lines(), media_type="application/x-ndjson", headers={"X-Accel-Buffering": "no"})


def refused_response(refused: CheckRefused) -> Response:
    response = error_response(refused.status, refused.code, str(refused), **refused.params)
    if "retry_after" in refused.params:
        response.headers["Retry-After"] = str(refused.params["retry_after"])
    return response


async def _turns(request: Request, record: bytes) -> Response:
    checker: RecordChecker = request.app.state.checker
    try:
        turns = await checker.turns(record, who=client_key(request.scope))
    except CheckRefused as refused:
        return refused_response(refused)
    return Response(turns, media_type="application/json")


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
