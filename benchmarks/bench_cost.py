"""The cost of a site, unit by unit (``docs/deploy/cost.md``): CPU per bot decision of each level, per
game reviewed, per person's action, and what 1,000, 10,000 and 100,000 people at once need from them.

    .venv/bin/python benchmarks/bench_cost.py                     # every part: about 3 minutes of 2 cores
    .venv/bin/python benchmarks/bench_cost.py --no-load --json cost.json
    .venv/bin/python benchmarks/bench_cost.py --load-json load.json   # a person's action from a load.py run
    taskset -c 0 .venv/bin/python benchmarks/bench_cost.py --review-only --repeats 5   # 2. and the sizing alone

1. **Bot decisions.** Seeded 4-player games in this process, each decision of the measured seats
   timed with ``time.process_time()`` (the bot's own CPU, as the event loop spends it for the quick
   bots and a worker for the others, its pickling between processes not counted): every seat of the
   level for ``random``, ``beginner``, ``heuristic`` and ``learned``; one seat among three
   ``heuristic`` for ``montecarlo`` and ``expert``, made as the server makes them (``make_bot``: the
   expert's 1 s budget by the wall clock), its first ``--slow-decisions`` decisions timed (then a
   heuristic plays the seat, so that a run stays short); and ``expert:cpu``, the expert with its budget
   counted on the CPU clock: what it spends on a core of its own.
2. **A game's review.** The 4-player game of ``benchmarks/bench_review.py --cost`` (game 0, seed 1:
   ``expert`` with 128 samples an option on the CPU clock, ``heuristic``, ``beginner``, ``random``):
   ``nimmt replay --review --json`` of its record as a whole process (the issue's measure; median of
   ``--repeats``, CPU = user + system), and ``nimmt.review.review`` of the same record in this
   process once its kernels are loaded (what a server's worker spends a game), per game and per
   decision reviewed.
3. **A person's action** (unless ``--no-load``): ``benchmarks/load.py --players N --seconds S --json``,
   one ``nimmt serve`` on SQLite, people at tables of four acting 2 s (±50 %) after they are asked:
   the server's CPU per action, the actions a second a person makes at that pace, p50 and p99.
   ``--load-json FILE`` reads those figures from a run's last line instead.

Then the sizing: tables of four people, a turn every ``--turn-seconds`` (default 8: people think,
and the cards are revealed one by one) and every game reviewed; the arithmetic printed line by line.
PostgreSQL's, Redis's and nginx's CPU per action are not measured here: the figures of the cluster
runs in ``docs/deploy/README.md`` (``load.py --cluster``) are given as constants below.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from nimmt.bots import Bot, make_bot  # noqa: E402
from nimmt.bots.expert import ExpertBot  # noqa: E402
from nimmt.core import ChooseRow, PlayCard, View  # noqa: E402
from nimmt.match import play_game  # noqa: E402
from nimmt.records import GameRecord  # noqa: E402

QUICK = ("random", "beginner", "heuristic", "learned")  # every seat of the level
SLOW = ("montecarlo", "expert", "expert:cpu")  # one seat among three heuristic ones
# expert:cpu: the expert with its budget on the CPU clock, what it spends on a core of its own (the
# server's expert counts the wall clock: on a busy machine it gets less CPU in its second)
COST_BOTS = ("expert", "heuristic", "beginner", "random")  # bench_review.py --cost's game
# Measured apart, two processes on PostgreSQL and Redis behind nginx (docs/deploy/README.md, the cluster
# runs of load.py): CPU per person's action of each, the highest of the runs.
CLUSTER_MS = {"nginx": 0.16, "postgresql": 0.14, "redis": 0.04}
CLUSTER_PROCESS_MS = 1.51  # the nimmt processes' own CPU per action in those runs (against 0.87-0.97 for one)
GROUPED_APPENDS = 10_500  # appends a second one PostgreSQL took, grouped (docs/deploy/README.md)
LOOP_SHARE = 0.5  # an event loop kept at half a core: its p99 stays low (docs/deploy/README.md, Load)
ROUNDS = 4.1  # rounds in a 4-player game, on average (random play: 4.10, docs/speed.md; people's games alike)


class Timed(Bot):
    """A bot whose decisions are timed (CPU of this process); past ``most`` of them, ``then`` decides."""

    name = "timed"

    def __init__(self, bot: Bot, most: int | None = None, then: Bot | None = None) -> None:
        self.bot, self.most, self.then = bot, most, then
        self.seconds: list[float] = []
        self.walls: list[float] = []

    def choose_card(self, view: View) -> int:  # pragma: no cover - act is what play_game calls
        raise NotImplementedError

    def choose_row(self, view: View) -> int:  # pragma: no cover
        raise NotImplementedError

    def act(self, view: View) -> PlayCard | ChooseRow:
        if self.most is not None and len(self.seconds) >= self.most and self.then is not None:
            return self.then.act(view)
        start, wall = time.process_time(), time.perf_counter()
        action = self.bot.act(view)
        self.seconds.append(time.process_time() - start)
        self.walls.append(time.perf_counter() - wall)
        return action


def bot_decisions(level: str, games: int, slow_decisions: int, seed: int) -> dict[str, Any]:
    """CPU per decision of ``level``, over seeded 4-player games."""
    seconds: list[float] = []
    walls: list[float] = []
    started = time.perf_counter()
    if level in QUICK:  # one game first, untimed: what the level loads on its first decision, loaded
        play_game([make_bot(level, random.Random(seat)) for seat in range(4)], random.Random(seed))
    for game in range(games):
        rng = random.Random(f"cost:{seed}:{level}:{game}")
        if level in SLOW:
            bot = (ExpertBot(random.Random(rng.getrandbits(64)), clock="cpu") if level == "expert:cpu"
                   else make_bot(level, random.Random(rng.getrandbits(64))))
            timed = [Timed(bot, slow_decisions + 1,
                           make_bot("heuristic", random.Random(rng.getrandbits(64))))]
            seats: list[Bot] = [*timed, *(make_bot("heuristic", random.Random(rng.getrandbits(64))) for _ in range(3))]
        else:
            timed = [Timed(make_bot(level, random.Random(rng.getrandbits(64)))) for _ in range(4)]
            seats = list(timed)
        play_game(seats, random.Random(rng.getrandbits(64)))
        first = 1 if level in SLOW and game == 0 else 0  # a slow bot's first decision loads its kernels
        seconds += [s for bot in timed for s in bot.seconds[first:]]
        walls += [s for bot in timed for s in bot.walls[first:]]
    return {"level": level, "decisions": len(seconds), "mean_ms": 1000 * statistics.fmean(seconds),
            "median_ms": 1000 * statistics.median(seconds), "max_ms": 1000 * max(seconds),
            "wall_mean_ms": 1000 * statistics.fmean(walls), "wall_s": time.perf_counter() - started}


def cost_game() -> tuple[GameRecord, list[str]]:
    """bench_review.py's ``play(0, 1, 128, COST_BOTS)``: the same seeded game, the expert on a fixed
    count of samples (so that the game does not depend on the machine's speed)."""
    order, rng = list(COST_BOTS), random.Random("1:0")
    bots = [ExpertBot(random.Random(rng.getrandbits(64)), time_budget=3600.0, samples=128, clock="cpu")
            if name == "expert" else make_bot(name, random.Random(rng.getrandbits(64))) for name in order]
    return play_game(bots, random.Random(rng.getrandbits(64)), names=order), order


def child_cpu(command: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, capture_output=True, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def review_cost(repeats: int) -> dict[str, Any]:
    from nimmt.review import review

    record, order = cost_game()
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "NUMBA_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.json"
        path.write_text(record.dumps())
        command = [sys.executable, "-m", "nimmt", "replay", "--review", "--json", str(path)]
        child_cpu(command, env)  # once untimed: bytecode and the kernels' cache read once
        bare = [sys.executable, "-m", "nimmt", "replay", "--json", str(path)]
        whole, replay_only = [], []
        for _ in range(repeats):
            whole.append(child_cpu(command, env))
            replay_only.append(child_cpu(bare, env))
    review(record, players=[0], rounds=[1])  # the kernels loaded, as in a worker that has started
    inside = []
    for _ in range(repeats):
        start = time.process_time()
        done = review(record)
        inside.append(time.process_time() - start)
    decisions = len(done.decisions)
    return {"bots": order, "decisions": decisions, "rounds": len(record.rounds),
            "process_cpu_s": statistics.median(whole), "replay_without_review_cpu_s": statistics.median(replay_only),
            "in_process_cpu_s": statistics.median(inside),
            "per_decision_ms": 1000 * statistics.median(inside) / decisions}


def load_figures(players: int, seconds: float) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(HERE / "load.py"), "--players", str(players), "--seconds",
                           str(seconds), "--json"], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def person_action(figures: dict[str, Any]) -> dict[str, Any]:
    latency = figures.get("latency_ms", {})
    return {"cpu_ms": figures["server_cpu_ms_per_action"], "actions_per_second": figures["actions_per_second"],
            "players": figures.get("players_held"), "p50_ms": latency.get("p50"), "p99_ms": latency.get("p99"),
            "load_average": figures.get("load_average")}


def sizing(people: int, action_ms: float, review_ms: float, per_turn: float, turn_seconds: float) -> list[str]:
    """What ``people`` at once need, line by line: ``review_ms`` of review a decision, ``per_turn``
    decisions a person a turn (a card, and now and then a row)."""
    tables = people / 4
    actions = people * per_turn / turn_seconds
    loop_cores = actions * action_ms / 1000
    # Two processes at least (a spare behind nginx); past one, each costs the cluster's figure an action.
    processes = max(2, math.ceil(actions * max(action_ms, CLUSTER_PROCESS_MS) / 1000 / LOOP_SHARE))
    game_seconds = ROUNDS * 10 * turn_seconds
    games = tables / game_seconds
    review_cores = actions * review_ms / 1000
    cluster_ms = CLUSTER_PROCESS_MS + sum(CLUSTER_MS.values())
    cluster_cores = actions * cluster_ms / 1000
    pg_cores, redis_cores = (actions * CLUSTER_MS[name] / 1000 for name in ("postgresql", "redis"))
    total = actions * CLUSTER_PROCESS_MS / 1000 + review_cores + sum(actions * ms / 1000 for ms in CLUSTER_MS.values())
    return [
        f"{people:,} people: {people:,} x {per_turn:.3f} decisions a turn / {turn_seconds:g} s = {actions:,.1f} "
        f"actions/s; {tables:,.0f} tables, a game of {ROUNDS} rounds every {game_seconds / 60:.1f} min at each",
        f"  event loops: {actions:,.1f} x {action_ms:.2f} ms = {loop_cores:.2f} cores in one process; "
        f"{processes} processes, each at most {LOOP_SHARE:.0%} busy at {CLUSTER_PROCESS_MS} ms an action; "
        f"with nginx, PostgreSQL and Redis {cluster_ms:.2f} ms an action = {cluster_cores:.2f} cores",
        f"  reviews: {actions:,.1f} decisions/s x {review_ms:.1f} ms = {review_cores:.1f} cores "
        f"({games:.2f} games/s)",
        f"  PostgreSQL: {actions:,.1f} appends/s ({actions / GROUPED_APPENDS:.0%} of the {GROUPED_APPENDS:,} "
        "measured), "
        f"{pg_cores:.2f} cores; Redis: {redis_cores:.2f} cores; in all about {total:.1f} cores",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games per quick level")
    parser.add_argument("--slow-games", type=int, default=1, help="games per slow level (montecarlo, expert)")
    parser.add_argument("--slow-decisions", type=int, default=20, help="decisions timed per slow level")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the review, each way")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-load", action="store_true", help="no load.py run")
    parser.add_argument("--load-json", type=Path, help="a load.py --json run's figures (its last line)")
    parser.add_argument("--load-players", type=int, default=200)
    parser.add_argument("--load-seconds", type=float, default=45.0)
    parser.add_argument("--turn-seconds", type=float, default=8.0, help="a turn of people, for the sizing")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--review-only", action="store_true",
                        help="only the review (2.) and the sizing, a person's action at the cluster's figure")
    args = parser.parse_args()
    started = time.process_time()
    figures: dict[str, Any] = {"load_average_start": os.getloadavg()[0]}
    figures["bots"] = [] if args.review_only else [
        bot_decisions(level, args.games, args.slow_decisions, args.seed) for level in QUICK] + [
        bot_decisions(level, args.slow_games, args.slow_decisions, args.seed) for level in SLOW]
    print(f"load average {os.getloadavg()[0]:.1f}\n\n| bot | decisions | CPU ms a decision (mean) | median | max "
          "| wall ms (mean) |\n|---|---:|---:|---:|---:|---:|")
    for bot in figures["bots"]:
        print(f"| {bot['level']} | {bot['decisions']} | {bot['mean_ms']:.3f} | {bot['median_ms']:.3f} | "
              f"{bot['max_ms']:.1f} | {bot['wall_mean_ms']:.3f} |")
    review = figures["review"] = review_cost(args.repeats)
    print(f"\nreview of one {len(review['bots'])}-player game ({review['decisions']} decisions, {review['rounds']} "
          f"rounds; {','.join(review['bots'])}), median of {args.repeats}, load average {os.getloadavg()[0]:.1f}:\n"
          f"  nimmt replay --review --json, whole process: {review['process_cpu_s']:.2f} CPU-s "
          f"(nimmt replay --json alone: {review['replay_without_review_cpu_s']:.2f})\n"
          f"  nimmt.review.review in a warm process: {review['in_process_cpu_s']:.2f} CPU-s, "
          f"{review['per_decision_ms']:.1f} ms a decision")
    if args.load_json is not None:
        figures["load"] = json.loads(args.load_json.read_text().strip().splitlines()[-1])
    elif not args.no_load and not args.review_only:
        figures["load"] = load_figures(args.load_players, args.load_seconds)
    action_ms = CLUSTER_PROCESS_MS
    if "load" in figures:
        person = figures["person"] = person_action(figures["load"])
        action_ms = person["cpu_ms"]
        print(f"\na person's action (load.py, {person['players']} people, think 2 s): {person['cpu_ms']:.2f} ms of the "
              f"server's CPU; {person['actions_per_second']:.1f} actions/s; p50 {person['p50_ms']} ms, p99 "
              f"{person['p99_ms']} ms")
    print(f"\nsizing (tables of four people, a turn every {args.turn_seconds:g} s, every game reviewed; "
          f"a person's action {action_ms:.2f} ms in one process):")
    figures["sizing"] = {}
    per_turn = review["decisions"] / (4 * 10 * review["rounds"])
    for people in (1_000, 10_000, 100_000):
        lines = sizing(people, action_ms, review["per_decision_ms"], per_turn, args.turn_seconds)
        figures["sizing"][people] = lines
        print("\n".join(lines))
    seat_decisions = ROUNDS * 10 * per_turn
    for bot in figures["bots"]:
        per_game = bot["mean_ms"] * seat_decisions / 1000
        print(f"  a {bot['level']} seat: {per_game:.3f} CPU-s a game ({seat_decisions:.0f} decisions x "
              f"{bot['mean_ms']:.3f} ms); {per_game / (ROUNDS * 10 * args.turn_seconds):.4f} cores a seat at once")
    figures["cpu_s"] = time.process_time() - started
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
