"""Speed of the rules core under random play, in one process.

(a) ``nimmt.core.fast.random_rounds``: whole rounds (hands) with random cards and random row choices.
(b) the full step engine: ``nimmt.match.play_game`` with views and ``RandomBot`` at every seat,
    which also builds the game's nimmt/1 record.

For 2, 4 and 10 players it prints hands (rounds) per second and whole games (classic end: a total
above 66) per second, the median of several repeats. Time is this process's CPU time by default,
so that other programs sharing the machine do not distort the figures; ``--wall`` uses the wall
clock instead (the same on an idle machine, since the work is single-threaded).

``--before REV`` also times the step engine of an earlier commit in the same run: ``git archive``
puts that commit's ``nimmt`` package in a temporary directory, and a child process runs this
script's (b) from it, for each table size right after this process has timed the current code. Both
draw their games from the same seed; it prints how many times faster the step engine is now. Usage::

    .venv/bin/python benchmarks/bench_core.py [--repeats 5] [--seconds 0.5] [--wall] [--before REV]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from nimmt.bots import RandomBot
from nimmt.core import DEFAULT_END_ABOVE
from nimmt.core.fast import random_rounds
from nimmt.match import play_game

PLAYERS = (2, 4, 10)
TARGET_FAST_4 = 22_000  # hands per second, fast path, 4 players (the target)


CLOCK: Callable[[], float] = time.process_time


def rate(work: Callable[[int], int], seconds: float, repeats: int) -> float:
    """Median over ``repeats`` of units per second; ``work(n)`` does a batch and returns its units."""
    clock = CLOCK
    batch = 1
    while True:  # grow the batch until one takes about ``seconds``
        started = clock()
        work(batch)
        elapsed = clock() - started
        if elapsed >= seconds / 4:
            break
        batch *= 2
    batch = max(1, int(batch * seconds / max(elapsed, 1e-9)))
    rates = []
    for _ in range(repeats):
        started = clock()
        units = work(batch)
        rates.append(units / (clock() - started))
    return statistics.median(rates)


def fast_hands(players: int, rng: random.Random) -> Callable[[int], int]:
    def work(count: int) -> int:
        random_rounds(players, count, rng)
        return count

    return work


def fast_games(players: int, rng: random.Random) -> Callable[[int], int]:
    """Whole games on the fast path: rounds until a total is above 66."""

    def work(count: int) -> int:
        for _ in range(count):
            totals = [0] * players
            while max(totals) <= DEFAULT_END_ABOVE:
                for seat, penalty in enumerate(random_rounds(players, 1, rng)):
                    totals[seat] += penalty
        return count

    return work


def engine_games(players: int, rng: random.Random, count_rounds: bool) -> Callable[[int], int]:
    def work(count: int) -> int:
        hands = 0
        for _ in range(count):
            bots = [RandomBot(random.Random(rng.random())) for _ in range(players)]
            record = play_game(bots, rng)
            hands += len(record.rounds)
        return hands if count_rounds else count

    return work


def engine_seed(players: int) -> int:
    """The seed of the engine's games at each table size, the same for ``--before``."""
    return 20240601 + players


def export_package(revision: str, into: str) -> None:
    """Write the ``nimmt`` package of git ``revision`` under the directory ``into``."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(
        ["git", "archive", revision, "nimmt"], cwd=root, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


# Run in a child process by --before: this script's step-engine timing, with the package that
# sys.path[0] holds (an earlier commit's) instead of the current one.
CHILD = """
import json, random, sys
tree, here, players, seconds, repeats, wall, seed = json.loads(sys.argv[1])
sys.path[:0] = [tree, here]
import bench_core, nimmt, time
assert nimmt.__file__.startswith(tree), nimmt.__file__
bench_core.CLOCK = time.perf_counter if wall else time.process_time
print(bench_core.rate(bench_core.engine_games(players, random.Random(seed), True), seconds, repeats))
"""


def before_rate(tree: str, players: int, seconds: float, repeats: int, wall: bool) -> float:
    """Engine hands per second of the package under ``tree``, timed in a child process."""
    here = str(Path(__file__).resolve().parent)
    settings = json.dumps([tree, here, players, seconds, repeats, wall, engine_seed(players)])
    out = subprocess.run(
        [sys.executable, "-c", CHILD, settings], capture_output=True, text=True, check=True
    ).stdout
    return float(out.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one timed repeat")
    parser.add_argument("--wall", action="store_true", help="time with the wall clock, not CPU time")
    parser.add_argument("--before", metavar="REV", help="also time the step engine of git revision REV")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    rng = random.Random(20240601)
    clock = "wall-clock" if args.wall else "CPU"
    print(f"random play, one process, {clock} time, median of {args.repeats} repeats of ~{args.seconds:g} s")
    header = (f"{'players':>7}  {'fast hands/s':>13}  {'fast games/s':>13}  {'engine hands/s':>15}  "
              f"{'engine games/s':>15}  {'fast/engine':>11}")
    if args.before:
        header += f"  {'before hands/s':>15}  {'now/before':>10}"
    print(header)
    fast_four = 0.0
    with tempfile.TemporaryDirectory() as tree:
        if args.before:
            export_package(args.before, tree)
        for players in PLAYERS:
            fh = rate(fast_hands(players, rng), args.seconds, args.repeats)
            fg = rate(fast_games(players, rng), args.seconds, args.repeats)
            eh = rate(
                engine_games(players, random.Random(engine_seed(players)), True), args.seconds,
                args.repeats,
            )
            eg = rate(engine_games(players, rng, False), args.seconds, args.repeats)
            if players == 4:
                fast_four = fh
            line = f"{players:>7}  {fh:>13,.0f}  {fg:>13,.0f}  {eh:>15,.0f}  {eg:>15,.1f}  {fh / eh:>10,.0f}x"
            if args.before:
                bh = before_rate(tree, players, args.seconds, args.repeats, args.wall)
                line += f"  {bh:>15,.0f}  {eh / bh:>9,.2f}x"
            print(line, flush=True)
    verdict = "meets" if fast_four >= TARGET_FAST_4 else "MISSES"
    print(f"fast path, 4 players: {fast_four:,.0f} hands/s {verdict} the target of {TARGET_FAST_4:,} hands/s")


if __name__ == "__main__":
    main()
