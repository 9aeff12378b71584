"""The exploits of issue 28 against what one key or address may make, over HTTP: each stops at its
quota with ``429`` and ``Retry-After`` (counted in the store: nimmt/people/counts.py), and the
person's own next try works once the window is over. The in-memory rates per address are turned
off here, so that only the store's counts are seen."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from nimmt.server.app import create_app
from nimmt.server.limits import Limits

from .test_people_api import sheet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.people.test_store import Clock

OPEN = Limits(tables_per_minute=0, joins_per_minute=0, messages_per_minute=0)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, limits=OPEN)) as test_client:
        test_client.app.state.people.clock = Clock()  # type: ignore[attr-defined]
        yield test_client


def _player(client: TestClient, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    made = client.post("/api/players", json={"name": name})
    assert made.status_code == 201, made.text
    return made.json()["player"], {"X-Player-Key": made.json()["key"]}


def _limited(answer: Any, thing: str, by: str) -> None:
    assert answer.status_code == 429, answer.text
    body = answer.json()
    assert body["code"] == ("chat_too_soon" if thing == "chat" else "rate_limited")
    assert (body["params"]["thing"], body["params"]["by"]) == (thing, by)
    assert answer.headers["Retry-After"] == str(body["params"]["retry_after"]) and body["params"]["retry_after"] >= 1


def _until_refused(tries: int, send: Any) -> tuple[int, Any]:
    """Send up to ``tries`` times; how many were made before the first refusal, and that refusal."""
    for made in range(tries):
        answer = send(made)
        if answer.status_code not in (200, 201):
            return made, answer
    raise AssertionError(f"{tries} made, none refused")


def test_two_thousand_groups_from_one_key_stop_at_ten(client: TestClient) -> None:
    _, key = _player(client, "Ana")
    made, refused = _until_refused(2000, lambda n: client.post("/api/groups", headers=key, json={"name": f"G{n}"}))
    assert made == 10
    _limited(refused, "groups", "player")
    assert len(client.get("/api/me", headers=key).json()["groups"]) == 10
    for _ in range(20):  # and it stays refused: nothing more is made
        assert client.post("/api/groups", headers=key, json={"name": "more"}).status_code == 429
    client.app.state.people.clock.now += timedelta(hours=1)  # type: ignore[attr-defined]
    assert client.post("/api/groups", headers=key, json={"name": "next hour"}).status_code == 201


def test_a_thousand_link_codes_and_passkey_challenges_stop_at_their_quotas(client: TestClient) -> None:
    _, key = _player(client, "Ana")
    made, refused = _until_refused(1000, lambda _: client.post("/api/me/link", headers=key))
    assert made == 10
    _limited(refused, "links", "player")
    made, refused = _until_refused(1000, lambda _: client.post("/api/me/passkeys/options", headers=key))
    assert made == 20
    _limited(refused, "challenges", "player")
    # Signing in needs no key: the address is counted (the 20 above count too).
    made, refused = _until_refused(1000, lambda _: client.post("/api/passkeys/options"))
    assert made == 40
    _limited(refused, "challenges", "address")


def test_players_invites_joins_and_sheets_have_their_quotas(client: TestClient) -> None:
    ana, key = _player(client, "Ana")
    group = client.post("/api/groups", headers=key, json={"name": "Friday"}).json()
    made, refused = _until_refused(100, lambda _: client.patch(f"/api/groups/{group['id']}/invite", headers=key,
                                                                json={"open": True, "renew": True}))
    assert made == 20
    _limited(refused, "invites", "player")
    assert client.patch(f"/api/groups/{group['id']}/invite", headers=key, json={"open": False}).status_code == 200
    assert client.patch(f"/api/groups/{group['id']}/invite", headers=key, json={"open": True}).status_code == 200
    invite = client.get(f"/api/groups/{group['id']}", headers=key).json()["group"]["invite_url"].rsplit("/", 1)[1]
    _, bruno_key = _player(client, "Bruno")
    played = {"sheet": sheet(["Ana", "Bruno"], [[10, 60], [10, 20]]), "players": [ana["id"], None]}
    made, refused = _until_refused(100, lambda _: client.post(f"/api/groups/{group['id']}/sheets", headers=key,
                                                               json=played))
    assert made == 30
    _limited(refused, "sheets", "player")
    assert client.post("/api/invites", headers=bruno_key, json={"invite": invite}).status_code == 200
    made = sum(client.post("/api/invites", headers=bruno_key, json={"invite": invite}).status_code == 200
               for _ in range(40))
    assert made == 29  # joining again counts too: 30 an hour
    # 60 players an hour from one address (two made above).
    made, refused = _until_refused(200, lambda n: client.post("/api/players", json={"name": f"P{n}"}))
    assert made == 58
    _limited(refused, "players", "address")


def test_a_chat_flood_from_one_address_across_twenty_players_stops_at_ten(client: TestClient) -> None:
    _, host_key = _player(client, "Host")
    group = client.post("/api/groups", headers=host_key, json={"name": "Flood"}).json()
    invite = group["invite_url"].rsplit("/", 1)[1]
    keys = []
    for n in range(20):
        _, key = _player(client, f"F{n}")
        assert client.post("/api/invites", headers=key, json={"invite": invite}).status_code == 200
        keys.append(key)
    chat = f"/api/groups/{group['id']}/chat"
    answers = [client.post(chat, headers=key, json={"text": f"spam {n}"}) for n in range(5) for key in keys]
    assert sum(answer.status_code == 201 for answer in answers) == 10  # of 100, within the same 10 s
    _limited(next(answer for answer in answers if answer.status_code != 201), "chat", "address")
    assert len(client.get(chat, headers=host_key).json()["messages"]) == 10
    client.app.state.people.clock.now += timedelta(seconds=10)  # type: ignore[attr-defined]
    assert client.post(chat, headers=host_key, json={"text": "calm again"}).status_code == 201


def test_the_invite_page_is_limited_like_the_api_it_stands_for(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, limits=Limits(joins_per_minute=60))) as client:
        client.app.state.limits.joins.clock = lambda: 1000.0  # type: ignore[attr-defined]  # time stands still
        _, key = _player(client, "Ana")
        group = client.post("/api/groups", headers=key, json={"name": "Friday"}).json()
        invite = group["invite_url"].rsplit("/", 1)[1]
        assert client.get(f"/join/{invite}").status_code == 200
        guesses = [client.get(f"/join/ABCDEFGH{n:02d}") for n in range(99)]  # bounded: 349 a second before
        allowed = sum(answer.status_code == 200 for answer in guesses)
        assert allowed == 59  # a minute's worth (60) at once, the first look included
        refused = next(answer for answer in guesses if answer.status_code != 200)
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert "Friday" not in refused.text and '"limited":' in refused.text  # the page says when, in its words
        # One count for the page and the API: a guess here is a guess there.
        assert client.get(f"/api/invites/{invite}").status_code == 429
