"""Tournaments: events, their entrants and their games (``basra_tournaments``,
``basra_tournament_entrants``, ``basra_tournament_games``, see ``schema.py``).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "basra_tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("turn_seconds", sa.Integer, nullable=False),
        sa.Column("minutes", sa.Integer, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("round", sa.Integer, nullable=False, server_default="0"),
        sa.Column("starts_at", sa.BigInteger, nullable=False),
        sa.Column("ends_at", sa.BigInteger, nullable=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("created_by", sa.Integer, nullable=True),
        sa.Column("schedule_key", sa.String(160), nullable=True, unique=True),
        sa.Column("allow_bots", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("finished_at", sa.BigInteger, nullable=True),
        sa.Column("winner", sa.String(140), nullable=True),
    )
    op.create_index("ix_basra_tournaments_status", "basra_tournaments",
                    ["status", "starts_at"])
    op.create_index("ix_basra_tournaments_creator", "basra_tournaments",
                    ["created_by", "created_at"])
    op.create_table(
        "basra_tournament_entrants",
        sa.Column("tournament_id", sa.String(16), primary_key=True),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(140), nullable=False),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("members", sa.Text, nullable=False),
        sa.Column("invited", sa.Integer, nullable=True),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("joined_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "basra_tournament_games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.String(16), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("entrants", sa.Text, nullable=False),
        sa.Column("table_code", sa.String(32), nullable=True, unique=True),
        sa.Column("seats", sa.Text, nullable=True),
        sa.Column("ranks", sa.Text, nullable=True),
        sa.Column("record_id", sa.Integer, nullable=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("finished_at", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_basra_tournament_games_t", "basra_tournament_games",
                    ["tournament_id", "round"])


def downgrade() -> None:
    op.drop_table("basra_tournament_games")
    op.drop_table("basra_tournament_entrants")
    op.drop_index("ix_basra_tournaments_creator", "basra_tournaments")
    op.drop_index("ix_basra_tournaments_status", "basra_tournaments")
    op.drop_table("basra_tournaments")
