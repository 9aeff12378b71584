"""One review a game over several processes on one database (issue 29, docs/deploy/cost.md): two table
services (two processes) on one store, a table of four people, two of them acting through each. The
first to write takes the game's lease in the store and reviews it as it is played; the other never
reviews a decision. The end is written by the other one: its holder finishes the review, whether
it hears of the end as news (``moved``) or only through the lease's row (it reads the stored record),
and the stored review is the one made after the game. A holder that stops lets go: the other makes it."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from nimmt.core import ChooseRow, legal_actions
from nimmt.records import from_mapping
from nimmt.review import DEFAULT_SEED, from_store, review, to_store
from nimmt.server import models
from nimmt.server.hub import LocalHub, Update
from nimmt.server.models import CreateTable, TableOptions
from nimmt.server.store import ReviewClaims, SqlStore
from nimmt.server.tables import reviews
from nimmt.server.tables.commands import StartGame
from nimmt.server.tables.service import TableService
from nimmt.server.tables.table import Table

from .helpers import run

SAMPLES = 8  # what is tested is who reviews, not the figures' precision
WAIT = 240.0  # seconds a review may take on a busy machine


class Counted:
    """The review jobs one service's pool ran: ``step`` (decisions reviewed as played) and ``part``."""

    def __init__(self, service: TableService) -> None:
        self.decisions = 0
        self.parts = 0
        pool_run = service.pool.run

        async def counting(key: str, function: Callable[..., Any], *args: Any, **options: Any) -> Any:
            result = await pool_run(key, function, *args, **options)
            if function.__name__ == "review_step":
                self.decisions += len(result[0])
            elif function.__name__ == "review_part":
                self.parts += 1
            return result

        service.pool.run = counting  # type: ignore[method-assign]


async def _until(condition: Callable[[], bool], what: str, limit: float = WAIT) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def _play(services: list[TableService], tables: list[Table], seats: list[list[int]], rng: random.Random,
                news: bool, follower: int | None = None,
                between: Callable[[int], Awaitable[None]] | None = None) -> int:
    """Play the game out: each service acts for its seats (turn by turn, the follower's first), taking in
    the other's writes as news when ``news`` (else only as a write's catch-up); ``between(n)`` after the
    n-th time round. Which wrote the end."""
    last = 0
    rounds = 0
    while tables[0].status != "over" and tables[1].status != "over":
        if between is not None:
            await between(rounds)
        rounds += 1
        order = [0, 1] if follower in (None, 0) else [1, 0]
        for i in order:
            service, table = services[i], tables[i]
            newest = max(t.version for t in tables)
            if news:
                await service.follow(table, Update(table.id, newest, recheck=True))
            state = max(tables, key=lambda t: t.version).recorder
            assert state is not None
            for seat in seats[i]:
                actions = legal_actions(state.state, seat)
                if not actions:
                    continue
                action = rng.choice(actions)
                message: models.TableAction = (
                    models.ChooseRowMessage(type="choose_row", row=action.row, version=newest)
                    if isinstance(action, ChooseRow) else models.Play(type="play", card=action.card, version=newest))
                await service.act(table, seat, message)
                last = i
                newest = table.version
            if table.status == "over":
                break
    return last


def _scenario(url: str, *, news: bool, stop_holder: bool = False) -> None:
    async def main() -> None:
        stores = [SqlStore(url), SqlStore(url)]
        for store in stores:
            await store.start()
        services = [TableService(store, LocalHub(), bot_delay=0, rng=random.Random(3), away_grace=3600.0)
                    for store in stores]
        counted = [Counted(service) for service in services]
        for service in services:
            service.reviews.samples = SAMPLES
        try:
            table, _ = await services[0].create(CreateTable(name="Ana", seats=4, options=TableOptions(rounds=1)))
            for name in ("Bruno", "Cy", "Dora"):
                await services[0].join(table, name)
            await services[0].submit(table, StartGame())
            other = await services[1].get(table.id)
            assert other is not None
            tables = [table, other]
            key = (table.id, 1)
            rng = random.Random(7)
            # The first card, through the first service: it takes the game's lease and follows the game.
            state = table.recorder
            assert state is not None
            await services[0].act(table, 0, models.Play(type="play", card=rng.choice(state.state.hands[0]),
                                                        version=table.version))
            await _until(lambda: services[0].reviews.followed.get(key, reviews.Followed()).claimed,
                         "the first service never took the lease")

            async def stop(rounds: int) -> None:  # the holder's reviews stop in the third turn (a restart, say)
                if stop_holder and rounds == 3:
                    await services[0].reviews.stop()
                    services[0].reviews.as_played = False

            last = await _play(services, tables, [[0, 1], [2, 3]], rng, news, follower=0, between=stop)
            assert last == 1, "the second service should write the end: pick another seed"
            if news:  # the end, as the first service hears it
                await services[0].follow(tables[0], Update(table.id, tables[1].version, recheck=True))
            for service in services:
                assert service.reviews.followed.keys() <= {key}
            assert key not in services[1].reviews.followed  # it never followed the game ...
            assert counted[1].decisions == 0  # ... nor reviewed a decision of it as it was played
            if not stop_holder:
                assert key in services[1].reviews.elsewhere
            # The review is stored once, by one process, and is the review made after the game.
            await _until(lambda: 1 in tables[1].reviews or 1 in tables[0].reviews
                         or bool(services[1].reviews.working or services[0].reviews.working), "no review began")
            row = await stores[1].game(table.id, 1)
            assert row is not None and row.finished
            deadline = time.monotonic() + WAIT
            while True:
                entries = await stores[1].journal(table.id) or []
                kinds = [entry["kind"] for entry in entries]
                if "review" in kinds:
                    break
                assert time.monotonic() < deadline, "the review was never stored"
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)  # room for a second review, were one being made
            entries = await stores[1].journal(table.id) or []
            assert [entry["kind"] for entry in entries].count("review") == 1
            stored = next(entry["review"] for entry in entries if entry["kind"] == "review")
            record = from_mapping(row.record)
            whole = review(record, samples=SAMPLES, seed=DEFAULT_SEED)
            assert from_store(record, stored).to_json() == from_store(record, to_store(whole)).to_json()
            decisions = len(whole.decisions)
            if stop_holder:
                assert counted[1].parts > 0  # made after the game by the one left
            else:  # every decision reviewed once, by the holder, as played and at the end
                assert (counted[0].decisions, counted[0].parts, counted[1].parts) == (decisions, 0, 0)
            await _until(lambda: not services[0].reviews.held and not services[1].reviews.held,
                         "a lease was kept after the review was stored", 10.0)
        finally:
            for service in services:
                await service.close()
            for store in stores:
                await store.close()

    run(main())


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'nimmt.sqlite3'}"
    found: str = request.getfixturevalue("postgres_url")
    return found


def test_the_holder_hears_the_end_as_news_and_finishes_the_review(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    renew = ReviewClaims.renew

    async def renew_only(self: ReviewClaims, holder: str) -> list[tuple[str, int]]:
        await renew(self, holder)
        return []  # the end is not learnt from the lease's row: from the news alone

    monkeypatch.setattr(ReviewClaims, "renew", renew_only)
    monkeypatch.setattr(reviews, "CLAIM_RENEW", 0.2)
    _scenario(url, news=True)


def test_the_holder_finishes_from_the_stored_record_when_no_news_comes(url: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reviews, "CLAIM_RENEW", 0.2)  # the holder looks for an end another process saw often
    _scenario(url, news=False)


def test_a_holder_that_stops_lets_go_and_the_other_makes_the_review(url: str) -> None:
    _scenario(url, news=True, stop_holder=True)


def test_a_lease_is_one_holders_until_it_lapses_and_never_once_done(url: str) -> None:
    async def main() -> None:
        store = SqlStore(url)
        await store.start()
        now = [1000.0]
        claims = ReviewClaims(store.database, clock=lambda: now[0])
        try:
            key = ("t", 1)
            assert (await claims.take(key, "a")).ours("a")
            assert not (await claims.take(key, "b")).ours("b")  # a holds it
            assert (await claims.take(key, "a")).ours("a")  # kept
            now[0] += 20
            assert await claims.renew("a") == []
            now[0] += 20
            assert not (await claims.take(key, "b", ended=True)).ours("b")  # renewed: still a's
            assert await claims.renew("a") == [key]  # b saw the end: a finishes
            now[0] += 100
            taken = await claims.take(key, "b")  # lapsed: b's now, and the end is still known
            assert taken.ours("b") and taken.ended
            await claims.done(key)
            now[0] += 100
            assert (await claims.take(key, "a")).done  # never taken again
            await claims.release("b")
            assert (await claims.take(key, "c")).done  # a review done is not let go
            assert (await claims.take(("t", 2), "c")).ours("c")
            await claims.release("c", [("t", 2)])
            assert (await claims.take(("t", 2), "d")).ours("d")
            now[0] += 2 * 86400
            assert await claims.forget() == 2
        finally:
            await store.close()

    run(main())
