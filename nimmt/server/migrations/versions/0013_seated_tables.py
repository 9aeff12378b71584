"""Where each person sits: one row per person and table at which they hold a seat, for the games in
progress on the home page and My games (nimmt/server/seated.py).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "seated_tables",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("turn_based", sa.Boolean(), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seated_tables_table_id", "seated_tables", ["table_id"])


def downgrade() -> None:
    op.drop_index("ix_seated_tables_table_id", "seated_tables")
    op.drop_table("seated_tables")
