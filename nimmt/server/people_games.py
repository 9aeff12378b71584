"""The tables tell the people part about their games: when a table's game is over, it is kept with
the player of each seat (docs/people.md) and the table's group, for My games, leagues and ratings.

Heard after each change of a table that leaves a game over (:func:`keeps`, a keeper of the
tables: awaited under the table's lock before the change's news goes out, so a page that shows the
last screen finds the game under My games and in the league), and when a table whose game is in progress leaves memory
with nobody at it (its ``game_abandoned`` hook: the game is kept as abandoned). Which seats' people left before the
end, and so how the game is rated, is :func:`nimmt.people.games.fair_ending`'s (docs/people.md,
Fair records). Keeping a game is idempotent (a table's game is kept once, whichever process sees it
end first); a failure is logged and never undoes or refuses the table's action.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from nimmt.people.games import from_record
from nimmt.people.model import PeopleError
from nimmt.people.store import PeopleStore

from .tables import Table, TableChanged

logger = logging.getLogger("nimmt.server")


def keeper(people: PeopleStore, *, abandoned: bool = False) -> Callable[[Table], Awaitable[None]]:
    """The service's ``game_abandoned`` hook for this people store (``abandoned``), or what keeps a
    finished game (see :func:`keeps`)."""

    async def keep(table: Table) -> None:
        if table.kept_game == table.game or table.recorder is None:
            return
        if (table.status != "playing" or table.present) if abandoned else table.status != "over":
            return
        try:
            await keep_game(people, table, abandoned=abandoned)
        except Exception:  # the game stays playable and downloadable; only My games misses it
            logger.exception("table %s: game %s could not be kept for its players", table.id, table.game)
        table.kept_game = table.game

    return keep


def keeps(people: PeopleStore) -> Callable[[TableChanged], Awaitable[None]]:
    """A keeper of the tables that keeps each game once it is over (awaited before the news of the
    write that ended it goes out, and before that write returns)."""
    keep = keeper(people)

    async def heard(change: TableChanged) -> None:
        if change.table.status == "over":
            await keep(change.table)

    return heard


def who_left(table: Table, *, abandoned: bool = False) -> tuple[list[int], list[int]]:
    """The seats of people at this game, and those whose person left before its end: a bot plays their
    seat and they are not at the table (an abandoned game: every person left)."""
    people = [index for index, seat in enumerate(table.seats) if seat.token_hash is not None]
    left = [index for index in people if abandoned
            or (table.seats[index].bot is not None and not table.is_present(index))]
    return people, left


async def keep_game(people: PeopleStore, table: Table, *, abandoned: bool = False) -> bool:
    """Keep the table's finished (or abandoned) game; False when it was kept already (by this or
    another process)."""
    assert table.recorder is not None
    persons, left = who_left(table, abandoned=abandoned)
    seen: set[str] = set()
    players: list[str | None] = []
    for seat in table.seats:  # a person at two seats (two devices, one key) counts at the first
        players.append(seat.player if seat.player is not None and seat.player not in seen else None)
        if seat.player is not None:
            seen.add(seat.player)
    bots = [seat.bot if seat.token_hash is None else None for seat in table.seats]  # a stand-in is no bot's game
    made = from_record(table.recorder.record.to_json(), table_id=table.id, game=table.game,
                       finished_at=people.clock(), players=players, bots=bots, group_id=table.group,
                       people=persons, left=left, abandoned=abandoned)
    try:
        return await people.record_game(made)
    except PeopleError:  # a player (or the group) deleted meanwhile: their seat is a former player's
        # ... or merged into another by a code (nimmt.people.aliases): the seat is that person's
        now_as = await people.aliases.resolve(player for player in players if player is not None)
        known: list[str | None] = []
        for player in players:
            now = None if player is None else now_as.get(player, player)
            if now is not None and (now in known or await people.player(now) is None):
                now = None  # gone; or at two seats (merged): it counts at the first, the other is a guest's
            known.append(now)
        group = table.group if table.group is not None and await people.group(table.group) is not None else None
        return await people.record_game(from_record(table.recorder.record.to_json(), table_id=table.id,
                                                    game=table.game, finished_at=made.finished_at, players=known,
                                                    bots=bots, group_id=group, people=persons, left=left,
                                                    abandoned=abandoned))
