"""A real ``nimmt serve --db postgresql+asyncpg://… --hub redis://…`` serves a whole game: every
update goes out through Redis, everything is stored in PostgreSQL and is there after a restart."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import redis
from typer.testing import CliRunner

from nimmt.cli.main import app
from nimmt.records import loads, score
from nimmt.server.hub import Update
from nimmt.server.store import SqlStore

from .helpers import run
from .live import LiveServer
from .services import Services
from .test_restart import Seat, play_on


def _stored(url: str, table_id: str) -> tuple[list[dict[str, Any]] | None, bool | None]:
    async def main() -> tuple[list[dict[str, Any]] | None, bool | None]:
        store = SqlStore(url)
        await store.start()
        try:
            game = await store.game(table_id, 1)
            return await store.journal(table_id), (game.finished if game else None)
        finally:
            await store.close()

    return run(main())


def test_a_game_on_postgresql_and_redis(services: Services, postgres_url: str) -> None:
    rng = random.Random(11)
    listener = redis.Redis.from_url(services.redis_url).pubsub()
    listener.psubscribe("nimmt:table:*")  # the table's id is not known yet: its channel is picked below
    try:
        with LiveServer(postgres_url, args=["--hub", services.redis_url]) as server:
            created = httpx.post(f"{server.url}/api/tables", json={
                "name": "Ana", "seats": 3, "bots": ["random"], "options": {"rounds": 1}}).json()
            table_id = created["table_id"]
            joined = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"}).json()
            ana, bruno = Seat(server, table_id, created["token"]), Seat(server, table_id, joined["token"])
            ana.socket.send(json.dumps({"type": "start"}))
            ana.until("ack")
            deadline = time.monotonic() + 120
            while ana.sync()["table"]["status"] != "over":
                assert time.monotonic() < deadline, "the game did not end"
                play_on(rng, ana, bruno)
            final = ana.state
            record = loads(httpx.get(f"{server.url}/api/tables/{table_id}/games/1/record").content)
            assert score(record).finished and list(score(record).totals) == final["view"]["totals"]
        # Stored in PostgreSQL: the journal and the finished game's record.
        journal, finished = _stored(postgres_url, table_id)
        assert journal is not None and journal[0]["kind"] == "create" and finished is True
        # Every update went out on the table's channel, in order, up to the last one.
        updates: list[Update] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            message = listener.get_message(timeout=1.0)
            if message is None and updates:
                break  # all were waiting already: a second without one is the end
            if message is not None and message["channel"] == f"nimmt:table:{table_id}".encode():
                updates.append(Update.from_json(message["data"].decode().partition(" ")[2]))
        versions = [update.version for update in updates]
        assert versions == sorted(versions) and versions[-1] == final["version"]
        # News carries versions, the entry as stored, who is here; never a view: each process renders its own.
        assert all(set(json.loads(update.to_json())) <= {"table_id", "version", "presence", "entry"}
                   for update in updates)
        assert any(update.entry is not None and update.entry.get("kind") == "play" for update in updates)
        # A new process on the same database finds the game as it ended.
        with LiveServer(postgres_url, args=["--hub", services.redis_url]) as server:
            again = Seat(server, table_id, created["token"])
            assert again.state["table"]["status"] == "over"
            assert again.state["view"]["totals"] == final["view"]["totals"]
            assert loads(httpx.get(f"{server.url}/api/tables/{table_id}/games/1/record").content) == record
    finally:
        listener.close()


def test_serve_says_where_games_are_kept_without_the_password(services: Services, postgres_url: str) -> None:
    # A plain postgresql:// URL takes asyncpg; trust authentication ignores the password.
    url = postgres_url.replace("postgresql+asyncpg://nimmt@", "postgresql://nimmt:not-asked@", 1)
    with LiveServer(url, args=["--hub", services.redis_url]) as server:
        assert httpx.get(f"{server.url}/api/bots").status_code == 200
    said = "".join(server.output)
    assert "games are kept in postgresql+asyncpg://nimmt:***@/test_" in said and "not-asked" not in said


def _serve_here(*args: str) -> tuple[int, str]:
    """``nimmt serve`` in this process (it stops before listening when it refuses): exit code, stderr."""
    def invoke() -> tuple[int, str]:
        result = CliRunner().invoke(app, ["serve", "--port", "0", *args])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        return result.exit_code, result.stderr

    with ThreadPoolExecutor(1) as pool:  # its own event loop: the test worker may run one already
        return pool.submit(invoke).result()


def test_serve_refuses_a_database_or_redis_it_cannot_reach(tmp_path: Path) -> None:
    nowhere = f"postgresql+asyncpg://nimmt@/nimmt?host={tmp_path}"  # no server's socket there
    result = subprocess.run([sys.executable, "-m", "nimmt", "serve", "--port", "0", "--db", nowhere],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert "cannot use the database" in result.stderr and "Traceback" not in result.stderr
    code, said = _serve_here("--db", str(tmp_path / "db.sqlite3"), "--hub", "redis://127.0.0.1:1/0")
    assert code == 2 and "cannot reach Redis at redis://127.0.0.1:1/0" in said
    for db, hub in (("mysql://x@localhost/y", None), ("sqlite+pysqlite:///" + str(tmp_path / "sync.sqlite3"), None),
                    (str(tmp_path / "db.sqlite3"), "http://127.0.0.1:6379")):
        code, said = _serve_here("--db", db, *(["--hub", hub] if hub else []))
        assert code == 2 and said.strip() and "Traceback" not in said, (db, hub, said)
