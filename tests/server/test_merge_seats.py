"""A person whose two players become one by a one-time code keeps every seat (issue 30, item 2): the
tables where the merged player sat are listed on the person's other devices, which take that seat;
a game finished there is the person's; a merge of a merge still finds it; and deleting the person
takes the ids merged into them too; the turn notices of that seat reach the person's devices
(nimmt/people/aliases.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from nimmt.server.app import create_app

from .conftest import TEST_LIMITS
from .helpers import Person, legal_cards
from .pushing import Device, Endpoint, push_endpoint
from .test_people_api import new_player, refused
from .test_playing import eventually
from .test_push import slow_table, subscribe

DAY = 86400


def tables_of(client: TestClient, key: dict[str, str]) -> list[dict[str, Any]]:
    """What the home page's "games in progress" shows that device."""
    answer = client.get("/api/me/tables", headers=key)
    assert answer.status_code == 200, answer.text
    listed: list[dict[str, Any]] = answer.json()["tables"]
    return listed


def listed(client: TestClient, key: dict[str, str], table_ids: set[str]) -> dict[str, dict[str, Any]]:
    got = eventually(lambda: tables_of(client, key), lambda got: {t["table_id"] for t in got} == table_ids)
    assert {t["table_id"] for t in got} == table_ids, got
    return {t["table_id"]: t for t in got}


def link(client: TestClient, code_from: dict[str, str], typed_on: dict[str, str]) -> dict[str, Any]:
    """``typed_on``'s player becomes part of ``code_from``'s: the code made on one phone, typed on the other."""
    code = client.post("/api/me/link", headers=code_from).json()["code"]
    merged = client.post("/api/link", json={"code": code, "merge": True}, headers=typed_on)
    assert merged.status_code == 201, merged.text
    player: dict[str, Any] = merged.json()["player"]
    return player


def test_a_merged_phones_turn_based_table_is_listed_and_taken_on_the_other_devices(
        client: TestClient, tmp_path: Path) -> None:
    ana1, phone = new_player(client, "Ana")
    ana2, tablet = new_player(client, "Ana")
    _bruno, bruno = new_player(client, "Bruno")
    # On her phone Ana plays a turn-based game with Bruno; on her tablet she opened a table of her own.
    slow = client.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"clock": DAY}},
                       headers=phone).json()
    bruno_seat = client.post(f"/api/tables/{slow['table_id']}/join", json={"name": "Bruno"}, headers=bruno).json()
    own = client.post("/api/tables", json={"name": "Ana", "seats": 3, "options": {"clock": DAY}},
                      headers=tablet).json()
    with client.websocket_connect(f"/ws/{slow['table_id']}") as a:
        assert Person(a, slow["token"]).send({"type": "start"})["type"] == "ack"
    listed(client, phone, {slow["table_id"]})
    listed(client, tablet, {own["table_id"]})

    # The tablet makes a code, the phone types it: the phone's player becomes part of the tablet's.
    assert link(client, tablet, phone)["id"] == ana2["id"]
    assert client.get("/api/me", headers=phone).json()["player"]["id"] == ana2["id"]
    for key in (tablet, phone):  # both devices list both tables; the phone's table awaits her card
        shown = listed(client, key, {slow["table_id"], own["table_id"]})
        assert shown[slow["table_id"]]["your_move"] and shown[slow["table_id"]]["seat"] == 0
    # The tablet takes the seat the phone's player sat down in, and plays it.
    seat = client.post(f"/api/tables/{slow['table_id']}/seat", headers=tablet)
    assert seat.status_code == 201, seat.text
    assert seat.json()["seat"] == 0
    with client.websocket_connect(f"/ws/{slow['table_id']}") as t, \
            client.websocket_connect(f"/ws/{slow['table_id']}") as b:
        there, bruno_there = Person(t, seat.json()["token"]), Person(b, bruno_seat["token"])
        state = there.state_where(lambda m: bool(legal_cards(m)))
        assert state["table"]["you"] == 0
        assert there.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] == "ack"
        bruno_there.state_where(lambda m: bool(legal_cards(m)))
    shown = listed(client, tablet, {slow["table_id"], own["table_id"]})
    assert not shown[slow["table_id"]]["your_move"] and shown[slow["table_id"]]["waiting_for"] == ["Bruno"]
    # Bruno is nobody else: his own seat and list are as they were.
    assert [t["table_id"] for t in tables_of(client, bruno)] == [slow["table_id"]]
    refused(client.post(f"/api/tables/{own['table_id']}/seat", headers=bruno), 404, "not_seated")

    # A merge of the merge: the tablet's player becomes part of the desk's; the desk finds both seats.
    ana3, desk = new_player(client, "Ana")
    assert link(client, desk, tablet)["id"] == ana3["id"]
    listed(client, desk, {slow["table_id"], own["table_id"]})
    assert client.post(f"/api/tables/{slow['table_id']}/seat", headers=desk).json()["seat"] == 0
    assert client.post(f"/api/tables/{own['table_id']}/seat", headers=desk).json()["seat"] == 0
    exported = client.get("/api/me/export", headers=desk).json()
    assert [merged["id"] for merged in exported["merged_players"]] == [ana1["id"], ana2["id"]]
    assert {row["table_id"] for row in exported["seated_tables"]} == {slow["table_id"], own["table_id"]}

    # Her data is hers: deleted, the ids merged into her go too, and no row says where she sat.
    assert client.delete("/api/me", headers=desk).status_code == 204
    gone = (ana1["id"], ana2["id"], ana3["id"])
    with sqlite3.connect(tmp_path / "nimmt.sqlite3") as database:
        assert database.execute("SELECT count(*) FROM people_aliases").fetchall() == [(0,)]
        assert database.execute("SELECT count(*) FROM seated_tables WHERE player_id IN (?, ?, ?)",
                                gone).fetchall() == [(0,)]
    refused(client.post(f"/api/tables/{slow['table_id']}/seat", headers=phone), 401, "unknown_key")


def test_a_game_the_merged_player_finishes_is_the_persons(client: TestClient, tmp_path: Path) -> None:
    _ana1, phone = new_player(client, "Ana")
    ana2, tablet = new_player(client, "Ana")
    quick = client.post("/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"], "start": True,
                                             "options": {"rounds": 1}}, headers=phone).json()
    listed(client, phone, {quick["table_id"]})
    link(client, tablet, phone)
    # The phone plays on with the seat's token it had: the game ends under the merged player's id.
    with client.websocket_connect(f"/ws/{quick['table_id']}") as socket:
        there = Person(socket, quick["token"])
        while True:
            state = there.state_where(lambda m: bool(legal_cards(m)) or m["table"]["status"] == "over"
                                      or bool(m["view"].get("must_choose_row")))
            if state["table"]["status"] == "over":
                break
            if state["view"].get("must_choose_row"):
                there.send({"type": "choose_row", "row": 0, "version": state["version"]})
            else:
                there.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})

    def games() -> list[Any]:
        found: list[Any] = client.get("/api/me/games", headers=tablet).json()["games"]
        return found

    kept = eventually(games, lambda got: len(got) == 1)
    assert len(kept) == 1, kept
    assert kept[0]["seat"] == 0 and kept[0]["seats"][0]["player"] == ana2["id"] and kept[0]["ending"] == "played"

    def rows() -> list[Any]:
        with sqlite3.connect(tmp_path / "nimmt.sqlite3") as database:
            return database.execute("SELECT player_id, status FROM seated_tables").fetchall()

    assert rows() == []  # the game over: its rows went at its end (My games reads the game kept)
    assert tables_of(client, tablet) == []


@pytest.fixture
def with_notices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, Endpoint]]:
    """An app that sends notices, and a local push endpoint that receives them (as tests/server/test_push.py)."""
    monkeypatch.setenv("NIMMT_PUSH_LOOPBACK", "1")
    monkeypatch.setenv("NIMMT_PUSH_SUBJECT", "mailto:tests@nimmt.invalid")
    with push_endpoint() as endpoint, TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0,
                                                            limits=TEST_LIMITS)) as client:
        yield client, endpoint


def test_a_turn_notice_for_the_merged_players_seat_reaches_the_persons_devices(
        with_notices: tuple[TestClient, Endpoint]) -> None:
    client, endpoint = with_notices
    _ana1, phone = new_player(client, "Ana")
    _ana2, tablet = new_player(client, "Ana")
    _bruno, bruno = new_player(client, "Bruno")
    device = Device()
    subscribe(client, tablet, device, f"{endpoint.url}/tablet")  # notices on for her tablet
    table_id, _ana_token, bruno_token = slow_table(client, phone, bruno)  # she sat down on her phone
    link(client, tablet, phone)
    with client.websocket_connect(f"/ws/{table_id}") as socket:
        bruno_at = Person(socket, bruno_token)
        assert bruno_at.send({"type": "start"})["type"] == "ack"  # Ana is away: the table asks her card
        [received] = endpoint.wait("/tablet")
    notice = device.read(received)
    assert notice["url"] == f"/t/{table_id}" and notice["tag"] == f"turn/{table_id}/0"
