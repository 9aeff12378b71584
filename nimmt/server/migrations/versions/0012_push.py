"""Notices by Web Push (docs/push.md): each device a person turned notices on for (its push
service's address and keys), the notices already sent to it (one row per notice: the store decides
which process sends it), and the site's VAPID key, made once.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "people_push",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("endpoint", sa.String(2048), nullable=False, unique=True),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("language", sa.String(8), nullable=True),
        sa.Column("groups", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_sent_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_people_push_player_id", "people_push", ["player_id"])
    op.create_table(
        "people_push_sent",
        sa.Column("subscription_id", sa.String(32), sa.ForeignKey("people_push.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("notice", sa.String(200), primary_key=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_people_push_sent_sent_at", "people_push_sent", ["sent_at"])
    op.create_table(
        "push_site",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("private_key", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("push_site")
    op.drop_index("ix_people_push_sent_sent_at", table_name="people_push_sent")
    op.drop_table("people_push_sent")
    op.drop_index("ix_people_push_player_id", table_name="people_push")
    op.drop_table("people_push")
