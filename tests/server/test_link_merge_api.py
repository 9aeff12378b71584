"""A device that already holds a player, given another device's one-time code (docs/people.md): it
is told first what would happen (409 link_merge, the code unused), then, agreed, its player becomes
part of the code's player and the device keeps its key."""

from __future__ import annotations

from starlette.testclient import TestClient

from .test_people_api import KEY, new_player, refused


def test_a_phone_with_a_player_is_asked_then_merged(client: TestClient) -> None:
    ana, desk = new_player(client, "Ana")
    _, phone = new_player(client, "Ana phone")
    group = client.post("/api/groups", json={"name": "Le club"}, headers=phone).json()
    code = client.post("/api/me/link", headers=desk).json()["code"]
    asked = client.post("/api/link", json={"code": code}, headers=phone)
    refused(asked, 409, "link_merge")
    assert asked.json()["params"] == {"name": "Ana", "mine": "Ana phone", "games": 0, "groups": 1}
    refused(client.post("/api/link", json={"code": code}, headers=desk), 409, "link_same")
    merged = client.post("/api/link", json={"code": code, "merge": True}, headers=phone)
    assert merged.status_code == 201, merged.text
    assert merged.json() == {"player": ana | {"name": "Ana"}, "key": phone[KEY]}
    me = client.get("/api/me", headers=phone).json()
    assert me["player"]["id"] == ana["id"] and len(me["devices"]) == 2
    assert [(mine["id"], mine["host"]) for mine in me["groups"]] == [(group["id"], True)]
    refused(client.post("/api/link", json={"code": code, "merge": True}, headers=phone), 409, "code_used")
    # A device with no player (or a key nimmt does not know) just takes the code, as before.
    fresh = client.post("/api/me/link", headers=desk).json()["code"]
    taken = client.post("/api/link", json={"code": fresh}, headers={KEY: "nk1_" + "A" * 43})
    assert taken.status_code == 201 and taken.json()["player"]["id"] == ana["id"]


def test_a_phone_whose_player_has_nothing_yet_is_linked_at_once(client: TestClient) -> None:
    """A first visit's player (no game, no group): nothing to lose, nothing to ask."""
    ana, desk = new_player(client, "Ana")
    _, phone = new_player(client, "Ana")
    code = client.post("/api/me/link", headers=desk).json()["code"]
    linked = client.post("/api/link", json={"code": code}, headers=phone)
    assert linked.status_code == 201, linked.text
    assert linked.json()["player"]["id"] == ana["id"] and linked.json()["key"] == phone[KEY]
    assert len(client.get("/api/me", headers=desk).json()["devices"]) == 2
