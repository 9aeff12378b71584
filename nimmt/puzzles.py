"""Puzzles: positions from real games where one choice is clearly best, answered by the review.

A decision of a reviewed game (:mod:`nimmt.review`) makes a puzzle when its best option is
expected to cost at least :data:`MARGIN` bullheads less than **every** other option, beyond the
estimate's noise (the second best's loss minus :data:`nimmt.review.NOISE_Z` standard errors). The
position is the deciding player's view: their hand, the rows, the cards already public this round,
the table's size. The answer is the review's numbers for every option.

A bank of such puzzles ships with nimmt (``nimmt/data/puzzles.json``, made by
``scripts/make_puzzles.py`` from seeded games between nimmt's bots); :func:`of_day` picks one a day.

>>> puzzle = of_day(date(2026, 12, 1))
>>> puzzle.best in [option for option, _, _ in puzzle.options]
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib import resources
from typing import Any

from nimmt.core import NimmtError, view
from nimmt.records import GameRecord

from .review import NOISE_Z, Review, moments

MARGIN = 2.0  # bullheads by which the best option beats every other one, beyond the noise


class PuzzleError(NimmtError, ValueError):
    """A puzzle that cannot be read, or an answer that is not one of its options."""


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One position and the review's numbers for each of its options."""

    players: int
    round: int
    turn: int
    kind: str  # "card": which card now? "row": which row for ``card``?
    rows: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]
    card: int | None  # for a row choice: the card below every row
    public: tuple[int, ...]  # cards already played or taken this round, outside the rows
    options: tuple[tuple[int, float, float], ...]  # (card or row 0-3, expected bullheads, standard error)
    best: int

    def answer(self, option: int) -> tuple[bool, float]:
        """Whether ``option`` is the best one, and how many bullheads more than the best it costs."""
        values = {o: expected for o, expected, _ in self.options}
        if option not in values:
            raise PuzzleError(f"{option} is not one of this puzzle's options")
        return option == self.best, values[option] - values[self.best]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players, "round": self.round, "turn": self.turn, "kind": self.kind,
            "rows": [list(r) for r in self.rows], "hand": list(self.hand), "card": self.card,
            "public": list(self.public), "best": self.best,
            "options": [[o, round(e, 2), round(s, 2)] for o, e, s in self.options],
        }

    @classmethod
    def from_json(cls, data: Any) -> Puzzle:
        try:
            return cls(
                players=int(data["players"]), round=int(data["round"]), turn=int(data["turn"]), kind=str(data["kind"]),
                rows=tuple(tuple(int(c) for c in row) for row in data["rows"]),
                hand=tuple(int(c) for c in data["hand"]), card=None if data["card"] is None else int(data["card"]),
                public=tuple(int(c) for c in data["public"]), best=int(data["best"]),
                options=tuple((int(o), float(e), float(s)) for o, e, s in data["options"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise PuzzleError(f"not a puzzle: {error!r}") from None


def puzzles_of(record: GameRecord, result: Review, margin: float = MARGIN) -> list[Puzzle]:
    """The decisions of a reviewed game where one option is clearly best, as puzzles."""
    states = {(m.state.round, m.state.turn + 1, m.player, m.kind): m.state for m, _ in moments(record)}
    found = []
    for decision in result.decisions:
        if decision.forced:
            continue
        ranked = sorted(decision.options, key=lambda o: (o.loss, o.option))
        runner = ranked[1]
        if runner.loss - NOISE_Z * runner.loss_stderr < margin:
            continue
        seen = view(states[(decision.round, decision.turn, decision.player, decision.kind)], decision.player)
        shown = {c for cards in seen.played for c in cards} | {c for c, _ in seen.revealed}
        public = sorted((shown | {c for cards in seen.taken for c in cards})
                        - {c for row in seen.rows for c in row} - {decision.card})
        found.append(Puzzle(
            players=len(record.players), round=decision.round, turn=decision.turn, kind=decision.kind,
            rows=decision.rows, hand=decision.hand, card=decision.card, public=tuple(public),
            options=tuple((o.option, o.expected, o.stderr) for o in decision.options), best=ranked[0].option,
        ))
    return found


@cache
def bank() -> tuple[Puzzle, ...]:
    """The puzzles shipped with nimmt."""
    text = (resources.files("nimmt") / "data" / "puzzles.json").read_text(encoding="utf-8")
    return tuple(Puzzle.from_json(item) for item in json.loads(text)["puzzles"])


def of_day(day: date) -> Puzzle:
    """The puzzle of ``day``: every day another, in a fixed order."""
    puzzles = bank()
    return puzzles[day.toordinal() % len(puzzles)]
