"""The schema nimmt had before migrations: tables, their journals, each game's record.

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("created_seq", sa.Integer(), nullable=False),
    )
    op.create_table(
        "journal",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("entry", sa.Text(), nullable=False),
        sa.UniqueConstraint("table_id", "seq"),
    )
    op.create_index("ix_journal_table_id", "journal", ["table_id"])
    op.create_table(
        "games",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("game", sa.Integer(), primary_key=True),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("games")
    op.drop_index("ix_journal_table_id", "journal")
    op.drop_table("journal")
    op.drop_table("tables")
