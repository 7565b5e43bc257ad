"""Bot accounts: ``basra_users.bot_since``, when an account was upgraded to a bot (see
``schema.py``).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("basra_users", sa.Column("bot_since", sa.BigInteger, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("basra_users") as batch:
        batch.drop_column("bot_since")
