"""``nimmt tournament``: bots against bots over duplicate deals, with intervals, ratings and a plot."""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from nimmt import i18n
from nimmt.bots.field import DEFAULT_FIELD
from nimmt.tournament import (
    DEFAULT_BUDGET_CLOCK,
    GameFailed,
    RayUnavailable,
    SaveError,
    SaveFile,
    Seat,
    SeatError,
    Settings,
    Standing,
    Summary,
    TournamentError,
    budget_in_force,
    deal_sets_for,
    parse_seats,
    plot,
    read_bots_file,
    saved_seed,
    settings_of,
    summary_of,
    tournament,
)

from ._common import (
    DOMAIN,
    Translate,
    check_players,
    choose_language,
    failure_message,
    fresh_seed,
    number,
    reason_from_text,
)


def _pm(mean: float | None, half: float | None, language: str, digits: int = 2) -> str:
    return number(mean, digits, language) + ("" if half is None else f" ± {number(half, digits, language)}")


def _share(s: Standing, language: str) -> str:
    """A win share with its interval, which is not symmetric near 0 or 1: "1.000 (0.963-1.000)"."""
    share = s.win_share
    if share.low is None or share.high is None:
        return number(share.mean, 3, language)
    return f"{number(share.mean, 3, language)} ({number(share.low, 3, language)}-{number(share.high, 3, language)})"


def _table(title: str, standings: tuple[Standing, ...], ratings: bool, _: Translate, language: str) -> Table:
    table = Table(title=title)
    table.add_column(_("col_bot"), justify="left")
    for key in ("col_rounds", "col_penalty_round_short", "col_penalty_game_short", "col_vs_first", "col_win_share",
                "col_p95_decision", "col_p95_cpu"):
        table.add_column(_(key), justify="right")
    if ratings:
        table.add_column(_("col_rating"), justify="right")
    for s in standings:
        diff = s.difference_to_first
        cells = [
            s.label,
            str(s.rounds),
            _pm(s.penalty_per_round.mean, s.penalty_per_round.half_width, language),
            "-" if s.penalty_per_game is None else _pm(s.penalty_per_game.mean, s.penalty_per_game.half_width, language,
                                                       1),
            "-" if diff is None else _pm(diff.mean, diff.half_width, language),
            _share(s, language),
            f"{number(s.timing.p95 * 1000, 1, language)} ms",
            f"{number(s.timing.cpu_p95 * 1000, 1, language)} ms",
        ]
        if ratings:
            cells.append(f"{number(s.rating_mu, 2, language)} ± {number(s.rating_sigma, 2, language)}")
        table.add_row(*cells)
    return table


def _lead(summary: Summary, _: Translate, language: str) -> str | None:
    lead = summary.lead
    if lead is None or lead.low is None or lead.high is None:
        return None
    return _("lead_line", bot=summary.entries[0].label, lead=number(lead.mean, 2, language),
             low=number(lead.low, 2, language), high=number(lead.high, 2, language))


def _print(summary: Summary, seed: int, console: Console, _: Translate, language: str, players: int) -> None:
    elapsed = summary.seconds  # the games' own time, also when they were read back from a save file
    if summary.field:
        console.print(_("field_heading", bot=escape(summary.entries[0].label), players=players, games=summary.games,
                        sets=summary.deal_sets, seed=seed, seconds=number(elapsed, 1, language)))
        console.print(_table(_("field_title"), summary.entries, True, _, language))
    else:
        console.print(_("tournament_heading", games=summary.games, sets=summary.deal_sets, seed=seed,
                        seconds=number(elapsed, 1, language)))
        console.print(_table(_("entries_title"), summary.entries, True, _, language))
        if len(summary.by_bot) < len(summary.entries):
            console.print(_table(_("by_bot_title"), summary.by_bot, False, _, language))
    lead = _lead(summary, _, language)
    if lead is not None:
        console.print(escape(lead))
    for note in _notes(summary, _):
        _say(console, note)
    console.print(_("tournament_legend"))


def _notes(summary: Summary, _: Translate) -> list[str]:
    """What the figures leave out: deal sets not played in every rotation, games saved without their time."""
    notes = []
    if summary.incomplete:
        which = ", ".join(f"{d} ({n})" for d, n in summary.incomplete)
        notes.append(_("incomplete_left_out", games=sum(n for _, n in summary.incomplete),
                       sets=len(summary.incomplete), which=which))
    if summary.untimed:
        notes.append(_("untimed_games", count=summary.untimed))
    return notes


# The messages nimmt.tournament.run gives when Ray cannot be used, with their values.
_RAY = (
    (r"a Ray address is host:port \(for example (?P<example>\S+)\), not (?P<address>.*)", "ray_bad_address"),
    (r"cannot reach a Ray cluster at (?P<address>\S+): (?P<reason>.*)", "ray_unreachable"),
    (r"Ray is not installed: (?P<command>.*)", "ray_missing"),
)


def _error(error: Exception, _: Translate) -> str:
    """A tournament that could not run, told in the page's language (unknown texts kept as they are)."""
    message = str(error)
    if isinstance(error, RayUnavailable):
        for pattern, key in _RAY:
            found = re.fullmatch(pattern, message, re.DOTALL)
            if found:
                values = found.groupdict()
                if "reason" in values:
                    values["reason"] = reason_from_text(values["reason"], _)
                return _(key, **values)
    return message


def _say(console: Console, text: str) -> None:
    """One plain line (no markup, no colours guessed, no wrapping in a log file)."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


class _PlainProgress:
    """Progress for a stderr that is not a terminal (a log file, a pipe): one plain line at each
    tenth of the games and at least once a minute, instead of a bar nobody sees."""

    def __init__(self, done: int, total: int, console: Console, _: Translate, every: float = 60.0) -> None:
        self.done, self.total, self.console, self._, self.every = done, total, console, _, every
        self.step = -(-total // 10)
        self.shown = time.monotonic()

    def __call__(self, finished: int) -> None:
        before, self.done = self.done, self.done + finished
        now = time.monotonic()
        if self.done // self.step > before // self.step or self.done == self.total or now - self.shown >= self.every:
            self.shown = now
            _say(self.console, self._("progress_plain", done=self.done, total=self.total))


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """A ``kill`` (SIGTERM) stops the run as Ctrl-C does, so the games played so far are kept and told."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _seat_error(error: SeatError, _: Translate) -> str:
    values = dict(error.values)
    if "reason" in values and error.key == "bots_file_unreadable":
        values["reason"] = reason_from_text(values["reason"], _)
    return _(error.key, **values)


def _seats(spec: str | None, bots_file: Path | None, option: str, _: Translate) -> list[Seat] | None:
    """The seats ``spec`` names (with the bots of ``bots_file``), or the file's own seats."""
    named: dict[str, Seat] = {}
    listed: list[Seat] = []
    try:
        if bots_file is not None:
            named, listed = read_bots_file(bots_file)
        if spec is None:
            return listed or None
        return parse_seats(spec, named)
    except SeatError as error:
        hint = "--bots-file" if error.key.startswith("bots_file") else option
        raise typer.BadParameter(_seat_error(error, _), param_hint=hint) from None


def tournament_command(
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            help="Bots by seat, comma-separated: built-in names, field:NAME, cmd:COMMAND LINE (quote a comma in it), "
                 "names from --bots-file; N*BOT for N seats. One name fills every seat.",
        ),
    ] = None,
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
        float | None,
        typer.Option("--time-budget", help="Seconds per decision for bots that search (expert, field:dmc; default 1)."),
    ] = None,
    rounds: Annotated[int | None, typer.Option("--rounds", help="A fixed number of rounds per game.")] = None,
    budget_clock: Annotated[
        str,
        typer.Option("--budget-clock", help="Clock of the time budget: cpu (default: one core's time, whatever the "
                                            "load) or wall."),
    ] = DEFAULT_BUDGET_CLOCK,
    bots_file: Annotated[
        Path | None,
        typer.Option(
            "--bots-file", metavar="FILE",
            help="A TOML or JSON file of named bots (a program's command and arguments, time limits, folder, "
                 "environment; or a built-in bot with options), to name in --bots or, without --bots, to seat "
                 "as the file says.",
        ),
    ] = None,
    field: Annotated[
        bool,
        typer.Option("--field", help="Measure the one bot of --bots at tables drawn from a field of styles "
                                     "(seeded, duplicate deals)."),
    ] = False,
    field_bots: Annotated[
        str | None,
        typer.Option("--field-bots", metavar="BOTS",
                     help=f"The field to draw tables from (default: {', '.join(DEFAULT_FIELD)})."),
    ] = None,
    save_file: Annotated[
        Path | None,
        typer.Option(
            "--save", metavar="FILE",
            help="Append every finished game to FILE (JSON lines); games FILE already holds from the same "
                 "settings are not played again, and the results cover them all.",
        ),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang", "-l", metavar="LANG",
            help=f"Language of the output and the chart: {', '.join(i18n.LANGUAGES)} (default: from your locale).",
        ),
    ] = None,
) -> None:
    """Play bots against each other over duplicate deals and report penalties, wins and ratings.

    Any program speaking nimmt-bot/1 takes a seat (cmd:..., or a bots file); each is told bye after
    every game. With --field, one bot plays tables drawn from a field of styles.
    """
    language = choose_language(lang, "tournament")
    _ = i18n.translator(language, DOMAIN)
    seats, opponents, count = _lineup(bots, bots_file, field, field_bots, players, _)
    _check_options(games, jobs, time_budget, budget_clock, rounds, plot_file, _)
    plan = _Plan(seats=seats, field=opponents, players=count, games=games, jobs=jobs, ray_address=ray_address,
                 time_budget=time_budget, rounds=rounds, budget_clock=budget_clock)
    console = Console(stderr=True)
    save: SaveFile | None = None
    if save_file is not None:
        save, seed = _open_save(save_file, seed, plan, console, _)
    if seed is None:
        seed = fresh_seed()
    start = time.perf_counter()
    summary, stopped = _play(plan, seed, save, save_file, console, _)
    elapsed = time.perf_counter() - start
    if stopped and not summary.games:
        raise typer.Exit(130)
    if plot_file is not None:
        plot(summary, plot_file, language)
    if as_json:
        _print_json(summary, plan, seed, save_file, elapsed)
    else:
        out = Console() if sys.stdout.isatty() else Console(width=160)
        _print(summary, seed, out, _, language, count)
        if plot_file is not None:
            out.print(_("chart_written", file=escape(str(plot_file))))
    if stopped:
        raise typer.Exit(130)


def _lineup(bots: str | None, bots_file: Path | None, field: bool, field_bots: str | None, players: int | None,
            _: Translate) -> tuple[list[Seat], list[Seat] | None, int]:
    """The seats, the field's styles (with --field or --field-bots; else None) and the players per
    game that the options ask for, checked against each other."""
    seats = _seats(bots, bots_file, "--bots", _)
    if seats is None:
        raise typer.BadParameter(_("bots_needed"), param_hint="--bots")
    opponents: list[Seat] | None = None
    if field or field_bots is not None:
        if len({s.key for s in seats}) != 1:
            raise typer.BadParameter(_("field_one_bot", count=len(seats)), param_hint="--bots")
        seats = seats[:1]
        opponents = _seats(field_bots or ",".join(DEFAULT_FIELD), bots_file, "--field-bots", _)
        assert opponents is not None
        count = players if players is not None else 4
    else:
        single = bots is not None and len(seats) == 1 and "*" not in bots
        count = players if players is not None else (4 if single else len(seats))
    check_players(count, _)
    if opponents is None and len(seats) == 1:
        seats = seats * count
    if opponents is None and len(seats) != count:
        raise typer.BadParameter(_("bots_count", count=len(seats), seats=count), param_hint="--bots")
    return seats, opponents, count


def _check_options(games: int, jobs: int, time_budget: float | None, budget_clock: str, rounds: int | None,
                   plot_file: Path | None, _: Translate) -> None:
    """Refuse the numbers, clock and chart folder no tournament can use (the first wrong one is told)."""
    if games < 1:
        raise typer.BadParameter(_("games_min", games=games), param_hint="--games")
    if jobs < 1:
        raise typer.BadParameter(_("jobs_min", jobs=jobs), param_hint="--jobs")
    if time_budget is not None and not time_budget > 0:
        raise typer.BadParameter(_("time_budget_positive", value=time_budget), param_hint="--time-budget")
    if budget_clock not in ("wall", "cpu"):
        raise typer.BadParameter(_("budget_clock", value=repr(budget_clock)), param_hint="--budget-clock")
    if rounds is not None and rounds < 1:
        raise typer.BadParameter(_("rounds_min", rounds=rounds), param_hint="--rounds")
    if plot_file is not None and not plot_file.parent.is_dir():
        raise typer.BadParameter(_("plot_folder_missing", folder=repr(str(plot_file.parent))), param_hint="--plot")


@dataclass(frozen=True, slots=True)
class _Plan:
    """The tournament the options ask for, checked: who plays, how many games, how the bots think."""

    seats: list[Seat]
    field: list[Seat] | None  # the styles --field draws tables from; None for bots against each other
    players: int
    games: int
    jobs: int
    ray_address: str | None
    time_budget: float | None
    rounds: int | None
    budget_clock: str

    def settings(self, seed: int) -> Settings:
        """What a save file's games must share with this tournament."""
        return settings_of(self.seats, seed, self.rounds, self.time_budget, self.budget_clock, self.field,
                           self.players)

    def play(self, seed: int, save: SaveFile | None, progress: Callable[[int], None]) -> Summary:
        return tournament(
            self.seats, self.games, seed=seed, jobs=self.jobs, ray_address=self.ray_address,
            time_budget=self.time_budget, rounds=self.rounds, progress=progress, budget_clock=self.budget_clock,
            save=save, field=self.field, players=self.players,
        )


def _open_save(save_file: Path, seed: int | None, plan: _Plan, console: Console,
               _: Translate) -> tuple[SaveFile, int]:
    """The file of --save, and the seed to play with: the one given, else the file's own (going on
    with a saved tournament needs only its file), else a fresh one."""
    if seed is None:
        seed = saved_seed(save_file)
    if seed is None:
        seed = fresh_seed()
    try:
        save = SaveFile.open(save_file, plan.settings(seed))
    except SaveError as error:
        raise typer.BadParameter(_(error.key, **error.values), param_hint="--save") from None
    if save.cut_short is not None:
        _say(console, _("save_cut_short", line=save.cut_short, file=repr(str(save_file))))
    if save.done:
        _say(console, _("save_resumed", count=len(save.done), file=repr(str(save_file))))
    return save, seed


@contextmanager
def _progress(console: Console, total: int, already: int, _: Translate) -> Iterator[Callable[[int], None]]:
    """What to tell of each game that ends: a bar in a terminal, a plain line now and then elsewhere."""
    with Progress(
        TextColumn(escape(_("progress_games"))), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=True, disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task(_("progress_games"), total=total, completed=already)
        if console.is_terminal:
            yield lambda done: bar.advance(task, done)
        else:
            yield _PlainProgress(already, total, console, _)


def _play(plan: _Plan, seed: int, save: SaveFile | None, save_file: Path | None, console: Console,
          _: Translate) -> tuple[Summary, bool]:
    """Play the tournament, its progress on ``console``: its summary, and whether it was stopped. A
    tournament that cannot run (status 2) or a game that fails (1) is told and ends the command;
    Ctrl-C or a ``kill`` is told, and with a save file gives the summary of the complete deal sets it
    holds (the command then ends with 130); the games already finished stay in the save file, which
    is closed in every case."""
    sets = deal_sets_for(plan.games, plan.players)
    wanted = {(d, r) for d in range(sets) for r in range(plan.players)}
    kept = set() if save is None else set(save.done)
    total, already = len(wanted | kept), len(kept)
    try:
        with _stop_on_sigterm(), _progress(console, total, already, _) as progress:
            return plan.play(seed, save, progress), False
    except (TournamentError, RayUnavailable) as error:
        console.print(f"[red]{escape(_('error_prefix'))}[/red] {escape(_error(error, _))}")
        raise typer.Exit(2) from None
    except GameFailed as failure:
        told = failure_message(failure.failure, _) if failure.failure is not None else failure.message
        _say(console, f"{_('error_prefix')} " + _("tournament_game_failed", deal_set=failure.deal_set,
                                                  rotation=failure.rotation, error=told))
        if save is not None:
            _say(console, _("stopped_saved", count=save.kept(), file=repr(str(save_file))))
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        if save is None:
            _say(console, _("stopped_lost"))
            raise typer.Exit(130) from None
        held = save.held()
        _say(console, _("stopped_saved", count=len(held), file=repr(str(save_file))))
        return summary_of(plan.seats, held, plan.field), True
    finally:
        if save is not None:
            save.close()


def _print_json(summary: Summary, plan: _Plan, seed: int, save_file: Path | None, elapsed: float) -> None:
    data = {
        "seed": seed,
        "players": plan.players,
        "jobs": plan.jobs,
        "ray": plan.ray_address,
        "time_budget": budget_in_force([*plan.seats, *(plan.field or [])], plan.time_budget),
        "rounds": plan.rounds,
        "budget_clock": plan.budget_clock,
        "save": None if save_file is None else str(save_file),
        "run_seconds": elapsed,  # this command's time; the summary's "seconds" is the games' own
        **summary.to_json(),
    }
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def register(app: typer.Typer) -> None:
    app.command("tournament")(tournament_command)
