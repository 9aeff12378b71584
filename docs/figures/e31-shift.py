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
from collections.abc import Callable

Round = list[int]  # every seat's bullheads in one round
Game = tuple[int, list[Round]]  # the first bot's seat, the game's rounds


def read_games(path: str) -> list[Game]:
    """The file's games, each with the seat of the first bot of its header."""
    with open(path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    first = json.loads(lines[0])["bots"][0]
    games = [json.loads(line) for line in lines[1:]]
    if not games:
        raise SystemExit(f"{path}: no games")
    return [(game["seats"].index(first), game["rounds"]) for game in games]


def played_totals(games: list[Game]) -> list[tuple[int, int, list[float]]]:
    """Each game once: the first bot's seat, the number of rounds, every seat's total."""
    return [(me, len(rounds), [float(sum(seat)) for seat in zip(*rounds, strict=True)]) for me, rounds in games]


def won_share(totals: list[float], me: int) -> float:
    """``me``'s share of the win with these totals (a tie for the lowest shares it)."""
    lowest = min(totals)
    return 1 / totals.count(lowest) if totals[me] == lowest else 0.0


def share_if(played: list[tuple[int, int, list[float]]], mine: Callable[[int, float], float]) -> float:
    """The first bot's share of wins over ``played`` (:func:`played_totals`) had its total been
    ``mine(rounds, total)`` in each game."""
    won = 0.0
    for me, count, totals in played:
        changed = totals.copy()
        changed[me] = mine(count, totals[me])
        won += won_share(changed, me)
    return won / len(played)


def shifted_wins(path: str, shifts: range = range(6)) -> dict[int, float]:
    """shift (bullheads a round) -> the first bot's share of wins over the file's games."""
    games = read_games(path)

    def shifted(d: int) -> Callable[[int, float], float]:
        return lambda count, total: total - d * count

    played = played_totals(games)
    return {d: share_if(played, shifted(d)) for d in shifts}


def spread_wins(
    path: str, scales: tuple[float, ...] = (0.5, 0.8, 1.0, 1.2, 1.5)
) -> tuple[dict[float, float], float, float]:
    """scale -> the first bot's share of wins had its totals spread ``scale`` times as wide around its
    mean; with its standard deviation of bullheads a round and the other seats' (over every round)."""
    games = read_games(path)
    mine = [r[me] for me, rounds in games for r in rounds]
    theirs = [x for me, rounds in games for r in rounds for seat, x in enumerate(r) if seat != me]
    mean = statistics.fmean(mine)

    def spread(k: float) -> Callable[[int, float], float]:
        return lambda count, total: mean * count + k * (total - mean * count)

    played = played_totals(games)
    shares = {k: share_if(played, spread(k)) for k in scales}
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
