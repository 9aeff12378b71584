"""The public tables' rows on SQLite and PostgreSQL (real servers): what the lobby lists, in which
order, in which language; and the reaction limit per seat. Time is moved, not waited for."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from nimmt.server.matching import QUICK_TURNS, QuickTurns
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


def test_quick_match_also_finds_the_tables_whose_people_are_on_their_way(url: str) -> None:
    async def scenario(public: PublicTables, clock: Clock) -> None:
        await public.note("new", language="de", clock=60, seats=4, taken=1, open=False,
                          arriving_until=T0 + timedelta(seconds=30))
        assert await public.open_tables("de") == []  # the list shows tables somebody is at
        assert [t.table_id for t in await public.open_tables("de", arriving=True)] == ["new"]
        clock.now += timedelta(seconds=31)  # nobody came
        assert await public.open_tables("de", arriving=True) == []

    with_tables(url, ["new"], scenario)


def test_quick_match_turns_go_to_one_process_at_a_time(url: str) -> None:
    """Two processes' turns in one language (each its own engine and its own queue): the second
    comes only once the first is over; another language does not wait for it; on SQLite a turn
    whose process died lapses after its lease."""
    async def scenario(public: PublicTables, clock: Clock) -> None:
        other = PublicTables(public.engine.url.render_as_string(hide_password=False))
        one, two = QuickTurns(public), QuickTurns(other)
        order: list[str] = []
        try:
            async def second() -> None:
                async with two.turn("fr"):
                    order.append("second")

            async with one.turn("fr"):
                async with two.turn("en"):
                    order.append("english")
                waiting = asyncio.create_task(second())
                await asyncio.sleep(0.3)  # the second asker had time to come in if it could
                order.append("first done")
            await asyncio.wait_for(waiting, 30)
            assert order == ["english", "first done", "second"]
            if public.dialect == "sqlite":  # a process died in its turn: the row stays, and lapses
                async with public.engine.begin() as connection:
                    await connection.execute(QUICK_TURNS.insert().values(language="fr", holder="gone",
                                                                         until=time.time() - 1))
                async with two.turn("fr"):
                    order.append("after the lapse")
                assert order[-1] == "after the lapse"
        finally:
            await other.close()

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
