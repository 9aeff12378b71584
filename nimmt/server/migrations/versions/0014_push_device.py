"""A device's notices belong to the device's key that turned them on (``people_push.device_id``):
signing that device out (a lost or stolen phone) ends its notices with it. Rows kept before have
none, and stay until their person turns them off.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("people_push") as batch:
        batch.add_column(sa.Column("device_id", sa.String(32), nullable=True))
        batch.create_foreign_key("fk_people_push_device_id", "people_keys", ["device_id"], ["id"], ondelete="CASCADE")
        batch.create_index("ix_people_push_device_id", ["device_id"])


def downgrade() -> None:
    with op.batch_alter_table("people_push") as batch:
        batch.drop_index("ix_people_push_device_id")
        batch.drop_constraint("fk_people_push_device_id", type_="foreignkey")
        batch.drop_column("device_id")
