"""A small tournament on a Ray cluster that this test starts (one CPU, no dashboard) and stops: in
this process (``ray.init``), and as docs/ladder.md says (``ray start --head``, with a token)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ours(marker: str) -> list[int]:
    """The processes whose command line holds ``marker`` (this test's own folder)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


@pytest.fixture
def ray_start_with_a_token() -> Iterator[tuple[str, dict[str, str]]]:
    """A cluster started the way docs/ladder.md says (``ray start --head``), bound to loopback, in a
    home that holds a Ray token: Ray 2.59+ then turns token authentication on by itself."""
    folder = tempfile.mkdtemp(prefix="nray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = {**os.environ, "HOME": folder}
    env.pop("RAY_AUTH_MODE", None)
    ray_cli = str(Path(sys.executable).with_name("ray"))
    subprocess.run([ray_cli, "get-auth-token", "--generate"], env=env, capture_output=True, timeout=120, check=True)
    assert (Path(folder) / ".ray" / "auth_token").is_file()
    port = _free_port()
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=1",
         "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={folder}/r", "--block"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert head.poll() is None and time.monotonic() < deadline, "ray start did not come up"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.5)
        yield f"127.0.0.1:{port}", env
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            head.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)
        for pid in _ours(folder):  # anything Ray started in a session of its own
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        head.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_cluster_started_with_ray_start_and_a_token_plays_the_tournament(
    ray_start_with_a_token: tuple[str, dict[str, str]],
) -> None:
    address, env = ray_start_with_a_token
    bots = ("heuristic", "random", "beginner")
    command = [sys.executable, "-m", "nimmt", "tournament", "--bots", ",".join(bots), "--games", "3", "--seed", "8",
               "--json", "--ray", address]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    expected = summarize(bots, run_local(schedule(bots, deal_sets=1, seed=8))).to_json()
    for got, want in zip(data["entries"], expected["entries"], strict=True):  # type: ignore[call-overload]
        assert got["penalty_per_round"] == want["penalty_per_round"]
