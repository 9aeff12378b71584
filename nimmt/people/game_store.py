"""The finished games kept: who sat where and with what total, a table's game once (two processes
may both see it end), a score sheet's seats confirmed by their members; read by player, group,
standings scope or id. The kept ratings (:mod:`nimmt.people.rated`, this store's :attr:`rated`)
are folds over these games, updated as each game is kept."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import Database
from .model import NAME_LENGTH, FinishedGame, PeopleError, SeatResult
from .rated import EVERYONE, RatedStore, in_scope
from .rows import cleaned, utc
from .schema import GAMES, SEATS

logger = logging.getLogger("nimmt.people")


class GameStore(Protocol):
    """Finished games and score-sheet confirmations (see :class:`SqlGameStore` for each call)."""

    async def record_game(self, game: FinishedGame) -> bool: ...
    async def games_of(self, player_id: str, *, limit: int = 50,
                       before: datetime | None = None) -> list[FinishedGame]: ...
    async def group_games(self, group_id: str) -> list[FinishedGame]: ...
    async def all_games(self) -> list[FinishedGame]: ...
    async def scope_games(self, scope: str) -> list[FinishedGame]: ...
    async def game(self, game_id: str) -> FinishedGame | None: ...
    async def confirm_seat(self, game_id: str, player_id: str, *, mine: bool) -> FinishedGame: ...
    async def pending_sheets(self, player_id: str) -> int: ...
    async def unrated_games(self, scope: str) -> int: ...


class SqlGameStore:
    """:class:`GameStore` on the database it is handed, with the ratings kept of its games."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self.rated = RatedStore(self._engine, self.scope_games)

    async def record_game(self, game: FinishedGame) -> bool:
        """Keep a finished game with who sat where; False when this table's game was already kept
        (two processes may both see it end: the first one keeps it). The kept ratings are then
        updated by this game (a failure there is logged: the next reader folds them again)."""
        if not await self._insert_game(game):
            return False
        try:
            await self.rated.after_game(game)
        except Exception:
            logger.exception("the kept ratings were not updated after game %s", game.id)
        return True

    async def _insert_game(self, game: FinishedGame) -> bool:
        check_game(game)
        try:
            async with self._engine.begin() as connection:
                if game.table_id is not None:
                    known = select(GAMES.c.id).where(GAMES.c.table_id == game.table_id, GAMES.c.game == game.game)
                    if (await connection.execute(known)).first() is not None:
                        return False
                await connection.execute(insert(GAMES).values(
                    id=game.id, source=game.source, table_id=game.table_id, game=game.game, group_id=game.group_id,
                    finished_at=utc(game.finished_at), end_above=game.end_above,
                    rounds=[list(row) for row in game.rounds], ending=game.ending, rated=game.rated,
                    saved_by=game.saved_by))
                await connection.execute(insert(SEATS), [
                    {"game_id": game.id, "seat": seat.seat, "player_id": seat.player_id, "name": seat.name,
                     "bot": seat.bot, "total": seat.total, "left": seat.left, "confirmed": seat.confirmed}
                    for seat in game.seats])
        except IntegrityError:
            return await self._known_or_refused(game)
        return True

    async def _known_or_refused(self, game: FinishedGame) -> bool:
        if game.table_id is not None:
            async with self._engine.connect() as connection:
                known = select(GAMES.c.id).where(GAMES.c.table_id == game.table_id, GAMES.c.game == game.game)
                if (await connection.execute(known)).first() is not None:
                    return False  # the other process was first
        raise PeopleError("unknown_player", "a seat's player or the group does not exist (deleted?)")

    async def _games(self, where: Any, *, limit: int | None = None, oldest_first: bool = False,
                     connection: AsyncConnection | None = None) -> list[FinishedGame]:
        if connection is None:
            async with self._engine.connect() as connection:
                return await self._games(where, limit=limit, oldest_first=oldest_first, connection=connection)
        order = (GAMES.c.finished_at, GAMES.c.id) if oldest_first else (GAMES.c.finished_at.desc(), GAMES.c.id)
        query = select(GAMES).where(where).order_by(*order)
        if limit is not None:
            query = query.limit(limit)
        games = (await connection.execute(query)).all()
        ids = [row.id for row in games]
        seats: dict[str, list[SeatResult]] = {game_id: [] for game_id in ids}
        for start in range(0, len(ids), 500):  # within every database's count of parameters
            chunk = ids[start:start + 500]
            query_seats = select(SEATS).where(SEATS.c.game_id.in_(chunk)).order_by(SEATS.c.game_id, SEATS.c.seat)
            for seat in (await connection.execute(query_seats)).all():
                seats[seat.game_id].append(SeatResult(seat.seat, seat.player_id, seat.name, seat.bot, seat.total,
                                                      bool(seat.left), bool(seat.confirmed)))
        return [FinishedGame(row.id, row.source, utc(row.finished_at), row.end_above, tuple(seats[row.id]),
                             tuple(tuple(penalties) for penalties in row.rounds), row.table_id, row.game,
                             row.group_id, row.ending, bool(row.rated), row.saved_by) for row in games]

    async def games_of(self, player_id: str, *, limit: int = 50, before: datetime | None = None) -> list[FinishedGame]:
        """The player's finished games, newest first (``before``: older than that, for the next page)."""
        mine = GAMES.c.id.in_(select(SEATS.c.game_id).where(SEATS.c.player_id == player_id))
        where = mine if before is None else and_(mine, GAMES.c.finished_at < utc(before))
        return await self._games(where, limit=max(1, min(limit, 500)))

    async def group_games(self, group_id: str) -> list[FinishedGame]:
        return await self._games(GAMES.c.group_id == group_id)

    async def all_games(self) -> list[FinishedGame]:
        return await self._games(GAMES.c.id.is_not(None))

    # -- standings: what the ratings and leagues are folded from, and score-sheet confirmations ---

    async def scope_games(self, scope: str) -> list[FinishedGame]:
        """The games of a standings scope (nimmt.people.rated), oldest first, read in pages of 500 so
        that a scope of thousands of games never holds the event loop for long."""
        games: list[FinishedGame] = []
        where = in_scope(scope)
        while True:
            if games:
                last = games[-1]
                when = utc(last.finished_at)
                where = and_(in_scope(scope), or_(GAMES.c.finished_at > when,
                                                  and_(GAMES.c.finished_at == when, GAMES.c.id > last.id)))
            page = await self._games(where, limit=500, oldest_first=True)
            games.extend(page)
            if len(page) < 500:
                return games

    async def game(self, game_id: str) -> FinishedGame | None:
        found = await self._games(GAMES.c.id == game_id, limit=1)
        return found[0] if found else None

    async def confirm_seat(self, game_id: str, player_id: str, *, mine: bool) -> FinishedGame:
        """A member says a score sheet's seat is theirs (``mine``: it counts in their figures from now on)
        or not ("this was not me": the seat becomes somebody else's, and the game leaves their games)."""
        async with self._engine.begin() as connection:
            row = (await connection.execute(select(GAMES.c.source, GAMES.c.group_id).where(GAMES.c.id == game_id)))
            found = row.first()
            if found is None or found.source != "sheet":
                raise PeopleError("not_in_game", "no such score sheet among this player's games")
            seat = SEATS.c.game_id == game_id, SEATS.c.player_id == player_id
            values = {"confirmed": True} if mine else {"player_id": None}
            done = await connection.execute(update(SEATS).where(*seat).values(**values))
            if done.rowcount < 1:
                raise PeopleError("not_in_game", "no such score sheet among this player's games")
        if found.group_id is not None:
            await self.rated.refold(found.group_id)  # off the loop; the league reads it at once after
        game = await self.game(game_id)
        assert game is not None
        return game

    async def pending_sheets(self, player_id: str) -> int:
        """How many score sheets name this player and await their word."""
        query = select(func.count()).select_from(SEATS).where(SEATS.c.player_id == player_id,
                                                               SEATS.c.confirmed.is_(False))
        async with self._engine.connect() as connection:
            return int((await connection.execute(query)).scalar_one())

    async def unrated_games(self, scope: str) -> int:
        """How many of a scope's games count for nobody (finished by bots, or abandoned by a table of people)."""
        query = select(func.count()).select_from(GAMES).where(in_scope(scope), GAMES.c.rated.is_(False))
        async with self._engine.connect() as connection:
            return int((await connection.execute(query)).scalar_one())

    async def older_games(self, player_id: str) -> list[FinishedGame]:
        """The player's games past the first 500 (an export holds every game)."""
        older: list[FinishedGame] = []
        page = await self.games_of(player_id, limit=500)
        while len(page) == 500:
            page = await self.games_of(player_id, limit=500, before=page[-1].finished_at)
            older.extend(page)
        return older


async def played_scopes(connection: AsyncConnection, player_id: str) -> set[str]:
    """The standings scopes (nimmt.people.rated) of the games this player sat at."""
    played = select(SEATS.c.game_id).where(SEATS.c.player_id == player_id)
    kinds = (await connection.execute(select(GAMES.c.group_id, GAMES.c.source).where(GAMES.c.id.in_(played))
                                      .distinct())).all()
    return {row.group_id for row in kinds if row.group_id is not None} | {EVERYONE for row in kinds
                                                                          if row.source == "table"}


def check_game(game: FinishedGame) -> None:
    seats = len(game.seats)
    if not 2 <= seats <= 10 or [seat.seat for seat in game.seats] != list(range(seats)):
        raise PeopleError("bad_game", "a game has 2 to 10 seats, numbered from 0")
    if any(len(row) != seats for row in game.rounds):
        raise PeopleError("bad_game", "each round has one penalty per seat")
    if (game.table_id is None) != (game.game is None):
        raise PeopleError("bad_game", "a table's game has both its table id and its number")
    for seat in game.seats:
        if seat.name is not None:
            cleaned(seat.name, NAME_LENGTH, "name")
