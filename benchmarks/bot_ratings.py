"""The bots' reference ratings (``nimmt.people.ratings.BOT_REFERENCE``), measured: every bot level
plays the others, and openskill rates them all from the same start.

Each deal set seats ``--players`` distinct levels drawn at random from ``nimmt.bots.BOTS`` (seeded)
and is played once per rotation of the seats (duplicate deals, ``nimmt.tournament``), with the
``expert`` at ``--time-budget`` seconds of CPU time per decision. The games are then rated in their
fixed order by :func:`nimmt.people.ratings.rate` with no fixed ratings, and the script prints each
level's mu, sigma and ordinal, the Python of ``BOT_REFERENCE``, and the CPU time the run took.

    nice -n 5 .venv/bin/python benchmarks/bot_ratings.py [--deal-sets 25] [--players 4] [--seed 19] [--jobs 2]

Bounded: deal sets x players games.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from nimmt.bots import BOTS
from nimmt.people.league import GameResult, bot_id
from nimmt.people.ratings import rate
from nimmt.tournament.play import MatchResult
from nimmt.tournament.run import run_local
from nimmt.tournament.schedule import MatchSpec, schedule


def specs(levels: list[str], deal_sets: int, players: int, seed: int, budget: float) -> list[MatchSpec]:
    out: list[MatchSpec] = []
    for deal_set in range(deal_sets):
        table = random.Random(f"bot-ratings:{seed}:{deal_set}").sample(levels, players)
        out.extend(replace(spec, deal_set=deal_set)
                   for spec in schedule(table, 1, seed, time_budget=budget, budget_clock="cpu"))
    return out


def as_results(matches: list[MatchResult]) -> list[GameResult]:
    """The games as the ratings see them, a minute apart in the tournament's order."""
    start = datetime(2026, 12, 1, tzinfo=UTC)
    return [GameResult(start + timedelta(minutes=i), tuple(bot_id(key) for key in m.seats), m.totals, m.rounds)
            for i, m in enumerate(matches)]


def cpu_seconds() -> float:
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deal-sets", type=int, default=25)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--time-budget", type=float, default=0.2, help="the expert's CPU seconds per decision")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--save", type=Path, help="write the games (seats, rounds, totals) to this JSON file")
    parser.add_argument("--games", type=Path, help="rate the games of a file --save wrote instead of playing")
    args = parser.parse_args()
    levels = sorted(BOTS)
    wall = time.perf_counter()
    if args.games:
        matches = [MatchResult(m["deal_set"], m["rotation"], tuple(m["seats"]), tuple(m["entries"]),
                               tuple(map(tuple, m["rounds"])), tuple(m["totals"]), tuple(m["winners"]), ())
                   for m in json.loads(args.games.read_text())]
        print(f"rated from {args.games}")
    else:
        matches = run_local(specs(levels, args.deal_sets, args.players, args.seed, args.time_budget), jobs=args.jobs)
    if args.save:
        args.save.write_text(json.dumps([m.to_json() for m in matches]))
    ratings = rate(as_results(matches), fixed={})
    print(f"{len(matches)} games of {args.players}, seed {args.seed}, expert at {args.time_budget} s CPU a decision")
    print(f"{'level':<12}{'games':>6}{'mu':>9}{'sigma':>8}{'ordinal':>9}")
    for level in sorted(levels, key=lambda name: -ratings[bot_id(name)].ordinal):
        r = ratings[bot_id(level)]
        print(f"{level:<12}{r.games:>6}{r.mu:>9.3f}{r.sigma:>8.3f}{r.ordinal:>9.3f}")
    print("BOT_REFERENCE = {")
    for level in levels:
        r = ratings[bot_id(level)]
        print(f"    bot_id({level!r}): Rating({r.mu:.3f}, {r.sigma:.3f}),")
    print("}")
    print(f"CPU {cpu_seconds():.0f} s, wall {time.perf_counter() - wall:.0f} s")


if __name__ == "__main__":
    main()
