"""Puzzle streaks: an account's best streak (filled in by the puzzles' work).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
