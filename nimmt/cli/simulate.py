"""``nimmt simulate``: bots against bots, and statistics per seat.

Three engines play the games. When every seat is ``random``, no ``--records`` are asked for and
the run is of at most :data:`RANDOM_TABLES_UP_TO` games (or Numba is missing), NumPy alone plays
whole tables at once (:mod:`nimmt.cli._random_tables`, :func:`simulate_random`: no Numba to load,
so such a run starts at once; up to :data:`~nimmt.cli._random_few.FEW` games, plain Python plays the
very same games, :mod:`nimmt.cli._random_few`, without loading NumPy either). Otherwise, when every
seat is a bot that the batch engine plays exactly (:data:`nimmt.batch.SEAT_POLICIES`: random,
beginner, heuristic) and Numba is installed,
its compiled kernels play them (:func:`simulate_batch`), a few thousand games per chunk. Else the
step engine plays them one action at a time, each bot seeing its view (:func:`simulate`). All give
the same statistics (the same keys, from the same kind of games: ``tests/cli/test_simulate.py``
and ``tests/cli/test_simulate_random.py`` compare them); for one seed each engine is repeatable
and does not depend on ``--jobs``, but they draw their chance differently.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from nimmt import i18n
from nimmt.core import Event, GameEnded, GameState, NimmtError, RoundEnded, Rules
from nimmt.prepare import COMPILED_BOTS

from ._common import (
    DOMAIN,
    Translate,
    check_players,
    choose_language,
    close_bots,
    deal_rng,
    failure_fields,
    failure_message,
    fresh_seed,
    label,
    make_bots,
    make_rules,
    number,
    os_reason,
    parse_bots,
)
from ._random_few import FEW, FewGames
from ._random_few import random_games as random_few_games

if TYPE_CHECKING:
    from rich.progress import Progress
    from rich.table import Table

# A run of random seats should start at once: rich (the table and the progress bar), the step
# engine (nimmt.match) and multiprocessing are imported where they are used, only when they are.

Z95 = 1.959963984540054  # two-sided 95 % normal quantile


class SimulationFailed(NimmtError):
    """A game could not be finished (an external bot failed).

    It crosses process boundaries, so it holds plain values only: the game's number, the English
    message and, for a bot program's failure, what :func:`failure_fields` keeps of it.
    """

    def __init__(self, game: int, message: str, failure: dict[str, Any] | None = None) -> None:
        super().__init__(game, message, failure)
        self.game = game
        self.message = message
        self.failure = failure

    def __str__(self) -> str:
        return f"game {self.game}: {self.message}"

    def tell(self, _: Translate) -> str:
        """The message in the page's language."""
        told = failure_message(self.failure, _) if self.failure is not None else self.message
        return _("game_failed", game=self.game, error=told)


@dataclass(frozen=True, slots=True)
class GameResult:
    index: int
    rounds: tuple[tuple[int, ...], ...]  # penalties of every round, by seat
    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Job:
    seed: int
    first: int
    count: int
    bots: tuple[str, ...]
    end_above: int
    rounds: int | None
    records: str | None


def play_one(seed: int, index: int, bots: Sequence[str], rules: Rules, records: Path | None) -> GameResult:
    """Play game ``index`` of a run: its chance comes from ``seed`` and ``index`` alone."""
    from nimmt.match import play_game
    from nimmt.protocol import BotFailure

    rounds: list[tuple[int, ...]] = []
    ended: list[GameEnded] = []

    def observe(_state: GameState, events: tuple[Event, ...]) -> None:
        for event in events:
            if isinstance(event, RoundEnded):
                rounds.append(event.penalties)
            elif isinstance(event, GameEnded):
                ended.append(event)

    players = make_bots(list(bots), seed, index)
    names = [f"{label(name)} {seat + 1}" for seat, name in enumerate(bots)]
    try:
        record = play_game(players, deal_rng(seed, index), rules, names, observe)
    except BotFailure as failure:  # an external bot failed: say which game, in a picklable error
        raise SimulationFailed(index + 1, str(failure), failure_fields(failure)) from None
    except NimmtError as error:
        raise SimulationFailed(index + 1, str(error)) from None
    finally:
        close_bots(players)
    if records is not None:
        record.save(records / f"game-{index + 1:06d}.json")
    return GameResult(index, tuple(rounds), ended[0].totals, ended[0].winners)


def run_job(job: Job) -> list[GameResult]:
    """A batch of consecutive games (the unit of work sent to a process)."""
    rules = Rules(end_above=job.end_above, rounds=job.rounds)
    folder = Path(job.records) if job.records is not None else None
    return [play_one(job.seed, i, job.bots, rules, folder) for i in range(job.first, job.first + job.count)]


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def split(games: int, jobs: int) -> Iterator[tuple[int, int]]:
    """(first, count) batches: several per process so that the progress bar moves.

    >>> list(split(10, 1))
    [(0, 4), (4, 4), (8, 2)]
    """
    size = max(1, min(500, math.ceil(games / (jobs * 8 if jobs > 1 else 3))))
    for first in range(0, games, size):
        yield first, min(size, games - first)


def mean_ci(samples: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95 % confidence interval (normal approximation).

    >>> [round(x, 3) for x in mean_ci([1.0, 3.0])]
    [2.0, 0.04, 3.96]
    """
    n = len(samples)
    mean = math.fsum(samples) / n
    if n < 2:
        return mean, math.nan, math.nan
    variance = math.fsum((x - mean) ** 2 for x in samples) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return mean, mean - half, mean + half


def mean_ci_moments(n: int, total: int, squares: int) -> tuple[float, float, float]:
    """:func:`mean_ci` from the count, sum and sum of squares of whole-number samples (exact).

    >>> [round(x, 3) for x in mean_ci_moments(2, 4, 10)]
    [2.0, 0.04, 3.96]
    """
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = total / n
    if n < 2:
        return mean, math.nan, math.nan
    variance = Fraction(n * squares - total * total, n * (n - 1))
    half = Z95 * math.sqrt(variance / n)
    return mean, mean - half, mean + half


def _summary(bots: Sequence[str], games: int, rounds: int, per_round: Sequence[tuple[float, float, float]],
             per_game: Sequence[tuple[float, float, float]], wins: Sequence[float], seconds: float, seed: int,
             rules: Rules) -> dict[str, Any]:
    def tidy(x: float) -> float | None:
        return None if math.isnan(x) else round(x, 6)

    from nimmt.intervals import wilson  # games of independent deals: Wilson's interval fits

    win_bounds = [wilson(w, games) for w in wins]

    return {
        "games": games,
        "players": len(bots),
        "bots": list(bots),
        "mean_penalty_per_round": [tidy(m) for m, _, _ in per_round],
        "win_share": [tidy(w / games) for w in wins],
        "win_share_ci95": [[tidy(lo), tidy(hi)] for lo, hi in win_bounds],
        "games_per_second": round(games / seconds, 3) if seconds > 0 else None,
        "mean_penalty_per_round_ci95": [[tidy(lo), tidy(hi)] for _, lo, hi in per_round],
        "mean_penalty_per_game": [tidy(m) for m, _, _ in per_game],
        "mean_penalty_per_game_ci95": [[tidy(lo), tidy(hi)] for _, lo, hi in per_game],
        "rounds": rounds,
        "seed": seed,
        "rules": {"end_above": rules.end_above, "rounds": rules.rounds},
    }


def summarize(results: Sequence[GameResult], bots: Sequence[str], seconds: float, seed: int,
              rules: Rules) -> dict[str, Any]:
    """The summary (the keys of ``--json``) of games played by the step engine."""
    seats = range(len(bots))
    per_round = [mean_ci([float(r[s]) for g in results for r in g.rounds]) for s in seats]
    per_game = [mean_ci([float(g.totals[s]) for g in results]) for s in seats]
    wins = [0.0] * len(bots)
    for game in results:
        for winner in game.winners:
            wins[winner] += 1.0 / len(game.winners)
    rounds = sum(len(g.rounds) for g in results)
    return _summary(bots, len(results), rounds, per_round, per_game, wins, seconds, seed, rules)


@dataclass
class Tally:
    """What games played by the batch engine add up to, seat by seat, in exact whole numbers (the
    wins as fractions: a win shared by k players counts 1/k to each)."""

    players: int
    games: int = 0
    rounds: int = 0
    round_sum: list[int] = field(default_factory=list)  # each seat's penalties over all rounds
    round_squares: list[int] = field(default_factory=list)  # ... and their squares
    game_sum: list[int] = field(default_factory=list)  # each seat's final totals
    game_squares: list[int] = field(default_factory=list)
    wins: list[Fraction] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name in ("round_sum", "round_squares", "game_sum", "game_squares"):
            if not getattr(self, name):
                setattr(self, name, [0] * self.players)
        if not self.wins:
            self.wins = [Fraction(0)] * self.players

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.rounds += other.rounds
        for seat in range(self.players):
            self.round_sum[seat] += other.round_sum[seat]
            self.round_squares[seat] += other.round_squares[seat]
            self.game_sum[seat] += other.game_sum[seat]
            self.game_squares[seat] += other.game_squares[seat]
            self.wins[seat] += other.wins[seat]


def summarize_tally(tally: Tally, bots: Sequence[str], seconds: float, seed: int, rules: Rules) -> dict[str, Any]:
    """The summary (the same keys as :func:`summarize`) of games played by the batch engine."""
    seats = range(len(bots))
    per_round = [mean_ci_moments(tally.rounds, tally.round_sum[s], tally.round_squares[s]) for s in seats]
    per_game = [mean_ci_moments(tally.games, tally.game_sum[s], tally.game_squares[s]) for s in seats]
    wins = [float(w) for w in tally.wins]
    return _summary(bots, tally.games, tally.rounds, per_round, per_game, wins, seconds, seed, rules)


BATCH_BOTS = frozenset({"random", "beginner", "heuristic"})  # the keys of nimmt.batch.SEAT_POLICIES
BATCH_CHUNK = 2048  # games per unit of work of the batch engine; fixed, so results do not depend on --jobs
# Games per unit of work at tables of random seats (NumPy): large, since every NumPy operation
# works on a whole chunk at once and costs a fixed overhead besides; fixed, as above.
RANDOM_CHUNK = 32_768
# Above this many games the compiled kernels play random seats sooner than NumPy (when Numba is
# installed): they play a game in about half the time, but loading Numba and a cached kernel costs
# some 0.4 s first (docs/speed.md).
RANDOM_TABLES_UP_TO = 150_000


def random_tables_play(bots: Sequence[str], records: Path | None = None, games: int = 0) -> bool:
    """True when NumPy alone plays these seats (every one random, and nothing is recorded), for a
    run of ``games`` games: up to :data:`RANDOM_TABLES_UP_TO`, or more when Numba is not installed.

    ``NIMMT_BATCH_ENGINE=numba`` sends them to the compiled kernels instead (to compare the two).
    """
    return (
        records is None
        and all(name == "random" for name in bots)
        and importlib.util.find_spec("numpy") is not None
        and os.environ.get("NIMMT_BATCH_ENGINE", "auto") != "numba"
        and (games <= RANDOM_TABLES_UP_TO or not batch_engine_plays(bots, records))
    )


def batch_engine_plays(bots: Sequence[str], records: Path | None = None) -> bool:
    """True when the batch engine plays these seats exactly like the bots (and nothing is recorded)."""
    return (
        records is None
        and all(name in BATCH_BOTS for name in bots)
        and importlib.util.find_spec("numpy") is not None
        and importlib.util.find_spec("numba") is not None
        and os.environ.get("NIMMT_BATCH_ENGINE", "auto") in ("", "auto", "numba")
    )


@dataclass(frozen=True, slots=True)
class BatchJob:
    seed: int
    index: int  # the chunk's number: its chance comes from ``seed`` and ``index`` alone
    count: int
    bots: tuple[str, ...]
    end_above: int
    rounds: int | None
    engine: str = "numba"  # "numpy": the tables of random seats of nimmt.cli._random_tables


def chunk_seed(seed: int, index: int) -> int:
    """The 64-bit seed of chunk ``index`` of a batch run (SHA-256: independent of PYTHONHASHSEED)."""
    digest = hashlib.sha256(f"nimmt:{seed}:{index}:batch".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def run_batch_job(job: BatchJob) -> tuple[int, Tally]:
    """Play one chunk of games with the batch engine (or NumPy's random tables) and tally them."""
    players = len(job.bots)
    played: Any
    if job.engine == "numpy" and job.count <= FEW:  # the same games, without loading NumPy
        few = random_few_games(players, job.count, chunk_seed(job.seed, job.index), job.end_above, job.rounds or 0)
        return job.index, tally_few(few, job.count)
    if job.engine == "numpy":
        from ._random_tables import random_games

        played = random_games(players, job.count, chunk_seed(job.seed, job.index), job.end_above, job.rounds or 0)
    else:
        from nimmt.batch import seat_games

        rules = Rules(end_above=job.end_above, rounds=job.rounds)
        played = seat_games(job.bots, job.count, chunk_seed(job.seed, job.index), rules=rules)
    totals = played.totals
    best = totals == totals.min(axis=1, keepdims=True)
    sharers = best.sum(axis=1)
    wins = [Fraction(0)] * players
    for k in range(1, players + 1):  # a win shared by k players counts 1/k to each of them
        counts = best[sharers == k].sum(axis=0)
        for seat in range(players):
            wins[seat] += Fraction(int(counts[seat]), k)
    tally = Tally(
        players,
        games=job.count,
        rounds=int(played.played.sum()),
        round_sum=[int(x) for x in totals.sum(axis=0)],
        round_squares=[int(x) for x in played.squares.sum(axis=0)],
        game_sum=[int(x) for x in totals.sum(axis=0)],
        game_squares=[int(x) for x in (totals * totals).sum(axis=0)],
        wins=wins,
    )
    return job.index, tally


def tally_few(played: FewGames, games: int) -> Tally:
    """:func:`run_batch_job`'s tally of games played in plain Python (:mod:`nimmt.cli._random_few`)."""
    players = len(played.totals[0])
    wins = [Fraction(0)] * players
    for totals in played.totals:  # a win shared by k players counts 1/k to each of them
        best = [seat for seat, total in enumerate(totals) if total == min(totals)]
        for seat in best:
            wins[seat] += Fraction(1, len(best))
    sums = [sum(totals[seat] for totals in played.totals) for seat in range(players)]
    return Tally(
        players,
        games=games,
        rounds=sum(played.played),
        round_sum=sums,
        round_squares=[sum(squares[seat] for squares in played.squares) for seat in range(players)],
        game_sum=list(sums),
        game_squares=[sum(totals[seat] ** 2 for totals in played.totals) for seat in range(players)],
        wins=wins,
    )


Work = TypeVar("Work")
Done = TypeVar("Done")


def _run(worker: Callable[[Work], Done], batches: Sequence[Work], jobs: int,
         done: Callable[[Done], None]) -> None:
    """Run ``worker`` on every batch, in this process (jobs=1) or in a pool of processes; ``done``
    receives each result as it comes (in any order with a pool)."""
    if jobs == 1:
        for batch in batches:
            done(worker(batch))
        return
    # Workers ignore Ctrl-C; the parent stops them at once (terminate) instead of waiting. While the
    # pool starts, a Ctrl-C is only noted (a KeyboardInterrupt inside Pool() would leave a half-built
    # pool behind) and acted on as soon as the pool exists.
    import multiprocessing

    pressed: list[int] = []
    main = threading.current_thread() is threading.main_thread()  # only it may set handlers
    previous = signal.signal(signal.SIGINT, lambda number, _frame: pressed.append(number)) if main else None
    try:
        pool = multiprocessing.Pool(min(jobs, len(batches)), initializer=_ignore_interrupts)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    try:
        if pressed:
            raise KeyboardInterrupt
        for result in pool.imap_unordered(worker, batches):
            done(result)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def simulate(
    games: int,
    bots: Sequence[str],
    seed: int,
    rules: Rules,
    jobs: int = 1,
    records: Path | None = None,
    progress: Progress | None = None,
    description: str = "games",
) -> tuple[list[GameResult], float]:
    """Play ``games`` games with the step engine; the results (in game order) do not depend on ``jobs``.

    ``description`` labels the progress bar (in the page's language).
    """
    batches = [
        Job(seed, first, count, tuple(bots), rules.end_above, rules.rounds,
            str(records) if records is not None else None)
        for first, count in split(games, jobs)
    ]
    task = progress.add_task(description, total=games) if progress is not None else None
    results: list[GameResult] = []

    def done(batch: list[GameResult]) -> None:
        results.extend(batch)
        if progress is not None and task is not None:
            progress.advance(task, len(batch))

    started = time.perf_counter()
    _run(run_job, batches, jobs, done)
    seconds = time.perf_counter() - started
    results.sort(key=lambda g: g.index)
    return results, seconds


def simulate_batch(
    games: int,
    bots: Sequence[str],
    seed: int,
    rules: Rules,
    jobs: int = 1,
    progress: Progress | None = None,
    description: str = "games",
    engine: str = "numba",
) -> tuple[Tally, float]:
    """Play ``games`` games with the batch engine (every seat one of :data:`BATCH_BOTS`), in chunks of
    :data:`BATCH_CHUNK` games; the tally does not depend on ``jobs``.

    ``engine="numpy"``: tables of random seats only, played by :mod:`nimmt.cli._random_tables` in
    chunks of :data:`RANDOM_CHUNK` games (see :func:`simulate_random`).
    """
    chunk = RANDOM_CHUNK if engine == "numpy" else BATCH_CHUNK
    if engine == "numpy":
        if any(name != "random" for name in bots):
            raise NimmtError(f"NumPy plays tables of random seats only, not {list(bots)}")
    else:
        from nimmt.batch import seat_games

        seat_games(tuple(bots), 0, 0, rules=rules)  # loads the compiled kernel once, before any fork
    batches = [
        BatchJob(seed, index, min(chunk, games - first), tuple(bots), rules.end_above, rules.rounds, engine)
        for index, first in enumerate(range(0, games, chunk))
    ]
    task = progress.add_task(description, total=games) if progress is not None else None
    parts: list[tuple[int, Tally]] = []

    def done(part: tuple[int, Tally]) -> None:
        parts.append(part)
        if progress is not None and task is not None:
            progress.advance(task, part[1].games)

    started = time.perf_counter()
    _run(run_batch_job, batches, jobs, done)
    seconds = time.perf_counter() - started
    tally = Tally(len(bots))
    for _, part in sorted(parts, key=lambda p: p[0]):
        tally.add(part)
    return tally, seconds


def simulate_random(
    games: int,
    bots: Sequence[str],
    seed: int,
    rules: Rules,
    jobs: int = 1,
    progress: Progress | None = None,
    description: str = "games",
) -> tuple[Tally, float]:
    """Play ``games`` games at tables of random seats with NumPy alone (:func:`simulate_batch` with
    ``engine="numpy"``); the tally does not depend on ``jobs``."""
    return simulate_batch(games, bots, seed, rules, jobs, progress, description, engine="numpy")


def _table(summary: dict[str, Any], _: Translate, language: str) -> Table:
    from rich.table import Table

    table = Table(title=_("sim_title", games=summary["games"], rounds=summary["rounds"], seed=summary["seed"]))
    table.add_column(_("col_seat"), justify="right")
    table.add_column(_("col_bot"))
    table.add_column(_("col_penalty_round"), justify="right")
    table.add_column(_("col_penalty_game"), justify="right")
    table.add_column(_("col_win_share"), justify="right")

    def shown(mean: float, pair: list[float | None]) -> str:
        low, high = pair
        if low is None or high is None:
            return number(mean, 2, language)
        return f"{number(mean, 2, language)} ± {number((high - low) / 2, 2, language)}"

    for seat, bot in enumerate(summary["bots"]):
        table.add_row(
            str(seat + 1),
            bot,
            shown(summary["mean_penalty_per_round"][seat], summary["mean_penalty_per_round_ci95"][seat]),
            shown(summary["mean_penalty_per_game"][seat], summary["mean_penalty_per_game_ci95"][seat]),
            f"{number(100 * summary['win_share'][seat], 1, language)} %",
        )
    return table


def _progress() -> Progress:
    """The progress bar on the terminal's standard error (it goes once the run is over)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def command(
    games: Annotated[int, typer.Option("--games", "-g", min=1, help="How many games to play.")] = 100,
    players: Annotated[int, typer.Option("--players", "-p", help="Players per game, 2 to 10.")] = 4,
    bots: Annotated[
        str, typer.Option("--bots", "-b", help="Bots in seat order, comma separated; one name fills every seat.")
    ] = "random",
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, max=256, help="Processes to use.")] = 1,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Base seed: the same seed gives the same games, whatever --jobs.")
    ] = None,
    end_above: Annotated[
        int, typer.Option("--end-above", min=0, help="A game ends after a round with a total above this.")
    ] = 66,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="Play exactly this many rounds instead.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
    records: Annotated[
        Path | None, typer.Option("--records", help="Write every game as a nimmt/1 record in this folder.")
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option("--lang", "-l", metavar="LANG",
                     help=f"Language of the output: {', '.join(i18n.LANGUAGES)} (default: from your locale)."),
    ] = None,
) -> None:
    """Play bots against bots and show each seat's mean penalty and share of wins."""
    language = choose_language(lang, "simulate")
    _ = i18n.translator(language, DOMAIN)
    check_players(players, _)
    names = parse_bots(bots, players, _=_)
    compiled = batch_engine_plays(names, records) and not random_tables_play(names, records, games)
    if COMPILED_BOTS & set(names) or compiled:
        from .prepare import prepare_bots  # not for random seats, which start at once

        prepare_bots(language)  # a first run compiles the kernels: say so, not silence
    close_bots(make_bots(names, 0, 0, _=_))  # a command line that cannot be read is refused here (exit 2)
    rules = make_rules(end_above, rounds, _)
    if records is not None:
        if records.exists() and not records.is_dir():
            raise typer.BadParameter(_("records_is_file", folder=str(records)), param_hint="--records")
        try:
            records.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = os_reason(error.errno, error.strerror or str(error), _)
            raise typer.BadParameter(_("records_cannot_create", folder=str(records), reason=reason),
                                     param_hint="--records") from None
    base = seed if seed is not None else fresh_seed()
    progress = _progress() if not as_json and sys.stderr.isatty() else None
    try:
        with progress if progress is not None else contextlib.nullcontext():
            if random_tables_play(names, records, games):
                tally, seconds = simulate_random(games, names, base, rules, jobs, progress, _("progress_games"))
                summary = summarize_tally(tally, names, seconds, base, rules)
            elif batch_engine_plays(names, records):
                tally, seconds = simulate_batch(games, names, base, rules, jobs, progress, _("progress_games"))
                summary = summarize_tally(tally, names, seconds, base, rules)
            else:
                results, seconds = simulate(games, names, base, rules, jobs, records, progress,
                                            _("progress_games"))
                summary = summarize(results, names, seconds, base, rules)
    except KeyboardInterrupt:
        from rich.console import Console

        Console(stderr=True).print(_("sim_stopped"))
        raise typer.Exit(130) from None
    except SimulationFailed as error:
        typer.echo(f"nimmt simulate: {error.tell(_)}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
        return
    from rich.console import Console

    out = Console(highlight=False)
    out.print(_table(summary, _, language))
    speed = number(summary["games_per_second"], 1, language)
    out.print(_("sim_speed", speed=speed, jobs=jobs))


def register(app: typer.Typer) -> None:
    app.command("simulate")(command)
