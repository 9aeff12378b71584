"""People who come back: players (keys stored hashed), one-time codes, passkeys, groups and their
members, and each finished game with who sat where (docs/people.md).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "people_players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(24), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_table(
        "people_keys",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("hash", sa.String(64), nullable=False, unique=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("how", sa.String(16), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("last_used_at", _WHEN, nullable=True),
    )
    op.create_index("ix_people_keys_player_id", "people_keys", ["player_id"])
    op.create_table(
        "people_codes",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"), nullable=True),
        sa.Column("data", sa.Text(), nullable=True),
        sa.Column("expires_at", _WHEN, nullable=False),
        sa.Column("used_at", _WHEN, nullable=True),
    )
    op.create_index("ix_people_codes_player_id", "people_codes", ["player_id"])
    op.create_table(
        "people_passkeys",
        sa.Column("credential_id", sa.String(1400), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("sign_count", sa.Integer(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("last_used_at", _WHEN, nullable=True),
    )
    op.create_index("ix_people_passkeys_player_id", "people_passkeys", ["player_id"])
    op.create_table(
        "people_groups",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("host_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="SET NULL"), nullable=True),
        sa.Column("invite", sa.String(16), nullable=False, unique=True),
        sa.Column("invite_open", sa.Boolean(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_table(
        "people_members",
        sa.Column("group_id", sa.String(32), sa.ForeignKey("people_groups.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("joined_at", _WHEN, nullable=False),
    )
    op.create_index("ix_people_members_player_id", "people_members", ["player_id"])
    op.create_table(
        "people_games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("game", sa.Integer(), nullable=True),
        sa.Column("group_id", sa.String(32), sa.ForeignKey("people_groups.id", ondelete="SET NULL"), nullable=True),
        sa.Column("finished_at", _WHEN, nullable=False),
        sa.Column("end_above", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.JSON(), nullable=False),
        sa.UniqueConstraint("table_id", "game"),
    )
    op.create_index("ix_people_games_group_id", "people_games", ["group_id"])
    op.create_table(
        "people_seats",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("people_games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="SET NULL"), nullable=True),
        sa.Column("name", sa.String(24), nullable=True),
        sa.Column("bot", sa.String(40), nullable=True),
        sa.Column("total", sa.Integer(), nullable=False),
    )
    op.create_index("ix_people_seats_player_id", "people_seats", ["player_id"])


def downgrade() -> None:
    for name in ("people_seats", "people_games", "people_members", "people_groups", "people_passkeys",
                 "people_codes", "people_keys", "people_players"):
        op.drop_table(name)
