"""Accounts: players may sign up with a name and a password, and log in.

- ``basra_users``: one row per account (its name, the name's unique key, an Argon2 hash
  of its password).
- ``basra_sessions``: one row per log-in (the SHA-256 of its cookie's token, the
  account, when it expires).
- ``basra_login_failures``: wrong passwords in a row per name key, and the lock they
  earned.

Existing tables are untouched: guests keep playing as before.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(128), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ux_basra_users_name_key", "basra_users", ["name_key"], unique=True)
    op.create_table(
        "basra_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer,
                  sa.ForeignKey("basra_users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_sessions_user", "basra_sessions", ["user_id"])
    op.create_index("ix_basra_sessions_expires", "basra_sessions", ["expires_at"])
    op.create_table(
        "basra_login_failures",
        sa.Column("name_key", sa.String(128), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_failed_at", sa.BigInteger, nullable=False),
        sa.Column("locked_until", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("basra_login_failures")
    op.drop_table("basra_sessions")
    op.drop_table("basra_users")
