"""The one owner of the database (nimmt/server/store/database.py): every connection to SQLite gets the
same settings, whichever store opens it, the app hands one Database to every store, and no other
module of nimmt makes an engine, sets a connection's PRAGMA or picks a dialect's insert."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, text

import nimmt
from nimmt.server.store import Database, SqlStore
from nimmt.server.store.database import (
    PG_AUTOCOMMIT_OVERFLOW,
    PG_AUTOCOMMIT_POOL,
    PG_HOT_CONNECTIONS,
    PG_OVERFLOW,
    PG_POOL,
    SQLITE_BUSY,
)
from tests.core.test_layers import parse

from .helpers import run

SETTINGS = ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")


def _pragmas(connection: Connection) -> dict[str, Any]:
    return {name: connection.execute(text(f"PRAGMA {name}")).scalar() for name in SETTINGS}


def test_every_sqlite_connection_has_the_one_set_of_settings(tmp_path: Path) -> None:
    expected = {"journal_mode": "wal", "synchronous": 2, "foreign_keys": 1, "busy_timeout": int(SQLITE_BUSY * 1000)}

    async def main() -> None:
        database = Database.sqlite(tmp_path / "nimmt.sqlite3")
        thread = database.plain_thread("test-plain")
        try:
            async with database.engine.connect() as connection:
                assert await connection.run_sync(_pragmas) == expected
            async with database.autocommit.connect() as connection:
                assert await connection.run_sync(_pragmas) == expected

            def plain() -> dict[str, Any]:
                with thread.engine.connect() as connection:
                    return _pragmas(connection)

            assert await thread.run(plain) == expected
        finally:
            await database.close()

    run(main())


def test_a_timeout_in_the_url_wins(tmp_path: Path) -> None:
    async def main() -> None:
        database = Database(f"sqlite:///{tmp_path / 'nimmt.sqlite3'}?timeout=0.3")
        thread = database.plain_thread("test-plain")
        try:
            async with database.engine.connect() as connection:
                assert (await connection.run_sync(_pragmas))["busy_timeout"] == 300

            def plain() -> int:
                with thread.engine.connect() as connection:
                    return int(_pragmas(connection)["busy_timeout"])

            assert await thread.run(plain) == 300
        finally:
            await database.close()

    run(main())


def test_postgresql_has_one_pool_with_pre_ping() -> None:
    database = Database("postgres://nimmt:secret@localhost/nimmt")  # nothing is connected to
    assert database.dialect == "postgresql" and database.url.startswith("postgresql+asyncpg://")
    assert "secret" not in database.shown_url
    pool: Any = database.engine.pool
    assert (pool.size(), pool._max_overflow, pool._pre_ping) == (PG_POOL, PG_OVERFLOW, True)
    assert database.autocommit is not database.engine
    autocommit: Any = database.autocommit.pool
    assert (autocommit.size(), autocommit._max_overflow) == (PG_AUTOCOMMIT_POOL, PG_AUTOCOMMIT_OVERFLOW)
    # What docs/deploy says a process holds at most, for max_connections.
    assert PG_POOL + PG_OVERFLOW + PG_AUTOCOMMIT_POOL + PG_AUTOCOMMIT_OVERFLOW + PG_HOT_CONNECTIONS <= 40


def test_the_app_hands_its_stores_one_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby's tables, the clocks, quick match and the people part open no database of their own."""
    from nimmt.server.app import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    store = SqlStore.sqlite(tmp_path / "nimmt.sqlite3")
    made: list[str] = []
    original = Database.__init__

    def counted(self: Database, url: str) -> None:
        made.append(url)
        original(self, url)

    monkeypatch.setattr(Database, "__init__", counted)
    app = create_app(store=store, bot_delay=0)
    with TestClient(app) as client:
        assert client.post("/api/players", json={"name": "Ana"}).status_code == 201
        assert client.get("/api/lobby").status_code == 200
        assert app.state.people.database is store.database
    assert made == []


OWNER = Path(nimmt.__file__).parent / "server" / "store" / "database.py"
ENGINE_MAKERS = {"create_engine", "create_async_engine"}


def test_no_other_module_makes_an_engine_or_picks_a_dialect() -> None:
    found = []
    for path in sorted(Path(nimmt.__file__).parent.rglob("*.py")):
        if path == OWNER:
            continue
        source = path.read_text(encoding="utf-8")
        tree = parse(path)  # made again on CPython 3.11's spurious SystemError
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {alias.name for alias in node.names}
                if node.module.startswith("sqlalchemy") and names & ENGINE_MAKERS:
                    found.append(f"{path.name}: imports {sorted(names & ENGINE_MAKERS)}")
                if node.module.startswith("sqlalchemy.dialects.") and "insert" in names:
                    found.append(f"{path.name}: imports {node.module}'s insert")
            elif isinstance(node, ast.Attribute) and node.attr in ENGINE_MAKERS:
                found.append(f"{path.name}: calls {node.attr}")
        if "PRAGMA" in source:
            found.append(f"{path.name}: sets a PRAGMA")
    assert found == [], "the database's engines and settings are nimmt/server/store/database.py's"
