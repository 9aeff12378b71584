"""The web server: lobby API (HTTP, described by OpenAPI), the table's WebSocket, and the pages.

``create_app`` wires the parts together: a :class:`~nimmt.server.store.Store`, a
:class:`~nimmt.server.hub.Hub` and the :class:`~nimmt.server.table.TableService` that owns the
tables. The WebSocket messages are described in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import logging
import mimetypes
import random
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import segno
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from nimmt import __version__
from nimmt.bots import BOTS
from nimmt.core import DECK_BULLHEADS, Rules, RulesError
from nimmt.core.errors import NimmtError
from nimmt.i18n import LANGUAGES
from nimmt.records import RecordError, loads
from nimmt.scoresheet import ScoreSheet, ScoreSheetError

from .connection import Connection
from .hub import Hub, LocalHub
from .limits import ClientLimits, Limits, LimitsMiddleware, client_key
from .metrics import CONTENT_TYPE_LATEST, Metrics
from .models import (
    TABLE_ID_PATTERN,
    ApiErrorBody,
    BotInfo,
    CreateTable,
    Health,
    JoinTable,
    ScoreSheetNew,
    ScoreSheetRound,
    ScoreSheetUndo,
    SeatToken,
    TableInfo,
    valid_unicode,
)
from .pages import LANG_COOKIE, choose_language, render
from .render import public_info
from .replay import frames
from .store import SqlStore, Store
from .table import ActionError, Table, TableService

MAX_BODY_BYTES = 64 * 1024
MAX_RECORD_UPLOAD = 2 * 1024 * 1024
_TABLE_ID = re.compile(TABLE_ID_PATTERN)
logger = logging.getLogger("nimmt.server")


# Pages load nothing but this server's own files, and nobody can frame them.
_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class ApiError(NimmtError):
    def __init__(self, status: int, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.params = status, code, message, params


def _error(status: int, code: str, message: str, **params: Any) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "params": params}, status_code=status)


_ERROR_TEXTS = {
    400: "the body cannot be read as JSON text (bad_request)",
    404: "no such table (unknown_table) or game (unknown_game)",
    409: "refused by the table's state (table_full, already_started, unknown_bot, game_not_finished, ...)",
    413: "the body is over its limit (too_large)",
    422: "the request is not valid (bad_request), or its content is refused (seats_not_filled, bad_record, "
         "bad_sheet, sheet_...)",
    429: "this address sent too many requests (rate_limited, with Retry-After) or holds too many "
         "connections (too_many_connections)",
    503: "the store failed: nothing was changed, try again (server_error)",
}


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI description of these refusals: all of them an :class:`ApiErrorBody`."""
    return {status: {"model": ApiErrorBody, "description": _ERROR_TEXTS[status]} for status in statuses}


def create_app(
    db: str | Path | None = None,
    *,
    store: Store | None = None,
    hub: Hub | None = None,
    bot_delay: float = 0.8,
    seed: int | None = None,
    away_grace: float = 30.0,
    limits: Limits | None = None,
    bot_workers: int | None = None,
    bot_budget: float = 2.0,
    idle_after: float | None = 600.0,
) -> FastAPI:
    """The ASGI app. ``db`` is a SQLite file (ignored when ``store`` is given); ``limits`` are what
    one client may do (see :mod:`nimmt.server.limits`); ``bot_workers``, ``bot_budget`` and
    ``idle_after`` go to the :class:`~nimmt.server.table.TableService`."""
    if store is None:
        if db is None:
            raise ValueError("create_app needs a database file or a store")
        store = SqlStore.sqlite(db)
    the_store: Store = store
    the_hub: Hub = hub or LocalHub()
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await the_store.start()
        await the_hub.start()
        rng = random.Random(seed) if seed is not None else None
        app.state.service = TableService(the_store, the_hub, bot_delay=bot_delay, rng=rng, away_grace=away_grace,
                                         bot_workers=bot_workers, bot_budget=bot_budget, idle_after=idle_after,
                                         observe_bot=metrics.bot_decision, observe_conflict=metrics.conflicts.inc)
        metrics.count_tables(lambda: len(app.state.service._tables))
        watching = asyncio.create_task(metrics.watch_loop())
        try:
            yield
        finally:
            watching.cancel()
            await app.state.service.close()
            await the_hub.close()
            await the_store.close()

    app = FastAPI(
        title="nimmt",
        version=__version__,
        summary="6 nimmt! at a table in the browser: the lobby API. The game itself runs over the "
        "WebSocket /ws/{table_id}, described in docs/protocol.md.",
        lifespan=lifespan,
        # Any request may be refused by the limits or be invalid; each route adds its own refusals.
        responses=_errors(400, 413, 422, 429),
        # The API is described at /openapi.json; the /docs pages would load scripts from a CDN.
        docs_url=None,
        redoc_url=None,
    )
    static = resources.files("nimmt.web") / "static"
    # The web app manifest's own type, whatever the system's MIME table holds.
    mimetypes.add_type("application/manifest+json", ".webmanifest")
    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    app.state.metrics = metrics

    def service() -> TableService:
        result: TableService = app.state.service
        return result

    # -- errors: always JSON with a code the client translates ---------------------------------
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, error: ApiError) -> JSONResponse:
        return _error(error.status, error.code, error.message, **error.params)

    @app.exception_handler(ActionError)
    async def _action_error(_request: Request, error: ActionError) -> JSONResponse:
        # 422: play now with seats free; 503: the store failed, nothing was changed (try again)
        status = {"unknown_table": 404, "seats_not_filled": 422, "server_error": 503}.get(error.code, 409)
        return _error(status, error.code, error.message, **error.params)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in item['loc'][1:]) or 'body'}: {item['msg']}" for item in error.errors()
        )
        return _error(422, "bad_request", problems or "the request is not valid")

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, error: StarletteHTTPException) -> Response:
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "http_error")
        response = _error(error.status_code, code, str(error.detail))
        response.headers.update(error.headers or {})  # a 405's Allow: the methods the path has
        return response

    # Bodies counted while they stream, per-client rates, open connections: nimmt/server/limits.py
    client_limits = ClientLimits(limits or Limits())
    app.state.limits = client_limits
    app.add_middleware(LimitsMiddleware, limits=client_limits,
                       body_limit=lambda path: MAX_RECORD_UPLOAD if path == "/api/replay" else MAX_BODY_BYTES)

    async def _table(table_id: str) -> Table:
        table = await service().get(table_id) if _TABLE_ID.match(table_id) else None
        if table is None:
            raise ApiError(404, "unknown_table", f"there is no table {table_id!r}", table=table_id)
        return table

    def _links(request: Request, table: Table) -> dict[str, str]:
        base = str(request.base_url).rstrip("/")
        table_id = table.id
        return {
            "table_url": f"{base}/t/{table_id}",
            "invite_url": f"{base}/t/{table_id}?lang={table.language}",  # the invitation's language
            "watch_url": f"{base}/watch/{table_id}",
        }

    # -- running it as a service ---------------------------------------------------------------
    @app.get("/healthz", tags=["service"], response_model=Health,
             responses={503: {"model": Health, "description": "the store does not answer"}})
    async def healthz() -> JSONResponse:
        """200 when the store answers (within 5 s), else 503."""
        try:
            await asyncio.wait_for(_store_answers(the_store), HEALTH_WAIT)
        except Exception as error:  # the store is down, or too slow to count as up
            logger.warning("health check: the store does not answer (%s)", type(error).__name__)
            return JSONResponse({"status": "unavailable", "store": "down", "version": __version__}, status_code=503)
        return JSONResponse({"status": "ok", "store": "up", "version": __version__,
                             "tables": len(service()._tables)})

    @app.get("/metrics", tags=["service"], response_class=Response)
    async def prometheus_metrics() -> Response:
        """Prometheus metrics (text format): actions, action latency, connections, tables, bot time."""
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    # -- lobby API -----------------------------------------------------------------------------
    @app.get("/api/bots", response_model=list[BotInfo], tags=["lobby"])
    async def bots() -> list[BotInfo]:
        """The bots a table can seat."""
        return [BotInfo(name=name, description=cls.description) for name, cls in sorted(BOTS.items())]

    @app.post("/api/tables", response_model=SeatToken, status_code=201, tags=["lobby"], responses=_errors(409, 503))
    async def create_table(body: CreateTable, request: Request) -> SeatToken:
        """Create a table. The creator sits in seat 0; bots take the last seats."""
        table, token = await service().create(body)
        return SeatToken(table_id=table.id, seat=0, token=token, **_links(request, table))

    @app.get("/api/tables/{table_id}", response_model=TableInfo, tags=["lobby"], responses=_errors(404))
    async def table_info(table_id: str) -> TableInfo:
        """A table's public state: seats, options, status (never a hand)."""
        return TableInfo.model_validate(public_info(await _table(table_id)))

    @app.post("/api/tables/{table_id}/join", response_model=SeatToken, status_code=201, tags=["lobby"],
              responses=_errors(404, 409, 503))
    async def join_table(table_id: str, body: JoinTable, request: Request) -> SeatToken:
        """Take the first free seat of a table that has not started."""
        table = await _table(table_id)
        seat, token = await service().join(table, body.name)
        return SeatToken(table_id=table.id, seat=seat, token=token, **_links(request, table))

    @app.get("/api/tables/{table_id}/invite.svg", tags=["lobby"], response_class=Response,
             responses={200: {"content": {"image/svg+xml": {}}}, 304: {"description": "If-None-Match: unchanged"},
                        **_errors(404)})
    async def invite_qr(table_id: str, request: Request, lang: str | None = None) -> Response:
        """A QR code (SVG) of the table's invite link, as the table page shows it (``lang``: another
        language for the link than the table's)."""
        table = await _table(table_id)
        if lang is not None and lang not in LANGUAGES:
            raise ApiError(422, "bad_request", f"lang: must be one of {', '.join(LANGUAGES)}", lang=lang[:16])
        link = _links(request, table)["invite_url"]
        if lang is not None:
            link = f"{link.rsplit('?', 1)[0]}?lang={lang}"
        svg = invite_svg(link)
        etag = '"' + hashlib.sha256(svg.encode("utf-8")).hexdigest()[:32] + '"'
        headers = {"ETag": etag, "Cache-Control": "private, max-age=86400", "Vary": "Host",
                   "Content-Security-Policy": "default-src 'none'; frame-ancestors 'self'",
                   "X-Content-Type-Options": "nosniff"}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(svg, media_type="image/svg+xml", headers=headers)

    @app.get("/api/tables/{table_id}/games/{game}/record", tags=["records"], responses=_errors(404, 409))
    async def game_record(table_id: str, game: int) -> Response:
        """A finished game as a ``nimmt/1`` record (a game in progress is secret: its hands)."""
        row = await _finished_game(table_id, game)
        return Response(
            json.dumps(row, ensure_ascii=False, indent=1),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="nimmt-{table_id}-{game}.json"'},
        )

    @app.get("/api/tables/{table_id}/games/{game}/replay", tags=["records"], responses=_errors(404, 409))
    async def game_replay(table_id: str, game: int) -> dict[str, Any]:
        """A finished game turn by turn, for the replay page."""
        return frames(loads(json.dumps(await _finished_game(table_id, game))))

    async def _finished_game(table_id: str, game: int) -> dict[str, Any]:
        await _table(table_id)
        # A number no game can have (the store's integers are 64-bit) is simply no game.
        row = await service().store.game(table_id, game) if 0 <= game < 2**63 else None
        if row is None:
            raise ApiError(404, "unknown_game", f"table {table_id} has no game {game}", game=game)
        if not row.finished:
            raise ApiError(409, "game_not_finished", "only a finished game can be downloaded", game=game)
        return row.record

    @app.post("/api/replay", tags=["records"], openapi_extra={"requestBody": {
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

    # -- score sheet API (for tables playing with real cards) ----------------------------------
    @app.post("/api/scoresheet", tags=["score sheet"])
    async def new_sheet(body: ScoreSheetNew) -> dict[str, Any]:
        """A new, empty score sheet."""
        try:
            rules = Rules(end_above=body.end_above, rounds=body.rounds)
            return _sheet_json(ScoreSheet(tuple(body.players), rules))
        except (ScoreSheetError, RulesError) as error:
            raise ApiError(422, _sheet_code(str(error)), str(error)) from None

    @app.post("/api/scoresheet/round", tags=["score sheet"])
    async def add_round(body: ScoreSheetRound) -> dict[str, Any]:
        """The sheet with one more round of penalties (one number per player)."""
        sheet = _load_sheet(body.sheet)
        try:
            return _sheet_json(sheet.add_round(body.penalties))
        except ScoreSheetError as error:
            raise ApiError(422, _sheet_code(str(error)), str(error), total=sum(body.penalties),
                           deck=DECK_BULLHEADS) from None

    @app.post("/api/scoresheet/undo", tags=["score sheet"])
    async def undo_round(body: ScoreSheetUndo) -> dict[str, Any]:
        """The sheet without its last round."""
        try:
            return _sheet_json(_load_sheet(body.sheet).undo())
        except ScoreSheetError as error:
            raise ApiError(422, _sheet_code(str(error)), str(error)) from None

    # -- pages ---------------------------------------------------------------------------------
    def page(name: str, request: Request, data: dict[str, Any] | None = None) -> HTMLResponse:
        language, explicit = choose_language(
            request.query_params.get("lang"), request.cookies.get(LANG_COOKIE),
            request.headers.get("accept-language"),
        )
        response = HTMLResponse(render(name, language, request.url.path, data))
        if explicit:
            response.set_cookie(LANG_COOKIE, language, max_age=365 * 24 * 3600, samesite="lax")
        response.headers["Content-Language"] = language
        response.headers["Cache-Control"] = "no-store"
        response.headers.update(_PAGE_HEADERS)
        return response

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request) -> HTMLResponse:
        return page("home", request, {"bots": sorted(BOTS)})

    @app.get("/t/{table_id}", response_class=HTMLResponse, include_in_schema=False)
    async def table_page(table_id: str, request: Request) -> HTMLResponse:
        return page("table", request, {"table": (await _table(table_id)).id, "spectator": False, "bots": sorted(BOTS)})

    @app.get("/watch/{table_id}", response_class=HTMLResponse, include_in_schema=False)
    async def watch_page(table_id: str, request: Request) -> HTMLResponse:
        return page("table", request, {"table": (await _table(table_id)).id, "spectator": True})

    @app.get("/rules", response_class=HTMLResponse, include_in_schema=False)
    async def rules_page(request: Request) -> HTMLResponse:
        return page("rules", request)

    @app.get("/score", response_class=HTMLResponse, include_in_schema=False)
    async def score_page(request: Request) -> HTMLResponse:
        return page("score", request)

    @app.get("/replay", response_class=HTMLResponse, include_in_schema=False)
    async def replay_page(request: Request) -> HTMLResponse:
        return page("replay", request, {"source": None})

    @app.get("/replay/{table_id}/{game}", response_class=HTMLResponse, include_in_schema=False)
    async def replay_game_page(table_id: str, game: int, request: Request) -> HTMLResponse:
        await _finished_game(table_id, game)
        return page("replay", request, {"source": f"/api/tables/{table_id}/games/{game}/replay",
                                        "download": f"/api/tables/{table_id}/games/{game}/record"})

    @app.get("/lang/{language}", include_in_schema=False)
    async def set_language(language: str, request: Request, back: str = "/") -> Response:
        """Change the language (a cookie) and go back to the page; ``back`` stays on this site."""
        if not back.startswith("/") or back.startswith("//"):
            back = "/"
        response = RedirectResponse(back, status_code=303)
        try:
            from nimmt.i18n import check_language

            response.set_cookie(LANG_COOKIE, check_language(language), max_age=365 * 24 * 3600, samesite="lax")
        except ValueError:
            pass
        return response

    # -- the table's WebSocket -----------------------------------------------------------------
    @app.websocket("/ws/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        table = await service().get(table_id) if _TABLE_ID.match(table_id) else None
        if table is None:
            with contextlib.suppress(WebSocketDisconnect):  # the client may be gone already
                await websocket.send_json(ActionError("unknown_table", f"there is no table {table_id!r}",
                                                      table=table_id).to_message())
                await websocket.close(code=4404)
            return
        connection = Connection(websocket, service(), the_hub, table)
        connection.client = client_key(websocket.scope)
        connection.message_wait = client_limits.message
        connection.metrics = metrics
        service().opened(table)  # the table stays in memory while a connection is open
        metrics.connections.inc()
        try:
            await connection.run()
        finally:
            metrics.connections.dec()
            service().closed(table)

    return app


HEALTH_WAIT = 5.0  # seconds the store has to answer a health check


async def _store_answers(store: Store) -> None:
    """Ask the store something small: its own ``ping()`` if it has one, else a table that cannot exist."""
    ping = getattr(store, "ping", None)
    if callable(ping):
        await ping()
    else:
        await store.journal("~healthz")


def invite_svg(link: str) -> str:
    """A QR code of ``link`` as an SVG document: dark on white with its quiet zone, so it scans on a
    dark page too; a viewBox and a size, so a page can scale it."""
    code = segno.make(link, error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", scale=1, border=4, dark="#000", light="#fff", xmldecl=False, omitsize=True,
              title=link, svgclass=None, lineclass=None)
    size = code.symbol_size(scale=4)[0]
    return out.getvalue().decode("utf-8").replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)


def _load_sheet(data: dict[str, Any]) -> ScoreSheet:
    try:
        return ScoreSheet.from_json(data)
    except ScoreSheetError as error:
        raise ApiError(422, "bad_sheet", str(error)) from None


def _sheet_json(sheet: ScoreSheet) -> dict[str, Any]:
    data = sheet.to_json()
    data["countdown"] = list(sheet.countdown)
    return data


def _sheet_code(message: str) -> str:
    """A code the page translates, for the score sheet's errors."""
    for needle, code in (
        ("same name", "sheet_same_name"),
        ("needs a name", "sheet_name_missing"),
        ("2 to 10 players", "sheet_players"),
        ("game is over", "sheet_over"),
        ("one penalty per player", "sheet_count"),
        ("whole number from 0 to 171", "sheet_penalty"),
        ("whole deck holds", "sheet_sum"),
        ("no round to undo", "sheet_nothing_to_undo"),
    ):
        if needle in message:
            return code
    return "sheet_error"
