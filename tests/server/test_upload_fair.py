"""Uploaded records' reviews share their places between addresses (issue 28, item 4): while one
address's record is reviewed, its next one is refused (``busy``) and another address's record still
gets a place and its review, instead of finding the queue full of the first address's uploads."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nimmt.server.checker import CheckRefused
from nimmt.server.uploads import UploadReviews

from .helpers import run


class HeldPool:
    """A bot pool whose jobs finish only when the test lets them (``release``)."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.started: list[str] = []

    def prepared(self) -> bool:
        return True

    async def run(self, key: str, function: Any, *args: Any, limit: float | None = None) -> dict[str, Any]:
        self.started.append(key)
        await self.go.wait()
        return {"by": key}


class PassingChecker:
    """A record checker that finds every record good, with one player's decisions to review."""

    most = 100

    def __init__(self) -> None:
        self.who: list[str] = []

    async def checked(self, function: Any, *args: Any, who: str = "", size: int = 0) -> tuple[str, Any]:
        self.who.append(who)
        return "ok", (None, ("ok", ({"record": who}, [(0, [])])))


async def _fair() -> None:
    pool, checker = HeldPool(), PassingChecker()
    uploads = UploadReviews(pool, checker, waiting=2)  # type: ignore[arg-type]
    first = asyncio.create_task(uploads.review(b"{}", "10.0.0.1"))
    await asyncio.sleep(0.01)
    with pytest.raises(CheckRefused) as refused:  # the same address again, while its first is reviewed
        await uploads.review(b"{}", "10.0.0.1")
    assert refused.value.code == "busy" and refused.value.status == 503
    other = asyncio.create_task(uploads.review(b"{}", "10.0.0.2"))
    await asyncio.sleep(0.01)
    assert not other.done()  # it waits for its turn, it is not refused
    pool.go.set()
    assert (await first)["by"] and (await other)["by"]
    assert checker.who == ["10.0.0.1", "10.0.0.2"]  # each checked as its own address's
    # Once its review is done, the first address may send another.
    assert (await uploads.review(b"{}", "10.0.0.1"))["by"]


def test_one_addresss_uploads_leave_places_for_the_others() -> None:
    run(asyncio.wait_for(_fair(), 30))  # a thread of its own: the worker may already run a loop
