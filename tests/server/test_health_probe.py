"""``/healthz`` tells the truth: a database made read-only mid-game (PostgreSQL's
``default_transaction_read_only`` for this database, its sessions cut so the store opens new ones)
answers reads but refuses every write; ``/healthz`` then fails, ``/metrics`` counts the refused
writes, the action is refused with ``server_error`` and nothing changes; made writable again, the
same action goes through. A real ``nimmt serve`` on the session's PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import httpx
import websockets
from sqlalchemy.engine import make_url

from .helpers import legal_cards, run
from .live import LiveServer
from .services import Services, _admin


def _read_only(admin_url: str, database: str, on: bool) -> None:
    setting = "SET default_transaction_read_only = on" if on else "RESET default_transaction_read_only"
    run(_admin(admin_url, f'ALTER DATABASE "{database}" {setting}'))
    # Each session ended before this returns (a timeout, in ms: without one PostgreSQL ends them a
    # moment later, and a loaded test went on while the store's connections still lived).
    run(_admin(admin_url, f"SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = "
                          f"'{database}' AND pid <> pg_backend_pid()"))


def _refused_writes(metrics: str) -> float:
    found = re.search(r"^nimmt_store_write_failures_total (\S+)$", metrics, re.M)
    return float(found[1]) if found else 0.0


def test_healthz_fails_while_the_database_refuses_writes(services: Services, postgres_url: str) -> None:
    database = make_url(postgres_url).database
    assert database is not None
    with LiveServer(postgres_url) as server, httpx.Client(base_url=server.url, timeout=30) as http:
        created = http.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"coach": False}}).json()
        bruno = http.post(f"/api/tables/{created['table_id']}/join", json={"name": "Bruno"}).json()

        async def game() -> None:
            url = f"{server.ws_url}/ws/{created['table_id']}"
            async with websockets.connect(url) as ana, websockets.connect(url) as other:
                await ana.send(json.dumps({"type": "hello", "token": created["token"]}))
                await other.send(json.dumps({"type": "hello", "token": bruno["token"]}))

                latest: dict[str, Any] = {}

                async def next_message() -> dict[str, Any]:
                    message: dict[str, Any] = json.loads(await asyncio.wait_for(ana.recv(), 30))
                    if message["type"] == "state":
                        latest.clear()
                        latest.update(message)
                    return message

                async def answer(ref: str) -> dict[str, Any]:
                    while True:  # bounded: each wait is at most 30 s
                        message = await next_message()
                        if message.get("ref") == ref:
                            return message

                async def state() -> dict[str, Any]:
                    await ana.send(json.dumps({"type": "ping", "ref": "p"}))
                    while (await next_message())["type"] != "pong":
                        pass
                    return dict(latest)

                await ana.send(json.dumps({"type": "start", "ref": "s"}))
                assert (await answer("s"))["type"] == "ack"
                before = await state()
                assert http.get("/healthz").status_code == 200
                refused_before = _refused_writes(http.get("/metrics").text)
                _read_only(services.postgres_url, database, True)
                try:
                    health = http.get("/healthz")
                    assert health.status_code == 503, health.text
                    assert health.json()["status"] == "unavailable"
                    card = legal_cards(before)[0]
                    await ana.send(json.dumps({"type": "play", "card": card, "version": before["version"],
                                               "ref": "c"}))
                    refused = await answer("c")
                    assert refused["type"] == "error" and refused["code"] == "server_error", refused
                    now = await state()
                    assert now["version"] == before["version"] and now["view"]["my_card"] is None
                    assert _refused_writes(http.get("/metrics").text) > refused_before
                finally:
                    _read_only(services.postgres_url, database, False)
                deadline = time.monotonic() + 60
                while http.get("/healthz").status_code != 200:
                    assert time.monotonic() < deadline, "/healthz did not come back"
                    time.sleep(0.2)
                await ana.send(json.dumps({"type": "play", "card": card, "version": before["version"], "ref": "d"}))
                assert (await answer("d"))["type"] == "ack"

        run(game())
    assert "Traceback" not in "".join(server.output)
