"""The review of each finished game at the table: made in the bot pool's workers after the game ends,
kept in the table's journal, served by ``/api/tables/{id}/games/{n}/review`` (docs/review.md)."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from nimmt.records import loads
from nimmt.review import DEFAULT_SEED, from_store, moments, review, to_store
from nimmt.server import botpool
from nimmt.server.app import create_app
from nimmt.server.botpool import BotPool
from nimmt.server.tables import reviews

from .conftest import TEST_LIMITS
from .helpers import Person, create_table

WAIT = 240.0  # a one-round game of two is reviewed in a few seconds of a worker's CPU; a busy machine is slower


def _finished(client: TestClient, seats: int = 2) -> str:
    created = create_table(client, seats=seats, bots=["random"] * (seats - 1), rounds=1)
    table_id = str(created["table_id"])
    with client.websocket_connect(f"/ws/{table_id}") as socket:
        ana = Person(socket, created["token"])
        assert ana.send({"type": "start"})["type"] == "ack"
        rng = random.Random(3)
        deadline = time.monotonic() + 120
        while ana.sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game never ended"
            if ana.act_randomly(rng, ana.state) is None:
                time.sleep(0.05)
    return table_id


def _review(client: TestClient, table_id: str, game: int = 1) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        response = client.get(f"/api/tables/{table_id}/games/{game}/review")
        if response.status_code == 200:
            data: dict[str, Any] = response.json()
            return data
        if response.status_code == 503:  # a first run: the kernels are being prepared, the review waits
            assert response.json()["code"] == "preparing", response.text
        else:
            assert response.status_code == 202, response.text
            pending = response.json()
            assert pending["status"] == "pending" and set(pending) == {"status", "seconds"}
            assert isinstance(pending["seconds"], int) and pending["seconds"] >= 1
        assert time.monotonic() < deadline, "the review was never made"
        time.sleep(0.5)


def test_a_finished_game_is_reviewed_stored_and_served(tmp_path: Path) -> None:
    database = tmp_path / "nimmt.sqlite3"
    with TestClient(create_app(database, bot_delay=0, away_grace=0, limits=TEST_LIMITS)) as client:
        table_id = _finished(client)
        answer = _review(client, table_id)
        record = loads(client.get(f"/api/tables/{table_id}/games/1/record").content)
    assert answer["status"] == "ready"
    review = answer["review"]
    assert [p["name"] for p in review["players"]] == list(record.players)
    assert all(0 <= p["accuracy"] <= 100 for p in review["players"])
    decisions = [m for m, _ in moments(record)]
    assert [(d["player"], d["kind"], d["chosen"]) for d in review["decisions"]] == [
        (m.player, m.kind, m.chosen) for m in decisions]
    for decision in review["decisions"]:
        assert [o["option"] for o in decision["options"] if o["chosen"]] == [decision["chosen"]]
        assert min(o["loss"] for o in decision["options"]) == 0
    # Kept in the table's journal, after the game's end: one entry, read back by a new process.
    with sqlite3.connect(database) as db:
        kinds = [json.loads(entry)["kind"] for (entry,) in db.execute(
            "SELECT entry FROM journal WHERE table_id = ? ORDER BY seq", (table_id,))]
    assert kinds.count("review") == 1 and kinds[-1] == "review"
    with TestClient(create_app(database, bot_delay=0, away_grace=0, limits=TEST_LIMITS)) as client:
        again = client.get(f"/api/tables/{table_id}/games/1/review")
        assert again.status_code == 200
        assert again.json() == answer


def test_no_review_of_an_unknown_or_unfinished_game(client: TestClient) -> None:
    created = create_table(client, seats=2, bots=["random"], rounds=1)
    table_id = created["table_id"]
    assert client.get(f"/api/tables/{table_id}/games/1/review").status_code == 404
    with client.websocket_connect(f"/ws/{table_id}") as socket:
        ana = Person(socket, created["token"])
        assert ana.send({"type": "start"})["type"] == "ack"
        response = client.get(f"/api/tables/{table_id}/games/1/review")
        assert response.status_code == 409 and response.json()["code"] == "game_not_finished"
    assert client.get(f"/api/tables/{table_id}/games/2/review").status_code == 404
    assert client.get("/api/tables/nosuchtable/games/1/review").status_code == 404
    assert client.get(f"/api/tables/{table_id}/games/{2**70}/review").status_code == 404


def test_a_games_review_waits_for_the_kernels_as_an_uploads_does(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run (kernels not prepared): the game's review is asked for and answered ``503 preparing``
    with Retry-After, word for word as an uploaded record's review; no job goes to a worker (none
    compiles inside a job); once the kernels are prepared, the review is made."""
    released = threading.Event()

    async def preparing(pool: BotPool) -> None:  # stands for the compile: done when the test says so
        while not released.is_set():
            await asyncio.sleep(0.05)
        pool._prepared = True
        pool._preparing = None

    monkeypatch.setattr(botpool, "is_prepared", lambda: False)
    monkeypatch.setattr(BotPool, "_prepare", preparing)
    monkeypatch.setattr(reviews, "REVIEW_AFTER", 0.0)  # the review would start as the game ends
    golden = Path(__file__).resolve().parents[1] / "data" / "records" / "golden" / "hand_one_round.json"
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0, limits=TEST_LIMITS)) as client:
        client.app.state.service.reviews.samples = 8  # type: ignore[attr-defined]  # what is tested is when
        table_id = _finished(client)
        time.sleep(1.0)  # room for a review that did not wait to reach the workers
        answer = client.get(f"/api/tables/{table_id}/games/1/review")
        upload = client.post("/api/replay/review", content=golden.read_bytes())
        assert (answer.status_code, upload.status_code) == (503, 503), answer.text
        assert answer.json() == upload.json() and answer.json()["code"] == "preparing"
        assert answer.headers["Retry-After"] == upload.headers["Retry-After"] == "60"
        assert client.app.state.service.pool._executor is None  # type: ignore[attr-defined]  # no job ran
        released.set()
        assert _review(client, table_id)["status"] == "ready"


def test_a_game_is_reviewed_as_it_is_played_and_the_review_is_the_one_made_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn by turn while the game is played (the pool's jobs of low priority), the rest at the end: the
    person here waits for the review to catch up before each card (a machine with time to spare), so
    that at the end only the last turn is left; the stored review is the review of the record made
    after the game, number for number."""
    steps: list[tuple[bool, int]] = []
    step = reviews.Reviews._step

    async def spy(self: reviews.Reviews, record: dict[str, Any], key: tuple[str, int], followed: reviews.Followed,
                  *, low: bool) -> bool:
        steps.append((low, followed.done))
        return await step(self, record, key, followed, low=low)

    monkeypatch.setattr(reviews.Reviews, "_step", spy)
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0, limits=TEST_LIMITS)) as client:
        made = client.app.state.service.reviews  # type: ignore[attr-defined]
        made.samples = 16
        created = create_table(client, seats=3, bots=["random", "heuristic"], rounds=1)
        table_id = str(created["table_id"])
        with client.websocket_connect(f"/ws/{table_id}") as socket:
            ana = Person(socket, created["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
            rng = random.Random(5)
            deadline = time.monotonic() + 240
            while ana.sync()["table"]["status"] != "over":
                assert time.monotonic() < deadline, "the game never ended"
                followed = made.followed.get((table_id, 1))
                if followed is not None and (followed.task is not None or followed.done < followed.ended):
                    time.sleep(0.05)  # the review catches up first
                    continue
                if ana.act_randomly(rng, ana.state) is None:
                    time.sleep(0.05)
        answer = _review(client, table_id)
        record = loads(client.get(f"/api/tables/{table_id}/games/1/record").content)
    during = [done for low, done in steps if low]
    after = [done for low, done in steps if not low]
    assert len(during) >= 5 and during == sorted(during), steps  # step after step as the turns were completed
    assert after and after[0] >= len(list(moments(record))) - 2 * 3, steps  # at the end: the last turn (and rows)
    whole = review(record, samples=16, seed=DEFAULT_SEED)
    assert answer["review"] == from_store(record, to_store(whole)).to_json()
