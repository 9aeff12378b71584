"""What every router shares: the service and store of the app (reached through ``app.state``),
the API's refusals and how each becomes a JSON answer with a code the client translates."""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.routing import BaseRoute, Match

from nimmt.core.errors import NimmtError

from ..models import TABLE_ID_PATTERN, ApiErrorBody
from ..pages import site_base
from ..store import Store, StoreClosed
from ..tables import ActionError, Table, TableService

_TABLE_ID = re.compile(TABLE_ID_PATTERN)
logger = logging.getLogger("nimmt.server")
STORE_RETRY = 5  # seconds a client is told to wait after the store failed


class ApiError(NimmtError):
    def __init__(self, status: int, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.params = status, code, message, params


# The HTTP status of a table's refusal (any other code: 409, refused by the table's state).
ACTION_STATUS = {"unknown_table": 404, "not_seated": 404, "seats_not_filled": 422, "server_error": 503}

_ERROR_TEXTS = {
    400: "the body cannot be read as JSON text (bad_request)",
    404: "no such table (unknown_table) or game (unknown_game)",
    409: "refused by the table's state (table_full, already_started, unknown_bot, game_not_finished, ...)",
    413: "the body is over its limit, or a record takes too long to check (too_large)",
    422: "the request is not valid (bad_request), or its content is refused (seats_not_filled, bad_record, "
         "bad_sheet, sheet_...)",
    429: "this address sent too many requests (rate_limited, with Retry-After) or holds too many "
         "connections (too_many_connections)",
    503: "the store failed: nothing was changed, try again (server_error); records are being checked: "
         "try again after Retry-After (busy)",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI description of these refusals: all of them an :class:`ApiErrorBody`."""
    return {status: {"model": ApiErrorBody, "description": _ERROR_TEXTS[status]} for status in statuses}


def error_response(status: int, code: str, message: str, **params: Any) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "params": params}, status_code=status)


def handle_errors(app: FastAPI) -> None:
    """Every refusal as JSON with a code the client translates."""

    async def api_error(_request: Request, error: Exception) -> Response:
        assert isinstance(error, ApiError)
        response = error_response(error.status, error.code, error.message, **error.params)
        if "retry_after" in error.params:  # a 429 (or 503) says when to try again, as HTTP says it
            response.headers["Retry-After"] = str(error.params["retry_after"])
        return response

    async def action_error(_request: Request, error: Exception) -> Response:
        assert isinstance(error, ActionError)
        response = error_response(ACTION_STATUS.get(error.code, 409), error.code, error.message, **error.params)
        if error.code == "server_error":  # the store failed: worth trying again soon
            response.headers["Retry-After"] = str(STORE_RETRY)
        return response

    async def invalid(_request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        problems = "; ".join(
            f"{'.'.join(str(p) for p in item['loc'][1:]) or 'body'}: {item['msg']}" for item in error.errors()
        )
        return error_response(422, "bad_request", problems or "the request is not valid")

    async def http(request: Request, error: Exception) -> Response:
        assert isinstance(error, StarletteHTTPException)
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "http_error")
        response = error_response(error.status_code, code, str(error.detail))
        response.headers.update(error.headers or {})  # a 405's Allow: the methods the path has
        if error.status_code == 405:  # Starlette names the first route of the path only: name them all
            response.headers["Allow"] = ", ".join(allowed_methods(app, request))
        return response

    handle_store_failures(app)
    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(ActionError, action_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http)


def store_failures() -> tuple[type[Exception], ...]:
    """What a database's failure is raised as, on either database (asyncpg's own, when installed)."""
    kinds: list[type[Exception]] = [SQLAlchemyError, sqlite3.Error, StoreClosed, ConnectionError]
    try:
        import asyncpg  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - a SQLite-only install
        pass
    else:
        kinds += [asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError]
    return tuple(kinds)


def store_failure_text(error: BaseException) -> str:
    """What the database said, as one short line (its message alone: no statement, no URL)."""
    if isinstance(error, TimeoutError):
        return "TimeoutError: no answer in time"
    inner = getattr(error, "orig", None) or error
    lines = str(inner).strip().splitlines()
    return f"{type(inner).__name__}: {lines[0] if lines else ''}"[:200]


def handle_store_failures(app: FastAPI) -> None:
    """A store that fails (a full disk, a database down or read-only) is a clean ``503 server_error``
    with ``Retry-After`` on every route, one line in the log, never a 500 with a traceback."""

    async def store_failed(request: Request, error: Exception) -> Response:
        logger.warning("store failure on %s %s: %s", request.method, request.url.path, store_failure_text(error))
        response = error_response(503, "server_error", "the store failed: nothing was changed, try again",
                                  retry_after=STORE_RETRY)
        response.headers["Retry-After"] = str(STORE_RETRY)
        response.headers["Cache-Control"] = "no-store"
        return response

    for kind in store_failures():
        app.add_exception_handler(kind, store_failed)


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route of the app answers on the request's path (GET /api/me and DELETE
    /api/me are two routes)."""
    def routes(found: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
        for route in found:  # a router included as it is (our routers have no prefix): its own routes
            inner = getattr(route, "original_router", None)
            yield from routes(inner.routes) if inner is not None else (route,)

    methods: set[str] = set()
    for route in routes(app.router.routes):
        if route.matches(request.scope)[0] is not Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return sorted(methods)


# -- dependencies ---------------------------------------------------------------------------------
def service_of(connection: HTTPConnection) -> TableService:
    """The app's table service (made when the app starts)."""
    service: TableService = connection.app.state.service
    return service


def store_of(connection: HTTPConnection) -> Store:
    store: Store = connection.app.state.store
    return store


Service = Annotated[TableService, Depends(service_of)]


async def find_table(service: TableService, table_id: str) -> Table | None:
    """The table of this id, or None (an id no table can have is not looked for)."""
    return await service.get(table_id) if _TABLE_ID.match(table_id) else None


async def the_table(service: TableService, table_id: str) -> Table:
    """The table of this id; 404 ``unknown_table`` when there is none."""
    table = await find_table(service, table_id)
    if table is None:
        raise ApiError(404, "unknown_table", f"there is no table {table_id!r}", table=table_id)
    return table


def links(request: Request, table: Table) -> dict[str, str]:
    """A table's links, from the address others can open (``--public-url``; nimmt/server/pages.py).
    The invite carries no language: each person reads the table in their own."""
    base = site_base(request)
    table_id = table.id
    return {
        "table_url": f"{base}/t/{table_id}",
        "invite_url": f"{base}/t/{table_id}",
        "watch_url": f"{base}/watch/{table_id}",
    }
