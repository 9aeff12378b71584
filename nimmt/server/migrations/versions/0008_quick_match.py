"""Quick match decided in the store: a public table's row says until when a person who has just
taken a seat is expected at it (``arriving_until``), and SQLite's quick matches take turns through
one row per language (``quick_turns``; PostgreSQL takes an advisory lock instead). See
nimmt/server/matching.py.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("public_tables", sa.Column("arriving_until", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "quick_turns",
        sa.Column("language", sa.String(8), primary_key=True),
        sa.Column("holder", sa.String(32), nullable=False),
        sa.Column("until", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("quick_turns")
    with op.batch_alter_table("public_tables") as batch:
        batch.drop_column("arriving_until")
