"""A seat handed to a bot, and given back, survive a restart of a real ``nimmt serve``; the grace of an
absent person counts from the restart."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import httpx

from nimmt.records import loads, score

from .helpers import legal_cards, legal_rows
from .live import LiveServer
from .test_restart import Seat, play_on

GRACE = 1.0


def _seat(state: dict[str, Any], index: int) -> dict[str, Any]:
    found: dict[str, Any] = state["table"]["seats"][index]
    return found


def _send(person: Seat, message: dict[str, Any]) -> dict[str, Any]:
    person.socket.send(json.dumps(message))
    return person.until("answer")


def _until_state(person: Seat, check: Any, limit: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        message = person.until("state")
        if check(message):
            return message
        assert time.monotonic() < deadline, "the expected state never came"


def test_replaced_and_given_back_seats_survive_restarts(tmp_path: Path) -> None:
    db = tmp_path / "nimmt.sqlite3"
    rng = random.Random(2)
    with LiveServer(db, away_grace=GRACE) as server:
        created = httpx.post(f"{server.url}/api/tables", json={
            "name": "Ana", "seats": 3, "bots": ["random"], "options": {"rounds": 1}}).json()
        table_id = created["table_id"]
        joined = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"}).json()
        ana, bruno = Seat(server, table_id, created["token"]), Seat(server, table_id, joined["token"])
        assert _send(ana, {"type": "start"})["type"] == "ack"
        bruno.socket.close()
        refused = _send(ana, {"type": "seat_to_bot", "seat": 1, "bot": "random"})
        assert refused["code"] in ("not_away_long", "player_present")  # the server may not have seen him go yet
        # The server says when Bruno's grace is over; then Ana hands his seat to a bot.
        _until_state(ana, lambda m: (_seat(m, 1)["away_seconds"] or 0) >= GRACE)
        assert _send(ana, {"type": "seat_to_bot", "seat": 1, "bot": "random"})["type"] == "ack"
        assert _seat(ana.sync(), 1)["replaced"] is True
        server.kill()

    with LiveServer(db, away_grace=GRACE) as server:
        ana = Seat(server, table_id, created["token"])
        assert _seat(ana.state, 1)["bot"] == "random" and _seat(ana.state, 1)["replaced"] is True
        assert ana.state["table"]["host"] == 0 and ana.state["table"]["away_grace"] == GRACE
        bruno = Seat(server, table_id, joined["token"])
        # Back: his seat is his at his next decision (at once if the bot has not played his card yet).
        deadline = time.monotonic() + 60
        while _seat(bruno.sync(), 1)["replaced"]:
            assert time.monotonic() < deadline, "Bruno never got his seat back"
            assert not legal_cards(bruno.state) and not legal_rows(bruno.state)
            ana.act(rng)
            time.sleep(0.05)
        state = bruno.sync()
        assert _seat(state, 1)["bot"] is None and (legal_cards(state) or legal_rows(state))
        before = {key: state[key] for key in ("version", "view", "legal")}
        server.kill()

    with LiveServer(db, away_grace=GRACE) as server:
        ana = Seat(server, table_id, created["token"])
        assert _seat(ana.state, 1)["bot"] is None and _seat(ana.state, 1)["replaced"] is False
        # Bruno has not been seen since the restart: his grace starts again, it is not over yet.
        refused = _send(ana, {"type": "seat_to_bot", "seat": 1, "bot": "random"})
        assert refused["code"] == "not_away_long" and refused["params"]["seconds_left"] == 1
        bruno = Seat(server, table_id, joined["token"])
        assert {key: bruno.state[key] for key in ("version", "view", "legal")} == before
        assert bruno.sync()["table"]["host"] == 0
        deadline = time.monotonic() + 120
        while ana.sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game did not end after the restart"
            play_on(rng, bruno, ana)
        record = loads(httpx.get(f"{server.url}/api/tables/{table_id}/games/1/record").content)
        assert score(record).finished and len(record.rounds[0].turns) == 10
