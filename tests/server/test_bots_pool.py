"""Bots think in worker processes, outside the event loop and the table's lock (issue 9, item 2).

A strong bot's decision is held back here (before it is sent to a worker) to show what happens
meanwhile: people act and are answered; an answer to a decision that has gone is dropped; the
server stops without leaving a worker behind.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from nimmt.core import PlayCard, apply, deal_cards, new_game, view
from nimmt.server.app import create_app
from nimmt.server.botpool import BotPool, BotTimeout, SeatBot, default_workers, think
from nimmt.server.tables import TableService

from .helpers import Person, create_table, join, legal_cards, legal_rows, new_children, run


class Held:
    """Holds every decision sent to the worker processes until released (and counts them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.go_on = threading.Event()
        self.asked = threading.Event()
        self.count = 0
        real = BotPool.run

        async def held(pool: BotPool, key: str, function: Callable[..., Any], *args: Any, **options: Any) -> Any:
            if function is think:  # a bot's decision (a game's review, made as it is played, goes on)
                self.count += 1
                self.asked.set()
                assert await asyncio.to_thread(self.go_on.wait, 60)
            return await real(pool, key, function, *args, **options)

        monkeypatch.setattr(BotPool, "run", held)


@pytest.fixture
def pooled(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0, bot_workers=1,
                               seed=7)) as test_client:
        yield test_client


def _service(client: TestClient) -> TableService:
    service: TableService = client.app.state.service  # type: ignore[attr-defined]
    return service


def test_people_act_while_a_strong_bot_thinks_and_its_answer_comes_from_a_worker(
    pooled: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = Held(monkeypatch)
    table = create_table(pooled, seats=3, bots=["montecarlo"])
    table_id = table["table_id"]
    bruno_seat = join(pooled, table_id, "Bruno")
    with pooled.websocket_connect(f"/ws/{table_id}") as a, pooled.websocket_connect(f"/ws/{table_id}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        assert ana.send({"type": "start"})["type"] == "ack"
        assert held.asked.wait(30)  # the bot is thinking (held before its worker)
        assert not _service(pooled).hosts[table_id].busy()
        # Both people act and are answered while the bot thinks: its table's lock is free.
        state = ana.sync()
        assert ana.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] \
            == "ack"
        state = bruno.sync()
        assert bruno.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] \
            == "ack"
        assert ana.sync()["view"]["has_chosen"] == [True, True, False]
        held.go_on.set()
        # The bot's card comes from a worker process, and the turn is revealed.
        after = ana.until(lambda m: m["type"] == "state" and m["reveal"] is not None)
        assert [player for _card, player in after["reveal"]["cards"]] != [] and len(after["reveal"]["cards"]) == 3
        assert multiprocessing.active_children()  # the worker
        metrics = pooled.get("/metrics").text
        assert 'nimmt_bot_decision_seconds_count{bot="montecarlo"}' in metrics


def test_an_answer_to_a_decision_that_has_gone_is_dropped(pooled: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bruno's seat goes to a bot while he is away; he comes back while the bot thinks: the seat is his
    again at once, and the bot's answer, when it comes, is dropped (his card is his to choose)."""
    table = create_table(pooled, seats=2)
    table_id = table["table_id"]
    bruno_seat = join(pooled, table_id, "Bruno")
    with pooled.websocket_connect(f"/ws/{table_id}") as a:
        ana = Person(a, table["token"])
        with pooled.websocket_connect(f"/ws/{table_id}") as b:
            Person(b, bruno_seat["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
        held = Held(monkeypatch)
        assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "montecarlo"})["type"] == "ack"
        assert held.asked.wait(30)
        with pooled.websocket_connect(f"/ws/{table_id}") as b:
            bruno = Person(b, bruno_seat["token"])
            state = bruno.sync()
            assert state["table"]["seats"][1]["bot"] is None  # his again
            held.go_on.set()
            # Ana plays; the bot's answer (dropped) never becomes Bruno's card.
            mine = ana.sync()
            assert ana.send({"type": "play", "card": legal_cards(mine)[0], "version": mine["version"]})["type"] \
                == "ack"
            # Wait until the bot task has finished (the answer came back and was dropped).
            task = _service(pooled).bots.running.get(table_id)
            if task is not None:
                run_until_done(pooled, task)
            state = bruno.sync()
            assert state["view"]["has_chosen"] == [True, False]
            assert legal_cards(state) == state["view"]["hand"]
            assert bruno.send({"type": "play", "card": legal_cards(state)[-1],
                               "version": state["version"]})["type"] == "ack"


def run_until_done(client: TestClient, task: asyncio.Task[None]) -> None:
    """Wait (bounded) for a task of the app's event loop to end."""
    portal = client.portal
    assert portal is not None
    for _ in range(600):
        if portal.call(task.done):
            return
        threading.Event().wait(0.05)
    raise AssertionError("the bot task never ended")


def test_a_seeded_server_plays_the_same_game_with_strong_bots(tmp_path: Path) -> None:
    """The bots are made in the worker from a seed drawn by the server: the same seed, the same game."""

    def play(folder: str) -> list[Any]:
        path = tmp_path / folder
        path.mkdir()
        with TestClient(create_app(path / "nimmt.sqlite3", bot_delay=0, seed=11, bot_workers=1)) as client:
            table = create_table(client, seats=3, bots=["montecarlo", "beginner"], rounds=1)
            with client.websocket_connect(f"/ws/{table['table_id']}") as a:
                ana = Person(a, table["token"])
                ana.send({"type": "start"})
                rng = random.Random(3)
                for _ in range(200):
                    state = ana.sync()
                    if state["table"]["status"] == "over":
                        break
                    ana.act_randomly(rng, state)
                    if not legal_cards(state) and not legal_rows(state):
                        ana.until(_newer_than(state["version"]))
                assert ana.sync()["table"]["status"] == "over"
            record: list[Any] = client.get(f"/api/tables/{table['table_id']}/games/1/record").json()["rounds"]
            return record

    assert play("one") == play("two")


def _newer_than(version: int) -> Callable[[dict[str, Any]], bool]:
    return lambda message: bool(message["type"] == "state" and message["version"] > version)


def test_close_leaves_no_worker_and_does_not_wait_for_a_long_thought(tmp_path: Path) -> None:
    """The server stops while the expert thinks: no worker is left, nothing of its thought is stored."""
    before = set(multiprocessing.active_children())
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, bot_workers=2, bot_budget=5.0)) as client:
        table = create_table(client, seats=2, bots=["expert"])
        with client.websocket_connect(f"/ws/{table['table_id']}") as a:
            ana = Person(a, table["token"])
            ana.send({"type": "start"})
            state = ana.sync()
            assert ana.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})[
                "type"] == "ack"
            version = ana.sync()["version"]
        assert new_children(before)
    assert new_children(before) == []
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=10)) as client:
        stored = client.get(f"/api/tables/{table['table_id']}").json()
        assert stored["version"] >= version  # what was stored stays; a bot's card is whole or absent


def test_the_worker_makes_the_bot_from_its_seed_and_carries_its_state() -> None:
    """``think`` as a worker runs it: a bot made from its seed, its state returned; the same seed and
    state give the same decision."""
    state = apply(new_game(4), deal_cards(4, random.Random(5))).state
    seen = view(state, 2)
    action, carried, _seconds = think("montecarlo", 0.25, None, seen, 2.0)
    again, carried_again, _ = think("montecarlo", 0.25, None, seen, 2.0)
    assert isinstance(action, PlayCard) and action == again and carried == carried_again
    assert action.card in seen.hand
    assert default_workers() >= 1


def test_a_bot_that_does_not_answer_in_time_is_replaced_by_the_heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker past its budget is stopped; the heuristic decides; the next decision gets a fresh worker."""

    before = set(multiprocessing.active_children())

    async def scenario() -> None:
        pool = BotPool(1, budget=0.05)
        monkeypatch.setattr("nimmt.server.botpool.START_SECONDS", 0.5)
        state = apply(new_game(4), deal_cards(4, random.Random(5))).state
        seen = view(state, 1)
        with pytest.raises(BotTimeout):
            await pool.run("t", _sleep, 30.0)
        thought = await pool.decide("t", SeatBot("montecarlo", 0.5), seen)
        assert thought.action.card in seen.hand  # type: ignore[union-attr]
        await pool.close()
        assert new_children(before) == []

    run(scenario())


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as listing:
        return [int(child) for child in listing.read().split()]


def test_workers_end_when_the_server_is_killed(tmp_path: Path) -> None:
    """kill -9 of nimmt serve (nobody closes the pool): its workers end too, never orphans."""
    import os
    import time

    import httpx

    from .live import LiveServer

    with LiveServer(tmp_path / "nimmt.sqlite3") as server:
        answer = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["expert"],
                                                              "start": True}, timeout=60)
        assert answer.status_code == 201
        assert server.process is not None
        workers: list[int] = []
        for _ in range(400):  # the expert's first decision starts the workers
            workers = [c for c in _children(server.process.pid)
                       if b"multiprocessing" in Path(f"/proc/{c}/cmdline").read_bytes()]
            if any(b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes() for c in workers):
                break
            time.sleep(0.05)
        assert workers
        server.kill()
    for _ in range(200):
        if not any(os.path.exists(f"/proc/{pid}") and b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()
                   for pid in workers):
            break
        time.sleep(0.05)
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")
                and b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()]


def test_jobs_of_low_priority_wait_behind_every_other_job_and_take_turns_between_their_keys() -> None:
    """The line for a worker, as :class:`BotPool` keeps it (no worker process: the turns only)."""

    async def scenario() -> list[str]:
        pool = BotPool(workers=1)
        served: list[str] = []
        await pool._acquire("busy")  # the one worker is taken

        async def wait(name: str, key: str, low: bool) -> None:
            await pool._acquire(key, low)
            served.append(name)
            pool._release()

        tasks = []
        for name, key, low in (("review a1", "review:a", True), ("review a2", "review:a", True),
                               ("review b1", "review:b", True), ("bot 1", "t1", False), ("bot 2", "t2", False)):
            tasks.append(asyncio.create_task(wait(name, key, low)))
            await asyncio.sleep(0)
        assert pool.waiting == (2, 3)
        pool._release()
        await asyncio.gather(*tasks)
        assert pool._free == 1 and pool.waiting == (0, 0)
        return served

    assert run(scenario()) == ["bot 1", "bot 2", "review a1", "review b1", "review a2"]
