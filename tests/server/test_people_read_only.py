"""The people routes on a PostgreSQL made read-only (its sessions cut): every write is a clean
``503 server_error`` with ``Retry-After`` (never a 500), reads answer, ``/healthz`` says the write
failed, and once the database is writable again the same requests go through."""

from __future__ import annotations

import warnings

from sqlalchemy.engine import make_url

from nimmt.server.app import create_app
from nimmt.server.store import SqlStore

from .services import Services
from .test_health_probe import _read_only

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def test_people_routes_answer_a_read_only_database_with_a_clean_503(services: Services, postgres_url: str) -> None:
    database = make_url(postgres_url).database
    assert database is not None
    with TestClient(create_app(store=SqlStore(postgres_url), bot_delay=0)) as client:
        made = client.post("/api/players", json={"name": "Ana"}).json()
        key = {"X-Player-Key": made["key"]}
        group = client.post("/api/groups", headers=key, json={"name": "Friday"}).json()
        _read_only(services.postgres_url, database, True)
        try:
            health = client.get("/healthz")
            assert health.status_code == 503 and health.json()["failed"] == "write", health.text
            for answer in (client.post("/api/players", json={"name": "Bruno"}),
                           client.post("/api/groups", headers=key, json={"name": "Saturday"}),
                           client.patch("/api/me", headers=key, json={"name": "Anabela"}),
                           client.post("/api/me/link", headers=key),
                           client.post(f"/api/groups/{group['id']}/chat", headers=key, json={"text": "hi"})):
                assert answer.status_code == 503, answer.text
                assert answer.json()["code"] == "server_error" and answer.headers["Retry-After"] == "5"
            assert client.get("/api/me", headers=key).json()["player"]["name"] == "Ana"
        finally:
            _read_only(services.postgres_url, database, False)
        assert client.get("/healthz").status_code == 200
        assert client.patch("/api/me", headers=key, json={"name": "Anabela"}).json()["name"] == "Anabela"
        assert client.post(f"/api/groups/{group['id']}/chat", headers=key, json={"text": "hi"}).status_code == 201
