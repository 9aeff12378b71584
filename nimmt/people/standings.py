"""A group's league, a person's own standing and everybody's ratings, as the store keeps them.

The league and the ratings themselves are :mod:`nimmt.people.league` and
:mod:`nimmt.people.ratings` (pure); :mod:`nimmt.people.rated` keeps their fold per scope, updated
as games end, so a read here costs what it shows (a few rows), however many games the group
played. This module puts names to the ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from .league import LeagueRow, is_bot, rows_of
from .model import FORMER, Group
from .rated import EVERYONE, Standing
from .ratings import BOT_REFERENCE, Rating
from .schema import PLAYERS
from .store import PeopleStore


def is_person(person: str) -> bool:
    """Whether an id is a player's (not a bot's, nor a guest's or a former player's seat)."""
    return not is_bot(person) and not person.startswith(f"{FORMER}:")


@dataclass(frozen=True, slots=True)
class Standings:
    rows: list[LeagueRow]
    names: dict[str, str | None]  # player id -> the name to show
    ratings: dict[str, Rating]
    games: int
    unrated: int = 0  # games that count for nobody (bots finished them, or a table of people left them)


async def group_standings(store: PeopleStore, group_id: str) -> Standings:
    """A group's league: its members (those without a game yet too) and whoever played its games,
    with their ratings from the group's games alone."""
    stamp, kept = await store.rated.read(group_id)
    members = {member.player_id: member.name for member in await store.members(group_id)}
    names = dict(members)
    names.update(await _names([person for person in kept if person not in names], store))
    tallies = {person: standing.tally for person, standing in kept.items()}
    rows = rows_of(tallies, set(kept) | set(members))
    return Standings(rows, names, {person: standing.rating for person, standing in kept.items()}, stamp.games,
                     await store.unrated_games(group_id))


async def _names(people: list[str], store: PeopleStore) -> dict[str, str | None]:
    names: dict[str, str | None] = {}
    for person in people:
        player = await store.player(person)
        names[person] = None if player is None else player.name
    return names


async def overall_ratings(store: PeopleStore) -> tuple[dict[str, Rating], int]:
    """The ratings of the players who show their profile, from the games played at nimmt's tables,
    and how many games that is."""
    stamp, kept = await store.rated.read(EVERYONE, select(PLAYERS.c.id).where(PLAYERS.c.public))
    return {person: standing.rating for person, standing in kept.items()}, stamp.games


@dataclass(frozen=True, slots=True)
class OwnStanding:
    """One person's standing in one scope (overall, or a group): None before their first game there."""

    scope: str
    group: Group | None
    standing: Standing | None
    games: int  # how many games the scope holds


async def own_standings(store: PeopleStore, player_id: str) -> list[OwnStanding]:
    """A person's standing overall and in each of their groups (the groups in the order they joined)."""
    mine = select(PLAYERS.c.id).where(PLAYERS.c.id == player_id)
    out = []
    for scope, group in [(EVERYONE, None), *((group.id, group) for group in await store.groups_of(player_id))]:
        stamp, kept = await store.rated.read(scope, mine)
        out.append(OwnStanding(scope, group, kept.get(player_id), stamp.games))
    return out


def bot_references() -> dict[str, Rating]:
    """The bots' fixed ratings, by bot id (``bot:<level>``)."""
    return dict(BOT_REFERENCE)

