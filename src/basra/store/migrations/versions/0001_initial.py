"""The first schema: tables, seats, moves and records.

Databases made before migrations existed hold exactly this schema; the store marks them
as at this revision before upgrading them.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_tables",
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("match_number", sa.Integer, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "basra_seats",
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
    )
    op.create_table(
        "basra_moves",
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("match_number", sa.Integer, primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("move", sa.Integer, nullable=False),
    )
    op.create_table(
        "basra_records",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(32), nullable=False, index=True),
        sa.Column("match_number", sa.Integer, nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("totals", sa.Text, nullable=False),
        sa.Column("winner", sa.Integer, nullable=False),
        sa.Column("finished_at", sa.BigInteger, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
    )
