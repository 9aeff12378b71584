"""Timed tables whose clock runs: one row per table with a clock, so that every process finds the
running clocks after a restart without loading every table (nimmt/server/clocked.py).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "clocked_tables",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("clock", sa.Integer(), nullable=False),
        sa.Column("running", sa.Boolean(), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_clocked_tables_running", "clocked_tables", ["running", "table_id"])


def downgrade() -> None:
    op.drop_index("ix_clocked_tables_running", "clocked_tables")
    op.drop_table("clocked_tables")
