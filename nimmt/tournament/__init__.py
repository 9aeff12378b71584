"""Tournaments between bots: duplicate deals, statistics with confidence intervals, Plackett-Luce
ratings, a plot, and games run in this process, on a process pool or on a Ray cluster.

>>> summary = tournament(["random", "beginner"], games=4, seed=1)
>>> summary.games, [s.label for s in summary.entries]
(4, ['random', 'beginner'])
"""

from __future__ import annotations

from collections.abc import Sequence

from nimmt.bots import BOTS, UnknownBot
from nimmt.core import MAX_PLAYERS, MIN_PLAYERS, NimmtError

from .play import MatchResult, play_match
from .plot import plot
from .run import Progress, RayUnavailable, run_local, run_ray
from .save import SaveError, SaveFile, Settings, saved_seed
from .schedule import MatchSpec, deal_sets_for, schedule
from .stats import Interval, Standing, Summary, summarize


class TournamentError(NimmtError, ValueError):
    """A tournament that cannot be run as asked (unknown bot, wrong number of players...)."""


def check_bots(bots: Sequence[str]) -> None:
    if not MIN_PLAYERS <= len(bots) <= MAX_PLAYERS:
        raise TournamentError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(bots)}")
    for name in bots:
        if name not in BOTS:
            raise TournamentError(str(UnknownBot(f"unknown bot {name!r}: the bots are {', '.join(sorted(BOTS))}")))


def tournament(
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    jobs: int = 1,
    ray_address: str | None = None,
    time_budget: float | None = None,
    rounds: int | None = None,
    progress: Progress | None = None,
    budget_clock: str | None = None,
    save: SaveFile | None = None,
) -> Summary:
    """Play at least ``games`` games (whole duplicate deal sets) between ``bots`` and sum them up.

    With ``save``, every game is appended to it as soon as it ends; the games it already holds are
    not played again, and the summary covers them all (even those beyond ``games``).
    """
    check_bots(bots)
    if games < 1:
        raise TournamentError(f"play at least one game, not {games}")
    if budget_clock not in (None, "wall", "cpu"):
        raise TournamentError(f"the budget clock is 'wall' or 'cpu', not {budget_clock!r}")
    specs = schedule(
        bots, deal_sets_for(games, len(bots)), seed, time_budget=time_budget, rounds=rounds, budget_clock=budget_clock
    )
    if save is not None:
        wanted = Settings(tuple(bots), seed, rounds, time_budget, budget_clock)
        if save.settings != wanted:
            raise TournamentError(f"the save file was opened for {save.settings}, not for {wanted}")
        specs = [s for s in specs if (s.deal_set, s.rotation) not in save.done]
    finished = None if save is None else save.add
    results = (
        run_ray(specs, ray_address, progress, finished) if ray_address else run_local(specs, jobs, progress, finished)
    )
    if save is not None:
        results = sorted(save.done.values(), key=lambda r: (r.deal_set, r.rotation))
    return summarize(bots, results)


__all__ = [
    "Interval", "MatchResult", "MatchSpec", "RayUnavailable", "SaveError", "SaveFile", "Settings", "Standing",
    "Summary",
    "TournamentError", "check_bots", "deal_sets_for", "play_match", "plot", "run_local",
    "run_ray", "saved_seed", "schedule", "summarize", "tournament",
]
