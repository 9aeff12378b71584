"""A player's own language: the one they chose in a menu, followed by every device of theirs
(null: their browser's). See docs/people.md, "Language".

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("people_players", sa.Column("language", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("people_players") as batch:
        batch.drop_column("language")
