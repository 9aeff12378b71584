"""The tables tell the people part about their games: when a table's game is over, it is kept with
the player of each seat (docs/people.md) and the table's group, for My games, leagues and ratings.

Called by the table service after each write that leaves a game over (its ``game_over`` hook),
under the table's lock. Keeping a game is idempotent (a table's game is kept once, whichever
process sees it end first); a failure is logged and never undoes or refuses the table's action.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from nimmt.people.games import from_record
from nimmt.people.model import PeopleError
from nimmt.people.store import PeopleStore

from .tables import Table

logger = logging.getLogger("nimmt.server")


def keeper(people: PeopleStore) -> Callable[[Table], Awaitable[None]]:
    """The service's ``game_over`` hook for this people store."""

    async def keep(table: Table) -> None:
        if table.kept_game == table.game or table.recorder is None:
            return
        try:
            await keep_game(people, table)
        except Exception:  # the game stays playable and downloadable; only My games misses it
            logger.exception("table %s: game %s could not be kept for its players", table.id, table.game)
        table.kept_game = table.game

    return keep


async def keep_game(people: PeopleStore, table: Table) -> bool:
    """Keep the table's finished game; False when it was kept already (by this or another process)."""
    assert table.recorder is not None
    seen: set[str] = set()
    players: list[str | None] = []
    for seat in table.seats:  # a person at two seats (two devices, one key) counts at the first
        players.append(seat.player if seat.player is not None and seat.player not in seen else None)
        if seat.player is not None:
            seen.add(seat.player)
    bots = [seat.bot if seat.token_hash is None else None for seat in table.seats]  # a stand-in is no bot's game
    made = from_record(table.recorder.record.to_json(), table_id=table.id, game=table.game,
                       finished_at=people.clock(), players=players, bots=bots, group_id=table.group)
    try:
        return await people.record_game(made)
    except PeopleError:  # a player (or the group) deleted meanwhile: their seat is a former player's
        known = [player if player is not None and await people.player(player) is not None else None
                 for player in players]
        group = table.group if table.group is not None and await people.group(table.group) is not None else None
        return await people.record_game(from_record(table.recorder.record.to_json(), table_id=table.id,
                                                    game=table.game, finished_at=made.finished_at, players=known,
                                                    bots=bots, group_id=group))
