"""Start-up of the ``nimmt`` command against a bare ``python3``, and ``nimmt simulate`` against a tight C
program playing the same random games (``benchmarks/random_games.c``, compiled here with ``cc -O2``),
side by side in one run.

    .venv/bin/python benchmarks/bench_start.py                # the run in docs/speed.md
    .venv/bin/python benchmarks/bench_start.py --repeats 9 --games 50000

Every command's ``--help`` has a row too (the command's module and Typer loaded, nothing run): its
start-up against the bare interpreter.

Every row is a whole process, timed by the wall clock and by its CPU time (user + system, children
included); each figure is the median of ``--repeats`` runs, the rows taken in turn so that a busy
machine slows all alike. The C program plays 4-player random games exactly as ``simulate`` plays
random seats (a uniformly random card each turn, a uniformly random row for a card below every row,
a game ends after a round with a total above 66) and prints the same totals, so both sides do the
same work; their mean penalties are printed for a look.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from nimmt.cli._help import COMMANDS  # noqa: E402  # the command list alone: nothing else is loaded


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the child) and the output of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--games", type=int, default=50_000)
    args = parser.parse_args()
    cc = shutil.which("cc")
    if cc is None:
        sys.exit("bench_start: needs a C compiler (cc) for the reference program")
    nimmt = [sys.executable, "-m", "nimmt"]
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as folder:
        program = str(Path(folder) / "random_games")
        subprocess.run([cc, "-O2", "-o", program, str(HERE / "random_games.c")], check=True)
        rows = {
            "python3 -c pass (bare)": [sys.executable, "-c", "pass"],
            "nimmt --help": [*nimmt, "--help"],
            "nimmt simulate --games 1 --bots random --json": [*nimmt, "simulate", "--games", "1", "--bots", "random",
                                                              "--seed", "1", "--json"],
            **{f"nimmt {name} --help": [*nimmt, name, "--help"] for name in COMMANDS},
            f"nimmt simulate --games {args.games} --bots random --json": [
                *nimmt, "simulate", "--games", str(args.games), "--players", "4", "--bots", "random", "--seed", "1",
                "--json"],
            f"C reference, {args.games} games": [program, str(args.games), "4", "1"],
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
        outputs: dict[str, str] = {}
        for _ in range(args.repeats):
            for name, command in rows.items():
                wall, cpu, outputs[name] = timed(command, env)
                times[name].append((wall, cpu))
    median = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
              for name, runs in times.items()}
    bare = median["python3 -c pass (bare)"]
    print(f"load average {os.getloadavg()[0]:.1f}; median of {args.repeats}; × bare python3 (wall, CPU)")
    print("| process | wall s | CPU s | × bare (wall) | × bare (CPU) |\n|---|---:|---:|---:|---:|")
    starts = list(rows)[:-2]  # the start-ups; the last two rows are the long run and the C program
    for name in starts:
        wall, cpu = median[name]
        print(f"| `{name}` | {wall:.3f} | {cpu:.3f} | {wall / bare[0]:.1f}× | {cpu / bare[1]:.1f}× |")
    big = [name for name in rows if name not in starts]
    ours, theirs = median[big[0]], median[big[1]]
    print("\n| run | wall s | CPU s | speed of C (wall) | speed of C (CPU) |\n|---|---:|---:|---:|---:|")
    for name in big:
        wall, cpu = median[name]
        print(f"| {name} | {wall:.3f} | {cpu:.3f} | {theirs[0] / wall:.2f}× | {theirs[1] / cpu:.2f}× |")
    simulated = json.loads(outputs[big[0]])
    reference = json.loads(outputs[big[1]])
    print(f"\nmean penalty per game: simulate {[round(x, 2) for x in simulated['mean_penalty_per_game']]}, "
          f"C {[round(t / reference['games'], 2) for t in reference['totals']]}; rounds per game: simulate "
          f"{simulated['rounds'] / simulated['games']:.3f}, C {reference['rounds'] / reference['games']:.3f}")
    print(f"whole simulate process at {theirs[1] / ours[1]:.2f}× the C program's speed by CPU time "
          f"({theirs[0] / ours[0]:.2f}× by the wall clock)")


if __name__ == "__main__":
    main()
