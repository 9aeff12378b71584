"""``nimmt tournament``: bots against bots over duplicate deals, with intervals, ratings and a plot."""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from nimmt.tournament import RayUnavailable, Standing, Summary, TournamentError, plot, tournament

from ._common import check_players, fresh_seed, parse_bots


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _pm(mean: float, half: float | None, digits: int = 2) -> str:
    return _fmt(mean, digits) + ("" if half is None else f" ± {_fmt(half, digits)}")


def _table(title: str, standings: tuple[Standing, ...], ratings: bool) -> Table:
    table = Table(title=title)
    for column in ("bot", "rounds", "penalty/round (95% CI)", "vs first", "win share", "p95 decision",
                   "p95 CPU"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    if ratings:
        table.add_column("rating (mu ± sigma)", justify="right")
    for s in standings:
        diff = s.difference_to_first
        cells = [
            s.label,
            str(s.rounds),
            _pm(s.penalty_per_round.mean, s.penalty_per_round.half_width),
            "-" if diff is None else _pm(diff.mean, diff.half_width),
            _pm(s.win_share.mean, s.win_share.half_width, 3),
            f"{_fmt(s.timing.p95 * 1000, 1)} ms",
            f"{_fmt(s.timing.cpu_p95 * 1000, 1)} ms",
        ]
        if ratings:
            cells.append(f"{_fmt(s.rating_mu)} ± {_fmt(s.rating_sigma)}")
        table.add_row(*cells)
    return table


def _print(summary: Summary, seed: int, elapsed: float, console: Console) -> None:
    console.print(
        f"{summary.games} games over {summary.deal_sets} duplicate deal sets, seed {seed}, {elapsed:.1f} s"
    )
    console.print(_table("Entries", summary.entries, ratings=True))
    if len(summary.by_bot) < len(summary.entries):
        console.print(_table("By bot (entries of the same bot pooled)", summary.by_bot, ratings=False))
    console.print(
        "penalty/round: bullheads per round, mean over deal sets; vs first: paired difference to the "
        "first entry (positive: more bullheads than it); win share: ties share the win."
    )


def tournament_command(
    bots: Annotated[str, typer.Option("--bots", help="Bots by seat, comma-separated (one name fills every seat).")],
    games: Annotated[
        int, typer.Option("--games", help="Games to play (rounded up to whole duplicate deal sets).")
    ] = 40,
    players: Annotated[
        int | None, typer.Option("--players", help="Players per game (default: the number of bots listed, or 4).")
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", help="Processes playing games at once on this machine.")] = 1,
    seed: Annotated[int | None, typer.Option("--seed", help="Base seed: the same seed deals the same cards.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as one JSON object.")] = False,
    plot_file: Annotated[Path | None, typer.Option("--plot", help="Write a PNG chart of the results here.")] = None,
    ray_address: Annotated[
        str | None, typer.Option("--ray", help="Spread the games over the Ray cluster at ADDRESS (host:port).")
    ] = None,
    time_budget: Annotated[
        float | None, typer.Option("--time-budget", help="Seconds per decision for bots that search (expert).")
    ] = None,
    rounds: Annotated[int | None, typer.Option("--rounds", help="A fixed number of rounds per game.")] = None,
    budget_clock: Annotated[
        str | None,
        typer.Option("--budget-clock", help="Clock of the time budget: wall (default) or cpu (one core's time)."),
    ] = None,
) -> None:
    """Play bots against each other over duplicate deals and report penalties, wins and ratings."""
    count = players if players is not None else (len(bots.split(",")) if "," in bots else 4)
    check_players(count)
    names = parse_bots(bots, count)
    if games < 1:
        raise typer.BadParameter(f"play at least one game, not {games}", param_hint="--games")
    if jobs < 1:
        raise typer.BadParameter(f"use at least one job, not {jobs}", param_hint="--jobs")
    if time_budget is not None and not time_budget > 0:
        raise typer.BadParameter(f"a time budget is a positive number of seconds, not {time_budget}",
                                 param_hint="--time-budget")
    if budget_clock not in (None, "wall", "cpu"):
        raise typer.BadParameter(f"the budget clock is wall or cpu, not {budget_clock!r}", param_hint="--budget-clock")
    if rounds is not None and rounds < 1:
        raise typer.BadParameter(f"play at least one round, not {rounds}", param_hint="--rounds")
    if plot_file is not None and not plot_file.parent.is_dir():
        raise typer.BadParameter(f"the folder {str(plot_file.parent)!r} does not exist", param_hint="--plot")
    if seed is None:
        seed = fresh_seed()
    console = Console(stderr=True)
    start = time.perf_counter()
    with Progress(
        TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=True,
    ) as bar:
        total = -(-games // count) * count
        task = bar.add_task("games", total=total)
        try:
            summary = tournament(
                names, games, seed=seed, jobs=jobs, ray_address=ray_address, time_budget=time_budget,
                rounds=rounds, progress=lambda done: bar.advance(task, done), budget_clock=budget_clock,
            )
        except (TournamentError, RayUnavailable) as error:
            bar.stop()
            console.print(f"[red]error:[/red] {error}")
            raise typer.Exit(2) from None
    elapsed = time.perf_counter() - start
    if plot_file is not None:
        plot(summary, plot_file)
    if as_json:
        data = {
            "seed": seed,
            "players": count,
            "jobs": jobs,
            "ray": ray_address,
            "time_budget": time_budget,
            "rounds": rounds,
            "budget_clock": budget_clock,
            "seconds": elapsed,
            **summary.to_json(),
        }
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        out = Console() if sys.stdout.isatty() else Console(width=140)
        _print(summary, seed, elapsed, out)
        if plot_file is not None:
            out.print(f"chart written to {plot_file}")


def register(app: typer.Typer) -> None:
    app.command("tournament")(tournament_command)
