"""Groups: a host, members who joined by an invite code (which the host closes or renews), and what
leaving means (a leaving host hands the group to the member who joined first after them; a member
who leaves is no longer named on the group's score sheets they never confirmed)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import Database
from .keys import INVITE_LENGTH, new_code, new_id, normal_code
from .model import GROUP_NAME_LENGTH, Group, Member, PeopleError
from .rows import Clock, cleaned, group_of, utc
from .schema import GAMES, GROUPS, MEMBERS, PLAYERS, SEATS


class GroupStore(Protocol):
    """Groups, their members and invitations (see :class:`SqlGroupStore` for each call)."""

    async def new_group(self, host_id: str, name: str) -> Group: ...
    async def group(self, group_id: str) -> Group | None: ...
    async def join(self, invite: str, player_id: str) -> Group: ...
    async def invited(self, invite: str) -> tuple[Group, int] | None: ...
    async def leave(self, group_id: str, player_id: str) -> None: ...
    async def remove_member(self, group_id: str, host_id: str, member_id: str) -> None: ...
    async def set_invite(self, group_id: str, player_id: str, *, open: bool, renew: bool = False) -> Group: ...
    async def groups_of(self, player_id: str) -> list[Group]: ...
    async def members(self, group_id: str) -> list[Member]: ...


class SqlGroupStore:
    """:class:`GroupStore` on the database it is handed."""

    def __init__(self, database: Database, clock: Clock) -> None:
        self._engine = database.engine
        self._clock = clock

    def _when(self) -> datetime:
        return utc(self._clock())

    async def new_group(self, host_id: str, name: str) -> Group:
        """A group with its host as first member and an open invite."""
        group = Group(new_id("g"), cleaned(name, GROUP_NAME_LENGTH, "group name"), host_id,
                      new_code(INVITE_LENGTH), True, self._when())
        async with self._engine.begin() as connection:
            try:
                await connection.execute(insert(GROUPS).values(id=group.id, name=group.name, host_id=host_id,
                                                               invite=group.invite, invite_open=True,
                                                               created_at=group.created_at))
                await connection.execute(insert(MEMBERS).values(group_id=group.id, player_id=host_id,
                                                                joined_at=group.created_at))
            except IntegrityError as error:
                raise PeopleError("unknown_player", "no such player (deleted?)") from error
        return group

    async def group(self, group_id: str) -> Group | None:
        async with self._engine.connect() as connection:
            row = (await connection.execute(select(GROUPS).where(GROUPS.c.id == group_id))).first()
        return None if row is None else group_of(row)

    async def join(self, invite: str, player_id: str) -> Group:
        """Join the group of this invite code (again: nothing changes); refused once the host closed it."""
        if not isinstance(invite, str) or len(invite) > 40:
            raise PeopleError("invite_unknown", "no group has this invite")
        async with self._engine.begin() as connection:
            row = (await connection.execute(select(GROUPS).where(GROUPS.c.invite == normal_code(invite)))).first()
            if row is None:
                raise PeopleError("invite_unknown", "no group has this invite (the host may have made a new one)")
            if not row.invite_open:
                raise PeopleError("invite_closed", "the host closed this group's invite")
            known = select(MEMBERS).where(MEMBERS.c.group_id == row.id, MEMBERS.c.player_id == player_id)
            if (await connection.execute(known)).first() is None:
                try:
                    await connection.execute(insert(MEMBERS).values(group_id=row.id, player_id=player_id,
                                                                    joined_at=self._when()))
                except IntegrityError as error:
                    raise PeopleError("unknown_player", "no such player (deleted?)") from error
        return group_of(row)

    async def invited(self, invite: str) -> tuple[Group, int] | None:
        """The group of this invite code and how many members it has (shown before joining), or None."""
        if not isinstance(invite, str) or len(invite) > 40:
            return None
        query = (select(GROUPS, func.count(MEMBERS.c.player_id).label("members"))
                 .outerjoin(MEMBERS, MEMBERS.c.group_id == GROUPS.c.id)
                 .where(GROUPS.c.invite == normal_code(invite)).group_by(*GROUPS.c))
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else (group_of(row), int(row.members))

    async def leave(self, group_id: str, player_id: str) -> None:
        """Leave a group; a leaving host hands the group to the member who joined first after them."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(MEMBERS).where(MEMBERS.c.group_id == group_id,
                                                                  MEMBERS.c.player_id == player_id))
            if done.rowcount != 1:
                raise PeopleError("not_member", "not a member of this group")
            await new_host_if(connection, group_id, player_id)
            await release_unconfirmed(connection, group_id, player_id)

    async def remove_member(self, group_id: str, host_id: str, member_id: str) -> None:
        """The host removes a member (``not_host`` for anyone else; a host leaves rather than removes
        themselves: ``remove_host``). Their games stay in the league; they may join again while the
        invite they had is open (a new invite keeps them out)."""
        async with self._engine.begin() as connection:
            host = (await connection.execute(select(GROUPS.c.host_id).where(GROUPS.c.id == group_id))).first()
            if host is None:
                raise PeopleError("unknown_group", "no such group")
            if host.host_id != host_id:
                raise PeopleError("not_host", "only the group's host removes a member")
            if member_id == host_id:
                raise PeopleError("remove_host", "the host leaves the group rather than removing themselves")
            done = await connection.execute(delete(MEMBERS).where(MEMBERS.c.group_id == group_id,
                                                                  MEMBERS.c.player_id == member_id))
            if done.rowcount != 1:
                raise PeopleError("not_member", "this player is not a member of this group")
            await release_unconfirmed(connection, group_id, member_id)  # sheets they never confirmed: not theirs

    async def set_invite(self, group_id: str, player_id: str, *, open: bool, renew: bool = False) -> Group:
        """The host opens or closes the invite; ``renew`` makes a new code (the old one stops working)."""
        values: dict[str, Any] = {"invite_open": bool(open)}
        if renew:
            values["invite"] = new_code(INVITE_LENGTH)
        async with self._engine.begin() as connection:
            row = (await connection.execute(select(GROUPS).where(GROUPS.c.id == group_id))).first()
            if row is None:
                raise PeopleError("unknown_group", "no such group")
            if row.host_id != player_id:
                raise PeopleError("not_host", "only the group's host changes its invite")
            await connection.execute(update(GROUPS).where(GROUPS.c.id == group_id).values(**values))
            row = (await connection.execute(select(GROUPS).where(GROUPS.c.id == group_id))).one()
        return group_of(row)

    async def groups_of(self, player_id: str) -> list[Group]:
        query = (select(GROUPS).join(MEMBERS, MEMBERS.c.group_id == GROUPS.c.id)
                 .where(MEMBERS.c.player_id == player_id).order_by(MEMBERS.c.joined_at, GROUPS.c.id))
        async with self._engine.connect() as connection:
            return [group_of(row) for row in (await connection.execute(query)).all()]

    async def members(self, group_id: str) -> list[Member]:
        query = (select(MEMBERS.c.player_id, MEMBERS.c.joined_at, PLAYERS.c.name)
                 .join(PLAYERS, PLAYERS.c.id == MEMBERS.c.player_id)
                 .where(MEMBERS.c.group_id == group_id).order_by(MEMBERS.c.joined_at, MEMBERS.c.player_id))
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [Member(row.player_id, row.name, utc(row.joined_at)) for row in rows]


async def new_host_if(connection: AsyncConnection, group_id: str, leaving: str) -> None:
    """When the host leaves, the member who joined first takes over (nobody left: no host)."""
    host = (await connection.execute(select(GROUPS.c.host_id).where(GROUPS.c.id == group_id))).scalar()
    if host != leaving:
        return
    first = (await connection.execute(select(MEMBERS.c.player_id).where(MEMBERS.c.group_id == group_id)
                                      .order_by(MEMBERS.c.joined_at, MEMBERS.c.player_id).limit(1))).scalar()
    await connection.execute(update(GROUPS).where(GROUPS.c.id == group_id).values(host_id=first))


async def release_unconfirmed(connection: AsyncConnection, group_id: str, player_id: str) -> None:
    """A member who leaves a group is no longer named on its score sheets they never confirmed."""
    sheets = select(GAMES.c.id).where(GAMES.c.group_id == group_id, GAMES.c.source == "sheet")
    await connection.execute(update(SEATS).where(SEATS.c.player_id == player_id, SEATS.c.confirmed.is_(False),
                                                 SEATS.c.game_id.in_(sheets)).values(player_id=None))
