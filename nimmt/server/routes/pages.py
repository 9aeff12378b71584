"""The pages: home, table, watch, rules, score sheet, replay, and the language switch."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from nimmt.bots import BOTS
from nimmt.core import BULLHEADS
from nimmt.i18n import check_language
from nimmt.puzzles import of_day

from ..pages import LANG_COOKIE, choose_language, render
from .common import Service, the_table
from .records import finished_game

router = APIRouter(include_in_schema=False)

# Pages load nothing but this server's own files, and nobody can frame them.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
LANG_COOKIE_SECONDS = 365 * 24 * 3600


def page(name: str, request: Request, data: dict[str, Any] | None = None,
         domains: tuple[str, ...] = ()) -> HTMLResponse:
    """A page in the language the person chose (the query, their cookie, then their browser's);
    its texts from ``web`` and ``domains``."""
    language, explicit = choose_language(
        request.query_params.get("lang"), request.cookies.get(LANG_COOKIE),
        request.headers.get("accept-language"),
    )
    response = HTMLResponse(render(name, language, request.url.path, data, domains))
    if explicit:
        response.set_cookie(LANG_COOKIE, language, max_age=LANG_COOKIE_SECONDS, samesite="lax")
    response.headers["Content-Language"] = language
    response.headers["Cache-Control"] = "no-store"
    response.headers.update(PAGE_HEADERS)
    return response


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> HTMLResponse:
    # The puzzle of the day (a UTC day), the same for everyone.
    puzzle = {**of_day(datetime.now(UTC).date()).to_json(), "bullheads": BULLHEADS}
    return page("home", request, {"bots": sorted(BOTS), "puzzle": puzzle}, ("learn",))


@router.get("/t/{table_id}", response_class=HTMLResponse)
async def table_page(table_id: str, request: Request, service: Service) -> HTMLResponse:
    table = await the_table(service, table_id)
    return page("table", request, {"table": table.id, "spectator": False, "bots": sorted(BOTS)}, ("learn", "table"))


@router.get("/watch/{table_id}", response_class=HTMLResponse)
async def watch_page(table_id: str, request: Request, service: Service) -> HTMLResponse:
    return page("table", request, {"table": (await the_table(service, table_id)).id, "spectator": True},
                ("table",))


@router.get("/rules", response_class=HTMLResponse)
async def rules_page(request: Request) -> HTMLResponse:
    return page("rules", request)


@router.get("/score", response_class=HTMLResponse)
async def score_page(request: Request) -> HTMLResponse:
    return page("score", request, None, ("people",))  # a finished sheet can go into a group's league


@router.get("/replay", response_class=HTMLResponse)
async def replay_page(request: Request) -> HTMLResponse:
    return page("replay", request, {"source": None}, ("learn",))  # an upload's review: its texts


@router.get("/replay/{table_id}/{game}", response_class=HTMLResponse)
async def replay_game_page(table_id: str, game: int, request: Request, service: Service) -> HTMLResponse:
    await finished_game(service, table_id, game)
    return page("replay", request, {"source": f"/api/tables/{table_id}/games/{game}/replay",
                                    "download": f"/api/tables/{table_id}/games/{game}/record"})


@router.get("/lang/{language}")
async def set_language(language: str, back: str = "/") -> Response:
    """Change the language (a cookie) and go back to the page; ``back`` stays on this site."""
    if not back.startswith("/") or back.startswith("//"):
        back = "/"
    response = RedirectResponse(back, status_code=303)
    with contextlib.suppress(ValueError):  # an unknown language: the page stays as it was
        response.set_cookie(LANG_COOKIE, check_language(language), max_age=LANG_COOKIE_SECONDS, samesite="lax")
    return response
