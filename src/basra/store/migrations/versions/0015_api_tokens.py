"""API tokens: personal access tokens with scopes (``basra_api_tokens``, see
``schema.py``); an index of the seats by account (a player's matches, streamed).

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_api_tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, nullable=False, index=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("description", sa.String(120), nullable=False),
        sa.Column("scopes", sa.String(64), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("last_used_at", sa.BigInteger, nullable=True),
        sa.Column("revoked_at", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_basra_seats_user", "basra_seats", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_basra_seats_user", "basra_seats")
    op.drop_table("basra_api_tokens")
