"""The in-process hub: a pong waits for exactly the updates published before its ping."""

from __future__ import annotations

import asyncio

from nimmt.server.hub import QUEUE_LIMIT, LocalHub, Update

from .helpers import run


def test_drained_waits_for_earlier_updates_only() -> None:
    async def scenario() -> None:
        hub = LocalHub()
        async with hub.subscribe("t") as subscription:
            await hub.publish(Update("t", 1))
            await hub.publish(Update("t", 2))
            waiting = asyncio.create_task(subscription.drained())
            await asyncio.sleep(0)  # the ping is read: its mark is taken now
            await hub.publish(Update("t", 3))  # after the ping: not waited for
            for _ in range(2):
                assert (await subscription.get()).version in (1, 2)
                await asyncio.sleep(0)
                assert not waiting.done()
                subscription.done()
            await asyncio.wait_for(waiting, 1)
            assert subscription.published == 3 and subscription.sent == 2

    run(scenario())  # in a thread: a browser test may have left this worker's loop running


def test_dropped_updates_count_as_sent() -> None:
    async def scenario() -> None:
        hub = LocalHub()
        async with hub.subscribe("t") as subscription:
            for version in range(QUEUE_LIMIT + 5):
                await hub.publish(Update("t", version))
            assert subscription.sent == 5  # the five oldest were dropped
            waiting = asyncio.create_task(subscription.drained())
            for _ in range(QUEUE_LIMIT):
                await subscription.get()
                subscription.done()
            await asyncio.wait_for(waiting, 1)

    run(scenario())  # in a thread: a browser test may have left this worker's loop running
