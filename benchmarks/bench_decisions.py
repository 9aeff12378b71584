"""How long one decision of the ``heuristic`` and ``learned`` bots takes, with Numba or without.

Positions: the first card of a round (10 cards in hand: the heuristic looks one card ahead at
tables of at most 3, the worst case heads-up) at 2, 4 and 10 players, and a row choice. Each
decision is timed ``--repeat`` times on ``--positions`` positions; the median per decision is printed.

    .venv/bin/python benchmarks/bench_decisions.py [--no-numba] [--positions 20] [--repeat 5]

``--no-numba`` hides Numba (what an install without the ``sim`` extra sees): the policy's kernels
then run as plain Python. Otherwise Numba is loaded first (as in a bot worker or ``simulate``), and
the kernels run compiled once ``nimmt prepare`` has run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-numba", action="store_true")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.no_numba:
        sys.modules["numba"] = None  # type: ignore[assignment]
    else:
        from nimmt import batch

        assert batch.HAVE_NUMBA  # loads Numba, as a bot worker or simulate has: the bots then run compiled

    from nimmt.bots import heuristic as policy
    from nimmt.bots.heuristic import HeuristicBot
    from nimmt.bots.learned import LearnedBot
    from nimmt.core import Phase, PlayCard, View, apply, deal_cards, new_game, view

    def first_turn(seed: int, players: int) -> View:
        state = apply(new_game(players), deal_cards(players, random.Random(seed))).state
        return view(state, 0)

    def row_choice(seed: int, players: int) -> View:
        rng = random.Random(seed)
        while True:
            state = apply(new_game(players), deal_cards(players, rng)).state
            while state.phase is Phase.CHOOSE_CARDS:
                for p in range(players):
                    state = apply(state, PlayCard(p, rng.choice(state.hands[p]))).state
                if state.phase is Phase.CHOOSE_ROW:
                    return view(state, state.waiting_for[0])

    def timed(decide: Callable[[View], int], views: list[View]) -> float:
        for v in views[:2]:
            decide(v)  # loads (or compiles) the kernels once, outside the timing
        times = []
        for v in views:
            for _ in range(args.repeat):
                start = time.perf_counter()
                decide(v)
                times.append(time.perf_counter() - start)
        return statistics.median(times) * 1e6

    heuristic, learned = HeuristicBot(), LearnedBot()
    compiled = getattr(policy, "compiled", bool)()  # an earlier tree's bots ran Python only
    print(f"numba: {'hidden' if args.no_numba else 'on'}, compiled: {compiled}; median microseconds per decision")
    for players in (2, 4, 10):
        views = [first_turn(seed, players) for seed in range(args.positions)]
        print(f"card, {players:>2} players, 10 cards: heuristic {timed(heuristic.choose_card, views):9.1f}"
              f"   learned {timed(learned.choose_card, views):9.1f}")
    for players in (2, 4):
        views = [row_choice(seed, players) for seed in range(args.positions)]
        print(f"row,  {players:>2} players:           heuristic {timed(heuristic.choose_row, views):9.1f}"
              f"   learned {timed(learned.choose_row, views):9.1f}")


if __name__ == "__main__":
    main()
