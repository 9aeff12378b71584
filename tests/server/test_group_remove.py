"""A group's host removes a member: only the host, never themselves (they leave), only a member; the
removed one sees the group no more, their games stay in its league, and a new invite keeps them out."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from .test_people_api import new_player, refused, sheet


def test_the_host_removes_a_member_and_nobody_else_can(client: TestClient) -> None:
    ana, ana_key = new_player(client, "Ana")
    bruno, bruno_key = new_player(client, "Bruno")
    carla, carla_key = new_player(client, "Carla")
    group: dict[str, Any] = client.post("/api/groups", headers=ana_key, json={"name": "Friday"}).json()
    invite = group["invite_url"].rsplit("/", 1)[1]
    for key in (bruno_key, carla_key):
        assert client.post("/api/invites", headers=key, json={"invite": invite}).status_code == 200
    played = {"sheet": sheet(["Ana", "Bruno"], [[10, 60], [10, 20]]), "players": [ana["id"], bruno["id"]]}
    assert client.post(f"/api/groups/{group['id']}/sheets", headers=ana_key, json=played).status_code == 201
    members = f"/api/groups/{group['id']}/members"
    refused(client.delete(f"{members}/{carla['id']}", headers=bruno_key), 403, "not_host")
    refused(client.delete(f"{members}/{ana['id']}", headers=ana_key), 409, "remove_host")
    refused(client.delete(f"{members}/p_nobody", headers=ana_key), 403, "not_member")
    refused(client.delete(f"/api/groups/g_nothing/members/{bruno['id']}", headers=ana_key), 404, "unknown_group")
    assert client.delete(f"{members}/{bruno['id']}", headers=ana_key).status_code == 204
    refused(client.get(f"/api/groups/{group['id']}", headers=bruno_key), 403, "not_member")
    assert group["id"] not in {g["id"] for g in client.get("/api/me", headers=bruno_key).json()["groups"]}
    detail = client.get(f"/api/groups/{group['id']}", headers=ana_key).json()
    assert [m["name"] for m in detail["members"]] == ["Ana", "Carla"]
    assert detail["league"]["games"] == 1  # the game Bruno played stays in the league
    # A new invite keeps them out; the old one opens nothing.
    renewed = client.patch(f"/api/groups/{group['id']}/invite", headers=ana_key, json={"open": True, "renew": True})
    refused(client.post("/api/invites", headers=bruno_key, json={"invite": invite}), 404, "invite_unknown")
    assert renewed.json()["invite_url"].rsplit("/", 1)[1] != invite
