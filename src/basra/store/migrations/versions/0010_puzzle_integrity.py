"""Puzzle integrity: solutions shown, mined puzzles awaiting a moderator.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass
