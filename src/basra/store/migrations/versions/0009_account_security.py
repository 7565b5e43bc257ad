"""Account security: log-in throttling by name and address, sessions' last use, names
that cannot pass for one another.

- ``basra_login_address_failures``: wrong passwords in a row per name key and address,
  and the lock they earned; ``basra_login_failures`` keeps only each name's count from
  every address (its old locks, per name alone, are dropped).
- ``basra_sessions``: ``last_used_at`` (NULL until the session's next use) and
  ``user_agent`` (NULL for the sessions started before).
- ``basra_users.name_key``: recomputed with the confusable skeletons
  (``basra.players.accounts.name_key``), in the order the accounts were made. An account
  whose new key another account holds already keeps its old key: both still log in (a
  log-in finds an account by its exact name first), and a name that passes for either is
  refused to new accounts.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from basra.players.accounts import name_key

    op.create_table(
        "basra_login_address_failures",
        sa.Column("name_key", sa.String(128), primary_key=True),
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_failed_at", sa.BigInteger, nullable=False),
        sa.Column("locked_until", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_login_address_failures_last", "basra_login_address_failures",
                    ["last_failed_at"])
    with op.batch_alter_table("basra_sessions") as batch:
        batch.add_column(sa.Column("last_used_at", sa.BigInteger, nullable=True))
        batch.add_column(sa.Column("user_agent", sa.String(200), nullable=True))
    connection = op.get_bind()
    connection.execute(sa.text("DELETE FROM basra_login_failures"))
    users = connection.execute(sa.text(
        "SELECT id, name, name_key FROM basra_users ORDER BY id")).all()
    taken = {row.name_key for row in users}
    for row in users:
        new = name_key(row.name)
        if new == row.name_key:
            continue
        if new in taken:
            continue  # another account has it: this one keeps its old key
        connection.execute(sa.text("UPDATE basra_users SET name_key = :key WHERE id = :id"),
                           {"key": new, "id": row.id})
        taken.discard(row.name_key)
        taken.add(new)


def downgrade() -> None:
    with op.batch_alter_table("basra_sessions") as batch:
        batch.drop_column("user_agent")
        batch.drop_column("last_used_at")
    op.drop_index("ix_basra_login_address_failures_last", "basra_login_address_failures")
    op.drop_table("basra_login_address_failures")
