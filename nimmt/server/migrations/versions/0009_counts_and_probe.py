"""What one key or address may make, counted in the store (``people_counts``: one row per kind of
thing and who makes it: how many in the window that ends at ``ends``; nimmt/people/counts.py), and the health
check's probe rows (``health_probe``: one per server process, written and committed by every
``/healthz``, so that a health check proves a write reaches the disk).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "people_counts",
        sa.Column("what", sa.String(40), primary_key=True),
        sa.Column("who", sa.String(80), primary_key=True),
        sa.Column("ends", sa.Float(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
    )
    op.create_table(
        "health_probe",
        sa.Column("process", sa.String(80), primary_key=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("health_probe")
    op.drop_table("people_counts")
