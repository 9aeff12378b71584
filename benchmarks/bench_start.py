"""Start-up of the ``nimmt`` command against a bare ``python3``, and ``nimmt simulate`` against a tight C
program playing the same random games (``benchmarks/random_games.c``, compiled here with ``cc -O2``),
side by side in one run.

    .venv/bin/python benchmarks/bench_start.py                # the run in docs/speed.md
    .venv/bin/python benchmarks/bench_start.py --repeats 9 --games 50000
    .venv/bin/python benchmarks/bench_start.py --old ../main --games 2000   # another tree's start-ups beside

Every command's ``--help`` has a row too (the command's module and Typer loaded, nothing run), and a
few quick commands run whole (``--version``, ``simulate --games 1``, ``rules``, ``replay`` of a
record, a day's ``puzzle``): each one's start-up against the bare interpreter, which the issue holds
to at most 10× by CPU time. ``--old TREE`` runs another tree's (given first on ``PYTHONPATH``) in
turn with this one's. Python's bytecode is written once, before the timed runs, whatever
``PYTHONDONTWRITEBYTECODE`` says (an installed nimmt has it).

Every row is a whole process, timed by the wall clock and by its CPU time (user + system, children
included); each figure is the median of ``--repeats`` runs, the rows taken in turn so that a busy
machine slows all alike. The C program plays 4-player random games exactly as ``simulate`` plays
random seats (a uniformly random card each turn, a uniformly random row for a card below every row,
a game ends after a round with a total above 66) and prints the same totals, so both sides do the
same work; their mean penalties are printed for a look.

``--review`` measures the review command's own start instead (issue 29: every tenth of a second
outside the rollouts counts): ``nimmt replay --review --json --samples 2`` of the 4-player game of
``bench_review.py --cost`` (93 decisions: at 2 samples an option the rollouts cost little, the rest is
the command's fixed cost), beside ``replay --json`` of it and the bare interpreter, this tree and
``--old TREE`` in turn; then where the time goes, phase by phase, in one process of each tree (imports,
the first compiled kernel loaded, the players' models and views, the review kernel and its rollouts).

    taskset -c 0 .venv/bin/python benchmarks/bench_start.py --review --old /tmp/base --repeats 11
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
    """Wall seconds, CPU seconds (user + system of the child) and the output of one run of ``command``, in
    the folder of the tree on ``env``'s PYTHONPATH (``-m nimmt`` finds the package in the working folder)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True, cwd=env["PYTHONPATH"])
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


# The phases of a review's start, in one process (run with the tree's folder first on the path).
PHASES = """
import json, sys, time
clock = time.process_time
marks = [("start", clock())]
import numpy
marks.append(("NumPy imported", clock()))
import numba
marks.append(("Numba imported", clock()))
import nimmt.batch, nimmt.bots.opponents, nimmt.review as review
from nimmt.records import load
import nimmt.cli.main, nimmt.cli.replay
marks.append(("nimmt's modules imported (the CLI's and the review's)", clock()))
record = load(sys.argv[1])
from nimmt.batch.decide import card_costs
card_costs(((10,), (20,), (30,), (40,)), (45, 11), tuple(range(50, 60)), 4, True)
marks.append(("the first compiled kernel loaded from Numba's cache (Numba's own set-up)", clock()))
review.review(record, samples=2, only=set())
marks.append(("the views and the players' models of every decision", clock()))
review.review(record, samples=2, only=set())
marks.append(("... again (once loaded: the models' own cost)", clock()))
review.review(record, samples=2)
marks.append(("the review at 2 samples: its kernel loaded, the models again, the rollouts", clock()))
review.review(record, samples=2)
marks.append(("... again (once loaded)", clock()))
print(json.dumps([(name, after - before) for (_, before), (name, after) in zip(marks, marks[1:])]))
"""


def phases(tree: str, record: str, env: dict[str, str], repeats: int) -> list[tuple[str, float]]:
    """Median CPU seconds of each phase of :data:`PHASES` over ``repeats`` processes of ``tree``."""
    runs = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-c", PHASES, record], capture_output=True, text=True, check=True,
                              env={**env, "PYTHONPATH": tree}, cwd=tree)
        runs.append(json.loads(done.stdout))
    return [(name, statistics.median(run[i][1] for run in runs)) for i, (name, _) in enumerate(runs[0])]


def review_start(args: argparse.Namespace, env: dict[str, str], trees: dict[str, dict[str, str]]) -> None:
    """``--review``: see the module."""
    sys.path.insert(0, str(HERE))
    from bench_review import COST_BOTS, play

    nimmt = [sys.executable, "-m", "nimmt"]
    with tempfile.TemporaryDirectory() as folder:
        record = str(Path(folder) / "game.json")
        game, _ = play(0, 1, 128, COST_BOTS)  # bench_review.py --cost's game: 4 players, 93 decisions
        Path(record).write_text(json.dumps(game.to_json()), encoding="utf-8")
        starts = {
            "nimmt replay GAME.json --json": [*nimmt, "replay", record, "--json"],
            "nimmt replay --review --json --samples 2 GAME.json": [*nimmt, "replay", "--review", "--json",
                                                                    "--samples", "2", record],
        }
        rows = {"python3 -c pass (bare)": ([sys.executable, "-c", "pass"], env),
                **{tree + name: (command, tree_env) for name, command in starts.items()
                   for tree, tree_env in trees.items()}}
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
        for command, command_env in rows.values():  # once, not timed: bytecode written, caches warm
            timed(command, command_env)
        for _ in range(args.repeats):
            for name, (command, command_env) in rows.items():
                wall, cpu, _output = timed(command, command_env)
                times[name].append((wall, cpu))
        split = {tree: phases(tree_env["PYTHONPATH"], record, tree_env, args.repeats)
                 for tree, tree_env in trees.items()}
    median = {name: statistics.median(c for _, c in runs) for name, runs in times.items()}
    bare = median["python3 -c pass (bare)"]
    print(f"load average {os.getloadavg()[0]:.1f}; median CPU seconds of {args.repeats} runs, the rows in turn; "
          f"bare python3 {bare:.3f} s")
    old = " old |" if args.old is not None else ""
    print(f"| process |{old} this |\n|---|" + "---:|" * (2 if args.old is not None else 1))
    for name in starts:
        before = f" {median['old ' + name]:.3f} |" if args.old is not None else ""
        print(f"| `{name}` |{before} {median[name]:.3f} |")
    print(f"\nphases, one process each, median CPU seconds of {args.repeats}:")
    print(f"| phase |{old} this |\n|---|" + "---:|" * (2 if args.old is not None else 1))
    for i, (name, seconds) in enumerate(split[""]):
        before = f" {split['old '][i][1]:.3f} |" if args.old is not None else ""
        print(f"| {name} |{before} {seconds:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--old", type=Path, help="another tree (a checkout of main, say): its start-ups too, "
                                                 "taken in turn with this one's")
    parser.add_argument("--review", action="store_true", help="the review command's own start (see the module)")
    args = parser.parse_args()
    cc = shutil.which("cc")
    if cc is None:
        sys.exit("bench_start: needs a C compiler (cc) for the reference program")
    nimmt = [sys.executable, "-m", "nimmt"]
    # Python as installed: its modules' bytecode written once and read after (PYTHONDONTWRITEBYTECODE
    # would compile nimmt's modules again in every process).
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "PYTHONPATH": str(HERE.parent)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    trees = {"": env}
    if args.old is not None:
        trees["old "] = {**env, "PYTHONPATH": str(args.old.resolve())}
    if args.review:
        review_start(args, env, trees)
        return
    with tempfile.TemporaryDirectory() as folder:
        program = str(Path(folder) / "random_games")
        subprocess.run([cc, "-O2", "-o", program, str(HERE / "random_games.c")], check=True)
        records = Path(folder) / "records"
        subprocess.run([*nimmt, "simulate", "--games", "1", "--bots", "heuristic", "--seed", "1", "--json",
                        "--records", str(records)], check=True, env=env, capture_output=True, cwd=HERE.parent)
        record = str(next(records.iterdir()))
        starts = {
            "nimmt --help": [*nimmt, "--help"],
            "nimmt --version": [*nimmt, "--version"],
            "nimmt simulate --games 1 --json": [*nimmt, "simulate", "--games", "1", "--seed", "1", "--json"],
            "nimmt rules --lang en": [*nimmt, "rules", "--lang", "en"],
            "nimmt replay GAME.json --json": [*nimmt, "replay", record, "--json"],
            "nimmt puzzle --day 2026-12-06 --json": [*nimmt, "puzzle", "--day", "2026-12-06", "--json"],
            **{f"nimmt {name} --help": [*nimmt, name, "--help"] for name in COMMANDS},
        }
        big = {
            f"nimmt simulate --games {args.games} --bots random --json": [
                *nimmt, "simulate", "--games", str(args.games), "--players", "4", "--bots", "random", "--seed", "1",
                "--json"],
            f"C reference, {args.games} games": [program, str(args.games), "4", "1"],
        }
        rows = {"python3 -c pass (bare)": ([sys.executable, "-c", "pass"], env),
                **{tree + name: (command, tree_env) for name, command in starts.items()
                   for tree, tree_env in trees.items()},
                **{name: (command, env) for name, command in big.items()}}
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
        outputs: dict[str, str] = {}
        for command, command_env in rows.values():  # once, not timed: the bytecode of what it loads written
            timed(command, command_env)
        for _ in range(args.repeats):
            for name, (command, command_env) in rows.items():
                wall, cpu, outputs[name] = timed(command, command_env)
                times[name].append((wall, cpu))
    median = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
              for name, runs in times.items()}
    bare = median["python3 -c pass (bare)"]
    print(f"load average {os.getloadavg()[0]:.1f}; median of {args.repeats}; × bare python3 (wall, CPU); "
          f"bare: {bare[0]:.3f} s wall, {bare[1]:.3f} s CPU")
    old = "| old CPU s | old × bare (CPU) " if args.old is not None else ""
    print(f"| process {old}| wall s | CPU s | × bare (wall) | × bare (CPU) |")
    print("|---" + "|---:" * (6 if args.old is not None else 4) + "|")
    for name in starts:
        wall, cpu = median[name]
        before = (f"| {median['old ' + name][1]:.3f} | {median['old ' + name][1] / bare[1]:.1f}× "
                  if args.old is not None else "")
        print(f"| `{name}` {before}| {wall:.3f} | {cpu:.3f} | {wall / bare[0]:.1f}× | {cpu / bare[1]:.1f}× |")
    ours, theirs = (median[name] for name in big)
    print("\n| run | wall s | CPU s | speed of C (wall) | speed of C (CPU) |\n|---|---:|---:|---:|---:|")
    for name in big:
        wall, cpu = median[name]
        print(f"| {name} | {wall:.3f} | {cpu:.3f} | {theirs[0] / wall:.2f}× | {theirs[1] / cpu:.2f}× |")
    simulated, reference = (json.loads(outputs[name]) for name in big)
    print(f"\nmean penalty per game: simulate {[round(x, 2) for x in simulated['mean_penalty_per_game']]}, "
          f"C {[round(t / reference['games'], 2) for t in reference['totals']]}; rounds per game: simulate "
          f"{simulated['rounds'] / simulated['games']:.3f}, C {reference['rounds'] / reference['games']:.3f}")
    print(f"whole simulate process at {theirs[1] / ours[1]:.2f}× the C program's speed by CPU time "
          f"({theirs[0] / ours[0]:.2f}× by the wall clock)")


if __name__ == "__main__":
    main()
