"""Running it as a service: the health check and the Prometheus metrics."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from nimmt import __version__

from ..metrics import CONTENT_TYPE_LATEST, Metrics
from ..models import Health
from ..store import Store
from .common import Service, store_of

HEALTH_WAIT = 5.0  # seconds the store has to answer a health check
logger = logging.getLogger("nimmt.server")
router = APIRouter(tags=["service"])


@router.get("/healthz", response_model=Health,
            responses={503: {"model": Health, "description": "the store does not answer, or refuses writes"}})
async def healthz(store: Annotated[Store, Depends(store_of)], service: Service) -> JSONResponse:
    """200 when the store answers a read and takes a write (a write undone), both within 5 s; else 503."""
    try:
        # Something small: a table that cannot exist.
        await asyncio.wait_for(store.journal("~healthz"), HEALTH_WAIT)
    except Exception as error:  # the store is down, or too slow to count as up
        logger.warning("health check: the store does not answer (%s)", type(error).__name__)
        return JSONResponse({"status": "unavailable", "store": "down", "version": __version__}, status_code=503)
    try:
        await asyncio.wait_for(store.check_write(), HEALTH_WAIT)
    except Exception as error:  # it reads, but every action would be refused: not healthy
        logger.warning("health check: the store refuses writes (%s: %s)", type(error).__name__, str(error)[:200])
        return JSONResponse({"status": "unavailable", "store": "down", "writes": "refused", "version": __version__},
                            status_code=503)
    return JSONResponse({"status": "ok", "store": "up", "writes": "ok", "version": __version__,
                         "tables": len(service.tables)})


@router.get("/metrics", response_class=Response)
async def prometheus_metrics(request: Request) -> Response:
    """Prometheus metrics (text format): actions, action latency, connections, tables, bot time."""
    metrics: Metrics = request.app.state.metrics
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
