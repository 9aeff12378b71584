"""A group's chat through the API (real app and SQLite store): members only, a cursor, bad input
refused with its own code and nothing kept, a person's burst limit, export and delete; and no chat
anywhere but a group."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.testclient import TestClient

from nimmt.people.chat import BURST, LENGTH, WINDOW

from .test_people_api import new_player, refused


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def group_of_two(client: TestClient) -> tuple[str, dict[str, str], dict[str, str], dict[str, Any]]:
    ana, ana_key = new_player(client, "Ana")
    _, bruno_key = new_player(client, "Bruno")
    group = client.post("/api/groups", json={"name": "Friday"}, headers=ana_key).json()
    joined = client.post("/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]}, headers=bruno_key)
    assert joined.status_code == 200, joined.text
    return group["id"], ana_key, bruno_key, ana


def test_members_only_in_order_after_a_cursor(client: TestClient) -> None:
    group, ana_key, bruno_key, ana = group_of_two(client)
    _, carol_key = new_player(client, "Carol")
    chat = f"/api/groups/{group}/chat"
    sent = client.post(chat, json={"text": "Friday at 8?"}, headers=ana_key)
    assert sent.status_code == 201, sent.text
    assert sent.json()["name"] == "Ana" and sent.json()["you"] and sent.json()["player"] == ana["id"]
    reply = client.post(chat, json={"text": "Yes 🐂"}, headers=bruno_key).json()
    seen = client.get(chat, headers=bruno_key).json()
    assert [(m["name"], m["text"], m["you"]) for m in seen["messages"]] == [("Ana", "Friday at 8?", False),
                                                                             ("Bruno", "Yes 🐂", True)]
    assert seen["cursor"] == reply["id"] and not seen["more"]
    after = client.get(chat, params={"after": sent.json()["id"]}, headers=ana_key).json()
    assert [m["text"] for m in after["messages"]] == ["Yes 🐂"]
    assert client.get(chat, params={"after": reply["id"]}, headers=ana_key).json() == \
        {"messages": [], "cursor": reply["id"], "more": False}
    # Strangers never see a word, nor send one.
    refused(client.get(chat), 401, "no_key")
    refused(client.get(chat, headers=carol_key), 403, "not_member")
    refused(client.post(chat, json={"text": "hi"}, headers=carol_key), 403, "not_member")
    refused(client.get("/api/groups/g_nothing/chat", headers=ana_key), 404, "unknown_group")
    refused(client.post("/api/groups/g_nothing/chat", json={"text": "hi"}, headers=ana_key), 404, "unknown_group")
    for after in (-1, 2**31, "x"):
        refused(client.get(chat, params={"after": after}, headers=ana_key), 422, "bad_request")
    # A member who leaves reads no more; what they said stays for the others.
    assert client.post(f"/api/groups/{group}/leave", headers=bruno_key).status_code == 204
    refused(client.get(chat, headers=bruno_key), 403, "not_member")
    assert len(client.get(chat, headers=ana_key).json()["messages"]) == 2
    # Tables and the lobby have no chat.
    paths = {path for path in client.get("/openapi.json").json()["paths"] if path.endswith("/chat")}
    assert paths == {"/api/groups/{group_id}/chat"}


def test_bad_input_and_a_burst_are_refused_and_nothing_is_kept(client: TestClient) -> None:
    clock = Clock()
    client.app.state.people.clock = clock  # type: ignore[attr-defined]
    group, ana_key, _, _ = group_of_two(client)
    chat = f"/api/groups/{group}/chat"
    for text, code in [("   ", "chat_empty"), ("one\ntwo", "chat_control"), ("\u2067x", "chat_direction"),
                       ("x" * (LENGTH + 1), "chat_long")]:
        refused(client.post(chat, json={"text": text}, headers=ana_key), 422, code)
    assert client.post(chat, json={"text": "x" * (LENGTH + 1)}, headers=ana_key).json()["params"] == \
        {"most": LENGTH, "count": LENGTH + 1}
    for body in ({}, {"text": 7}, {"text": "hi", "extra": 1}, []):
        refused(client.post(chat, json=body, headers=ana_key), 422, "bad_request")
    assert client.get(chat, headers=ana_key).json()["messages"] == []  # nothing was kept
    for n in range(BURST):
        assert client.post(chat, json={"text": f"{n}"}, headers=ana_key).status_code == 201
    too_soon = client.post(chat, json={"text": "more"}, headers=ana_key)
    refused(too_soon, 429, "chat_too_soon")
    assert too_soon.json()["params"]["retry_after"] == WINDOW.seconds
    clock.now += WINDOW + timedelta(seconds=1)
    assert client.post(chat, json={"text": "more"}, headers=ana_key).status_code == 201
    assert [m["text"] for m in client.get(chat, headers=ana_key).json()["messages"]] == \
        [*map(str, range(BURST)), "more"]


def test_export_holds_the_messages_and_delete_removes_them(client: TestClient) -> None:
    group, ana_key, bruno_key, _ = group_of_two(client)
    chat = f"/api/groups/{group}/chat"
    client.post(chat, json={"text": "mine"}, headers=ana_key)
    client.post(chat, json={"text": "his"}, headers=bruno_key)
    exported = client.get("/api/me/export", headers=ana_key).json()
    assert [(m["group"], m["text"]) for m in exported["messages"]] == [(group, "mine")]
    assert client.delete("/api/me", headers=ana_key).status_code in (200, 204)
    assert [m["text"] for m in client.get(chat, headers=bruno_key).json()["messages"]] == ["his"]


def test_the_group_page_carries_the_chat_texts(client: TestClient) -> None:
    group, _, _, _ = group_of_two(client)
    page = client.get(f"/groups/{group}?lang=fr").text
    assert 'id="chat-form"' in page and '"chat_send"' in page
    assert "chat-form" not in client.get("/lobby").text
