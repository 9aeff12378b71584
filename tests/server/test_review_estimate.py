"""The review made as the game is played, without a server (issue 29): the seconds a pending answer
promises (this game's decisions left and those of the other games over that take turns with it for
the workers, at a worker's recent seconds a decision), and a step whose worker was stopped."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from nimmt.server.tables.reviews import Followed, Reviews
from tests.server.helpers import run as run_apart


def test_the_estimate_counts_this_game_and_the_games_over_that_take_turns_with_it() -> None:
    pool = SimpleNamespace(workers=1, waiting=(0, 0))
    reviews = Reviews(SimpleNamespace(), SimpleNamespace(), pool)  # type: ignore[arg-type]
    reviews.seconds_a_decision = 0.1
    table: Any = SimpleNamespace(id="t", recorder=SimpleNamespace(record=SimpleNamespace(players=("a", "b", "c", "d"))))
    reviews.followed[("t", 1)] = Followed(done=100, ended=110, players=4, urgent=True)
    assert reviews.seconds_left(table, 1) == pytest.approx((10 + 4) * 0.1 + 0.5)  # its rest and the last turn
    reviews.followed[("u", 1)] = Followed(done=0, ended=100, players=4, urgent=True)  # in turns: up to 14
    reviews.followed[("v", 1)] = Followed(done=0, ended=5, players=4, urgent=True)  # 9, all of it
    reviews.followed[("w", 1)] = Followed(done=0, ended=50, players=4)  # still played: its steps come after
    assert reviews.seconds_left(table, 1) == pytest.approx((14 + 14 + 9) * 0.1 + 0.5)
    pool.workers = 2
    assert reviews.seconds_left(table, 1) == pytest.approx((14 + 14 + 9) * 0.1 / 2 + 0.5)
    assert reviews.seconds_left(table, 2) == pytest.approx((35 * 4 + 14 + 104 + 9) * 0.1 / 2 + 0.5)  # not followed
    reviews.followed[("t", 1)] = Followed(done=144, ended=144, players=4, urgent=True)  # all made, being stored
    assert reviews.followed[("t", 1)].left == 0


def test_a_step_whose_worker_was_stopped_for_another_job_is_made_again() -> None:
    """A bot's or an upload's job past its limit stops every worker: the review step under way is made
    once more, and the review so far stays (it was kept in this process)."""
    from concurrent.futures.process import BrokenProcessPool

    calls: list[tuple[Any, ...]] = []

    async def run(key: str, function: Any, *args: Any, low: bool = False, limit: float | None = None) -> Any:
        calls.append(args)
        if len(calls) == 1:
            raise BrokenProcessPool("stopped for another job")
        return ["decision"], 3, b"models", 8, 0.3

    pool = SimpleNamespace(workers=1, waiting=(0, 0), run=run)
    reviews = Reviews(SimpleNamespace(), SimpleNamespace(), pool)  # type: ignore[arg-type]
    followed = Followed(done=2, decisions=["earlier"])  # type: ignore[list-item]
    left = run_apart(reviews._step({"record": 1}, ("t", 1), followed, low=True))
    assert left and len(calls) == 2 and calls[0] == calls[1]
    assert (followed.done, followed.ended, followed.decisions) == (3, 8, ["earlier", "decision"])
