"""Notices by Web Push (issue 30, items 1, 4 and 5; docs/push.md), with real parts: nimmt encrypts
and signs each notice with pywebpush, a local push endpoint (tests/server/pushing.py) receives it,
and the device's own keys decrypt it. One notice per decision, none while the person is at the
table, a reminder at a quarter of the clock; 404/410 drop the subscription; a held endpoint never
holds a table; two servers on one store send a notice once; subscriptions are in the export and
gone with the person."""

from __future__ import annotations

import random
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from nimmt.server.app import create_app
from nimmt.server.push import Notices
from nimmt.server.store import SqlStore
from nimmt.server.tables.commands import ClockRanOut

from .conftest import TEST_LIMITS
from .helpers import Person, legal_cards, legal_rows
from .pushing import Device, Endpoint, check_vapid, push_endpoint
from .test_people_api import new_player, refused

DAY = 86400


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    monkeypatch.setenv("NIMMT_PUSH_LOOPBACK", "1")  # the local endpoint is http on 127.0.0.1
    monkeypatch.setenv("NIMMT_PUSH_SUBJECT", "mailto:tests@nimmt.invalid")
    with push_endpoint() as local:
        yield local


@pytest.fixture
def app_client(tmp_path: Path, endpoint: Endpoint) -> Iterator[TestClient]:
    app = create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0, limits=TEST_LIMITS)
    with TestClient(app) as client:
        yield client


def language_player(client: TestClient, name: str, language: str) -> dict[str, str]:
    answer = client.post("/api/players", json={"name": name, "language": language})
    assert answer.status_code == 201, answer.text
    return {"X-Player-Key": answer.json()["key"]}


def subscribe(client: TestClient, key: dict[str, str], device: Device, endpoint: str, **more: Any) -> dict[str, Any]:
    answer = client.post("/api/me/push", json={**device.subscription(endpoint), **more}, headers=key)
    assert answer.status_code == 201, answer.text
    data: dict[str, Any] = answer.json()
    return data


def slow_table(client: TestClient, ana: dict[str, str], bruno: dict[str, str],
               clock: int = DAY) -> tuple[str, str, str]:
    made = client.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"rounds": 1, "clock": clock}},
                       headers=ana)
    assert made.status_code == 201, made.text
    table_id = made.json()["table_id"]
    joined = client.post(f"/api/tables/{table_id}/join", json={"name": "Bruno"}, headers=bruno)
    assert joined.status_code == 201, joined.text
    return table_id, made.json()["token"], joined.json()["token"]


def notices(client: TestClient) -> Notices:
    found: Notices = client.app.state.notices  # type: ignore[attr-defined]
    return found


def settle(client: TestClient) -> None:
    """Every notice this app has queued so far has been claimed and sent (or refused)."""
    portal = client.portal
    assert portal is not None
    deadline = time.monotonic() + 60
    ours = notices(client)
    while portal.call(lambda: bool(ours.tasks) or bool(ours.sender is not None and ours.sender.tasks)):
        assert time.monotonic() < deadline, "notices still being sent"
        time.sleep(0.05)


def test_a_turn_notice_is_encrypted_signed_and_says_what_is_asked(app_client: TestClient, endpoint: Endpoint) -> None:
    client = app_client
    ana = language_player(client, "Ana", "pt-BR")
    bruno = language_player(client, "Bruno", "fr")
    phone = Device()
    subscribe(client, ana, phone, f"{endpoint.url}/ana")
    site_key = client.get("/api/push/key").json()["key"]
    table_id, _ana_token, bruno_token = slow_table(client, ana, bruno)
    with client.websocket_connect(f"/ws/{table_id}") as socket:
        bruno_at = Person(socket, bruno_token)
        assert bruno_at.send({"type": "start"})["type"] == "ack"  # Ana is away: Bruno hosts
        state = bruno_at.state_where(lambda m: bool(legal_cards(m)))
        [received] = endpoint.wait("/ana")
        notice = phone.read(received)
        assert notice["title"] == "Mesa com Bruno"
        assert notice["body"].startswith("É sua vez de jogar uma carta: faltam 23 h")
        assert notice["url"] == f"/t/{table_id}" and notice["tag"] == f"turn/{table_id}/0"
        assert received.headers["urgency"] == "high"
        assert DAY - 120 <= int(received.headers["ttl"]) <= DAY  # worth delivering until the clock runs out
        assert received.headers["topic"] and len(received.headers["topic"]) <= 32
        claims = check_vapid(received, site_key)
        assert claims["aud"] == endpoint.url and claims["sub"] == "mailto:tests@nimmt.invalid"
        # Bruno plays: Ana's decision is the same one, so no second notice.
        assert bruno_at.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] \
            == "ack"
        bruno_at.sync()
    settle(client)
    assert len(endpoint.at("/ana")) == 1
    # Bruno never turned notices on: nothing for him anywhere.
    assert {r.path for r in endpoint.received} == {"/ana"}


def test_no_notice_while_the_person_is_at_the_table_and_one_at_the_next_decision(
        app_client: TestClient, endpoint: Endpoint) -> None:
    client = app_client
    ana, bruno = language_player(client, "Ana", "en"), language_player(client, "Bruno", "en")
    phone = Device()
    subscribe(client, ana, phone, f"{endpoint.url}/ana")
    table_id, ana_token, bruno_token = slow_table(client, ana, bruno)
    with client.websocket_connect(f"/ws/{table_id}") as a, client.websocket_connect(f"/ws/{table_id}") as b:
        ana_at, bruno_at = Person(a, ana_token), Person(b, bruno_token)
        assert ana_at.send({"type": "start"})["type"] == "ack"
        mine = ana_at.state_where(lambda m: bool(legal_cards(m)))
        assert ana_at.send({"type": "play", "card": legal_cards(mine)[0], "version": mine["version"]})["type"] == "ack"
        bruno_at.state_where(lambda m: bool(legal_cards(m)))
    settle(client)
    assert endpoint.at("/ana") == []  # she was at the table when it asked her
    with client.websocket_connect(f"/ws/{table_id}") as b:
        bruno_at = Person(b, bruno_token)
        bruno_at.state_where(lambda m: bool(legal_cards(m)))
        rng = random.Random(4)
        while bruno_at.act_randomly(rng) is not None:  # his card, and a row if his card is the lowest
            pass
        [received] = endpoint.wait("/ana")  # the table asks Ana, who has left: a row, or the next turn's card
    notice = phone.read(received)
    assert notice["title"] == "Table with Bruno"
    assert notice["body"] in ("Your card, please: 23 h left.",
                              "Your card is below every row: choose the row you take. 23 h left.")


def test_a_reminder_when_a_quarter_of_the_clock_is_left(app_client: TestClient, endpoint: Endpoint) -> None:
    client = app_client
    ana, bruno = language_player(client, "Ana", "de"), language_player(client, "Bruno", "de")
    phone = Device()
    subscribe(client, ana, phone, f"{endpoint.url}/ana")
    table_id, _ana_token, bruno_token = slow_table(client, ana, bruno)
    with client.websocket_connect(f"/ws/{table_id}") as b:
        bruno_at = Person(b, bruno_token)
        assert bruno_at.send({"type": "start"})["type"] == "ack"
        bruno_at.state_where(lambda m: bool(legal_cards(m)))
        endpoint.wait("/ana")
        portal = client.portal
        assert portal is not None
        table = portal.call(client.app.state.service.get, table_id)  # type: ignore[attr-defined]
        ours = notices(client)
        ours.clock = lambda: time.time() + DAY * 0.8  # 80% of the clock has gone by
        portal.call(ours.note, table)
        portal.call(ours.note, table)  # heard twice: still one reminder
        settle(client)
        first, reminder = endpoint.wait("/ana", 2)
    assert phone.read(reminder)["body"] == "Deine Karte fehlt: noch 4 Std."
    assert int(reminder.headers["ttl"]) <= DAY * 0.2 + 60
    assert phone.read(first)["tag"] == phone.read(reminder)["tag"]  # it replaces the first on the phone
    assert len(endpoint.at("/ana")) == 2


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_its_push_service_refuses_is_removed(app_client: TestClient, endpoint: Endpoint,
                                                            status: int) -> None:
    client = app_client
    ana, bruno = language_player(client, "Ana", "es"), language_player(client, "Bruno", "es")
    endpoint.status["/gone"] = status
    subscribe(client, ana, Device(), f"{endpoint.url}/gone")
    kept = subscribe(client, ana, Device(), f"{endpoint.url}/kept")
    table_id, _ana_token, bruno_token = slow_table(client, ana, bruno)
    with client.websocket_connect(f"/ws/{table_id}") as b:
        bruno_at = Person(b, bruno_token)
        assert bruno_at.send({"type": "start"})["type"] == "ack"
        endpoint.wait("/gone")
        endpoint.wait("/kept")
    settle(client)
    assert [sub["id"] for sub in client.get("/api/me/push", headers=ana).json()] == [kept["id"]]


def test_a_held_endpoint_never_holds_the_table(app_client: TestClient, endpoint: Endpoint) -> None:
    """The push service takes the request and never answers while the game goes on: every move is
    acknowledged meanwhile (sending runs in its own threads, with a timeout)."""
    client = app_client
    ana, bruno = language_player(client, "Ana", "fr"), language_player(client, "Bruno", "fr")
    gate = endpoint.hold["/slow"] = threading.Event()
    subscribe(client, ana, Device(), f"{endpoint.url}/slow")
    table_id, _ana_token, bruno_token = slow_table(client, ana, bruno)
    with client.websocket_connect(f"/ws/{table_id}") as b:
        bruno_at = Person(b, bruno_token)
        assert bruno_at.send({"type": "start"})["type"] == "ack"
        deadline = time.monotonic() + 60
        while "/slow" not in endpoint.held:
            assert time.monotonic() < deadline, "the notice never reached the endpoint"
            time.sleep(0.05)
        state = bruno_at.state_where(lambda m: bool(legal_cards(m)))
        assert bruno_at.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] \
            == "ack"
        assert bruno_at.sync()["view"]["my_card"] is not None
        assert endpoint.at("/slow") == []  # still held: the table did not wait for it
    gate.set()
    endpoint.wait("/slow")


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_two_servers_on_one_store_send_a_notice_once(tmp_path: Path, endpoint: Endpoint, kind: str,
                                                     request: pytest.FixtureRequest) -> None:
    url = str(tmp_path / "nimmt.sqlite3") if kind == "sqlite" else request.getfixturevalue("postgres_url")

    def server() -> FastAPI:
        if kind == "sqlite":
            return create_app(url, bot_delay=0, away_grace=0, limits=TEST_LIMITS)
        return create_app(store=SqlStore(url), bot_delay=0, away_grace=0, limits=TEST_LIMITS)

    with TestClient(server()) as one:
        ana, bruno = language_player(one, "Ana", "pt-PT"), language_player(one, "Bruno", "pt-PT")
        phone = Device()
        subscribe(one, ana, phone, f"{endpoint.url}/ana")
        table_id, _ana_token, bruno_token = slow_table(one, ana, bruno)
        with one.websocket_connect(f"/ws/{table_id}") as b:
            bruno_at = Person(b, bruno_token)
            assert bruno_at.send({"type": "start"})["type"] == "ack"
            endpoint.wait("/ana")
        with TestClient(server()) as two:
            later = lambda: time.time() + DAY * 0.8  # noqa: E731 - the reminder's moment, in both
            for server in (one, two):
                portal = server.portal
                assert portal is not None
                table = portal.call(server.app.state.service.get, table_id)  # type: ignore[attr-defined]
                ours = notices(server)
                ours.clock = later
                portal.call(ours.note, table)
                settle(server)
            # The second server heard the same moment: the store let one of them send it.
            assert [phone.read(r)["body"] for r in endpoint.wait("/ana", 2)] == [
                "É a tua vez de jogar uma carta: faltam 23 h.", "A mesa ainda espera pela tua carta: faltam 4 h."]
            # A second process that forgot what it sent (a restart) sends nothing again either.
            portal = two.portal
            assert portal is not None
            ours = notices(two)
            ours.handled.clear()
            table = portal.call(two.app.state.service.get, table_id)  # type: ignore[attr-defined]
            portal.call(ours.note, table)
            settle(two)
    assert len(endpoint.at("/ana")) == 2


def test_subscriptions_are_checked_in_the_export_and_gone_with_the_person(
        app_client: TestClient, endpoint: Endpoint) -> None:
    client = app_client
    _ana, ana = new_player(client, "Ana")
    device = Device()
    refused(client.post("/api/me/push", json=device.subscription("http://push.example.com/x"), headers=ana),
            422, "bad_subscription")  # https only (http on loopback for this test's endpoint)
    refused(client.post("/api/me/push", json={"endpoint": "https://push.example.com/x",
                                              "keys": {"p256dh": "AAAA", "auth": "AAAA"}}, headers=ana),
            422, "bad_subscription")
    refused(client.post("/api/me/push", json=device.subscription("https://push.example.com/x")), 401, "no_key")
    made = subscribe(client, ana, device, "https://push.example.com/x", groups=True, language="fr")
    again = subscribe(client, ana, device, "https://push.example.com/x")  # the same device: replaced
    assert [sub["id"] for sub in client.get("/api/me/push", headers=ana).json()] == [again["id"]] != [made["id"]]
    assert client.patch(f"/api/me/push/{again['id']}", json={"groups": True}, headers=ana).status_code == 204
    exported = client.get("/api/me/export", headers=ana).json()
    [kept] = exported["notices"]
    assert kept["endpoint"] == "https://push.example.com/x" and kept["groups"] is True
    assert kept["keys"] == device.subscription("x")["keys"] and kept["sent"] == []
    assert kept["device"] == client.get("/api/me", headers=ana).json()["devices"][0]["id"]
    # Another person cannot turn Ana's off; she can, from any device.
    _bruno, bruno = new_player(client, "Bruno")
    refused(client.delete(f"/api/me/push/{again['id']}", headers=bruno), 404, "unknown_subscription")
    assert client.delete(f"/api/me/push/{again['id']}", headers=ana).status_code == 204
    refused(client.delete(f"/api/me/push/{again['id']}", headers=ana), 404, "unknown_subscription")
    # Deleting the person deletes their subscriptions.
    subscribe(client, ana, device, "https://push.example.com/x")
    assert client.delete("/api/me", headers=ana).status_code == 204
    portal = client.portal
    assert portal is not None
    people = client.app.state.people  # type: ignore[attr-defined]
    assert portal.call(people.push.remove_endpoint, "https://push.example.com/x") is False


def test_a_group_table_is_news_for_members_who_chose_it(app_client: TestClient, endpoint: Endpoint) -> None:
    client = app_client
    _ana, ana = new_player(client, "Ana")
    _bruno, bruno = new_player(client, "Bruno")
    _cleo, cleo = new_player(client, "Cleo")
    group = client.post("/api/groups", json={"name": "Sexta à noite"}, headers=ana).json()
    invite = group["invite_url"].rsplit("/", 1)[1]
    for key in (bruno, cleo):
        assert client.post("/api/invites", json={"invite": invite}, headers=key).status_code == 200
    bruno_phone, cleo_phone = Device(), Device()
    subscribe(client, bruno, bruno_phone, f"{endpoint.url}/bruno", groups=True, language="pt-BR")
    subscribe(client, cleo, cleo_phone, f"{endpoint.url}/cleo", groups=False)
    made = client.post("/api/tables", json={"name": "Ana", "seats": 3, "group": group["id"],
                                            "options": {"clock": DAY}}, headers=ana)
    assert made.status_code == 201, made.text
    [received] = endpoint.wait("/bruno")
    notice = bruno_phone.read(received)
    assert notice == {**notice, "title": "Sexta à noite", "body": "Ana abriu uma mesa nova para o grupo.",
                      "url": f"/t/{made.json()['table_id']}"}
    assert received.headers["urgency"] == "normal"
    settle(client)
    assert endpoint.at("/cleo") == []  # Cleo chose turn notices only


@pytest.mark.parametrize("endpoint_url", ["https://10.0.0.8/push", "https://127.0.0.1:8443/x", "https://[::1]/x",
                                          "https://printer.local/x", "https://169.254.169.254/latest"])
def test_an_endpoint_on_the_servers_own_network_is_refused(tmp_path: Path, endpoint_url: str) -> None:
    """Without the tests' door (NIMMT_PUSH_LOOPBACK), nimmt posts to push services on the internet only."""
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, limits=TEST_LIMITS)) as client:
        _ana, ana = new_player(client, "Ana")
        refused(client.post("/api/me/push", json=Device().subscription(endpoint_url), headers=ana),
                422, "bad_subscription")
        assert client.post("/api/me/push", json=Device().subscription("https://fcm.googleapis.com/fcm/send/x"),
                           headers=ana).status_code == 201


def test_a_merged_players_devices_keep_their_notices(app_client: TestClient, endpoint: Endpoint) -> None:
    """A device-link code used on a phone that holds another player: its notices follow it."""
    client = app_client
    _ana, ana = new_player(client, "Ana")
    _other, phone_key = new_player(client, "Ana's phone")
    made = subscribe(client, phone_key, Device(), "https://push.example.com/phone")
    code = client.post("/api/me/link", headers=ana).json()["code"]
    merged = client.post("/api/link", json={"code": code, "merge": True}, headers=phone_key)
    assert merged.status_code == 201, merged.text
    assert [sub["id"] for sub in client.get("/api/me/push", headers=ana).json()] == [made["id"]]


def test_a_finished_group_game_is_news_for_members_not_at_the_table(app_client: TestClient,
                                                                   endpoint: Endpoint) -> None:
    client = app_client
    _ana, ana = new_player(client, "Ana")
    _bruno, bruno = new_player(client, "Bruno")
    group = client.post("/api/groups", json={"name": "Friday"}, headers=ana).json()
    assert client.post("/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]},
                       headers=bruno).status_code == 200
    ana_phone, bruno_phone = Device(), Device()
    subscribe(client, ana, ana_phone, f"{endpoint.url}/ana", groups=True)
    subscribe(client, bruno, bruno_phone, f"{endpoint.url}/bruno", groups=True, language="es")
    made = client.post("/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"], "group": group["id"],
                                            "options": {"rounds": 1}}, headers=ana).json()
    with client.websocket_connect(f"/ws/{made['table_id']}") as socket:
        ana_at = Person(socket, made["token"])
        assert ana_at.send({"type": "start"})["type"] == "ack"
        rng = random.Random(2)
        deadline = time.monotonic() + 120
        while ana_at.sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game never ended"
            if ana_at.act_randomly(rng) is None:
                time.sleep(0.05)
    new, over = endpoint.wait("/bruno", 2)
    assert bruno_phone.read(new)["body"] == "Ana abrió una mesa nueva para el grupo."
    assert bruno_phone.read(over)["title"] == "Friday"
    assert bruno_phone.read(over)["body"].startswith("Una partida terminó: ganó ")
    settle(client)
    assert endpoint.at("/ana") == []  # she was at the table: her own table's news are not news to her


def test_signing_a_device_out_ends_its_notices(app_client: TestClient, endpoint: Endpoint) -> None:
    """A lost phone signed out from the desk: its notices end with its key; the desk's go on."""
    client = app_client
    _ana, desk = new_player(client, "Ana")
    code = client.post("/api/me/link", headers=desk).json()["code"]
    linked = client.post("/api/link", json={"code": code})
    assert linked.status_code == 201, linked.text
    phone = {"X-Player-Key": linked.json()["key"]}
    on_desk = subscribe(client, desk, Device(), "https://push.example.com/desk")
    subscribe(client, phone, Device(), "https://push.example.com/phone")
    assert len(client.get("/api/me/push", headers=desk).json()) == 2
    devices = client.get("/api/me", headers=desk).json()["devices"]
    [lost] = [device for device in devices if device["how"] == "code"]
    assert client.delete(f"/api/me/devices/{lost['id']}", headers=desk).status_code == 204
    assert [sub["id"] for sub in client.get("/api/me/push", headers=desk).json()] == [on_desk["id"]]


def test_the_table_says_whether_it_is_turn_based_and_the_page_reads_it(app_client: TestClient) -> None:
    """The page's notices control is shown at a turn-based table: the server says which (the table's
    ``turn_based``), the page never repeats the hour the server counts from."""
    said = {}
    for clock in (None, 60, 3599, 3600, 86400):
        made = app_client.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"clock": clock}}).json()
        said[clock] = app_client.get(f"/api/tables/{made['table_id']}").json()["turn_based"]
    assert said == {None: False, 60: False, 3599: False, 3600: True, 86400: True}
    script = (Path(__file__).parents[2] / "nimmt" / "web" / "static" / "js" / "notices.js").read_text(encoding="utf-8")
    assert "table.turn_based" in script and "3600" not in script


def test_a_seat_the_clock_hands_to_a_bot_tells_its_absent_person_and_a_tap_takes_it_back(
        app_client: TestClient, endpoint: Endpoint) -> None:
    """Ana is away at a turn-based table and her clock runs out: the clock hands her seat to a bot, and
    her phone is told so (in her language), under her turn notices' tag; her tap opens the table, and
    the seat is hers again at her next decision. Bruno, who is here, is told nothing of it."""
    client = app_client
    ana = language_player(client, "Ana", "pt-BR")
    bruno = language_player(client, "Bruno", "fr")
    phone, bruno_phone = Device(), Device()
    subscribe(client, ana, phone, f"{endpoint.url}/ana")
    subscribe(client, bruno, bruno_phone, f"{endpoint.url}/bruno")
    table_id, ana_token, bruno_token = slow_table(client, ana, bruno)
    service = client.app.state.service  # type: ignore[attr-defined]
    portal = client.portal
    assert portal is not None
    with client.websocket_connect(f"/ws/{table_id}") as socket:
        bruno_at = Person(socket, bruno_token)
        assert bruno_at.send({"type": "start"})["type"] == "ack"
        bruno_at.state_where(lambda m: bool(legal_cards(m)))
        [asked] = endpoint.wait("/ana")  # her card, please
        table = service.tables[table_id]

        def run_out() -> None:  # a day later, as far as the table's clock knows; she left long ago
            table.asked_at[0] = time.time() - DAY - 1
            table.away_since[0] = time.monotonic() - 60

        portal.call(run_out)
        portal.call(service.submit, table, ClockRanOut())
        state = bruno_at.state_where(lambda m: m["table"]["seats"][0]["bot"] is not None)
        assert state["table"]["seats"][0]["replaced"]
        received = endpoint.wait("/ana", count=2)[1]
        notice = phone.read(received)
        assert notice["title"] == "Mesa com Bruno"
        assert notice["body"] == "Um robô joga por você enquanto você está fora. Toque para retomar seu lugar."
        assert notice["url"] == f"/t/{table_id}" and notice["tag"] == f"turn/{table_id}/0"  # it replaces her turn's
        assert phone.read(asked)["tag"] == notice["tag"]
        # Her tap opens the table at her seat: once the bot has played the decision the clock gave it,
        # the next one is hers.
        with client.websocket_connect(f"/ws/{table_id}") as her_socket:
            ana_at = Person(her_socket, ana_token)
            deadline = time.monotonic() + 60
            while not (legal_cards(ana_at.sync()) or legal_rows(ana_at.state)):
                assert time.monotonic() < deadline, "her seat did not come back"
                mine = bruno_at.sync()
                if legal_cards(mine) or legal_rows(mine):
                    assert bruno_at.act_randomly(random.Random(1), mine) is not None
                else:
                    time.sleep(0.05)  # the bot plays her decision at hand
            assert ana_at.state["table"]["seats"][0]["bot"] is None
    settle(client)  # (her later turn notices follow the rules of any decision: not counted here)
    assert [phone.read(r)["tag"] for r in endpoint.at("/ana")][:2] == [notice["tag"]] * 2
    assert all(bruno_phone.read(r)["tag"] == f"turn/{table_id}/1" for r in endpoint.at("/bruno"))  # his own only
