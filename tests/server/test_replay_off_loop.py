"""A 2 MB record posted to ``/api/replay`` is checked in a worker, not on the event loop: while it
is, two people at another table play on and every action of theirs is answered; the upload itself
is answered within its budget (its turns, or ``413 too_large`` past the worker's time). A real
``nimmt serve``; the timings are printed, never asserted tightly (a shared 2-core machine)."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from nimmt.bots import make_bot
from nimmt.core import Rules
from nimmt.match import play_game
from nimmt.server.checker import CHECK_SECONDS

from .helpers import legal_cards, legal_rows, run
from .live import LiveServer

MB = 1024 * 1024


def _record_of_about_2_mb() -> bytes:
    """A finished game of ten random bots, long enough to weigh nearly 2 MB (some 1,600 rounds)."""
    bots = [make_bot("random", random.Random(seat)) for seat in range(10)]
    record = json.dumps(play_game(bots, random.Random(3), Rules(rounds=1500)).to_json()).encode()
    assert 1.5 * MB < len(record) <= 2 * MB, len(record)
    return record


async def _play_while(server: LiveServer, table_id: str, tokens: list[str], until: threading.Event,
                      answers: list[float]) -> None:
    """Ana and Bruno play their cards one after the other until ``until`` is set; the seconds from
    each play to its answer go to ``answers``."""
    url = f"{server.ws_url}/ws/{table_id}"
    async with websockets.connect(url) as ana, websockets.connect(url) as bruno:
        sockets = [ana, bruno]
        for socket, token in zip(sockets, tokens, strict=True):
            await socket.send(json.dumps({"type": "hello", "token": token}))
            json.loads(await asyncio.wait_for(socket.recv(), 60))  # the first state
        await ana.send(json.dumps({"type": "start", "ref": "s"}))
        turn = 0
        while not until.is_set() and turn < 2000:
            socket = sockets[turn % 2]
            turn += 1
            await socket.send(json.dumps({"type": "ping"}))
            state: dict[str, Any] = {}
            while True:  # the newest state, up to the pong
                message = json.loads(await asyncio.wait_for(socket.recv(), 60))
                if message["type"] == "state":
                    state = message
                if message["type"] == "pong":
                    break
            if not state:
                continue
            if rows := legal_rows(state):
                move: dict[str, Any] = {"type": "choose_row", "row": rows[0]}
            elif cards := legal_cards(state):
                move = {"type": "play", "card": cards[0]}
            else:
                await asyncio.sleep(0.05)  # the other one's decision
                continue
            sent = time.perf_counter()
            await socket.send(json.dumps({**move, "version": state["version"], "ref": str(turn)}))
            while True:
                message = json.loads(await asyncio.wait_for(socket.recv(), 60))
                if message["type"] in ("ack", "error") and message.get("ref") == str(turn):
                    answers.append(time.perf_counter() - sent)
                    break
            await asyncio.sleep(0.05)


@pytest.mark.timeout(600)
def test_a_2_mb_record_does_not_stop_another_table(tmp_path: Path) -> None:
    record = _record_of_about_2_mb()
    with LiveServer(tmp_path / "nimmt.sqlite3", args=["--limit-messages", "0"]) as server, \
            httpx.Client(base_url=server.url, timeout=120) as http:
        created = http.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"coach": False}}).json()
        bruno = http.post(f"/api/tables/{created['table_id']}/join", json={"name": "Bruno"}).json()
        answers: list[float] = []
        done = threading.Event()

        async def both() -> tuple[int, float, list[float], int]:
            """The two play while, in the same event loop, the record is posted."""
            player = asyncio.create_task(_play_while(server, created["table_id"],
                                                     [created["token"], bruno["token"]], done, answers))
            await asyncio.sleep(2)  # the game is under way
            before = len(answers)
            async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
                started = time.perf_counter()
                uploaded = await client.post("/api/replay", content=record)
                took = time.perf_counter() - started
                during = answers[before:]
                health = (await client.get("/healthz")).status_code
            done.set()
            await asyncio.wait_for(player, 120)
            return uploaded.status_code, took, during, health

        status, took, during, health = run(both())
        answer = http.get("/healthz")
    print(f"upload of {len(record) / MB:.2f} MB answered {status} after {took:.1f} s; "
          f"meanwhile {len(during)} plays answered, the slowest in {max(during, default=0) * 1000:.0f} ms")
    assert status in (200, 413)
    assert took < CHECK_SECONDS + 30  # the worker's budget, and room for a busy machine
    assert health == 200 and answer.status_code == 200
    assert len(during) >= 3, "the other table was not answered while the record was checked"
    assert max(during) < 2.0, f"a play waited {max(during):.2f} s behind the upload"
