"""Speed of random play, side by side in one run: the rules core and the batch engine.

Engines measured, all on one core, random play (random cards, random rows):

* ``core``  - the step engine, :func:`nimmt.core.apply`, one action at a time;
* ``fast``  - the core's fast round path, :func:`nimmt.core.fast.random_rounds`;
* ``numpy`` - the batch engine's NumPy path, batches of 4096 hands;
* ``numba`` - the batch engine's compiled path (chunks of 65,536 hands, each played one hand at a
  time without arrays).

Each figure is the median of ``repeats`` timed runs (wall clock; the process's CPU time is kept
too, since the machine may be shared). Numba's compile time (or cache load) is timed apart and
left out of the throughput.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from nimmt.core import ChooseRow, Phase, PlayCard, Rules, apply, deal_cards, new_game
from nimmt.core.fast import random_rounds

from . import _kernels as K
from .engine import BatchError, engine_name, play_games, play_hands

ENGINES = ("core", "fast", "numpy", "numba")
NUMPY_BATCH = 4096


@dataclass
class Figure:
    engine: str
    players: int
    hands: int
    hands_per_second: float
    hands_per_cpu_second: float
    games: int
    games_per_second: float
    games_per_cpu_second: float


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    numba_version = None
    if K.HAVE_NUMBA:
        import numba

        numba_version = numba.__version__
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba_version,
        "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
        "platform": platform.platform(),
    }


def _timed(run: Callable[[], None], repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeats`` runs."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), max(statistics.median(cpus), 1e-9)


def _core_game(players: int, rng: random.Random, rules: Rules | None = None) -> None:
    """Random play (random cards, random rows) through the step engine, one action at a time."""
    state = new_game(players, rules)
    while state.phase is not Phase.OVER:
        if state.phase is Phase.DEAL:
            state = apply(state, deal_cards(players, rng)).state
        elif state.phase is Phase.CHOOSE_ROW:
            state = apply(state, ChooseRow(state.waiting_for[0], rng.randrange(4))).state
        else:
            p = state.waiting_for[0]
            state = apply(state, PlayCard(p, rng.choice(state.hands[p]))).state


ONE_ROUND = Rules(rounds=1)


def _fast_game(players: int, rng: random.Random, end_above: int = 66) -> None:
    totals = [0] * players
    while max(totals) <= end_above:
        for p, penalty in enumerate(random_rounds(players, 1, rng)):
            totals[p] += penalty


def measure(
    players: int, engine: str, hands: int, games: int, repeats: int, seed: int = 1
) -> Figure:
    """Hands and games per second of ``engine`` at a table of ``players`` (random play)."""
    py = random.Random(seed)
    rng = np.random.default_rng(seed)
    run_hands: Callable[[], None]
    run_games: Callable[[], None]
    if engine == "core":
        def run_hands() -> None:
            for _ in range(hands):
                _core_game(players, py, ONE_ROUND)

        def run_games() -> None:
            for _ in range(games):
                _core_game(players, py)
    elif engine == "fast":
        def run_hands() -> None:
            random_rounds(players, hands, py)

        def run_games() -> None:
            for _ in range(games):
                _fast_game(players, py)
    elif engine in ("numpy", "numba"):
        chunk = NUMPY_BATCH if engine == "numpy" else 65_536

        def run_hands() -> None:
            play_hands(players, hands, rng, policy="random", chunk=chunk, engine=engine)

        def run_games() -> None:
            play_games(players, games, rng, policy="random", chunk=chunk, engine=engine)
    else:
        raise BatchError(f"unknown engine {engine!r}: choose {', '.join(ENGINES)}")
    hand_wall, hand_cpu = _timed(run_hands, repeats)
    game_wall, game_cpu = _timed(run_games, repeats)
    return Figure(engine, players, hands, hands / hand_wall, hands / hand_cpu, games, games / game_wall,
                  games / game_cpu)


def first_call() -> float:
    """Seconds to compile (or load from the cache) the kernels random play uses."""
    if engine_name("auto") != "numba":
        return 0.0
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    play_hands(2, 10, rng, engine="numba")
    play_games(2, 2, rng, engine="numba")
    return time.perf_counter() - start


def sizes(engine: str, hands: int) -> tuple[int, int]:
    """(hands, games) timed per repeat: the slow reference engines get fewer, to finish soon."""
    share = {"core": 2000, "fast": 100, "numpy": 10, "numba": 1}[engine]
    count = max(20 if engine == "core" else 200, hands // share)
    return count, max(4 if engine == "core" else 20, count // 8)


def run(
    players: list[int], hands: int, repeats: int, engines: list[str] | None = None
) -> dict[str, Any]:
    """Measure every engine at every table size; the result is what ``nimmt bench --json`` prints."""
    chosen = list(engines or ENGINES)
    if "numba" in chosen and engine_name("auto") != "numba" and not K.HAVE_NUMBA:
        chosen.remove("numba")
    compile_seconds = first_call() if "numba" in chosen else 0.0
    figures = []
    for n in players:
        for engine in chosen:
            count, games = sizes(engine, hands)
            figures.append(asdict(measure(n, engine, count, games, repeats if engine != "core" else 1)))
    return {
        "machine": machine(),
        "repeats": repeats,
        "numba_first_call_seconds": round(compile_seconds, 3),
        "figures": figures,
    }


def table(result: dict[str, Any]) -> str:
    """The figures as text, with the speed-up in hands of each engine over the core's fast path and
    over the NumPy batch engine (wall clock), and over the NumPy engine in CPU time."""
    m = result["machine"]
    lines = [
        f"machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, NumPy {m['numpy']}, "
        f"Numba {m['numba'] or 'not installed'}; load average {m['load_average']}",
        f"one core, random play; medians of {result['repeats']} runs; "
        f"Numba first call (compile or cache load): {result['numba_first_call_seconds']} s",
        "",
        f"{'players':>7} {'engine':>6} {'hands':>9} {'hands/s':>12} {'hands/cpu-s':>12} "
        f"{'games/s':>11} {'games/cpu-s':>12} {'x fast':>8} {'x numpy':>8} {'x numpy cpu':>11}",
    ]
    figures = result["figures"]
    for f in figures:
        base = {g["engine"]: g for g in figures if g["players"] == f["players"]}

        def ratio(other: str, key: str = "hands_per_second", f: dict[str, Any] = f,
                  base: dict[str, Any] = base) -> str:
            if other not in base:
                return "-"
            return f"{f[key] / base[other][key]:.1f}"

        lines.append(
            f"{f['players']:>7} {f['engine']:>6} {f['hands']:>9} {f['hands_per_second']:>12,.0f} "
            f"{f['hands_per_cpu_second']:>12,.0f} {f['games_per_second']:>11,.0f} "
            f"{f['games_per_cpu_second']:>12,.0f} {ratio('fast'):>8} {ratio('numpy'):>8} "
            f"{ratio('numpy', 'hands_per_cpu_second'):>11}"
        )
    return "\n".join(lines)
