"""Tournaments between bots: duplicate deals, statistics with confidence intervals, Plackett-Luce
ratings, a plot, and games run in this process, on a process pool or on a Ray cluster.

Any bot takes a seat: a built-in bot by name, another program (``"cmd:<command line>"``, or a
:class:`Seat` from a bots file, see :mod:`nimmt.tournament.seats`), and a bot can also be measured
against tables drawn from a field of styles (``field=``, see :mod:`nimmt.bots.field`).

>>> summary = tournament(["random", "beginner"], games=4, seed=1)
>>> summary.games, [s.label for s in summary.entries]
(4, ['random', 'beginner'])
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

from nimmt.bots.base import DEFAULT_TIME_BUDGET
from nimmt.core import MAX_PLAYERS, MIN_PLAYERS, NimmtError

from .play import GameFailed, MatchResult, play_match
from .plot import plot
from .run import Progress, RayUnavailable, run_local, run_ray
from .save import SaveError, SaveFile, Settings, saved_seed
from .schedule import MatchSpec, deal_sets_for, field_table, schedule, schedule_field
from .seats import KNOWN, Seat, SeatError, as_seat, entry_labels, parse_seats, program_name, read_bots_file
from .stats import Interval, Standing, Summary, complete_sets, summarize, summarize_field

DEFAULT_BUDGET_CLOCK = "cpu"  # a tournament measures bots, not the machine's load (see docs/ladder.md)


class TournamentError(NimmtError, ValueError):
    """A tournament that cannot be run as asked (unknown bot, wrong number of players...)."""


def takes_budget(seat: Seat | str) -> bool:
    """Whether the tournament's time budget reaches this seat: a built-in bot that searches on a clock
    (it takes a ``time_budget``) and whose options do not set its own."""
    spec = as_seat(seat)
    if spec.is_program or spec.bot not in KNOWN or "time_budget" in dict(spec.options):
        return False
    return "time_budget" in inspect.signature(KNOWN[spec.bot].__init__).parameters


def budget_in_force(seats: Sequence[Seat | str], time_budget: float | None) -> float | None:
    """The time budget a tournament's searching bots run with: the one given, else the default's
    number (:data:`~nimmt.bots.base.DEFAULT_TIME_BUDGET`) when a seat takes it, else None (no seat
    searches on the tournament's budget). Written in the save file and the JSON as it is in force."""
    if time_budget is not None:
        return time_budget
    return DEFAULT_TIME_BUDGET if any(takes_budget(s) for s in seats) else None


def check_bots(bots: Sequence[Seat | str]) -> list[Seat]:
    """The seats of ``bots``; a :class:`TournamentError` for a wrong number or an unknown bot."""
    if not MIN_PLAYERS <= len(bots) <= MAX_PLAYERS:
        raise TournamentError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(bots)}")
    try:
        return [as_seat(b) for b in bots]
    except SeatError as error:
        raise TournamentError(str(error)) from None


def tournament(
    bots: Sequence[Seat | str],
    games: int,
    seed: int = 0,
    jobs: int = 1,
    ray_address: str | None = None,
    time_budget: float | None = None,
    rounds: int | None = None,
    progress: Progress | None = None,
    budget_clock: str | None = DEFAULT_BUDGET_CLOCK,
    save: SaveFile | None = None,
    field: Sequence[Seat | str] | None = None,
    players: int | None = None,
) -> Summary:
    """Play at least ``games`` games (whole duplicate deal sets) between ``bots`` and sum them up.

    ``bots`` are built-in bot names, ``"cmd:<command line>"`` programs or :class:`Seat` objects.
    With ``field``, ``bots`` is the one bot measured, and each deal set is played at a table of
    ``players`` drawn from ``field`` (seeded, with every rotation of the seats).

    With ``save``, every game is appended to it as soon as it ends; the games it already holds are
    not played again, and the summary covers them all (even those beyond ``games``).
    Bots that search get ``time_budget`` on ``budget_clock`` (the CPU clock by default: one core's
    time, whatever the machine's load). A program that fails stops the tournament with
    :class:`GameFailed`.
    """
    if field:
        if len(bots) != 1:
            raise TournamentError(f"against a field, one bot is measured, not {len(bots)}")
        count = players if players is not None else 4
        seats = check_bots([bots[0]] * count)[:1]
        try:
            field_seats = [as_seat(f) for f in field]
        except SeatError as error:
            raise TournamentError(str(error)) from None
        field_seats = [f for f in field_seats if f.key != seats[0].key] or field_seats
    else:
        seats = check_bots(bots)
        count = len(seats)
        if players is not None and players != count:
            raise TournamentError(f"{count} bots listed for {players} seats")
    if games < 1:
        raise TournamentError(f"play at least one game, not {games}")
    if budget_clock not in (None, "wall", "cpu"):
        raise TournamentError(f"the budget clock is 'wall' or 'cpu', not {budget_clock!r}")
    deal_sets = deal_sets_for(games, count)
    time_budget = budget_in_force([*seats, *(field_seats if field else [])], time_budget)
    if field:
        specs = schedule_field(seats[0], field_seats, count, deal_sets, seed, time_budget=time_budget,
                               rounds=rounds, budget_clock=budget_clock)
    else:
        specs = schedule(seats, deal_sets, seed, time_budget=time_budget, rounds=rounds, budget_clock=budget_clock)
    if save is not None:
        wanted = settings_of(seats, seed, rounds, time_budget, budget_clock, field_seats if field else None, count)
        if save.settings != wanted:
            raise TournamentError(f"the save file was opened for {save.settings}, not for {wanted}")
        specs = [s for s in specs if (s.deal_set, s.rotation) not in save.done]
    finished = None if save is None else save.add
    results = (
        run_ray(specs, ray_address, progress, finished) if ray_address else run_local(specs, jobs, progress, finished)
    )
    if save is not None:
        results = sorted(save.done.values(), key=lambda r: (r.deal_set, r.rotation))
    return summary_of(seats, results, field_seats if field else None)


def summary_of(
    bots: Sequence[Seat | str], results: Sequence[MatchResult], field: Sequence[Seat | str] | None = None
) -> Summary:
    """The summary of games already played (a save file's, a stopped run's): by entry, or with
    ``field`` for the one bot of ``bots`` against that field. Only deal sets played in every rotation
    count; the others are named in :attr:`Summary.incomplete`."""
    if field:
        seat = as_seat(bots[0])
        field_seats = [f for f in (as_seat(f) for f in field) if f.key != seat.key] or [as_seat(f) for f in field]
        return summarize_field(seat, field_seats, results)
    return summarize([as_seat(b) for b in bots], results)


def settings_of(
    bots: Sequence[Seat | str],
    seed: int,
    rounds: int | None = None,
    time_budget: float | None = None,
    budget_clock: str | None = DEFAULT_BUDGET_CLOCK,
    field: Sequence[Seat | str] | None = None,
    players: int | None = None,
) -> Settings:
    """The settings a save file keeps for this tournament."""
    keys = tuple(as_seat(b).key for b in bots)
    time_budget = budget_in_force([*bots, *(field or ())], time_budget)
    if field:
        first = keys[0]
        field_keys = tuple(k for k in (as_seat(f).key for f in field) if k != first) or tuple(
            as_seat(f).key for f in field)
        return Settings(keys, seed, rounds, time_budget, budget_clock, field_keys, players)
    return Settings(keys, seed, rounds, time_budget, budget_clock)


__all__ = [
    "DEFAULT_BUDGET_CLOCK", "DEFAULT_TIME_BUDGET", "GameFailed", "Interval", "MatchResult", "MatchSpec",
    "RayUnavailable", "SaveError", "SaveFile", "Seat", "SeatError", "Settings", "Standing", "Summary",
    "TournamentError", "as_seat", "budget_in_force", "check_bots", "complete_sets", "deal_sets_for", "entry_labels",
    "field_table", "parse_seats", "play_match", "plot", "program_name", "read_bots_file", "run_local", "run_ray",
    "saved_seed", "schedule", "schedule_field", "settings_of", "summarize", "summarize_field", "summary_of",
    "takes_budget", "tournament",
]
