"""Bots ready everywhere (issue 22, item 3; issue 18, item 6): nobody waits for a compile.

While the compiled kernels are not prepared (a machine's first run) or the workers are slow to
start, a strong bot's move and the coach's answer come at once from the quicker policy, marked
quick; nothing in the log but one line. The last test does it for real: ``nimmt serve`` on an
empty kernel cache, with the CPU taken by other processes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from nimmt.core import PlayCard, apply, deal_cards, new_game, view
from nimmt.server import botpool
from nimmt.server.botpool import BotPool, SeatBot

from .helpers import legal_cards, legal_rows, new_children, run
from .live import LiveServer


def _quick_answer(text: str) -> dict[str, Any]:
    return {"quick": True, "text": text}


def _full_answer(text: str) -> dict[str, Any]:
    return {"quick": False, "text": text}


def test_unprepared_kernels_give_quick_moves_and_answers_at_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Kernels not prepared: the expert's move and a compiled job's answer come at once, marked quick;
    a bot that needs no kernel (montecarlo) still thinks in a worker; once prepared, the expert goes to
    a worker too."""
    release = asyncio.Event()

    async def preparing(pool: BotPool) -> None:  # stands for the compile: done when the test says so
        await release.wait()
        pool._prepared = True
        pool._preparing = None

    monkeypatch.setattr(botpool, "is_prepared", lambda: False)
    monkeypatch.setattr(BotPool, "_prepare", preparing)
    state = apply(new_game(3), deal_cards(3, random.Random(4))).state
    seen = view(state, 1)

    async def scenario() -> None:
        # Children of an earlier test of this xdist worker may still be ending: only the pool's own count.
        before = set(multiprocessing.active_children())
        pool = BotPool(1, budget=0.2)
        try:
            thought = await pool.decide("t", SeatBot("expert", 0.5), seen)
            assert thought.quick and thought.fallback and isinstance(thought.action, PlayCard)
            assert thought.action.card in seen.hand
            answer, quick = await pool.ask("t", _full_answer, _quick_answer, "cards")
            assert quick and answer == {"quick": True, "text": "cards"}
            # No waiting for the compile: it ends only when the test releases it, below, so an answer
            # that waited for it would never come (no clock needed, which a loaded machine upset).
            monte = await pool.decide("t", SeatBot("montecarlo", 0.5), seen)
            assert not monte.quick and monte.state is not None  # thought in a worker: its state came back
            release.set()
            for _ in range(100):
                if pool.prepared():
                    break
                await asyncio.sleep(0.01)
            answer, quick = await pool.ask("t", _full_answer, _quick_answer, "cards")
            assert not quick and answer == {"quick": False, "text": "cards"}
            expert = await pool.decide("t", SeatBot("expert", 0.5), seen)
            assert not expert.quick
        finally:
            await pool.close()
        assert new_children(before) == []

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        run(scenario())
    said = [record for record in caplog.records if "not prepared" in record.getMessage()]
    assert len(said) == 1 and said[0].exc_info is None  # one line, said once, no traceback
    assert not [record for record in caplog.records if record.exc_info]


def test_workers_slow_to_start_give_quick_moves(monkeypatch: pytest.MonkeyPatch,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """Workers not started within START_SECONDS: the move comes from the heuristic, marked quick, and the
    log says so once; when they are up, the bot thinks in them."""
    monkeypatch.setattr(botpool, "START_SECONDS", 0.0)
    state = apply(new_game(3), deal_cards(3, random.Random(6))).state
    seen = view(state, 2)

    async def scenario() -> None:
        pool = BotPool(1, budget=0.2)
        try:
            first = await pool.decide("t", SeatBot("montecarlo", 0.25), seen)
            second = await pool.decide("t", SeatBot("montecarlo", 0.25), seen)
            assert first.quick and second.quick and first.action == second.action  # seeded by the decision
            for _ in range(1200):  # the worker starts meanwhile (generous: a loaded machine)
                if pool.ready:
                    break
                await asyncio.sleep(0.05)
            assert pool.ready
            # A worker just started may still be loading when the first move is asked: that move may run
            # out of its budget (a fallback) and, on a loaded machine, past the job's limit (2 budgets here),
            # which starts the workers again: quick answers until they are up. Then the moves are thought there.
            for _ in range(600):
                thought = await pool.decide("t", SeatBot("montecarlo", 0.25), seen)
                if not thought.quick and not thought.fallback:
                    break
                await asyncio.sleep(0.1)
            assert not thought.quick and not thought.fallback and thought.state is not None
        finally:
            await pool.close()

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        run(scenario())
    # Said once for each start of the workers (not at every quick move): once, or again after a restart.
    slow = len([r for r in caplog.records if "slow to start" in r.getMessage()])
    restarts = len([r for r in caplog.records if "the workers are restarted" in r.getMessage()])
    assert 1 <= slow <= 1 + restarts
    assert not [record for record in caplog.records if record.exc_info]


# -- for real: nimmt serve on an empty kernel cache, the CPU taken by other processes ----------------------

BUSY = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """As many busy loops as there are cores (each ends by itself after 10 minutes; killed at the end)."""
    loops = [subprocess.Popen([sys.executable, "-c", BUSY.format(seconds=600)])
             for _ in range(os.cpu_count() or 1)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait(10)


class Seat:
    def __init__(self, server: LiveServer, table_id: str, token: str) -> None:
        self.socket: ClientConnection = connect(f"{server.ws_url}/ws/{table_id}", open_timeout=60, legacy=True)
        self.state: dict[str, Any] = {}
        self.send({"type": "hello", "token": token})
        self.until("state")

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send(json.dumps(message))

    def until(self, kind: str, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message: dict[str, Any] = json.loads(self.socket.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message["type"] == "state":
                self.state = message
            if message["type"] in (kind, "error"):
                return message

    def sync(self) -> dict[str, Any]:
        self.send({"type": "ping"})
        self.until("pong")
        return self.state


def test_a_cold_cache_on_a_busy_machine_keeps_the_table_going(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, busy_machine: None
) -> None:
    """``nimmt serve`` with an empty kernel cache while every core is busy: the coach answers with a quick
    estimate, marked quick; a person plays two turns against the expert, whose cards come (from the
    heuristic, while the kernels compile in the background); no traceback in the server's log, one line
    saying why."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "empty-kernel-cache"))
    with LiveServer(tmp_path / "nimmt.sqlite3") as server:
        created = httpx.post(f"{server.url}/api/tables", timeout=60, json={
            "name": "Ana", "seats": 2, "bots": ["expert"], "options": {"rounds": 1}}).json()
        ana = Seat(server, created["table_id"], created["token"])
        ana.send({"type": "start"})
        assert ana.until("ack")["type"] == "ack"
        ana.sync()
        ana.send({"type": "advice"})  # the coach answers at once, a quick estimate, and says so
        advice = ana.until("advice")
        assert advice["type"] == "advice" and advice["quick"] is True and advice["kind"] == "cards"
        assert sorted(a["card"] for a in advice["cards"]) == sorted(legal_cards(ana.state))
        rng = random.Random(3)
        for _ in range(2):  # two turns: each waits for the expert's card
            state = ana.sync()
            if legal_rows(state):
                ana.send({"type": "choose_row", "row": rng.choice(legal_rows(state)), "version": state["version"]})
            else:
                ana.send({"type": "play", "card": rng.choice(legal_cards(state)), "version": state["version"]})
            assert ana.until("ack")["type"] == "ack"
            turn = state["view"]["turn"]
            deadline = time.monotonic() + 120  # far below a cold compile on a busy machine (many minutes)
            while ana.sync()["view"]["turn"] == turn and not legal_rows(ana.state):
                assert time.monotonic() < deadline, "the expert never played"
                time.sleep(0.2)
        ana.socket.close()
        output = "".join(server.output)
    assert "Traceback" not in output
    assert "not prepared" in output

