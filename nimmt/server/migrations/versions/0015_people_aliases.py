"""A player merged into another by a one-time code: their old id, and the player it answers as now
(nimmt/people/aliases.py), so the tables where the old player sat stay the person's.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "people_aliases",
        sa.Column("old_id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("merged_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_people_aliases_player_id", "people_aliases", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_people_aliases_player_id", table_name="people_aliases")
    op.drop_table("people_aliases")
