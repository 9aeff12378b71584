"""A person's other device takes their own seat in a game in progress (issue 26, item 7): the player
key names the person, the seat they sat down in with it gets a token for that device, and both
devices play the seat; anyone else is refused."""

from __future__ import annotations

from starlette.testclient import TestClient

from nimmt.server.journal import DeviceAdded, entry_from_json, entry_to_json
from nimmt.server.tables.state import DEVICES

from .helpers import Person, legal_cards
from .test_people_api import new_player, refused


def test_a_persons_second_device_takes_their_seat_in_a_game_in_progress(client: TestClient) -> None:
    _ana, ana_key = new_player(client, "Ana")
    _bruno, bruno_key = new_player(client, "Bruno")
    _cleo, cleo_key = new_player(client, "Cleo")
    made = client.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"rounds": 1}}, headers=ana_key)
    assert made.status_code == 201, made.text
    table = made.json()
    bruno_seat = client.post(f"/api/tables/{table['table_id']}/join", json={"name": "Bruno"}, headers=bruno_key).json()
    with client.websocket_connect(f"/ws/{table['table_id']}") as a, \
            client.websocket_connect(f"/ws/{table['table_id']}") as b:
        phone, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        assert phone.send({"type": "start"})["type"] == "ack"
        phone.state_where(lambda m: bool(legal_cards(m)))
        # Ana opens the table on her second device, with the same player key: her seat, a token of its own.
        second = client.post(f"/api/tables/{table['table_id']}/seat", headers=ana_key)
        assert second.status_code == 201, second.text
        assert second.json()["seat"] == 0 and second.json()["token"] != table["token"]
        with client.websocket_connect(f"/ws/{table['table_id']}") as c:
            tablet = Person(c, second.json()["token"])
            state = tablet.state_where(lambda m: bool(legal_cards(m)))
            assert state["table"]["you"] == 0 and state["view"]["hand"] == phone.sync()["view"]["hand"]
            card = legal_cards(state)[0]
            assert tablet.send({"type": "play", "card": card, "version": state["version"]})["type"] == "ack"
            # The first device is still hers, and shows the card played from the second.
            assert phone.state_where(lambda m: m["view"]["my_card"] == card)["table"]["you"] == 0
            assert bruno.sync()["table"]["seats"][0]["present"]
    # Nobody else gets a seat this way: no key, a stranger's key, a table that does not exist.
    refused(client.post(f"/api/tables/{table['table_id']}/seat"), 401, "no_key")
    refused(client.post(f"/api/tables/{table['table_id']}/seat", headers=cleo_key), 404, "not_seated")
    refused(client.post("/api/tables/nosuchtable/seat", headers=ana_key), 404, "unknown_table")
    assert client.post(f"/api/tables/{table['table_id']}/seat", headers=bruno_key).json()["seat"] == 1


def test_a_seat_keeps_its_latest_devices_and_its_first_token(client: TestClient) -> None:
    _ana, ana_key = new_player(client, "Ana")
    table = client.post("/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]}, headers=ana_key).json()
    tokens = [client.post(f"/api/tables/{table['table_id']}/seat", headers=ana_key).json()["token"]
              for _ in range(DEVICES + 1)]

    def opens(token: str) -> bool:
        with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
            socket.send_json({"type": "hello", "token": token})
            return bool(socket.receive_json()["type"] == "state")

    assert opens(table["token"]) and all(opens(token) for token in tokens[1:])
    assert not opens(tokens[0])  # the oldest device is forgotten; the seat's first token never is


def test_the_entry_reads_back() -> None:
    entry = DeviceAdded(0, "ab" * 32)
    assert entry_to_json(entry) == {"kind": "device", "seat": 0, "token_hash": "ab" * 32}
    assert entry_from_json(entry_to_json(entry)) == entry
