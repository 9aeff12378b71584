"""The people tables at the newest migration (``0003_people``, ``0006_people_rated``,
``0007_people_chat``, ``0009_counts_and_probe``, ``0010_player_language``, ``0011_people_fair``,
``0012_push``, ``0014_push_device``, ``0015_people_aliases``), for SQLAlchemy Core.

The migrations in :mod:`nimmt.server.migrations` make and change them; the store contract test
compares this model with the database they make.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    true,
)

PEOPLE_SCHEMA = MetaData()
_WHEN = DateTime(timezone=True)
_ID = 32

PLAYERS = Table(
    "people_players", PEOPLE_SCHEMA,
    Column("id", String(_ID), primary_key=True),
    Column("name", String(24), nullable=True),
    Column("public", Boolean, nullable=False),
    Column("created_at", _WHEN, nullable=False),
    Column("language", String(8), nullable=True),  # the one they chose (migration 0010); null: their browser's
)
KEYS = Table(  # one per device: only the key's hash
    "people_keys", PEOPLE_SCHEMA,
    Column("id", String(_ID), primary_key=True),
    Column("hash", String(64), nullable=False, unique=True),
    Column("player_id", ForeignKey("people_players.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("how", String(16), nullable=False),
    Column("created_at", _WHEN, nullable=False),
    Column("last_used_at", _WHEN, nullable=True),
)
CODES = Table(  # one-time codes: device links, WebAuthn challenges
    "people_codes", PEOPLE_SCHEMA,
    Column("hash", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("player_id", ForeignKey("people_players.id", ondelete="CASCADE"), nullable=True, index=True),
    Column("data", Text, nullable=True),
    Column("expires_at", _WHEN, nullable=False),
    Column("used_at", _WHEN, nullable=True),
)
PASSKEYS = Table(
    "people_passkeys", PEOPLE_SCHEMA,
    Column("credential_id", String(1400), primary_key=True),
    Column("player_id", ForeignKey("people_players.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("public_key", Text, nullable=False),
    Column("sign_count", Integer, nullable=False),
    Column("created_at", _WHEN, nullable=False),
    Column("last_used_at", _WHEN, nullable=True),
)
GROUPS = Table(
    "people_groups", PEOPLE_SCHEMA,
    Column("id", String(_ID), primary_key=True),
    Column("name", String(40), nullable=False),
    Column("host_id", ForeignKey("people_players.id", ondelete="SET NULL"), nullable=True),
    Column("invite", String(16), nullable=False, unique=True),
    Column("invite_open", Boolean, nullable=False),
    Column("created_at", _WHEN, nullable=False),
)
MEMBERS = Table(
    "people_members", PEOPLE_SCHEMA,
    Column("group_id", ForeignKey("people_groups.id", ondelete="CASCADE"), primary_key=True),
    Column("player_id", ForeignKey("people_players.id", ondelete="CASCADE"), primary_key=True, index=True),
    Column("joined_at", _WHEN, nullable=False),
)
GAMES = Table(
    "people_games", PEOPLE_SCHEMA,
    Column("id", String(_ID), primary_key=True),
    Column("source", String(8), nullable=False),
    Column("table_id", String(64), nullable=True),
    Column("game", Integer, nullable=True),
    Column("group_id", ForeignKey("people_groups.id", ondelete="SET NULL"), nullable=True, index=True),
    Column("finished_at", _WHEN, nullable=False),
    Column("end_above", Integer, nullable=False),
    Column("rounds", JSON, nullable=False),
    # how it ended: "played" (somebody played it to the end), "bots" (bots finished it after every
    # person left), "abandoned" (nobody left to play it); whether it moves anyone's rating
    Column("ending", String(12), nullable=False, server_default="played"),
    Column("rated", Boolean, nullable=False, server_default=true()),
    Column("saved_by", String(_ID), nullable=True),  # who saved a score sheet (their seat is confirmed)
    UniqueConstraint("table_id", "game"),  # a table's game is recorded once, whoever records it
)
SEATS = Table(
    "people_seats", PEOPLE_SCHEMA,
    Column("game_id", ForeignKey("people_games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", ForeignKey("people_players.id", ondelete="SET NULL"), nullable=True),
    Column("name", String(24), nullable=True),
    Column("bot", String(40), nullable=True),
    Column("total", Integer, nullable=False),
    Column("left", Boolean, nullable=False, server_default=false()),  # its person left before the end
    Column("confirmed", Boolean, nullable=False, server_default=true()),  # a sheet's member said it was them
    Index("ix_people_seats_player_id", "player_id"),
)
RATED = Table(  # each scope's stamp (every game: "*", or a group's id): the games its standings come from
    "people_rated", PEOPLE_SCHEMA,
    Column("scope", String(_ID), primary_key=True),
    Column("games", Integer, nullable=False),
    Column("unknown_seats", Integer, nullable=False),
    Column("last_at", _WHEN, nullable=True),
    Column("last_game", String(_ID), nullable=True),
)
STANDING = Table(  # per scope and player: their rating and league figures, kept as games end
    "people_standing", PEOPLE_SCHEMA,
    Column("scope", String(_ID), primary_key=True),
    Column("player_id", ForeignKey("people_players.id", ondelete="CASCADE"), primary_key=True, index=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("rated_games", Integer, nullable=False),
    Column("tally", JSON, nullable=False),  # nimmt.people.league's tally, with the rating's history
)
CHAT = Table(  # a group's chat: the id is the readers' cursor (in the order the messages were stored)
    "people_chat", PEOPLE_SCHEMA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("group_id", ForeignKey("people_groups.id", ondelete="CASCADE"), nullable=False),
    Column("player_id", ForeignKey("people_players.id", ondelete="CASCADE"), nullable=False),
    Column("text", Text, nullable=False),
    Column("sent_at", _WHEN, nullable=False),
    Index("ix_people_chat_group_id", "group_id", "id"),
    Index("ix_people_chat_player_id", "player_id", "sent_at"),
    sqlite_autoincrement=True,  # an id is never given twice, even after a deleted player's last message
)
COUNTS = Table(  # what one key or address made in the current window (nimmt/people/counts.py)
    "people_counts", PEOPLE_SCHEMA,
    Column("what", String(40), primary_key=True),  # the thing, by whom, the window: "groups/player/3600"
    Column("who", String(80), primary_key=True),  # a player's id, or an address
    Column("ends", Float, nullable=False),  # when the window ends (seconds since 1970): the count starts again
    Column("n", Integer, nullable=False),
)
PUSH = Table(  # one per device a person turned notices on for (nimmt/people/subscriptions.py)
    "people_push", PEOPLE_SCHEMA,
    Column("id", String(_ID), primary_key=True),
    Column("player_id", ForeignKey("people_players.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("endpoint", String(2048), nullable=False, unique=True),  # the device's push service address
    Column("p256dh", String(200), nullable=False),  # the browser's public key (base64url)
    Column("auth", String(64), nullable=False),  # its authentication secret (base64url)
    Column("language", String(8), nullable=True),  # the page's language when turned on
    Column("groups", Boolean, nullable=False, server_default=false()),  # group notices too (new table, game over)
    Column("created_at", _WHEN, nullable=False),
    Column("last_sent_at", _WHEN, nullable=True),
    # the device key that turned it on (migration 0014): signing that device out ends its notices
    Column("device_id", ForeignKey("people_keys.id", ondelete="CASCADE", name="fk_people_push_device_id"),
           nullable=True, index=True),
)
PUSH_SENT = Table(  # each notice once: the process whose row goes in sends it
    "people_push_sent", PEOPLE_SCHEMA,
    Column("subscription_id", ForeignKey("people_push.id", ondelete="CASCADE"), primary_key=True),
    Column("notice", String(200), primary_key=True),  # "turn/<table>/<version>/<seat>/asked", ...
    Column("sent_at", _WHEN, nullable=False, index=True),
)
PUSH_SITE = Table(  # the site's VAPID private key (PEM), made once by the first process that needs it
    "push_site", PEOPLE_SCHEMA,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("private_key", Text, nullable=False),
    Column("created_at", _WHEN, nullable=False),
)
ALIASES = Table(  # a player merged into another by a one-time code answers as that one (nimmt/people/aliases.py)
    "people_aliases", PEOPLE_SCHEMA,
    Column("old_id", String(_ID), primary_key=True),  # the merged player's id (that player is gone)
    Column("player_id", ForeignKey("people_players.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("merged_at", _WHEN, nullable=False),
)
