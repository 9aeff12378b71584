"""A person's own standing (their rating overall and in each group, its history, their figures) and
their word on the score sheets that name them (docs/people.md: Ratings, Fair records).

Everything here is read from the standings the store keeps as games end (nimmt.people.rated): a
read costs a few rows, however many games were played.
"""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field, StringConstraints

from nimmt.i18n import LANGUAGES, catalog
from nimmt.people.chart import form_svg
from nimmt.people.model import PeopleError
from nimmt.people.ratings import SETTLED_GAMES, SHOWN_START, Rating
from nimmt.people.standings import OwnStanding, own_standings

from ..models import _Body
from .common import ApiError
from .people import Me, People, people_errors, refusal

router = APIRouter(tags=["people"])


class HistoryPoint(BaseModel):
    when: datetime
    rating: int


class StandingOut(BaseModel):
    scope: str = Field(description="'*' for the games played at nimmt's tables, else the group's id")
    group: str | None
    name: str | None = Field(description="the group's name (null: overall)")
    rating: int = Field(description=f"the shown rating: {SHOWN_START} for a newcomer, 20 points per point of "
                        "openskill's ordinal (mu - 3 sigma)")
    provisional: bool = Field(description=f"fewer than {SETTLED_GAMES} rated games: it still moves a lot")
    rated_games: int
    games: int = Field(description="games they sat at here (those they left too)")
    wins: float
    left: int = Field(description="games they left before the end (rated as last place)")
    bullheads_per_round: float | None
    best_round: int | None
    history: list[HistoryPoint] = Field(description="their rating after each of their latest rated games")


class OwnStandingOut(BaseModel):
    start: int = Field(description="where every newcomer starts")
    chart: str | None = Field(default=None, description="with lang=: the history chart (as /api/me/standing.svg), "
                              "as a data: URI (null before a first rated game)")
    settled_games: int
    pending_sheets: int = Field(description="score sheets that name this player and await their word")
    standings: list[StandingOut]


class SeatWord(_Body):
    mine: bool = Field(description="true: it was me (it counts for me); false: this was not me (it leaves my games)")


GameId = Annotated[str, StringConstraints(min_length=1, max_length=40)]


Lang = Annotated[str | None, Query(json_schema_extra={"enum": list(LANGUAGES)})]


def chart_of(owns: list[OwnStanding], lang: str) -> str | None:
    """The history of a person's ratings as an SVG chart: one line overall and one per group."""
    if lang not in LANGUAGES:
        raise ApiError(422, "bad_request", f"lang: must be one of {', '.join(LANGUAGES)}")
    texts = catalog(lang, "people")
    series = [(own.group.name if own.group else texts["standing_overall"],
               [(when, float(shown)) for when, shown in own.standing.history])
              for own in owns if own.standing is not None and own.standing.history]
    if not series:
        return None
    return form_svg(series, title=texts["standing_chart_title"], axis=texts["standing_chart_axis"], language=lang,
                    whole=True)


@router.get("/api/me/standing", response_model=OwnStandingOut, responses=people_errors(401, 422, 503))
async def my_standing(me: Me, people: People, lang: Lang = None) -> OwnStandingOut:
    """This player's rating overall (games at nimmt's tables) and in each of their groups, its recent
    history, and their figures; with ``lang``, its chart too."""
    out = []
    owns = await own_standings(people, me.id)
    chart = chart_of(owns, lang) if lang is not None else None
    for own in owns:
        standing = own.standing
        rating = standing.rating if standing is not None else Rating()
        row = standing.tally.row(me.id) if standing is not None else None
        out.append(StandingOut(
            scope=own.scope, group=own.group.id if own.group else None, name=own.group.name if own.group else None,
            rating=rating.display, provisional=rating.provisional, rated_games=rating.games,
            games=row.games if row else 0, wins=row.wins if row else 0.0, left=row.left if row else 0,
            bullheads_per_round=row.bullheads_per_round if row else None, best_round=row.best_round if row else None,
            history=[HistoryPoint(when=when, rating=shown) for when, shown in standing.history] if standing else []))
    return OwnStandingOut(start=SHOWN_START, settled_games=SETTLED_GAMES,
                          pending_sheets=await people.pending_sheets(me.id), standings=out,
                          chart=None if chart is None else "data:image/svg+xml;base64,"
                          + base64.b64encode(chart.encode()).decode("ascii"))


@router.get("/api/me/standing.svg", response_class=Response,
            responses={200: {"content": {"image/svg+xml": {}}}, **people_errors(401, 503)})
async def my_standing_chart(me: Me, people: People,
                            lang: Annotated[str, Query(json_schema_extra={"enum": list(LANGUAGES)})] = "en",
                            ) -> Response:
    """The history of this player's rating as an SVG chart: one line overall and one per group."""
    texts = catalog(lang if lang in LANGUAGES else "en", "people")
    svg = chart_of(await own_standings(people, me.id), lang) or form_svg(
        [], title=texts["standing_chart_title"], axis=texts["standing_chart_axis"], language=lang, whole=True)
    return Response(svg, media_type="image/svg+xml",
                    headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                             "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


@router.post("/api/me/games/{game_id}/seat", status_code=204, response_class=Response,
             responses=people_errors(401, 404, 422, 503))
async def my_word(game_id: GameId, body: SeatWord, me: Me, people: People) -> Response:
    """Say whether a score sheet that names this player was them: ``mine`` true confirms it (it counts
    in their figures in the group), false says "this was not me" (their name leaves the seat and the
    game leaves their games). Either may be said at any time, of any score sheet that names them."""
    try:
        await people.confirm_seat(game_id, me.id, mine=body.mine)
    except PeopleError as error:
        raise refusal(error) from None
    return Response(status_code=204)
