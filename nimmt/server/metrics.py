"""What the server measures, for Prometheus (``GET /metrics``), and its logs as JSON lines.

Each app has a registry of its own (so that several apps in one process, as in the tests, never
share counters):

| metric | kind | what |
|---|---|---|
| ``nimmt_actions_total{kind,outcome}`` | counter | WebSocket actions by type and outcome (``ok`` or an error code) |
| ``nimmt_action_seconds{kind}`` | histogram | from an action's arrival to its answer (ack or error) being sent |
| ``nimmt_connections`` | gauge | WebSockets open now |
| ``nimmt_tables`` | gauge | tables held in memory now |
| ``nimmt_bot_decision_seconds{bot}`` | histogram | how long a bot thought about one decision |
| ``nimmt_store_conflicts_total`` | counter | writes that found their number taken by another process \
(each costs a read of the store and a retry) |
| ``nimmt_event_loop_lag_seconds`` | histogram | how late the event loop ran a timer (every ``LAG_EVERY`` s): \
what every message waited on top of its own work; it grows as the process saturates |
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import traceback
from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE_LATEST", "JsonFormatter", "Metrics"]

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_LAG = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_SLOW = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0)


LAG_EVERY = 0.25  # seconds between two looks at the event loop's lag


class Metrics:
    """The server's instruments, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.actions = Counter("nimmt_actions", "Actions received over WebSockets, by message type and outcome "
                               "(ok, or the error code)", ["kind", "outcome"], registry=self.registry)
        self.action_seconds = Histogram("nimmt_action_seconds", "Seconds from an action's arrival to its answer "
                                        "being sent", ["kind"], buckets=_FAST, registry=self.registry)
        self.connections = Gauge("nimmt_connections", "WebSockets open now", registry=self.registry)
        self.tables = Gauge("nimmt_tables", "Tables held in memory now", registry=self.registry)
        self.bot_seconds = Histogram("nimmt_bot_decision_seconds", "Seconds a bot thought about one decision",
                                     ["bot"], buckets=_SLOW, registry=self.registry)

        self.conflicts = Counter("nimmt_store_conflicts", "Writes that found their number taken by another process "
                                 "(each costs a read of the store and a retry)", registry=self.registry)
        self.refused_writes = Counter("nimmt_store_write_failures", "Journal entries the database refused to "
                                      "store (each one's action refused with server_error, nothing applied)",
                                      registry=self.registry)
        self.loop_lag = Histogram("nimmt_event_loop_lag_seconds", "Seconds the event loop ran a timer late (one "
                                  f"every {LAG_EVERY} s): what every message waited on top of its own work",
                                  buckets=_LAG, registry=self.registry)

    async def watch_loop(self) -> None:
        """Until cancelled: how late the event loop wakes up from a sleep, LAG_EVERY seconds at a time."""
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(LAG_EVERY)
            self.loop_lag.observe(max(0.0, loop.time() - asked - LAG_EVERY))

    def count_tables(self, count: Callable[[], int]) -> None:
        self.tables.set_function(lambda: float(count()))

    def bot_decision(self, bot: str, seconds: float) -> None:
        self.bot_seconds.labels(bot=bot).observe(seconds)

    def action(self, kind: str, outcome: str, seconds: float) -> None:
        self.actions.labels(kind=kind, outcome=outcome).inc()
        self.action_seconds.labels(kind=kind).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line: time (UTC, ISO 8601), level, logger, message, and
    the traceback (if any) as one string field."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and record.exc_info[0] is not None:
            data["exception"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        elif record.exc_text:
            data["exception"] = record.exc_text
        if record.stack_info:
            data["stack"] = record.stack_info
        return json.dumps(data, ensure_ascii=False, default=str)


def json_log_config(level: str = "INFO") -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` that writes every record (uvicorn's too) as a JSON line on stderr."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"json": handler},
        "root": {"handlers": ["json"], "level": level},
        "loggers": {
            name: {"handlers": [], "level": level, "propagate": True}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "nimmt")
        },
    }
