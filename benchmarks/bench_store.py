"""How fast does the server's store take actions? Group commit against one transaction per append.

    .venv/bin/python benchmarks/bench_store.py [--tables 500] [--entries 2] [--sequential 200]
        [--rate 1000] [--seconds 3] [--repeat 3] [--pg URL | --no-pg | --no-sqlite] [--timeout 60]

Three ways of storing, each on a fresh database of its own, measured side by side in one run:

- ``old``: the store as it was before group commit (a copy of its code, below): an ORM session
  and one transaction per append, two queries for a ``journal`` read;
- ``per_append``: today's :class:`~nimmt.server.store.SqlStore` writing each append in its own
  transaction as it comes (SQLAlchemy Core, no group: :func:`per_append`, below);
- ``grouped``: today's store (one writer gathers the appends that arrive together into one
  transaction).

Scenarios: ``sequential``, one append at a time to one table (each waits for the last, as a lone
person would), the three ways taking turns append by append, so that the machine's other load
falls on all alike; ``concurrent``, ``--tables`` tables created at once, then each table's next
``--entries`` entries one after the other (as the table's lock has them) with all tables at once
(``asyncio.gather``), like many tables acting in the same moment, one way after the other (their
order turns from one repeat to the next); ``catch_up``, one ``journal(table, since)`` per table,
the read another process makes when told of new entries, taking turns like ``sequential``;
``steady``, appends arriving at ``--rate`` a second (default 1,000, the aim of issue 9) for
``--seconds``, turn by turn over the tables, each behind its table's lock, latency counted from
when it was due (a store that cannot keep up shows a lower rate and a long p99). It
prints appends (reads) a second (one at a time: one over the mean latency; at once: all of them
over their wall time), per-append latency p50 and p99, this process's CPU per append (the
store's driver threads included; PostgreSQL's own work is not), and errors; with ``--repeat``,
each figure is the median of the repeats.

SQLite is a file in a temporary folder (``synchronous=FULL``: a commit is an fsync). PostgreSQL is
``--pg URL`` (a database is created in it and dropped for each run), or else a throwaway server
started by ``scripts/services.sh`` when PostgreSQL is installed; that one runs with ``fsync=off``
and ``synchronous_commit=off`` (it is made for tests), so it shows round trips and CPU, not disk
waits: give ``--pg`` a server with fsync on for those. Bounded: at most 5,000 tables, 50 entries,
2,000 sequential appends, 10 repeats, and each scenario gives up after ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint, event, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from nimmt.server.store import GameRow, SqlStore, StoreConflict, sqlite_pragmas
from nimmt.server.store.base import make_pending

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ROOT / "scripts" / "services.sh"
WAYS = ("old", "per_append", "grouped")
SCENARIOS = ("sequential", "concurrent", "catch_up", "steady")


# --- The store before group commit (nimmt/server/store.py at 35eed18), kept here to measure against.


class _OldBase(DeclarativeBase):
    pass


class _OldTable(_OldBase):
    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_seq: Mapped[int] = mapped_column(Integer, default=0)


class _OldEntry(_OldBase):
    __tablename__ = "journal"
    __table_args__ = (UniqueConstraint("table_id", "seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    entry: Mapped[str] = mapped_column(Text)


class _OldGame(_OldBase):
    __tablename__ = "games"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    game: Mapped[int] = mapped_column(Integer, primary_key=True)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    finished: Mapped[bool] = mapped_column(default=False)


class OldStore:
    """The old append and journal, on the same schema (today's migrations make it)."""

    def __init__(self, url: str) -> None:
        self.dialect = make_url(url).get_backend_name()
        if self.dialect == "sqlite":
            self._engine: AsyncEngine = create_async_engine(url)
            event.listen(self._engine.sync_engine, "connect", sqlite_pragmas)
        else:
            self._engine = create_async_engine(url, pool_pre_ping=True)
        self._sessions = async_sessionmaker(self._engine, expire_on_commit=False)

    async def start(self) -> None:
        from nimmt.server import migrations

        async with self._engine.begin() as connection:
            await connection.run_sync(migrations.upgrade)

    async def close(self) -> None:
        await self._engine.dispose()

    async def append(self, table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None = None) -> None:
        try:
            async with self._sessions.begin() as session:
                if seq == 0:
                    session.add(_OldTable(id=table_id))
                    await session.flush()
                session.add(_OldEntry(table_id=table_id, seq=seq, entry=json.dumps(entry)))
                if game is not None:
                    row = await session.get(_OldGame, (game.table_id, game.game))
                    if row is None:
                        session.add(_OldGame(table_id=table_id, game=game.game, record=game.record,
                                             finished=game.finished))
                    else:
                        row.record = game.record
                        row.finished = game.finished
        except IntegrityError:
            raise StoreConflict(f"entry {seq} of table {table_id} is already stored") from None

    async def journal(self, table_id: str, since: int = 0) -> list[dict[str, Any]] | None:
        async with self._sessions() as session:
            if await session.get(_OldTable, table_id) is None:
                return None
            result = await session.scalars(select(_OldEntry.entry)
                                           .where(_OldEntry.table_id == table_id, _OldEntry.seq >= max(since, 0))
                                           .order_by(_OldEntry.seq))
            return [json.loads(text) for text in result]


# --- The measurement.


class AnyStore(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def append(self, table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None = None) -> None: ...

    async def journal(self, table_id: str, since: int = 0) -> list[dict[str, Any]] | None: ...


def make_store(way: str, url: str) -> AnyStore:
    if way == "old":
        return OldStore(url)
    return per_append(url) if way == "per_append" else SqlStore(url)


def per_append(url: str) -> SqlStore:
    """Today's store of the URL's database, but each append written in its own transaction as it
    comes (the way before group commit, kept here to measure against)."""
    grouped = type(SqlStore(url))

    class PerAppend(grouped):  # type: ignore[valid-type,misc]
        async def append(self, table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None = None) -> None:
            if not (await self.write([make_pending(table_id, seq, entry, game)]))[0]:
                raise StoreConflict(f"entry {seq} of table {table_id} is already stored")

    store: SqlStore = PerAppend(url)
    return store


def create_entry(n: int) -> dict[str, Any]:  # about the size of a real "create"
    return {"kind": "create", "seats": 4, "bots": {}, "options": {"end_above": 66, "rounds": None, "coach": True},
            "language": "en", "name": f"Ana {n}", "token_hash": "5e" * 32}


def play_entry(seq: int) -> dict[str, Any]:
    return {"kind": "play", "seat": seq % 4, "card": 1 + seq % 104, "version": seq}


@dataclass
class Figures:
    count: int = 0  # appends (reads) done
    seconds: float = 0.0
    cpu: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    def rate(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else float("nan")


async def timed(figures: Figures, work: Awaitable[Any]) -> None:
    """One operation, alone in flight: its time, and this process's CPU meanwhile."""
    began, cpu = time.perf_counter(), time.process_time()
    try:
        await work
    except Exception as error:  # counted and shown, not fatal: a lock timeout is a figure too
        figures.errors[type(error).__name__] += 1
        return
    figures.latencies.append(time.perf_counter() - began)
    figures.cpu += time.process_time() - cpu
    figures.seconds += figures.latencies[-1]
    figures.count += 1


async def one_run(
    urls: dict[str, str], order: tuple[str, ...], args: argparse.Namespace
) -> dict[str, dict[str, Figures]]:
    """The three ways, each on a fresh database of its own. The one-at-a-time scenarios take turns
    operation by operation (the machine's other load falls on all three alike); the concurrent one
    runs each way in turn, in ``order``."""
    stores = {way: make_store(way, urls[way]) for way in WAYS}
    out = {way: {name: Figures() for name in SCENARIOS} for way in WAYS}
    try:
        for store in stores.values():
            await store.start()
            await store.append("lone", 0, create_entry(0))
        deadline = time.monotonic() + args.timeout
        for seq in range(1, args.sequential + 1):
            if time.monotonic() > deadline:
                break
            for way in order:
                await timed(out[way]["sequential"], stores[way].append("lone", seq, play_entry(seq)))

        tables = [f"t{n:05d}" for n in range(args.tables)]
        for way in order:
            await concurrent(stores[way], tables, out[way]["concurrent"], args)

        deadline = time.monotonic() + args.timeout
        for table_id in tables:
            if time.monotonic() > deadline:
                break
            for way in order:
                await timed(out[way]["catch_up"], stores[way].journal(table_id, since=args.entries))

        for way in order:
            await steady(stores[way], tables, out[way]["steady"], args)
    finally:
        for store in stores.values():
            await store.close()
    return out


async def concurrent(store: AnyStore, tables: list[str], figures: Figures, args: argparse.Namespace) -> None:
    """The tables are created at once; then each table's next entries go one after the other (as the
    table's lock has them), all tables at once. Throughput is over the wall time of all of them."""
    await asyncio.gather(*(store.append(table_id, 0, create_entry(n)) for n, table_id in enumerate(tables)))

    async def one_table(table_id: str) -> None:
        for seq in range(1, args.entries + 1):
            began = time.perf_counter()
            try:
                await store.append(table_id, seq, play_entry(seq))
            except Exception as error:  # counted and shown; the table's later entries would conflict
                figures.errors[type(error).__name__] += 1
                return
            figures.latencies.append(time.perf_counter() - began)
            figures.count += 1

    began, cpu = time.perf_counter(), time.process_time()
    try:
        await asyncio.wait_for(asyncio.gather(*(one_table(table_id) for table_id in tables)), args.timeout)
    except TimeoutError:
        figures.errors["gave_up_after_timeout"] += 1
    figures.seconds = time.perf_counter() - began
    figures.cpu = time.process_time() - cpu


async def steady(store: AnyStore, tables: list[str], figures: Figures, args: argparse.Namespace) -> None:
    """Appends arriving at ``--rate`` a second for ``--seconds``, turn by turn over the tables, each
    waiting for its table's lock (as the server's actions do). A latency runs from the moment the
    append was due (a late generator counts against the store), the rate over the time until the
    last is stored: a store that cannot keep up shows a lower rate and a growing p99."""
    locks = {table_id: asyncio.Lock() for table_id in tables}
    last = dict.fromkeys(tables, args.entries)  # the concurrent scenario left each table there

    async def act(table_id: str, due: float) -> None:
        async with locks[table_id]:
            seq = last[table_id] + 1
            try:
                await store.append(table_id, seq, play_entry(seq))
            except Exception as error:
                figures.errors[type(error).__name__] += 1
                return
            last[table_id] = seq
        figures.latencies.append(time.perf_counter() - due)
        figures.count += 1

    began, cpu = time.perf_counter(), time.process_time()
    acts: list[asyncio.Task[None]] = []
    for n in range(round(args.rate * args.seconds)):
        due = began + n / args.rate
        if (wait := due - time.perf_counter()) > 0:
            await asyncio.sleep(wait)
        acts.append(asyncio.create_task(act(tables[n % len(tables)], due)))
    try:
        await asyncio.wait_for(asyncio.gather(*acts), args.timeout)
    except TimeoutError:
        figures.errors["gave_up_after_timeout"] += 1
    figures.seconds = time.perf_counter() - began
    figures.cpu = time.process_time() - cpu


@contextmanager
def sqlite_databases() -> Iterator[Callable[[], str]]:
    folder = tempfile.mkdtemp(prefix="nimmt-bench-store-")
    made = iter(range(1_000_000))
    try:
        yield lambda: f"sqlite+aiosqlite:///{folder}/store{next(made)}.sqlite3"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _admin(url: str, statement: str) -> None:
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            await connection.execute(text(statement))
    finally:
        await engine.dispose()


@contextmanager
def postgres_databases(url: str) -> Iterator[Callable[[], str]]:
    made: list[str] = []

    def new() -> str:
        name = f"bench_{uuid.uuid4().hex[:12]}"
        asyncio.run(_admin(url, f'CREATE DATABASE "{name}"'))
        made.append(name)
        return make_url(url).set(database=name).render_as_string(hide_password=False)

    try:
        yield new
    finally:
        for name in made:
            asyncio.run(_admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextmanager
def throwaway_postgres() -> Iterator[str | None]:
    """A PostgreSQL of scripts/services.sh (with Redis, unused), or None when it cannot start."""
    folder = tempfile.mkdtemp(prefix="nimmt-bs-", dir="/tmp")  # short: its sockets live there
    try:
        started = subprocess.run(["bash", str(SERVICES), "start", folder, str(os.getpid())], capture_output=True,
                                 text=True, timeout=120, check=False)
        if started.returncode != 0:
            print(f"no PostgreSQL (scripts/services.sh: {started.stderr.strip()[-300:]})")
            yield None
            return
        yield dict(line.split("=", 1) for line in started.stdout.split())["NIMMT_TEST_POSTGRES_URL"]
    finally:
        subprocess.run(["bash", str(SERVICES), "stop", folder], capture_output=True, timeout=120, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(database: str, runs: dict[str, list[dict[str, Figures]]]) -> None:
    print(f"\n{database}: medians of {len(runs[WAYS[0]])} run(s)")
    print(f"  {'scenario':<11} {'way':<11} {'per s':>9} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/op':>10}  "
          f"{'x old':>6}  errors")
    for scenario in SCENARIOS:
        rates: dict[str, float] = {}
        for way in WAYS:
            figures = [run[scenario] for run in runs[way]]
            rates[way] = median([f.rate() for f in figures])
            p50 = median([f.percentile(0.5) * 1000 for f in figures])
            p99 = median([f.percentile(0.99) * 1000 for f in figures])
            cpu = median([f.cpu / f.count * 1000 for f in figures if f.count])
            errors: Counter[str] = sum((f.errors for f in figures), Counter())
            shown = ", ".join(f"{name} {count}" for name, count in errors.items()) or "none"
            ratio = rates[way] / rates["old"] if rates["old"] else float("nan")
            print(f"  {scenario:<11} {way:<11} {rates[way]:>9.0f} {p50:>8.2f} {p99:>8.1f} {cpu:>10.3f}  "
                  f"{ratio:>5.1f}x  {shown}")


def bench(database: str, new_url: Callable[[], str], args: argparse.Namespace) -> None:
    runs: dict[str, list[dict[str, Figures]]] = {way: [] for way in WAYS}
    for repeat in range(args.repeat):
        order = WAYS[repeat % len(WAYS):] + WAYS[:repeat % len(WAYS)]  # no way always goes first
        out = asyncio.run(one_run({way: new_url() for way in WAYS}, order, args))
        for way in WAYS:
            runs[way].append(out[way])
        print(f"  {database}: run {repeat + 1}/{args.repeat} done", file=sys.stderr)
    report(database, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--entries", type=int, default=2, help="entries per table in the concurrent scenario")
    parser.add_argument("--sequential", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rate", type=float, default=1000.0, help="appends a second in the steady scenario")
    parser.add_argument("--seconds", type=float, default=3.0, help="how long the steady scenario offers them")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a scenario gives up")
    parser.add_argument("--pg", help="a PostgreSQL URL (postgresql+asyncpg://...) to create databases in")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    args = parser.parse_args()
    if not (1 <= args.tables <= 5000 and 1 <= args.entries <= 50 and 1 <= args.sequential <= 2000
            and 1 <= args.repeat <= 10 and 0 < args.timeout <= 600 and 0 < args.rate <= 10_000
            and 0 < args.seconds <= 30):
        parser.error("at most 5,000 tables, 50 entries, 2,000 sequential appends, 10 repeats, a 600 s timeout, "
                     "10,000 appends a second for 30 s")
    print(f"{args.sequential} sequential appends; {args.tables} tables x {args.entries} entries at once; "
          f"{args.tables} catch-up reads; {args.rate:.0f} appends/s for {args.seconds:g} s; "
          f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    if not args.no_sqlite:
        with sqlite_databases() as new_url:
            bench("SQLite (file, synchronous=FULL)", new_url, args)
    if args.no_pg:
        return
    if args.pg:
        with postgres_databases(args.pg) as new_url:
            bench(f"PostgreSQL ({make_url(args.pg).render_as_string(hide_password=True)})", new_url, args)
        return
    with throwaway_postgres() as url:
        if url is not None:
            with postgres_databases(url) as new_url:
                bench("PostgreSQL (scripts/services.sh: fsync=off, synchronous_commit=off)", new_url, args)


if __name__ == "__main__":
    main()
