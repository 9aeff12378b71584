"""A small tournament on a Ray cluster that this test starts (one CPU, no dashboard) and stops."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from nimmt.tournament import run_local, schedule, summarize

ray = pytest.importorskip("ray")


@pytest.fixture
def local_ray() -> Iterator[str]:
    context = ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        yield context.address_info["gcs_address"]
    finally:
        ray.shutdown()


def test_a_tournament_on_ray_matches_the_local_one(local_ray: str) -> None:
    command = [sys.executable, "-m", "nimmt", "tournament", "--bots", "heuristic,random,beginner",
               "--games", "3", "--seed", "8", "--json", "--ray", local_ray]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    assert data["ray"] == local_ray and data["games"] == 3
    local = run_local(schedule(("heuristic", "random", "beginner"), deal_sets=1, seed=8))
    expected = summarize(("heuristic", "random", "beginner"), local).to_json()
    for got, want in zip(data["entries"], expected["entries"], strict=True):  # type: ignore[call-overload]
        # the same games as on this machine: each game depends only on its seed and rotation
        assert got["penalty_per_round"] == want["penalty_per_round"]
        assert got["win_share"] == want["win_share"]
