"""Learning: the lessons an account has finished (``basra_lessons``, see ``schema.py``).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_lessons",
        sa.Column("user_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("lesson", sa.String(32), primary_key=True),
        sa.Column("finished_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("basra_lessons")
