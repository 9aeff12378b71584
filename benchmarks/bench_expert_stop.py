"""What does the expert's early stop cost? (docs/ladder.md, "Does the expert stop too soon?")

The expert stops searching once one card is left within ``Z`` standard errors of the best, after as
few as 16 samples a card: at the default 1 s it spends a median of a few hundredths of a second.
Here the expert plays ``--games`` seeded games against ``--opponents`` and, at each of its card
decisions, the same search is made again with each first look (``--first``: samples a card before any
card is dropped; 16 is the default's) and compared with a **reference**: every card at
``--reference`` samples, none dropped, the same model of the other players, the same objective. The
regret of a choice is the reference's value of it minus the reference's best (bullheads, 0 when the
same card). What it measures is the cost of the sampling and the stop alone, not of the model: a
search that played every card to the whole budget would gain at most this.

    taskset -c 0 .venv/bin/python benchmarks/bench_expert_stop.py [--players 4] [--games 3] [--reference 8192]

The reference's own noise (its median standard error, printed) makes the regrets an upper bound.
Bounded by its counts.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from typing import Any

from nimmt.bots import make_bot
from nimmt.bots.expert import ExpertBot
from nimmt.bots.search import Estimate, evaluate_batch
from nimmt.bots.styles import Seats
from nimmt.core import View
from nimmt.match import play_game


class Probe(ExpertBot):
    """The expert, which also searches each of its card decisions again for the measurement (the
    searches of the measurement draw from their own seeds: its play is the default expert's)."""

    def __init__(self, rng: random.Random, probe: random.Random, firsts: Sequence[int], reference: int) -> None:
        super().__init__(rng, time_budget=1.0, clock="cpu")
        self.firsts, self.reference = firsts, reference
        self.probe_rng = probe
        self.rows: list[dict[str, Any]] = []

    def _search(self, view: View, kind: str, cards: list[int] | None = None) -> list[Estimate]:
        result = super()._search(view, kind, cards)
        if kind != "card" or len(view.hand) < 2:
            return result
        clock = self.CLOCKS[self.clock]
        policy: str | Callable[[], Seats] = "random" if self.opponents.careless_table(view) else self._seats(view)
        score = self._scorer(view)
        row: dict[str, Any] = {"hand": len(view.hand), "choices": {}}
        for first in self.firsts:
            start = clock()
            found = evaluate_batch(
                view, kind, rng=random.Random(self.probe_rng.getrandbits(64)), policy=policy,
                deadline=start + self.time_budget * self.MARGIN, prune=True, clock=clock, chunk=16,
                min_samples=first, z=self.Z, cards=cards, others=self.others, score=score)
            row["choices"][first] = (min(found, key=lambda e: (e.mean, -e.option)).option, clock() - start)
        reference = evaluate_batch(
            view, kind, rng=random.Random(self.probe_rng.getrandbits(64)), policy=policy, samples=self.reference,
            prune=False, chunk=64, cards=cards, others=self.others, score=score)
        row["values"] = {e.option: e.mean for e in reference}
        row["stderr"] = statistics.median(e.stderr for e in reference)
        self.rows.append(row)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--opponents", default="field:mc50", help="the bot of every other seat")
    parser.add_argument("--reference", type=int, default=8192, help="samples a card of the reference search")
    parser.add_argument("--first", default="16,64,128,256", help="first looks to compare, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not 2 <= args.players <= 10 or args.games < 1 or args.reference < 2:
        parser.error("2 to 10 players, at least one game, a reference of at least 2 samples")
    firsts = [int(f) for f in args.first.split(",")]
    rows: list[dict[str, Any]] = []
    for game in range(args.games):
        rng = random.Random(f"{args.seed}:{game}")
        probe = Probe(random.Random(rng.getrandbits(64)), random.Random(f"probe:{args.seed}:{game}"), firsts,
                      args.reference)
        others = [make_bot(args.opponents, random.Random(rng.getrandbits(64))) for _ in range(args.players - 1)]
        play_game([probe, *others], rng)
        rows += probe.rows
        print(f"game {game + 1}/{args.games}: {len(rows)} decisions", file=sys.stderr, flush=True)
    figures: dict[str, Any] = {"players": args.players, "games": args.games, "opponents": args.opponents,
                               "reference": args.reference, "decisions": len(rows),
                               "reference_stderr": statistics.median(r["stderr"] for r in rows), "first": {}}
    print(f"{args.players} players, the expert against {args.opponents}, {args.games} games, {len(rows)} card "
          f"decisions; reference {args.reference} samples a card (median standard error "
          f"{figures['reference_stderr']:.3f})")
    print("| first look (samples a card) | regret a decision [95%] | not the reference's best "
          "| CPU median / mean (s) |")
    print("|---:|---|---:|---|")
    for first in firsts:
        regrets = [r["values"][r["choices"][first][0]] - min(r["values"].values()) for r in rows]
        cpu = [r["choices"][first][1] for r in rows]
        mean = statistics.fmean(regrets)
        half = 1.96 * statistics.stdev(regrets) / len(regrets) ** 0.5 if len(regrets) > 1 else float("inf")
        figures["first"][first] = {"regret": mean, "half": half, "missed": sum(g > 0 for g in regrets) / len(rows),
                                   "cpu_median": statistics.median(cpu), "cpu_mean": statistics.fmean(cpu)}
        print(f"| {first}{' (the default)' if first == 16 else ''} | {mean:.4f} [{mean - half:.4f}, {mean + half:.4f}] "
              f"| {figures['first'][first]['missed']:.1%} "
              f"| {statistics.median(cpu):.3f} / {statistics.fmean(cpu):.3f} |")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
