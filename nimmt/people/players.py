"""Players and their keys: a player (a name, public or not, a language), the key each of their
devices holds (only its hash is kept), and their passkeys. A device that holds a key is that
player; a key signed out is nobody's."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import Database
from .keys import hash_secret, looks_like_key, new_id, new_key
from .model import NAME_LENGTH, Device, Passkey, PeopleError, Player
from .rows import Clock, checked_language, cleaned, maybe_utc, passkey_of, player_of, utc
from .schema import KEYS, PASSKEYS, PLAYERS

TOUCH_EVERY = timedelta(hours=1)  # a key's "last used" is written at most this often
logger = logging.getLogger("nimmt.people")


class PlayerStore(Protocol):
    """Players, their devices' keys and their passkeys (see :class:`SqlPlayerStore` for each call)."""

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
    async def add_passkey(self, player_id: str, credential_id: str, public_key: str, sign_count: int) -> None: ...
    async def passkey(self, credential_id: str) -> Passkey | None: ...
    async def passkey_used(self, credential_id: str, sign_count: int) -> None: ...
    async def passkeys(self, player_id: str) -> list[Passkey]: ...
    async def remove_passkey(self, player_id: str, credential_id: str) -> bool: ...


class SqlPlayerStore:
    """:class:`PlayerStore` on the database it is handed."""

    def __init__(self, database: Database, clock: Clock) -> None:
        self._engine = database.engine
        self._clock = clock

    def _when(self) -> datetime:
        return utc(self._clock())

    async def new_player(self, name: str | None = None, language: str | None = None) -> tuple[Player, str]:
        """A new player and the key of its first device (given once: only its hash is kept);
        ``language``: the one the person chose, if they did."""
        player = Player(new_id("p"), None if name is None else cleaned(name, NAME_LENGTH, "name"), self._when(),
                        language=checked_language(language))
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
        if row.last_used_at is None or now - utc(row.last_used_at) > TOUCH_EVERY:
            try:
                async with self._engine.begin() as connection:
                    await connection.execute(update(KEYS).where(KEYS.c.id == row.device).values(last_used_at=now))
            except DBAPIError as error:  # a full disk: the key still works, "last used" waits for the next time
                logger.warning("a key's last use was not written: %s", error.orig)
        return player_of(row)

    async def player(self, player_id: str) -> Player | None:
        async with self._engine.connect() as connection:
            row = (await connection.execute(select(PLAYERS).where(PLAYERS.c.id == player_id))).first()
        return None if row is None else player_of(row)

    async def public_players(self) -> list[Player]:
        """The players who made their profile public (the ratings page lists them)."""
        async with self._engine.connect() as connection:
            rows = (await connection.execute(select(PLAYERS).where(PLAYERS.c.public).order_by(PLAYERS.c.id))).all()
        return [player_of(row) for row in rows]

    async def _changed_player(self, player_id: str, **values: Any) -> Player:
        async with self._engine.begin() as connection:
            done = await connection.execute(update(PLAYERS).where(PLAYERS.c.id == player_id).values(**values))
            if done.rowcount != 1:
                raise PeopleError("unknown_player", "no such player (deleted?)")
            row = (await connection.execute(select(PLAYERS).where(PLAYERS.c.id == player_id))).one()
        return player_of(row)

    async def rename(self, player_id: str, name: str) -> Player:
        return await self._changed_player(player_id, name=cleaned(name, NAME_LENGTH, "name"))

    async def set_public(self, player_id: str, public: bool) -> Player:
        return await self._changed_player(player_id, public=bool(public))

    async def set_language(self, player_id: str, language: str | None) -> Player:
        """The language the person chose (every device of theirs follows it); None: their browser's."""
        return await self._changed_player(player_id, language=checked_language(language))

    async def devices(self, player_id: str) -> list[Device]:
        query = select(KEYS).where(KEYS.c.player_id == player_id).order_by(KEYS.c.created_at, KEYS.c.id)
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [Device(row.id, row.how, utc(row.created_at), maybe_utc(row.last_used_at)) for row in rows]

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
        return None if row is None else passkey_of(row)

    async def passkey_used(self, credential_id: str, sign_count: int) -> None:
        async with self._engine.begin() as connection:
            await connection.execute(update(PASSKEYS).where(PASSKEYS.c.credential_id == credential_id)
                                     .values(sign_count=sign_count, last_used_at=self._when()))

    async def passkeys(self, player_id: str) -> list[Passkey]:
        query = select(PASSKEYS).where(PASSKEYS.c.player_id == player_id).order_by(PASSKEYS.c.created_at)
        async with self._engine.connect() as connection:
            return [passkey_of(row) for row in (await connection.execute(query)).all()]

    async def remove_passkey(self, player_id: str, credential_id: str) -> bool:
        """Forget one of the player's passkeys (it signs nobody in from now on); the devices that
        signed in with it keep their own keys. False when the player has no such passkey."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(PASSKEYS).where(PASSKEYS.c.credential_id == credential_id,
                                                                   PASSKEYS.c.player_id == player_id))
        return bool(done.rowcount)
