"""The store's contract, on every implementation: SQLite (a file) and PostgreSQL (a real server
from ``scripts/services.sh``). Also the migrations: the schema at head is the store's model on
both, and a database made before migrations existed keeps its tables and games."""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    inspect,
    text,
)
from sqlalchemy.ext.asyncio import create_async_engine

from nimmt.server import migrations
from nimmt.server.store import SCHEMA, GameRow, SqlStore, StoreConflict

from .helpers import run
from .services import SCRIPT


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'nimmt.sqlite3'}"
    else:
        yield request.getfixturevalue("postgres_url")


def with_store(url: str, scenario: Callable[[SqlStore], Awaitable[None]]) -> None:
    async def main() -> None:
        store = SqlStore(url)
        await store.start()
        try:
            await scenario(store)
        finally:
            await store.close()

    run(main())


def record(turns: int) -> dict[str, Any]:
    return {"format": "nimmt/1", "turns": list(range(turns)), "name": "Zoë ⚀"}


def test_append_then_read_the_journal_in_order(url: str) -> None:
    async def scenario(store: SqlStore) -> None:
        assert await store.journal("t1") is None
        entries = [{"kind": "create", "seats": 4}, {"kind": "join", "name": "Ana ❤"}, {"kind": "play", "card": 104}]
        for seq, entry in enumerate(entries):
            await store.append("t1", seq, entry)
        await store.append("t2", 0, {"kind": "create", "seats": 2})
        assert await store.journal("t1") == entries
        assert await store.journal("t2") == [{"kind": "create", "seats": 2}]
        assert await store.journal("t3") is None

    with_store(url, scenario)


def test_entries_since(url: str) -> None:
    async def scenario(store: SqlStore) -> None:
        for seq in range(6):
            await store.append("t", seq, {"seq": seq})
        assert await store.journal("t", since=0) == [{"seq": seq} for seq in range(6)]
        assert await store.journal("t", since=4) == [{"seq": 4}, {"seq": 5}]
        assert await store.journal("t", since=5) == [{"seq": 5}]
        assert await store.journal("t", since=6) == []
        assert await store.journal("t", since=2**40) == []  # past any number a column holds
        assert await store.journal("t", since=-3) == [{"seq": seq} for seq in range(6)]
        assert await store.journal("nowhere", since=2) is None
        await store.append("t", 6, {"seq": 6})
        assert await store.journal("t", since=6) == [{"seq": 6}]

    with_store(url, scenario)


def test_a_taken_sequence_number_is_a_conflict_and_changes_nothing(url: str) -> None:
    async def scenario(store: SqlStore) -> None:
        await store.append("t", 0, {"kind": "create"}, GameRow("t", 1, record(0), False))
        await store.append("t", 1, {"kind": "join"}, GameRow("t", 1, record(1), False))
        with pytest.raises(StoreConflict):
            await store.append("t", 1, {"kind": "other"}, GameRow("t", 1, record(9), True))
        with pytest.raises(StoreConflict):
            await store.append("t", 0, {"kind": "create again"})
        with pytest.raises(StoreConflict):  # no table: nothing to add to
            await store.append("nowhere", 1, {"kind": "join"})
        # The refused entries left no trace, not even the record that came with one.
        assert await store.journal("t") == [{"kind": "create"}, {"kind": "join"}]
        assert await store.game("t", 1) == GameRow("t", 1, record(1), False)
        assert await store.journal("nowhere") is None
        await store.append("t", 2, {"kind": "start"})  # and the store goes on
        assert await store.journal("t", since=2) == [{"kind": "start"}]

    with_store(url, scenario)


def test_two_writers_of_one_number_one_wins(url: str) -> None:
    """Two processes on one database: for each sequence number, exactly one append is stored."""

    async def scenario(store: SqlStore) -> None:
        other = SqlStore(url)
        await other.start()
        try:
            await store.append("t", 0, {"by": "first"})
            for seq in range(1, 6):
                results = await asyncio.gather(store.append("t", seq, {"by": "first", "seq": seq}),
                                               other.append("t", seq, {"by": "other", "seq": seq}),
                                               return_exceptions=True)
                assert sum(isinstance(result, StoreConflict) for result in results) == 1, results
                assert all(result is None or isinstance(result, StoreConflict) for result in results), results
            journal = await other.journal("t")
            assert journal is not None and [entry.get("seq") for entry in journal] == [None, 1, 2, 3, 4, 5]
        finally:
            await other.close()

    with_store(url, scenario)


def test_game_records(url: str) -> None:
    async def scenario(store: SqlStore) -> None:
        await store.append("t", 0, {"kind": "create"})
        assert await store.game("t", 1) is None
        await store.append("t", 1, {"kind": "deal"}, GameRow("t", 1, record(0), False))
        await store.append("t", 2, {"kind": "play"}, GameRow("t", 1, record(5), False))
        assert await store.game("t", 1) == GameRow("t", 1, record(5), False)
        await store.append("t", 3, {"kind": "play"}, GameRow("t", 1, record(10), True))
        await store.append("t", 4, {"kind": "rematch"}, GameRow("t", 2, record(0), False))
        assert await store.game("t", 1) == GameRow("t", 1, record(10), True)
        assert await store.game("t", 2) == GameRow("t", 2, record(0), False)
        for missing in (0, 3, -1, 2**31, 2**63, 2**80):
            assert await store.game("t", missing) is None
        assert await store.game("nowhere", 1) is None

    with_store(url, scenario)


def test_everything_is_there_after_a_restart(url: str) -> None:
    async def write(store: SqlStore) -> None:
        await store.append("t", 0, {"kind": "create"}, GameRow("t", 1, record(1), False))
        await store.append("t", 1, {"kind": "join"})

    async def read(store: SqlStore) -> None:
        assert await store.journal("t") == [{"kind": "create"}, {"kind": "join"}]
        assert await store.game("t", 1) == GameRow("t", 1, record(1), False)

    with_store(url, write)
    with_store(url, read)  # a new store on the same database: its start migrates nothing away


# The schema of the stores made before migrations, as they made it (frozen: the model may move on).
LEGACY = MetaData()
Table("tables", LEGACY, Column("id", String(64), primary_key=True), Column("created_seq", Integer, nullable=False))
Table("journal", LEGACY, Column("id", Integer, primary_key=True, autoincrement=True),
      Column("table_id", ForeignKey("tables.id"), nullable=False, index=True),
      Column("seq", Integer, nullable=False), Column("entry", Text, nullable=False),
      UniqueConstraint("table_id", "seq"))
Table("games", LEGACY, Column("table_id", ForeignKey("tables.id"), primary_key=True),
      Column("game", Integer, primary_key=True), Column("record", JSON, nullable=False),
      Column("finished", Boolean, nullable=False))


def in_connection(url: str, work: Callable[[Connection], Any]) -> Any:
    async def main() -> Any:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as connection:
                return await connection.run_sync(work)
        finally:
            await engine.dispose()

    return run(main())


def test_the_schema_at_head_is_the_stores_model(url: str) -> None:
    with_store(url, lambda store: asyncio.sleep(0))

    def differences(connection: Connection) -> list[Any]:
        assert migrations.current(connection) == migrations.head()
        return list(compare_metadata(MigrationContext.configure(connection), SCHEMA))

    assert in_connection(url, differences) == []


def test_a_database_from_before_migrations_is_stamped_and_kept(url: str) -> None:
    def make_legacy(connection: Connection) -> None:
        LEGACY.create_all(connection)
        connection.execute(text("INSERT INTO tables (id, created_seq) VALUES ('old', 0)"))
        connection.execute(text("INSERT INTO journal (table_id, seq, entry) VALUES "
                                "('old', 0, '{\"kind\": \"create\"}'), ('old', 1, '{\"kind\": \"join\"}')"))
        connection.execute(LEGACY.tables["games"].insert().values(table_id="old", game=1, record=record(3),
                                                                  finished=True))

    in_connection(url, make_legacy)

    async def scenario(store: SqlStore) -> None:
        assert await store.journal("old") == [{"kind": "create"}, {"kind": "join"}]
        assert await store.journal("old", since=1) == [{"kind": "join"}]
        assert await store.game("old", 1) == GameRow("old", 1, record(3), True)
        await store.append("old", 2, {"kind": "rematch"})
        with pytest.raises(StoreConflict):
            await store.append("old", 1, {"kind": "again"})

    with_store(url, scenario)
    assert in_connection(url, migrations.current) == migrations.head()


def test_a_database_with_only_some_tables_is_refused(url: str) -> None:
    in_connection(url, lambda connection: LEGACY.tables["tables"].create(connection))

    async def main() -> None:
        store = SqlStore(url)
        try:
            with pytest.raises(RuntimeError, match="not made by nimmt"):
                await store.start()
        finally:
            await store.close()

    run(main())
    assert in_connection(url, lambda connection: sorted(inspect(connection).get_table_names())) == ["tables"]


def test_processes_starting_together_on_postgresql_migrate_once(postgres_url: str) -> None:
    async def main() -> None:
        stores = [SqlStore(postgres_url) for _ in range(3)]
        try:
            await asyncio.gather(*(store.start() for store in stores))
            await stores[0].append("t", 0, {"kind": "create"})
            assert await stores[2].journal("t") == [{"kind": "create"}]
        finally:
            for store in stores:
                await store.close()

    run(main())
    assert in_connection(postgres_url, migrations.current) == migrations.head()


def test_any_text_survives(url: str) -> None:
    """Names are what people type: accents, emoji, a NUL, a lone surrogate from a JSON escape."""
    odd = "Zoë 🐂 \x00 \ud800 ' \" \\ -- ; DROP TABLE journal"

    async def scenario(store: SqlStore) -> None:
        await store.append("t", 0, {"kind": "create", "name": odd}, GameRow("t", 1, {"players": [odd]}, False))
        assert await store.journal("t") == [{"kind": "create", "name": odd}]
        assert await store.game("t", 1) == GameRow("t", 1, {"players": [odd]}, False)

    with_store(url, scenario)


def test_the_store_goes_on_after_postgresql_restarts() -> None:
    """A server of its own (the shared one stays up): while it is down, an append fails (it is no
    conflict) and stores nothing; once it is back, the same store goes on with what it had."""
    folder = tempfile.mkdtemp(prefix="nimmt-pg-", dir="/tmp")

    def services(*args: str) -> str:
        done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    try:
        said = services("start", folder, str(os.getpid()))
        url = dict(line.split("=", 1) for line in said.split())["NIMMT_TEST_POSTGRES_URL"]

        async def main() -> None:
            store = SqlStore(url)
            await store.start()
            try:
                await store.append("t", 0, {"kind": "create"}, GameRow("t", 1, record(0), False))
                await asyncio.to_thread(services, "pg-stop", folder)
                with pytest.raises(Exception) as down:
                    await store.append("t", 1, {"kind": "join"}, GameRow("t", 1, record(1), False))
                assert not isinstance(down.value, StoreConflict)
                await asyncio.to_thread(services, "pg-start", folder)
                assert await store.journal("t") == [{"kind": "create"}]
                await store.append("t", 1, {"kind": "join"}, GameRow("t", 1, record(1), False))
                assert await store.journal("t") == [{"kind": "create"}, {"kind": "join"}]
                assert await store.game("t", 1) == GameRow("t", 1, record(1), False)
            finally:
                await store.close()

        run(main())
    finally:
        services("stop", folder)
