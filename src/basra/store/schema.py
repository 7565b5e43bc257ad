"""The database schema: one SQLAlchemy ``MetaData`` for every table the server stores.

Changes to it are made by a migration in ``migrations/versions`` (Alembic), so that an
existing database upgrades in place when a newer server opens it.

=============  ================================================================
table          rows
=============  ================================================================
basra_tables   one per table: configuration, deal seed, match number, status
basra_seats    one per taken human seat: display name, SHA-256 of its token
basra_moves    one per confirmed play of a table's current match
basra_records  one per finished match: its ``basra-record/1`` document
basra_meta     small key/value facts of the store itself (the write probe)
=============  ================================================================
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

__all__ = [
    "TABLE_STATUSES",
    "meta_table",
    "metadata",
    "moves_table",
    "records_table",
    "seats_table",
    "tables_table",
]

metadata = MetaData()

TABLE_STATUSES = ("waiting", "playing", "finished", "expired")
"""``basra_tables.status``: seats still free, a match running, the match over, or left
unopened until it expired (an expired table is never loaded again)."""

tables_table = Table(
    "basra_tables", metadata,
    Column("code", String(32), primary_key=True),
    Column("config", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("match_number", Integer, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Column("status", String(16), nullable=False, server_default="playing"),
    Column("opened_at", BigInteger, nullable=True),
    Index("ix_basra_tables_status_updated", "status", "updated_at"),
)

seats_table = Table(
    "basra_seats", metadata,
    Column("code", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=False),
)

moves_table = Table(
    "basra_moves", metadata,
    Column("code", String(32), primary_key=True),
    Column("match_number", Integer, primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("move", BigInteger, nullable=False),
)
"""A move is ``card | captured << 6``: up to 58 bits, so the column is 64-bit."""

records_table = Table(
    "basra_records", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(32), nullable=False, index=True),
    Column("match_number", Integer, nullable=False),
    Column("variant", String(32), nullable=False),
    Column("players", Text, nullable=False),
    Column("totals", Text, nullable=False),
    Column("winner", Integer, nullable=False),
    Column("finished_at", BigInteger, nullable=False),
    Column("record", Text, nullable=False),
    Column("computer_seats", Text, nullable=True),
    Index("ux_basra_records_match", "code", "match_number", unique=True),
)
"""A match's record is written once: ``(code, match_number)`` is unique.
``computer_seats`` is the JSON list of the human seats the computer was playing for when
the match ended (its player had left or run out of time); NULL in records stored before
it was kept."""

meta_table = Table(
    "basra_meta", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
