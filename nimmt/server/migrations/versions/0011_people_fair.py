"""Fair records and standings kept as games end (docs/people.md): how each game ended and whether
it is rated, which seats left before the end, which score-sheet seats their member confirmed, and
per scope and player their rating and league figures (``people_standing``). The kept ratings of
``people_rated`` go (folded again from the games when first read).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("people_games", sa.Column("ending", sa.String(12), nullable=False, server_default="played"))
    op.add_column("people_games", sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.true()))
    op.add_column("people_games", sa.Column("saved_by", sa.String(32), nullable=True))
    op.add_column("people_seats", sa.Column("left", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("people_seats", sa.Column("confirmed", sa.Boolean(), nullable=False, server_default=sa.true()))
    op.drop_table("people_rated")
    op.create_table(
        "people_rated",
        sa.Column("scope", sa.String(32), primary_key=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("unknown_seats", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_game", sa.String(32), nullable=True),
    )
    op.create_table(
        "people_standing",
        sa.Column("scope", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("people_players.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("tally", sa.JSON(), nullable=False),
    )
    op.create_index("ix_people_standing_player_id", "people_standing", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_people_standing_player_id", table_name="people_standing")
    op.drop_table("people_standing")
    op.drop_table("people_rated")
    op.create_table(
        "people_rated",
        sa.Column("scope", sa.String(32), primary_key=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("unknown_seats", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_game", sa.String(32), nullable=True),
        sa.Column("ratings", sa.JSON(), nullable=False),
    )
    with op.batch_alter_table("people_seats") as batch:
        batch.drop_column("confirmed")
        batch.drop_column("left")
    with op.batch_alter_table("people_games") as batch:
        batch.drop_column("saved_by")
        batch.drop_column("rated")
        batch.drop_column("ending")
