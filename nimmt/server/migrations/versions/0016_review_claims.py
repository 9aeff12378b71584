"""Which process makes a game's review: one row per game, a lease (nimmt/server/store/claims.py), so
that several processes on one database review a game once.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision: str | None = "0015"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "review_claims",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.Integer(), primary_key=True),
        sa.Column("holder", sa.String(32), nullable=False),
        sa.Column("until", sa.Float(), nullable=False),
        sa.Column("ended", sa.Boolean(), nullable=False),
        sa.Column("done", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_review_claims_holder", "review_claims", ["holder"])


def downgrade() -> None:
    op.drop_index("ix_review_claims_holder", table_name="review_claims")
    op.drop_table("review_claims")
