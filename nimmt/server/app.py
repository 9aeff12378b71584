"""The web server: lobby API (HTTP, described by OpenAPI), the table's WebSocket, and the pages.

``create_app`` wires the parts together: a :class:`~nimmt.server.store.Store`, a
:class:`~nimmt.server.hub.Hub` and the :class:`~nimmt.server.tables.TableService` that owns the
tables, all kept on ``app.state``; the routes live in :mod:`nimmt.server.routes`, one router per
area (:data:`ROUTERS`). The WebSocket messages are described in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, FastAPI

from nimmt import __version__
from nimmt.people.counts import DEFAULT_QUOTAS, Quota
from nimmt.people.store import SWEEP_EVERY, PeopleStore, SqlPeopleStore

from .checker import RecordChecker
from .clocked import ClockedTables, ClockScan
from .hub import Hub, LocalHub
from .limits import ClientLimits, Limits, LimitsMiddleware
from .listing import Listing
from .matching import QuickTurns
from .metrics import Metrics
from .people_games import keeper, keeps
from .public import PublicTables
from .push import Notices, PushConfig
from .quickstart import QuickStart
from .routes import (
    chat,
    groups,
    health,
    lobby,
    pages,
    people,
    people_pages,
    playing,
    public,
    push,
    records,
    review,
    scoresheet,
    socket,
    standing,
)
from .routes.common import errors, handle_errors
from .routes.records import MAX_RECORD_UPLOAD
from .seated import SeatedRows, SeatedTables
from .static import static_apps
from .store import Database, SqlStore, Store
from .tables import TableService
from .uploads import MAX_REVIEW_UPLOAD, UploadReviews

MAX_BODY_BYTES = 64 * 1024
logger = logging.getLogger("nimmt.server")

# Every route of the app, one router per area: a new area is a module in nimmt/server/routes/ and
# one line here.
ROUTERS: tuple[APIRouter, ...] = (
    health.router,  # /healthz, /metrics
    lobby.router,  # /api/bots, /api/tables...
    public.router,  # /api/lobby (open public tables, quick match), /lobby
    records.router,  # /api/tables/{id}/games/..., /api/replay
    review.router,  # /api/tables/{id}/games/{n}/review
    scoresheet.router,  # /api/scoresheet...
    pages.router,  # /, /t/{id}, /watch/{id}, /rules, /score, /replay..., /lang/{language}
    socket.router,  # /ws/{id}
    people.router,  # /api/players, /api/me..., /api/link, /api/passkeys...
    groups.router,  # /api/groups..., /api/ratings
    standing.router,  # /api/me/standing[.svg], /api/me/games/{id}/seat
    chat.router,  # /api/groups/{id}/chat
    people_pages.router,  # /me, /link/{code}, /join/{invite}, /groups/{id}[/screen], /ratings
    push.router,  # /api/push/key, /api/me/push..., /sw.js (notices: docs/push.md)
    playing.router,  # /api/me/tables (a person's games in progress)
)

__all__ = ["MAX_BODY_BYTES", "MAX_RECORD_UPLOAD", "ROUTERS", "create_app"]


@dataclass(frozen=True, slots=True)
class ServiceOptions:
    """What the :class:`TableService` is made with when the app starts (see its arguments)."""

    bot_delay: float = 0.8
    seed: int | None = None
    away_grace: float = 30.0
    bot_workers: int | None = None
    bot_budget: float = 2.0
    idle_after: float | None = 600.0


def body_limit(path: str) -> int:
    """The most bytes a request to ``path`` may send (uploaded records get more)."""
    return {"/api/replay": MAX_RECORD_UPLOAD, "/api/replay/review": MAX_REVIEW_UPLOAD}.get(path, MAX_BODY_BYTES)


async def sweep_loop(people: PeopleStore, seated: SeatedTables | None = None, every: float = SWEEP_EVERY) -> None:
    """Expired one-time codes, challenges and counts removed soon after they expire, and the seats'
    rows no list shows any more (a bounded batch each time), for as long as the app runs (each
    process sweeps; a sweep is a DELETE or two each, nothing to share)."""
    while True:
        await asyncio.sleep(every)
        try:
            await people.sweep()
            if seated is not None:
                await seated.sweep()
        except Exception as error:  # a full disk or a database away: the next sweep tries again
            logger.warning("the sweep of expired codes failed: %s: %s", type(error).__name__, str(error)[:200])


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start the store and the hub, make the service; on the way out, stop them in the other order."""
    state = app.state
    store: Store = state.store
    hub: Hub = state.hub
    metrics: Metrics = state.metrics
    options: ServiceOptions = state.options
    await store.start()
    await hub.start()
    rng = random.Random(options.seed) if options.seed is not None else None
    # People (docs/people.md) and the lobby's public tables live in the tables' database, in tables
    # its migrations made: the store's Database (its one owner, closed with the store) is theirs too.
    database = getattr(store, "database", None)
    database = database if isinstance(database, Database) else None
    public = PublicTables(database) if database is not None else None
    clocked = ClockedTables(public) if public is not None else None
    known = state.people = SqlPeopleStore(database, quotas=state.quotas) if database is not None else None
    listing = state.listing = Listing(public, clocked)  # the lobby's and the clocks' rows
    # What hears each change of a table: the people part keeping a game over before its news goes out
    # (a page that shows the last screen finds the game under My games), the rows after it.
    listeners = [listing.note]
    keepers = [keeps(known)] if known is not None else []
    service = state.service = TableService(
        store, hub, bot_delay=options.bot_delay, rng=rng, away_grace=options.away_grace,
        bot_workers=options.bot_workers, bot_budget=options.bot_budget, idle_after=options.idle_after,
        observe_bot=metrics.bot_decision, observe_conflict=metrics.conflicts.inc, listeners=listeners,
        keepers=keepers, game_abandoned=keeper(known, abandoned=True) if known is not None else None)
    starter = QuickStart(service, public)
    service.subscribe(starter.arm)  # quick match's tables start by themselves, a minute after they open
    notices = state.notices = Notices(known, PushConfig.from_env(state.public_url)) if known is not None else None
    if notices is not None:
        await notices.start(lambda: service.tables.values())  # the site's VAPID key: configured, or the store's
        service.subscribe(notices.hear)  # a turn-based table's decision: its person's notice (docs/push.md)
    state.seated = SeatedTables(public) if public is not None and known is not None else None
    seated = SeatedRows(state.seated) if state.seated is not None else None
    if seated is not None:
        # Where each person sits, kept before the news (nimmt/server/seated.py): the home page lists the game.
        service.subscribe(seated.note, keeper=True)
    metrics.count_tables(lambda: len(service.tables))
    state.uploads = UploadReviews(service.pool, state.checker)  # uploaded records' reviews (nimmt/server/uploads.py)
    service.pool.prepared()  # on a first run, the bots' kernels start compiling now, in the background
    if hasattr(store, "on_refused_write"):
        store.on_refused_write = metrics.refused_writes.inc
    state.quick_turns = QuickTurns(public) if public is not None else None  # quick match, one at a time
    scan = ClockScan(service, service.tables, clocked) if clocked is not None else None
    if scan is not None:
        scan.start()  # timed tables whose clock runs are loaded now, not when somebody opens them
    watching = asyncio.create_task(metrics.watch_loop())
    sweeping = asyncio.create_task(sweep_loop(known, state.seated)) if known is not None else None
    try:
        yield
    finally:
        watching.cancel()
        if sweeping is not None:
            sweeping.cancel()
        await state.checker.close()
        if scan is not None:
            await scan.close()
        await starter.close()
        if notices is not None:
            await notices.close()
        await service.close()
        if seated is not None:
            await seated.settled()
        if known is not None:
            await known.close()
        await listing.close()
        await hub.close()
        await store.close()


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
    quotas: Sequence[Quota] | None = None,
    public_url: str | None = None,
    network_url: str | None = None,
) -> FastAPI:
    """The ASGI app. ``db`` is a SQLite file (ignored when ``store`` is given); ``limits`` are what
    one client may do (see :mod:`nimmt.server.limits`), ``quotas`` what one key or address may make
    (counted in the store: :mod:`nimmt.people.counts`; None: its defaults, empty: none);
    ``bot_workers``, ``bot_budget`` and ``idle_after`` go to the :class:`~nimmt.server.tables.TableService`.
    Links and QR codes are made of ``public_url`` when given, else of ``network_url`` (this machine's
    address on its network) for pages opened at a loopback address, else of the address each
    request came to."""
    if store is None:
        if db is None:
            raise ValueError("create_app needs a database file or a store")
        store = SqlStore.sqlite(db)
    app = FastAPI(
        title="nimmt",
        version=__version__,
        summary="6 nimmt! at a table in the browser: the lobby API. The game itself runs over the "
        "WebSocket /ws/{table_id}, described in docs/protocol.md.",
        lifespan=lifespan,
        # Any request may be refused by the limits or be invalid; each route adds its own refusals.
        responses=errors(400, 413, 422, 429),
        # The API is described at /openapi.json; the /docs pages would load scripts from a CDN.
        docs_url=None,
        redoc_url=None,
    )
    app.state.store = store
    app.state.quotas = DEFAULT_QUOTAS if quotas is None else tuple(quotas)
    app.state.public_url = public_url.rstrip("/") if public_url else None
    app.state.network_url = network_url.rstrip("/") if network_url else None
    app.state.hub = hub or LocalHub()
    app.state.metrics = Metrics()
    app.state.checker = RecordChecker()  # uploaded records, checked in a worker (nimmt/server/checker.py)
    app.state.options = ServiceOptions(bot_delay, seed, away_grace, bot_workers, bot_budget, idle_after)
    # The web app manifest's own type, whatever the system's MIME table holds.
    mimetypes.add_type("application/manifest+json", ".webmanifest")
    for path, files in static_apps():  # compressed, and cached by a versioned URL (nimmt/server/static.py)
        app.mount(path, files)
    handle_errors(app)
    # Bodies counted while they stream, per-client rates, open connections: nimmt/server/limits.py
    client_limits = app.state.limits = ClientLimits(limits or Limits())
    app.add_middleware(LimitsMiddleware, limits=client_limits,
                       body_limit=body_limit)
    for router in ROUTERS:
        app.include_router(router)
    return app
