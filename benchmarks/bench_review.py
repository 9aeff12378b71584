"""Is the review honest? Two checks, on games played by nimmt's bots (docs/review.md, "How far to trust it").

1. **Accuracy sorts players by strength.** ``--games`` seeded 4-player games between ``expert`` (a
   cheap fixed budget: ``--expert-samples`` samples per option, no clock), ``heuristic``, ``beginner``
   and ``random``, seats rotated game by game, each game reviewed at the review's default budget.
   Per bot: mean accuracy (95 % interval over games), mean loss per decision, marks per game, and
   how often, game by game, each stronger bot's accuracy is above the next one's.
2. **The review's ranking against a much longer search.** ``--positions`` unforced decisions drawn
   at random from those games, estimated again with ``--reference`` samples per option (16 times the
   review's budget by default) and another seed: how often the best option agrees, how much the
   review's best costs by the long search, the mean absolute difference of the expected bullheads
   and of the chosen option's loss, and how often the mark agrees.

    nice -n 5 .venv/bin/python benchmarks/bench_review.py [--games 16] [--positions 60] [--seed 1]

Bounded by its counts; prints the figures and the CPU time of each part (``--json FILE`` keeps them).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from nimmt.bots import make_bot
from nimmt.bots.expert import ExpertBot
from nimmt.match import play_game
from nimmt.records import GameRecord
from nimmt.review import DEFAULT_SAMPLES, NOISE_Z, Decision, review

BOTS = ("expert", "heuristic", "beginner", "random")  # strongest first


def interval(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of its 95 % interval (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return mean, half


def play(game: int, seed: int, expert_samples: int) -> tuple[GameRecord, list[str]]:
    shift = game % len(BOTS)
    order = list(BOTS[shift:] + BOTS[:shift])
    rng = random.Random(f"{seed}:{game}")
    bots = [
        ExpertBot(random.Random(rng.getrandbits(64)), time_budget=3600.0, samples=expert_samples, clock="cpu")
        if name == "expert" else make_bot(name, random.Random(rng.getrandbits(64)))
        for name in order
    ]
    return play_game(bots, random.Random(rng.getrandbits(64)), names=order), order


def ordering(games: int, seed: int, samples: int, expert_samples: int) -> tuple[dict[str, Any], list[Any]]:
    accuracy: dict[str, list[float]] = {b: [] for b in BOTS}
    loss: dict[str, list[float]] = {b: [] for b in BOTS}
    marks: dict[str, list[int]] = {b: [] for b in BOTS}
    above = dict.fromkeys(BOTS[:-1], 0)
    whole = 0
    seconds: list[float] = []
    reviewed = []
    for game in range(games):
        record, order = play(game, seed, expert_samples)
        start = time.process_time()
        result = review(record, samples=samples, seed=seed)
        seconds.append(time.process_time() - start)
        reviewed.append((record, order, result))
        by_bot = {}
        for player in result.players:
            name = order[player.player]
            assert player.accuracy is not None and player.mean_loss is not None
            by_bot[name] = player.accuracy
            accuracy[name].append(player.accuracy)
            loss[name].append(player.mean_loss)
            marks[name].append(sum(player.marks.values()))
        for stronger, weaker in pairwise(BOTS):
            above[stronger] += by_bot[stronger] > by_bot[weaker]
        whole += all(by_bot[a] > by_bot[b] for a, b in pairwise(BOTS))
        print(f"game {game + 1}: {len(record.rounds)} rounds, {len(result.decisions)} decisions, "
              f"review {seconds[-1]:.1f} s CPU: " + ", ".join(f"{b} {by_bot[b]:.1f}" for b in BOTS), flush=True)
    figures = {
        "games": games,
        "bots": {b: {"accuracy": interval(accuracy[b]), "mean_loss": interval(loss[b]),
                     "marks_per_game": statistics.fmean(marks[b])} for b in BOTS},
        "above_next": {f"{a}>{b}": above[a] / games for a, b in pairwise(BOTS)},
        "whole_order": whole / games,
        "review_seconds": {"median": statistics.median(seconds), "max": max(seconds), "total": sum(seconds)},
    }
    return figures, reviewed


def agreement(reviewed: list[Any], positions: int, seed: int, reference: int) -> dict[str, Any]:
    rng = random.Random(seed)
    pool = [(g, d) for g, (_, _, result) in enumerate(reviewed) for d in result.decisions if not d.forced]
    chosen = rng.sample(pool, min(positions, len(pool)))
    by_game: dict[int, list[Decision]] = {}
    for g, d in chosen:
        by_game.setdefault(g, []).append(d)
    best_same = within = mark_same = 0
    cost: list[float] = []
    expected_gap: list[float] = []
    loss_gap: list[float] = []
    count = 0
    for g, decisions in sorted(by_game.items()):
        record = reviewed[g][0]
        wanted = {(d.round, d.turn, d.player, d.kind) for d in decisions}
        long = {(d.round, d.turn, d.player, d.kind): d
                for d in review(record, samples=reference, seed=seed + 1, only=wanted).decisions}
        for d in decisions:
            ref = long[(d.round, d.turn, d.player, d.kind)]
            ref_options = {o.option: o for o in ref.options}
            count += 1
            best_same += d.best.option == ref.best.option
            picked = ref_options[d.best.option]
            cost.append(picked.loss)
            within += picked.loss <= NOISE_Z * picked.loss_stderr
            mark_same += d.mark == ref.mark
            expected_gap.extend(abs(o.expected - ref_options[o.option].expected) for o in d.options)
            loss_gap.append(abs(d.loss - ref.loss))
        print(f"  positions checked: {count}/{len(chosen)}", flush=True)
    return {
        "positions": count,
        "best_agrees": best_same / count,
        "best_within_reference_noise": within / count,
        "reference_loss_of_review_best": interval(cost),
        "mean_abs_expected_difference": statistics.fmean(expected_gap),
        "mean_abs_chosen_loss_difference": statistics.fmean(loss_gap),
        "mark_agrees": mark_same / count,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="the review's budget")
    parser.add_argument("--reference", type=int, default=16 * DEFAULT_SAMPLES, help="the long search's budget")
    parser.add_argument("--expert-samples", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    start = time.process_time()
    order, reviewed = ordering(args.games, args.seed, args.samples, args.expert_samples)
    played = time.process_time() - start
    print(json.dumps(order, indent=1))
    start = time.process_time()
    agree = agreement(reviewed, args.positions, args.seed, args.reference)
    agree["cpu_seconds"] = time.process_time() - start
    print(json.dumps(agree, indent=1))
    print(f"CPU: games and reviews {played:.0f} s, long searches {agree['cpu_seconds']:.0f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"args": vars(args), "ordering": order, "agreement": agree, "cpu_play_review": played},
                      handle, indent=1)


if __name__ == "__main__":
    main()
