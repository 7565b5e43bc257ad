"""Puzzle streaks: an account's current and best Puzzle Streak (``basra_puzzle_streaks``,
see ``schema.py``).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_puzzle_streaks",
        sa.Column("user_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best", sa.Integer, nullable=False),
        sa.Column("last_puzzle", sa.String(24), nullable=False, server_default=""),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("basra_puzzle_streaks")
