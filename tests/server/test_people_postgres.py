"""People on PostgreSQL and Redis with two ``nimmt serve`` processes: a player made by one is known
by the other, a one-time code made on one is traded on the other (and of two devices racing for it
on the two processes, exactly one wins), and a table's game played across both is kept once for
each of its players."""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from .live import LiveServer
from .services import Services
from .test_restart import Seat, play_on

KEY = "X-Player-Key"


def test_people_across_two_processes(services: Services, postgres_url: str) -> None:
    hub = ["--hub", services.redis_url]
    with LiveServer(postgres_url, args=hub) as one, LiveServer(postgres_url, args=hub) as other:
        ana = httpx.post(f"{one.url}/api/players", json={"name": "Ana"}).json()
        bruno = httpx.post(f"{other.url}/api/players", json={"name": "Bruno"}).json()
        assert httpx.get(f"{other.url}/api/me", headers={KEY: ana["key"]}).json()["player"] == ana["player"]
        code = httpx.post(f"{one.url}/api/me/link", headers={KEY: ana["key"]}).json()["code"]
        with ThreadPoolExecutor(2) as pool:  # Ana's phone and tablet, each on its own process
            answers = list(pool.map(lambda server: httpx.post(f"{server.url}/api/link", json={"code": code}),
                                    (one, other)))
        assert sorted(answer.status_code for answer in answers) == [201, 409], [a.text for a in answers]
        assert [answer.json()["code"] for answer in answers if answer.status_code == 409] == ["code_used"]

        created = httpx.post(f"{one.url}/api/tables", headers={KEY: ana["key"]}, json={
            "name": "Ana", "seats": 3, "bots": ["random"], "options": {"rounds": 1}}).json()
        table_id = created["table_id"]
        joined = httpx.post(f"{other.url}/api/tables/{table_id}/join", headers={KEY: bruno["key"]},
                            json={"name": "Bruno"}).json()
        seats = Seat(one, table_id, created["token"]), Seat(other, table_id, joined["token"])
        seats[0].socket.send(json.dumps({"type": "start"}))
        seats[0].until("ack")
        rng = random.Random(5)
        deadline = time.monotonic() + 120
        while seats[0].sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game did not end"
            play_on(rng, *seats)
        totals = seats[0].state["view"]["totals"]
        for server in (one, other):
            for who, seat in ((ana, 0), (bruno, 1)):
                deadline = time.monotonic() + 30  # kept by the process that wrote the game's end
                while not (games := httpx.get(f"{server.url}/api/me/games", headers={KEY: who["key"]}).json()["games"]):
                    assert time.monotonic() < deadline, "the game was not kept"
                    time.sleep(0.1)
                [game] = games
                assert (game["seat"], game["bullheads"]) == (seat, totals[seat])
                assert game["replay_url"].endswith(f"/replay/{table_id}/1")
