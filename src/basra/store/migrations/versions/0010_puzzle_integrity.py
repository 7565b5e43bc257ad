"""Puzzle integrity: solutions shown, so that a puzzle counts only for an account that
has not been shown its solution.

- ``basra_puzzle_reveals``: one row per puzzle and account (``user:<id>``) or hashed
  client address (``address:<hash>``) that was shown the puzzle's solution.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_puzzle_reveals",
        sa.Column("puzzle_id", sa.String(24), primary_key=True),
        sa.Column("shown_to", sa.String(72), primary_key=True),
        sa.Column("shown_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_puzzle_reveals_shown_at", "basra_puzzle_reveals",
                    ["shown_at"])
