"""Duplicate deals: every deal set is played once per rotation of the seats.

A *deal set* is the whole sequence of deals of one game, drawn from its own seeded source, so each
rotation of the same deal set sees the same rows and the same hands round after round (as long as
the games last equally long). In rotation ``k`` seat ``s`` is taken by entry ``(s + k) % players``
of the bot list, so every entry plays every hand of the deal set once: luck of the deal cancels in
the comparison.

>>> [m.seats for m in schedule(("a", "b", "c"), deal_sets=1, seed=0)]
[('a', 'b', 'c'), ('b', 'c', 'a'), ('c', 'a', 'b')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """One game of a tournament: which deal set, which rotation, which bot sits where."""

    seed: int
    deal_set: int
    rotation: int
    seats: tuple[str, ...]  # bot name per seat
    entries: tuple[int, ...]  # index in the tournament's bot list per seat
    time_budget: float | None = None
    rounds: int | None = None  # a fixed number of rounds, or None for the classic end (above 66)
    budget_clock: str | None = None  # "wall" or "cpu": which clock a bot's time budget runs on

    @property
    def deal_seed(self) -> str:
        return f"nimmt-tournament:{self.seed}:deals:{self.deal_set}"

    def bot_seed(self, seat: int) -> str:
        return f"nimmt-tournament:{self.seed}:bot:{self.deal_set}:{self.rotation}:{seat}"


def deal_sets_for(games: int, players: int) -> int:
    """How many deal sets give at least ``games`` games (each deal set is played ``players`` times)."""
    return max(1, -(-games // players))


def schedule(
    bots: Sequence[str],
    deal_sets: int,
    seed: int,
    time_budget: float | None = None,
    rounds: int | None = None,
    budget_clock: str | None = None,
) -> list[MatchSpec]:
    """Every deal set with every rotation of the seats, in a fixed order."""
    players = len(bots)
    matches = []
    for deal_set in range(deal_sets):
        for rotation in range(players):
            entries = tuple((seat + rotation) % players for seat in range(players))
            matches.append(
                MatchSpec(
                    seed=seed,
                    deal_set=deal_set,
                    rotation=rotation,
                    seats=tuple(bots[e] for e in entries),
                    entries=entries,
                    time_budget=time_budget,
                    rounds=rounds,
                    budget_clock=budget_clock,
                )
            )
    return matches
