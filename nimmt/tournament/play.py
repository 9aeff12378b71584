"""Playing one scheduled game and keeping what the statistics need."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

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
    decision_times: tuple[tuple[float, ...], ...]  # seconds, by seat, every card and row choice

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
    """Wraps a bot and measures the wall-clock time of each of its decisions."""

    name = "timed"
    description = "measures another bot's decisions"

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.rng)
        self.inner = inner
        self.times: list[float] = []

    def choose_card(self, view: View) -> int:
        start = time.perf_counter()
        card = self.inner.choose_card(view)
        self.times.append(time.perf_counter() - start)
        return card

    def choose_row(self, view: View) -> int:
        start = time.perf_counter()
        row = self.inner.choose_row(view)
        self.times.append(time.perf_counter() - start)
        return row


def build_bot(name: str, rng: random.Random, time_budget: float | None) -> Bot:
    bot = make_bot(name, rng)
    if time_budget is not None and hasattr(bot, "time_budget"):
        bot.time_budget = time_budget
    return bot


def play_match(spec: MatchSpec) -> MatchResult:
    """Play the game ``spec`` describes. Same spec, same game (bots with a time budget aside)."""
    bots = [
        TimedBot(build_bot(name, random.Random(spec.bot_seed(seat)), spec.time_budget))
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
    )
