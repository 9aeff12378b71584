"""The record checker shares its time between addresses (issue 28): one address's six big uploads
(each seconds of a worker) get two places and ``503 busy`` for the rest; meanwhile a small record
from someone else is checked in the small lane at once, and another address's big record goes
before the first address's second one (turns). Real worker processes; the jobs are naps, so the
order is what is asserted, never a time."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from nimmt.server.checker import SMALL_BYTES, CheckRefused, RecordChecker

from .helpers import run

BIG = 2 * 1024 * 1024
LONG = 4.0  # seconds each of the first address's big records keeps a worker


def nap(seconds: float, tag: str) -> tuple[str, Any]:
    """In the worker: a record that takes ``seconds`` to check."""
    time.sleep(seconds)
    return "ok", tag


async def _scenario() -> tuple[list[str], list[str]]:
    checker = RecordChecker()
    finished: list[str] = []
    refused: list[str] = []

    async def upload(who: str, tag: str, size: int, seconds: float) -> None:
        try:
            code, answer = await checker.checked(nap, seconds, tag, who=who, size=size)
        except CheckRefused as error:
            assert error.status == 503 and error.code == "busy" and error.params["retry_after"] >= 1
            refused.append(tag)
            return
        assert (code, answer) == ("ok", tag)
        finished.append(tag)

    try:
        # Both workers started first (a spawn takes a second or two on a busy machine).
        await asyncio.gather(upload("warm", "warm-small", 10, 0.0), upload("warm", "warm-big", BIG, 0.0))
        finished.clear()
        flood = [asyncio.create_task(upload("10.0.0.66", f"a{n}", BIG, LONG)) for n in range(6)]
        await asyncio.sleep(0.5)  # the first one is at the worker
        others = [asyncio.create_task(upload("10.0.0.7", "b-small", SMALL_BYTES // 4, 0.0)),
                  asyncio.create_task(upload("10.0.0.8", "c-big", BIG, 0.0))]
        await asyncio.wait_for(asyncio.gather(*flood, *others), 120)
    finally:
        await checker.close()
    return finished, refused


def test_one_addresss_big_uploads_never_make_anothers_wait_or_fail() -> None:
    finished, refused = run(_scenario())
    assert sorted(refused) == ["a2", "a3", "a4", "a5"]  # two places per address and lane
    # The small record went first, beside the big one being checked; the other address's big
    # record went before the flooding address's second.
    assert finished == ["b-small", "a0", "c-big", "a1"], finished


def test_a_cancelled_wait_gives_its_turn_on() -> None:
    async def scenario() -> list[str]:
        checker = RecordChecker()
        done: list[str] = []
        try:
            first = asyncio.create_task(checker.checked(nap, 1.0, "first", who="x", size=BIG))
            await asyncio.sleep(0.2)
            left = asyncio.create_task(checker.checked(nap, 0.0, "left", who="y", size=BIG))
            await asyncio.sleep(0.2)
            left.cancel()  # the person closed the page while waiting
            after = asyncio.create_task(checker.checked(nap, 0.0, "after", who="z", size=BIG))
            for task in (first, after):
                done.append((await asyncio.wait_for(task, 60))[1])
            assert left.cancelled()
            assert checker.lanes[1].held == {}  # nothing left counted
        finally:
            await checker.close()
        return done

    assert run(scenario()) == ["first", "after"]
