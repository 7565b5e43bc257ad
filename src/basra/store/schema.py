"""The database schema: one SQLAlchemy ``MetaData`` for every table the server stores.

Changes to it are made by a migration in ``migrations/versions`` (Alembic), so that an
existing database upgrades in place when a newer server opens it.

=============  ================================================================
table          rows
=============  ================================================================
basra_tables   one per table: configuration, deal seed, match number, status, owner epoch
basra_seats    one per taken human seat: display name, SHA-256 of its token
basra_moves    one per confirmed play of a table's current match
basra_records  one per finished match: its ``basra-record/1`` document
basra_meta     small key/value facts of the store itself (the write probe)
basra_users    one per account: its name, the name's unique key, a password hash
basra_sessions one per log-in: SHA-256 of its cookie's token, account, expiry
basra_login_failures  one per name with recent wrong passwords: count, lock
basra_ratings  one per account and rated pool: skill mean, uncertainty, games
basra_rating_history  one per account and rated match: display rating before, after
basra_rated_results   one per rated record: makes a match's result count once
basra_analyses        one per analysed record: its ``basra-analysis/1`` document
basra_mined_puzzles   one per puzzle mined from a stored record
basra_puzzle_ratings  one per account that solved puzzles: rating, solved, attempts
basra_puzzle_attempts one per account and puzzle: only a first attempt moves a rating
basra_flags           one per thing the server flagged for a moderator
basra_puzzle_reveals  one per puzzle and account or address hash shown its solution
=============  ================================================================
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

__all__ = [
    "FLAG_KINDS",
    "FLAG_STATUSES",
    "TABLE_STATUSES",
    "analyses_table",
    "flags_table",
    "login_failures_table",
    "meta_table",
    "metadata",
    "mined_puzzles_table",
    "moves_table",
    "puzzle_attempts_table",
    "puzzle_ratings_table",
    "puzzle_reveals_table",
    "rated_results_table",
    "rating_history_table",
    "ratings_table",
    "records_table",
    "seats_table",
    "sessions_table",
    "tables_table",
    "users_table",
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
    Column("owner_epoch", BigInteger, nullable=False, server_default="0"),
    Index("ix_basra_tables_status_updated", "status", "updated_at"),
)

seats_table = Table(
    "basra_seats", metadata,
    Column("code", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("user_id", Integer, nullable=True),
)
"""``user_id`` is the account that took the seat (a logged-in player), NULL for a guest."""

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

users_table = Table(
    "basra_users", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),
    Column("name_key", String(128), nullable=False),
    Column("password_hash", String(255), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ux_basra_users_name_key", "name_key", unique=True),
)
"""An account. ``name`` as its player wrote it; ``name_key`` what makes two names the
same (``basra.players.accounts.name_key``: case folded, look-alike letters as one), unique."""

sessions_table = Table(
    "basra_sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("basra_users.id", ondelete="CASCADE"),
           nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("expires_at", BigInteger, nullable=False),
    Index("ix_basra_sessions_user", "user_id"),
    Index("ix_basra_sessions_expires", "expires_at"),
)
"""A log-in: the SHA-256 (hex) of the token in its cookie, never the token itself."""

login_failures_table = Table(
    "basra_login_failures", metadata,
    Column("name_key", String(128), primary_key=True),
    Column("failures", Integer, nullable=False),
    Column("last_failed_at", BigInteger, nullable=False),
    Column("locked_until", BigInteger, nullable=False),
)
"""Wrong passwords in a row for a name key (whether or not an account has it), and until
when its log-ins are locked (Unix milliseconds)."""

ratings_table = Table(
    "basra_ratings", metadata,
    Column("user_id", Integer, ForeignKey("basra_users.id", ondelete="CASCADE"),
           primary_key=True),
    Column("pool", String(40), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("display", Integer, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Index("ix_basra_ratings_pool_display", "pool", "display"),
)
"""An account's rating in one pool (``basra.players.ratings``): ``mu``, ``sigma``, rated games, and
the display number (kept for the leaderboard's order)."""

rating_history_table = Table(
    "basra_rating_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("record_id", Integer, nullable=False),
    Column("pool", String(40), nullable=False),
    Column("user_id", Integer, ForeignKey("basra_users.id", ondelete="CASCADE"),
           nullable=False),
    Column("seat", Integer, nullable=False),
    Column("before", Integer, nullable=False),
    Column("after", Integer, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_basra_rating_history_user", "user_id", "pool", "id"),
    Index("ix_basra_rating_history_record", "record_id"),
)
"""One account's display rating before and after one rated match (its record)."""

rated_results_table = Table(
    "basra_rated_results", metadata,
    Column("record_id", Integer, primary_key=True, autoincrement=False),
    Column("pool", String(40), nullable=False),
    Column("rated_at", BigInteger, nullable=False),
)
"""A rated match whose result is counted: written in the transaction that updates the
ratings, so a result counts once however often the record is saved."""

analyses_table = Table(
    "basra_analyses", metadata,
    Column("record_id", BigInteger, primary_key=True, autoincrement=False),
    Column("document", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
)

mined_puzzles_table = Table(
    "basra_mined_puzzles", metadata,
    Column("id", String(24), primary_key=True),
    Column("record_id", BigInteger, nullable=False),
    Column("puzzle", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
)

puzzle_ratings_table = Table(
    "basra_puzzle_ratings", metadata,
    Column("user_id", Integer, primary_key=True, autoincrement=False),
    Column("rating", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

puzzle_attempts_table = Table(
    "basra_puzzle_attempts", metadata,
    Column("user_id", Integer, primary_key=True, autoincrement=False),
    Column("puzzle_id", String(24), primary_key=True),
    Column("solved", Integer, nullable=False),
    Column("created_at", BigInteger, nullable=False),
)

# -- conduct in rated play (migration 0008) ----------------------------------------------

FLAG_KINDS = ("same_pair", "same_address", "abandons", "puzzle_mining")
"""``basra_flags.kind``: rated results between the same two accounts past the day's
limit, a pairing of two seeks from one address, an account that keeps abandoning rated
matches, puzzles mined from a match that may have been thrown."""

FLAG_STATUSES = ("open", "dismissed", "actioned")

flags_table = Table(
    "basra_flags", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(24), nullable=False),
    Column("user_id", Integer, nullable=True),
    Column("other_user_id", Integer, nullable=True),
    Column("record_id", BigInteger, nullable=True),
    Column("table_code", String(32), nullable=True),
    Column("details", Text, nullable=False, server_default="{}"),
    Column("status", String(16), nullable=False, server_default="open"),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_basra_flags_status", "status", "id"),
    Index("ix_basra_flags_user", "user_id"),
)
"""Something for a moderator to look at, raised by the server itself (never by a player):
``kind`` from :data:`FLAG_KINDS`, the accounts it concerns, the record or table it came
from, and ``details`` (JSON) that say more."""


# -- account security (migration 0009) ---------------------------------------------------


# -- puzzle integrity (migration 0010) ---------------------------------------------------

puzzle_reveals_table = Table(
    "basra_puzzle_reveals", metadata,
    Column("puzzle_id", String(24), primary_key=True),
    Column("shown_to", String(72), primary_key=True),
    Column("shown_at", BigInteger, nullable=False),
    Index("ix_basra_puzzle_reveals_shown_at", "shown_at"),
)
"""A puzzle's solution shown: ``shown_to`` is ``user:<id>`` (an account, for good) or
``address:<hash>`` (a keyed hash of the client's address, never the address, for a
day); ``shown_at`` is the latest time, in ms."""


# -- moderation (migration 0011) ---------------------------------------------------------
