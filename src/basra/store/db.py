"""The database behind a server (SQLAlchemy, async): SQLite by default, PostgreSQL by URL.

:class:`Store` opens and closes the database, brings its schema up to date, and holds the
one :class:`~basra.store.writer.Writer` that every change goes through, with one object
per capability, each in its own module:

======================= =================================================================
``store.tables``        tables in progress: configuration, seats, moves (:mod:`.tables`)
``store.records``       finished matches as ``basra-record/1`` documents (:mod:`.records`)
``store.ratings``       accounts' ratings, their history, the leaderboard (:mod:`.ratings`)
``store.accounts``      accounts, sessions and wrong passwords (:mod:`.accounts`)
``store.analysis``      analyses, mined puzzles and puzzle ratings (:mod:`.analysis`)
``store.flags``         what the server flags for moderators (:mod:`.flags`)
``store.moderation``    moderators, reports, blocks, sanctions, audit log (:mod:`.moderation`)
``store.conduct``       abandons, forfeits, same-pair counts in rated play (:mod:`.conduct`)
``store.logins``        wrong passwords per name and address, sessions (:mod:`.logins`)
``store.reveals``       puzzle solutions shown, to accounts and hashed addresses (:mod:`.reveals`)
``store.streaks``       accounts' Puzzle Streaks, current and best (:mod:`.streaks`)
``store.tournaments``   tournaments, their entrants and games (:mod:`.tournaments`)
``store.learning``      the lessons each account has finished (:mod:`.learning`)
``store.tokens``        personal access tokens, stored as hashes (:mod:`.tokens`)
``store.challenges``    challenges between accounts, and open ones (:mod:`.challenges`)
``store.notifications`` accounts' notifications and inboxes (:mod:`.notifications`)
``store.follows``       who follows whom, and where the followed are (:mod:`.follows`)
======================= =================================================================

>>> database_url("sqlite:///tmp/basra.db")
'sqlite+aiosqlite:///tmp/basra.db'
>>> database_url("postgresql://u:p@localhost/basra")
'postgresql+asyncpg://u:p@localhost/basra'
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from .accounts import Accounts
from .analysis import Analyses
from .challenges import Challenges
from .conduct import Conduct
from .flags import Flags
from .follows import Follows
from .learning import Learning
from .logins import Logins
from .moderation import Moderation
from .notifications import Notifications
from .ratings import Ratings
from .records import Records
from .reveals import Reveals
from .sqlite import reader_pragmas, writer_pragmas
from .streaks import Streaks
from .tables import Tables
from .tokens import Tokens
from .tournaments import Tournaments
from .writer import StorageError, StoreHealth, Writer, reason

__all__ = ["Store", "database_url", "default_database_url", "migrate", "shown_url"]


def default_database_url() -> str:
    """A SQLite file in the user's data directory."""
    from platformdirs import user_data_dir

    return f"sqlite+aiosqlite:///{Path(user_data_dir('basra')) / 'basra.db'}"


def database_url(url: str) -> str:
    """The URL with its async driver: ``sqlite`` → aiosqlite, ``postgresql`` → asyncpg.

    Raises ``ValueError`` naming the URL when it is not a SQLite or PostgreSQL URL.
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError(
            f"bad database URL {url!r}; expected sqlite:///PATH or "
            "postgresql+asyncpg://USER:PASSWORD@HOST/DB"
        ) from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return str(parsed.set(drivername="sqlite+aiosqlite"))
    if backend == "postgresql":
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    raise ValueError(
        f"unsupported database {backend!r} in {url!r}; expected sqlite or postgresql"
    )


def shown_url(url: str) -> str:
    """The URL with its password hidden, for messages and logs."""
    return make_url(url).render_as_string(hide_password=True)


def migrate(connection: Connection) -> None:
    """Bring the schema up to date (Alembic), marking a database made before migrations
    existed as at its first revision."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("basra.store") / "migrations"))
    config.attributes["connection"] = connection
    if connection.dialect.name == "postgresql":
        # Servers starting together on one database migrate one at a time.
        connection.execute(text("SELECT pg_advisory_xact_lock(6021723)"))
    found = inspect(connection)
    if found.has_table("basra_tables") and not found.has_table("alembic_version"):
        command.stamp(config, "0001")
    command.upgrade(config, "head")


class Store:
    """The database behind a server. Use ``await store.open()`` before anything else."""

    def __init__(self, url: str | None = None) -> None:
        self.url = database_url(url) if url else default_database_url()
        self.writer = Writer()
        self.tables = Tables(self.writer)
        self.records = Records(self.writer)
        self.ratings = Ratings(self.writer)
        self.accounts = Accounts(self.writer)
        self.analysis = Analyses(self.writer)
        self.flags = Flags(self.writer)
        self.moderation = Moderation(self.writer)
        self.conduct = Conduct(self.writer)
        self.logins = Logins(self.writer)
        self.reveals = Reveals(self.writer)
        self.streaks = Streaks(self.writer)
        self.learning = Learning(self.writer)
        self.tournaments = Tournaments(self.writer)
        self.tokens = Tokens(self.writer)
        self.challenges = Challenges(self.writer)
        self.notifications = Notifications(self.writer)
        self.follows = Follows(self.writer)

    @property
    def engine(self) -> AsyncEngine:
        """The connections to read through (raises ``RuntimeError`` before ``open``)."""
        return self.writer.engine

    @property
    def health(self) -> StoreHealth:
        """Whether writes are committing."""
        return self.writer.health

    @property
    def sqlite(self) -> bool:
        return make_url(self.url).get_backend_name() == "sqlite"

    def on_health(self, listener: Callable[[StoreHealth], None]) -> None:
        """Call ``listener`` whenever writes start failing or work again."""
        self.writer.on_health(listener)

    def on_commit(self, listener: Callable[[int, int, float], None]) -> None:
        """Call ``listener(changes, moves, seconds)`` after each transaction commits."""
        self.writer.on_commit(listener)

    async def open(self) -> None:
        """Connect, bring the schema up to date, check that writes commit, and start the
        writer. Raises :class:`StorageError` naming the database and the reason."""
        parsed = make_url(self.url)
        where = shown_url(self.url)
        on_file = self.sqlite and parsed.database not in (None, "", ":memory:")
        if on_file:
            folder = Path(str(parsed.database)).expanduser().parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StorageError(f"cannot make the folder {folder} of the database: "
                                   f"{error.strerror or error}") from None
        engine = create_async_engine(self.url, hide_parameters=True)
        if self.sqlite:
            event.listen(engine.sync_engine, "connect", reader_pragmas)
        sync_engine: Engine | None = None
        if on_file:
            # SQLite writes are committed by a plain (synchronous) connection on the event
            # loop itself: in WAL mode with synchronous=NORMAL a commit only appends to
            # the log (no fsync), a fraction of a millisecond, where a hop to a thread
            # costs milliseconds on a busy loop. The fsyncs of checkpoints are left to a
            # thread of their own.
            sync_engine = create_engine(
                parsed.set(drivername="sqlite+pysqlite"), hide_parameters=True,
                poolclass=StaticPool, connect_args={"check_same_thread": False})
            event.listen(sync_engine, "connect", writer_pragmas)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(migrate)
            await self.writer.start(engine, sync_engine, parsed.database if on_file else None)
        except Exception as error:
            await engine.dispose()
            if sync_engine is not None:
                sync_engine.dispose()
            raise StorageError(f"cannot write to the database {where}: {reason(error)}"
                               ) from None

    async def close(self) -> None:
        """Write everything queued (unless writes are failing), then disconnect."""
        await self.writer.stop()

    async def flush(self) -> None:
        """Wait until every change queued so far is committed."""
        await self.writer.flush()
