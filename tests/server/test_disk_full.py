"""A full disk, honestly: the store's SQLite file on a small tmpfs of its own (mounted by the test,
as root), filled mid-game by another file. Then ``/healthz`` answers 503 and says the write failed,
every route answers without a 500 (a write: ``503 server_error`` with ``Retry-After``; a read: as
before), a card played is refused with ``server_error`` and nothing changes; once the space is back,
the health is ok and the same game goes on. Skipped where no filesystem can be mounted."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute

from nimmt.server.app import create_app
from nimmt.server.limits import Limits

from .helpers import Person, create_table, legal_cards
from .test_people_api import sheet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

SIZE = "6m"  # the store's whole filesystem


def _mount(where: Path) -> bool:
    if os.geteuid() != 0:
        return False
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", str(where)],
                          capture_output=True, timeout=30, check=False)
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    where = tmp_path / "disk"
    if not _mount(where):
        pytest.skip("no tmpfs can be mounted here (needs root and CAP_SYS_ADMIN)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30, check=False)


@contextlib.contextmanager
def full(disk: Path) -> Iterator[None]:
    """The filesystem filled to its last byte by one file, removed on the way out."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out:
        for size in (65536, 512, 1):  # bounded: 6 MB is at most some 100 of the first
            with contextlib.suppress(OSError):
                for _ in range(100_000):
                    out.write(b"\0" * size)
    try:
        yield
    finally:
        filler.unlink()


def _no_500(answer: Any, where: str) -> None:
    assert answer.status_code < 500 or answer.status_code == 503, f"{where}: {answer.status_code} {answer.text[:300]}"
    assert "Traceback" not in answer.text, where
    if answer.status_code == 503 and not where.endswith("/healthz"):
        body = answer.json()
        assert body["code"] in ("server_error", "busy", "preparing"), f"{where}: {answer.text}"
        if body["code"] == "server_error" and "retry_after" in body["params"]:
            assert answer.headers["Retry-After"] == str(body["params"]["retry_after"])


def _every_route(client: TestClient, values: dict[str, str], key: dict[str, str]) -> int:
    """Every API route, each method, its path filled from ``values`` and a body of ``{}``: none is a 500."""
    def routes(found: list[Any]) -> Iterator[Any]:
        for route in found:  # a router included as it is: its own routes
            inner = getattr(route, "original_router", None)
            yield from routes(inner.routes) if inner is not None else (route,)

    asked = 0
    for route in routes(client.app.routes):  # type: ignore[attr-defined]
        if not isinstance(route, APIRoute) or route.path.startswith("/api/replay"):
            continue  # the record checker's worker: no store
        for method in sorted(route.methods - {"HEAD"}):
            if (method, route.path) == ("DELETE", "/api/me"):
                continue  # asked on its own at the end
            path = re.sub(r"\{(\w+)\}", lambda found: values.get(found[1], "x"), route.path)
            answer = client.request(method, path, headers=key, json={} if method != "GET" else None)
            _no_500(answer, f"{method} {path}")
            asked += 1
    return asked


def test_a_full_disk_mid_game_is_a_clean_503_and_the_game_goes_on(small_disk: Path) -> None:
    app = create_app(small_disk / "nimmt.sqlite3", bot_delay=0, away_grace=0, limits=Limits(messages_per_minute=0))
    with TestClient(app) as client:
        ana = client.post("/api/players", json={"name": "Ana"}).json()
        bruno = client.post("/api/players", json={"name": "Bruno"}).json()
        key, bruno_key = {"X-Player-Key": ana["key"]}, {"X-Player-Key": bruno["key"]}
        group = client.post("/api/groups", headers=key, json={"name": "Friday"}).json()
        assert client.post("/api/invites", headers=bruno_key, json={"invite": group["invite_url"].rsplit("/", 1)[1]}
                           ).status_code == 200
        assert client.post(f"/api/groups/{group['id']}/chat", headers=key, json={"text": "hi"}).status_code == 201
        table = create_table(client, seats=2, bots=["random"], rounds=1)
        values = {"table_id": table["table_id"], "game": "1", "group_id": group["id"],
                  "player_id": bruno["player"]["id"], "invite": group["invite_url"].rsplit("/", 1)[1],
                  "code": "ABCDEFGHJK", "device_id": "d_x",
                  "passkey_id": "x", "member_id": bruno["player"]["id"]}
        with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
            person = Person(socket, table["token"])
            assert person.send({"type": "start"})["type"] == "ack"
            state = person.state_where(lambda s: bool(legal_cards(s)))
            assert client.get("/healthz").json()["writes"] == "ok"
            with full(small_disk):
                health = client.get("/healthz")
                assert health.status_code == 503, health.text
                assert health.json()["failed"] == "write" and "full" in health.json()["error"]
                card = legal_cards(state)[0]
                refused = person.send({"type": "play", "card": card, "version": state["version"]})
                assert refused["type"] == "error" and refused["code"] == "server_error"
                # The people's writes: each a clean 503 with Retry-After, nothing kept.
                writes = [client.post("/api/players", json={"name": "Carla"}),
                          client.post("/api/groups", headers=key, json={"name": "Saturday"}),
                          client.patch("/api/me", headers=key, json={"name": "Anabela"}),
                          client.post("/api/me/link", headers=key),
                          client.post(f"/api/groups/{group['id']}/chat", headers=key, json={"text": "still here?"}),
                          client.post(f"/api/groups/{group['id']}/sheets", headers=key, json={
                              "sheet": sheet(["Ana", "Bruno"], [[10, 60], [10, 20]]),
                              "players": [ana["player"]["id"], bruno["player"]["id"]]}),
                          client.post("/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]})]
                for answer in writes:
                    assert answer.status_code == 503, answer.text
                    assert answer.json()["code"] == "server_error" and "Retry-After" in answer.headers
                # The reads still answer.
                assert client.get("/api/me", headers=key).json()["player"]["name"] == "Ana"
                chat = client.get(f"/api/groups/{group['id']}/chat", headers=key).json()
                assert [message["text"] for message in chat["messages"]] == ["hi"]
                assert _every_route(client, values, key) > 30
                refused_delete = client.delete("/api/me", headers=bruno_key)
                _no_500(refused_delete, "DELETE /api/me")
            # Space is back: healthy again, and the same game goes on from where it was.
            assert client.get("/healthz").json()["writes"] == "ok"
            again = person.state_where(lambda s: card in legal_cards(s))  # the bot may have chosen meanwhile
            assert person.send({"type": "play", "card": card, "version": again["version"]})["type"] == "ack"
        assert client.post("/api/players", json={"name": "Carla"}).status_code == 201
        assert client.patch("/api/me", headers=key, json={"name": "Anabela"}).json()["name"] == "Anabela"
