"""Finished games as the people part keeps them: made from a web table's record or a real-deck
score sheet, and seen from one person's seat ("My games")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nimmt.records import from_mapping, replay
from nimmt.scoresheet import ScoreSheet

from .keys import new_id
from .model import FinishedGame, PeopleError, SeatResult


def _seats(names: Sequence[str], totals: Sequence[int], players: Sequence[str | None],
           bots: Sequence[str | None]) -> tuple[SeatResult, ...]:
    if not len(names) == len(players) == len(bots):
        raise PeopleError("bad_game", "one player id and one bot name (or None) per seat")
    return tuple(SeatResult(seat, players[seat], names[seat], bots[seat], totals[seat]) for seat in range(len(names)))


def from_record(record: Mapping[str, Any], *, table_id: str, game: int, finished_at: datetime,
                players: Sequence[str | None], bots: Sequence[str | None],
                group_id: str | None = None) -> FinishedGame:
    """A web table's finished game from its ``nimmt/1`` record; ``players[seat]`` is the seat's
    person (None: a bot or somebody without a player), ``bots[seat]`` the bot's name."""
    played = replay(from_mapping(record))
    if not played.finished:
        raise PeopleError("bad_game", "the game is not over")
    names = list(record["players"])
    return FinishedGame(new_id("m"), "table", finished_at, played.state.rules.end_above,
                        _seats(names, played.totals, players, bots), played.rounds, table_id, game, group_id)


def from_sheet(sheet: ScoreSheet, *, finished_at: datetime, players: Sequence[str | None],
               group_id: str | None = None) -> FinishedGame:
    """A game played with a real deck, from its finished score sheet."""
    if not sheet.is_over:
        raise PeopleError("bad_game", "the score sheet's game is not over")
    return FinishedGame(new_id("m"), "sheet", finished_at, sheet.rules.end_above,
                        _seats(sheet.players, sheet.totals, players, [None] * len(players)), sheet.rounds,
                        group_id=group_id)


@dataclass(frozen=True, slots=True)
class MyGame:
    """One finished game from one person's seat."""

    game: FinishedGame
    seat: int
    place: int  # 1 for the lowest total; tied totals share the place
    win: float  # 1 alone at the lowest total, 1/k when k share it, else 0
    bullheads: int

    @property
    def others(self) -> tuple[SeatResult, ...]:
        return tuple(seat for seat in self.game.seats if seat.seat != self.seat)

    def to_json(self) -> dict[str, Any]:
        return {**self.game.to_json(), "seat": self.seat, "place": self.place, "win": self.win,
                "bullheads": self.bullheads}


def my_game(game: FinishedGame, player_id: str) -> MyGame:
    """The game seen from ``player_id``'s seat (their first, should they have held two)."""
    seat = next((s.seat for s in game.seats if s.player_id == player_id), None)
    if seat is None:
        raise PeopleError("not_in_game", "this player did not sit at this game")
    totals = game.totals
    mine = totals[seat]
    winners = game.winners
    return MyGame(game, seat, 1 + sum(total < mine for total in totals),
                  1 / len(winners) if seat in winners else 0.0, mine)
