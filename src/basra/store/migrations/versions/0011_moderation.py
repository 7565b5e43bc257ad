"""Moderation: roles, reports, blocks, sanctions and the audit log; mined puzzles that wait
for a moderator.

- ``basra_moderators``, ``basra_reports``, ``basra_blocks``, ``basra_sanctions`` and
  ``basra_audit`` (see ``schema.py``);
- ``basra_mined_puzzles.status``: ``public`` for every puzzle mined before (they stay in
  the public set), ``pending`` or ``rejected`` for later ones.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("basra_mined_puzzles") as batch:
        batch.add_column(sa.Column("status", sa.String(12), nullable=False,
                                   server_default="public"))
    op.create_table(
        "basra_moderators",
        sa.Column("user_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("granted_by", sa.String(64), nullable=False),
        sa.Column("granted_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "basra_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter_id", sa.Integer, nullable=False),
        sa.Column("target_id", sa.Integer, nullable=True),
        sa.Column("target_key", sa.String(200), nullable=False),
        sa.Column("target_name", sa.String(64), nullable=False),
        sa.Column("table_code", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("record_id", sa.BigInteger, nullable=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("text", sa.Text, nullable=False, server_default=""),
        sa.Column("chat", sa.Text, nullable=False, server_default="[]"),
        sa.Column("status", sa.String(16), nullable=False, server_default="open"),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("settled_at", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_basra_reports_status", "basra_reports", ["status", "id"])
    op.create_index("ix_basra_reports_reporter", "basra_reports",
                    ["reporter_id", "target_key"])
    op.create_table(
        "basra_blocks",
        sa.Column("user_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("blocked_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_blocks_blocked", "basra_blocks", ["blocked_id"])
    op.create_table(
        "basra_sanctions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("until", sa.BigInteger, nullable=True),
        sa.Column("lifted_at", sa.BigInteger, nullable=True),
        sa.Column("created_by", sa.String(64), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_sanctions_user", "basra_sanctions", ["user_id", "kind"])
    op.create_table(
        "basra_audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("moderator_id", sa.Integer, nullable=True),
        sa.Column("moderator", sa.String(64), nullable=False),
        sa.Column("action", sa.String(24), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=True),
        sa.Column("target", sa.String(64), nullable=False, server_default=""),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("details", sa.Text, nullable=False, server_default="{}"),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_audit_user", "basra_audit", ["user_id"])
