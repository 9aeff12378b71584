"""The store's contract, on every implementation: SQLite (a file) and PostgreSQL (a real server
from ``scripts/services.sh``). Also the migrations: the schema at head is the store's model on
both, and a database made before migrations existed keeps its tables and games. And group commit:
appends that arrive together share one transaction, yet each keeps its own outcome."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
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
    event,
    inspect,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from nimmt.people.schema import PEOPLE_SCHEMA
from nimmt.server import migrations
from nimmt.server.public import PUBLIC_SCHEMA
from nimmt.server.store import SCHEMA, GameRow, SqlStore, StoreClosed, StoreConflict

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
        entries: list[dict[str, Any]] = [{"kind": "create", "seats": 4}, {"kind": "join", "name": "Ana ❤"},
                                         {"kind": "play", "card": 104}]
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
        for odd in ("", "x" * 65, "t\x00", "\ud800"):  # no table could have such an id
            assert await store.journal(odd) is None and await store.game(odd, 1) is None
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


def test_on_postgresql_an_action_skips_sqlalchemy_and_keeps_the_contract(postgres_url: str) -> None:
    """PostgreSQL's hot path (asyncpg directly): a group of entries alone and a read since a number
    send no statement through SQLAlchemy, yet a taken number is a conflict exactly as before (the
    other entries of the group stored), an entry of a table nobody made is one too, and the reads
    find what another process wrote."""

    async def scenario(store: SqlStore) -> None:
        other = SqlStore(postgres_url)
        await other.start()
        try:
            for table_id in ("a", "b"):
                await store.append(table_id, 0, {"kind": "create"})
            statements: list[str] = []

            def seen(_connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
                statements.append(statement)

            for engine in {store.database.engine.sync_engine, store.database.autocommit.sync_engine}:
                event.listen(engine, "before_cursor_execute", seen)
            await other.append("a", 1, {"by": "other"})  # the other process is first to number 1
            results = await asyncio.gather(store.append("a", 1, {"by": "this"}), store.append("b", 1, {"seq": 1}),
                                           store.append("b", 2, {"seq": 2}), return_exceptions=True)
            assert isinstance(results[0], StoreConflict) and results[1:] == [None, None], results
            assert await store.journal("a", since=1) == [{"by": "other"}]  # what a catch-up reads
            await store.append("a", 2, {"by": "this"})
            assert await store.journal("b") == [{"kind": "create"}, {"seq": 1}, {"seq": 2}]
            assert statements == []  # all of it through asyncpg
            # A table nobody made: its entry is refused (by the looking path), the rest of its group stored.
            results = await asyncio.gather(store.append("nowhere", 1, {"kind": "join"}),
                                           store.append("b", 3, {"seq": 3}), return_exceptions=True)
            assert isinstance(results[0], StoreConflict) and results[1] is None, results
            assert await store.journal("nowhere") is None
            assert await other.journal("a") == [{"kind": "create"}, {"by": "other"}, {"by": "this"}]
            assert await other.journal("b", since=3) == [{"seq": 3}]
        finally:
            await other.close()

    with_store(postgres_url, scenario)


def transactions(store: SqlStore) -> list[int]:
    """A counter of the transactions the store commits from now on (SQLAlchemy's commit event)."""
    count = [0]

    def committed(_connection: Any) -> None:
        count[0] += 1

    event.listen(store._writes, "commit", committed)
    return count


def test_appends_to_many_tables_at_once_share_transactions_and_keep_their_order(url: str) -> None:
    tables, entries = 300, 5  # more tables than one transaction takes

    async def scenario(store: SqlStore) -> None:
        await asyncio.gather(*(store.append(f"t{n}", 0, {"kind": "create", "n": n}) for n in range(tables)))
        count = transactions(store)

        async def play(n: int) -> None:  # one table's entries one after the other, as its lock has them
            for seq in range(1, entries + 1):
                await store.append(f"t{n}", seq, {"n": n, "seq": seq},
                                   GameRow(f"t{n}", 1, record(seq), finished=seq == entries))

        await asyncio.gather(*(play(n) for n in range(tables)))
        # 1,500 appends: each wave of 300 fills a few transactions (of at most BATCH entries), not 300.
        assert count[0] <= tables * entries // 20, count
        for n in range(tables):
            assert await store.journal(f"t{n}") == [{"kind": "create", "n": n},
                                                    *({"n": n, "seq": seq} for seq in range(1, entries + 1))]
            assert await store.game(f"t{n}", 1) == GameRow(f"t{n}", 1, record(entries), True)

    with_store(url, scenario)


def test_one_transaction_takes_a_tables_next_entries_and_settles_a_race_for_one_number(url: str) -> None:
    async def scenario(store: SqlStore) -> None:
        for table_id in ("a", "b", "c"):
            await store.append(table_id, 0, {"kind": "create"})
        count = transactions(store)
        results = await asyncio.gather(
            store.append("a", 1, {"by": "first"}, GameRow("a", 1, record(1), False)),
            store.append("b", 1, {"seq": 1}),
            store.append("a", 1, {"by": "second"}, GameRow("a", 1, record(9), True)),
            store.append("b", 2, {"seq": 2}, GameRow("b", 1, record(2), False)),
            store.append("new", 0, {"kind": "create"}),
            store.append("new", 1, {"kind": "join"}),
            store.append("new", 0, {"kind": "create again"}),
            store.append("c", 1, {"seq": 1}, GameRow("c", 1, record(1), False)),
            store.append("nowhere", 1, {"kind": "join"}),
            return_exceptions=True,
        )
        assert count[0] == 1  # all of them in one transaction
        a_first, b1, a_second, b2, new0, new1, new_again, c1, nowhere = results
        assert (b1, b2, new0, new1, c1) == (None, None, None, None, None)
        assert isinstance(new_again, StoreConflict) and isinstance(nowhere, StoreConflict)
        # Exactly one of the two entries 1 of table a is stored, with its record; the other is a conflict.
        assert sorted([a_first is None, a_second is None]) == [False, True], results
        assert isinstance(a_first if a_second is None else a_second, StoreConflict)
        winner = "first" if a_first is None else "second"
        assert await store.journal("a") == [{"kind": "create"}, {"by": winner}]
        assert await store.game("a", 1) == (GameRow("a", 1, record(1), False) if winner == "first"
                                            else GameRow("a", 1, record(9), True))
        assert await store.journal("b") == [{"kind": "create"}, {"seq": 1}, {"seq": 2}]
        assert await store.game("b", 1) == GameRow("b", 1, record(2), False)
        assert await store.journal("new") == [{"kind": "create"}, {"kind": "join"}]
        assert await store.journal("c") == [{"kind": "create"}, {"seq": 1}]
        assert await store.journal("nowhere") is None

    with_store(url, scenario)


def test_bad_input_is_refused_on_its_own(url: str) -> None:
    """What no database column could take is refused to its caller, and the appends that came with
    it are stored all the same."""

    async def scenario(store: SqlStore) -> None:
        await store.append("t", 0, {"kind": "create"})
        results = await asyncio.gather(
            store.append("t", 1, {"kind": "join"}),
            store.append("t", 2**31, {"kind": "far"}),
            store.append("t" * 65, 0, {"kind": "create"}),
            store.append("t\x00", 0, {"kind": "create"}),
            store.append("t", 2, {"kind": "deal"}, GameRow("other", 1, record(0), False)),
            store.append("t", 2, {"kind": "deal"}, GameRow("t", 1, {"score": float("nan")}, False)),
            store.append("t", 2, {"kind": "deal"}, GameRow("t", 2**31, record(0), False)),
            store.append("t", 2, {"kind": "deal", "card": object()}),
            store.append("u", 0, {"kind": "create"}),
            return_exceptions=True,
        )
        assert results[0] is None and results[-1] is None
        assert all(isinstance(result, (ValueError, TypeError)) for result in results[1:-1]), results
        assert await store.journal("t") == [{"kind": "create"}, {"kind": "join"}]
        assert await store.journal("u") == [{"kind": "create"}]
        assert await store.game("t", 1) is None
        await store.append("t", 2, {"kind": "deal"}, GameRow("t", 1, record(0), False))
        assert await store.game("t", 1) == GameRow("t", 1, record(0), False)

    with_store(url, scenario)


def impatient(url: str) -> str:
    """The database at ``url``, where a write that meets another's lock fails after 0.3 s (SQLite's
    busy timeout; PostgreSQL's lock_timeout for the database's new sessions)."""
    if make_url(url).get_backend_name() == "sqlite":
        return f"{url}?timeout=0.3"

    async def set_timeout() -> None:
        engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as connection:
                await connection.execute(text(f'ALTER DATABASE "{make_url(url).database}" SET lock_timeout = 300'))
        finally:
            await engine.dispose()

    run(set_timeout())
    return url


@asynccontextmanager
async def writer_in_the_way(url: str) -> AsyncIterator[None]:
    """Another connection holding the write lock on the journal (all of SQLite's database)."""
    if make_url(url).get_backend_name() == "sqlite":
        holder = sqlite3.connect(str(make_url(url).database), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        return
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.execute(text("LOCK TABLE journal IN EXCLUSIVE MODE"))  # readers may still read
            try:
                yield
            finally:
                await connection.rollback()
    finally:
        await engine.dispose()


def test_a_failed_transaction_fails_each_of_its_appends_and_stores_nothing(url: str) -> None:
    url = impatient(url)

    async def scenario(store: SqlStore) -> None:
        await store.append("t", 0, {"kind": "create"}, GameRow("t", 1, record(0), False))

        def appends() -> list[Awaitable[None]]:
            return [store.append("t", 1, {"kind": "join"}, GameRow("t", 1, record(1), True)),
                    store.append("u", 0, {"kind": "create"}, GameRow("u", 1, record(0), False)),
                    store.append("u", 1, {"kind": "join"}),
                    store.append("t", 2, {"kind": "start"})]

        async with writer_in_the_way(url):
            failed = await asyncio.gather(*appends(), return_exceptions=True)
        assert all(isinstance(result, Exception) and not isinstance(result, StoreConflict)
                   for result in failed), failed
        assert len({type(result) for result in failed}) == 1, failed  # the database's one refusal, to each
        # Nothing of that transaction is there: no entry, no new table, no record.
        assert await store.journal("t") == [{"kind": "create"}]
        assert await store.journal("u") is None
        assert await store.game("t", 1) == GameRow("t", 1, record(0), False)
        assert await store.game("u", 1) is None
        # The next transaction is written as if nothing had happened.
        assert await asyncio.gather(*appends()) == [None] * 4
        assert await store.journal("t") == [{"kind": "create"}, {"kind": "join"}, {"kind": "start"}]
        assert await store.journal("u") == [{"kind": "create"}, {"kind": "join"}]
        assert await store.game("t", 1) == GameRow("t", 1, record(1), True)
        # A group of entries alone (on PostgreSQL one statement, no transaction around it) likewise.
        async with writer_in_the_way(url):
            alone = await asyncio.gather(store.append("t", 3, {"kind": "play"}),
                                         store.append("u", 2, {"kind": "play"}), return_exceptions=True)
        assert all(isinstance(result, Exception) and not isinstance(result, StoreConflict)
                   for result in alone), alone
        assert await store.journal("t", since=3) == [] and await store.journal("u", since=2) == []
        await asyncio.gather(store.append("t", 3, {"kind": "play"}), store.append("u", 2, {"kind": "play"}))
        assert await store.journal("t", since=3) == [{"kind": "play"}]

    with_store(url, scenario)


def test_close_writes_what_is_pending_then_refuses(url: str) -> None:
    async def main() -> None:
        store = SqlStore(url)
        await store.start()
        await store.append("t", 0, {"kind": "create"})
        pending = [asyncio.create_task(store.append("t", seq, {"seq": seq})) for seq in range(1, 41)]
        pending += [asyncio.create_task(store.append(f"u{n}", 0, {"n": n})) for n in range(40)]
        await asyncio.sleep(0)  # every append waits for the writer, which has taken the first ones
        await store.close()
        assert all(task.done() for task in pending)
        assert [task.result() for task in pending] == [None] * 80
        assert asyncio.all_tasks() == {asyncio.current_task()}  # no writer left behind
        with pytest.raises(StoreClosed):
            await store.append("t", 41, {"seq": 41})

        again = SqlStore(url)
        await again.start()
        try:
            assert await again.journal("t", since=1) == [{"seq": seq} for seq in range(1, 41)]
            assert await again.journal("u39") == [{"n": 39}]
            await again.append("t", 41, {"seq": 41})  # what the closed store refused, another takes
        finally:
            await again.close()

    run(main())


def test_close_does_not_wait_for_a_database_that_hangs(url: str) -> None:
    """The writer is stuck behind another's lock: close() gives up after its grace, each waiting
    append hears StoreClosed, no task is left, and nothing of them was stored."""
    patient = f"{url}?timeout=2" if make_url(url).get_backend_name() == "sqlite" else url  # PostgreSQL: no timeout

    async def main() -> None:
        store = SqlStore(patient)
        store.CLOSE_GRACE = 0.3
        await store.start()
        await store.append("t", 0, {"kind": "create"})
        async with writer_in_the_way(url):
            pending = [asyncio.create_task(store.append("t", seq, {"seq": seq})) for seq in range(1, 11)]
            await asyncio.sleep(0.1)
            await store.close()
            assert asyncio.all_tasks() - set(pending) == {asyncio.current_task()}
            results = await asyncio.gather(*pending, return_exceptions=True)
            assert all(isinstance(result, StoreClosed) for result in results), results
        again = SqlStore(url)
        try:
            assert await again.journal("t") == [{"kind": "create"}]
        finally:
            await again.close()

    run(main())


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
        model = MetaData()  # the tables' store and the people store's, as one database holds them
        for table in [*SCHEMA.tables.values(), *PEOPLE_SCHEMA.tables.values(), *PUBLIC_SCHEMA.tables.values()]:
            table.to_metadata(model)
        return list(compare_metadata(MigrationContext.configure(connection), model))

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
                assert await store.journal("t") == [{"kind": "create"}]  # each path has a connection open
                await asyncio.to_thread(services, "pg-stop", folder)
                with pytest.raises(Exception) as down:
                    await store.append("t", 1, {"kind": "join"}, GameRow("t", 1, record(1), False))
                assert not isinstance(down.value, StoreConflict)
                with pytest.raises(Exception) as down:  # an entry alone: PostgreSQL's hot path
                    await store.append("t", 1, {"kind": "join"})
                assert not isinstance(down.value, StoreConflict)
                with pytest.raises(Exception) as down:
                    await store.journal("t")
                await asyncio.to_thread(services, "pg-start", folder)
                assert await store.journal("t") == [{"kind": "create"}]
                await store.append("t", 1, {"kind": "join"}, GameRow("t", 1, record(1), False))
                assert await store.journal("t") == [{"kind": "create"}, {"kind": "join"}]
                assert await store.game("t", 1) == GameRow("t", 1, record(1), False)
                await store.append("t", 2, {"kind": "start"})
                assert await store.journal("t", since=2) == [{"kind": "start"}]
            finally:
                await store.close()

        run(main())
    finally:
        services("stop", folder)
