"""A league table from finished games: per person, games, wins, bullheads per round, best and worst
round, games past 66, and their form over time.

A game counts once for every person seated at it. **Wins** are shared: the lowest total wins, and
when k players share it each of them gets 1/k of a win. **Bullheads per round** is the person's
bullheads over all their games divided by the rounds they played. **Best** and **worst round** are
the fewest and the most bullheads they took in one round. **Past 66** counts the games in which
their final total was above the end (66 in the classic rules). **Form** is, after each of their games
in time order, their bullheads per round over their last :data:`FORM_GAMES` games (fewer at the
start): a line that follows how they play lately, lower is better.

Rows are sorted by wins (more first), then bullheads per round (fewer first), then games (more
first), then person id; people who played no game (a member who has not played yet) come last.

**Fair records** (docs/people.md): a game may say that some seats' people **left** before its end
(``left``): such a game counts for them as played and lost (no win, none of its rounds in their
figures: a bot or nobody played them) and its win goes to the lowest total of those who stayed. A
game that is not ``rated`` (bots finished it after every person left, or it was abandoned by a
table of people) counts for nobody. Form keeps each person's last :data:`FORM_KEPT` points.

>>> from datetime import datetime, timezone
>>> day = datetime(2026, 12, 4, 20, tzinfo=timezone.utc)
>>> game = GameResult(day, ("ana", "bruno"), (12, 70), ((2, 40), (10, 30)))
>>> [(row.person, row.wins, row.bullheads_per_round, row.past_66) for row in league([game])]
[('ana', 1.0, 6.0, 0), ('bruno', 0.0, 35.0, 1)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from nimmt.core.errors import NimmtError
from nimmt.records import GameRecord, score


class LeagueError(NimmtError, ValueError):
    """A game result that does not add up."""

BOT_PREFIX = "bot:"  # a bot's person id is "bot:<name>", the name in nimmt.bots.BOTS
END_ABOVE = 66  # the classic end: a total above it ends the game after the round
FORM_GAMES = 5  # how many of a person's latest games their form is computed over
FORM_KEPT = 100  # how many points of a person's form are kept (the chart shows these)


def bot_id(name: str) -> str:
    """The person id of a bot level in games and ratings: ``bot_id("expert") == "bot:expert"``."""
    return BOT_PREFIX + name


def is_bot(person: str) -> bool:
    return person.startswith(BOT_PREFIX)


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game as the league and the ratings see it, seat by seat.

    ``when`` is when it ended (timezone-aware, so that games from anywhere sort together);
    ``players`` the person id of each seat (a bot's is ``"bot:<name>"``, and several seats may hold
    the same bot); ``totals`` each seat's final bullheads; ``round_penalties`` each round's
    bullheads, by seat. Raises ValueError when these do not fit together.
    """

    when: datetime
    players: tuple[str, ...]
    totals: tuple[int, ...]
    round_penalties: tuple[tuple[int, ...], ...]
    end_above: int = END_ABOVE
    left: tuple[int, ...] = ()  # seats whose person left before the end (rated last, no win)
    rated: bool = True  # False: it counts for nobody (bots finished it, or a table of people abandoned it)

    def __post_init__(self) -> None:
        seats = len(self.players)
        if seats < 2:
            raise LeagueError(f"a game has at least 2 players, not {seats}")
        if len(self.totals) != seats:
            raise LeagueError(f"{len(self.totals)} totals for {seats} players")
        people = [p for p in self.players if not is_bot(p)]
        if len(set(people)) != len(people):
            raise LeagueError("a person sits twice at the same game")
        if not self.round_penalties and self.rated and not self.left:
            raise LeagueError("a finished game has at least one round")
        if any(not 0 <= seat < seats for seat in self.left):
            raise LeagueError(f"a seat that left is not one of the {seats} seats")
        for number, penalties in enumerate(self.round_penalties, 1):
            if len(penalties) != seats:
                raise LeagueError(f"round {number} has {len(penalties)} penalties for {seats} players")
            if any(p < 0 for p in penalties):
                raise LeagueError(f"round {number} has a negative penalty")
        sums = tuple(sum(r[seat] for r in self.round_penalties) for seat in range(seats))
        if sums != self.totals:
            raise LeagueError(f"the totals {self.totals} are not the sums of the rounds {sums}")

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the lowest total among those who stayed (several on a tie)."""
        stayed = [seat for seat in range(len(self.players)) if seat not in self.left]
        if not stayed:
            return ()
        low = min(self.totals[seat] for seat in stayed)
        return tuple(seat for seat in stayed if self.totals[seat] == low)

    @property
    def ranks(self) -> tuple[int, ...]:
        """What ranks the seats (fewer first): each total, and below every one of them for a seat that left."""
        last = max(self.totals) + 1
        return tuple(last if seat in self.left else total for seat, total in enumerate(self.totals))


def result_from_record(
    record: GameRecord, people: Sequence[str] | Mapping[int, str], when: datetime
) -> GameResult:
    """The :class:`GameResult` of a finished ``nimmt/1`` record, with ``people[seat]`` the person id
    of each seat (a sequence, or a mapping from every seat to its person). The record is replayed:
    a record that breaks a rule raises :class:`~nimmt.records.RecordError`, one whose game is not
    over, or a seating that does not cover every seat, ValueError."""
    seats = len(record.players)
    if isinstance(people, Mapping):
        if set(people) != set(range(seats)):
            raise LeagueError(f"the seating must name a person for each of the seats 0 to {seats - 1}")
        ids = tuple(people[seat] for seat in range(seats))
    else:
        ids = tuple(people)
        if len(ids) != seats:
            raise LeagueError(f"{len(ids)} people for {seats} seats")
    result = score(record)
    if not result.finished:
        raise LeagueError("the game is not over: only finished games count")
    return GameResult(when, ids, result.totals, result.rounds, record.rules.end_above)


@dataclass(frozen=True, slots=True)
class LeagueRow:
    person: str
    games: int = 0
    wins: float = 0.0  # a shared lowest total shares the win: 1/k each
    rounds: int = 0
    bullheads: int = 0
    bullheads_per_round: float | None = None  # None before their first game
    best_round: int | None = None  # fewest bullheads in one round
    worst_round: int | None = None  # most bullheads in one round
    past_66: int = 0  # games their final total was above the end
    form: tuple[tuple[datetime, float], ...] = field(default=())  # (when, bullheads per round of the last games)
    left: int = 0  # games they left before the end (counted as lost)


@dataclass(slots=True)
class Tally:
    """One person's figures so far, folded game by game (kept in the store as JSON, see
    :mod:`nimmt.people.rated`)."""

    games: int = 0
    wins: float = 0.0
    rounds: int = 0
    bullheads: int = 0
    best: int | None = None
    worst: int | None = None
    past: int = 0
    left: int = 0
    recent: list[tuple[int, int]] = field(default_factory=list)  # (bullheads, rounds) of the latest games
    form: list[tuple[datetime, float]] = field(default_factory=list)

    def add(self, game: GameResult, seat: int) -> None:
        self.games += 1
        if seat in game.left:  # a bot, or nobody, played the rest: none of it is theirs
            self.left += 1
            return
        mine = [penalties[seat] for penalties in game.round_penalties]
        winners = game.winners
        if seat in winners:
            self.wins += 1 / len(winners)
        if not mine:
            return
        self.rounds += len(mine)
        self.bullheads += game.totals[seat]
        self.best = min(mine) if self.best is None else min(self.best, *mine)
        self.worst = max(mine) if self.worst is None else max(self.worst, *mine)
        self.past += game.totals[seat] > game.end_above
        self.recent = [*self.recent, (game.totals[seat], len(mine))][-FORM_GAMES:]
        self.form = [*self.form, (game.when, sum(b for b, _ in self.recent) / sum(r for _, r in self.recent))]
        del self.form[:-FORM_KEPT]

    def row(self, person: str) -> LeagueRow:
        return LeagueRow(
            person, self.games, self.wins, self.rounds, self.bullheads,
            self.bullheads / self.rounds if self.rounds else None,
            self.best, self.worst, self.past, tuple(self.form), self.left,
        )

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "wins": self.wins, "rounds": self.rounds, "bullheads": self.bullheads,
                "best": self.best, "worst": self.worst, "past": self.past, "left": self.left,
                "recent": [list(pair) for pair in self.recent],
                "form": [[when.isoformat(), value] for when, value in self.form]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tally:
        return cls(int(data["games"]), float(data["wins"]), int(data["rounds"]), int(data["bullheads"]),
                   data["best"], data["worst"], int(data["past"]), int(data.get("left", 0)),
                   [(int(b), int(r)) for b, r in data["recent"]],
                   [(datetime.fromisoformat(when), float(value)) for when, value in data["form"]])


def _order(row: LeagueRow) -> tuple[bool, float, float, int, str]:
    per_round = row.bullheads_per_round if row.bullheads_per_round is not None else 0.0
    return (row.games == 0, -row.wins, per_round, -row.games, row.person)


def league(results: Iterable[GameResult], members: Iterable[str] | None = None) -> list[LeagueRow]:
    """The league table of these games (in any order: they are taken by ``when``).

    With ``members``, exactly their rows (a member without games too) and nobody else's; without,
    every person who played, bots left out. The others at a table still count for who won.
    """
    wanted = None if members is None else set(members)
    tallies: dict[str, Tally] = {person: Tally() for person in wanted or ()}
    for game in sorted(results, key=lambda game: game.when):
        if not game.rated:
            continue
        for seat, person in enumerate(game.players):
            if (person in wanted) if wanted is not None else not is_bot(person):
                tallies.setdefault(person, Tally()).add(game, seat)
    return rows_of(tallies, wanted)


def rows_of(tallies: Mapping[str, Tally], members: Iterable[str] | None = None) -> list[LeagueRow]:
    """The league's rows from kept tallies: with ``members``, exactly theirs (empty for one who has not played)."""
    if members is None:
        return sorted((tally.row(person) for person, tally in tallies.items()), key=_order)
    return sorted((tallies.get(person, Tally()).row(person) for person in set(members)), key=_order)
