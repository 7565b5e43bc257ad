"""64-bit moves, table status, one record per match, the store's own facts.

- ``basra_moves.move`` becomes 64-bit: a move with captures needs up to 58 bits (on
  PostgreSQL the 32-bit column refused them; SQLite's INTEGER is already 64-bit).
- ``basra_tables`` gains ``status`` (waiting, playing, finished, expired) and
  ``opened_at`` (when anyone first connected), so a server loads only live tables.
- ``basra_records`` gets a unique ``(code, match_number)``: a match's record is written once.
- ``basra_meta`` holds the write probe that tells whether storage works.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("basra_moves", "move", type_=sa.BigInteger,
                        existing_type=sa.Integer, existing_nullable=False)
    op.add_column("basra_tables", sa.Column("status", sa.String(16), nullable=False,
                                            server_default="playing"))
    op.add_column("basra_tables", sa.Column("opened_at", sa.BigInteger, nullable=True))
    op.create_index("ix_basra_tables_status_updated", "basra_tables",
                    ["status", "updated_at"])
    op.create_index("ux_basra_records_match", "basra_records", ["code", "match_number"],
                    unique=True)
    op.create_table(
        "basra_meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
