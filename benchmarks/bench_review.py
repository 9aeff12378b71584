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

3. **Cost, before and after** (``--cost``): one seeded 4-player game (as in 1.), reviewed by
   ``nimmt replay --review --json`` of this tree and of older ones (``--old``, commits or folders,
   comma-separated; default main at 3c03e61, before the review settled options early: each commit a
   git worktree made in a temporary folder, prepared), with ``--full`` also this tree with every
   option at the whole budget; each a whole process, the ways taken in turn ``--repeats`` times: the
   median CPU seconds (user + system) of each, their ratio to the first, the rollouts made, the load
   average; then the error bars of the same game by each: every option's standard error, the chosen
   option's standard error of its loss (median and 90th percentile), and each player's accuracy over
   ``--seeds`` review seeds (mean and spread: how much the figure moves with the review's own luck).

    taskset -c 1 .venv/bin/python benchmarks/bench_review.py --cost [--repeats 3] [--seeds 3] [--old A,B] [--full]

4. **The ways, one by one** (``--ways``): the same game, every option of every decision at the budget,
   by the rollouts before issue 29 and by the review's common random numbers: CPU, the standard
   deviation of one sample of an option and of a paired difference (median), and what a rule giving
   fewer samples to the options of small variance could save.

    taskset -c 1 .venv/bin/python benchmarks/bench_review.py --ways
"""

from __future__ import annotations

import argparse
import json
import math
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
from itertools import pairwise
from pathlib import Path
from typing import Any

from nimmt.bots import make_bot
from nimmt.bots.expert import ExpertBot
from nimmt.match import play_game
from nimmt.records import GameRecord
from nimmt.review import DEFAULT_SAMPLES, NOISE_Z, Decision, review

BOTS = ("expert", "learned", "heuristic", "beginner", "random")  # strongest first: 5-player games, seats rotated
COST_BOTS = ("expert", "heuristic", "beginner", "random")  # the 4-player game of --cost


def interval(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of its 95 % interval (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return mean, half


def play(game: int, seed: int, expert_samples: int, levels: Sequence[str] = BOTS) -> tuple[GameRecord, list[str]]:
    shift = game % len(levels)
    order = list(levels[shift:]) + list(levels[:shift])
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
    games_seen: list[dict[str, Any]] = []
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
        games_seen.append({"seats": order, "accuracy": [round(by_bot[name], 1) for name in order]})
        print(f"game {game + 1}: {len(record.rounds)} rounds, {len(result.decisions)} decisions, "
              f"review {seconds[-1]:.1f} s CPU: " + ", ".join(f"{b} {by_bot[b]:.1f}" for b in BOTS), flush=True)
    figures = {
        "games": games,
        "seatings": seatings(games_seen),
        "bots": {b: {"accuracy": interval(accuracy[b]), "mean_loss": interval(loss[b]),
                     "marks_per_game": statistics.fmean(marks[b])} for b in BOTS},
        "above_next": {f"{a}>{b}": above[a] / games for a, b in pairwise(BOTS)},
        "whole_order": whole / games,
        "per_game": games_seen,
        "review_seconds": {"median": statistics.median(seconds), "max": max(seconds), "total": sum(seconds)},
    }
    return figures, reviewed


def seatings(games_seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each seating's figures (the games whose seats were in that order): every bot's mean accuracy with
    its 95 % interval, and each stronger bot's lead over the next one, game by game (a paired difference:
    the same games), with its interval. A seating is "in order" when every lead's mean is above 0, and
    "apart" when every lead's interval is above 0 too; both are printed, one line a seating."""
    by_seating: dict[tuple[str, ...], list[dict[str, float]]] = {}
    for seen in games_seen:
        by_seating.setdefault(tuple(seen["seats"]), []).append(dict(zip(seen["seats"], seen["accuracy"], strict=True)))
    rows = []
    for seats, played in by_seating.items():
        means = {b: interval([game[b] for game in played]) for b in BOTS}
        leads = {f"{a}>{b}": interval([game[a] - game[b] for game in played]) for a, b in pairwise(BOTS)}
        in_order = all(mean > 0 for mean, _ in leads.values())
        apart = all(mean - half > 0 for mean, half in leads.values())
        rows.append({"seats": list(seats), "games": len(played), "accuracy": means, "leads": leads,
                     "in_order": in_order, "apart": apart})
        print(f"seating {', '.join(seats)} ({len(played)} games): "
              + ", ".join(f"{b} {m:.1f}±{h:.1f}" for b, (m, h) in means.items()) + "; leads "
              + ", ".join(f"{k} {m:+.1f}±{h:.1f}" for k, (m, h) in leads.items())
              + f"; in order: {'yes' if in_order else 'no'}, apart: {'yes' if apart else 'no'}", flush=True)
    return rows


def agreement(reviewed: list[Any], positions: int, seed: int, reference: int) -> dict[str, Any]:
    if positions < 1:
        return {"positions": 0}
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


OLD = "3c03e61"  # main before the review settled options early (issue 29)
HERE = Path(__file__).resolve().parent.parent


def _old_tree(commit: str, folder: str) -> Path:
    """A worktree of ``commit`` in ``folder``, with this tree's Numba cache (the kernels' sources are the
    same: loaded, not compiled) and prepared."""
    tree = Path(folder) / "old"
    subprocess.run(["git", "-C", str(HERE), "worktree", "add", "--detach", str(tree), commit], check=True,
                   capture_output=True)
    cache = HERE / "nimmt" / "batch" / "__pycache__"
    if cache.is_dir():
        shutil.copytree(cache, tree / "nimmt" / "batch" / "__pycache__", dirs_exist_ok=True)
    subprocess.run([sys.executable, "-m", "nimmt", "prepare"], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                   check=True, capture_output=True)
    return tree


FULL = "import sys; import nimmt.review; nimmt.review.SETTLE = False; from nimmt.cli.entry import main; main()"


def _timed_review(tree: Path, record: str, seed: int, full: bool = False) -> tuple[float, dict[str, Any]]:
    """CPU seconds (user + system) of ``nimmt replay --review --json`` of ``tree``, and its review;
    ``full``: every option at the whole budget (:data:`nimmt.review.SETTLE` off)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = ["-c", FULL] if full else ["-m", "nimmt"]
    done = subprocess.run([sys.executable, *start, "replay", "--review", "--json", "--seed", str(seed), record],
                          env={**os.environ, "PYTHONPATH": str(tree), "NUMBA_NUM_THREADS": "1"}, cwd=tree,
                          capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    review_json: dict[str, Any] = json.loads(done.stdout)["review"]
    return cpu, review_json


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def error_bars(reviews: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The error bars of one game's reviews at several seeds: see the module (3.)."""
    first = reviews[0]
    stderrs = [o["stderr"] for d in first["decisions"] for o in d["options"]]
    chosen = [o["loss_stderr"] for d in first["decisions"] if not d["forced"] for o in d["options"] if o["chosen"]]
    players = []
    for p, player in enumerate(first["players"]):
        values = [r["players"][p]["accuracy"] for r in reviews]
        players.append({"name": player["name"], "accuracy": statistics.fmean(values),
                        "spread": statistics.stdev(values) if len(values) > 1 else 0.0, "seeds": values})
    return {
        "option_stderr": {"median": statistics.median(stderrs), "p90": _quantile(stderrs, 0.9)},
        "chosen_loss_stderr": {"median": statistics.median(chosen), "p90": _quantile(chosen, 0.9)},
        "players": players,
    }


def cost(game: int, seed: int, expert_samples: int, repeats: int, seeds: int, old: Sequence[str],
         full: bool) -> dict[str, Any]:
    record, order = play(game, seed, expert_samples, COST_BOTS)
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "game.json")
        Path(path).write_text(json.dumps(record.to_json()), encoding="utf-8")
        ways: dict[str, tuple[Path, bool]] = {}
        made: list[Path] = []
        for i, commit in enumerate(old):
            if Path(commit).is_dir():
                ways[commit] = (Path(commit), False)
            else:
                made.append(_old_tree(commit, str(Path(folder) / str(i))))
                ways[commit] = (made[-1], False)
        if full:
            ways["this tree, every option at the budget"] = (HERE, True)
        ways["this tree"] = (HERE, False)
        cpu: dict[str, list[float]] = {name: [] for name in ways}
        reviews: dict[str, list[dict[str, Any]]] = {name: [] for name in ways}
        try:
            for i in range(max(repeats, seeds)):
                for name, (tree, every) in ways.items():  # the ways in turn, run after run
                    seconds, result = _timed_review(tree, path, i % seeds, every)
                    if i < repeats:
                        cpu[name].append(seconds)
                    if i < seeds:
                        reviews[name].append(result)
                    print(f"  {name}: seed {i % seeds}, {seconds:.2f} CPU-s", flush=True)
        finally:
            for tree in made:
                subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(tree)],
                               capture_output=True)
    decisions = len(reviews["this tree"][0]["decisions"])
    first = next(iter(ways))
    figures: dict[str, Any] = {
        "game": {"seats": order, "decisions": decisions, "rounds": len(record.rounds)},
        "load_average": os.getloadavg()[0],
        "cpu_seconds": {name: {"median": statistics.median(v), "runs": v} for name, v in cpu.items()},
        "ratio": {name: statistics.median(cpu[first]) / statistics.median(v) for name, v in cpu.items()},
        "samples": {name: sum(o["samples"] for d in v[0]["decisions"] for o in d["options"])
                    for name, v in reviews.items()},
        "error_bars": {name: error_bars(v) for name, v in reviews.items()},
    }
    names = list(ways)
    print(f"one 4-player game ({decisions} decisions, {len(record.rounds)} rounds; {', '.join(order)}), "
          f"load average {figures['load_average']:.1f}, median of {repeats}, each way in turn:")
    print("| | " + " | ".join(names) + " |\n|---|" + "---:|" * len(names))
    print("| CPU-s of `nimmt replay --review --json` | "
          + " | ".join(f"{figures['cpu_seconds'][n]['median']:.2f}" for n in names) + " |")
    print(f"| cheaper than {first} | " + " | ".join(f"{figures['ratio'][n]:.2f}x" for n in names) + " |")
    print("| rollouts (options x samples) | " + " | ".join(f"{figures['samples'][n]:,}" for n in names) + " |")
    bars = figures["error_bars"]
    for key, label in (("option_stderr", "an option's standard error"),
                       ("chosen_loss_stderr", "the chosen option's loss, standard error")):
        print(f"| {label}, median / p90 | "
              + " | ".join(f"{bars[n][key]['median']:.3f} / {bars[n][key]['p90']:.3f}" for n in names) + " |")
    for p, player in enumerate(bars[first]["players"]):
        print(f"| {player['name']}: accuracy, mean ± spread over {seeds} seeds | "
              + " | ".join(f"{bars[n]['players'][p]['accuracy']:.1f} ± {bars[n]['players'][p]['spread']:.1f}"
                           for n in names) + " |")
    return figures


def ways(game: int, seed: int, expert_samples: int, samples: int) -> dict[str, Any]:
    """Every decision of one seeded 4-player game, every option at ``samples`` samples, by the rollouts
    before issue 29 (one random state carried from option to option) and by the review's (each sample
    its own state, the same for every option): the CPU of each, and per option the standard deviation
    of one sample and of one paired difference from the best (the chosen option's apart): what common
    random numbers narrow, and what giving fewer samples to the options of small variance could save."""
    import numpy as np

    from nimmt.batch import review_penalties
    from nimmt.bots.opponents import OpponentModel
    from nimmt.bots.styles import BASE_STYLES, policies_of, seat_card_penalties, seat_row_penalties, seats_of
    from nimmt.core import view
    from nimmt.review import CHUNK, _rng, moments

    record, order = play(game, seed, expert_samples, COST_BOTS)
    models = {p: OpponentModel(_rng(0, "model", p), BASE_STYLES) for p in range(len(record.players))}
    cpu = {"before": 0.0, "after": 0.0}
    rows: dict[str, list[tuple[float, float, bool, bool, int]]] = {"before": [], "after": []}
    for moment, _ in moments(record):
        seen = view(moment.state, moment.player)
        if moment.kind == "card":
            models[moment.player].observe(seen)
        labels = list(seen.hand) if moment.kind == "card" else [0, 1, 2, 3]
        if len(labels) < 2:
            continue
        for name in ("before", "after"):
            rng = _rng(0, seen.round, seen.turn, moment.player, moment.kind)
            generator = np.random.default_rng(rng.getrandbits(64))
            blocks = []
            start = time.process_time()
            for first in range(0, samples, CHUNK):
                styles = models[moment.player].draw(seen, rng)
                styles[moment.player] = "heuristic"
                seats = seats_of(styles)
                if name == "after":
                    policies = policies_of(seats, None)
                    blocks.append(review_penalties(seen, moment.kind, labels, first, CHUNK, 7, policies))
                elif moment.kind == "card":
                    blocks.append(seat_card_penalties(seen, labels, CHUNK, generator, seats))
                else:
                    blocks.append(seat_row_penalties(seen, CHUNK, generator, seats))
            cpu[name] += time.process_time() - start
            values = np.concatenate(blocks, axis=1).astype(float)
            best = int(values.mean(axis=1).argmin())
            at = labels.index(moment.chosen)
            spreads = values.std(axis=1, ddof=1)
            gaps = (values - values[best]).std(axis=1, ddof=1)
            turns = len(seen.hand)
            rows[name] += [(float(spreads[i]), float(gaps[i]), i == best, i == at, turns) for i in range(len(labels))]
    figures: dict[str, Any] = {"game": {"seats": order}, "samples": samples, "cpu_seconds": cpu}
    for name, found in rows.items():
        own = np.array([r[0] for r in found])
        weight = np.array([r[4] for r in found], float)  # a rollout's cost: the turns left
        paired = [r[1] for r in found if not r[2]]
        chosen = [r[1] for r in found if r[3] and not r[2]]
        bar = float(np.median(own)) / math.sqrt(samples)  # every option held to the median option's bar
        needed = np.clip(np.ceil((own / bar) ** 2), 16, None)
        figures[name] = {
            "option_sd": float(np.median(own)), "paired_sd": statistics.median(paired),
            "chosen_paired_sd": statistics.median(chosen),
            "paired_over_option": float(np.median([r[1] / r[0] for r in found if not r[2] and r[0] > 0])),
            "no_variance_share": float((own == 0).mean()),
            "small_variance_cost_share": float(weight[own < 2].sum() / weight.sum()),
            "same_median_bar_cost": float((weight * needed).sum() / (weight * samples).sum()),
        }
    print(json.dumps(figures, indent=1))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="the review's budget")
    parser.add_argument("--reference", type=int, default=16 * DEFAULT_SAMPLES, help="the long search's budget")
    parser.add_argument("--expert-samples", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--cost", action="store_true", help="only the cost before and after (3.)")
    parser.add_argument("--game", type=int, default=0, help="with --cost: which seeded game")
    parser.add_argument("--repeats", type=int, default=3, help="with --cost: runs of each side")
    parser.add_argument("--seeds", type=int, default=3, help="with --cost: review seeds for the error bars")
    parser.add_argument("--old", default=OLD,
                        help=f"with --cost: older trees or commits, comma-separated (default {OLD}: a worktree of it)")
    parser.add_argument("--full", action="store_true",
                        help="with --cost: also this tree with every option at the budget")
    parser.add_argument("--ways", action="store_true",
                        help="only the rollouts before and after, every option at the budget, their variances")
    args = parser.parse_args()
    if args.ways:
        figures = ways(args.game, args.seed, args.expert_samples, args.samples)
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")
        return
    if args.cost:
        figures = cost(args.game, args.seed, args.expert_samples, args.repeats, args.seeds, args.old.split(","),
                       args.full)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as handle:
                json.dump(figures, handle, indent=1)
        return
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
