"""Where people are kept: the people part's storage interface (:class:`PeopleStore`, one Protocol for
all of it: players and their keys, devices, link codes, passkeys, groups with their members and
invitations, finished games, a player's export and deletion, the sweep of expired codes) and its
SQLAlchemy implementation.

:class:`SqlPeopleStore` runs on SQLite and PostgreSQL from the same code, on the tables of
:mod:`nimmt.people.schema` (made by the server's migrations, which must have run first: the
server's store starts before this one). It is handed the database (:mod:`nimmt.people.database`:
the server's one owner of engines and connection settings) and shares it with the ratings
(:attr:`~SqlPeopleStore.rated`, :mod:`nimmt.people.rated`), the counts of what one key or address
made (:attr:`~SqlPeopleStore.counts`, :mod:`nimmt.people.counts`) and the groups' chats
(:attr:`~SqlPeopleStore.chat`, :mod:`nimmt.people.chat`), which are written in modules of their
own. Every change is one transaction; what two devices may race for (a one-time code) is settled by
one conditional UPDATE, which exactly one of them wins. The clock is injected, so tests move time
instead of waiting.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol

from sqlalchemy import Row, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from nimmt.i18n import UnknownLanguage, check_language
from nimmt.names import NameRefused, clean_name

from .chat import ChatStore
from .counts import DEFAULT_QUOTAS, CountStore, Quota
from .database import Database
from .keys import INVITE_LENGTH, hash_secret, looks_like_key, new_code, new_id, new_key, normal_code
from .model import (
    GROUP_NAME_LENGTH,
    NAME_LENGTH,
    Device,
    FinishedGame,
    Group,
    Member,
    Passkey,
    PeopleError,
    Player,
    SeatResult,
)
from .rated import EVERYONE, RatedStore, in_scope
from .schema import CHAT, CODES, GAMES, GROUPS, KEYS, MEMBERS, PASSKEYS, PLAYERS, PUSH, RATED, SEATS
from .subscriptions import SubscriptionStore

Clock = Callable[[], datetime]
LINK_TTL = timedelta(minutes=5)  # a device-link code: long enough to pick up the other phone
CHALLENGE_TTL = timedelta(minutes=5)
EXPIRED_KEPT = timedelta(minutes=10)  # an expired code still says "expired" (not "unknown") this long, then goes
SWEEP_EVERY = 60.0  # seconds between two sweeps of expired codes and counts (the app's task)
_TOUCH_EVERY = timedelta(hours=1)  # a key's "last used" is written at most this often
CodeKind = Literal["link", "passkey_add", "passkey_in"]
logger = logging.getLogger("nimmt.people")


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime) -> datetime:
    """A time read back from the database, in UTC (SQLite gives it back without its zone)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _maybe_utc(value: datetime | None) -> datetime | None:
    return None if value is None else _utc(value)


def _clean(name: str, longest: int, what: str) -> str:
    """A name as nimmt keeps names (:func:`nimmt.names.clean_name`), or ``bad_name``."""
    try:
        name = clean_name(name, longest)
        name.encode()  # a lone surrogate (from a JSON escape) is no text a database keeps
    except NameRefused as error:
        raise PeopleError("bad_name", f"a {what}: {error}") from None
    except UnicodeEncodeError:
        raise PeopleError("bad_name", f"a {what} is text (no lone surrogate)") from None
    return name


class PeopleStore(Protocol):
    """The storage interface of the people part (see :class:`SqlPeopleStore` for each call)."""

    clock: Clock  # what "now" is (a finished game's time, a code's expiry)
    rated: RatedStore  # the ratings kept per scope (nimmt.people.rated)
    chat: ChatStore  # the groups' chats (nimmt.people.chat)
    counts: CountStore  # what a key or an address made (nimmt.people.counts)
    push: SubscriptionStore  # the devices a person gets notices on (nimmt.people.subscriptions)

    async def start(self) -> None: ...
    async def close(self) -> None: ...
    async def new_player(self, name: str | None = None, language: str | None = None) -> tuple[Player, str]: ...
    async def player_for_key(self, key: str) -> Player | None: ...
    async def player(self, player_id: str) -> Player | None: ...
    async def public_players(self) -> list[Player]: ...
    async def rename(self, player_id: str, name: str) -> Player: ...
    async def set_public(self, player_id: str, public: bool) -> Player: ...
    async def set_language(self, player_id: str, language: str | None) -> Player: ...
    async def devices(self, player_id: str) -> list[Device]: ...
    async def sign_out(self, player_id: str, device_id: str) -> bool: ...
    async def new_device_key(self, player_id: str, how: Literal["code", "passkey"]) -> str: ...
    async def new_link_code(self, player_id: str) -> tuple[str, datetime]: ...
    async def use_link_code(self, code: str) -> tuple[Player, str]: ...
    async def link_code_player(self, code: str) -> Player: ...
    async def merge_by_code(self, code: str, player_id: str) -> Player: ...
    async def put_challenge(self, kind: CodeKind, player_id: str | None, data: dict[str, Any]) -> str: ...
    async def take_challenge(self, kind: CodeKind, token: str) -> tuple[str | None, dict[str, Any]]: ...
    async def add_passkey(self, player_id: str, credential_id: str, public_key: str, sign_count: int) -> None: ...
    async def passkey(self, credential_id: str) -> Passkey | None: ...
    async def passkey_used(self, credential_id: str, sign_count: int) -> None: ...
    async def passkeys(self, player_id: str) -> list[Passkey]: ...
    async def remove_passkey(self, player_id: str, credential_id: str) -> bool: ...
    async def new_group(self, host_id: str, name: str) -> Group: ...
    async def group(self, group_id: str) -> Group | None: ...
    async def join(self, invite: str, player_id: str) -> Group: ...
    async def invited(self, invite: str) -> tuple[Group, int] | None: ...
    async def leave(self, group_id: str, player_id: str) -> None: ...
    async def remove_member(self, group_id: str, host_id: str, member_id: str) -> None: ...
    async def set_invite(self, group_id: str, player_id: str, *, open: bool, renew: bool = False) -> Group: ...
    async def groups_of(self, player_id: str) -> list[Group]: ...
    async def members(self, group_id: str) -> list[Member]: ...
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
    async def export(self, player_id: str) -> dict[str, Any]: ...
    async def delete_player(self, player_id: str) -> bool: ...
    async def sweep(self) -> int: ...


class SqlPeopleStore:
    """:class:`PeopleStore` on the database it is handed (its maker closes it)."""

    def __init__(self, database: Database, *, clock: Clock = _now, quotas: Sequence[Quota] = DEFAULT_QUOTAS) -> None:
        self.database = database
        self.url = database.url
        self.clock = clock
        self._engine = database.engine
        self.rated = RatedStore(self._engine, self.scope_games)
        self.counts = CountStore(database, lambda: self.clock(), quotas)
        self.chat = ChatStore(self._engine, lambda: self.clock(), self.counts)
        self.push = SubscriptionStore(self._engine, lambda: self.clock())

    async def start(self) -> None:
        """Check that the migrations made the people tables (the server's store runs them)."""
        async with self._engine.connect() as connection:
            await connection.execute(select(func.count()).select_from(PLAYERS))

    async def close(self) -> None:
        await self.counts.close()

    def _when(self) -> datetime:
        return _utc(self.clock())

    # -- players and their keys --------------------------------------------------------------

    async def new_player(self, name: str | None = None, language: str | None = None) -> tuple[Player, str]:
        """A new player and the key of its first device (given once: only its hash is kept);
        ``language``: the one the person chose, if they did."""
        player = Player(new_id("p"), None if name is None else _clean(name, NAME_LENGTH, "name"), self._when(),
                        language=_language(language))
        key = new_key()
        async with self._engine.begin() as connection:
            await connection.execute(insert(PLAYERS).values(id=player.id, name=player.name, public=False,
                                                            created_at=player.created_at, language=player.language))
            await self._add_key(connection, player.id, key, "first")
        return player, key

    async def _add_key(self, connection: AsyncConnection, player_id: str, key: str, how: str) -> None:
        await connection.execute(insert(KEYS).values(id=new_id("d"), hash=hash_secret(key), player_id=player_id,
                                                     how=how, created_at=self._when(), last_used_at=None))

    async def player_for_key(self, key: str) -> Player | None:
        """The player holding ``key``, or None for a key nimmt never gave or has signed out."""
        if not isinstance(key, str) or not looks_like_key(key):
            return None
        query = (select(PLAYERS, KEYS.c.id.label("device"), KEYS.c.last_used_at)
                 .join(KEYS, KEYS.c.player_id == PLAYERS.c.id).where(KEYS.c.hash == hash_secret(key)))
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        if row is None:
            return None
        now = self._when()
        if row.last_used_at is None or now - _utc(row.last_used_at) > _TOUCH_EVERY:
            try:
                async with self._engine.begin() as connection:
                    await connection.execute(update(KEYS).where(KEYS.c.id == row.device).values(last_used_at=now))
            except DBAPIError as error:  # a full disk: the key still works, "last used" waits for the next time
                logger.warning("a key's last use was not written: %s", error.orig)
        return _player(row)

    async def player(self, player_id: str) -> Player | None:
        async with self._engine.connect() as connection:
            row = (await connection.execute(select(PLAYERS).where(PLAYERS.c.id == player_id))).first()
        return None if row is None else _player(row)

    async def public_players(self) -> list[Player]:
        """The players who made their profile public (the ratings page lists them)."""
        async with self._engine.connect() as connection:
            rows = (await connection.execute(select(PLAYERS).where(PLAYERS.c.public).order_by(PLAYERS.c.id))).all()
        return [_player(row) for row in rows]

    async def _changed_player(self, player_id: str, **values: Any) -> Player:
        async with self._engine.begin() as connection:
            done = await connection.execute(update(PLAYERS).where(PLAYERS.c.id == player_id).values(**values))
            if done.rowcount != 1:
                raise PeopleError("unknown_player", "no such player (deleted?)")
            row = (await connection.execute(select(PLAYERS).where(PLAYERS.c.id == player_id))).one()
        return _player(row)

    async def rename(self, player_id: str, name: str) -> Player:
        return await self._changed_player(player_id, name=_clean(name, NAME_LENGTH, "name"))

    async def set_public(self, player_id: str, public: bool) -> Player:
        return await self._changed_player(player_id, public=bool(public))

    async def set_language(self, player_id: str, language: str | None) -> Player:
        """The language the person chose (every device of theirs follows it); None: their browser's."""
        return await self._changed_player(player_id, language=_language(language))

    async def devices(self, player_id: str) -> list[Device]:
        query = select(KEYS).where(KEYS.c.player_id == player_id).order_by(KEYS.c.created_at, KEYS.c.id)
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [Device(row.id, row.how, _utc(row.created_at), _maybe_utc(row.last_used_at)) for row in rows]

    async def sign_out(self, player_id: str, device_id: str) -> bool:
        """Forget one device's key (a lost or stolen phone): whoever holds it is nobody from now on."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(KEYS).where(KEYS.c.id == device_id, KEYS.c.player_id == player_id))
        return bool(done.rowcount)

    async def new_device_key(self, player_id: str, how: Literal["code", "passkey"]) -> str:
        key = new_key()
        async with self._engine.begin() as connection:
            if (await connection.execute(select(PLAYERS.c.id).where(PLAYERS.c.id == player_id))).first() is None:
                raise PeopleError("unknown_player", "no such player (deleted?)")
            await self._add_key(connection, player_id, key, how)
        return key

    # -- one-time codes: device links and WebAuthn challenges ---------------------------------

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
        key = await self.new_device_key(row.player_id, "code")
        player = await self.player(row.player_id)
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
        if _utc(row.expires_at) <= self._when():
            raise PeopleError("code_expired", "this code has expired: make a new one on the other device")
        player = await self.player(row.player_id)
        if player is None:
            raise PeopleError("unknown_player", "the player of this code was deleted")
        return player

    async def merge_by_code(self, code: str, player_id: str) -> Player:
        """Use a device-link code on a device that holds another player (``player_id``): that player
        becomes part of the code's player (docs/people.md, A second device). Its devices, passkeys,
        groups (and the groups it hosts), chat messages, notices' devices and seats in finished games move to the
        code's player, and it is deleted; a game where both sat keeps this seat as a guest's (its
        name at the table), so nobody counts twice. The kept ratings are folded again."""
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
                joined = member.joined_at if theirs is None else min(_utc(theirs), _utc(member.joined_at))
                await connection.execute(delete(MEMBERS).where(MEMBERS.c.group_id == member.group_id,
                                                               MEMBERS.c.player_id == into))
                await connection.execute(insert(MEMBERS).values(group_id=member.group_id, player_id=into,
                                                                joined_at=joined))
            await connection.execute(update(GROUPS).where(GROUPS.c.host_id == player_id).values(host_id=into))
            # Seats changed hands: the scopes they count in are folded again (the stamps cannot tell).
            scopes = await _played_scopes(connection, into)
            await connection.execute(delete(RATED).where(RATED.c.scope.in_(scopes)))
            await connection.execute(delete(PLAYERS).where(PLAYERS.c.id == player_id))
        self.rated.refold_soon(sorted(scopes))
        merged = await self.player(into)
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

    # -- passkeys ----------------------------------------------------------------------------

    async def add_passkey(self, player_id: str, credential_id: str, public_key: str, sign_count: int) -> None:
        async with self._engine.begin() as connection:
            try:
                await connection.execute(insert(PASSKEYS).values(
                    credential_id=credential_id, player_id=player_id, public_key=public_key,
                    sign_count=sign_count, created_at=self._when(), last_used_at=None))
            except IntegrityError as error:
                raise PeopleError("passkey_taken", "this passkey is already registered") from error

    async def passkey(self, credential_id: str) -> Passkey | None:
        if not isinstance(credential_id, str) or len(credential_id) > 1400:
            return None
        async with self._engine.connect() as connection:
            row = (await connection.execute(select(PASSKEYS).where(PASSKEYS.c.credential_id == credential_id))).first()
        return None if row is None else _passkey(row)

    async def passkey_used(self, credential_id: str, sign_count: int) -> None:
        async with self._engine.begin() as connection:
            await connection.execute(update(PASSKEYS).where(PASSKEYS.c.credential_id == credential_id)
                                     .values(sign_count=sign_count, last_used_at=self._when()))

    async def passkeys(self, player_id: str) -> list[Passkey]:
        query = select(PASSKEYS).where(PASSKEYS.c.player_id == player_id).order_by(PASSKEYS.c.created_at)
        async with self._engine.connect() as connection:
            return [_passkey(row) for row in (await connection.execute(query)).all()]

    async def remove_passkey(self, player_id: str, credential_id: str) -> bool:
        """Forget one of the player's passkeys (it signs nobody in from now on); the devices that
        signed in with it keep their own keys. False when the player has no such passkey."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(PASSKEYS).where(PASSKEYS.c.credential_id == credential_id,
                                                                   PASSKEYS.c.player_id == player_id))
        return bool(done.rowcount)

    # -- groups ------------------------------------------------------------------------------

    async def new_group(self, host_id: str, name: str) -> Group:
        """A group with its host as first member and an open invite."""
        group = Group(new_id("g"), _clean(name, GROUP_NAME_LENGTH, "group name"), host_id,
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
        return None if row is None else _group(row)

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
        return _group(row)

    async def invited(self, invite: str) -> tuple[Group, int] | None:
        """The group of this invite code and how many members it has (shown before joining), or None."""
        if not isinstance(invite, str) or len(invite) > 40:
            return None
        query = (select(GROUPS, func.count(MEMBERS.c.player_id).label("members"))
                 .outerjoin(MEMBERS, MEMBERS.c.group_id == GROUPS.c.id)
                 .where(GROUPS.c.invite == normal_code(invite)).group_by(*GROUPS.c))
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else (_group(row), int(row.members))

    async def leave(self, group_id: str, player_id: str) -> None:
        """Leave a group; a leaving host hands the group to the member who joined first after them."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(MEMBERS).where(MEMBERS.c.group_id == group_id,
                                                                  MEMBERS.c.player_id == player_id))
            if done.rowcount != 1:
                raise PeopleError("not_member", "not a member of this group")
            await _new_host_if(connection, group_id, player_id)
            await _release_unconfirmed(connection, group_id, player_id)

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
            await _release_unconfirmed(connection, group_id, member_id)  # sheets they never confirmed: not theirs

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
        return _group(row)

    async def groups_of(self, player_id: str) -> list[Group]:
        query = (select(GROUPS).join(MEMBERS, MEMBERS.c.group_id == GROUPS.c.id)
                 .where(MEMBERS.c.player_id == player_id).order_by(MEMBERS.c.joined_at, GROUPS.c.id))
        async with self._engine.connect() as connection:
            return [_group(row) for row in (await connection.execute(query)).all()]

    async def members(self, group_id: str) -> list[Member]:
        query = (select(MEMBERS.c.player_id, MEMBERS.c.joined_at, PLAYERS.c.name)
                 .join(PLAYERS, PLAYERS.c.id == MEMBERS.c.player_id)
                 .where(MEMBERS.c.group_id == group_id).order_by(MEMBERS.c.joined_at, MEMBERS.c.player_id))
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [Member(row.player_id, row.name, _utc(row.joined_at)) for row in rows]

    # -- finished games ----------------------------------------------------------------------

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
        _check_game(game)
        try:
            async with self._engine.begin() as connection:
                if game.table_id is not None:
                    known = select(GAMES.c.id).where(GAMES.c.table_id == game.table_id, GAMES.c.game == game.game)
                    if (await connection.execute(known)).first() is not None:
                        return False
                await connection.execute(insert(GAMES).values(
                    id=game.id, source=game.source, table_id=game.table_id, game=game.game, group_id=game.group_id,
                    finished_at=_utc(game.finished_at), end_above=game.end_above,
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
        return [FinishedGame(row.id, row.source, _utc(row.finished_at), row.end_above, tuple(seats[row.id]),
                             tuple(tuple(penalties) for penalties in row.rounds), row.table_id, row.game,
                             row.group_id, row.ending, bool(row.rated), row.saved_by) for row in games]

    async def games_of(self, player_id: str, *, limit: int = 50, before: datetime | None = None) -> list[FinishedGame]:
        """The player's finished games, newest first (``before``: older than that, for the next page)."""
        mine = GAMES.c.id.in_(select(SEATS.c.game_id).where(SEATS.c.player_id == player_id))
        where = mine if before is None else and_(mine, GAMES.c.finished_at < _utc(before))
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
                when = _utc(last.finished_at)
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

    # -- what a person's data is, and its end --------------------------------------------------

    async def export(self, player_id: str) -> dict[str, Any]:
        """Everything held about a player, as JSON (no key: only their hashes are held, and not shown)."""
        player = await self.player(player_id)
        if player is None:
            raise PeopleError("unknown_player", "no such player (deleted?)")
        groups = await self.groups_of(player_id)
        return {
            "format": "nimmt-people/1",
            "player": {"id": player.id, "name": player.name, "public": player.public,
                       "language": player.language, "created_at": player.created_at.isoformat()},
            "devices": [{"id": device.id, "how": device.how, "created_at": device.created_at.isoformat(),
                         "last_used_at": _iso(device.last_used_at)} for device in await self.devices(player_id)],
            "passkeys": [{"credential_id": passkey.credential_id, "created_at": passkey.created_at.isoformat(),
                          "last_used_at": _iso(passkey.last_used_at)} for passkey in await self.passkeys(player_id)],
            "groups": [{"id": group.id, "name": group.name, "host": group.host_id == player_id,
                        "created_at": group.created_at.isoformat()} for group in groups],
            "games": [game.to_json() for game in await self.games_of(player_id, limit=500)]
            + [game.to_json() for game in await self._older_games(player_id)],
            "messages": [{"group": message.group_id, "text": message.text, "sent_at": message.sent_at.isoformat()}
                         for message in await self.chat.of_player(player_id)],
            "notices": await self.push.export(player_id),  # the devices notices go to (docs/push.md)
        }

    async def _older_games(self, player_id: str) -> list[FinishedGame]:
        """Past the first 500 (an export holds every game)."""
        older: list[FinishedGame] = []
        page = await self.games_of(player_id, limit=500)
        while len(page) == 500:
            page = await self.games_of(player_id, limit=500, before=page[-1].finished_at)
            older.extend(page)
        return older

    async def sweep(self) -> int:
        """Remove the one-time codes and challenges :data:`EXPIRED_KEPT` past their expiry (used or
        not), the counts whose window is over and the sent notices' old rows: how many rows went. The
        app runs it every :data:`SWEEP_EVERY` seconds."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(CODES).where(CODES.c.expires_at < self._when() - EXPIRED_KEPT))
        return int(done.rowcount or 0) + await self.counts.sweep() + await self.push.sweep()

    async def delete_player(self, player_id: str) -> bool:
        """Delete a player and all their keys, codes, passkeys, memberships, chat messages and notices' devices. Their
        seats in past games stay for the others' leagues, without their id or name: "a former player"."""
        async with self._engine.begin() as connection:
            hosted = (await connection.execute(select(GROUPS.c.id).where(GROUPS.c.host_id == player_id))).all()
            scopes = await _played_scopes(connection, player_id)
            await connection.execute(update(SEATS).where(SEATS.c.player_id == player_id)
                                     .values(player_id=None, name=None))
            await connection.execute(update(GAMES).where(GAMES.c.saved_by == player_id).values(saved_by=None))
            for table in (KEYS, CODES, PASSKEYS, MEMBERS, CHAT, PUSH):
                await connection.execute(delete(table).where(table.c.player_id == player_id))
            for (group_id,) in hosted:
                await _new_host_if(connection, group_id, player_id)
            done = await connection.execute(delete(PLAYERS).where(PLAYERS.c.id == player_id))
        # Their seats are a former player's now: the scopes they played in are folded again, in the
        # background and off the event loop (nimmt.people.rated), not by the next reader's request.
        self.rated.refold_soon(sorted(scopes))
        return bool(done.rowcount)


async def _new_host_if(connection: AsyncConnection, group_id: str, leaving: str) -> None:
    """When the host leaves, the member who joined first takes over (nobody left: no host)."""
    host = (await connection.execute(select(GROUPS.c.host_id).where(GROUPS.c.id == group_id))).scalar()
    if host != leaving:
        return
    first = (await connection.execute(select(MEMBERS.c.player_id).where(MEMBERS.c.group_id == group_id)
                                      .order_by(MEMBERS.c.joined_at, MEMBERS.c.player_id).limit(1))).scalar()
    await connection.execute(update(GROUPS).where(GROUPS.c.id == group_id).values(host_id=first))


async def _played_scopes(connection: AsyncConnection, player_id: str) -> set[str]:
    """The standings scopes (nimmt.people.rated) of the games this player sat at."""
    played = select(SEATS.c.game_id).where(SEATS.c.player_id == player_id)
    kinds = (await connection.execute(select(GAMES.c.group_id, GAMES.c.source).where(GAMES.c.id.in_(played))
                                      .distinct())).all()
    return {row.group_id for row in kinds if row.group_id is not None} | {EVERYONE for row in kinds
                                                                          if row.source == "table"}


async def _release_unconfirmed(connection: AsyncConnection, group_id: str, player_id: str) -> None:
    """A member who leaves a group is no longer named on its score sheets they never confirmed."""
    sheets = select(GAMES.c.id).where(GAMES.c.group_id == group_id, GAMES.c.source == "sheet")
    await connection.execute(update(SEATS).where(SEATS.c.player_id == player_id, SEATS.c.confirmed.is_(False),
                                                 SEATS.c.game_id.in_(sheets)).values(player_id=None))


def _check_game(game: FinishedGame) -> None:
    seats = len(game.seats)
    if not 2 <= seats <= 10 or [seat.seat for seat in game.seats] != list(range(seats)):
        raise PeopleError("bad_game", "a game has 2 to 10 seats, numbered from 0")
    if any(len(row) != seats for row in game.rounds):
        raise PeopleError("bad_game", "each round has one penalty per seat")
    if (game.table_id is None) != (game.game is None):
        raise PeopleError("bad_game", "a table's game has both its table id and its number")
    for seat in game.seats:
        if seat.name is not None:
            _clean(seat.name, NAME_LENGTH, "name")


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _player(row: Row[Any]) -> Player:
    return Player(row.id, row.name, _utc(row.created_at), bool(row.public), row.language)


def _language(language: str | None) -> str | None:
    """A language nimmt speaks, in its own spelling; anything else is refused (``bad_language``)."""
    if language is None:
        return None
    try:
        return check_language(language)
    except UnknownLanguage:
        raise PeopleError("bad_language", f"unknown language {language[:16]!r}") from None


def _passkey(row: Row[Any]) -> Passkey:
    return Passkey(row.credential_id, row.player_id, row.public_key, row.sign_count, _utc(row.created_at),
                   _maybe_utc(row.last_used_at))


def _group(row: Row[Any]) -> Group:
    return Group(row.id, row.name, row.host_id, row.invite, bool(row.invite_open), _utc(row.created_at))
