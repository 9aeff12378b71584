"""The journal keeps one index: the unique (table_id, seq) one also serves look-ups by table, so
the index on table_id alone was only one more B-tree to update on every append.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.drop_index("ix_journal_table_id", "journal")


def downgrade() -> None:
    op.create_index("ix_journal_table_id", "journal", ["table_id"])

