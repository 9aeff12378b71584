"""Whole-process speed of ``nimmt simulate`` against a naive pure-Python referee, and the vector
environment's steps per second, measured side by side in one run.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_simulate.py            # the run in docs/speed.md
    .venv/bin/python benchmarks/bench_simulate.py --games 50000 --repeats 5 --jobs 2

What is timed (wall clock of the whole process, start-up included, and its CPU time, children
included; the median of ``--repeats`` runs, taken in turn so that a busy machine slows all alike):

* ``naive``: the referee written below in plain Python (lists, ``random``), in a process of its own,
  playing ``--naive-games`` random 4-player games;
* ``simulate random``: ``nimmt simulate --games GAMES --players 4 --bots random,random,random,random
  --json`` (the user's obvious command) and the same with ``--bots random`` (and ``--jobs JOBS``):
  NumPy alone plays tables of random seats (``nimmt.cli._random_tables``);
* ``simulate random, Numba``: the same with ``NIMMT_BATCH_ENGINE=numba``, the compiled kernels that
  played random seats before (importing Numba and loading a cached kernel first);
* ``start-up``: ``nimmt simulate --games 1 --bots random --json``, the whole process around one game;
* ``simulate heuristic``: ``nimmt simulate --games HEURISTIC --bots heuristic --json``, with
  ``--jobs 1`` and with ``--jobs JOBS``;
* ``phases``: what a ``simulate`` process spends before its games, each a whole process of its own:
  the interpreter alone, importing Typer with the pydantic it coerces options with, importing
  NumPy, and ``simulate --games 1``;
* ``cold``: the first ``simulate`` of each kind with an empty Numba cache (``NUMBA_CACHE_DIR`` set
  to a new folder), which compiles the kernels; later runs load them from the cache;
* ``vector env``: :class:`nimmt.envs.NimmtVectorEnv` with ``--tables`` tables at 4 players, random
  legal actions, in this process on one core (steps of the learning seat per second).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HEADS = [0] + [7 if c == 55 else 5 if c % 11 == 0 else 3 if c % 10 == 0 else 2 if c % 5 == 0 else 1
               for c in range(1, 105)]


def naive_game(rng: random.Random, players: int = 4) -> list[int]:
    """One whole random game as a person would first write it: rounds until a total is above 66."""
    totals = [0] * players
    while max(totals) <= 66:
        deck = list(range(1, 105))
        rng.shuffle(deck)
        rows = [[deck[i]] for i in range(4)]
        hands = [deck[4 + 10 * p : 14 + 10 * p] for p in range(players)]
        for _ in range(10):
            plays = sorted((hand.pop(rng.randrange(len(hand))), p) for p, hand in enumerate(hands))
            for card, p in plays:
                best = -1
                for i, row in enumerate(rows):
                    if row[-1] < card and (best < 0 or row[-1] > rows[best][-1]):
                        best = i
                if best < 0:  # below every row: a random row
                    best = rng.randrange(4)
                    totals[p] += sum(HEADS[c] for c in rows[best])
                    rows[best] = [card]
                elif len(rows[best]) == 5:  # the sixth card takes the row
                    totals[p] += sum(HEADS[c] for c in rows[best])
                    rows[best] = [card]
                else:
                    rows[best].append(card)
    return totals


def naive_main(games: int) -> None:
    rng = random.Random(1)
    sums = [0] * 4
    for _ in range(games):
        for p, total in enumerate(naive_game(rng)):
            sums[p] += total
    print(json.dumps({"games": games, "mean_penalty_per_game": [s / games for s in sums]}))


def nimmt_command() -> list[str]:
    script = Path(sys.executable).with_name("nimmt")
    return [str(script)] if script.exists() else [sys.executable, "-m", "nimmt"]


def timed(command: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its children, stdout) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(list(command), capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def env_steps_per_second(tables: int, steps: int) -> float:
    """Steps of the learning seat per CPU-second, random legal actions (drawn here, timed too)."""
    import numpy as np

    from nimmt.envs import NimmtVectorEnv

    env = NimmtVectorEnv(num_envs=tables, players=4, opponents="random")
    observation, _ = env.reset(seed=1)
    rng = np.random.default_rng(2)
    done_steps = 0
    restarting = np.zeros(tables, bool)
    started = time.process_time()
    while done_steps < steps:
        mask = observation["action_mask"]
        actions = (rng.random(mask.shape) + mask).argmax(axis=1)  # a random legal action at every table
        observation, _, terminated, _, _ = env.step(actions)
        done_steps += tables - int(restarting.sum())  # a table starting a new game takes no action
        restarting = terminated
    return done_steps / (time.process_time() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50_000, help="random 4-player games per simulate run")
    parser.add_argument("--heuristic", type=int, default=50_000, help="heuristic 4-player games per simulate run")
    parser.add_argument("--naive-games", type=int, default=10_000, help="games per naive referee run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2, help="--jobs for the second random and heuristic runs")
    parser.add_argument("--tables", type=int, default=1024, help="tables of the vector environment")
    parser.add_argument("--env-steps", type=int, default=1_000_000, help="learning-seat steps timed")
    parser.add_argument("--naive", type=int, help=argparse.SUPPRESS)  # run the naive referee here
    args = parser.parse_args()
    if args.naive is not None:
        naive_main(args.naive)
        return 0

    nimmt = nimmt_command()
    random_run = [*nimmt, "simulate", "--games", str(args.games), "--players", "4", "--bots", "random",
                  "--seed", "1", "--json"]
    listed_run = [*nimmt, "simulate", "--games", str(args.games), "--players", "4", "--bots",
                  "random,random,random,random", "--seed", "1", "--json"]
    start_run = [*nimmt, "simulate", "--games", "1", "--players", "4", "--bots", "random", "--seed", "1", "--json"]
    heuristic_run = [*nimmt, "simulate", "--games", str(args.heuristic), "--players", "4", "--bots", "heuristic",
                     "--seed", "1", "--json"]
    naive_run = [sys.executable, __file__, "--naive", str(args.naive_games)]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")

    numba_env = {**os.environ, "NIMMT_BATCH_ENGINE": "numba"}
    cache = tempfile.mkdtemp(prefix="nimmt-numba-cold-")
    try:
        cold_env = {**numba_env, "NUMBA_CACHE_DIR": cache}
        cold = {"random": timed(random_run, cold_env), "heuristic": timed(heuristic_run, cold_env)}
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    runs: dict[str, tuple[list[str], int, dict[str, str] | None]] = {
        "naive referee": (naive_run, args.naive_games, None),
        "simulate --bots random,random,...": (listed_run, args.games, None),
        "simulate --bots random": (random_run, args.games, None),
        f"simulate --bots random --jobs {args.jobs}": ([*random_run, "--jobs", str(args.jobs)], args.games, None),
        "simulate random, Numba kernels": (random_run, args.games, numba_env),
        "simulate heuristic --jobs 1": ([*heuristic_run, "--jobs", "1"], args.heuristic, None),
        f"simulate heuristic --jobs {args.jobs}": ([*heuristic_run, "--jobs", str(args.jobs)], args.heuristic, None),
    }
    timed(random_run, numba_env)  # fills the ordinary cache, if this is the first run here
    timed(heuristic_run)
    phases: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import typer (and pydantic)": [sys.executable, "-c", "import typer, typer._adapters"],
        "import numpy": [sys.executable, "-c", "import numpy"],
        "simulate --games 1 (whole start-up)": start_run,
    }
    walls: dict[str, list[float]] = {name: [] for name in [*runs, *phases]}
    cpus: dict[str, list[float]] = {name: [] for name in [*runs, *phases]}
    for _ in range(args.repeats):
        for name, (command, _games, env) in runs.items():
            wall, cpu, _out = timed(command, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
        for name, command in phases.items():
            wall, cpu, _out = timed(command)
            walls[name].append(wall)
            cpus[name].append(cpu)

    print(f"\nWhole process, median of {args.repeats} (start-up included), 4 players:\n")
    print(f"| {'run':<34} | {'games':>7} | {'wall s':>7} | {'games/s':>9} | {'games/cpu-s':>11} | "
          f"{'x naive (wall)':>14} | {'x naive (cpu)':>13} |")
    print(f"|{'-' * 36}|{'-' * 9}:|{'-' * 9}:|{'-' * 11}:|{'-' * 13}:|{'-' * 16}:|{'-' * 15}:|")
    naive_wall = args.naive_games / statistics.median(walls["naive referee"])
    naive_cpu = args.naive_games / statistics.median(cpus["naive referee"])
    for name, (_command, games, _env) in runs.items():
        wall = statistics.median(walls[name])
        cpu = statistics.median(cpus[name])
        print(f"| {name:<34} | {games:>7,} | {wall:>7.2f} | {games / wall:>9,.0f} | {games / cpu:>11,.0f} | "
              f"{games / wall / naive_wall:>13.1f}x | {games / cpu / naive_cpu:>12.1f}x |")
    print("\nStart-up, phase by phase (whole processes, median wall and CPU seconds):")
    for name in phases:
        print(f"  {name:<36} {statistics.median(walls[name]):.3f} s wall, {statistics.median(cpus[name]):.3f} s CPU")
    print("\nCold start of the compiled kernels (NIMMT_BATCH_ENGINE=numba, an empty Numba cache):")
    for name, (wall, cpu, _out) in cold.items():
        games = args.games if name == "random" else args.heuristic
        print(f"  simulate {name}: {wall:.2f} s wall, {cpu:.2f} s CPU, {games / wall:,.0f} games/s")

    try:
        rate = env_steps_per_second(args.tables, args.env_steps)
    except ImportError as error:
        print(f"\nvector env: not measured ({error})")
    else:
        print(f"\nvector env: {rate:,.0f} agent steps per CPU-second ({args.tables} tables, 4 players, "
              f"random legal actions, one core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
