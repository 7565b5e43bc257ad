"""How players conduct themselves in rated play: first plays, forfeits, abandons, flags.

- ``basra_flags``: what the server flags for a moderator (same-pair results, same-address
  pairings, repeated abandoning, puzzles mined from a match that may have been thrown).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_flags",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=True),
        sa.Column("other_user_id", sa.Integer, nullable=True),
        sa.Column("record_id", sa.BigInteger, nullable=True),
        sa.Column("table_code", sa.String(32), nullable=True),
        sa.Column("details", sa.Text, nullable=False, server_default="{}"),
        sa.Column("status", sa.String(16), nullable=False, server_default="open"),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_flags_status", "basra_flags", ["status", "id"])
    op.create_index("ix_basra_flags_user", "basra_flags", ["user_id"])
