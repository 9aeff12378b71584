"""Standings kept in the store: each person's rating and league figures, updated as games end,
folded again from the games only when they cannot be, and then off the event loop.

Everybody's rating (:mod:`nimmt.people.ratings`) and league figures (:mod:`nimmt.people.league`)
are folds over the finished games in time order, so they can be kept: per **scope** (the games
played at nimmt's tables, :data:`EVERYONE`, or one group's games, its score sheets too) a row of
``people_standing`` per player (rating, figures, the rating's recent history), and in
``people_rated`` the scope's **stamp**: how many games, how many seats of no known player (bots,
guests, deleted players, score-sheet seats not confirmed), and the last game in the order the fold
takes (end time, then id).

When a game is kept, each scope it counts in is updated by that one game, in one transaction: the
stamp's row is changed only if it is still the stamp read, and the stamp plus this game must be
what the store holds now (the game is the newest, nothing else changed meanwhile); otherwise
nothing is written. A reader compares the stored stamp with the store's: equal, the kept rows are
the fold; different (a game that ended out of order, a deleted player whose seats became "a former
player", a confirmed or denied score sheet, a lost race), the scope is folded again from all its
games: the games are read in pages, the fold runs in a worker thread, one fold at a time per
process and one per scope (readers of a scope being folded wait for that fold), so the event loop
is never held by it. Either way a reader gets exactly what :func:`fold` gives over all the scope's
games, which tests check; nothing is kept in a process, so every process reads the same.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, and_, delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nimmt.core import NimmtError

from .league import GameResult, Tally, is_bot
from .model import FORMER, FinishedGame
from .ratings import Rating
from .ratings import update as rate_one
from .schema import GAMES, PLAYERS, RATED, SEATS, STANDING

EVERYONE = "*"  # the scope of the games played at nimmt's tables (a group's scope is its id)
HISTORY_KEPT = 100  # how many points of a person's rating history are kept (the chart shows them)
logger = logging.getLogger("nimmt.people")


def result_of(game: FinishedGame) -> GameResult:
    """A finished game as the league and the ratings take it (a seat nobody knows has an id of its own)."""
    return GameResult(game.finished_at, game.person_ids(), game.totals, game.rounds, game.end_above,
                      game.left, game.rated)


def scopes_of(game: FinishedGame) -> list[str]:
    """Where a game counts: a table's game overall and in its group; a score sheet in its group only."""
    return ([EVERYONE] if game.source == "table" else []) + ([game.group_id] if game.group_id is not None else [])


def in_scope(scope: str) -> Any:
    """The games of a scope, as a condition on ``people_games``."""
    return GAMES.c.source == "table" if scope == EVERYONE else GAMES.c.group_id == scope


def is_kept(person: str) -> bool:
    """Whether a seat's id is a player's, kept in the standings (not a bot's, a guest's, a former player's)."""
    return not is_bot(person) and not person.startswith(f"{FORMER}:")


@dataclass(slots=True)
class Standing:
    """One person in one scope: their rating, their league figures and their rating after each of
    their latest rated games (when, the shown number)."""

    rating: Rating = field(default_factory=Rating)
    tally: Tally = field(default_factory=Tally)
    history: list[tuple[datetime, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {**self.tally.to_json(), "history": [[when.isoformat(), shown] for when, shown in self.history]}


def _standing(row: Any) -> Standing:
    data = dict(row.tally)
    history = [(datetime.fromisoformat(when), int(shown)) for when, shown in data.pop("history", [])]
    return Standing(Rating(float(row.mu), float(row.sigma), int(row.rated_games)), Tally.from_json(data), history)


def step(standings: Mapping[str, Standing], game: GameResult) -> dict[str, Standing]:
    """The standings of the people of one game after it (only they change; ``standings`` must hold
    those who played before, and stays as it was)."""
    out = dict(standings)
    if not game.rated:
        return out
    rated = rate_one({person: standing.rating for person, standing in standings.items()}, game)
    for seat, person in enumerate(game.players):
        if is_bot(person):
            continue
        before = standings.get(person) or Standing()
        tally = Tally.from_json(before.tally.to_json())
        tally.add(game, seat)
        rating = rated.get(person, before.rating)
        history = before.history
        if rating != before.rating:
            history = [*history, (game.when, rating.display)][-HISTORY_KEPT:]
        out[person] = Standing(rating, tally, history)
    return out


def fold(games: Iterable[FinishedGame]) -> dict[str, Standing]:
    """Everybody's standings from these games taken from the start, in the order they ended (then by
    id): what the kept ones must equal (the seats of no known player are left out)."""
    standings: dict[str, Standing] = {}
    for game in sorted(games, key=lambda game: (game.finished_at.astimezone(UTC), game.id)):
        standings = step(standings, result_of(game))
    return {person: standing for person, standing in standings.items() if is_kept(person)}


def ratings_of(standings: Mapping[str, Standing]) -> dict[str, Rating]:
    return {person: standing.rating for person, standing in standings.items()}


@dataclass(frozen=True, slots=True)
class Stamp:
    """Which games a scope's standings come from (see the module)."""

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
        unknown = sum(seat.player_id is None or not seat.confirmed for seat in game.seats)
        return Stamp(self.games + 1, self.unknown_seats + unknown, when, game.id)

    def values(self) -> dict[str, Any]:
        return {"games": self.games, "unknown_seats": self.unknown_seats, "last_at": self.last_at,
                "last_game": self.last_game}

    def same(self) -> Any:
        """The condition that a ``people_rated`` row holds this stamp."""
        return and_(RATED.c.games == self.games, RATED.c.unknown_seats == self.unknown_seats,
                    RATED.c.last_game.is_(None) if self.last_game is None else RATED.c.last_game == self.last_game)


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class _Lost(NimmtError):
    """The stamp changed under a write: nothing of it is kept."""


GamesLoader = Callable[[str], Awaitable[Sequence[FinishedGame]]]


class RatedStore:
    """The ``people_rated`` and ``people_standing`` rows, on the people store's engine. ``load(scope)``
    reads a scope's games (in pages). ``recomputed`` counts the folds taken from the start by this
    object (tests see that a game's end did not need one)."""

    def __init__(self, engine: AsyncEngine, load: GamesLoader) -> None:
        self._engine = engine
        self._load = load
        self.recomputed = 0
        self._folding: dict[str, asyncio.Task[None]] = {}
        self._one_fold = asyncio.Semaphore(1)  # one fold at a time in this process: bounded work

    # -- stamps --------------------------------------------------------------------------------

    async def stamp_now(self, scope: str, connection: AsyncConnection | None = None) -> Stamp:
        """The stamp of the games the store holds in this scope now."""
        if connection is None:
            async with self._engine.connect() as connection:
                return await self.stamp_now(scope, connection)
        where = in_scope(scope)
        games = select(func.count()).select_from(GAMES).where(where).scalar_subquery()
        unknown = (select(func.count()).select_from(SEATS.join(GAMES, GAMES.c.id == SEATS.c.game_id))
                   .where(where, or_(SEATS.c.player_id.is_(None), SEATS.c.confirmed.is_(False))).scalar_subquery())
        last = select(GAMES.c.finished_at, GAMES.c.id).where(where).order_by(
            GAMES.c.finished_at.desc(), GAMES.c.id.desc()).limit(1).subquery()
        count, unknown_seats = (await connection.execute(select(games, unknown))).one()  # both counts at once
        latest = (await connection.execute(select(last.c.finished_at, last.c.id))).first()
        return Stamp(int(count), int(unknown_seats), _utc(latest.finished_at) if latest else None,
                     latest.id if latest else None)

    async def stored(self, scope: str, connection: AsyncConnection | None = None) -> Stamp | None:
        """The stamp the kept standings of this scope come from (None: never kept)."""
        if connection is None:
            async with self._engine.connect() as connection:
                return await self.stored(scope, connection)
        row = (await connection.execute(select(RATED).where(RATED.c.scope == scope))).first()
        return None if row is None else Stamp(row.games, row.unknown_seats, _utc(row.last_at), row.last_game)

    # -- reading -------------------------------------------------------------------------------

    async def standings(self, scope: str, only: Select[Any] | None = None) -> dict[str, Standing]:
        """The standings of everybody in this scope (exactly :func:`fold` over its games), folded again
        first (off the loop) if they are not up to date. ``only``: a select of the player ids wanted."""
        return (await self.read(scope, only))[1]

    async def read(self, scope: str, only: Select[Any] | None = None) -> tuple[Stamp, dict[str, Standing]]:
        """The scope's stamp and standings (see :meth:`standings`), read together when up to date."""
        query = select(STANDING).where(STANDING.c.scope == scope)
        if only is not None:
            query = query.where(STANDING.c.player_id.in_(only))
        for _ in range(2):
            async with self._engine.connect() as connection:
                now = await self.stamp_now(scope, connection)
                if await self.stored(scope, connection) == now:
                    rows = (await connection.execute(query)).all()
                    return now, {row.player_id: _standing(row) for row in rows}
            await self.refold(scope)
        async with self._engine.connect() as connection:  # games kept coming: the latest fold stands
            rows = (await connection.execute(query)).all()
        return now, {row.player_id: _standing(row) for row in rows}

    async def ratings(self, scope: str) -> dict[str, Rating]:
        """Everybody's ratings in this scope."""
        return ratings_of(await self.standings(scope))

    async def public_standings(self) -> dict[str, Standing]:
        """The overall standings of the players who show their profile."""
        return await self.standings(EVERYONE, select(PLAYERS.c.id).where(PLAYERS.c.public))

    async def standing_of(self, scope: str, player_id: str) -> Standing | None:
        return (await self.standings(scope, select(PLAYERS.c.id).where(PLAYERS.c.id == player_id))).get(player_id)

    # -- folding again ---------------------------------------------------------------------------

    async def refold(self, scope: str) -> None:
        """Fold the scope again from its games (readers of the same scope share one fold)."""
        task = self._folding.get(scope)
        if task is None or task.done():
            task = self._folding[scope] = asyncio.create_task(self._refold(scope))
            task.add_done_callback(lambda done: self._folding.pop(scope, None) if self._folding.get(scope) is done
                                   else None)
        await asyncio.shield(task)

    def refold_soon(self, scopes: Iterable[str]) -> None:
        """Start folding these scopes again in the background (after a change that needs it)."""
        for scope in scopes:
            task = asyncio.create_task(self.refold(scope))
            task.add_done_callback(_log_failure)

    async def _refold(self, scope: str) -> None:
        async with self._one_fold:
            for _ in range(3):  # games that keep coming meanwhile: try again, then leave it to the next reader
                now = await self.stamp_now(scope)
                games = await self._load(scope)
                standings = await asyncio.to_thread(fold, games)
                self.recomputed += 1
                if await self._put_all(scope, now, standings):
                    return
            logger.info("the standings of scope %s changed during three folds: left to the next reader", scope)

    async def _put_all(self, scope: str, now: Stamp, standings: Mapping[str, Standing]) -> bool:
        """Store a whole scope's standings, only if its games are still those of ``now``."""
        try:
            async with self._engine.begin() as connection:
                if await self.stamp_now(scope, connection) != now:
                    return False
                await connection.execute(delete(STANDING).where(STANDING.c.scope == scope))
                rows = [_row(scope, person, standing) for person, standing in standings.items()]
                for start in range(0, len(rows), 500):
                    await connection.execute(insert(STANDING), rows[start:start + 500])
                await connection.execute(delete(RATED).where(RATED.c.scope == scope))
                await connection.execute(insert(RATED).values(scope=scope, **now.values()))
        except Exception as error:  # a player deleted meanwhile, another process storing the same: theirs stands
            logger.debug("the standings of scope %s were not stored: %s", scope, error)
            return False
        return True

    # -- a game ends ---------------------------------------------------------------------------

    async def after_game(self, game: FinishedGame) -> None:
        """Fold one newly kept game into each scope it counts in, where that gives the full fold."""
        result = result_of(game)
        people = [person for person in result.players if is_kept(person)]
        for scope in scopes_of(game):
            try:
                async with self._engine.begin() as connection:
                    before = await self.stored(scope, connection)
                    after = None if before is None else before.after(game)
                    if before is None or after is None or await self.stamp_now(scope, connection) != after:
                        continue  # never read, out of order, or something else changed: the next reader folds
                    done = await connection.execute(update(RATED).where(RATED.c.scope == scope, before.same())
                                                    .values(**after.values()))
                    if done.rowcount != 1:
                        raise _Lost
                    rows = (await connection.execute(select(STANDING).where(
                        STANDING.c.scope == scope, STANDING.c.player_id.in_(people)))).all() if people else []
                    now = step({row.player_id: _standing(row) for row in rows}, result)
                    if people:
                        await connection.execute(delete(STANDING).where(STANDING.c.scope == scope,
                                                                        STANDING.c.player_id.in_(people)))
                        await connection.execute(insert(STANDING), [_row(scope, person, now[person])
                                                                    for person in people])
            except Exception as error:  # a lost race (or a deleted player): the next reader folds again
                logger.debug("the standings of scope %s were not updated by game %s: %r", scope, game.id, error)


def _row(scope: str, person: str, standing: Standing) -> dict[str, Any]:
    return {"scope": scope, "player_id": person, "mu": standing.rating.mu, "sigma": standing.rating.sigma,
            "rated_games": standing.rating.games, "tally": standing.to_json()}


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.warning("folding standings again failed: %r", task.exception())
