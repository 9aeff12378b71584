"""Ratings kept in the store: updated when a game ends, recomputed only when they cannot be.

Everybody's rating (:mod:`nimmt.people.ratings`) is a fold over the finished games in time order,
so it can be kept: one row per **scope** (every game, :data:`EVERYONE`, or one group's) in
``people_rated``, holding the ratings and the **stamp** of the games they come from: how many
games, how many seats of no known player (bots, guests, deleted players), and the last game in the
order the fold takes (end time, then id). When a game is kept, each scope it counts in is updated
by that one game, but only if the stored stamp plus this game is exactly what the store holds now
(the game is the newest, nothing else changed meanwhile); the write is conditional on the stamp it
read, so of two processes updating at once one wins and the other leaves it. A reader compares
the stored stamp with the store's: equal, the stored ratings are the fold; different (a game
that ended out of order, a deleted player whose seats became "a former player", a race lost),
the scope is folded again from all its games and stored. Either way a reader gets exactly what
:func:`~nimmt.people.ratings.rate` gives over all the games, which tests check; nothing is kept in
a process, so every process reads the same.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from .league import GameResult
from .model import FORMER, FinishedGame
from .ratings import Rating, rate
from .ratings import update as rate_one
from .schema import GAMES, RATED, SEATS

EVERYONE = "*"  # the scope of every game (a group's scope is its id)
logger = logging.getLogger("nimmt.people")


def result_of(game: FinishedGame) -> GameResult:
    """A finished game as the league and the ratings take it (a seat nobody knows has an id of its own)."""
    return GameResult(game.finished_at, game.person_ids(), game.totals, game.rounds, game.end_above)


def scopes_of(game: FinishedGame) -> list[str]:
    return [EVERYONE] + ([game.group_id] if game.group_id is not None else [])


@dataclass(frozen=True, slots=True)
class Stamp:
    """Which games a scope's ratings come from (see the module)."""

    games: int = 0
    unknown_seats: int = 0
    last_at: datetime | None = None
    last_game: str | None = None

    def after(self, game: FinishedGame) -> Stamp | None:
        """The stamp once ``game`` is folded in, or None when it is not the newest (then the fold must
        be taken again from the start)."""
        when = game.finished_at.astimezone(UTC)
        if self.last_at is not None and self.last_game is not None and (when, game.id) <= (self.last_at,
                                                                                          self.last_game):
            return None
        unknown = sum(seat.player_id is None for seat in game.seats)
        return Stamp(self.games + 1, self.unknown_seats + unknown, when, game.id)


def _kept(ratings: dict[str, Rating]) -> dict[str, list[float]]:
    """The ratings to store: a deleted player's seats have ids of their own, met once, left out."""
    return {person: [rating.mu, rating.sigma, rating.games] for person, rating in ratings.items()
            if not person.startswith(f"{FORMER}:")}


def _ratings(stored: dict[str, Any]) -> dict[str, Rating]:
    return {person: Rating(float(mu), float(sigma), int(games)) for person, (mu, sigma, games) in stored.items()}


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class RatedStore:
    """The ``people_rated`` rows, on the people store's engine. ``recomputed`` counts the folds taken
    from the start by this object (tests see that a game's end did not need one)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self.recomputed = 0

    async def stamp_now(self, scope: str) -> Stamp:
        """The stamp of the games the store holds in this scope now."""
        where = GAMES.c.id.is_not(None) if scope == EVERYONE else GAMES.c.group_id == scope
        async with self._engine.connect() as connection:
            games = (await connection.execute(select(func.count()).select_from(GAMES).where(where))).scalar_one()
            unknown = (await connection.execute(
                select(func.count()).select_from(SEATS.join(GAMES, GAMES.c.id == SEATS.c.game_id))
                .where(where, SEATS.c.player_id.is_(None)))).scalar_one()
            last = (await connection.execute(select(GAMES.c.finished_at, GAMES.c.id).where(where)
                                             .order_by(GAMES.c.finished_at.desc(), GAMES.c.id.desc()).limit(1))).first()
        return Stamp(int(games), int(unknown), _utc(last.finished_at) if last else None, last.id if last else None)

    async def stored(self, scope: str) -> tuple[Stamp, dict[str, Rating]] | None:
        async with self._engine.connect() as connection:
            row = (await connection.execute(select(RATED).where(RATED.c.scope == scope))).first()
        if row is None:
            return None
        return Stamp(row.games, row.unknown_seats, _utc(row.last_at), row.last_game), _ratings(row.ratings)

    async def ratings(self, scope: str, games: Sequence[FinishedGame] | None = None,
                      load: Any = None) -> dict[str, Rating]:
        """The ratings of everybody in this scope (as :func:`rate` gives them over all its games).
        ``games``: the scope's games if the caller has them; else ``load()`` reads them when needed."""
        now = await self.stamp_now(scope)
        kept = await self.stored(scope)
        if kept is not None and kept[0] == now:
            return kept[1]
        if games is None:
            games = await load()
        assert games is not None
        self.recomputed += 1
        ratings = _ratings(_kept(fold(games)))
        if await self.stamp_now(scope) == now:  # nothing came meanwhile: what was folded is what the stamp says
            await self._put(scope, kept[0] if kept is not None else None, now, ratings)
        return ratings

    async def after_game(self, game: FinishedGame) -> None:
        """Fold one newly kept game into each scope it counts in, where that gives the full fold."""
        for scope in scopes_of(game):
            kept = await self.stored(scope)
            if kept is None:
                continue  # never read yet: the first reader folds it
            stamp, ratings = kept
            after = stamp.after(game)
            if after is None or await self.stamp_now(scope) != after:
                continue  # out of order, or something else changed: the next reader folds again
            await self._put(scope, stamp, after, rate_one(ratings, result_of(game)))

    async def _put(self, scope: str, before: Stamp | None, stamp: Stamp, ratings: dict[str, Rating]) -> None:
        """Store the scope's ratings with their stamp, only if the row still has ``before`` (None: no row)."""
        values = {"games": stamp.games, "unknown_seats": stamp.unknown_seats, "last_at": stamp.last_at,
                  "last_game": stamp.last_game, "ratings": _kept(ratings)}
        try:
            async with self._engine.begin() as connection:
                if before is None:
                    await connection.execute(insert(RATED).values(scope=scope, **values))
                    return
                same = and_(RATED.c.scope == scope, RATED.c.games == before.games,
                            RATED.c.unknown_seats == before.unknown_seats,
                            RATED.c.last_game.is_(None) if before.last_game is None
                            else RATED.c.last_game == before.last_game)
                await connection.execute(update(RATED).where(same).values(**values))
        except IntegrityError:  # another process stored this scope first: theirs stands
            logger.debug("the ratings of scope %s were stored by another process first", scope)


def fold(games: Iterable[FinishedGame]) -> dict[str, Rating]:
    """The ratings from these games taken from the start (what the stored ones must equal)."""
    return rate(result_of(game) for game in games)
