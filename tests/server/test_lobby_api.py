"""The lobby's HTTP API: creating and joining tables, and its clear errors."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from .helpers import create_table, join


def test_create_and_join_fill_seats_in_order(client: TestClient) -> None:
    table = create_table(client, seats=4, bots=["random"], end_above=50, countdown=True)
    assert table["seat"] == 0 and len(table["token"]) >= 40
    assert table["invite_url"].endswith(f"/t/{table['table_id']}")  # no language: each person reads their own
    info = client.get(f"/api/tables/{table['table_id']}").json()
    assert info["status"] == "lobby"
    assert info["options"] == {"end_above": 50, "rounds": None, "countdown": True, "coach": True, "public": False,
                               "clock": None, "absent": "ask", "absent_bot": "heuristic", "start_after": None}
    assert [s["taken"] for s in info["seats"]] == [True, False, False, True]
    assert info["seats"][3]["bot"] == "random"
    assert "token" not in str(info) and "hash" not in str(info)
    assert join(client, table["table_id"], "Bruno")["seat"] == 1
    assert join(client, table["table_id"], "Carla")["seat"] == 2
    response = client.post(f"/api/tables/{table['table_id']}/join", json={"name": "Dora"})
    assert response.status_code == 409 and response.json()["code"] == "table_full"


def test_tokens_are_unguessable_and_distinct(client: TestClient) -> None:
    tokens = {create_table(client, seats=2)["token"] for _ in range(5)}
    assert len(tokens) == 5 and all(len(t) >= 40 for t in tokens)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "Ana", "seats": 1}, "bad_request"),
        ({"name": "Ana", "seats": 11}, "bad_request"),
        ({"name": "", "seats": 3}, "bad_request"),
        ({"name": "A\u0007b", "seats": 3}, "bad_request"),
        ({"name": "x" * 25, "seats": 3}, "bad_request"),
        ({"name": "Ana", "seats": "3"}, "bad_request"),
        ({"name": "Ana", "seats": 3, "language": "xx"}, "bad_request"),
        ({"name": "Ana", "seats": 3, "surprise": 1}, "bad_request"),
        ({"name": "Ana", "seats": 3, "options": {"rounds": 0}}, "bad_request"),
        ({"name": "Ana", "seats": 3, "bots": ["nobody"]}, "unknown_bot"),
        ({"name": "Ana", "seats": 3, "bots": ["random"] * 3}, "too_many_bots"),
    ],
)
def test_create_refuses_bad_tables_clearly(client: TestClient, body: dict[str, Any], code: str) -> None:
    response = client.post("/api/tables", json=body)
    assert response.status_code in (409, 422)
    data = response.json()
    assert data["code"] == code and data["message"]


def test_unknown_tables_and_malformed_bodies(client: TestClient) -> None:
    for path in ("/api/tables/nosuchtable", "/api/tables/..%2F..", "/t/nosuchtable", "/watch/nosuchtable"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json()["code"] in ("unknown_table", "not_found")
    response = client.post("/api/tables", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json()["code"] == "bad_request"
    response = client.post("/api/tables", content=b"x" * 70_000, headers={"content-type": "application/json"})
    assert response.status_code == 413 and response.json()["code"] == "too_large"


def test_join_after_start_is_refused(client: TestClient) -> None:
    table = create_table(client, seats=2, bots=["random"])
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        socket.send_json({"type": "hello", "token": table["token"]})
        socket.receive_json()
        socket.send_json({"type": "start"})
        while socket.receive_json()["type"] != "ack":
            pass
    response = client.post(f"/api/tables/{table['table_id']}/join", json={"name": "Late"})
    assert response.status_code == 409 and response.json()["code"] == "already_started"


def test_openapi_describes_the_lobby(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path in ("/api/tables", "/api/tables/{table_id}", "/api/tables/{table_id}/join",
                 "/api/tables/{table_id}/games/{game}/record", "/api/scoresheet"):
        assert path in schema["paths"]
    assert "CreateTable" in schema["components"]["schemas"]


def test_bots_are_listed(client: TestClient) -> None:
    names = [bot["name"] for bot in client.get("/api/bots").json()]
    assert "random" in names
