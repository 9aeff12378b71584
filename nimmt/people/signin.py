"""Signing in on another device: one-time codes (a device-link code another device trades once for
a key of its player, or merges its own player into; a WebAuthn ceremony's challenge), each kept as
a hash in ``people_codes`` until it is used or expires. What two devices may race for (a code) is
settled by one conditional UPDATE, which exactly one of them wins."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol

from sqlalchemy import Row, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .aliases import alias_merged
from .database import Database
from .game_store import played_scopes
from .keys import hash_secret, looks_like_key, new_code, new_key, normal_code
from .model import PeopleError, Player
from .players import PlayerStore
from .rated import RatedStore
from .rows import Clock, utc
from .schema import CHAT, CODES, GROUPS, KEYS, MEMBERS, PASSKEYS, PLAYERS, PUSH, RATED, SEATS

LINK_TTL = timedelta(minutes=5)  # a device-link code: long enough to pick up the other phone
CHALLENGE_TTL = timedelta(minutes=5)
EXPIRED_KEPT = timedelta(minutes=10)  # an expired code still says "expired" (not "unknown") this long, then goes
CodeKind = Literal["link", "passkey_add", "passkey_in"]


class SignInStore(Protocol):
    """Device-link codes and passkey challenges (see :class:`SqlSignInStore` for each call)."""

    async def new_link_code(self, player_id: str) -> tuple[str, datetime]: ...
    async def use_link_code(self, code: str) -> tuple[Player, str]: ...
    async def link_code_player(self, code: str) -> Player: ...
    async def merge_by_code(self, code: str, player_id: str) -> Player: ...
    async def put_challenge(self, kind: CodeKind, player_id: str | None, data: dict[str, Any]) -> str: ...
    async def take_challenge(self, kind: CodeKind, token: str) -> tuple[str | None, dict[str, Any]]: ...


class SqlSignInStore:
    """:class:`SignInStore` on the database it is handed; a code is traded for a key of the
    ``players``' (a merge folds the ``rated`` scopes its seats counted in again)."""

    def __init__(self, database: Database, clock: Clock, players: PlayerStore, rated: RatedStore) -> None:
        self._engine = database.engine
        self._clock = clock
        self.players = players
        self.rated = rated

    def _when(self) -> datetime:
        return utc(self._clock())

    async def new_link_code(self, player_id: str) -> tuple[str, datetime]:
        """A code another device trades once, within :data:`LINK_TTL`, for a key of this player."""
        code = new_code()
        expires = self._when() + LINK_TTL
        await self._put_code(code, "link", player_id, None, expires)
        return code, expires

    async def _put_code(self, code: str, kind: CodeKind, player_id: str | None, data: str | None,
                        expires: datetime) -> None:
        async with self._engine.begin() as connection:
            # Old codes go as new ones come too (beside the app's sweep): nothing expired stays long.
            await connection.execute(delete(CODES).where(CODES.c.expires_at < self._when() - EXPIRED_KEPT))
            try:
                await connection.execute(insert(CODES).values(hash=hash_secret(code), kind=kind, player_id=player_id,
                                                              data=data, expires_at=expires, used_at=None))
            except IntegrityError as error:  # a player deleted meanwhile (or a code drawn twice)
                raise PeopleError("unknown_player", "no such player (deleted?)") from error

    async def _use_code(self, code: str, kind: CodeKind) -> Row[Any]:
        """Mark the code used and give its row; exactly one of two racing callers gets it."""
        digest, now = hash_secret(code), self._when()
        async with self._engine.begin() as connection:
            done = await connection.execute(
                update(CODES).where(CODES.c.hash == digest, CODES.c.kind == kind, CODES.c.used_at.is_(None),
                                    CODES.c.expires_at > now).values(used_at=now))
            row = (await connection.execute(select(CODES).where(CODES.c.hash == digest, CODES.c.kind == kind))).first()
        if row is None:
            raise PeopleError("code_unknown", "no such code: check it, or make a new one on the other device")
        if done.rowcount != 1:
            if row.used_at is not None:
                raise PeopleError("code_used", "this code was already used: make a new one on the other device")
            raise PeopleError("code_expired", "this code has expired: make a new one on the other device")
        return row

    async def use_link_code(self, code: str) -> tuple[Player, str]:
        """Trade a device-link code for a new key of its player (this device's own)."""
        if not isinstance(code, str) or len(code) > 40:
            raise PeopleError("code_unknown", "no such code")
        row = await self._use_code(normal_code(code), "link")
        if row.player_id is None:
            raise PeopleError("code_unknown", "no such code")
        key = await self.players.new_device_key(row.player_id, "code")
        player = await self.players.player(row.player_id)
        if player is None:
            raise PeopleError("unknown_player", "the player of this code was deleted")
        return player, key

    async def link_code_player(self, code: str) -> Player:
        """The player a device-link code would link to, the code left unused (a device that already
        holds a player is told what linking would do before anything is done)."""
        if not isinstance(code, str) or len(code) > 40:
            raise PeopleError("code_unknown", "no such code")
        query = select(CODES).where(CODES.c.hash == hash_secret(normal_code(code)), CODES.c.kind == "link")
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        if row is None or row.player_id is None:
            raise PeopleError("code_unknown", "no such code: check it, or make a new one on the other device")
        if row.used_at is not None:
            raise PeopleError("code_used", "this code was already used: make a new one on the other device")
        if utc(row.expires_at) <= self._when():
            raise PeopleError("code_expired", "this code has expired: make a new one on the other device")
        player = await self.players.player(row.player_id)
        if player is None:
            raise PeopleError("unknown_player", "the player of this code was deleted")
        return player

    async def merge_by_code(self, code: str, player_id: str) -> Player:
        """Use a device-link code on a device that holds another player (``player_id``): that player
        becomes part of the code's player (docs/people.md, A second device). Its devices, passkeys,
        groups (and the groups it hosts), chat messages, notices' devices and seats in finished games move to the
        code's player, and it is deleted; a game where both sat keeps this seat as a guest's (its
        name at the table), so nobody counts twice. The kept ratings are folded again. Its id stays an
        alias of the code's player, and the tables where it sits are that player's (nimmt.people.aliases)."""
        target = await self.link_code_player(code)
        if target.id == player_id:
            raise PeopleError("link_same", "this device already plays as the player of this code")
        row = await self._use_code(normal_code(code), "link")  # exactly one device wins the code
        into = row.player_id
        async with self._engine.begin() as connection:
            if (await connection.execute(select(PLAYERS.c.id).where(PLAYERS.c.id == player_id))).first() is None:
                raise PeopleError("unknown_player", "no such player (deleted?)")
            for table in (KEYS, PASSKEYS, CHAT, PUSH):
                await connection.execute(update(table).where(table.c.player_id == player_id).values(player_id=into))
            await connection.execute(delete(CODES).where(CODES.c.player_id == player_id))
            both = select(SEATS.c.game_id).where(SEATS.c.player_id == into)
            await connection.execute(update(SEATS).where(SEATS.c.player_id == player_id, SEATS.c.game_id.in_(both))
                                     .values(player_id=None))
            await connection.execute(update(SEATS).where(SEATS.c.player_id == player_id).values(player_id=into))
            mine = (await connection.execute(select(MEMBERS).where(MEMBERS.c.player_id == player_id))).all()
            for member in mine:
                theirs = (await connection.execute(select(MEMBERS.c.joined_at).where(
                    MEMBERS.c.group_id == member.group_id, MEMBERS.c.player_id == into))).scalar()
                await connection.execute(delete(MEMBERS).where(MEMBERS.c.group_id == member.group_id,
                                                               MEMBERS.c.player_id == player_id))
                joined = member.joined_at if theirs is None else min(utc(theirs), utc(member.joined_at))
                await connection.execute(delete(MEMBERS).where(MEMBERS.c.group_id == member.group_id,
                                                               MEMBERS.c.player_id == into))
                await connection.execute(insert(MEMBERS).values(group_id=member.group_id, player_id=into,
                                                                joined_at=joined))
            await connection.execute(update(GROUPS).where(GROUPS.c.host_id == player_id).values(host_id=into))
            await alias_merged(connection, player_id, into, self._when())
            # Seats changed hands: the scopes they count in are folded again (the stamps cannot tell).
            scopes = await played_scopes(connection, into)
            await connection.execute(delete(RATED).where(RATED.c.scope.in_(scopes)))
            await connection.execute(delete(PLAYERS).where(PLAYERS.c.id == player_id))
        self.rated.refold_soon(sorted(scopes))
        merged = await self.players.player(into)
        if merged is None:
            raise PeopleError("unknown_player", "the player of this code was deleted")
        return merged

    async def put_challenge(self, kind: CodeKind, player_id: str | None, data: dict[str, Any]) -> str:
        """Keep a WebAuthn ceremony's state until its answer comes (any process may receive it)."""
        token = new_key()
        await self._put_code(token, kind, player_id, json.dumps(data), self._when() + CHALLENGE_TTL)
        return token

    async def take_challenge(self, kind: CodeKind, token: str) -> tuple[str | None, dict[str, Any]]:
        if not isinstance(token, str) or not looks_like_key(token):
            raise PeopleError("code_unknown", "no such ceremony: start again")
        row = await self._use_code(token, kind)
        data: dict[str, Any] = json.loads(row.data or "{}")
        return row.player_id, data

    async def sweep(self) -> int:
        """Remove the one-time codes and challenges :data:`EXPIRED_KEPT` past their expiry (used or
        not): how many rows went."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(CODES).where(CODES.c.expires_at < self._when() - EXPIRED_KEPT))
        return int(done.rowcount or 0)
