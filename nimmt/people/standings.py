"""A group's league and everybody's ratings, from the finished games the store keeps.

The league and the ratings themselves are :mod:`nimmt.people.league` and
:mod:`nimmt.people.ratings` (pure); this module feeds them the store's games and puts names to
the ids. The ratings are kept in the store (:mod:`nimmt.people.rated`), the league is computed
from the group's games: any process gives the same standings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .league import GameResult, LeagueRow, is_bot, league
from .model import FORMER, FinishedGame
from .rated import EVERYONE, result_of
from .ratings import BOT_REFERENCE, Rating
from .store import PeopleStore


def results(games: Iterable[FinishedGame]) -> list[GameResult]:
    """The games as the league and the ratings take them (a seat nobody knows has an id of its own)."""
    return [result_of(game) for game in games]


def is_person(person: str) -> bool:
    """Whether an id is a player's (not a bot's, nor a guest's or a former player's seat)."""
    return not is_bot(person) and not person.startswith(f"{FORMER}:")


def names_of(games: Sequence[FinishedGame]) -> dict[str, str | None]:
    """Each player's name at their latest game (games come newest first)."""
    names: dict[str, str | None] = {}
    for game in games:
        for seat in game.seats:
            if seat.player_id is not None:
                names.setdefault(seat.player_id, seat.name)
    return names


@dataclass(frozen=True, slots=True)
class Standings:
    rows: list[LeagueRow]
    names: dict[str, str | None]  # player id -> the name to show
    ratings: dict[str, Rating]
    games: int


async def group_standings(store: PeopleStore, group_id: str) -> Standings:
    """A group's league: its members (those without a game yet too) and whoever played its games,
    with their ratings from the group's games alone."""
    games = await store.group_games(group_id)
    members = await store.members(group_id)
    names = names_of(games)
    names.update({member.player_id: member.name for member in members})
    played = results(games)
    people = [person for person in names if is_person(person)]
    return Standings(league(played, members=people), names, await store.rated.ratings(group_id, games), len(games))


async def overall_ratings(store: PeopleStore) -> tuple[dict[str, Rating], int]:
    """Everybody's ratings from every finished game (kept, see nimmt.people.rated), and how many games."""
    ratings = await store.rated.ratings(EVERYONE, load=store.all_games)
    games = (await store.rated.stamp_now(EVERYONE)).games
    return {person: rating for person, rating in ratings.items() if is_person(person)}, games


def bot_references() -> dict[str, Rating]:
    """The bots' fixed ratings, by bot id (``bot:<level>``)."""
    return dict(BOT_REFERENCE)
