"""Running a tournament's games: in this process, on a local process pool, or on a Ray cluster.

Whatever runs them, the results come back sorted by (deal set, rotation), and each game depends
only on its :class:`~nimmt.tournament.schedule.MatchSpec`, so the same seed gives the same
tournament for any number of jobs (bots that stop on a clock, such as ``expert`` with a time
budget, aside: how many samples fit in their budget depends on the machine).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from nimmt.core import NimmtError

from .play import MatchResult, play_match
from .schedule import MatchSpec

Progress = Callable[[int], None]  # called with how many games finished since the last call
Finished = Callable[[MatchResult], None]  # called with each game as soon as it ends


class RayUnavailable(NimmtError, RuntimeError):
    """Ray is not installed, or the cluster at the given address cannot be reached."""


def _ignore_ctrl_c() -> None:
    """In a pool's worker: Ctrl-C in a terminal reaches every process of the group; the parent alone
    stops the run (and lets the games under way end), so a worker shows no traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_local(
    specs: Sequence[MatchSpec], jobs: int = 1, progress: Progress | None = None, finished: Finished | None = None
) -> list[MatchResult]:
    """Play every game, ``jobs`` processes at a time (1: in this process)."""
    results: list[MatchResult] = []

    def done(result: MatchResult) -> None:
        results.append(result)
        if finished is not None:
            finished(result)
        if progress is not None:
            progress(1)

    if jobs <= 1:
        for spec in specs:
            done(play_match(spec))
    else:
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_ignore_ctrl_c)
        try:
            futures = [pool.submit(play_match, spec) for spec in specs]
            for future in as_completed(futures):
                done(future.result())
        finally:
            # Stopped (Ctrl-C): games not started are dropped instead of being played first.
            pool.shutdown(wait=True, cancel_futures=True)
    return sorted(results, key=lambda r: (r.deal_set, r.rotation))


def _check_reachable(address: str) -> None:
    """Fail fast on an address nobody listens at (Ray itself retries for minutes)."""
    if address in {"auto", "local"} or address.startswith("ray://"):
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise RayUnavailable(f"a Ray address is host:port (for example 127.0.0.1:6379), not {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    except OSError as error:
        raise RayUnavailable(f"cannot reach a Ray cluster at {address}: {error.strerror or error}") from None


def _use_ray_token() -> bool:
    """Turn Ray's token authentication on for this process when a token is at hand and nobody
    chose a mode (``RAY_AUTH_MODE``): ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or
    ``~/.ray/auth_token``, as ``ray start`` does (Ray 2.59 and later turn authentication on by
    themselves when that token exists, and then refuse a driver that does not send it). True when
    this call turned it on."""
    if "RAY_AUTH_MODE" in os.environ:
        return False
    path = os.environ.get("RAY_AUTH_TOKEN_PATH")
    token = os.path.expanduser(path) if path else os.path.expanduser("~/.ray/auth_token")
    if not os.environ.get("RAY_AUTH_TOKEN") and not os.path.isfile(token):
        return False
    os.environ["RAY_AUTH_MODE"] = "token"
    try:  # Ray caches its settings when it is imported: read them again
        import importlib

        importlib.import_module("ray._raylet").Config.initialize("")
    except (ImportError, AttributeError):  # pragma: no cover - a Ray without token authentication
        pass
    return True


def run_ray(
    specs: Sequence[MatchSpec], address: str, progress: Progress | None = None, finished: Finished | None = None
) -> list[MatchResult]:
    """Play every game as a Ray task on the cluster at ``address`` (``host:port``, or ``auto``)."""
    try:
        import ray
    except ImportError:  # pragma: no cover - ray is in the tournament extra
        raise RayUnavailable("Ray is not installed: pip install 'nimmt[tournament]'") from None
    started_here = not ray.is_initialized()
    token_here = False
    if started_here:
        _check_reachable(address)
        token_here = _use_ray_token()
        try:
            ray.init(address=address, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
        except Exception as error:  # ray raises ConnectionError, ValueError and others here
            if token_here:
                os.environ.pop("RAY_AUTH_MODE", None)
            raise RayUnavailable(f"cannot reach a Ray cluster at {address}: {error}") from None
    try:
        remote_play: Any = ray.remote(play_match)
        pending = [remote_play.remote(spec) for spec in specs]
        results: list[MatchResult] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for result in ray.get(done):
                results.append(result)
                if finished is not None:
                    finished(result)
            if progress is not None:
                progress(len(done))
    finally:
        if started_here:
            ray.shutdown()
        if token_here:
            os.environ.pop("RAY_AUTH_MODE", None)
    return sorted(results, key=lambda r: (r.deal_set, r.rotation))
