"""A group's chat: its members' messages, in the order they were stored (nimmt/people/chat.py).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "people_chat",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("group_id", sa.String(32), sa.ForeignKey("people_groups.id", ondelete="CASCADE"), nullable=False),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_autoincrement=True,  # else SQLite gives a deleted last id again: cursors would skip it
    )
    op.create_index("ix_people_chat_group_id", "people_chat", ["group_id", "id"])
    op.create_index("ix_people_chat_player_id", "people_chat", ["player_id", "sent_at"])


def downgrade() -> None:
    op.drop_index("ix_people_chat_player_id", "people_chat")
    op.drop_index("ix_people_chat_group_id", "people_chat")
    op.drop_table("people_chat")
