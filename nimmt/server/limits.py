"""Limits that hold against one client's flood, whatever it sends.

:class:`LimitsMiddleware` is a pure ASGI middleware in front of the whole app:

- **Bodies** are counted while they stream in (chunked ones too), and a body over its limit is
  refused with ``413 too_large`` as soon as the limit is passed: nothing past the limit is kept,
  and the connection is closed, so the rest of a huge body is never read. A body must come whole
  within :data:`BODY_SECONDS`, else ``408 too_slow`` (heads are bounded before, in
  :mod:`nimmt.server.guard`).
- **Per client** (by the client's address, as uvicorn reports it: behind a trusted reverse proxy,
  the address the proxy forwards), token buckets limit creating tables, joining tables, posting
  records to check (``/api/replay``) and opening WebSockets; HTTP answers ``429 rate_limited``
  with ``Retry-After``, a WebSocket gets an error message and is closed with code 4429. The
  messages a client sends over its WebSockets are limited the same way
  (:meth:`ClientLimits.message`, used by the connection itself).
- **Open connections** per client (WebSockets, HTTP requests in progress, and connections still
  sending their head: :mod:`nimmt.server.guard`) are capped: ``too_many_connections``.

Memory stays bounded: each limiter keeps at most ``max_clients`` clients (the least recently
seen one is forgotten first), and a client's count of open connections is dropped at zero.
Every refusal is logged as one line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # nimmt serve reads the defaults before it knows the web extra is installed
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

RATE_LIMITED_CLOSE = 4429  # the WebSocket close code of a refusal by these limits
BODY_SECONDS = 30.0  # a whole body (2 MiB at most) within this: a trickle holds no connection for long
logger = logging.getLogger("nimmt.server")
_JOIN = re.compile(r"^/api/tables/[^/]+/join/?$")


@dataclass(frozen=True)
class Limits:
    """What one client (one address) may do; 0 turns a limit off.

    Rates are per minute, and up to a minute's worth may come at once. The defaults leave room
    for a whole table of friends behind one address (one home network, one NAT) playing several
    games, each on a phone and a computer, and reconnecting often.
    """

    tables_per_minute: int = 20
    joins_per_minute: int = 60
    sockets_per_minute: int = 60
    messages_per_minute: int = 1200
    connections: int = 40
    replays_per_minute: int = 6  # records posted to /api/replay (each checked in a worker, seconds of CPU)
    max_clients: int = 10_000  # clients each limiter remembers at most

    def __post_init__(self) -> None:
        for name in ("tables_per_minute", "joins_per_minute", "sockets_per_minute", "messages_per_minute",
                     "connections", "replays_per_minute"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 (no limit) or more, not {getattr(self, name)}")
        if self.max_clients < 1:
            raise ValueError(f"max_clients must be at least 1, not {self.max_clients}")


class RateLimiter:
    """A token bucket per client key: ``per_minute`` tokens, refilled evenly over a minute."""

    def __init__(self, per_minute: int, *, max_clients: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key: (tokens, when)

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str) -> float:
        """0 when ``key`` may go on (a token is spent), else the seconds until it may."""
        if self.capacity <= 0:
            return 0.0
        now = self.clock()
        tokens, when = self._buckets.pop(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + max(0.0, now - when) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens, now)  # now the most recently seen
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait


class ClientLimits:
    """The limiters of one app, shared by the middleware and the WebSocket connections."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits

        def limiter(per_minute: int) -> RateLimiter:
            return RateLimiter(per_minute, max_clients=limits.max_clients, clock=clock)

        self.tables = limiter(limits.tables_per_minute)
        self.joins = limiter(limits.joins_per_minute)
        self.sockets = limiter(limits.sockets_per_minute)
        self.messages = limiter(limits.messages_per_minute)
        self.replays = limiter(limits.replays_per_minute)
        self.open: dict[str, int] = {}  # open connections per client, only those above 0

    def message(self, key: str) -> float:
        """0 when the client may send one more WebSocket message, else the seconds to wait."""
        return self.messages.take(key)

    def enter(self, key: str) -> bool:
        """Count one more open connection for ``key``, unless it has as many as it may."""
        cap = self.limits.connections
        count = self.open.get(key, 0)
        if cap and count >= cap:
            return False
        self.open[key] = count + 1
        return True

    def leave(self, key: str) -> None:
        count = self.open.get(key, 0) - 1
        if count > 0:
            self.open[key] = count
        else:
            self.open.pop(key, None)


def client_key(scope: Scope) -> str:
    """Who a request comes from: its address (a reverse proxy's forwarded one when trusted)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class LimitsMiddleware:
    """Body limits while the body streams, per-client rates and a cap on open connections."""

    def __init__(self, app: ASGIApp, *, limits: ClientLimits, body_limit: Callable[[str], int]) -> None:
        self.app = app
        self.limits = limits
        self.body_limit = body_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        key = client_key(scope)
        if not self.limits.enter(key):
            await self._refuse(scope, receive, send, 429, "too_many_connections",
                               f"at most {self.limits.limits.connections} connections at once from one address",
                               limit=self.limits.limits.connections)
            return
        try:
            limiter = self._limiter(scope)
            wait = limiter.take(key) if limiter is not None else 0.0
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                await self._refuse(scope, receive, send, 429, "rate_limited",
                                   f"too many requests from this address: try again in {seconds} s",
                                   retry_after=seconds)
                return
            if kind == "http":
                replay = await self._read_body(scope, receive, send)
                if replay is None:
                    return
                receive = replay
            await self.app(scope, receive, send)
        finally:
            self.limits.leave(key)

    def _limiter(self, scope: Scope) -> RateLimiter | None:
        path = scope["path"]
        if scope["type"] == "websocket":
            return self.limits.sockets if path.startswith("/ws/") else None
        if scope["method"] != "POST":
            return None
        if path.rstrip("/") in ("/api/tables", "/api/lobby/quick"):  # quick match may open a table
            return self.limits.tables
        if path.rstrip("/") in ("/api/replay", "/api/replay/review"):  # each costs seconds of a worker
            return self.limits.replays
        return self.limits.joins if _JOIN.match(path) else None

    async def _read_body(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """The whole body, read here up to its limit; None when it was refused (or the client left)."""
        limit = self.body_limit(scope["path"])
        too_large = f"the request is larger than {limit} bytes"
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > limit):
                await self._refuse(scope, receive, send, 413, "too_large", too_large, limit=limit)
                return None
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + BODY_SECONDS
        while True:
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    message = await receive()
            except TimeoutError:
                chunks.clear()
                await self._refuse(scope, receive, send, 408, "too_slow",
                                   f"the request's body did not come within {BODY_SECONDS:g} s", seconds=BODY_SECONDS)
                return None
            if message["type"] == "http.disconnect":
                return None  # nobody is left to answer
            body = message.get("body", b"")
            size += len(body)
            if size > limit:
                # Refused at the limit: what came so far is dropped, and the connection closes, so
                # the rest is never read.
                chunks.clear()
                await self._refuse(scope, receive, send, 413, "too_large", too_large, limit=limit)
                return None
            if body:
                chunks.append(body)
            if not message.get("more_body", False):
                break
        whole: Message | None = {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        async def replay() -> Message:
            nonlocal whole
            if whole is not None:
                message, whole = whole, None
                return message
            return await receive()

        return replay

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str,
                      **params: Any) -> None:
        logger.warning("refused %s %s from %s: %s (%s)", scope.get("method", "WEBSOCKET"), scope["path"],
                       client_key(scope), code, message)
        payload = {"code": code, "message": message, "params": params}
        if scope["type"] == "websocket":
            first = await receive()
            if first["type"] != "websocket.connect":
                return
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": json.dumps({"type": "error", **payload})})
            await send({"type": "websocket.close", "code": RATE_LIMITED_CLOSE, "reason": code})
            return
        body = json.dumps(payload).encode("utf-8")
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii"))]
        if "retry_after" in params:
            headers.append((b"retry-after", str(params["retry_after"]).encode("ascii")))
        if code in ("too_large", "too_slow"):
            headers.append((b"connection", b"close"))  # the rest of the body is not read
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
