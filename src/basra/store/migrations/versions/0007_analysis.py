"""Analyses of stored matches, puzzles mined from them, and accounts' puzzle ratings.

- ``basra_analyses``: one ``basra-analysis/1`` document per analysed record.
- ``basra_mined_puzzles``: puzzles mined from stored records (``basra-puzzles/1``).
- ``basra_puzzle_ratings``: each account's puzzle rating, puzzles solved and tried.
- ``basra_puzzle_attempts``: one per account and puzzle (only a first try moves a rating).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_analyses",
        sa.Column("record_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "basra_mined_puzzles",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("record_id", sa.BigInteger, nullable=False),
        sa.Column("puzzle", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "basra_puzzle_ratings",
        sa.Column("user_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "basra_puzzle_attempts",
        sa.Column("user_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("puzzle_id", sa.String(24), primary_key=True),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
