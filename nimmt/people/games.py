"""Finished games as the people part keeps them: made from a web table's record or a real-deck
score sheet, and seen from one person's seat ("My games")."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nimmt.records import from_mapping, replay
from nimmt.scoresheet import ScoreSheet

from .keys import new_id
from .model import Ending, FinishedGame, PeopleError, SeatResult


def _seats(names: Sequence[str], totals: Sequence[int], players: Sequence[str | None],
           bots: Sequence[str | None], left: Collection[int] = (),
           confirmed: Sequence[bool] | None = None) -> tuple[SeatResult, ...]:
    if not len(names) == len(players) == len(bots):
        raise PeopleError("bad_game", "one player id and one bot name (or None) per seat")
    return tuple(SeatResult(seat, players[seat], names[seat], bots[seat], totals[seat], seat in left,
                            True if confirmed is None else confirmed[seat]) for seat in range(len(names)))


def fair_ending(people: Collection[int], left: Collection[int], *, over: bool) -> tuple[Ending, bool]:
    """How a table's game ended and whether it is rated (docs/people.md, Fair records), from the seats
    of people (``people``), those of them who left before the end, and whether the game is over.

    Somebody played it to the end: "played", rated (those who left rank last). Every person left: bots
    finished it ("bots") or it stopped ("abandoned"); rated, as a loss, when one person sat at it
    alone with bots (leaving is no way out of a game one is losing), and for nobody when several
    people did (the evening ended for all of them: nobody ran from anybody)."""
    if set(people) - set(left):
        return "played", True
    return ("bots" if over else "abandoned"), len(people) == 1


def from_record(record: Mapping[str, Any], *, table_id: str, game: int, finished_at: datetime,
                players: Sequence[str | None], bots: Sequence[str | None],
                group_id: str | None = None, people: Collection[int] = (), left: Collection[int] = (),
                abandoned: bool = False) -> FinishedGame:
    """A web table's game from its ``nimmt/1`` record; ``players[seat]`` is the seat's person (None: a
    bot or somebody without a player), ``bots[seat]`` the bot's name, ``people`` the seats of people
    (with a player or not) and ``left`` those whose person left before the end. The record's game is
    over, or, with ``abandoned``, stopped with nobody left to play it (its rounds so far are kept)."""
    played = replay(from_mapping(record))
    if played.finished == abandoned:
        raise PeopleError("bad_game", "an abandoned game is not over" if abandoned else "the game is not over")
    names = list(record["players"])
    ending, rated = fair_ending(people, left, over=not abandoned)
    rounds = tuple(tuple(row) for row in played.rounds)
    totals = tuple(sum(row[seat] for row in rounds) for seat in range(len(names)))
    return FinishedGame(new_id("m"), "table", finished_at, played.state.rules.end_above,
                        _seats(names, totals, players, bots, left), rounds, table_id, game, group_id,
                        ending, rated)


def from_sheet(sheet: ScoreSheet, *, finished_at: datetime, players: Sequence[str | None],
               group_id: str | None = None, saved_by: str | None = None) -> FinishedGame:
    """A game played with a real deck, from its finished score sheet, saved by ``saved_by``: their
    own seat is confirmed, every other member named on it confirms theirs (or says it was not them)."""
    if not sheet.is_over:
        raise PeopleError("bad_game", "the score sheet's game is not over")
    confirmed = [player is None or player == saved_by for player in players]
    return FinishedGame(new_id("m"), "sheet", finished_at, sheet.rules.end_above,
                        _seats(sheet.players, sheet.totals, players, [None] * len(players), (), confirmed),
                        sheet.rounds, group_id=group_id, saved_by=saved_by)


@dataclass(frozen=True, slots=True)
class MyGame:
    """One finished game from one person's seat."""

    game: FinishedGame
    seat: int
    place: int  # 1 for the lowest total; tied totals share the place; a seat that left is last
    win: float  # 1 alone at the lowest total, 1/k when k share it, else 0
    bullheads: int

    @property
    def left(self) -> bool:
        return self.game.seats[self.seat].left

    @property
    def confirmed(self) -> bool:
        return self.game.seats[self.seat].confirmed

    @property
    def others(self) -> tuple[SeatResult, ...]:
        return tuple(seat for seat in self.game.seats if seat.seat != self.seat)

    def to_json(self) -> dict[str, Any]:
        return {**self.game.to_json(), "seat": self.seat, "place": self.place, "win": self.win,
                "bullheads": self.bullheads, "left": self.left, "confirmed": self.confirmed}


def my_game(game: FinishedGame, player_id: str) -> MyGame:
    """The game seen from ``player_id``'s seat (their first, should they have held two)."""
    seat = next((s.seat for s in game.seats if s.player_id == player_id), None)
    if seat is None:
        raise PeopleError("not_in_game", "this player did not sit at this game")
    mine = game.totals[seat]
    stayed = [s.total for s in game.seats if not s.left]
    place = 1 + len(stayed) if game.seats[seat].left else 1 + sum(total < mine for total in stayed)
    winners = game.winners
    return MyGame(game, seat, place, 1 / len(winners) if seat in winners else 0.0, mine)
