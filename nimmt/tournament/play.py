"""Playing one scheduled game and keeping what the statistics need."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nimmt.bots import Bot
from nimmt.core import Event, GameState, NimmtError, Rules, View
from nimmt.match import play_game

from .schedule import MatchSpec
from .seats import as_seat


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of one game, by seat."""

    deal_set: int
    rotation: int
    seats: tuple[str, ...]  # the key of each seat's bot (see nimmt.tournament.seats.Seat.key)
    entries: tuple[int, ...]
    rounds: tuple[tuple[int, ...], ...]  # each round's penalties, by seat
    totals: tuple[int, ...]
    winners: tuple[int, ...]  # seats
    decision_times: tuple[tuple[float, ...], ...]  # wall-clock seconds, by seat, every card and row choice
    # The same decisions in CPU seconds: of this thread for a built-in bot, of the program's process
    # (all its threads) for a program.
    decision_cpu: tuple[tuple[float, ...], ...] = ()
    seconds: float | None = None  # the game's own wall-clock time (None: saved before it was kept)

    def to_json(self) -> dict[str, object]:
        return {
            "deal_set": self.deal_set,
            "rotation": self.rotation,
            "seats": list(self.seats),
            "entries": list(self.entries),
            "rounds": [list(r) for r in self.rounds],
            "totals": list(self.totals),
            "winners": list(self.winners),
        }


class GameFailed(NimmtError, RuntimeError):
    """A game could not be finished: a program bot failed (or a bot could not be made).

    It crosses process boundaries (a process pool, Ray), so it holds plain values only: which game,
    the English message and, for a program's failure, the fields of
    :func:`nimmt.cli._common.failure_fields`.
    """

    def __init__(self, deal_set: int, rotation: int, message: str, failure: dict[str, Any] | None = None) -> None:
        super().__init__(deal_set, rotation, message, failure)
        self.deal_set = deal_set
        self.rotation = rotation
        self.message = message
        self.failure = failure

    def __str__(self) -> str:
        return f"deal set {self.deal_set}, rotation {self.rotation}: {self.message}"


def _failure_fields(failure: Any) -> dict[str, Any]:
    """What a :class:`~nimmt.protocol.BotFailure` says, as plain (picklable) values."""
    return {
        "bot": failure.bot, "seat": failure.seat, "kind": str(failure.kind), "detail": failure.detail,
        "doing": failure.doing, "exit_code": failure.exit_code, "stderr": list(failure.stderr),
        "reason": failure.reason, "facts": dict(failure.facts),
        "doing_key": failure.doing_key, "doing_facts": dict(failure.doing_facts),
    }


_libc: Any = None


def process_cpu_clock(pid: int) -> Callable[[], float] | None:
    """A clock of the CPU time of process ``pid`` (all its threads, nanosecond resolution), or None
    where the system has none (not Linux or macOS)."""
    global _libc
    if not hasattr(time, "clock_gettime"):
        return None
    try:
        if _libc is None:
            _libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        clock = ctypes.c_int()
        if _libc.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    clock_id = clock.value

    def read() -> float:
        try:
            return time.clock_gettime(clock_id)
        except OSError:  # the program has exited
            return math.nan

    return read


class TimedBot(Bot):
    """Wraps a bot and measures each of its decisions, in wall-clock time and in CPU time (what
    one core spent on it: on a loaded machine the wall clock also counts the waits for a core).

    For a program (a bot with ``start`` and ``pid``), the program is started before the first
    decision is timed, so its start-up is not counted, and the CPU time is the program's own.
    """

    name = "timed"
    description = "measures another bot's decisions"

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.rng)
        self.inner = inner
        self.times: list[float] = []
        self.cpu: list[float] = []
        self._cpu_clock: Callable[[], float] | None = None

    def _clock(self) -> Callable[[], float]:
        start = getattr(self.inner, "start", None)
        if not callable(start):
            return time.thread_time
        start()  # a program: its start and hello are not part of any decision
        if self._cpu_clock is None:
            pid = getattr(self.inner, "pid", None)
            self._cpu_clock = (process_cpu_clock(pid) if isinstance(pid, int) else None) or (lambda: math.nan)
        return self._cpu_clock

    def _timed(self, decide: Callable[[View], int], view: View) -> int:
        clock = self._clock()
        start, cpu = time.perf_counter(), clock()
        choice = decide(view)
        self.times.append(time.perf_counter() - start)
        self.cpu.append(clock() - cpu)
        return choice

    def choose_card(self, view: View) -> int:
        return self._timed(self.inner.choose_card, view)

    def choose_row(self, view: View) -> int:
        return self._timed(self.inner.choose_row, view)

    def close(self) -> None:
        """Tell a program the game is over (``bye``) and let it go; nothing for a built-in bot."""
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()


def build_bot(
    name: Any, rng: random.Random, time_budget: float | None, budget_clock: str | None = None, seat: int | None = None
) -> Bot:
    """A bot from a seat (or a name); bots that search get the tournament's time budget and budget
    clock, unless the seat sets them itself."""
    spec = as_seat(name)
    bot = spec.make(rng, seat)
    own = dict(spec.options)
    if time_budget is not None and hasattr(bot, "time_budget") and "time_budget" not in own:
        bot.time_budget = time_budget
    if budget_clock is not None and hasattr(bot, "clock") and "clock" not in own:
        bot.clock = budget_clock
    return bot


def play_match(spec: MatchSpec) -> MatchResult:
    """Play the game ``spec`` describes. Same spec, same game (bots with a time budget aside).

    Every program is told ``bye`` when the game ends (or stops), so each game starts its programs
    afresh. A program that fails stops the game with :class:`GameFailed`.
    """
    from nimmt.protocol import BotFailure

    bots: list[TimedBot] = []
    began = time.perf_counter()
    try:
        for seat, name in enumerate(spec.seats):
            bots.append(TimedBot(build_bot(name, random.Random(spec.bot_seed(seat)), spec.time_budget,
                                           spec.budget_clock, seat)))
        final: list[GameState] = []

        def keep(state: GameState, events: tuple[Event, ...]) -> None:
            if state.is_over:
                final.append(state)

        rules = Rules(rounds=spec.rounds) if spec.rounds is not None else Rules()
        names = [f"{as_seat(name).name} {seat + 1}" for seat, name in enumerate(spec.seats)]
        play_game(bots, random.Random(spec.deal_seed), rules=rules, names=names, observer=keep)
    except BotFailure as failure:
        raise GameFailed(spec.deal_set, spec.rotation, str(failure), _failure_fields(failure)) from None
    except NimmtError as error:
        raise GameFailed(spec.deal_set, spec.rotation, str(error)) from None
    finally:
        for bot in bots:
            with contextlib.suppress(Exception):
                bot.close()
    state = final[-1]
    return MatchResult(
        deal_set=spec.deal_set,
        rotation=spec.rotation,
        seats=tuple(as_seat(name).key for name in spec.seats),
        entries=spec.entries,
        rounds=state.history,
        totals=state.totals,
        winners=state.winners,
        decision_times=tuple(tuple(b.times) for b in bots),
        decision_cpu=tuple(tuple(b.cpu) for b in bots),
        seconds=time.perf_counter() - began,
    )
