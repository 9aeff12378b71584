"""The public tables' rows on SQLite and PostgreSQL (real servers): what the lobby lists, in which
order, in which language; and the reaction limit per seat. Time is moved, not waited for."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from nimmt.server.public import LISTED_FOR, PublicTables
from nimmt.server.reactions import BURST, EVERY, ReactionLimit, retry_after
from nimmt.server.store import SqlStore
from tests.server.helpers import run

T0 = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'nimmt.sqlite3'}"
    else:
        yield request.getfixturevalue("postgres_url")


def with_tables(url: str, ids: list[str], scenario: Callable[[PublicTables, Clock], Awaitable[None]]) -> None:
    async def main() -> None:
        store = SqlStore(url)  # migrates the database, public_tables included
        await store.start()
        for table_id in ids:  # the tables the rows belong to (a row needs its table)
            await store.append(table_id, 0, {"kind": "create"})
        await store.close()
        clock = Clock()
        public = PublicTables(store.url, clock=clock)
        try:
            await scenario(public, clock)
        finally:
            await public.close()

    run(main())


def test_open_tables_are_listed_oldest_first_and_by_language(url: str) -> None:
    async def scenario(public: PublicTables, clock: Clock) -> None:
        await public.note("t-fr", language="fr", clock=60, seats=4, taken=1, open=True)
        clock.now += timedelta(minutes=1)
        await public.note("t-en", language="en", clock=20, seats=3, taken=2, open=True)
        clock.now += timedelta(minutes=1)
        await public.note("t-fr2", language="fr", clock=86400, seats=5, taken=1, open=True)
        listed = await public.open_tables()
        assert [(t.table_id, t.language, t.clock, t.seats, t.taken) for t in listed] == [
            ("t-fr", "fr", 60, 4, 1), ("t-en", "en", 20, 3, 2), ("t-fr2", "fr", 86400, 5, 1)]
        assert [t.table_id for t in await public.open_tables("fr")] == ["t-fr", "t-fr2"]
        assert await public.open_tables("de") == []
        assert listed[0].to_json() == {"table_id": "t-fr", "language": "fr", "clock": 60, "seats": 4, "taken": 1,
                                       "free": 3, "opened_at": T0.isoformat()}

    with_tables(url, ["t-fr", "t-en", "t-fr2"], scenario)


def test_a_table_that_fills_or_starts_leaves_the_list_and_keeps_its_place_if_it_opens_again(url: str) -> None:
    async def scenario(public: PublicTables, clock: Clock) -> None:
        await public.note("a", language="en", clock=None, seats=2, taken=1, open=True)
        clock.now += timedelta(minutes=1)
        await public.note("b", language="en", clock=None, seats=2, taken=1, open=True)
        await public.note("a", language="en", clock=None, seats=2, taken=2, open=False)
        assert [t.table_id for t in await public.open_tables("en")] == ["b"]
        clock.now += timedelta(minutes=1)
        await public.note("a", language="en", clock=None, seats=2, taken=1, open=True)  # somebody left
        assert [(t.table_id, t.taken) for t in await public.open_tables("en")] == [("a", 1), ("b", 1)]

    with_tables(url, ["a", "b"], scenario)


def test_a_row_left_unchanged_too_long_is_no_longer_listed(url: str) -> None:
    async def scenario(public: PublicTables, clock: Clock) -> None:
        await public.note("old", language="es", clock=86400, seats=4, taken=1, open=True)
        clock.now += LISTED_FOR - timedelta(seconds=1)
        assert [t.table_id for t in await public.open_tables()] == ["old"]
        clock.now += timedelta(seconds=2)
        assert await public.open_tables() == []

    with_tables(url, ["old"], scenario)


def test_a_row_needs_its_table(url: str) -> None:
    async def scenario(public: PublicTables, clock: Clock) -> None:
        with pytest.raises(Exception, match=r"(?i)foreign key"):
            await public.note("nobody", language="en", clock=None, seats=2, taken=1, open=True)
        assert await public.open_tables() == []

    with_tables(url, [], scenario)


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_reactions_come_in_a_burst_then_one_every_few_seconds_per_seat() -> None:
    ticks = Ticks()
    limit = ReactionLimit(clock=ticks)
    assert [limit.take("t", 0) for _ in range(BURST)] == [0.0] * BURST
    wait = limit.take("t", 0)
    assert wait == pytest.approx(EVERY) and retry_after(wait) == 4
    assert limit.take("t", 1) == 0.0 and limit.take("u", 0) == 0.0  # another seat, another table
    ticks.now += EVERY / 2
    assert limit.take("t", 0) == pytest.approx(EVERY / 2)  # a refusal costs nothing
    ticks.now += EVERY / 2
    assert limit.take("t", 0) == 0.0
    assert limit.take("t", 0) > 0
    ticks.now += 100 * EVERY  # a long pause gives back the burst, no more
    assert [limit.take("t", 0) == 0.0 for _ in range(BURST + 1)] == [True] * BURST + [False]
    assert retry_after(0.01) == 1
