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

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .seats import Seat


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """One game of a tournament: which deal set, which rotation, which bot sits where."""

    seed: int
    deal_set: int
    rotation: int
    seats: tuple[Seat | str, ...]  # the bot of each seat: a Seat, or a name (built-in or "cmd:...")
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
    bots: Sequence[Seat | str],
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


def field_table(
    tested: Seat | str, field: Sequence[Seat | str], players: int, seed: int, deal_set: int
) -> tuple[Seat | str, ...]:
    """The table of deal set ``deal_set`` in a tournament against a field: the tested bot and
    ``players - 1`` opponents drawn at random from ``field`` (each at most once while the field
    lasts, then again), the same for the same seed and deal set.

    >>> table = field_table("expert", ["a", "b", "c", "d"], 3, seed=1, deal_set=0)
    >>> table == field_table("expert", ["a", "b", "c", "d"], 3, seed=1, deal_set=0), table[0], len(set(table))
    (True, 'expert', 3)
    """
    rng = random.Random(f"nimmt-tournament:{seed}:field:{deal_set}")
    opponents: list[Seat | str] = []
    while len(opponents) < players - 1:
        pool = list(field)
        rng.shuffle(pool)
        opponents.extend(pool[: players - 1 - len(opponents)])
    return (tested, *opponents)


def schedule_field(
    tested: Seat | str,
    field: Sequence[Seat | str],
    players: int,
    deal_sets: int,
    seed: int,
    time_budget: float | None = None,
    rounds: int | None = None,
    budget_clock: str | None = None,
) -> list[MatchSpec]:
    """Every deal set at its own table drawn from the field (:func:`field_table`), with every
    rotation of the seats: ``entries`` index that deal set's table, the tested bot being entry 0."""
    matches: list[MatchSpec] = []
    for deal_set in range(deal_sets):
        table = field_table(tested, field, players, seed, deal_set)
        matches.extend(replace(spec, deal_set=deal_set) for spec in schedule(
            table, 1, seed, time_budget=time_budget, rounds=rounds, budget_clock=budget_clock))
    return matches
