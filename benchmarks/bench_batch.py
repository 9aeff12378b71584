"""The batch engine's speed, side by side with the rules core, in one run (what docs/speed.md reports).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_batch.py [--hands 1000000] [--repeats 5] [--json]
    .venv/bin/python benchmarks/bench_batch.py --rollouts    # the expert's rollouts: own play heuristic vs learned

Prints, for 2, 4 and 10 players, random play on one core: hands (rounds) and whole games per
second of the step engine (``core``), the core's fast round path (``fast``), the batch engine's
NumPy path in batches of 4096 (``numpy``) and its compiled path (``numba``), medians of the
repeats, with the machine they ran on. Then: the memory a million-hand run adds (it is played in
chunks), the heuristic policy's speed, and rollouts per second from a view (what search bots use).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time

import numpy as np

from nimmt.batch import bench, engine_name, play_hands, rollout_card_penalties
from nimmt.core import apply, deal_cards, new_game, view


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def extras(hands: int) -> dict[str, object]:
    rng = np.random.default_rng(1)
    out: dict[str, object] = {"engine": engine_name()}
    before = peak_rss_mb()
    start = time.perf_counter()
    stats = play_hands(4, hands, rng)
    out["million_hands"] = {
        "hands": stats.hands, "seconds": round(time.perf_counter() - start, 3),
        "peak_rss_before_mb": round(before, 1), "peak_rss_after_mb": round(peak_rss_mb(), 1),
        "mean_penalty_4_players": [round(float(x), 3) for x in stats.mean],
    }
    for players in (4, 10):
        play_hands(players, 100, rng, policy="heuristic")
        start = time.process_time()
        play_hands(players, 20_000, rng, policy="heuristic")
        out[f"heuristic_hands_per_cpu_second_{players}"] = round(20_000 / (time.process_time() - start))
    state = apply(new_game(4), deal_cards(4, random.Random(3))).state
    v = view(state, 0)
    for policy in ("random", "heuristic"):
        rollout_card_penalties(v, None, 10, rng, policy=policy)
        samples = 2000 if policy == "random" else 200
        start = time.process_time()
        rollout_card_penalties(v, None, samples, rng, policy=policy)
        seconds = time.process_time() - start
        out[f"rollouts_per_cpu_second_{policy}_4_players_first_turn"] = round(10 * samples / seconds)
    return out


def seat_rollouts(repeats: int) -> dict[str, object]:
    """Rollouts per CPU second from the first turn, every card of the hand, the viewer playing on like
    ``heuristic`` or like the learned network (the expert's ``own``), the others ``snug``: alternated,
    medians of ``repeats``."""
    from nimmt.bots.styles import seat_card_penalties, seats_of

    out: dict[str, object] = {}
    rng = np.random.default_rng(2)
    for players in (2, 4, 10):
        v = view(apply(new_game(players), deal_cards(players, random.Random(players))).state, 0)
        rates: dict[str, list[float]] = {"heuristic": [], "learned": []}
        for _ in range(repeats):
            for own in rates:
                seats = seats_of([own] + ["snug"] * (players - 1))
                seat_card_penalties(v, list(v.hand), 4, rng, seats)
                start = time.process_time()
                seat_card_penalties(v, list(v.hand), 400, rng, seats)
                rates[own].append(4000 / (time.process_time() - start))
        for own, values in rates.items():
            out[f"rollouts_per_cpu_second_own_{own}_{players}_players"] = round(float(np.median(values)))
        ratio = np.median(rates["heuristic"]) / np.median(rates["learned"])
        out[f"learned_cost_ratio_{players}_players"] = round(float(ratio), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="batch engine speed, side by side with the rules core")
    parser.add_argument("--players", default="2,4,10")
    parser.add_argument("--hands", type=int, default=1_000_000, help="hands per timed run of the compiled engine")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rollouts", action="store_true",
                        help="only the expert's rollouts, its own seat on heuristic play or on the learned network")
    args = parser.parse_args()
    if args.rollouts:
        for key, value in seat_rollouts(args.repeats).items():
            print(f"{key}: {value}")
        return
    result = bench.run([int(p) for p in args.players.split(",")], args.hands, args.repeats)
    result["extras"] = extras(args.hands)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(bench.table(result))
    print()
    for key, value in result["extras"].items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
