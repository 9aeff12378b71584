"""``field:dmc``: a determinized Monte-Carlo search, the way the strongest bots written elsewhere play.

Bots for 6 nimmt! that help players on Board Game Arena and the like search by *determinization*:
deal the cards they cannot see out to the other hands, play the round to its end many times, and
play the card that did best. Done well, that is this bot (written from that description, not from
any such bot's code):

- **Deals consistent with what each seat has shown.** Each sample deals the unseen cards (the
  other hands and the cards not dealt: :meth:`nimmt.core.View.unseen_cards`) at random, each other
  player getting as many as it holds. Every card a seat has shown (played, taken, on the rows, face
  up this turn) is out of the deal; in 6 nimmt! nothing else a player does rules a card in or out of
  its hand, so every such deal is possible and a uniform deal weighs them alike.
- **Every seat played out like people and bots play.** In the playouts every player, this bot's
  own later cards included, draws its card from a softmax over the heuristic's expected cost of
  each card of its hand (:attr:`nimmt.batch.CardPolicy.MC`: chance proportional to
  ``exp(-0.56 cost + 1.08 card / 104)``, fitted by maximum likelihood to how Monte-Carlo bots
  choose, ``docs/ladder.md``): mostly a safe card, now and then another, never the same line of
  play every time. A card below every row takes the row with the fewest bullheads, as most players
  do.
- **The root's cards compared on common deals.** Every card of the hand is played out on the
  same deals (common random numbers), so their differences are not the luck of the deal; the card
  with the fewest bullheads taken to the end of the round on average is played (the higher card on
  a tie). No card is dropped early: each gets every deal.
- **Its rows too.** When its card is below every row, each of the four rows is scored the same
  way: its bullheads now plus what the rest of the round then costs.
- **1 s of CPU a decision** by default (``time_budget``, ``clock="cpu"``: one core's time, the
  fair measure on a shared machine; ``"wall"`` for the wall clock), or a fixed number of deals
  (``samples``) for reproducible runs. The playouts are the compiled rollouts of :mod:`nimmt.batch`
  (exact against :mod:`nimmt.core`, ``tests/batch``): some tens of thousands of playouts a second.

Without Numba it falls back to the pure-Python rollouts (random play): slower, hence weaker.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from nimmt.core import ROW_COUNT, View

from .base import DEFAULT_TIME_BUDGET, Bot, BotError
from .search import batch_available, evaluate

NAME = "field:dmc"


@dataclass(frozen=True, slots=True)
class Value:
    """What the playouts say about one option: mean bullheads to the end of the round (lower is better)."""

    option: int
    mean: float
    stderr: float
    samples: int


class DeterminizedBot(Bot):
    name = NAME
    description = (
        "Determinized Monte-Carlo search: deals the unseen cards out many times, plays each round out with "
        "every player choosing by a softmax over the heuristic's card costs, and plays the card (or takes the row) "
        "with the fewest bullheads on the same deals; 1 s of CPU a decision."
    )

    CHUNK = 32  # deals per call of the compiled rollouts: enough to pay the call, few enough to stop in time
    MARGIN = 0.85  # share of the budget used, leaving room for the caller and clock jitter
    CLOCKS: ClassVar[dict[str, Callable[[], float]]] = {"wall": time.perf_counter, "cpu": time.thread_time}

    def __init__(
        self,
        rng: random.Random | None = None,
        time_budget: float = DEFAULT_TIME_BUDGET,
        clock: str = "cpu",
        samples: int | None = None,
    ) -> None:
        super().__init__(rng)
        if clock not in self.CLOCKS:
            raise BotError(f"the budget clock is 'wall' or 'cpu', not {clock!r}")
        if not time_budget > 0:
            raise BotError(f"the time budget is a positive number of seconds, not {time_budget!r}")
        if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int) or samples < 1):
            raise BotError(f"samples is a whole number from 1 up, not {samples!r}")
        self.time_budget = time_budget
        self.clock = clock
        self.samples = samples  # a fixed number of deals (the budget still caps it): reproducible
        self.batch = batch_available()
        if self.batch:
            from nimmt.batch import warm_up

            warm_up()

    def values(self, view: View, kind: str) -> list[Value]:
        """Each card of the hand (``kind="card"``) or each row (``"row"``) with its mean bullheads
        from now to the end of the round, every option on the same deals."""
        clock = self.CLOCKS[self.clock]
        deadline = clock() + self.time_budget * self.MARGIN
        options = list(view.hand) if kind == "card" else list(range(ROW_COUNT))
        if not self.batch:
            estimates = evaluate(view, options, kind, rng=self.rng, engine="random", samples=self.samples,
                                 deadline=deadline, clock=clock)
            return [Value(e.option, e.mean, e.stderr, e.samples) for e in estimates]
        import numpy as np

        from .styles import seat_card_penalties, seat_row_penalties, seats_of

        seats = seats_of(["mc"] * view.players)
        generator = np.random.default_rng(self.rng.getrandbits(64))
        total = np.zeros(len(options))
        squares = np.zeros(len(options))
        taken = 0
        while True:
            size = self.CHUNK if self.samples is None else min(self.CHUNK, self.samples - taken)
            if kind == "card":
                block = seat_card_penalties(view, options, size, generator, seats)
            else:
                block = seat_row_penalties(view, size, generator, seats)
            total += block.sum(axis=1)
            squares += (block.astype(np.float64) ** 2).sum(axis=1)
            taken += size
            if (self.samples is not None and taken >= self.samples) or clock() >= deadline:
                break
        means = total / taken
        spread = np.maximum(squares / taken - means**2, 0.0) * taken / max(1, taken - 1)
        return [
            Value(option, float(means[i]), math.sqrt(spread[i] / taken) if taken > 1 else math.inf, taken)
            for i, option in enumerate(options)
        ]

    def choose_card(self, view: View) -> int:
        if len(view.hand) == 1:
            return view.hand[0]
        return min(self.values(view, "card"), key=lambda v: (v.mean, -v.option)).option

    def choose_row(self, view: View) -> int:
        return min(self.values(view, "row"), key=lambda v: (v.mean, v.option)).option
