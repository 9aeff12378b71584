"""A person's earlier players: when a device's player is merged into another by a one-time code
(:meth:`nimmt.people.signin.SqlSignInStore.merge_by_code`), its id is kept as an alias of the player
it became part of, so that what still names the old id answers as that person.

The tables keep who sat at each seat in their journals, by player id, and a journal is never
rewritten: a table where the old player sat still names them. The seat-claim route (a person's
other device takes their seat), the games in progress (``GET /api/me/tables``), the rows of who
sits where (:mod:`nimmt.server.seated`), a finished game's record and the turn notices read the
aliases, so that seat stays the person's.

One row per merged player (``people_aliases``): its old id and the player it answers as now. A
merge of a merge (A into B, then B into C) re-points A's row to C, so one look-up is always
enough. The rows are the person's data: in their export, and gone with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import column, delete, insert, select, table, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .rows import utc
from .schema import ALIASES

# Who sits where (nimmt/server/seated.py, migration 0013): the person's rows, re-pointed at a merge
# before the old player's delete would take them away (ON DELETE CASCADE).
_SEATED = table("seated_tables", column("player_id"), column("table_id"))


async def alias_merged(connection: AsyncConnection, old: str, into: str, when: datetime) -> None:
    """In the merge's transaction, before ``old`` is deleted: ``old`` (and the players merged into it
    before) answer as ``into`` from now on, and its rows of who sits where are ``into``'s (at a
    table where both sat, ``into``'s row stays)."""
    await connection.execute(update(ALIASES).where(ALIASES.c.player_id == old).values(player_id=into))
    await connection.execute(insert(ALIASES).values(old_id=old, player_id=into, merged_at=when))
    both = select(_SEATED.c.table_id).where(_SEATED.c.player_id == into)
    await connection.execute(delete(_SEATED).where(_SEATED.c.player_id == old, _SEATED.c.table_id.in_(both)))
    await connection.execute(update(_SEATED).where(_SEATED.c.player_id == old).values(player_id=into))


async def resolved(connection: AsyncConnection, player_ids: Iterable[str]) -> dict[str, str]:
    """The player each of these ids answers as now, for those that are aliases (the others: absent)."""
    ids = sorted(set(player_ids))
    found: dict[str, str] = {}
    for start in range(0, len(ids), 500):  # within every database's count of parameters
        query = select(ALIASES.c.old_id, ALIASES.c.player_id).where(ALIASES.c.old_id.in_(ids[start:start + 500]))
        found.update({row.old_id: row.player_id for row in (await connection.execute(query)).all()})
    return found


class AliasStore:
    """The aliases, on the people store's engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def answers_to(self, player_id: str) -> list[str]:
        """The ids this player answers to: their own first, then the players merged into them."""
        query = (select(ALIASES.c.old_id).where(ALIASES.c.player_id == player_id)
                 .order_by(ALIASES.c.merged_at, ALIASES.c.old_id))
        async with self._engine.connect() as connection:
            return [player_id, *(await connection.execute(query)).scalars().all()]

    async def resolve(self, player_ids: Iterable[str]) -> dict[str, str]:
        """The player each of these ids answers as now, for those that are aliases."""
        async with self._engine.connect() as connection:
            return await resolved(connection, player_ids)

    async def export(self, player_id: str) -> list[dict[str, Any]]:
        """The players merged into this one (their data: ``GET /api/me/export``), oldest merge first."""
        query = (select(ALIASES.c.old_id, ALIASES.c.merged_at).where(ALIASES.c.player_id == player_id)
                 .order_by(ALIASES.c.merged_at, ALIASES.c.old_id))
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [{"id": row.old_id, "merged_at": utc(row.merged_at).isoformat()} for row in rows]

