"""Tables carry their owner's fencing epoch, for servers that share one database.

- ``basra_tables`` gains ``owner_epoch``: raised by one each time a server takes the table
  over (``Store.claim_table``). A server writes a table's moves, seats and rematches only
  while the stored epoch is still the one it claimed, so an old owner that wakes up after
  a pause cannot change a table another server has taken over. Existing tables start at 0.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("basra_tables", sa.Column("owner_epoch", sa.BigInteger, nullable=False,
                                            server_default="0"))
