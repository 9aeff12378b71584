"""Running it as a service: the health check and the Prometheus metrics."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from nimmt import __version__

from ..metrics import CONTENT_TYPE_LATEST, Metrics
from ..models import Health
from ..store import Store
from .common import Service, store_failure_text, store_of

HEALTH_WAIT = 5.0  # seconds the store has to answer each step of a health check
logger = logging.getLogger("nimmt.server")
router = APIRouter(tags=["service"])


def _unavailable(**answer: Any) -> JSONResponse:
    return JSONResponse({"status": "unavailable", **answer, "version": __version__}, status_code=503,
                        headers={"Cache-Control": "no-store"})


@router.get("/healthz", response_model=Health, responses={503: {
    "model": Health, "description": "the store does not answer a read, or a write does not reach it: "
    "`failed` says which, `error` what the database said"}})
async def healthz(store: Annotated[Store, Depends(store_of)], service: Service) -> JSONResponse:
    """200 when the store answers a read and a real write reaches it (this process's probe row
    written and committed: on disk), each within 5 s; else 503 with what failed."""
    try:
        # Something small: a table that cannot exist.
        await asyncio.wait_for(store.journal("~healthz"), HEALTH_WAIT)
    except Exception as error:  # the store is down, or too slow to count as up
        logger.warning("health check: the store does not answer (%s)", store_failure_text(error))
        return _unavailable(store="down", failed="read", error=store_failure_text(error))
    try:
        await asyncio.wait_for(store.check_write(), HEALTH_WAIT)
    except Exception as error:  # it reads, but every action would be refused: not healthy
        logger.warning("health check: a write does not reach the store (%s)", store_failure_text(error))
        return _unavailable(store="up", writes="refused", failed="write", error=store_failure_text(error))
    return JSONResponse({"status": "ok", "store": "up", "writes": "ok", "version": __version__,
                         "tables": len(service.tables)}, headers={"Cache-Control": "no-store"})


@router.get("/metrics", response_class=Response)
async def prometheus_metrics(request: Request) -> Response:
    """Prometheus metrics (text format): actions, action latency, connections, tables, bot time."""
    metrics: Metrics = request.app.state.metrics
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
