"""Ratings kept per scope (every game, or a group's), updated when a game ends
(nimmt/people/rated.py).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "people_rated",
        sa.Column("scope", sa.String(32), primary_key=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("unknown_seats", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_game", sa.String(32), nullable=True),
        sa.Column("ratings", sa.JSON(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("people_rated")
