"""Request heads against a real ``nimmt serve``: a huge header or URL is refused at its bound
(431, 414) without the server's memory following it, a connection that sends nothing or trickles
its head is answered 408 and closed, and heads still coming count against the per-address cap."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from nimmt.server.guard import HEAD_SECONDS, MOST_HEAD_BYTES, MOST_URL_BYTES
from tests.server.helpers import run
from tests.server.live import LiveServer


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(tmp_path_factory.mktemp("heads") / "nimmt.sqlite3") as server:
        yield server


def _address(server: LiveServer) -> tuple[str, int]:
    parts = urlsplit(server.url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def _rss_kb(server: LiveServer) -> int:
    assert server.process is not None
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _answer(sock: socket.socket, deadline: float) -> bytes:
    """What the server sends until it closes the connection (or the deadline passes)."""
    received = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        received += chunk
    return received


def _send_huge(server: LiveServer, head_start: bytes, filler: int) -> bytes:
    """Send ``head_start`` then ``filler`` bytes of one header's value (or URL), 64 KiB at a time,
    as long as the server reads; return its answer."""
    with socket.create_connection(_address(server), timeout=10) as sock:
        sock.sendall(head_start)
        chunk = b"a" * 65536
        sent = 0
        try:
            while sent < filler:
                sock.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused and closed: the rest is never read
        return _answer(sock, time.monotonic() + 10)


def test_a_16_mb_header_is_refused_at_its_bound_and_memory_does_not_follow(live: LiveServer) -> None:
    before = _rss_kb(live)
    results: list[bytes] = []
    threads = [threading.Thread(target=lambda: results.append(_send_huge(
        live, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ", 16 * 1024 * 1024))) for _ in range(5)]
    for thread in threads:
        thread.start()
    assert httpx.get(f"{live.url}/healthz", timeout=10).status_code == 200  # answered meanwhile
    for thread in threads:
        thread.join(60)
    assert len(results) == 5
    for answer in results:
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert b'"code": "head_too_large"' in answer and str(MOST_HEAD_BYTES).encode() in answer
    assert _rss_kb(live) - before < 30_000, "the server kept what it was sent"


def test_a_long_url_is_refused(live: LiveServer) -> None:
    answer = _send_huge(live, b"GET /", 1024 * 1024)
    assert answer.startswith(b"HTTP/1.1 414 "), answer[:200]
    assert str(MOST_URL_BYTES).encode() in answer
    ordinary = httpx.get(f"{live.url}/healthz?{'a' * 4000}", headers={"X-Fine": "b" * 8000}, timeout=10)
    assert ordinary.status_code == 200  # what a browser sends passes


def test_idle_and_trickling_connections_are_closed(live: LiveServer) -> None:
    """A connection that sends nothing, and one that sends its head a byte a second: both are
    answered 408 and closed once the head's time is out, not before."""
    opened = time.monotonic()
    idle = socket.create_connection(_address(live), timeout=5)
    trickle = socket.create_connection(_address(live), timeout=5)
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 100  # 65 s at this pace

    def send_slowly() -> None:
        for byte in head:
            try:
                trickle.sendall(bytes([byte]))
            except OSError:
                return  # closed by the server
            time.sleep(0.5)

    sender = threading.Thread(target=send_slowly, daemon=True)
    sender.start()
    try:
        answers = [_answer(sock, opened + HEAD_SECONDS + 15) for sock in (idle, trickle)]
    finally:
        idle.close()
        trickle.close()
    sender.join(5)
    closed = time.monotonic() - opened
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b'"code": "too_slow"' in answer
    assert HEAD_SECONDS - 1 <= closed <= HEAD_SECONDS + 15


def test_heads_still_coming_count_against_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Loopback is not a trusted proxy here, so its connections are counted from their first byte.
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "192.0.2.1")
    with LiveServer(tmp_path / "nimmt.sqlite3", args=["--limit-connections", "4"]) as server:
        pending = [socket.create_connection(_address(server), timeout=5) for _ in range(4)]
        try:
            for sock in pending:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # a head, not finished
            time.sleep(0.5)
            with socket.create_connection(_address(server), timeout=5) as fifth:
                answer = _answer(fifth, time.monotonic() + 5)
            assert answer.startswith(b"HTTP/1.1 429 "), answer[:200]
            assert b"too_many_connections" in answer
        finally:
            for sock in pending:
                sock.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the closed ones are counted out
            if httpx.get(f"{server.url}/healthz", timeout=5).status_code == 200:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the cap was not given back")
        assert sum("too_many_connections" in line for line in server.output) >= 1


def test_a_trickling_body_is_answered_408(monkeypatch: pytest.MonkeyPatch) -> None:
    """The body's own bound, on the middleware itself (the real one waits 30 s): a body that stops
    coming is refused once its time is out, and the app never sees the request."""
    import asyncio
    from typing import Any

    from nimmt.server import limits as limits_module
    from nimmt.server.limits import ClientLimits, Limits, LimitsMiddleware

    monkeypatch.setattr(limits_module, "BODY_SECONDS", 0.3)
    seen: list[Any] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope)

    async def receive() -> dict[str, Any]:
        if not sent and not seen and not getattr(receive, "once", False):
            receive.once = True  # type: ignore[attr-defined]
            return {"type": "http.request", "body": b"{", "more_body": True}
        await asyncio.sleep(3600)  # the rest never comes
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    middleware = LimitsMiddleware(app, limits=ClientLimits(Limits()), body_limit=lambda path: 65536)
    scope = {"type": "http", "method": "POST", "path": "/api/tables", "headers": [], "client": ("192.0.2.9", 1)}
    started = time.monotonic()
    run(asyncio.wait_for(middleware(scope, receive, send), 10))
    assert time.monotonic() - started < 5 and not seen
    assert sent[0]["status"] == 408 and b"too_slow" in sent[1]["body"]
