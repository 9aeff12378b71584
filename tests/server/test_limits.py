"""Limits that hold (issue 9, item 1): bodies refused while they stream, per-client rates and a cap
on connections, and inputs that once made a 500 or a traceback."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast
from urllib.parse import urlsplit

import httpx
import pytest
import websockets
from starlette.websockets import WebSocket, WebSocketDisconnect

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from nimmt.server import connection as connection_module
from nimmt.server.app import MAX_BODY_BYTES, MAX_RECORD_UPLOAD, create_app
from nimmt.server.connection import Connection
from nimmt.server.limits import RATE_LIMITED_CLOSE, Limits, RateLimiter

from .helpers import Person, create_table, join, legal_cards, run
from .live import LiveServer

MB = 1024 * 1024
# The live server of these tests opens many sockets from one address on purpose.
LIVE_ARGS = ["--limit-sockets", "10000", "--limit-messages", "100000", "--limit-connections", "1000"]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(tmp_path_factory.mktemp("limits") / "nimmt.sqlite3", args=LIVE_ARGS) as server:
        yield server


def _log(server: LiveServer) -> str:
    return "".join(server.output)


def _rss(pid: int) -> int:
    """The resident memory of a process, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _post_raw(url: str, path: str, head: dict[str, str], body_size: int, chunk: int = 64 * 1024,
              chunked: bool = True) -> tuple[int, dict[str, Any], int]:
    """POST ``body_size`` bytes over a plain socket, chunked unless told, reading the answer as soon
    as one comes (the server may answer long before the body ends). Returns the status, the JSON
    answer and how many bytes of the body went out."""
    where = urlsplit(url)
    assert where.hostname in ("127.0.0.1", "localhost")  # loopback only
    connection = socket.create_connection((where.hostname, where.port or 80), timeout=30)
    headers = {"Host": f"{where.hostname}:{where.port}", "Content-Type": "application/json", **head}
    if chunked:
        headers["Transfer-Encoding"] = "chunked"
    connection.sendall((f"POST {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
                        + "\r\n").encode("ascii"))
    piece = (b"%x\r\n" % chunk + b" " * chunk + b"\r\n") if chunked else b" " * chunk
    sent = 0
    answered = False
    with connection:
        try:
            while sent < body_size:  # bounded: body_size / chunk pieces at most
                if select.select([connection], [], [], 0)[0]:
                    answered = True
                    break
                connection.sendall(piece)
                sent += chunk
            if not answered and chunked:
                connection.sendall(b"0\r\n\r\n")
        except OSError:  # the server closed its end: the answer is waiting
            pass
        answer = b""
        try:
            while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < _length(answer):
                data = connection.recv(65536)
                if not data:
                    break
                answer += data
        except OSError:
            pass
    head_part, _, body = answer.partition(b"\r\n\r\n")
    assert head_part, f"no answer after {sent} bytes"
    status = int(head_part.split(b" ", 2)[1])
    return status, json.loads(body[: _length(answer)]), sent


def _length(answer: bytes) -> int:
    for line in answer.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 1 << 30


# -- bodies --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "limit", "size"), [("/api/tables", MAX_BODY_BYTES, 200 * MB),
                                                     ("/api/replay", MAX_RECORD_UPLOAD, 60 * MB)])
def test_a_chunked_body_is_refused_at_its_limit_and_memory_does_not_follow(
    live: LiveServer, path: str, limit: int, size: int
) -> None:
    assert live.process is not None
    before = _rss(live.process.pid)
    status, answer, sent = _post_raw(live.url, path, {}, size)
    grown = _rss(live.process.pid) - before
    assert status == 413
    assert answer["code"] == "too_large" and answer["params"]["limit"] == limit
    # Refused at the limit: the rest was never read (what went out beyond it fits in the two sockets'
    # buffers, a few MB on loopback)...
    assert sent < limit + 16 * MB < size, f"{sent} of {size} bytes went out before the answer"
    # ... and the server's memory did not follow the body.
    assert grown < 16 * MB, f"the server grew by {grown / MB:.1f} MB for a body of {size / MB:.0f} MB"
    assert "Traceback" not in _log(live)


def test_a_declared_length_over_the_limit_is_refused_before_the_body(live: LiveServer) -> None:
    status, answer, sent = _post_raw(live.url, "/api/tables", {"Content-Length": str(10**9)}, 0, chunked=False)
    assert (status, answer["code"], sent) == (413, "too_large", 0)


def test_a_chunked_body_within_its_limit_is_read_whole(live: LiveServer) -> None:
    pieces = [b'{"name": "Ana",', b' "seats": 2, ', b'"bots": ["random"]}']
    created = httpx.post(f"{live.url}/api/tables", content=iter(pieces),
                         headers={"Content-Type": "application/json"})
    assert created.status_code == 201, created.text
    assert httpx.get(f"{live.url}/api/tables/{created.json()['table_id']}").json()["seats"][1]["bot"] == "random"


# -- per-client limits ---------------------------------------------------------------------------
def _app(tmp_path: Path, **limits: int) -> TestClient:
    return TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, limits=Limits(**limits)))


def _assert_rate_limited(response: httpx.Response, most: int) -> None:
    assert response.status_code == 429
    assert response.json()["code"] == "rate_limited"
    wait = int(response.headers["Retry-After"])
    assert 1 <= wait <= most and response.json()["params"]["retry_after"] == wait


def test_creating_and_joining_tables_are_limited_per_client(tmp_path: Path) -> None:
    with _app(tmp_path, tables_per_minute=3, joins_per_minute=2) as client:
        tables = [create_table(client) for _ in range(3)]
        # A minute holds 3: the next one comes 20 s after the first was spent.
        _assert_rate_limited(client.post("/api/tables", json={"name": "Ana", "seats": 2}), 20)
        join(client, tables[0]["table_id"], "Bruno")
        join(client, tables[1]["table_id"], "Carla")
        _assert_rate_limited(client.post(f"/api/tables/{tables[2]['table_id']}/join", json={"name": "Dora"}), 30)
        # Nothing else is limited by them.
        assert client.get("/api/bots").status_code == 200
        assert client.get(f"/api/tables/{tables[2]['table_id']}").json()["seats"][1]["taken"] is False


def _refused(client: TestClient, table_id: str) -> dict[str, Any]:
    """The error a refused WebSocket gets, having checked that it is then closed with 4429."""
    with client.websocket_connect(f"/ws/{table_id}") as socket_:
        error: dict[str, Any] = socket_.receive_json()
        with pytest.raises(WebSocketDisconnect) as closed:
            socket_.receive_json()
        assert closed.value.code == RATE_LIMITED_CLOSE
    return error


def test_opening_websockets_is_limited_per_client(tmp_path: Path) -> None:
    with _app(tmp_path, sockets_per_minute=2) as client:
        table = create_table(client)
        for _ in range(2):
            with client.websocket_connect(f"/ws/{table['table_id']}") as socket_:
                assert Person(socket_, table["token"]).state["type"] == "state"
        error = _refused(client, table["table_id"])
        assert error["type"] == "error" and error["code"] == "rate_limited"
        assert 1 <= error["params"]["retry_after"] <= 30


def test_websocket_messages_are_limited_per_client(tmp_path: Path) -> None:
    with _app(tmp_path, messages_per_minute=5) as client:
        table = create_table(client)
        with client.websocket_connect(f"/ws/{table['table_id']}") as socket_:
            person = Person(socket_, table["token"])  # message 1
            for _ in range(4):  # messages 2 to 5
                assert person.send({"type": "ping"})["type"] == "pong"
            socket_.send_json({"type": "ping"})
            error = person.until(lambda message: message["type"] != "state")
            assert error["type"] == "error" and error["code"] == "rate_limited"
            assert 1 <= error["params"]["retry_after"] <= 12
            with pytest.raises(WebSocketDisconnect) as closed:
                person.until(lambda message: False)
            assert closed.value.code == RATE_LIMITED_CLOSE


def test_open_connections_are_capped_per_client(tmp_path: Path) -> None:
    with _app(tmp_path, connections=2) as client:
        table = create_table(client)
        with client.websocket_connect(f"/ws/{table['table_id']}") as first:
            Person(first, table["token"])
            with client.websocket_connect(f"/ws/{table['table_id']}") as second:
                Person(second, None)
                error = _refused(client, table["table_id"])
                assert error["code"] == "too_many_connections" and error["params"]["limit"] == 2
                refused = client.get("/api/bots")  # an HTTP request is a connection too
                assert refused.status_code == 429 and refused.json()["code"] == "too_many_connections"
            # One closed: there is room again.
            assert client.get("/api/bots").status_code == 200
            with client.websocket_connect(f"/ws/{table['table_id']}") as third:
                assert Person(third, None).state["type"] == "state"


def test_each_address_has_its_own_limits(tmp_path: Path) -> None:
    with LiveServer(tmp_path / "nimmt.sqlite3", args=["--limit-tables", "1"]) as server:
        def create(address: str) -> int:
            # Loopback is a trusted proxy to uvicorn: the address it forwards is the client's.
            return httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2},
                              headers={"X-Forwarded-For": address}).status_code

        assert [create("198.51.100.7"), create("198.51.100.7"), create("198.51.100.8")] == [201, 429, 201]
        assert "Traceback" not in _log(server)
        assert "rate_limited" in _log(server)  # a refusal is one line of the log


def test_a_rate_limiter_refills_and_forgets_old_clients() -> None:
    now = [0.0]
    limiter = RateLimiter(60, max_clients=100, clock=lambda: now[0])
    assert [limiter.take("a") for _ in range(60)] == [0.0] * 60
    assert limiter.take("a") == pytest.approx(1.0)  # one a second
    assert limiter.take("b") == 0.0  # another client has its own bucket
    now[0] += 1.0
    assert limiter.take("a") == 0.0
    for number in range(1000):
        limiter.take(f"client {number}")
    assert len(limiter) == 100  # bounded memory: the least recently seen are forgotten
    assert limiter.take("a") == 0.0  # forgotten, so it starts afresh
    assert RateLimiter(0).take("a") == 0.0  # 0: no limit
    with pytest.raises(ValueError, match="connections"):
        Limits(connections=-1)


# -- no 500, no traceback ------------------------------------------------------------------------
def test_game_numbers_beyond_64_bits_are_unknown_games(live: LiveServer) -> None:
    table = httpx.post(f"{live.url}/api/tables", json={"name": "Ana", "seats": 2}).json()["table_id"]
    for game in (2**63, 2**64, 10**30, -1):
        for path in (f"/api/tables/{table}/games/{game}/record", f"/api/tables/{table}/games/{game}/replay",
                     f"/replay/{table}/{game}"):
            answer = httpx.get(f"{live.url}{path}")
            assert answer.status_code == 404, (path, answer.text)
            assert answer.json()["code"] == "unknown_game"
    assert "Traceback" not in _log(live)


def test_a_lone_surrogate_gets_an_error_and_the_connection_goes_on(live: LiveServer) -> None:
    created = httpx.post(f"{live.url}/api/tables", json={"name": "Ana", "seats": 2}).json()

    async def talk() -> list[dict[str, Any]]:
        answers = []
        async with websockets.connect(f"{live.ws_url}/ws/{created['table_id']}") as connection:

            async def answer(message: str, kinds: tuple[str, ...]) -> None:
                await connection.send(message)
                for _ in range(20):  # the table's updates may come first
                    received = json.loads(await asyncio.wait_for(connection.recv(), 30))
                    if received["type"] in kinds:
                        answers.append(received)
                        return
                raise AssertionError(f"no answer to {message}")

            await answer('{"type": "ping", "ref": "\\ud800"}', ("error", "pong"))  # before hello
            await answer(json.dumps({"type": "hello", "token": created["token"]}), ("state", "error"))
            await answer('{"type": "start", "ref": "a\\udc00"}', ("error", "ack"))  # after hello
            await answer('{"type": "rematch", "ref": "\\ud83d\\ude00"}', ("error", "ack"))  # a real pair
        return answers

    before, state, after, paired = run(talk())
    for error in (before, after):
        assert error["type"] == "error" and error["code"] == "bad_message" and "ref" not in error
        assert "surrogate" in error["message"]
    assert state["type"] == "state"
    # A surrogate pair is a character like any other: the message is understood (and refused, as a
    # rematch before any game is) with its ref.
    assert paired["type"] == "error" and paired["code"] != "bad_message" and paired["ref"] == "\U0001f600"
    assert "Traceback" not in _log(live)


def test_clients_that_leave_while_answered_leave_no_traceback(live: LiveServer) -> None:
    """People who close as their answers go out: each plays, reads its ack and goes at once, while
    the bots' cards are still being sent; spectators come and go meanwhile."""
    created = httpx.post(f"{live.url}/api/tables", json={
        "name": "Ana", "seats": 3, "bots": ["random", "random"], "options": {"rounds": 1}, "start": True}).json()
    table, token = created["table_id"], created["token"]

    async def visit(hello_token: str | None, act: bool) -> bool:
        connection = await websockets.connect(f"{live.ws_url}/ws/{table}")
        try:
            await connection.send(json.dumps({"type": "hello", "token": hello_token}))
            for _ in range(50):  # bounded: the state comes among the first messages
                state = json.loads(await asyncio.wait_for(connection.recv(), 30))
                if state["type"] == "state":
                    break
            cards = legal_cards(state)
            if not (act and cards):
                return False
            await connection.send(json.dumps({"type": "play", "card": cards[0], "version": state["version"]}))
            for _ in range(50):
                answer = json.loads(await asyncio.wait_for(connection.recv(), 30))
                if answer["type"] in ("ack", "error"):
                    return bool(answer["type"] == "ack")
            return False
        finally:
            connection.transport.abort()  # gone at once, without a closing handshake

    async def play() -> int:
        played = 0
        for _ in range(10):  # a round: ten cards
            results = await asyncio.gather(visit(token, True), *(visit(None, False) for _ in range(4)))
            played += results[0]
            await asyncio.sleep(0.05)
        return played

    assert run(play()) >= 1
    assert "Traceback" not in _log(live)
    assert httpx.get(f"{live.url}/api/tables/{table}").status_code == 200


def test_a_connection_whose_client_left_stops_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server side of a client gone mid-answer, as uvicorn shows it: its send raises an OSError
    (ClientDisconnected). Every later send says WebSocketDisconnect, never Starlette's RuntimeError
    about a closed socket, and the writer of updates just stops."""
    gone = False
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: dict[str, Any]) -> None:
        if gone:
            raise OSError("the client is gone")
        sent.append(message)

    class Subscription:
        def __init__(self) -> None:
            self.done_count = 0

        async def get(self) -> Any:
            return SimpleNamespace(table_id="t", version=2, presence=None, recheck=False)

        def done(self) -> None:
            self.done_count += 1

    async def scenario() -> tuple[int, int]:
        nonlocal gone
        websocket = WebSocket({"type": "websocket", "path": "/ws/t", "headers": []}, receive, send)
        await websocket.accept()
        async def follow(_table: Any, _update: Any) -> None:
            pass

        service = SimpleNamespace(follow=follow)
        table = SimpleNamespace(id="t")
        monkeypatch.setattr(connection_module, "state_message", lambda _table, _seat: {"type": "state"})
        connection = Connection(websocket, cast(Any, service), cast(Any, None), cast(Any, table))
        await connection.send({"type": "pong"})
        gone = True
        for _ in range(2):
            with pytest.raises(WebSocketDisconnect):
                await connection.send({"type": "pong"})
        subscription = Subscription()
        await asyncio.wait_for(connection._write(subscription), 5)  # returns: no exception, no hang
        await connection.close(1000)  # nothing to close: no error either
        return len(sent), subscription.done_count

    assert run(scenario()) == (2, 1)  # the accept and the one pong


def test_records_to_replay_are_limited_per_client(tmp_path: Path) -> None:
    """Each record posted to /api/replay costs seconds of a worker's CPU: a few a minute per address."""
    from starlette.testclient import TestClient

    app = create_app(tmp_path / "nimmt.sqlite3", limits=Limits(replays_per_minute=2))
    with TestClient(app) as client:
        answers = [client.post("/api/replay", content=b'{"format": "nimmt/1", "players": []}') for _ in range(3)]
    assert [answer.status_code for answer in answers] == [422, 422, 429]
    assert answers[2].json()["code"] == "rate_limited" and int(answers[2].headers["retry-after"]) >= 1
