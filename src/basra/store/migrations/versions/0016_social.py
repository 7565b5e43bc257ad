"""Follows, challenges and notifications (``basra_follows``, ``basra_challenges``,
``basra_notifications``, see ``schema.py``).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_follows",
        sa.Column("user_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("followed_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_follows_followed", "basra_follows", ["followed_id"])
    op.create_table(
        "basra_challenges",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("from_user", sa.Integer, nullable=False),
        sa.Column("to_user", sa.Integer, nullable=True),
        sa.Column("invited", sa.Text, nullable=False, server_default="[]"),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("turn_seconds", sa.Integer, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("reason", sa.String(32), nullable=True),
        sa.Column("table_code", sa.String(32), nullable=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_challenges_to", "basra_challenges", ["to_user", "status"])
    op.create_index("ix_basra_challenges_from", "basra_challenges", ["from_user", "status"])
    op.create_table(
        "basra_notifications",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("read_at", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_basra_notifications_user", "basra_notifications", ["user_id", "id"])


def downgrade() -> None:
    op.drop_table("basra_notifications")
    op.drop_table("basra_challenges")
    op.drop_table("basra_follows")
