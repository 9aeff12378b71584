"""How far is a bot from a win share? (docs/ladder.md, "How much lead a win share takes at 10 players".)

Reads a save file of ``nimmt tournament`` (``--save``; the first bot of its header is the one read)
and prints the first bot's share of wins in those very games had it taken ``d`` bullheads fewer in
each round it played, for ``d`` from 0 to 5 (a tie for the lowest total shares the win). The deals,
the other seats' play and the number of rounds stay as they were, so it is a counterfactual, not a
game: it says how many bullheads a round a win share lies away at that table, not how to get them.
A second line does the same for spread: the first bot's share had each of its game totals lain ``k``
times as far from its mean (its mean bullheads a round over the file times the game's rounds), for
``k`` in 0.5, 0.8, 1, 1.2 and 1.5, with its standard deviation a round and the other seats'.

    python docs/figures/e31-shift.py docs/figures/runs/screens/s7-10p-dmc-expert.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys


def shifted_wins(path: str, shifts: range = range(6)) -> dict[int, float]:
    """shift (bullheads a round) -> the first bot's share of wins over the file's games."""
    with open(path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    first = json.loads(lines[0])["bots"][0]
    games = [json.loads(line) for line in lines[1:]]
    if not games:
        raise SystemExit(f"{path}: no games")
    # Each game once: the first bot's seat, the number of rounds, every seat's total.
    played = []
    for game in games:
        rounds = game["rounds"]
        totals = [sum(r[seat] for r in rounds) for seat in range(len(game["seats"]))]
        played.append((game["seats"].index(first), len(rounds), totals))
    shares = {}
    for d in shifts:
        won = 0.0
        for me, count, totals in played:
            shifted = totals.copy()
            shifted[me] -= d * count
            lowest = min(shifted)
            if shifted[me] == lowest:
                won += 1 / shifted.count(lowest)
        shares[d] = won / len(games)
    return shares


def spread_wins(
    path: str, scales: tuple[float, ...] = (0.5, 0.8, 1.0, 1.2, 1.5)
) -> tuple[dict[float, float], float, float]:
    """scale -> the first bot's share of wins had its totals spread ``scale`` times as wide around its
    mean; with its standard deviation of bullheads a round and the other seats' (over every round)."""
    with open(path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    first = json.loads(lines[0])["bots"][0]
    games = [json.loads(line) for line in lines[1:]]
    if not games:
        raise SystemExit(f"{path}: no games")
    mine: list[int] = []
    theirs: list[int] = []
    played = []
    for game in games:
        me = game["seats"].index(first)
        rounds = game["rounds"]
        mine += [r[me] for r in rounds]
        theirs += [x for r in rounds for seat, x in enumerate(r) if seat != me]
        played.append((me, len(rounds), [sum(r[seat] for r in rounds) for seat in range(len(game["seats"]))]))
    mean = statistics.fmean(mine)
    shares = {}
    for k in scales:
        won = 0.0
        for me, count, totals in played:
            spread = [float(t) for t in totals]
            spread[me] = mean * count + k * (totals[me] - mean * count)
            lowest = min(spread)
            if spread[me] == lowest:
                won += 1 / spread.count(lowest)
        shares[k] = won / len(games)
    return shares, statistics.pstdev(mine), statistics.pstdev(theirs)


def main(paths: list[str]) -> None:
    if not paths:
        raise SystemExit(__doc__)
    for path in paths:
        shares = shifted_wins(path)
        print(path, " ".join(f"{d}: {100 * s:.1f}%" for d, s in shares.items()))
        spread, sd, others = spread_wins(path)
        print(f"  spread (sd a round {sd:.1f}, the others' {others:.1f}):",
              " ".join(f"x{k}: {100 * s:.1f}%" for k, s in spread.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
