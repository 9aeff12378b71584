"""Request heads bounded before the app sees them: size, time, and the connections still sending one.

uvicorn's httptools parser keeps whatever head a client sends (a 100 MB header or URL was read
whole) and waits for it as long as the client likes (a connection that sends nothing, or a byte now
and then, stays open: its keep-alive timer is reset by every byte). :func:`guarded_http` makes
uvicorn's own httptools protocol refuse, as the most trusted servers do:

- a request line's URL over :data:`MOST_URL_BYTES`: ``414 url_too_long``;
- a whole head (request line, headers and their separators) over :data:`MOST_HEAD_BYTES`:
  ``431 head_too_large``, counted on the bytes as they come (httptools itself would keep a
  header's value whole until its end);
- a head not complete :data:`HEAD_SECONDS` after the connection opened (or, on a kept-alive
  connection, after the request's first byte), however slowly it trickles: ``408 too_slow``;
- a connection that is still sending its head counts against the per-address cap of open
  connections (:meth:`~nimmt.server.limits.ClientLimits.enter`, shared with the requests in
  progress and the WebSockets): one over the cap is answered ``429 too_many_connections`` at once.
  Behind a trusted proxy (uvicorn's ``FORWARDED_ALLOW_IPS``) the client is not known before its
  head is read, and the proxy's own limits hold instead (``docs/deploy/``, nginx).

Each refusal is one line of the log and closes the connection: the rest is never read.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httptools
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from nimmt.core.errors import NimmtError

from .limits import ClientLimits

MOST_URL_BYTES = 8 * 1024  # the request line's target (nginx's default buffer for it)
MOST_HEAD_BYTES = 24 * 1024  # a whole head: room for a browser's cookies, far from what hurts
HEAD_SECONDS = 10.0  # from the connection (or the request's first byte) to the end of its head

logger = logging.getLogger("nimmt.server")
_REASONS = {408: b"Request Timeout", 414: b"URI Too Long", 429: b"Too Many Requests",
            431: b"Request Header Fields Too Large"}


class _Refused(NimmtError):
    """Raised in a parser callback: the head is refused, parsing stops."""


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with bounded heads (see the module)."""

    limits: ClientLimits | None = None
    most_url = MOST_URL_BYTES
    most_head = MOST_HEAD_BYTES
    head_seconds = HEAD_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._url_bytes = 0
        self._head_open = True  # the next bytes are (part of) a request's head
        self._head_raw = 0  # bytes of that head so far
        self._head_room = self.most_head
        self._head_timer: asyncio.TimerHandle | None = None
        self._pending: str | None = None  # the address whose cap counts this head, while it comes
        self._refusal: tuple[int, str, str, dict[str, Any]] | None = None
        self._trusted = _TrustedHosts(self.config.forwarded_allow_ips) if self.config.proxy_headers else None

    # -- the connection ----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if self.limits is not None and address and not (self._trusted is not None and address in self._trusted):
            if not self.limits.enter(address):
                cap = self.limits.limits.connections
                self._refuse(429, "too_many_connections", f"at most {cap} connections at once from one address",
                             limit=cap)
                return
            self._pending = address
        self._start_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_done()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None:
            return  # refused: nothing more is read
        self._unset_keepalive_if_required()
        # While a head comes, it is fed no further than its bound: httptools keeps a header's
        # value whole until its end, so the bound is kept here, on the bytes themselves.
        while data:
            if self._head_open:
                room = self._head_room - self._head_raw
                piece, data = data[:room], data[room:]
                self._head_raw += len(piece)
            else:
                piece, data = data, b""
            if not self._feed(piece):
                return
            if self._head_open and self._head_raw >= self._head_room:
                self._refuse(431, "head_too_large", f"the request's head is larger than {self._head_room} bytes",
                             limit=self._head_room)
                return

    def _feed(self, data: bytes) -> bool:
        """uvicorn's own ``data_received``, but for refusals; False when nothing more is to be parsed."""
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return False
        except httptools.HttpParserError as error:
            if isinstance(error.__context__, _Refused) and self._refusal is not None:
                status, code, message, params = self._refusal
                self._refusal = None
                self._refuse(status, code, message, **params)
                return False
            message = "Invalid HTTP request received."
            self.logger.warning(message)
            self.send_400_response(message)
            return False
        return True

    # -- the head, as it is parsed ----------------------------------------------------------
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._url_bytes = 0
        if self._head_timer is None:
            self._start_head_timer()  # a kept-alive connection's next request

    def on_url(self, url: bytes) -> None:
        self._url_bytes += len(url)
        if self._url_bytes > self.most_url:
            self._refusal = (414, "url_too_long", f"the address is longer than {self.most_url} bytes",
                             {"limit": self.most_url})
            raise _Refused
        super().on_url(url)

    def on_headers_complete(self) -> None:
        self._head_open = False
        self._head_done()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._head_open, self._head_raw = True, 0  # what comes next is the next request's head
        super().on_message_complete()

    # -- helpers ----------------------------------------------------------------------------
    def _start_head_timer(self) -> None:
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_too_slow)

    def _head_done(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        if self._pending is not None and self.limits is not None:
            self.limits.leave(self._pending)
        self._pending = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self.transport.close()  # a response is on its way: no answer can be put before it
            return
        self._refuse(408, "too_slow", f"the request's head did not come within {self.head_seconds:g} s",
                     seconds=self.head_seconds)

    def _refuse(self, status: int, code: str, message: str, **params: Any) -> None:
        """Answer ``status`` with the app's kind of error body, and close: the rest is never read."""
        self._head_done()
        self._refusal = (status, code, message, params)  # from now on, data is dropped
        client = self.client[0] if self.client else "unknown"
        logger.warning("refused a request head from %s: %s (%s)", client, code, message)
        body = json.dumps({"code": code, "message": message, "params": params}).encode("utf-8")
        head = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status]), b"content-type: application/json\r\n",
                b"content-length: %d\r\n" % len(body), b"connection: close\r\n"]
        if status == 429:
            head.append(b"retry-after: 1\r\n")
        if not self.transport.is_closing():
            self.transport.write(b"".join(head) + b"\r\n" + body)
            self.transport.close()


def guarded_http(limits: ClientLimits | None, **bounds: float) -> type[GuardedHttpTools]:
    """The protocol class for ``uvicorn.Config(http=...)``, counting heads against ``limits``
    (the app's, ``app.state.limits``); ``bounds`` may change ``most_url``, ``most_head``,
    ``head_seconds``."""
    return type("GuardedHttpTools", (GuardedHttpTools,), {"limits": limits, **bounds})
