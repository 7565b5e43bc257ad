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
basra_login_failures  one per name with recent wrong passwords: count from all addresses
basra_login_address_failures  one per name and address with wrong passwords: count, lock
basra_ratings  one per account and rated pool: skill mean, uncertainty, games
basra_rating_history  one per account and rated match: display rating before, after
basra_rated_results   one per rated record: makes a match's result count once
basra_analyses        one per analysed record: its ``basra-analysis/1`` document
basra_mined_puzzles   one per puzzle mined from a stored record
basra_puzzle_ratings  one per account that solved puzzles: rating, solved, attempts
basra_puzzle_attempts one per account and puzzle: only a first attempt moves a rating
basra_flags           one per thing the server flagged for a moderator
basra_moderators      one per moderator; basra_reports one per player's report;
basra_blocks          one per block; basra_sanctions one per mute, ban, closing;
basra_audit           one per moderator's action
basra_abandons        one per rated match an account aborted or forfeited (the playban)
basra_puzzle_reveals  one per puzzle and account or address hash shown its solution
basra_tournaments     one per tournament; basra_tournament_entrants one per entrant;
basra_tournament_games one per game or Swiss bye of a tournament
basra_api_tokens      one per personal access token (its hash, scopes, revocation)
basra_follows         one per account followed; basra_challenges one per challenge;
basra_notifications   one per notification of an account
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
    "ABANDON_KINDS",
    "CHALLENGE_STATUSES",
    "ENTRANT_STATUSES",
    "FLAG_KINDS",
    "FLAG_STATUSES",
    "MINED_PUZZLE_STATUSES",
    "REPORT_STATUSES",
    "SANCTION_KINDS",
    "TABLE_STATUSES",
    "TOKEN_SCOPES",
    "TOURNAMENT_STATUSES",
    "abandons_table",
    "analyses_table",
    "api_tokens_table",
    "audit_table",
    "blocks_table",
    "challenges_table",
    "flags_table",
    "follows_table",
    "lessons_table",
    "login_address_failures_table",
    "login_failures_table",
    "meta_table",
    "metadata",
    "mined_puzzles_table",
    "moderators_table",
    "moves_table",
    "notifications_table",
    "puzzle_attempts_table",
    "puzzle_ratings_table",
    "puzzle_reveals_table",
    "rated_results_table",
    "rating_history_table",
    "ratings_table",
    "records_table",
    "reports_table",
    "sanctions_table",
    "seats_table",
    "sessions_table",
    "tables_table",
    "tournament_entrants_table",
    "tournament_games_table",
    "tournaments_table",
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
    Column("conduct", Text, nullable=True),
    Index("ix_basra_tables_status_updated", "status", "updated_at"),
)
"""``conduct`` (migration 0008) is the current match's conduct in rated play as JSON:
its number, the seats that forfeited (first to go first), the seat whose absence aborted
it, and why it is unrated; NULL while nothing happened."""

seats_table = Table(
    "basra_seats", metadata,
    Column("code", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("user_id", Integer, nullable=True),
    Index("ix_basra_seats_user", "user_id"),
)
"""``user_id`` is the account that took the seat (a logged-in player), NULL for a guest
(indexed by migration 0015: a player's matches)."""

moves_table = Table(
    "basra_moves", metadata,
    Column("code", String(32), primary_key=True),
    Column("match_number", Integer, primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("move", BigInteger, nullable=False),
    Column("by_seat", Integer, nullable=True),
)
"""A move is ``card | captured << 6``: up to 58 bits, so the column is 64-bit.
``by_seat`` (migration 0008) is the human seat that made the move itself; NULL when the
computer chose it (for a computer seat or a player gone away)."""

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
    Column("bot_since", BigInteger, nullable=True),
    Index("ux_basra_users_name_key", "name_key", unique=True),
)
"""An account. ``name`` as its player wrote it; ``name_key`` what makes two names the
same (``basra.players.accounts.name_key``: case folded, look-alike letters as one), unique.
``bot_since`` (migration 0017): when the account was upgraded to a bot, for good (NULL: a
person's account)."""

sessions_table = Table(
    "basra_sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("basra_users.id", ondelete="CASCADE"),
           nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("expires_at", BigInteger, nullable=False),
    Column("last_used_at", BigInteger, nullable=True),
    Column("user_agent", String(200), nullable=True),
    Index("ix_basra_sessions_user", "user_id"),
    Index("ix_basra_sessions_expires", "expires_at"),
)
"""A log-in: the SHA-256 (hex) of the token in its cookie, never the token itself;
``last_used_at`` when a request last came with it (written at most once a minute; NULL
before migration 0009 until its next use), ``user_agent`` the browser that logged in
(its ``User-Agent``, cut to 200 characters), for the player's list of sessions."""

login_failures_table = Table(
    "basra_login_failures", metadata,
    Column("name_key", String(128), primary_key=True),
    Column("failures", Integer, nullable=False),
    Column("last_failed_at", BigInteger, nullable=False),
    Column("locked_until", BigInteger, nullable=False),
)
"""Wrong passwords for a name key from every address (whether or not an account has
it): how many since the count was last forgotten, which says whether the name is under
attack (``basra.players.accounts.LoginPace``). Since migration 0009 ``locked_until`` is
always 0: locks are per name and address (``basra_login_address_failures``)."""

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
    Column("status", String(12), nullable=False, server_default="public"),
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


ABANDON_KINDS = ("abort", "forfeit")
"""``basra_abandons.kind``: a rated match aborted because the account never made its first
play, or forfeited by leaving it after."""

abandons_table = Table(
    "basra_abandons", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("basra_users.id", ondelete="CASCADE"),
           nullable=False),
    Column("kind", String(16), nullable=False),
    Column("table_code", String(32), nullable=False),
    Column("match_number", Integer, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_basra_abandons_user", "user_id", "created_at"),
    Index("ux_basra_abandons_match", "table_code", "match_number", "user_id", unique=True),
)
"""A rated match an account abandoned (``kind`` from :data:`ABANDON_KINDS`): once per
account and match. The playban counts them (``basra.players.conduct``)."""


# -- account security (migration 0009) ---------------------------------------------------

login_address_failures_table = Table(
    "basra_login_address_failures", metadata,
    Column("name_key", String(128), primary_key=True),
    Column("address", String(64), primary_key=True),
    Column("failures", Integer, nullable=False),
    Column("last_failed_at", BigInteger, nullable=False),
    Column("locked_until", BigInteger, nullable=False),
    Index("ix_basra_login_address_failures_last", "last_failed_at"),
)
"""Wrong passwords in a row for a name key from one address (an IPv6 address as its
/64), and until when log-ins to the name from there are locked (Unix milliseconds)."""


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

MINED_PUZZLE_STATUSES = ("public", "pending", "rejected")
"""``basra_mined_puzzles.status``: in the public set, waiting for a moderator (mined from a
match that was not rated between players at the rating floor), or turned down."""

moderators_table = Table(
    "basra_moderators", metadata,
    Column("user_id", Integer, primary_key=True, autoincrement=False),
    Column("granted_by", String(64), nullable=False),
    Column("granted_at", BigInteger, nullable=False),
)
"""An account the operator made a moderator (``basra admin grant-moderator``)."""

REPORT_STATUSES = ("open", "dismissed", "actioned")

reports_table = Table(
    "basra_reports", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("reporter_id", Integer, nullable=False),
    Column("target_id", Integer, nullable=True),
    Column("target_key", String(200), nullable=False),
    Column("target_name", String(64), nullable=False),
    Column("table_code", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("record_id", BigInteger, nullable=True),
    Column("reason", String(16), nullable=False),
    Column("text", Text, nullable=False, server_default=""),
    Column("chat", Text, nullable=False, server_default="[]"),
    Column("status", String(16), nullable=False, server_default="open"),
    Column("created_at", BigInteger, nullable=False),
    Column("settled_at", BigInteger, nullable=True),
    Index("ix_basra_reports_status", "status", "id"),
    Index("ix_basra_reports_reporter", "reporter_id", "target_key"),
)
"""A player's report of another: the account reported (``target_id``; None for a guest's
seat), ``target_key`` (``user:ID``, or ``seat:CODE:SEAT:NAME`` for a guest), the table,
seat and record it came from, the reason, the reporter's words, and the table's chat lines
when it was made (JSON). ``reason`` is one of ``basra.players.moderation.REPORT_REASONS``."""

blocks_table = Table(
    "basra_blocks", metadata,
    Column("user_id", Integer, primary_key=True, autoincrement=False),
    Column("blocked_id", Integer, primary_key=True, autoincrement=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_basra_blocks_blocked", "blocked_id"),
)
"""An account (``user_id``) that blocked another: it never sees their chat, and the two
are never paired."""

SANCTION_KINDS = ("mute", "rated_ban", "closed")
"""``basra_sanctions.kind``: no chat, no rated play, no log-ins."""

sanctions_table = Table(
    "basra_sanctions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("until", BigInteger, nullable=True),
    Column("lifted_at", BigInteger, nullable=True),
    Column("created_by", String(64), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_basra_sanctions_user", "user_id", "kind"),
)
"""A sanction of an account: its ``kind``, why, until when (Unix milliseconds; None: for
good), when a moderator lifted it early, and who gave it."""

audit_table = Table(
    "basra_audit", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("moderator_id", Integer, nullable=True),
    Column("moderator", String(64), nullable=False),
    Column("action", String(24), nullable=False),
    Column("user_id", Integer, nullable=True),
    Column("target", String(64), nullable=False, server_default=""),
    Column("reason", Text, nullable=False),
    Column("details", Text, nullable=False, server_default="{}"),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_basra_audit_user", "user_id"),
)
"""Every moderator's action: who (an account, or ``operator`` at the command line), what,
to whom (the name at the time), why, and what more it changed (JSON)."""

# learning (migration 0012)

lessons_table = Table(
    "basra_lessons", metadata,
    Column("user_id", Integer, primary_key=True, autoincrement=False),
    Column("lesson", String(32), primary_key=True),
    Column("finished_at", BigInteger, nullable=False),
)
"""A lesson of ``/learn`` an account has finished (``basra.study.lessons``), and when
(Unix milliseconds)."""

# puzzle streaks (migration 0013)

puzzle_streaks_table = Table(
    "basra_puzzle_streaks", metadata,
    Column("user_id", Integer, primary_key=True, autoincrement=False),
    Column("streak", Integer, nullable=False),
    Column("best", Integer, nullable=False),
    Column("last_puzzle", String(24), nullable=False, server_default=""),
    Column("updated_at", BigInteger, nullable=False),
)
"""An account's Puzzle Streak: the puzzles solved in a row in the streak it is playing
(``streak``), its best streak ever, and the last puzzle it counted (a puzzle answered
again does not count twice)."""

# tournaments (migration 0014)

TOURNAMENT_STATUSES = ("created", "started", "finished")
"""``basra_tournaments.status``: announced and open to join, being played, over."""
ENTRANT_STATUSES = ("active", "paused", "withdrawn", "invited")
"""``basra_tournament_entrants.status``: paired when free, not paired until it comes back,
gone for good (its results stay), a team waiting for its second member."""

tournaments_table = Table(
    "basra_tournaments", metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("variant", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("rated", Integer, nullable=False),
    Column("turn_seconds", Integer, nullable=False),
    Column("minutes", Integer, nullable=True),
    Column("rounds", Integer, nullable=True),
    Column("round", Integer, nullable=False, server_default="0"),
    Column("starts_at", BigInteger, nullable=False),
    Column("ends_at", BigInteger, nullable=True),
    Column("status", String(12), nullable=False),
    Column("created_by", Integer, nullable=True),
    Column("schedule_key", String(160), nullable=True, unique=True),
    Column("allow_bots", Integer, nullable=False, server_default="0"),
    Column("created_at", BigInteger, nullable=False),
    Column("finished_at", BigInteger, nullable=True),
    Column("winner", String(140), nullable=True),
    Index("ix_basra_tournaments_status", "status", "starts_at"),
    Index("ix_basra_tournaments_creator", "created_by", "created_at"),
)
"""One per tournament (``basra.server.directing``): an arena (``minutes`` long) or a Swiss
event (``rounds``, the current one in ``round``); ``created_by`` the account that made it,
NULL for the server's schedule, whose events carry a unique ``schedule_key`` (made once
however many servers read the schedule); ``winner`` the first entrant's name once it is
over (NULL when nobody played). Times in Unix milliseconds."""

tournament_entrants_table = Table(
    "basra_tournament_entrants", metadata,
    Column("tournament_id", String(16), primary_key=True),
    Column("key", String(64), primary_key=True),
    Column("name", String(140), nullable=False),
    Column("level", String(16), nullable=True),
    Column("members", Text, nullable=False),
    Column("invited", Integer, nullable=True),
    Column("rating", Integer, nullable=False),
    Column("status", String(12), nullable=False),
    Column("joined_at", BigInteger, nullable=False),
)
"""One per entrant: an account (``user:ID``), a team of two accounts (``team:ID-ID``), or
a computer (``computer:N``, its ``level``). ``members`` is the JSON list of the accounts
that play it (empty for a computer); ``invited`` the account a one-member team waits for."""

tournament_games_table = Table(
    "basra_tournament_games", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tournament_id", String(16), nullable=False),
    Column("round", Integer, nullable=False),
    Column("entrants", Text, nullable=False),
    Column("table_code", String(32), nullable=True, unique=True),
    Column("seats", Text, nullable=True),
    Column("ranks", Text, nullable=True),
    Column("record_id", Integer, nullable=True),
    Column("created_at", BigInteger, nullable=False),
    Column("finished_at", BigInteger, nullable=True),
    Index("ix_basra_tournament_games_t", "tournament_id", "round"),
)
"""One per game of a tournament, and one per Swiss bye (one entrant, no table). The
pairing is stored first (``table_code`` NULL), then its table is made; ``entrants`` the
JSON keys, one per side; ``seats`` the JSON ``{user_id: [seat, token]}`` each account's
seat until the game ends; ``ranks`` the JSON places of the sides (0 first) once the
result is counted (set once: a result never counts twice)."""

# API tokens (migration 0015)

TOKEN_SCOPES = ("read", "play", "bot")
"""What a personal access token may do: read an account's data, play its games, be a bot."""

api_tokens_table = Table(
    "basra_api_tokens", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, nullable=False, index=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("description", String(120), nullable=False),
    Column("scopes", String(64), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("last_used_at", BigInteger, nullable=True),
    Column("revoked_at", BigInteger, nullable=True),
)
"""One per personal access token: the SHA-256 of the token (shown once, never stored),
its scopes (space-separated, of :data:`TOKEN_SCOPES`), and when it was revoked."""

# follows, challenges, notifications (migration 0016)

CHALLENGE_STATUSES = ("pending", "accepted", "declined", "cancelled", "expired")

follows_table = Table(
    "basra_follows", metadata,
    Column("user_id", Integer, primary_key=True, autoincrement=False),
    Column("followed_id", Integer, primary_key=True, autoincrement=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_basra_follows_followed", "followed_id"),
)
"""One per account an account follows."""

challenges_table = Table(
    "basra_challenges", metadata,
    Column("id", String(16), primary_key=True),
    Column("from_user", Integer, nullable=False),
    Column("to_user", Integer, nullable=True),
    Column("invited", Text, nullable=False, server_default="[]"),
    Column("variant", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("rated", Integer, nullable=False),
    Column("turn_seconds", Integer, nullable=False),
    Column("status", String(12), nullable=False),
    Column("reason", String(32), nullable=True),
    Column("table_code", String(32), nullable=True),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Index("ix_basra_challenges_to", "to_user", "status"),
    Index("ix_basra_challenges_from", "from_user", "status"),
)
"""One per challenge: from an account to another (``to_user``; NULL for an open link
anyone may accept), ``invited`` the JSON ids of further players asked (3 and 4 players),
its game, status, a decline's ``reason``, and the table it made once accepted."""

notifications_table = Table(
    "basra_notifications", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, nullable=False),
    Column("kind", String(24), nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("read_at", BigInteger, nullable=True),
    Index("ix_basra_notifications_user", "user_id", "id"),
)
"""One per notification of an account (a challenge, a followed player's tournament, a
moderator's message): its kind, its JSON payload, and when it was read."""
