"""Public tables: one row per table opened to strangers, for the lobby's list and quick match
(docs/web.md, "The lobby").

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "public_tables",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("clock", sa.Integer(), nullable=True),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("taken", sa.Integer(), nullable=False),
        sa.Column("open", sa.Boolean(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_public_tables_open", "public_tables", ["open", "language", "opened_at"])


def downgrade() -> None:
    op.drop_index("ix_public_tables_open", "public_tables")
    op.drop_table("public_tables")
