"""How players conduct themselves in rated play: first plays, forfeits, abandons, flags.

- ``basra_flags``: what the server flags for a moderator (same-pair results, same-address
  pairings, repeated abandoning, puzzles mined from a match that may have been thrown).
- ``basra_moves.by_seat``: the human seat that made a move itself (NULL: the computer
  chose it), so a table loaded again knows who has made a first play.
- ``basra_tables.conduct``: the current match's forfeits and why it is unrated (JSON).
- ``basra_abandons``: one row per rated match an account abandoned (aborted by never
  making a first play, or forfeited by leaving): what the playban counts.

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
    op.add_column("basra_moves", sa.Column("by_seat", sa.Integer, nullable=True))
    op.add_column("basra_tables", sa.Column("conduct", sa.Text, nullable=True))
    op.create_table(
        "basra_abandons",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer,
                  sa.ForeignKey("basra_users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("table_code", sa.String(32), nullable=False),
        sa.Column("match_number", sa.Integer, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_abandons_user", "basra_abandons", ["user_id", "created_at"])
    op.create_index("ux_basra_abandons_match", "basra_abandons",
                    ["table_code", "match_number", "user_id"], unique=True)
