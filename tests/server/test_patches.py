"""Patches (docs/protocol.md, *Patches*): a client that asks for them holds, after applying each one,
exactly the state a client of whole states holds; the merge's edge cases; ``ref`` on hello and ping."""

from __future__ import annotations

import json
import random
import warnings
from typing import Any

import pytest

with warnings.catch_warnings():  # Starlette's notice about httpx, as in the other server tests
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from nimmt.core import BULLHEADS, DECK
from nimmt.server.patch import apply_patch, state_patch

from .helpers import Person, create_table, join

# (state before, state after): each pair must go through a patch and come out the same. Shared with
# the browser's test of table.js's merge (tests/browser/test_patches.py).
CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"view": {"my_card": 41, "hand": [5, 41]}}, {"view": {"my_card": None, "hand": [5]}}),  # a value to null
    ({"view": {"my_card": None}}, {"view": {"my_card": 7}}),  # and back
    ({"reveal": {"waiting": {"player": 1, "card": 3}}}, {"reveal": None}),  # an object to null
    ({"reveal": None}, {"reveal": {"id": 4, "waiting": None, "placements": []}}),  # null to an object holding null
    ({"a": {"b": {"c": 1, "d": 2}, "e": 3}}, {"a": {"b": {"c": 1, "d": 5}, "e": 3}}),  # deep in objects
    ({"rows": [[1, 2], [3]]}, {"rows": [[1, 2], [3, 4]]}),  # arrays whole
    ({"seats": [{"present": True}]}, {"seats": [{"present": False}]}),  # objects in arrays: the array whole
    ({"x": 1}, {"x": True}), ({"x": 1}, {"x": 1.0}),  # JSON, not Python's ==
    ({"x": {"k": 1}}, {"x": [1]}), ({"x": [1]}, {"x": {"k": 1}}),  # an object becomes an array and back
    ({"x": {}}, {"x": {"new": None}}),  # a new key that is null
    ({"same": {"deep": [1, {"k": None}]}}, {"same": {"deep": [1, {"k": None}]}}),  # nothing changed
]


def _json(value: Any) -> str:
    """The JSON text, keys sorted: an object's key order means nothing (a patch adds none anyway)."""
    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize(("old", "new"), CASES)
def test_a_patch_turns_the_old_state_into_the_new_one(old: dict[str, Any], new: dict[str, Any]) -> None:
    before = json.dumps(old)
    patch = state_patch(old, new)
    assert patch is not None
    after = apply_patch(old, json.loads(json.dumps(patch)))  # as it travels
    assert _json(after) == _json(new)
    assert json.dumps(old) == before  # applying left the old state alone
    assert (patch == {}) == (_json(old) == _json(new))


def test_a_patch_carries_only_what_changed() -> None:
    bullheads = {str(c): 1 for c in range(1, 105)}
    rows = [[3], [17], [40], [88]]
    old = {"version": 3, "view": {"hand": [5, 41], "my_card": 41, "rows": rows}, "reveal": None, "bullheads": bullheads}
    new = {"version": 4, "view": {"hand": [5, 41], "my_card": None, "rows": rows}, "reveal": None,
           "bullheads": dict(bullheads)}
    assert state_patch(old, new) == {"version": 4, "view": {"my_card": None}}


def test_a_key_that_goes_away_cannot_be_patched() -> None:
    assert state_patch({"a": 1, "b": 2}, {"a": 1}) is None
    assert state_patch({"x": {"a": 1, "b": 2}}, {"x": {"a": 1}}) is None


class PatchPerson(Person):
    """A connection that asks for patches and applies them; ``seen`` counts what came how."""

    def __init__(self, socket: WebSocketTestSession, token: str | None) -> None:
        self.socket = socket
        self.state = {}
        self.seen = {"state": 0, "patch": 0}
        self.patched: set[str] = set()  # the keys of the state that patches changed
        socket.send_json({"type": "hello", "token": token, "patches": True})
        self.state = self.until(lambda m: m["type"] == "state")

    def until(self, predicate: Any, limit: int = 2000) -> dict[str, Any]:
        for _ in range(limit):
            message: dict[str, Any] = self.socket.receive_json()
            if message["type"] in ("state", "patch"):
                self.seen[message["type"]] += 1
            if message["type"] == "patch":
                assert self.state, "a patch before the first whole state"
                self.patched.update(message["patch"])
                message = apply_patch(self.state, message["patch"]) | {"version": message["version"]}
            if message["type"] == "state":
                self.state = message
            if predicate(message):
                return message
        raise AssertionError("the expected message never came")


def test_a_patch_client_holds_the_same_states_as_a_whole_state_client(client: TestClient) -> None:
    table = create_table(client, seats=3, rounds=2)
    table_id = table["table_id"]
    tokens = [table["token"], join(client, table_id, "Bruno")["token"], join(client, table_id, "Cleo")["token"]]
    rng = random.Random(5)
    with client.websocket_connect(f"/ws/{table_id}") as s0, client.websocket_connect(f"/ws/{table_id}") as s1, \
            client.websocket_connect(f"/ws/{table_id}") as s2, client.websocket_connect(f"/ws/{table_id}") as s3, \
            client.websocket_connect(f"/ws/{table_id}") as s4, client.websocket_connect(f"/ws/{table_id}") as s5:
        # Ana twice (whole, patched), Bruno and Cleo patched, a spectator twice (whole, patched).
        ana, ana_p = Person(s0, tokens[0]), PatchPerson(s1, tokens[0])
        players = [ana_p, PatchPerson(s2, tokens[1]), PatchPerson(s3, tokens[2])]
        watcher, watcher_p = Person(s4, None), PatchPerson(s5, None)
        pairs = [(ana, ana_p), (watcher, watcher_p)]
        everyone = [ana, *players, watcher, watcher_p]
        by_version: list[tuple[dict[int, dict[str, Any]], dict[int, dict[str, Any]]]] = [({}, {}) for _ in pairs]

        def settle() -> None:
            """Every connection has been sent every update: the same states must be held by each pair."""
            for person in everyone:
                person.sync()
            for (whole, patched), (seen_whole, seen_patched) in zip(pairs, by_version, strict=True):
                assert _json(patched.state) == _json(whole.state)
                seen_whole[whole.state["version"]] = whole.state
                seen_patched[patched.state["version"]] = patched.state

        settle()
        assert ana.send({"type": "start"})["type"] == "ack"
        settle()
        for _ in range(200):
            if ana.state["table"]["status"] == "over":
                break
            for person in players:
                person.act_randomly(rng, person.state)
                settle()
        assert ana.state["table"]["status"] == "over" and len(ana.state["view"]["history"]) == 2
        assert ana.send({"type": "rematch"})["type"] == "ack"
        settle()
        for seen_whole, seen_patched in by_version:
            assert len(seen_whole) > 40 and _json(seen_whole) == _json(seen_patched)
        # Patches came, and a whole state only first: the state never loses a key.
        for person in [*players, watcher_p]:
            assert person.seen["state"] == 1 and person.seen["patch"] > 40, person.seen
            # The cards' printed bullheads came with the first state, and never again.
            assert "bullheads" not in person.patched and "view" in person.patched
            assert ("legal" in person.patched) == (person is not watcher_p)  # a spectator may do nothing
            assert person.state["bullheads"] == {str(card): BULLHEADS[card] for card in DECK}
        # The table's part is what the HTTP API says of the table (built without pydantic now).
        info = client.get(f"/api/tables/{table_id}").json()
        assert {k: v for k, v in ana.state["table"].items() if k not in ("you", "creator")} == info


def test_after_a_reconnect_the_first_state_is_whole(client: TestClient) -> None:
    table = create_table(client, seats=2)
    join(client, table["table_id"], "Bruno")
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        first = PatchPerson(socket, table["token"])
        assert first.send({"type": "start"})["type"] == "ack"
        first.sync()
        assert first.seen["patch"] >= 1
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        socket.send_json({"type": "hello", "token": table["token"], "patches": True})
        message = socket.receive_json()
        assert message["type"] == "state" and message["view"]["hand"]


def test_a_client_that_does_not_ask_gets_whole_states(client: TestClient) -> None:
    table = create_table(client, seats=2)
    join(client, table["table_id"], "Bruno")
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        ana = Person(socket, table["token"])
        assert ana.send({"type": "start"})["type"] == "ack"
        kinds = []
        socket.send_json({"type": "ping"})
        while (message := socket.receive_json())["type"] != "pong":
            kinds.append(message["type"])
        assert kinds and set(kinds) <= {"state", "ack"}


def test_hello_and_ping_may_carry_a_ref(client: TestClient) -> None:
    table = create_table(client, seats=2)
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        socket.send_json({"type": "hello", "token": "no such token", "ref": "h1"})
        assert socket.receive_json() | {"message": ""} == {
            "type": "error", "code": "bad_token", "ref": "h1", "params": {}, "message": ""}
        socket.send_json({"type": "hello", "token": table["token"], "ref": "h2"})
        assert socket.receive_json()["type"] == "state"
        socket.send_json({"type": "ping", "ref": "p1"})
        assert socket.receive_json() == {"type": "pong", "ref": "p1"}
        socket.send_json({"type": "ping"})
        assert socket.receive_json() == {"type": "pong"}
        socket.send_json({"type": "hello", "token": table["token"], "ref": "h3"})
        answer = socket.receive_json()
        assert answer["code"] == "already_greeted" and answer["ref"] == "h3"
        socket.send_json({"type": "ping", "ref": "x" * 65})  # a ref is at most 64 characters
        answer = socket.receive_json()
        assert answer["code"] == "bad_message" and answer["ref"] == "x" * 64
        socket.send_json({"type": "hello", "token": table["token"], "patches": "yes"})
        assert socket.receive_json()["code"] == "bad_message"
