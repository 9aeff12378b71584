"""Replay many random deals through the rules core and through the batch engine; compare every penalty.

    .venv/bin/python benchmarks/check_batch_exact.py                 # 100,000 deals, 2 to 10 players
    .venv/bin/python benchmarks/check_batch_exact.py --deals 5000 --heuristic 200

Each deal gets random orders (random play) and a random row for every card below every row; the
core plays it with :func:`nimmt.core.apply` (one action at a time) and the batch engine plays it
on both paths (NumPy and, if installed, Numba). Then the same for the fewest-bullheads row
policy, and, on a smaller sample, with every seat a HeuristicBot. Exit status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from nimmt.batch import HAVE_NUMBA, deal, play

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test oracle lives in tests/batch
from tests.batch.oracle import core_heuristic_penalties, core_penalties


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000, help="deals in all, spread over 2 to 10 players")
    parser.add_argument("--heuristic", type=int, default=1_000, help="deals played by heuristic seats")
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    engines = ["numpy", *(["numba"] if HAVE_NUMBA else [])]
    start = time.perf_counter()
    checked = {"given": 0, "fewest": 0, "heuristic": 0}
    wrong = 0
    low_cards = 0
    per_table = [args.deals // 9 + (1 if i < args.deals % 9 else 0) for i in range(9)]
    for players, count in zip(range(2, 11), per_table, strict=True):
        rows, orders = deal(players, count, rng, engine="numpy")
        choices = rng.integers(0, 4, size=(count, players * 10))
        expected = core_penalties(rows, orders, choices)
        fewest = core_penalties(rows, orders)
        shifted = core_penalties(rows, orders, (choices + 1) % 4)
        low_cards += int((shifted != expected).any(axis=1).sum())
        for engine in engines:
            got = play(rows, orders, row_policy="given", choices=choices, engine=engine)
            bad = int((got != expected).any(axis=1).sum())
            got = play(rows, orders, row_policy="fewest", engine=engine)
            bad += int((got != fewest).any(axis=1).sum())
            wrong += bad
            if bad:
                print(f"MISMATCH: {bad} deals at {players} players on {engine}", flush=True)
        checked["given"] += count
        checked["fewest"] += count
        print(f"{players:>2} players: {count} deals, {len(engines)} engines x 2 row policies, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    heuristic_per_table = [args.heuristic // 9 + (1 if i < args.heuristic % 9 else 0) for i in range(9)]
    for players, count in zip(range(2, 11), heuristic_per_table, strict=True):
        if count == 0:
            continue
        rows, orders = deal(players, count, rng, engine="numpy")
        expected = core_heuristic_penalties(rows, orders)
        for engine in engines:
            got = play(rows, orders, row_policy="heuristic", card_policy="heuristic", engine=engine)
            bad = int((got != expected).any(axis=1).sum())
            wrong += bad
            if bad:
                print(f"MISMATCH (heuristic): {bad} deals at {players} players on {engine}", flush=True)
        checked["heuristic"] += count
    print(f"deals checked: {checked['given']} with random row choices, {checked['fewest']} with fewest-bullheads "
          f"rows, {checked['heuristic']} with heuristic seats; engines {', '.join(engines)}")
    print(f"deals where another row choice changes a penalty (row choices matter): {low_cards}")
    print(f"penalties compared: {sum(c * p for c, p in zip(per_table, range(2, 11), strict=True)) * 2 * len(engines)}"
          f" + heuristic; mismatching deals: {wrong}; {time.perf_counter() - start:.0f} s")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
