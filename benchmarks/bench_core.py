"""Speed of the rules core under random play, in one process.

(a) ``nimmt.core.fast.random_rounds``: whole rounds (hands) with random cards and random row choices.
(b) the full step engine: ``nimmt.match.play_game`` with views and ``RandomBot`` at every seat,
    which also builds the game's nimmt/1 record.
(c) the step engine alone: the actions of games played as in (b), replayed through
    ``nimmt.core.apply``, with ``nimmt.core.view`` for the acting player before each action (no
    bots, no record).

For 2, 4 and 10 players it prints hands (rounds) per second and whole games (classic end: a total
above 66) per second, the median of several repeats. Time is this process's CPU time by default,
so that other programs sharing the machine do not distort the figures; ``--wall`` uses the wall
clock instead (the same on an idle machine, since the work is single-threaded).

``--before REV`` also times the step engine of an earlier commit in the same run: ``git archive``
puts that commit's ``nimmt`` package in a temporary directory, and a child process runs this
script's (b) and (c) from it, for each table size right after this process has timed the current
code. Both draw their games from the same seeds; it prints how many times faster the step engine is
now. Usage::

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
from nimmt.core import DEFAULT_END_ABOVE, Deal, apply, new_game, view
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


def engine_steps(players: int, rng: random.Random, pool: int = 40) -> Callable[[int], int]:
    """(c): ``pool`` games played by random bots first (not timed), then replayed in turn."""
    games = []
    for _ in range(pool):
        bots = [RandomBot(random.Random(rng.random())) for _ in range(players)]
        record = play_game(bots, rng)
        games.append((len(record.rounds), list(record.actions())))

    def work(count: int) -> int:
        hands = 0
        for index in range(count):
            rounds, actions = games[index % pool]
            state = new_game(players)
            for action in actions:
                if not isinstance(action, Deal):
                    view(state, action.player)
                state = apply(state, action).state
            hands += rounds
        return hands

    return work


def engine_seed(players: int) -> int:
    """The seed of the engine's games at each table size, the same for ``--before``."""
    return 20240601 + players


def engine_rates(players: int, seconds: float, repeats: int) -> tuple[float, float]:
    """Hands per second of (b) and (c), each from its own seeded games."""
    seed = engine_seed(players)
    played = rate(engine_games(players, random.Random(seed), True), seconds, repeats)
    stepped = rate(engine_steps(players, random.Random(seed)), seconds, repeats)
    return played, stepped


def export_package(revision: str, into: str) -> None:
    """Write the ``nimmt`` package of git ``revision`` under the directory ``into``."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(
        ["git", "archive", revision, "nimmt"], cwd=root, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


# Run in a child process by --before: this script's step-engine timings, with the package that
# sys.path[0] holds (an earlier commit's) instead of the current one.
CHILD = """
import json, sys, time
tree, here, players, seconds, repeats, wall = json.loads(sys.argv[1])
sys.path[:0] = [tree, here]
import bench_core, nimmt
assert nimmt.__file__.startswith(tree), nimmt.__file__
bench_core.CLOCK = time.perf_counter if wall else time.process_time
print(json.dumps(bench_core.engine_rates(players, seconds, repeats)))
"""


def before_rates(
    tree: str, players: int, seconds: float, repeats: int, wall: bool
) -> tuple[float, float]:
    """:func:`engine_rates` of the package under ``tree``, timed in a child process."""
    here = str(Path(__file__).resolve().parent)
    settings = json.dumps([tree, here, players, seconds, repeats, wall])
    out = subprocess.run(
        [sys.executable, "-c", CHILD, settings], capture_output=True, text=True, check=True
    ).stdout
    played, stepped = json.loads(out.splitlines()[-1])
    return float(played), float(stepped)


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
    print(f"{'players':>7}  {'fast hands/s':>13}  {'fast games/s':>13}  {'engine hands/s':>15}  "
          f"{'engine games/s':>15}  {'fast/engine':>11}  {'apply+view hands/s':>18}")
    fast_four = 0.0
    now: dict[int, tuple[float, float]] = {}
    for players in PLAYERS:
        fh = rate(fast_hands(players, rng), args.seconds, args.repeats)
        fg = rate(fast_games(players, rng), args.seconds, args.repeats)
        eh, sh = now[players] = engine_rates(players, args.seconds, args.repeats)
        eg = rate(engine_games(players, rng, False), args.seconds, args.repeats)
        if players == 4:
            fast_four = fh
        print(f"{players:>7}  {fh:>13,.0f}  {fg:>13,.0f}  {eh:>15,.0f}  {eg:>15,.1f}  "
              f"{fh / eh:>10,.0f}x  {sh:>18,.0f}", flush=True)
    verdict = "meets" if fast_four >= TARGET_FAST_4 else "MISSES"
    print(f"fast path, 4 players: {fast_four:,.0f} hands/s {verdict} the target of {TARGET_FAST_4:,} hands/s")
    if args.before:
        print(f"\nstep engine now and at {args.before} (a child process), hands/s; (b) with bots and "
              "records, (c) apply+view alone")
        print(f"{'players':>7}  {'(b) now':>9}  {'(b) before':>10}  {'speed-up':>8}  "
              f"{'(c) now':>9}  {'(c) before':>10}  {'speed-up':>8}")
        with tempfile.TemporaryDirectory() as tree:
            export_package(args.before, tree)
            for players in PLAYERS:
                # The current code again, right before the earlier one: both under the same load.
                eh, sh = engine_rates(players, args.seconds, args.repeats)
                bh, bs = before_rates(tree, players, args.seconds, args.repeats, args.wall)
                print(f"{players:>7}  {eh:>9,.0f}  {bh:>10,.0f}  {eh / bh:>7,.2f}x  "
                      f"{sh:>9,.0f}  {bs:>10,.0f}  {sh / bs:>7,.2f}x", flush=True)


if __name__ == "__main__":
    main()
