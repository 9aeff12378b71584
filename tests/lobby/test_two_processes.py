"""The lobby with two ``nimmt serve`` processes on PostgreSQL and Redis (real servers): a public
table opened on one is listed by the other and quick match there joins it; a reaction sent through
one reaches a person on the other; a clock that runs out while both processes hold the table hands
the decision to a bot once."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import httpx

from nimmt.server.store import SqlStore
from tests.server.helpers import run
from tests.server.live import LiveServer
from tests.server.services import Services
from tests.server.test_restart import Seat

WAIT = 60.0  # a loaded 2-core machine


def eventually(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, "it never came to hold"
        time.sleep(0.1)


def journal(url: str, table_id: str) -> list[dict[str, Any]]:
    async def main() -> list[dict[str, Any]]:
        store = SqlStore(url)
        await store.start()
        try:
            return await store.journal(table_id) or []
        finally:
            await store.close()

    return run(main())


def until(seat: Seat, kind: str, where: Callable[[dict[str, Any]], bool] = lambda _m: True) -> dict[str, Any]:
    while True:
        message = seat.until(kind)
        if where(message):
            return message


def test_the_lobby_across_two_processes(services: Services, postgres_url: str) -> None:
    hub = ["--hub", services.redis_url]
    with LiveServer(postgres_url, args=hub) as one, LiveServer(postgres_url, args=hub) as two, \
            httpx.Client(timeout=30) as http:
        made = http.post(f"{one.url}/api/lobby/quick", json={"name": "Ana", "language": "pt-BR"}).json()
        ana = Seat(one, made["table_id"], made["token"])
        eventually(lambda: [t["table_id"] for t in http.get(f"{two.url}/api/lobby?language=pt-BR").json()]
                   == [made["table_id"]])
        joined = http.post(f"{two.url}/api/lobby/quick", json={"name": "Bruno", "language": "pt-BR"}).json()
        assert (joined["table_id"], joined["seat"]) == (made["table_id"], 1)
        bruno = Seat(two, made["table_id"], joined["token"])
        eventually(lambda: [t["taken"] for t in http.get(f"{one.url}/api/lobby").json()] == [2])
        ana.socket.send(json.dumps({"type": "react", "reaction": "bull", "ref": "r"}))
        assert ana.until("answer")["type"] == "ack"
        assert until(bruno, "reaction") == {"type": "reaction", "seat": 0, "reaction": "bull"}


def test_two_strangers_asking_at_once_on_two_processes_sit_at_one_table(services: Services,
                                                                        postgres_url: str) -> None:
    """Quick match is decided in the store: two people asking at the same moment, one on each process,
    with no table open yet, get one table (the second sits at the table the first opened), in each of
    three languages; nobody has opened their page yet, so the lobby's list still shows none."""
    hub = ["--hub", services.redis_url]
    with LiveServer(postgres_url, args=hub) as one, LiveServer(postgres_url, args=hub) as two, \
            httpx.Client(timeout=60) as http, ThreadPoolExecutor(2) as threads:
        for language in ("de", "es", "pt-PT"):
            together = threading.Barrier(2)

            def ask(server: LiveServer, name: str, language: str = language,
                    together: threading.Barrier = together) -> dict[str, Any]:
                together.wait(timeout=WAIT)
                answer = http.post(f"{server.url}/api/lobby/quick", json={"name": name, "language": language})
                assert answer.status_code == 201, answer.text
                seat: dict[str, Any] = answer.json()
                return seat

            ana, bruno = threads.map(ask, (one, two), ("Ana", "Bruno"))
            assert ana["table_id"] == bruno["table_id"], language
            assert sorted((ana["seat"], bruno["seat"])) == [0, 1]
            info = http.get(f"{one.url}/api/tables/{ana['table_id']}").json()
            assert [seat["name"] for seat in info["seats"]][:2] in (["Ana", "Bruno"], ["Bruno", "Ana"])
        assert http.get(f"{two.url}/api/lobby").json() == []
    assert "Traceback" not in "".join(one.output + two.output)


def test_a_clock_runs_out_once_with_two_processes_holding_the_table(services: Services, postgres_url: str) -> None:
    hub = ["--hub", services.redis_url]
    with LiveServer(postgres_url, args=hub) as one, LiveServer(postgres_url, args=hub) as two, \
            httpx.Client(timeout=30) as http:
        made = http.post(f"{one.url}/api/tables", json={"name": "Ana", "seats": 2, "options": {
            "clock": 5, "rounds": 1, "public": True}}).json()
        table = made["table_id"]
        joined = http.post(f"{two.url}/api/tables/{table}/join", json={"name": "Bruno"}).json()
        ana, bruno = Seat(one, table, made["token"]), Seat(two, table, joined["token"])
        ana.socket.send(json.dumps({"type": "start", "ref": "s"}))
        assert ana.until("answer")["type"] == "ack"
        state = until(ana, "state", lambda m: bool(m["legal"]))
        ana.socket.send(json.dumps({"type": "play", "card": state["legal"][0]["card"], "version": state["version"],
                                    "ref": "p"}))
        assert ana.until("answer")["type"] == "ack"
        # Bruno lets his clock run out; both processes hold the table, each with its timer.
        until(bruno, "state", lambda m: m["view"] is not None and m["view"]["turn"] == 1)
        entries = journal(postgres_url, table)
        # The first hand-over is Bruno's, by his clock; later ones may follow (nobody plays on here),
        # but a seat is never handed twice without coming back between: one timer's entry got in.
        seats = [(e["kind"], e["seat"]) for e in entries if e["kind"] in ("seat_to_bot", "seat_back")]
        assert seats[0] == ("seat_to_bot", 1)
        for seat in (0, 1):
            kinds = [kind for kind, whose in seats if whose == seat]
            assert all(a != b for a, b in pairwise(kinds)), kinds
        assert all(e.get("clock") is True for e in entries if e["kind"] == "seat_to_bot")
        assert all("at" in e for e in entries if e["kind"] in ("deal", "play", "row", "seat_back"))
    assert "Traceback" not in "".join(one.output + two.output)
