"""Turkish and Greek names: ``basra_users.name_key`` recomputed
(``basra.players.accounts.name_key`` now reads the Turkish capital ``İ`` as ``i``, so
``İpek`` and ``ipek`` are one name; Greek letters were not allowed before, so no other
key changes). As in 0009, in the order the accounts were made, and an account whose new
key another account holds already keeps its old one.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from basra.players.accounts import name_key

    connection = op.get_bind()
    users = connection.execute(sa.text(
        "SELECT id, name, name_key FROM basra_users ORDER BY id")).all()
    taken = {row.name_key for row in users}
    for row in users:
        new = name_key(row.name)
        if new == row.name_key or new in taken:
            continue
        connection.execute(sa.text("UPDATE basra_users SET name_key = :key WHERE id = :id"),
                           {"key": new, "id": row.id})
        taken.discard(row.name_key)
        taken.add(new)


def downgrade() -> None:
    """Nothing to undo: the old keys of the few renamed rows still name them by name."""
