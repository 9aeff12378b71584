"""Playing one scheduled game and keeping what the statistics need."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import nimmt.protocol  # noqa: F401  (lets make_bot play "cmd:<command line>" programs)
from nimmt.bots import Bot, make_bot
from nimmt.core import Event, GameState, Rules, View
from nimmt.match import play_game

from .schedule import MatchSpec


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of one game, by seat."""

    deal_set: int
    rotation: int
    seats: tuple[str, ...]
    entries: tuple[int, ...]
    rounds: tuple[tuple[int, ...], ...]  # each round's penalties, by seat
    totals: tuple[int, ...]
    winners: tuple[int, ...]  # seats
    decision_times: tuple[tuple[float, ...], ...]  # wall-clock seconds, by seat, every card and row choice
    decision_cpu: tuple[tuple[float, ...], ...] = ()  # the same decisions in CPU seconds of this thread

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


class TimedBot(Bot):
    """Wraps a bot and measures each of its decisions, in wall-clock time and in CPU time (what
    one core spent on it: on a loaded machine the wall clock also counts the waits for a core)."""

    name = "timed"
    description = "measures another bot's decisions"

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.rng)
        self.inner = inner
        self.times: list[float] = []
        self.cpu: list[float] = []

    def choose_card(self, view: View) -> int:
        start, cpu = time.perf_counter(), time.thread_time()
        card = self.inner.choose_card(view)
        self.times.append(time.perf_counter() - start)
        self.cpu.append(time.thread_time() - cpu)
        return card

    def choose_row(self, view: View) -> int:
        start, cpu = time.perf_counter(), time.thread_time()
        row = self.inner.choose_row(view)
        self.times.append(time.perf_counter() - start)
        self.cpu.append(time.thread_time() - cpu)
        return row


def build_bot(name: str, rng: random.Random, time_budget: float | None, budget_clock: str | None = None) -> Bot:
    """A bot by name; bots that search get the tournament's time budget and budget clock."""
    bot = make_bot(name, rng)
    if time_budget is not None and hasattr(bot, "time_budget"):
        bot.time_budget = time_budget
    if budget_clock is not None and hasattr(bot, "clock"):
        bot.clock = budget_clock
    return bot


def play_match(spec: MatchSpec) -> MatchResult:
    """Play the game ``spec`` describes. Same spec, same game (bots with a time budget aside)."""
    bots = [
        TimedBot(build_bot(name, random.Random(spec.bot_seed(seat)), spec.time_budget, spec.budget_clock))
        for seat, name in enumerate(spec.seats)
    ]
    final: list[GameState] = []

    def keep(state: GameState, events: tuple[Event, ...]) -> None:
        if state.is_over:
            final.append(state)

    rules = Rules(rounds=spec.rounds) if spec.rounds is not None else Rules()
    names = [f"{name} {seat + 1}" for seat, name in enumerate(spec.seats)]
    play_game(bots, random.Random(spec.deal_seed), rules=rules, names=names, observer=keep)
    state = final[-1]
    return MatchResult(
        deal_set=spec.deal_set,
        rotation=spec.rotation,
        seats=spec.seats,
        entries=spec.entries,
        rounds=state.history,
        totals=state.totals,
        winners=state.winners,
        decision_times=tuple(tuple(b.times) for b in bots),
        decision_cpu=tuple(tuple(b.cpu) for b in bots),
    )
