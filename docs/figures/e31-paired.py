"""Two runs of ``nimmt tournament`` on the same deals, compared deal set by deal set (docs/ladder.md,
"A model of players who search").

Reads two save files (``--save``; the first bot of each file is the one compared) and prints, over the
deal sets complete in both, each run's lead of its first bot (the others' mean bullheads a round minus
its own, over the deal set's games) with a 95% interval, its share of wins, and the second run's lead
minus the first's, paired by deal set, with its 95% interval (normal, over deal sets), and the same for
the share of wins. Decision times, when a file has them (``decision_times``; the files of
``docs/figures/runs/screens`` are kept without them), give the first bot's median and mean time a
decision (wall clock).

    cd docs/figures/runs/screens && python ../../e31-paired.py 4p-default.jsonl 4p-learned.jsonl
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict

Game = tuple[int, float, int, bool]  # first bot's bullheads, the others' mean, rounds, won


def load(path: str) -> tuple[dict[int, list[Game]], list[float]]:
    """Complete deal sets (deal set -> its games) and the first bot's decision times."""
    with open(path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    head = json.loads(lines[0])
    first = head["bots"][0]
    sets: dict[int, list[Game]] = defaultdict(list)
    times: list[float] = []
    for line in lines[1:]:
        game = json.loads(line)
        me = game["seats"].index(first)
        rounds = game["rounds"]
        mine = sum(r[me] for r in rounds)
        others = sum(sum(r) - r[me] for r in rounds) / (len(game["seats"]) - 1)
        sets[game["deal_set"]].append((mine, others, len(rounds), me in game["winners"]))
        times += game.get("decision_times", [[]] * len(game["seats"]))[me]
    players = len(head["bots"])
    return {k: v for k, v in sets.items() if len(v) == players}, times


def lead(games: list[Game]) -> float:
    return (sum(g[1] for g in games) - sum(g[0] for g in games)) / sum(g[2] for g in games)


def won(games: list[Game]) -> float:
    """The share of a deal set's games the first bot won (a shared win counts as won)."""
    return sum(g[3] for g in games) / len(games)


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% interval."""
    n = len(values)
    mean = sum(values) / n
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.inf
    return mean, 1.96 * spread / math.sqrt(n)


def main() -> None:
    (a, times_a), (b, times_b) = load(sys.argv[1]), load(sys.argv[2])
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        sys.exit("fewer than two deal sets complete in both files")
    for path, sets, times in ((sys.argv[1], a, times_a), (sys.argv[2], b, times_b)):
        mean, half = interval([lead(sets[k]) for k in common])
        wins = sum(g[3] for k in common for g in sets[k]) / sum(len(sets[k]) for k in common)
        cpu = ""
        if times:
            ordered = sorted(times)
            cpu = f", a decision: median {ordered[len(ordered) // 2]:.3f} s, mean {sum(times) / len(times):.3f} s"
        print(f"{path}: lead {mean:.2f} [{mean - half:.2f}, {mean + half:.2f}], wins {wins:.1%}{cpu}")
    mean, half = interval([lead(b[k]) - lead(a[k]) for k in common])
    print(f"{len(common)} deal sets in both; the second minus the first: "
          f"{mean:+.2f} [{mean - half:.2f}, {mean + half:.2f}]")
    mean, half = interval([100 * (won(b[k]) - won(a[k])) for k in common])
    print(f"wins, the second minus the first: {mean:+.1f} points [{mean - half:.1f}, {mean + half:.1f}]")


if __name__ == "__main__":
    main()
