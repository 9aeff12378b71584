"""A whole game over WebSockets: bots, row choices, standings, the record, the replay, a rematch."""

from __future__ import annotations

import random
import time
from typing import Any

from starlette.testclient import TestClient

from nimmt.records import loads, score

from .helpers import Person, create_table, join


def _play_to_the_end(people: list[Person], rng: random.Random) -> dict[str, Any]:
    deadline = time.monotonic() + 120  # bots play in the server's own thread: give a busy machine time
    while time.monotonic() < deadline:
        for person in people:
            person.act_randomly(rng)
        state = people[0].sync()
        if state["table"]["status"] == "over":
            return state
    raise AssertionError("the game did not end")


def test_a_whole_game_with_bots_then_a_rematch(client: TestClient) -> None:
    table = create_table(client, seats=4, bots=["random", "random"], rounds=1, countdown=True, end_above=40)
    table_id = table["table_id"]
    bruno_seat = join(client, table_id, "Bruno")
    rng = random.Random(11)
    with client.websocket_connect(f"/ws/{table_id}") as a, client.websocket_connect(f"/ws/{table_id}") as b, \
            client.websocket_connect(f"/ws/{table_id}") as w:
        ana, bruno, watcher = Person(a, table["token"]), Person(b, bruno_seat["token"]), Person(w, None)
        assert ana.send({"type": "start"})["type"] == "ack"
        # While the game runs, the record is secret (it holds every hand).
        response = client.get(f"/api/tables/{table_id}/games/1/record")
        assert response.status_code == 409 and response.json()["code"] == "game_not_finished"
        final = _play_to_the_end([ana, bruno], rng)
        view = final["view"]
        assert view["phase"] == "over" and len(view["history"]) == 1
        scores = final["scores"]
        assert scores["countdown"] is True and scores["shown"] == [40 - t for t in view["totals"]]
        low = min(view["totals"])
        assert view["winners"] == [p for p, t in enumerate(view["totals"]) if t == low]
        assert watcher.sync()["view"]["totals"] == view["totals"]
        assert final["table"]["games_finished"] == [1]

        missing = client.get(f"/api/tables/{table_id}/games/9/record")
        assert missing.status_code == 404 and missing.json()["code"] == "unknown_game"
        response = client.get(f"/api/tables/{table_id}/games/1/record")
        assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
        record = loads(response.content)
        assert record.players == ("Ana", "Bruno", "Bot 3", "Bot 4")
        result = score(record)
        assert result.finished and list(result.totals) == view["totals"]

        replay = client.get(f"/api/tables/{table_id}/games/1/replay").json()
        assert len(replay["turns"]) == 10 and replay["totals"] == view["totals"]
        assert client.get(f"/replay/{table_id}/1").status_code == 200
        uploaded = client.post("/api/replay", content=response.content).json()
        assert uploaded["turns"] == replay["turns"]
        bad = client.post("/api/replay", content=b'{"format": "nimmt/1", "players": []}')
        assert bad.status_code == 422 and bad.json()["code"] == "bad_record"

        assert bruno.send({"type": "rematch"})["code"] == "not_creator"
        assert ana.send({"type": "rematch"})["type"] == "ack"
        again = bruno.sync()
        assert again["table"]["game"] == 2 and again["table"]["status"] == "playing"
        assert [s["name"] for s in again["table"]["seats"]] == ["Ana", "Bruno", "Bot 3", "Bot 4"]
        assert again["view"]["totals"] == [0, 0, 0, 0] and len(again["view"]["hand"]) == 10


def test_an_absent_seat_goes_to_a_bot_only_when_asked(client: TestClient) -> None:
    table = create_table(client, seats=3, bots=["random"], rounds=1)
    table_id = table["table_id"]
    bruno_seat = join(client, table_id, "Bruno")
    rng = random.Random(5)
    with client.websocket_connect(f"/ws/{table_id}") as a:
        ana = Person(a, table["token"])
        with client.websocket_connect(f"/ws/{table_id}") as b:
            bruno = Person(b, bruno_seat["token"])
            ana.send({"type": "start"})
            assert bruno.send({"type": "seat_to_bot", "seat": 0, "bot": "random"})["code"] == "player_present"
        # Bruno left: the seat stays his and the game waits for him.
        state = ana.until(lambda m: m["type"] == "state" and not m["table"]["seats"][1]["present"])
        assert state["table"]["seats"][1]["name"] == "Bruno" and state["table"]["seats"][1]["bot"] is None
        ana.act_randomly(rng)
        waiting = ana.sync()
        assert 1 in waiting["view"]["waiting_for"]
        assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "nobody"})["code"] == "unknown_bot"
        assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})["type"] == "ack"
        assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})["code"] == "already_bot"
        final = _play_to_the_end([ana], rng)
        assert final["table"]["seats"][1]["bot"] == "random" and final["view"]["phase"] == "over"
    # Bruno comes back after the game: the seat is his again at once (so that he may host a rematch),
    # and the game is over.
    with client.websocket_connect(f"/ws/{table_id}") as b:
        bruno = Person(b, bruno_seat["token"])
        assert bruno.state["table"]["you"] == 1
        assert bruno.sync()["table"]["seats"][1]["bot"] is None
        assert bruno.send({"type": "play", "card": 1, "version": bruno.state["version"]})["code"] == "game_over"
