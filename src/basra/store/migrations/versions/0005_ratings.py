"""Ratings: players online play rated matches, whose results move their ratings.

- ``basra_seats.user_id``: the account that took a seat (NULL for a guest).
- ``basra_ratings``: an account's rating per pool (``mu``, ``sigma``, games, display).
- ``basra_rating_history``: display rating before and after each rated match.
- ``basra_rated_results``: one row per rated record, so a result counts once.

Existing rows are untouched: every seat taken so far was a guest's.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("basra_seats", sa.Column("user_id", sa.Integer, nullable=True))
    op.create_table(
        "basra_ratings",
        sa.Column("user_id", sa.Integer,
                  sa.ForeignKey("basra_users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("pool", sa.String(40), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("display", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_ratings_pool_display", "basra_ratings", ["pool", "display"])
    op.create_table(
        "basra_rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("record_id", sa.Integer, nullable=False),
        sa.Column("pool", sa.String(40), nullable=False),
        sa.Column("user_id", sa.Integer,
                  sa.ForeignKey("basra_users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("before", sa.Integer, nullable=False),
        sa.Column("after", sa.Integer, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_basra_rating_history_user", "basra_rating_history",
                    ["user_id", "pool", "id"])
    op.create_index("ix_basra_rating_history_record", "basra_rating_history", ["record_id"])
    op.create_table(
        "basra_rated_results",
        sa.Column("record_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("pool", sa.String(40), nullable=False),
        sa.Column("rated_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("basra_rated_results")
    op.drop_table("basra_rating_history")
    op.drop_table("basra_ratings")
    with op.batch_alter_table("basra_seats") as batch:
        batch.drop_column("user_id")
