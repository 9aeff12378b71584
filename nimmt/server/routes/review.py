"""The review of a finished game (``docs/review.md``): kept in the table's journal once made, and
made when it is asked for and no process is making it (a game that ended before a restart)."""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel

from nimmt.records import from_mapping
from nimmt.review import from_store

from ..uploads import not_prepared
from .common import Service, errors, the_table
from .records import finished_game, refused_response

router = APIRouter(tags=["records"])


class ReviewReady(BaseModel):
    status: Literal["ready"]
    review: dict[str, Any]  # nimmt.review.Review.to_json(): players (accuracy...), decisions (options...)


class ReviewPending(BaseModel):
    status: Literal["pending"]
    seconds: int  # about how long until it is ready here (the decisions left, how busy the workers are)


def _answer(data: dict[str, Any], status: int = 200) -> Response:
    # Escaped JSON: a name the record holds is sent whatever characters it has.
    return Response(json.dumps(data), status_code=status, media_type="application/json")


@router.get(
    "/api/tables/{table_id}/games/{game}/review", response_model=None,
    responses={200: {"model": ReviewReady, "description": "the review of the game"},
               202: {"model": ReviewPending, "description": "the review is being made: ask again in a moment"},
               **errors(404, 409, 503)},
)
async def game_review(table_id: str, game: int, service: Service) -> Response:
    """The review of a finished game: each player's accuracy, each decision's options (docs/review.md);
    ``503 preparing`` with ``Retry-After`` while the bots' kernels are prepared (a first run), as for
    an uploaded record: the review is made once they are."""
    record = await finished_game(service, table_id, game)
    table = await the_table(service, table_id)
    stored = table.reviews.get(game)
    if stored is None:
        service.reviews.want(table, game, asked=True)
        if not service.pool.prepared():  # the review waits for the kernels: answered as an upload's is
            return refused_response(not_prepared())
        return _answer({"status": "pending", "seconds": math.ceil(service.reviews.seconds_left(table, game))}, 202)
    return _answer({"status": "ready", "review": from_store(from_mapping(record), stored).to_json()})
