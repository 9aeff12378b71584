"""A group's chat: free text among its members, nowhere else (docs/people.md, "A group's chat").

Every message is a row of ``people_chat`` (migration ``0007``); a page reads the messages after the
last one it has (the row's id is the cursor), so any server process answers from the store alone.
On PostgreSQL two messages to one group are stored one after the other (the group's row is locked
while one is written), so their ids follow the order they became visible in, and a reader's cursor
never skips one committed late. A message is one line held to the rules of a name
(:func:`nimmt.names.clean_name`: no control or direction characters, spaces made plain), at most
:data:`LENGTH` characters; a person sends at most :data:`BURST` messages in :data:`WINDOW`, and an
address as many as its quotas say (nimmt/people/counts.py: counted in the store before the message is kept).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Row, func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nimmt.names import NameRefused, clean_name

from .counts import CountStore, Limited
from .model import PeopleError
from .schema import CHAT, GROUPS, MEMBERS, PLAYERS

LENGTH = 500  # characters in a message, once made plain
BURST = 5  # messages a person may send within WINDOW (in all their groups): the default quota
WINDOW = timedelta(seconds=10)
PAGE = 100  # messages in one answer at most


class ChatRefused(PeopleError):
    """A message that is not stored: ``code`` (``chat_empty``, ``chat_long``, ``chat_control``,
    ``chat_direction``, ``chat_marks``, ``chat_too_soon``) and ``params`` for the person's language."""

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(code, message)
        self.params = params


@dataclass(frozen=True, slots=True)
class ChatMessage:
    id: int  # the cursor: every later message of the group has a greater one
    group_id: str
    player_id: str
    name: str | None  # the sender's name now (null: they have not chosen one)
    text: str
    sent_at: datetime


def clean_message(text: str) -> str:
    """``text`` as it is kept (one line, spaces made plain, NFC), or :class:`ChatRefused` saying why."""
    try:
        text = clean_name(text, LENGTH, what="message")
        text.encode()  # a lone surrogate (from a JSON escape) is no text a database keeps
    except NameRefused as error:
        raise ChatRefused(f"chat_{error.key}", str(error), **error.params) from None
    except UnicodeEncodeError:
        raise ChatRefused("chat_control", "a message is text (no lone surrogate)") from None
    return text


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _message(row: Row[Any]) -> ChatMessage:
    return ChatMessage(row.id, row.group_id, row.player_id, row.name, row.text, _utc(row.sent_at))


_ROWS = select(CHAT, PLAYERS.c.name).join(PLAYERS, PLAYERS.c.id == CHAT.c.player_id)


async def _member(connection: AsyncConnection, group_id: str, player_id: str, *, lock: bool = False) -> None:
    """``unknown_group`` or ``not_member`` unless the player is one of the group's members (``lock``:
    the group's row locked, on PostgreSQL)."""
    group = select(GROUPS.c.id).where(GROUPS.c.id == group_id)
    if (await connection.execute(group.with_for_update() if lock else group)).first() is None:
        raise PeopleError("unknown_group", "there is no such group")
    member = select(MEMBERS.c.player_id).where(MEMBERS.c.group_id == group_id, MEMBERS.c.player_id == player_id)
    if (await connection.execute(member)).first() is None:
        raise PeopleError("not_member", "only the group's members see this")


class ChatStore:
    """The ``people_chat`` rows, on the people store's engine and clock."""

    def __init__(self, engine: AsyncEngine, clock: Callable[[], datetime], counts: CountStore) -> None:
        self._engine = engine
        self._clock = clock
        self._counts = counts

    async def post(self, group_id: str, player_id: str, text: str, *, address: str | None = None) -> ChatMessage:
        """Store a member's message (sent from ``address``); ``unknown_group``, ``not_member`` or
        :class:`ChatRefused` (nothing stored) otherwise."""
        text = clean_message(text)
        now = _utc(self._clock())
        async with self._engine.connect() as connection:  # reads: a refused stranger counts nothing
            await _member(connection, group_id, player_id)
        # Counted by the person and by the address, atomically (nimmt/people/counts.py), before the
        # message is kept: of thirty posts racing, exactly as many as the quotas allow get through.
        try:
            await self._counts.take("chat", player=player_id, address=address)
        except Limited as limited:
            raise ChatRefused("chat_too_soon", str(limited), **limited.params) from None
        async with self._engine.begin() as connection:
            # The group's row locked (PostgreSQL): the group's messages are numbered in commit order.
            await _member(connection, group_id, player_id, lock=True)
            done = await connection.execute(insert(CHAT).values(group_id=group_id, player_id=player_id, text=text,
                                                                sent_at=now))
            (message_id,) = done.inserted_primary_key or (None,)
            row = (await connection.execute(_ROWS.where(CHAT.c.id == message_id))).one()
        return _message(row)

    async def messages(self, group_id: str, after: int | None = None) -> tuple[list[ChatMessage], bool]:
        """The group's messages after the cursor ``after``, oldest first, at most :data:`PAGE` (the
        last ones when ``after`` is None), and whether more follow them."""
        query = _ROWS.where(CHAT.c.group_id == group_id)
        async with self._engine.connect() as connection:
            if after is None:
                rows = (await connection.execute(query.order_by(CHAT.c.id.desc()).limit(PAGE))).all()[::-1]
                return [_message(row) for row in rows], False
            rows = (await connection.execute(query.where(CHAT.c.id > after).order_by(CHAT.c.id)
                                             .limit(PAGE + 1))).all()
        return [_message(row) for row in rows[:PAGE]], len(rows) > PAGE

    async def writers(self, group_id: str) -> list[tuple[str, str | None]]:
        """Everyone who wrote in the group's chat (a member who left too), with their name as it is
        now, in the order of their first message: their names are told apart from the members'."""
        first = func.min(CHAT.c.id)
        query = (select(CHAT.c.player_id, PLAYERS.c.name, first).join(PLAYERS, PLAYERS.c.id == CHAT.c.player_id)
                 .where(CHAT.c.group_id == group_id).group_by(CHAT.c.player_id, PLAYERS.c.name).order_by(first))
        async with self._engine.connect() as connection:
            return [(row.player_id, row.name) for row in (await connection.execute(query)).all()]

    async def of_player(self, player_id: str) -> list[ChatMessage]:
        """Every message the player sent, in every group, oldest first (their export)."""
        async with self._engine.connect() as connection:
            rows = (await connection.execute(_ROWS.where(CHAT.c.player_id == player_id).order_by(CHAT.c.id))).all()
        return [_message(row) for row in rows]
