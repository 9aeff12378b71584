"""The table's WebSocket fuzzed (issue 9): whatever frames a client sends, before and after its
hello, each gets one answer (an ``error`` of a code docs/protocol.md lists, or what the message
asks for), the connection stays open, a refused message leaves the table's version where it was,
a legal action still works afterwards, and the server logs no traceback.

Hypothesis makes the frames: JSON of the wrong shapes, messages with fields of the wrong types,
huge numbers, text with lone surrogates, text that is not JSON, binary frames, frames over the
message limit. The run is bounded and derandomized: the same frames on every run, against a
real ``nimmt serve`` on loopback (uvicorn's framing and close codes included).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nimmt.server.models import MAX_MESSAGE_BYTES
from nimmt.server.reactions import REACTIONS

from .helpers import legal_cards, legal_rows, run
from .live import LiveServer

EXAMPLES = 60  # lists of up to 4 frames, each sent before and after hello
WAIT = 15.0  # seconds an answer may take on a loaded machine before it counts as missing
# This test opens many sockets and sends many messages from one address on purpose.
NO_LIMITS = ["--limit-sockets", "0", "--limit-messages", "0", "--limit-connections", "0"]
PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def documented_codes() -> set[str]:
    """The error codes of the table in docs/protocol.md's *Messages from the server*."""
    text = PROTOCOL.read_text(encoding="utf-8")
    table = text.split("| code | when |", 1)[1].split("\n\n", 1)[0]
    codes = {code for line in table.splitlines()[2:] for code in re.findall(r"`([a-z_]+)`", line.split("|")[1])}
    assert {"bad_json", "bad_message", "too_large", "stale", "hello_first"} <= codes
    return codes


CODES = documented_codes()
CLOSE_CODES = {1009, 4404, 4408, 4429}  # the close codes docs/protocol.md names

# -- the frames ----------------------------------------------------------------------------------
_numbers = st.one_of(
    st.integers(-3, 110), st.integers(), st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**40]),
    st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
)
# Text of any code points, lone surrogates included, and a few strange ones for sure.
_text = st.text(st.characters(codec=None), max_size=80) | st.sampled_from(
    ["\ud800", "\udfff", "x\udc00y", "\ud83d", "\ud83d\ude00", "\x00", "\u2028", "\ufeff", "é" * 70]
)
_json = st.recursive(
    st.none() | _numbers | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)
_types = st.sampled_from(["hello", "play", "choose_row", "start", "rematch", "seat_to_bot", "advice", "ping",
                          "react", "pong", "state", "ack", "reaction", "dance", ""])
_fields = st.sampled_from(["card", "row", "version", "seat", "bot", "token", "ref", "type", "name", "hand",
                           "reaction"])
_values = st.none() | _numbers | _text | _json | st.sampled_from(REACTIONS)
# Messages that look like the real ones: a known type, often a ref, fields with any values.
_messages = st.builds(
    lambda kind, ref, fields: {"type": kind, **ref, **fields},
    _types, st.builds(lambda ref: {"ref": ref}, _text) | st.builds(lambda ref: {"ref": ref}, _values) | st.just({}),
    st.dictionaries(_fields, _values, max_size=3),
)


def _as_text(value: Any) -> str:
    # ensure_ascii writes a lone surrogate as the escape a browser's JSON.stringify would send
    return json.dumps(value, ensure_ascii=True)


_frames = st.one_of(
    _messages.map(_as_text),
    _json.map(_as_text),
    st.text(st.characters(codec="utf-8"), max_size=80),  # mostly not JSON (a frame's text is UTF-8)
    st.binary(max_size=64),
    st.builds(lambda pad: _as_text({"type": "start", "pad": "x" * pad}), st.integers(MAX_MESSAGE_BYTES - 30,
                                                                                       2 * MAX_MESSAGE_BYTES)),
)


# -- the table -----------------------------------------------------------------------------------
@dataclass
class Table:
    server: LiveServer
    id: str
    tokens: list[str]  # Ana's (seat 0, the host) and Bruno's

    http: httpx.Client

    def version(self) -> int:
        version: int = self.http.get(f"/api/tables/{self.id}").json()["version"]
        return version


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    """A started game of two people (no bot: only these tests move its version); no coach, so an
    ``advice`` is answered at once."""
    with LiveServer(tmp_path_factory.mktemp("fuzz_ws") / "nimmt.sqlite3", args=NO_LIMITS) as server, \
            httpx.Client(base_url=server.url, timeout=WAIT) as http:
        created = http.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"coach": False}}).json()
        bruno = http.post(f"/api/tables/{created['table_id']}/join", json={"name": "Bruno"}).json()
        found = Table(server, created["table_id"], [created["token"], bruno["token"]], http)

        async def start() -> None:
            async with Socket(found) as ana:
                await ana.hello(found.tokens[0])
                assert (await ana.exchange(_as_text({"type": "start"})))["type"] == "ack"

        run(start())
        yield found
        assert "Traceback" not in "".join(server.output)


class Socket:
    """One connection. Each frame is answered once, so the first answer after a frame is its answer;
    :meth:`flush` then sends a sentinel (a ``start`` with a ref of its own, refused wherever it comes)
    and checks that no second answer to any frame came before the sentinel's."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.greeted = False
        self.state: dict[str, Any] = {}
        self.sentinels = 0

    async def __aenter__(self) -> Socket:
        self.connection = await websockets.connect(f"{self.table.server.ws_url}/ws/{self.table.id}",
                                                   max_size=None)
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.connection.close()

    async def _next(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.connection.recv(), WAIT))
        return message

    async def hello(self, token: str | None) -> dict[str, Any]:
        await self.connection.send(_as_text({"type": "hello", "token": token}))
        while (message := await self._next())["type"] != "state":  # bounded by WAIT each
            assert message["type"] != "error", message
        self.greeted, self.state = True, message
        return message

    async def _answer(self) -> dict[str, Any]:
        """The next message that is not an update of the table (a state after the hello)."""
        while True:  # bounded: each wait is at most WAIT
            message = await self._next()
            if message["type"] == "reaction" and self.greeted:
                continue  # a reaction passed on to the table: news, not an answer
            if message["type"] != "state" or not self.greeted:
                if message["type"] == "state":
                    self.greeted = True  # the frame was a good hello
                return message
            self.state = message

    async def exchange(self, frame: str | bytes) -> dict[str, Any]:
        """Send ``frame``: its answer (a frame without one fails here, after WAIT)."""
        await self.connection.send(frame)
        return await self._answer()

    async def sync(self) -> dict[str, Any]:
        """The current state: a pong comes after every update published before the ping."""
        assert (await self.exchange(_as_text({"type": "ping"})))["type"] == "pong"
        return self.state

    async def flush(self) -> None:
        """No frame got a second answer: the next answer is the sentinel's."""
        self.sentinels += 1
        ref = f"sentinel {self.sentinels}"
        answer = await self.exchange(_as_text({"type": "start", "ref": ref}))
        assert answer.get("ref") == ref, f"an answer too many: {answer}"
        assert answer["code"] in ("hello_first", "already_started", "spectator"), answer


def _check_answer(frame: str | bytes, answer: dict[str, Any], greeted: bool) -> None:
    shown = repr(frame)[:200]
    kinds = ("error", "ack", "pong", "advice") if greeted else ("error", "state")
    assert answer["type"] in kinds, f"{shown}: {answer}"
    if answer["type"] == "error":
        assert answer["code"] in CODES, f"{shown}: an undocumented code {answer['code']!r}"
        assert isinstance(answer["message"], str) and answer["message"]
        assert answer["code"] not in ("server_error", "advice_failed"), f"{shown}: {answer}"
    if "ref" in answer:
        assert isinstance(answer["ref"], str) and len(answer["ref"]) <= 64


async def _legal_action(table: Table, rng: random.Random) -> None:
    """Whoever the table waits for acts (a card, a row, or a rematch after the game): acknowledged."""
    for token in table.tokens:
        async with Socket(table) as person:
            state = await person.hello(token)
            rows, cards = legal_rows(state), legal_cards(state)
            if state["table"]["status"] == "over" and token == table.tokens[0]:
                action: dict[str, Any] = {"type": "rematch"}
            elif rows:
                action = {"type": "choose_row", "row": rng.choice(rows), "version": state["version"]}
            elif cards:
                action = {"type": "play", "card": rng.choice(cards), "version": state["version"]}
            else:
                continue
            answer = await person.exchange(_as_text(action))
            assert answer["type"] == "ack", (action, answer)
            return
    raise AssertionError("nobody at the table could act")


@given(frames=st.lists(_frames, min_size=1, max_size=4), seed=st.integers(0, 2**32))
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_any_frames_get_documented_answers_and_leave_the_table_whole(
    table: Table, frames: list[str | bytes], seed: int
) -> None:
    logged = len(table.server.output)

    async def scenario() -> None:
        before = table.version()
        async with Socket(table) as socket:
            for frame in frames:  # before hello (unless a frame is a good hello, of a spectator at most)
                greeted = socket.greeted
                _check_answer(frame, await socket.exchange(frame), greeted)
            await socket.flush()
        assert table.version() == before, "a frame before hello moved the table's version"
        acks = []
        async with Socket(table) as ana:
            await ana.hello(table.tokens[0])
            for frame in frames:
                answer = await ana.exchange(frame)
                _check_answer(frame, answer, True)
                if answer["type"] == "ack":  # a good action, made by chance: the table moved on
                    acks.append(answer["version"])
            await ana.flush()
        # Only what was acknowledged moved the table (the version is read over HTTP, apart from the socket).
        assert table.version() == before if not acks else table.version() >= max(acks) > before
        await _legal_action(table, random.Random(seed))

    run(scenario())
    assert "Traceback" not in "".join(table.server.output[logged:])  # this example's own lines


def test_a_frame_over_64_kib_closes_the_connection_with_1009(table: Table) -> None:
    async def scenario() -> int | None:
        async with Socket(table) as socket:
            await socket.hello(None)
            await socket.connection.send("x" * (64 * 1024 + 1))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                for _ in range(100):  # bounded: the close comes after any updates on their way
                    await socket._next()
            assert closed.value.rcvd is not None
            return closed.value.rcvd.code

    assert run(scenario()) == 1009 and 1009 in CLOSE_CODES
    assert "Traceback" not in "".join(table.server.output)


def test_a_person_who_drops_mid_action_comes_back_to_the_current_state(table: Table) -> None:
    """Ana plays and drops at once (no closing handshake, her ack unread); Bruno plays meanwhile.
    Back, Ana gets the current state: the table's version, the same turn and choices as Bruno sees,
    her card chosen or still in her hand (never half of it), and she can go on playing."""

    async def scenario() -> None:
        rng = random.Random(1)
        for _ in range(10):  # bounded: whatever the fuzzing left, the table soon waits for Ana's card
            async with Socket(table) as ana:
                state = await ana.hello(table.tokens[0])
            if legal_cards(state):
                break
            await _legal_action(table, rng)
        assert legal_cards(state), state["view"]["phase"]
        card = legal_cards(state)[0]
        dropped = await websockets.connect(f"{table.server.ws_url}/ws/{table.id}")
        await dropped.send(_as_text({"type": "hello", "token": table.tokens[0]}))
        await dropped.send(_as_text({"type": "play", "card": card, "version": state["version"]}))
        dropped.transport.abort()  # gone at once, as a phone losing its network
        async with Socket(table) as bruno:
            seen = await bruno.hello(table.tokens[1])
            if legal_cards(seen):
                answer = await bruno.exchange(_as_text({"type": "play", "card": legal_cards(seen)[0],
                                                        "version": seen["version"]}))
                assert answer["type"] == "ack", answer
            await bruno.flush()
            async with Socket(table) as ana:
                back = await ana.hello(table.tokens[0])
                now = await bruno.sync()
                assert back["version"] == table.version() == now["version"]
                for key in ("round", "turn", "rows", "has_chosen", "totals"):
                    assert back["view"][key] == now["view"][key], key
                # Her card was stored whole (chosen, or revealed once Bruno's came) or not at all.
                view = back["view"]
                if card in view["hand"]:
                    assert view["my_card"] is None and not view["has_chosen"][0]
                else:
                    revealed = back["reveal"]["cards"] if back["reveal"] else []
                    assert view["my_card"] == card or [card, 0] in revealed, back
        await _legal_action(table, random.Random(3))

    run(scenario())
    assert "Traceback" not in "".join(table.server.output)


# Every integer field of every message a browser sends (docs/protocol.md), the rest of the message
# good, and numbers past the protocol's range: past 64 bits (orjson, which writes the answers, cannot
# hold them), and just past.
_PAST = (2**64, -(2**64) - 1, 2**63, 10**40, 2**1000)


def _with_big_integers(state: dict[str, Any]) -> list[dict[str, Any]]:
    version = state["version"]
    card = (legal_cards(state) or [1])[0]
    messages: list[dict[str, Any]] = []
    for number in _PAST:
        messages += [{"type": "play", "card": number, "version": version},
                     {"type": "play", "card": card, "version": number},
                     {"type": "choose_row", "row": number, "version": version},
                     {"type": "choose_row", "row": 0, "version": number},
                     {"type": "seat_to_bot", "seat": number, "bot": "random"}]
    return messages


def test_integers_past_64_bits_are_refused_with_a_code(table: Table) -> None:
    logged = len(table.server.output)

    async def scenario() -> None:
        before = table.version()
        async with Socket(table) as ana:
            state = await ana.hello(table.tokens[0])
            for index, message in enumerate(_with_big_integers(state)):
                frame = _as_text({**message, "ref": f"big {index}"})
                answer = await ana.exchange(frame)
                _check_answer(frame, answer, True)
                assert answer["type"] == "error" and answer["code"] == "bad_message", (frame[:120], answer)
                assert answer.get("ref") == f"big {index}"
                assert not any(str(number) in json.dumps(answer) for number in _PAST)  # never echoed
            await ana.flush()
        assert table.version() == before

    run(scenario())
    assert "Traceback" not in "".join(table.server.output[logged:])


def test_a_websocket_handshake_trickled_is_answered_408_and_the_table_goes_on(table: Table) -> None:
    """A client that sends its upgrade request a byte at a time: closed with 408 once the head's
    time is out, and the table answers the others meanwhile."""
    import socket
    import threading
    import time
    from urllib.parse import urlsplit

    from nimmt.server.guard import HEAD_SECONDS

    parts = urlsplit(table.server.url)
    head = (f"GET /ws/{table.id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").encode()
    opened = time.monotonic()
    with socket.create_connection((parts.hostname, parts.port), timeout=HEAD_SECONDS + 20) as sock:
        def trickle() -> None:
            for byte in head:
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    return
                time.sleep(0.5)

        sender = threading.Thread(target=trickle, daemon=True)
        sender.start()
        assert table.version() >= 0  # answered while the trickle goes on
        answer = sock.recv(4096)
    sender.join(5)
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
    assert HEAD_SECONDS - 1 <= time.monotonic() - opened <= HEAD_SECONDS + 15
    assert "Traceback" not in "".join(table.server.output)
