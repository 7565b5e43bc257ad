"""Records remember the seats the computer finished a match for.

- ``basra_records`` gains ``computer_seats``: the JSON list of the human seats the
  computer was playing for when the match ended (their player had left or run out of
  time), so the lobby can say so. Records stored before keep NULL (read as none).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("basra_records", sa.Column("computer_seats", sa.Text, nullable=True))
