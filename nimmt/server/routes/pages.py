"""The pages: home, table, watch, rules, score sheet, replay, and the language switch."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from nimmt.bots import BOTS
from nimmt.core import BULLHEADS
from nimmt.i18n import LANGUAGES, catalog, check_language
from nimmt.puzzles import of_day

from ..addresses import is_loopback
from ..pages import LANG_COOKIE, OLD_LANG_COOKIE, choose_language, chosen_language, render, site_base
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
    """A page in the person's language (the one they chose, else a link's for this page only,
    else their browser's); its texts from ``web`` and ``domains``. A link's ``?lang=`` is never
    kept: only the menu changes a person's language (``/lang``)."""
    chosen = request.cookies.get(LANG_COOKIE)
    language, source = choose_language(request.query_params.get("lang"), chosen,
                                       request.headers.get("accept-language"))
    site = site_base(request)
    # What the page's script needs to make links others open, and to keep the person's language.
    shared = {"site": site, "site_local": is_loopback(_host(site)), "chosen": chosen_language(chosen),
              "lang_from": source}
    where = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    response = HTMLResponse(render(name, language, where, {**shared, **(data or {})}, domains))
    if OLD_LANG_COOKIE in request.cookies:
        response.delete_cookie(OLD_LANG_COOKIE)
    response.headers["Content-Language"] = language
    response.headers["Cache-Control"] = "no-store"
    response.headers.update(PAGE_HEADERS)
    return response


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> HTMLResponse:
    # The puzzle of the day (a UTC day), the same for everyone.
    puzzle = {**of_day(datetime.now(UTC).date()).to_json(), "bullheads": BULLHEADS}
    return page("home", request, {"bots": sorted(BOTS), "puzzle": puzzle}, ("learn",))


# A bot's seat is named in the table's language ("Robô 3"): each person reads it in their own.
BOT_SEAT_NAMES = sorted({catalog(language, "table")["bot_seat_name"] for language in LANGUAGES})


@router.get("/t/{table_id}", response_class=HTMLResponse)
async def table_page(table_id: str, request: Request, service: Service) -> HTMLResponse:
    table = await the_table(service, table_id)
    return page("table", request, {"table": table.id, "spectator": False, "bots": sorted(BOTS),
                                   "bot_names": BOT_SEAT_NAMES}, ("learn", "table"))


@router.get("/watch/{table_id}", response_class=HTMLResponse)
async def watch_page(table_id: str, request: Request, service: Service) -> HTMLResponse:
    return page("table", request, {"table": (await the_table(service, table_id)).id, "spectator": True,
                                   "bot_names": BOT_SEAT_NAMES}, ("table",))


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


def _host(url: str) -> str | None:
    """The host of an absolute URL."""
    return urlsplit(url).hostname


def keep_language(response: Response, language: str) -> None:
    """The person's own language on this device (the cookie every page reads first)."""
    response.set_cookie(LANG_COOKIE, language, max_age=LANG_COOKIE_SECONDS, samesite="lax")


@cache
def web_app_manifest(language: str) -> str:
    """The web app manifest (``static/manifest.webmanifest``) in ``language``: its description, and
    its shortcuts (a long press on the installed app's icon: My games, the lobby)."""
    made = json.loads((resources.files("nimmt.web") / "static" / "manifest.webmanifest").read_text(encoding="utf-8"))
    texts = {**catalog(language, "web"), **catalog(language, "lobby")}
    icon = [{"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"}]
    made.update(lang=language, description=texts["app_description"], shortcuts=[
        {"name": texts["nav_me"], "url": "/me", "icons": icon},
        {"name": texts["nav_lobby"], "url": "/lobby", "icons": icon}])
    return json.dumps(made, ensure_ascii=False, indent=1)


@router.get("/manifest.webmanifest")
async def manifest(request: Request) -> Response:
    """The web app manifest, in the page's language (``?lang=``, which every page's link gives), else
    in the person's (as a page chooses it). Its ``id``, start and scope are the same in every language:
    one app, which opens any page of the site (a notice's table too)."""
    language, _source = choose_language(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE),
                                        request.headers.get("accept-language"))
    return Response(web_app_manifest(language), media_type="application/manifest+json",
                    headers={"Cache-Control": "no-cache", "Content-Language": language,
                             "X-Content-Type-Options": "nosniff"})


@router.get("/lang")
async def choose_language_menu(lang: str = "", back: str = "/") -> Response:
    """The language menu (a plain form, so it works without scripts): keep the choice and go back."""
    return await set_language(lang, back)


@router.get("/lang/{language}")
async def set_language(language: str, back: str = "/") -> Response:
    """Change the language (a cookie) and go back to the page; ``back`` stays on this site."""
    if not back.startswith("/") or back.startswith("//") or "\\" in back:
        back = "/"
    response = RedirectResponse(back, status_code=303)
    with contextlib.suppress(ValueError):  # an unknown language: the page stays as it was
        keep_language(response, check_language(language))
    return response
