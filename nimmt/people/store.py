"""Where people are kept: the people part's storage, one store per concern, each its own module with
its own small Protocol, and :class:`SqlPeopleStore`, the one object the server holds, which makes
them all on the database it is handed and answers each of their calls.

- players and their keys, devices and passkeys: :mod:`nimmt.people.players` (:class:`PlayerStore`);
- signing in on another device, by a link code or a passkey's challenge: :mod:`nimmt.people.signin`
  (:class:`SignInStore`);
- groups, their members and invitations: :mod:`nimmt.people.groups` (:class:`GroupStore`);
- finished games and score-sheet confirmations: :mod:`nimmt.people.game_store` (:class:`GameStore`),
  with the ratings kept of them (:mod:`nimmt.people.rated`);
- the groups' chats (:mod:`nimmt.people.chat`), the counts of what one key or address made
  (:mod:`nimmt.people.counts`), the devices notices go to (:mod:`nimmt.people.subscriptions`) and the
  ids of the players merged into a person (:mod:`nimmt.people.aliases`).

What spans them lives here: a player's export and deletion, and the sweep of what expired. Each
store runs on SQLite and PostgreSQL from the same code, on the tables of :mod:`nimmt.people.schema`
(made by the server's migrations, which must have run first: the server's store starts before
this one), through the database it is handed (:mod:`nimmt.people.database`: the server's one owner
of engines and connection settings, which its maker closes). Every change is one transaction. The
clock is injected (:attr:`SqlPeopleStore.clock`, which every part reads), so tests move time
instead of waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import delete, func, select, update

from .aliases import AliasStore
from .chat import ChatStore
from .counts import DEFAULT_QUOTAS, CountStore, Quota
from .database import Database
from .game_store import GameStore, SqlGameStore, played_scopes
from .groups import GroupStore, SqlGroupStore, new_host_if
from .model import PeopleError
from .players import PlayerStore, SqlPlayerStore
from .rated import RatedStore
from .rows import Clock, iso, now
from .schema import ALIASES, CHAT, CODES, GAMES, GROUPS, KEYS, MEMBERS, PASSKEYS, PLAYERS, PUSH, SEATS
from .signin import CHALLENGE_TTL, EXPIRED_KEPT, LINK_TTL, CodeKind, SignInStore, SqlSignInStore
from .subscriptions import SubscriptionStore

SWEEP_EVERY = 60.0  # seconds between two sweeps of expired codes and counts (the app's task)

__all__ = ["CHALLENGE_TTL", "EXPIRED_KEPT", "LINK_TTL", "SWEEP_EVERY", "Clock", "CodeKind", "PeopleStore",
           "SqlPeopleStore"]


class PeopleStore(PlayerStore, SignInStore, GroupStore, GameStore, Protocol):
    """The people part as the server uses it: each concern's calls (their own Protocols), the
    stores beside them, and what spans them (see :class:`SqlPeopleStore`)."""

    clock: Clock  # what "now" is (a finished game's time, a code's expiry)
    rated: RatedStore  # the ratings kept per scope (nimmt.people.rated)
    chat: ChatStore  # the groups' chats (nimmt.people.chat)
    counts: CountStore  # what a key or an address made (nimmt.people.counts)
    push: SubscriptionStore  # the devices a person gets notices on (nimmt.people.subscriptions)
    aliases: AliasStore  # the ids of the players merged into a person (nimmt.people.aliases)

    async def start(self) -> None: ...
    async def close(self) -> None: ...
    async def export(self, player_id: str) -> dict[str, Any]: ...
    async def delete_player(self, player_id: str) -> bool: ...
    async def sweep(self) -> int: ...


class SqlPeopleStore:
    """:class:`PeopleStore` on the database it is handed (its maker closes it): one store per concern,
    and each of their calls answered as its own (``people.join`` is ``people.groups.join``)."""

    def __init__(self, database: Database, *, clock: Clock = now, quotas: Sequence[Quota] = DEFAULT_QUOTAS) -> None:
        self.database = database
        self.url = database.url
        self.clock = clock
        self._engine = database.engine

        def when() -> datetime:
            return self.clock()  # the clock as it is now (tests set another)

        self.players = players = SqlPlayerStore(database, when)
        self.games = games = SqlGameStore(database)
        self.rated = games.rated
        self.signin = signin = SqlSignInStore(database, when, players, games.rated)
        self.groups = groups = SqlGroupStore(database, when)
        self.counts = CountStore(database, when, quotas)
        self.chat = ChatStore(self._engine, when, self.counts)
        self.push = SubscriptionStore(self._engine, when)
        self.aliases = AliasStore(self._engine)
        # Players and their keys
        self.new_player = players.new_player
        self.player_for_key = players.player_for_key
        self.player = players.player
        self.public_players = players.public_players
        self.rename = players.rename
        self.set_public = players.set_public
        self.set_language = players.set_language
        self.devices = players.devices
        self.sign_out = players.sign_out
        self.new_device_key = players.new_device_key
        self.add_passkey = players.add_passkey
        self.passkey = players.passkey
        self.passkey_used = players.passkey_used
        self.passkeys = players.passkeys
        self.remove_passkey = players.remove_passkey
        # Signing in on another device
        self.new_link_code = signin.new_link_code
        self.use_link_code = signin.use_link_code
        self.link_code_player = signin.link_code_player
        self.merge_by_code = signin.merge_by_code
        self.put_challenge = signin.put_challenge
        self.take_challenge = signin.take_challenge
        # Groups
        self.new_group = groups.new_group
        self.group = groups.group
        self.join = groups.join
        self.invited = groups.invited
        self.leave = groups.leave
        self.remove_member = groups.remove_member
        self.set_invite = groups.set_invite
        self.groups_of = groups.groups_of
        self.members = groups.members
        # Finished games
        self.record_game = games.record_game
        self.games_of = games.games_of
        self.group_games = games.group_games
        self.all_games = games.all_games
        self.scope_games = games.scope_games
        self.game = games.game
        self.confirm_seat = games.confirm_seat
        self.pending_sheets = games.pending_sheets
        self.unrated_games = games.unrated_games

    async def start(self) -> None:
        """Check that the migrations made the people tables (the server's store runs them)."""
        async with self._engine.connect() as connection:
            await connection.execute(select(func.count()).select_from(PLAYERS))

    async def close(self) -> None:
        await self.counts.close()

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
                         "last_used_at": iso(device.last_used_at)} for device in await self.devices(player_id)],
            "passkeys": [{"credential_id": passkey.credential_id, "created_at": passkey.created_at.isoformat(),
                          "last_used_at": iso(passkey.last_used_at)} for passkey in await self.passkeys(player_id)],
            "groups": [{"id": group.id, "name": group.name, "host": group.host_id == player_id,
                        "created_at": group.created_at.isoformat()} for group in groups],
            "games": [game.to_json() for game in await self.games_of(player_id, limit=500)]
            + [game.to_json() for game in await self.games.older_games(player_id)],
            "messages": [{"group": message.group_id, "text": message.text, "sent_at": message.sent_at.isoformat()}
                         for message in await self.chat.of_player(player_id)],
            "notices": await self.push.export(player_id),  # the devices notices go to (docs/push.md)
            "merged_players": await self.aliases.export(player_id),  # players that became part of this one
        }

    async def delete_player(self, player_id: str) -> bool:
        """Delete a player and all their keys, codes, passkeys, memberships, chat messages, notices' devices and
        the ids of the players merged into them. Their seats in past games stay for the others' leagues,
        without their id or name: "a former player"."""
        async with self._engine.begin() as connection:
            hosted = (await connection.execute(select(GROUPS.c.id).where(GROUPS.c.host_id == player_id))).all()
            scopes = await played_scopes(connection, player_id)
            await connection.execute(update(SEATS).where(SEATS.c.player_id == player_id)
                                     .values(player_id=None, name=None))
            await connection.execute(update(GAMES).where(GAMES.c.saved_by == player_id).values(saved_by=None))
            for table in (KEYS, CODES, PASSKEYS, MEMBERS, CHAT, PUSH, ALIASES):
                await connection.execute(delete(table).where(table.c.player_id == player_id))
            for (group_id,) in hosted:
                await new_host_if(connection, group_id, player_id)
            done = await connection.execute(delete(PLAYERS).where(PLAYERS.c.id == player_id))
        # Their seats are a former player's now: the scopes they played in are folded again, in the
        # background and off the event loop (nimmt.people.rated), not by the next reader's request.
        self.rated.refold_soon(sorted(scopes))
        return bool(done.rowcount)

    async def sweep(self) -> int:
        """Remove the one-time codes and challenges :data:`EXPIRED_KEPT` past their expiry (used or
        not), the counts whose window is over and the sent notices' old rows: how many rows went. The
        app runs it every :data:`SWEEP_EVERY` seconds."""
        return await self.signin.sweep() + await self.counts.sweep() + await self.push.sweep()
