"""Learning: the lessons an account has finished (filled in by the lessons' work).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
