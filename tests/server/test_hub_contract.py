"""The hub's contract, on every implementation: in-process (:class:`LocalHub`) and Redis
(:class:`RedisHub` on a real server from ``scripts/services.sh``).

Each test has a publishing hub and a subscribing hub. For Redis they are two instances with
connections of their own, as two server processes would have; in-process they are one hub (there
is nothing between processes to test)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from nimmt.server import hub as hub_module
from nimmt.server.hub import LEASE_SECONDS, QUEUE_LIMIT, Hub, LocalHub, RedisHub, Update

from .helpers import run
from .services import Services

WAIT = 10.0  # seconds an update may take to arrive on a loaded machine

Scenario = Callable[[Hub, Hub], Awaitable[None]]


@pytest.fixture(params=["local", "redis"])
def hubs(request: pytest.FixtureRequest) -> Callable[[Scenario], None]:
    """Runs a scenario with (publisher, subscriber) hubs, started and closed around it."""

    def runner(scenario: Scenario) -> None:
        async def main() -> None:
            publisher: Hub
            subscriber: Hub
            if request.param == "local":
                publisher = subscriber = LocalHub()
                started: list[Hub] = [publisher]
            else:
                services: Services = request.getfixturevalue("services")
                prefix: str = request.getfixturevalue("redis_prefix")
                publisher = RedisHub(services.redis_url, prefix=prefix)
                subscriber = RedisHub(services.redis_url, prefix=prefix)
                started = [publisher, subscriber]
            for hub in started:
                await hub.start()
            try:
                await asyncio.wait_for(scenario(publisher, subscriber), 60)
            finally:
                for hub in started:
                    await hub.close()

        run(main())

    return runner


def update(table_id: str, version: int, seats: int = 3) -> Update:
    """News with who is at the table: even seats here, odd ones gone at some moment."""
    return Update(table_id, version,
                  {seat: None if seat % 2 == 0 else 1_800_000_000.25 + seat for seat in range(seats)},
                  entry={"kind": "play", "seat": seats - 1, "card": 1 + version % 104, "name": "Zoë ❤"})


async def get(subscription: Any) -> Update:
    got: Update = await asyncio.wait_for(subscription.get(), WAIT)
    subscription.done()
    return got


def test_a_published_update_reaches_the_tables_subscribers_whole(hubs: Callable[[Scenario], None]) -> None:
    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        async with subscriber.subscribe("t") as far, publisher.subscribe("t") as near:
            sent = update("t", 1, seats=10)
            await publisher.publish(sent)
            for subscription in (far, near):
                got = await get(subscription)
                assert got == sent
                assert got.presence is not None and got.presence[7] == 1_800_000_007.25 and got.presence[8] is None
                assert got.entry == {"kind": "play", "seat": 9, "card": 2, "name": "Zoë ❤"}

    hubs(scenario)


def test_updates_arrive_in_order(hubs: Callable[[Scenario], None]) -> None:
    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        async with subscriber.subscribe("t") as subscription:
            for version in range(1, 101):
                await publisher.publish(update("t", version))
            assert [(await get(subscription)).version for _ in range(100)] == list(range(1, 101))

    hubs(scenario)


def test_only_the_tables_subscribers_get_its_updates(hubs: Callable[[Scenario], None]) -> None:
    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        async with subscriber.subscribe("a") as on_a, subscriber.subscribe("b") as on_b:
            await publisher.publish(update("a", 1))
            await publisher.publish(update("b", 1))
            await publisher.publish(update("a", 2))
            assert [(await get(on_a)).version for _ in range(2)] == [1, 2]
            assert (await get(on_b)).table_id == "b"
            await publisher.publish(update("b", 2))  # a marker: anything meant for a came before it
            assert (await get(on_b)).version == 2
            assert on_a.queue.empty() and on_b.queue.empty()

    hubs(scenario)


def test_every_subscriber_gets_it_and_one_leaving_does_not_stop_the_others(
        hubs: Callable[[Scenario], None]) -> None:
    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        async with subscriber.subscribe("t") as staying:
            async with subscriber.subscribe("t") as leaving:
                await publisher.publish(update("t", 1))
                assert (await get(staying)).version == 1 and (await get(leaving)).version == 1
            await publisher.publish(update("t", 2))
            assert (await get(staying)).version == 2
            assert leaving.queue.empty()
        # Nobody listens any more: publishing is still fine, and a new subscriber starts afresh.
        await publisher.publish(update("t", 3))
        async with subscriber.subscribe("t") as again:
            await publisher.publish(update("t", 4))
            first = (await get(again)).version
            # Through Redis, 3 may still be on its way (the publisher's connection is not the one that
            # unsubscribed): nothing older than it, and 4 comes.
            assert first in (3, 4)
            assert first == 4 or (await get(again)).version == 4

    hubs(scenario)


def test_a_pong_waits_for_the_updates_published_before_its_ping(hubs: Callable[[Scenario], None]) -> None:
    """Through the publisher's own subscribers: the process whose connection asked."""

    async def scenario(publisher: Hub, _subscriber: Hub) -> None:
        async with publisher.subscribe("t") as subscription:
            await publisher.publish(update("t", 1))
            await publisher.publish(update("t", 2))
            waiting = asyncio.create_task(subscription.drained())
            await asyncio.sleep(0)
            await publisher.publish(update("t", 3))  # after the ping: not waited for
            assert (await subscription.get()).version == 1
            subscription.done()
            await asyncio.sleep(0.05)
            assert not waiting.done()
            assert (await subscription.get()).version == 2
            subscription.done()
            await asyncio.wait_for(waiting, WAIT)

    hubs(scenario)


def test_a_subscriber_that_falls_behind_keeps_the_newest(hubs: Callable[[Scenario], None]) -> None:
    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        async with subscriber.subscribe("t") as subscription:
            total = QUEUE_LIMIT + 20
            for version in range(total):
                await publisher.publish(update("t", version, seats=1))
            # Wait until the last one is in (Redis: it travels), then read what is kept.
            for _ in range(int(WAIT / 0.01)):
                if subscription.published == total:
                    break
                await asyncio.sleep(0.01)
            assert subscription.published == total
            kept = [(await get(subscription)).version for _ in range(QUEUE_LIMIT)]
            assert kept == list(range(20, total))
            await asyncio.wait_for(subscription.drained(), WAIT)

    hubs(scenario)


def test_an_update_from_another_process_arrives(services: Services, redis_prefix: str) -> None:
    """A real second process publishes with its own RedisHub; this one's subscriber gets it."""
    code = (
        "import asyncio, sys\n"
        "from nimmt.server.hub import RedisHub, Update\n"
        "async def main():\n"
        "    hub = RedisHub(sys.argv[1], prefix=sys.argv[2])\n"
        "    await hub.start()\n"
        "    await hub.publish(Update('t', 7, {0: None, 3: 1234.5}))\n"
        "    await hub.close()\n"
        "asyncio.run(main())\n"
    )

    async def main() -> None:
        hub = RedisHub(services.redis_url, prefix=redis_prefix)
        await hub.start()
        try:
            async with hub.subscribe("t") as subscription:
                process = await asyncio.create_subprocess_exec(sys.executable, "-c", code, services.redis_url,
                                                               redis_prefix)
                assert await asyncio.wait_for(process.wait(), 60) == 0
                got = await get(subscription)
                assert got == Update("t", 7, {0: None, 3: 1234.5})
        finally:
            await hub.close()

    run(main())


def test_a_redis_url_that_answers_nothing_fails_at_start() -> None:
    async def main() -> None:
        hub = RedisHub("redis://127.0.0.1:1/0")
        with pytest.raises(RedisConnectionError):
            await hub.start()
        await hub.close()

    run(main())


def test_the_url_is_shown_without_its_password() -> None:
    assert RedisHub("redis://:s3cret@example.org:6380/2").shown_url == "redis://:***@example.org:6380/2"
    assert RedisHub("redis://me:s3cret@example.org/0").shown_url == "redis://me:***@example.org/0"
    assert RedisHub("redis://127.0.0.1:6379/0").shown_url == "redis://127.0.0.1:6379/0"


def test_updates_resume_after_redis_restarts(caplog: pytest.LogCaptureFixture) -> None:
    """Redis of its own (the shared one stays up): down, a publish is only logged and the
    publisher's own subscribers still get it, and a new subscription is taken; back up, the other
    hub has resubscribed by itself, to the new table too."""
    folder = Path(tempfile.mkdtemp(prefix="nimmt-redis-", dir="/tmp"))
    socket = folder / "redis.sock"

    def start_redis() -> subprocess.Popen[bytes]:
        server = subprocess.Popen(["redis-server", "--port", "0", "--unixsocket", str(socket), "--save", "",
                                   "--appendonly", "no", "--dir", str(folder)], stdout=subprocess.DEVNULL)
        for _ in range(400):
            if socket.exists():
                return server
            time.sleep(0.025)
        server.kill()
        raise AssertionError("redis-server did not start")

    def stop_redis(server: subprocess.Popen[bytes]) -> None:
        server.kill()
        server.wait(10)
        socket.unlink(missing_ok=True)

    async def until_received(publisher: RedisHub, subscription: Any, table: str) -> int:
        for version in range(1, 200):
            await publisher.publish(update(table, version))
            try:
                got: Update = await asyncio.wait_for(subscription.get(), 0.1)
            except TimeoutError:
                continue
            subscription.done()
            if got.recheck:  # Redis is back: news may have been missed, look at the store
                rechecked.add(table)
                continue
            return got.version
        raise AssertionError("no update came through")

    rechecked: set[str] = set()
    server = start_redis()
    try:
        async def main() -> None:
            nonlocal server
            url = f"unix://{socket}?db=0"
            publisher, subscriber = RedisHub(url), RedisHub(url)
            await publisher.start()
            await subscriber.start()
            try:
                async with subscriber.subscribe("t") as far, publisher.subscribe("t") as near:
                    await publisher.publish(update("t", 1))
                    assert (await get(far)).version == 1 and (await get(near)).version == 1
                    stop_redis(server)
                    started = time.monotonic()
                    await publisher.publish(update("t", 2))  # logged, not raised
                    assert time.monotonic() - started < 5
                    assert (await get(near)).version == 2
                    assert "could not publish version 2 of table t to Redis" in caplog.text
                    # A connection arriving now is served all the same (its own process's updates).
                    async with subscriber.subscribe("u") as late:
                        await subscriber.publish(update("u", 1))
                        assert (await get(late)).version == 1
                        assert "could not subscribe to nimmt:table:u on Redis" in caplog.text
                        server = start_redis()
                        await until_received(publisher, far, "t")
                        await until_received(publisher, late, "u")  # subscribed once Redis was back
                        assert "t" in rechecked  # the far process was told to look at the store
            finally:
                await publisher.close()
                await subscriber.close()

        run(main())
    finally:
        stop_redis(server)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_subscriber_may_leave_after_its_hub_closed(hubs: Callable[[Scenario], None]) -> None:
    """At shutdown the hub closes while connections are still winding down."""

    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        async with subscriber.subscribe("t") as subscription:
            await publisher.publish(update("t", 1))
            assert (await get(subscription)).version == 1
            await subscriber.close()
        await subscriber.start()  # and it can start again
        async with subscriber.subscribe("t") as subscription:
            await publisher.publish(update("t", 2))
            assert (await get(subscription)).version == 2

    hubs(scenario)


# -- presence and leases ---------------------------------------------------------------------------

def test_presence_counts_connections_over_every_process(hubs: Callable[[Scenario], None]) -> None:
    """A seat is present while any process has a connection for it; once the last one closes, the
    seat is away since then (a wall-clock time every process agrees on)."""

    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        table = f"p{time.monotonic_ns()}"
        assert await publisher.presence(table) == {}
        assert await publisher.arrive(table, 0) == {0: None}
        assert await subscriber.arrive(table, 0) == {0: None}  # the same person on two devices
        await subscriber.arrive(table, 2)
        assert await publisher.presence(table) == {0: None, 2: None}
        assert (await publisher.leave(table, 0))[0] is None  # still here through the other
        before = time.time()
        seen = await subscriber.leave(table, 0)
        since = seen[0]
        assert since is not None and before - 1 <= since <= time.time() + 1
        assert seen[2] is None
        assert (await publisher.presence(table))[0] == since
        assert await publisher.arrive(table, 0) == {0: None, 2: None}  # back

    hubs(scenario)


def test_one_process_at_a_time_holds_a_tables_lease(hubs: Callable[[Scenario], None]) -> None:
    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        table = f"l{time.monotonic_ns()}"
        assert await publisher.lease(table)
        assert await publisher.lease(table)  # kept, and renewed
        if publisher is not subscriber:
            assert not await subscriber.lease(table)  # another process's
            assert await subscriber.lease(f"{table}-other")
            await publisher.close()  # a process that stops gives its leases back
            assert await subscriber.lease(table)
            await publisher.start()
            assert not await publisher.lease(table)

    hubs(scenario)


def test_a_lease_moves_when_its_holder_dies(services: Services, redis_prefix: str) -> None:
    """A process killed holding a lease: another takes it once it expires, within seconds."""
    code = (
        "import asyncio, os, sys\n"
        "from nimmt.server.hub import RedisHub\n"
        "async def main():\n"
        "    hub = RedisHub(sys.argv[1], prefix=sys.argv[2])\n"
        "    await hub.start()\n"
        "    assert await hub.lease('dying')\n"
        "    await hub.arrive('dying', 1)\n"
        "    os._exit(0)  # no close: as kill -9 would leave it\n"
        "asyncio.run(main())\n"
    )

    async def main() -> None:
        hub = RedisHub(services.redis_url, prefix=redis_prefix)
        await hub.start()
        try:
            process = await asyncio.create_subprocess_exec(sys.executable, "-c", code, services.redis_url,
                                                           redis_prefix)
            assert await asyncio.wait_for(process.wait(), 60) == 0
            assert not await hub.lease("dying")
            assert (await hub.presence("dying"))[1] is None  # its person looks present until the mark expires
            began = time.monotonic()
            while not await hub.lease("dying"):
                assert time.monotonic() - began < LEASE_SECONDS + 5, "the lease never moved"
                await asyncio.sleep(0.2)
            assert time.monotonic() - began >= LEASE_SECONDS - 2
        finally:
            await hub.close()

    run(main())


# -- what one action costs: news sent together, own echoes skipped, presence renewed at once --------

def test_news_published_at_once_arrives_whole_and_in_order(hubs: Callable[[Scenario], None]) -> None:
    """Many tables publishing at the same moment (as one busy process does): every update reaches the
    other process once, each table's in the order of its publishing, and the publisher's own
    subscribers get each update once (its echo from Redis is not delivered again)."""

    async def scenario(publisher: Hub, subscriber: Hub) -> None:
        tables, versions = 30, 10
        async with contextlib.AsyncExitStack() as stack:
            far = [await stack.enter_async_context(subscriber.subscribe(f"t{n}")) for n in range(tables)]
            near = [await stack.enter_async_context(publisher.subscribe(f"t{n}")) for n in range(tables)]

            async def table(n: int) -> None:  # one table's news one after the other, as its lock has it
                for version in range(1, versions + 1):
                    await publisher.publish(update(f"t{n}", version))

            await asyncio.gather(*(table(n) for n in range(tables)))
            for subscriptions in (far, near):
                for n, subscription in enumerate(subscriptions):
                    assert [(await get(subscription)).version for _ in range(versions)] == \
                        list(range(1, versions + 1)), n
            if publisher is not subscriber:  # an echo would have come by now, behind a later update
                await publisher.publish(update("t0", versions + 1))
                assert (await get(near[0])).version == versions + 1
                assert (await get(far[0])).version == versions + 1
            for subscription in near:
                assert subscription.queue.empty()

    hubs(scenario)


def test_a_process_skips_its_own_news_without_decoding_it(caplog: pytest.LogCaptureFixture) -> None:
    """What this hub published comes back on the table's channel: it is known by its first bytes and
    dropped unread; another process's message is read (and one that is no update, logged)."""
    hub = RedisHub("redis://127.0.0.1:1/0")
    delivered: list[Update] = []
    setattr(hub._local, "deliver", delivered.append)  # noqa: B010  (what would be handed on)
    channel = hub.channel("t").encode()
    mine = f"{hub.origin} ".encode()
    hub._handle({"type": "message", "channel": channel, "data": mine + b"\xff not JSON at all"})
    hub._handle({"type": "message", "channel": channel, "data": mine + update("t", 1).to_json()})
    assert delivered == [] and "not a nimmt update" not in caplog.text
    other = f"{'0' * 32} ".encode()
    hub._handle({"type": "message", "channel": channel, "data": other + update("t", 2).to_json()})
    assert delivered == [update("t", 2)]
    hub._handle({"type": "message", "channel": channel, "data": other + b"\xff not JSON at all"})
    assert "not a nimmt update" in caplog.text and len(delivered) == 1


def test_an_update_survives_any_name() -> None:
    """Names are what people type, a lone surrogate from a JSON escape too: the update goes through."""
    odd = Update("t", 3, {0: None}, entry={"kind": "join", "name": "Zoë 🐂 \x00 \ud800 \" \\"})
    assert Update.from_json(odd.to_json()) == odd
    assert Update.from_json(update("t", 4).to_json()) == update("t", 4)


def test_presence_of_many_tables_is_renewed(services: Services, redis_prefix: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """One process with people at more tables than one renewal takes: all of them stay present for
    the other process past the marks' expiry (renewed by the heartbeat, not by new arrivals)."""
    monkeypatch.setattr(hub_module, "PRESENCE_SECONDS", 1.5)
    tables = hub_module.HEARTBEAT_BATCH + 20

    async def main() -> None:
        here, there = RedisHub(services.redis_url, prefix=redis_prefix), RedisHub(services.redis_url,
                                                                                   prefix=redis_prefix)
        await here.start()
        await there.start()
        try:
            for n in range(tables):
                await here.arrive(f"h{n}", n % 4)
            await asyncio.sleep(3 * 1.5)  # three expiries
            for n in (0, hub_module.HEARTBEAT_BATCH - 1, hub_module.HEARTBEAT_BATCH, tables - 1):
                assert await there.presence(f"h{n}") == {n % 4: None}, n
        finally:
            await here.close()
            await there.close()

    run(main())
