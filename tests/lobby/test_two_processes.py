"""The lobby with two ``nimmt serve`` processes on PostgreSQL and Redis (real servers): a public
table opened on one is listed by the other and quick match there joins it; a reaction sent through
one reaches a person on the other; a present person's clock that runs out while both processes hold
the table chooses nothing, and two people handing that seat over at once hand it once."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
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


def test_a_clock_that_runs_out_chooses_nothing_and_one_hand_over_gets_in_with_two_processes(
        services: Services, postgres_url: str) -> None:
    """Bruno is here and lets his clock run out while both processes hold the table: nothing is stored
    for him. Ana (on one) and Cleo (on two) hand his seat to a bot at the same moment: the store lets
    one entry in, the other is told a bot plays it already."""
    hub = ["--hub", services.redis_url]
    with LiveServer(postgres_url, args=hub) as one, LiveServer(postgres_url, args=hub) as two, \
            httpx.Client(timeout=30) as http:
        made = http.post(f"{one.url}/api/tables", json={"name": "Ana", "seats": 3, "options": {
            "clock": 5, "rounds": 1, "public": True}}).json()
        table = made["table_id"]
        bruno_joined = http.post(f"{one.url}/api/tables/{table}/join", json={"name": "Bruno"}).json()
        cleo_joined = http.post(f"{two.url}/api/tables/{table}/join", json={"name": "Cleo"}).json()
        ana, bruno = Seat(one, table, made["token"]), Seat(two, table, bruno_joined["token"])
        cleo = Seat(two, table, cleo_joined["token"])
        ana.socket.send(json.dumps({"type": "start", "ref": "s"}))
        assert ana.until("answer")["type"] == "ack"
        for person in (ana, cleo):
            state = until(person, "state", lambda m: bool(m["legal"]))
            person.socket.send(json.dumps({"type": "play", "card": max(a["card"] for a in state["legal"]),
                                           "version": state["version"], "ref": "p"}))
            assert person.until("answer")["type"] == "ack"
        # Bruno lets his clock run out; both processes hold the table, each with its timer.
        for person in (ana, cleo):  # its latest state, or a later one (a loaded machine is slow to play)
            if person.state["table"]["seats"][1]["clock_left"] != 0:
                until(person, "state", lambda m: m["table"]["seats"][1]["clock_left"] == 0)
        time.sleep(1.0)
        assert [e for e in journal(postgres_url, table) if e["kind"] == "seat_to_bot"] == []
        assert bruno.sync()["legal"], "the table waits for Bruno"
        for person in (ana, cleo):
            person.socket.send(json.dumps({"type": "seat_to_bot", "seat": 1, "bot": "heuristic", "ref": "h"}))
        answers = sorted((ana.until("answer"), cleo.until("answer")), key=lambda m: m["type"])
        assert [m["type"] for m in answers] == ["ack", "error"], answers
        assert answers[1]["code"] == "already_bot", answers
        handed = [e for e in journal(postgres_url, table) if e["kind"] == "seat_to_bot"]
        assert handed == [{"kind": "seat_to_bot", "seat": 1, "bot": "heuristic", "keep": True}]
        moved = until(bruno, "state", lambda m: bool(m["bot_played"] and m["bot_played"]["moves"]))
        assert moved["table"]["seats"][1]["replaced"]
        assert all("at" in e for e in journal(postgres_url, table) if e["kind"] in ("deal", "play", "row"))
    assert "Traceback" not in "".join(one.output + two.output)
