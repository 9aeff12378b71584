"""Every WebSocket message, and every refusal: a clear error, a healthy connection, nothing half-applied."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from .helpers import Person, create_table, join


def _lobby(client: TestClient) -> tuple[dict[str, str], dict[str, str]]:
    table = create_table(client, seats=3, bots=["random"], rounds=1)
    return table, join(client, table["table_id"], "Bruno")


def test_unknown_table_gets_an_error_then_the_socket_closes(client: TestClient) -> None:
    with client.websocket_connect("/ws/nosuchtable") as socket:
        message = socket.receive_json()
        assert message["type"] == "error" and message["code"] == "unknown_table"
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4404


def test_malformed_messages_get_errors_and_the_connection_stays(client: TestClient) -> None:
    table, _ = _lobby(client)
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        socket.send_json({"type": "play", "card": 5, "version": 1})
        assert socket.receive_json()["code"] == "hello_first"
        socket.send_json({"type": "hello", "token": "not-a-token"})
        assert socket.receive_json()["code"] == "bad_token"
        ana = Person(socket, table["token"])
        assert ana.state["table"]["you"] == 0 and ana.state["table"]["creator"] is True
        cases = [
            ("{nope", "bad_json"),
            ("[1, 2]", "bad_message"),
            (json.dumps({"type": "dance"}), "bad_message"),
            (json.dumps({"type": "play", "card": "7", "version": 1}), "bad_message"),
            (json.dumps({"type": "play", "card": True, "version": 1}), "bad_message"),
            (json.dumps({"type": "play", "card": 7}), "bad_message"),
            (json.dumps({"type": "play", "card": 7, "version": 1, "seat": 1}), "bad_message"),
            (json.dumps({"type": "start", "pad": "x" * 5000}), "too_large"),
            ("[" * 3000 + "]" * 3000, "too_large"),
            (json.dumps({"type": "hello", "token": None}), "already_greeted"),
        ]
        for raw, code in cases:
            answer = ana.send_raw(raw)
            assert answer["type"] == "error" and answer["code"] == code, raw[:40]
            assert answer["message"]
        socket.send_bytes(b"\x00\x01")
        assert ana.until(lambda m: m["type"] == "error")["code"] == "bad_message"
        assert ana.send({"type": "ping"})["type"] == "pong"
        assert ana.sync()["version"] == table_version(client, table["table_id"])


def table_version(client: TestClient, table_id: str) -> int:
    version: int = client.get(f"/api/tables/{table_id}").json()["version"]
    return version


def test_lobby_actions_and_their_refusals(client: TestClient) -> None:
    table = create_table(client, seats=3, bots=["random"], rounds=1)
    with client.websocket_connect(f"/ws/{table['table_id']}") as a, \
            client.websocket_connect(f"/ws/{table['table_id']}") as w:
        ana = Person(a, table["token"])
        watcher = Person(w, None)
        assert ana.send({"type": "play", "card": 1, "version": 1})["code"] == "not_started"
        answer = ana.send({"type": "start"})
        assert answer["code"] == "seats_not_filled" and answer["params"] == {"free": 1}
        assert answer["ref"] == "r1"
        assert watcher.send({"type": "start"})["code"] == "spectator"
        bruno_seat = join(client, table["table_id"], "Bruno")
        with client.websocket_connect(f"/ws/{table['table_id']}") as b:
            bruno = Person(b, bruno_seat["token"])
            assert bruno.state["table"]["you"] == 1 and not bruno.state["table"]["creator"]
            assert bruno.send({"type": "start"})["code"] == "not_creator"
            assert bruno.send({"type": "rematch"})["code"] == "not_creator"
            before = table_version(client, table["table_id"])
            ack = ana.send({"type": "start"})
            assert ack["type"] == "ack" and ack["version"] > before
            assert ana.send({"type": "start"})["code"] == "already_started"
            assert ana.send({"type": "rematch"})["code"] == "not_over"
            assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})["code"] == "player_present"
            assert ana.send({"type": "seat_to_bot", "seat": 2, "bot": "random"})["code"] == "no_such_seat"
            state = bruno.sync()
            assert state["table"]["status"] == "playing" and len(state["view"]["hand"]) == 10


def test_illegal_moves_are_refused_and_change_nothing(client: TestClient) -> None:
    table, bruno_seat = _lobby(client)
    with client.websocket_connect(f"/ws/{table['table_id']}") as a, \
            client.websocket_connect(f"/ws/{table['table_id']}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        ana.send({"type": "start"})
        state = ana.sync()
        version = state["version"]
        not_mine = next(c for c in range(1, 105) if c not in state["view"]["hand"])
        assert ana.send({"type": "play", "card": not_mine, "version": version})["code"] == "card_not_in_hand"
        assert ana.send({"type": "play", "card": 0, "version": version})["code"] == "card_not_in_hand"
        assert ana.send({"type": "choose_row", "row": 1, "version": version})["code"] == "not_your_turn"
        assert ana.send({"type": "play", "card": state["view"]["hand"][0], "version": version + 50})["code"] \
            == "bad_version"
        after = ana.sync()["view"]
        assert after["my_card"] is None and after["has_chosen"][0] is False
        assert after["hand"] == state["view"]["hand"]
        card = state["view"]["hand"][0]
        assert ana.send({"type": "play", "card": card, "version": version})["type"] == "ack"
        # The same action again (a double click): refused, nothing changes.
        repeated = ana.send({"type": "play", "card": card, "version": version})
        assert repeated["code"] in ("already_chosen", "stale")
        assert ana.sync()["view"]["my_card"] == card
        assert bruno.sync()["view"]["has_chosen"][0] is True
        assert bruno.state["view"]["my_card"] is None


def test_a_stale_action_is_refused(client: TestClient) -> None:
    table, bruno_seat = _lobby(client)
    with client.websocket_connect(f"/ws/{table['table_id']}") as a, \
            client.websocket_connect(f"/ws/{table['table_id']}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        ana.send({"type": "start"})
        first = ana.sync()
        rng = random.Random(3)
        # Play out one whole turn (row choices included), so a new decision begins for Ana. Each
        # person acts only on a view of that turn: the bot may end the turn at any moment, and a
        # card played in the next turn would end the very decision the test looks at.
        turn = first["view"]["turn"]

        def first_turn(state: dict[str, Any]) -> bool:
            return bool(state["view"]["turn"] == turn and state["view"]["round"] == 1)

        deadline = time.monotonic() + 30
        while first_turn(ana.sync()):
            assert time.monotonic() < deadline, "the first turn never ended"
            for person in (ana, bruno):
                state = person.sync()
                if first_turn(state):
                    person.act_randomly(rng, state)
        now = ana.sync()
        assert now["version"] > first["version"]
        old_card = next(c for c in now["view"]["hand"])
        answer = ana.send({"type": "play", "card": old_card, "version": first["version"]})
        assert answer["type"] == "error" and answer["code"] == "stale"
        assert answer["params"]["current"] >= now["version"] > answer["params"]["version"]
        assert ana.sync()["view"]["my_card"] is None
        assert ana.send({"type": "play", "card": old_card, "version": now["version"]})["type"] == "ack"


def test_nobody_can_act_for_another_seat(client: TestClient) -> None:
    table, bruno_seat = _lobby(client)
    other = create_table(client, seats=2, name="Zed")
    with client.websocket_connect(f"/ws/{table['table_id']}") as a, \
            client.websocket_connect(f"/ws/{table['table_id']}") as b:
        ana = Person(a, table["token"])
        ana.send({"type": "start"})
        # A token of another table, or a made-up one, opens no seat here.
        b.send_json({"type": "hello", "token": other["token"]})
        assert b.receive_json()["code"] == "bad_token"
        b.send_json({"type": "hello", "token": table["token"][:-1] + ("A" if table["token"][-1] != "A" else "B")})
        assert b.receive_json()["code"] == "bad_token"
        bruno = Person(b, bruno_seat["token"])
        state = bruno.sync()
        assert state["table"]["you"] == 1
        # There is no field to name a seat: an action always acts for the connection's own seat.
        card = ana.sync()["view"]["hand"][0]
        answer = bruno.send({"type": "play", "card": card, "version": state["version"]})
        assert answer["code"] == "card_not_in_hand"
        assert ana.sync()["view"]["my_card"] is None and not ana.state["view"]["has_chosen"][0]
