"""Tables, seats, moves and finished records in one SQL database (SQLAlchemy, async).

A table in progress is stored as its configuration, its deal seed and the list of moves
played: replaying the moves through the rules core rebuilds the exact state, so tables
survive a restart. Finished matches are stored as ``basra-record/1`` documents.

**Every write is awaited until it is committed.** Writes from every table go through one
queue that one task drains in batches, one transaction per batch (group commit): a busy
server commits many tables' moves at once, and each caller resumes only once its change
is in the database. The server confirms a move to anyone only after that.

When the database refuses a write for a reason that can pass (a full disk, a read-only
file, a lost connection), the batch is retried, with growing pauses, until it commits:
nothing queued is lost, and :attr:`Store.health` says that storage is failing meanwhile
(the server pauses its tables and tells their players). A change that can never succeed
(a bug) fails alone: its caller gets the error, the rest of its batch is committed.

>>> database_url("sqlite:///tmp/basra.db")
'sqlite+aiosqlite:///tmp/basra.db'
>>> database_url("postgresql://u:p@localhost/basra")
'postgresql+asyncpg://u:p@localhost/basra'
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import (
    Connection,
    Engine,
    create_engine,
    delete,
    event,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import (
    ArgumentError,
    DataError,
    IntegrityError,
    NotSupportedError,
    ProgrammingError,
)
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from basra.players.ratings import Rating, RatingUpdate, rate_match

from .schema import (
    login_failures_table,
    meta_table,
    moves_table,
    rated_results_table,
    rating_history_table,
    ratings_table,
    records_table,
    seats_table,
    sessions_table,
    tables_table,
    users_table,
)

__all__ = [
    "FencedError",
    "RatedMatch",
    "SavedTable",
    "SeatChange",
    "StorageError",
    "Store",
    "StoreHealth",
    "StoredRecord",
    "StoredUser",
    "database_url",
    "default_database_url",
]

log = logging.getLogger("basra.store")

RETRY_FIRST = 0.05
"""Seconds before the first retry of a failed batch; the pause doubles up to RETRY_MOST."""
RETRY_MOST = 2.0
PROBE_EVERY = 5.0
"""Seconds of quiet after which the writer probes the database with a tiny write, so that
:attr:`Store.health` is never older than this."""
BATCH_MOST = 2000
"""Most changes committed in one transaction."""
TOUCH_EVERY = 30.0
"""Seconds between two writes of a playing table's ``updated_at`` (when it was last
active, which decides whether a restarted server loads it at once)."""
CHECKPOINT_EVERY = 1.0
"""Seconds between two checkpoints of a SQLite write-ahead log that has grown."""


class StorageError(RuntimeError):
    """The database cannot be used: not reachable, read-only, or a write that can never
    succeed. The message names the database and the reason."""


class FencedError(StorageError):
    """A write for a table that another server has taken over since this one claimed it
    (the stored owner epoch is newer): nothing of it was written."""


class _Fenced(Exception):
    """Raised inside a transaction whose table's owner epoch moved on."""


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


@dataclass
class SavedTable:
    """A table as stored: enough to rebuild it exactly."""

    code: str
    config: dict[str, Any]
    seed: int
    match_number: int
    seats: dict[int, tuple[str, str]] = field(default_factory=dict)
    """Taken human seats: seat -> (name, token hash)."""
    moves: list[int] = field(default_factory=list)
    """The moves of the current match, in order."""
    status: str = "playing"
    opened: bool = False
    """Whether anyone has ever connected to the table."""
    accounts: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Seats taken by a logged-in player: seat -> (account id, account name)."""
    records: list[tuple[int, int]] = field(default_factory=list)
    """The table's stored records: (record id, match number), oldest first."""


@dataclass
class StoredRecord:
    """A finished match."""

    id: int
    code: str
    match_number: int
    variant: str
    players: list[str]
    totals: list[int]
    winner: int
    finished_at: int
    record: str
    """The ``basra-record/1`` document as JSON text."""
    computer_seats: list[int] = field(default_factory=list)
    """The human seats the computer was playing for when the match ended (their players
    had left or run out of time): the computer finished the match for them."""

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id, "code": self.code, "match_number": self.match_number,
            "variant": self.variant, "players": self.players, "totals": self.totals,
            "winner": self.winner, "finished_at": self.finished_at,
            "computer_seats": self.computer_seats,
        }


@dataclass(frozen=True)
class RatedMatch:
    """What it takes to rate a finished match: its pool, each seat's player key
    (``user:ID`` for an account, ``computer:LEVEL`` for a computer seat), each seat's side
    and each side's rank (:func:`basra.players.ratings.ranks_from_totals`)."""

    pool: str
    players: tuple[str, ...]
    side_of: tuple[int, ...]
    ranks: tuple[int, ...]

    def sides(self) -> list[list[str]]:
        """Player keys per side, as the pool seats them."""
        return [[p for p, side in zip(self.players, self.side_of, strict=True)
                 if side == s] for s in range(len(self.ranks))]


@dataclass(frozen=True)
class SeatChange:
    """How one seat's display rating moved in a rated match."""

    seat: int
    user_id: int
    before: int
    after: int

    def to_dict(self) -> dict[str, int]:
        return {"seat": self.seat, "before": self.before, "after": self.after}


def user_key(user_id: int) -> str:
    """An account's player key in rating computations."""
    return f"user:{user_id}"


@dataclass(frozen=True)
class StoredUser:
    """An account."""

    id: int
    name: str
    """As its player wrote it."""
    name_key: str
    """What makes two names the same (``basra.players.accounts.name_key``), unique."""
    password_hash: str
    created_at: int
    """Unix milliseconds."""


@dataclass
class StoreHealth:
    """Whether writes are committing, as the last attempt found."""

    ok: bool = True
    error: str | None = None
    """The database's reason for the failing writes, in one line."""
    failing_since: float | None = None
    """When writes started failing (Unix seconds)."""
    last_commit: float | None = None
    """When the last transaction committed (Unix seconds)."""
    queued: int = 0
    """Changes waiting for their commit."""

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "error": self.error, "failing_since": self.failing_since,
                "last_commit": self.last_commit, "queued": self.queued}


def _now_ms() -> int:
    return int(time.time() * 1000)


class _MoveRow(NamedTuple):
    code: str
    match_number: int
    idx: int
    move: int
    epoch: int | None = None
    """The writer's owner epoch of the table (servers sharing a database), or None."""


Work = Callable[[Connection], Any]
"""A change other than a move: statements run on a connection inside the batch's
transaction; what it returns goes back to its caller."""


class _Change:
    """One change to commit; its caller awaits ``future``."""

    def __init__(self, work: Work | _MoveRow | None) -> None:
        self.work = work
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.result: Any = None


_MOVES_INSERT = insert(moves_table)


def _apply(conn: Connection, changes: list[_Change], touch: Collection[str] = ()) -> None:
    """Run changes in order; runs of move rows go in one executemany. The tables named
    in ``touch`` get their ``updated_at`` set to now."""
    rows: list[dict[str, Any]] = []
    fenced: set[tuple[str, int]] = set()
    for change in changes:
        work = change.work
        if isinstance(work, _MoveRow):
            if work.epoch is not None:
                fenced.add((work.code, work.epoch))
            rows.append({"code": work.code, "match_number": work.match_number,
                         "idx": work.idx, "move": work.move})
            continue
        if rows:
            conn.execute(_MOVES_INSERT, rows)
            rows = []
        if work is not None:
            change.result = work(conn)
    if rows:
        conn.execute(_MOVES_INSERT, rows)
    if fenced:  # one statement for every table whose moves are in the batch
        _fence_all(conn, fenced)
    fenced_codes = {code for code, _epoch in fenced}
    touch = [code for code in touch if code not in fenced_codes]
    if touch:  # (a fenced table's updated_at was set by its fence already)
        conn.execute(update(tables_table).where(tables_table.c.code.in_(touch))
                     .values(updated_at=_now_ms()))


def _fence(conn: Connection, code: str, epoch: int) -> None:
    """Go on only while the table's stored owner epoch is ``epoch`` (raises
    :class:`_Fenced`, which rolls the transaction back, when another server has claimed
    the table since)."""
    done = conn.execute(update(tables_table).where(tables_table.c.code == code,
                                                   tables_table.c.owner_epoch == epoch)
                        .values(updated_at=_now_ms()))
    if done.rowcount != 1:
        raise _Fenced(code)


def _fence_all(conn: Connection, fenced: Collection[tuple[str, int]]) -> None:
    """:func:`_fence` for many (table, epoch) pairs in one statement (still inside the
    transaction: a table claimed meanwhile rolls the whole batch back, and the batch is
    then written change by change)."""
    # By code alone (the primary key's index: a row-value IN list is not planned onto
    # it); a stored epoch that differs rolls the whole transaction back anyway.
    done = conn.execute(update(tables_table)
                        .where(tables_table.c.code.in_(sorted({c for c, _ in fenced})))
                        .values(updated_at=_now_ms())
                        .returning(tables_table.c.code, tables_table.c.owner_epoch))
    kept = {(str(row.code), int(row.owner_epoch)) for row in done}
    for code, epoch in sorted(fenced):
        if (code, epoch) not in kept:
            raise _Fenced(code)


def _lasting(error: BaseException) -> bool:
    """Whether a failed write would fail again however often it is tried (a bug, a
    conflict, a table taken over by another server), rather than fail because of the
    database's condition (disk full, read-only, connection lost), which can pass."""
    return isinstance(error, IntegrityError | DataError | ProgrammingError
                      | NotSupportedError | _Fenced)


def _reason(error: BaseException) -> str:
    """The database's own reason, in one line and without statement or parameters."""
    original = getattr(error, "orig", None)
    text = str(original if original is not None else error) or type(error).__name__
    return " ".join(text.split())[:300]


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
        self.health = StoreHealth()
        self._engine: AsyncEngine | None = None
        self._queue: asyncio.Queue[_Change] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._listeners: list[Callable[[StoreHealth], None]] = []
        self._sync_engine: Engine | None = None
        self._checkpointer: _Checkpointer | None = None
        self._touched: dict[str, float] = {}
        """When each table's ``updated_at`` was last written (monotonic seconds)."""

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise RuntimeError("the store is not open")
        return self._engine

    @property
    def sqlite(self) -> bool:
        return make_url(self.url).get_backend_name() == "sqlite"

    def on_health(self, listener: Callable[[StoreHealth], None]) -> None:
        """Call ``listener`` whenever writes start failing or work again."""
        self._listeners.append(listener)

    async def open(self) -> None:
        """Connect, bring the schema up to date, check that writes commit, and start the
        writer. Raises :class:`StorageError` naming the database and the reason."""
        parsed = make_url(self.url)
        where = shown_url(self.url)
        if self.sqlite and parsed.database not in (None, "", ":memory:"):
            folder = Path(parsed.database).expanduser().parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StorageError(f"cannot make the folder {folder} of the database: "
                                   f"{error.strerror or error}") from None
        engine = create_async_engine(self.url, hide_parameters=True)
        if self.sqlite:
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        if self.sqlite and parsed.database not in (None, "", ":memory:"):
            # SQLite writes are committed by a plain (synchronous) connection on the event
            # loop itself: in WAL mode with synchronous=NORMAL a commit only appends to
            # the log (no fsync), a fraction of a millisecond, where a hop to a thread
            # costs milliseconds on a busy loop. The fsyncs of checkpoints are left to a
            # thread of their own.
            self._sync_engine = create_engine(
                parsed.set(drivername="sqlite+pysqlite"), hide_parameters=True,
                poolclass=StaticPool, connect_args={"check_same_thread": False})
            event.listen(self._sync_engine, "connect", _sqlite_writer_pragmas)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(migrate)
            self._engine = engine
            await self._transaction([_Change(_probe)])
        except Exception as error:
            self._engine = None
            await engine.dispose()
            self._close_sync()
            raise StorageError(f"cannot write to the database {where}: {_reason(error)}"
                               ) from None
        if self._sync_engine is not None and parsed.database:
            self._checkpointer = _Checkpointer(parsed.database)
        self.health = StoreHealth(last_commit=time.time())
        self._writer = asyncio.create_task(self._write_loop(), name="basra-store-writer")

    async def close(self) -> None:
        """Write everything queued (unless writes are failing), then disconnect."""
        if self._engine is None:
            return
        if self.health.ok:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.flush(), timeout=10)
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        self._close_sync()
        for change in self._drain():
            if not change.future.done():
                change.future.set_exception(StorageError("the store closed before the "
                                                         "change was written"))
        await self._engine.dispose()
        self._engine = None

    async def flush(self) -> None:
        """Wait until every change queued so far is committed."""
        if self._writer is None:
            return
        await self._commit(None)

    # -- the writer ----------------------------------------------------------------------

    def _close_sync(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        if self._sync_engine is not None:
            self._sync_engine.dispose()
            self._sync_engine = None

    async def _transaction(self, batch: list[_Change]) -> None:
        """Run ``batch`` in one transaction and commit it."""
        now = time.monotonic()
        touch = {change.work.code for change in batch if isinstance(change.work, _MoveRow)
                 and now - self._touched.get(change.work.code, -TOUCH_EVERY) >= TOUCH_EVERY}
        if self._sync_engine is not None:
            with self._sync_engine.begin() as conn:
                _apply(conn, batch, touch)
            if self._checkpointer is not None:
                self._checkpointer.wrote()
        else:
            async with self.engine.begin() as conn:
                await conn.run_sync(_apply, batch, touch)
        for code in touch:
            self._touched[code] = now
        if len(self._touched) > 4 * BATCH_MOST:
            self._touched = {c: t for c, t in self._touched.items() if now - t < TOUCH_EVERY}

    async def _commit(self, work: Work | _MoveRow | None) -> Any:
        """Queue a change and wait until it is committed; returns what ``work`` returned.

        Raises :class:`StorageError` for a change that can never be written."""
        if self._writer is None:
            raise RuntimeError("the store is not open")
        change = _Change(work)
        self._queue.put_nowait(change)
        self.health.queued = self._queue.qsize()
        # A caller cancelled meanwhile does not stop the change: it is in the queue.
        return await change.future

    def _drain(self, limit: int = BATCH_MOST) -> list[_Change]:
        batch: list[_Change] = []
        while len(batch) < limit and not self._queue.empty():
            batch.append(self._queue.get_nowait())
        return batch

    async def _write_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            # Quiet for PROBE_EVERY seconds: check that writes still commit. (A timer, not
            # a timeout on get(): that would cost every change a turn of the loop.)
            probe = loop.call_later(PROBE_EVERY, self._probe_if_quiet)
            first = await self._queue.get()
            probe.cancel()
            batch = [first, *self._drain(BATCH_MOST - 1)]
            self.health.queued = self._queue.qsize()
            await self._write(batch)

    def _probe_if_quiet(self) -> None:
        if self._queue.empty():
            probe = _Change(_probe)
            probe.future.add_done_callback(lambda done: done.cancelled() or done.exception())
            self._queue.put_nowait(probe)

    async def _write(self, batch: list[_Change]) -> None:
        """Commit ``batch`` in one transaction, retrying while the database's condition
        keeps it from committing; a change that can never commit fails alone."""
        pause = RETRY_FIRST
        while True:
            try:
                await self._transaction(batch)
            except Exception as error:
                if not _lasting(error):
                    self._failing(error)
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, RETRY_MOST)
                    continue
                if len(batch) > 1:
                    for change in batch:  # find the change that cannot be written
                        await self._write([change])
                    return
                change = batch[0]
                if isinstance(error, _Fenced):
                    if not change.future.done():
                        change.future.set_exception(FencedError(
                            f"table {error.args[0]} was taken over by another server"))
                    return
                if await self._already_stored(change):
                    self._committed([change])
                    return
                log.error("a change could not be written to the database: %s",
                          _reason(error))
                if not change.future.done():
                    change.future.set_exception(StorageError(
                        f"the database refused a change: {_reason(error)}"))
                return
            self._committed(batch)
            return

    async def _already_stored(self, change: _Change) -> bool:
        """A move refused as a duplicate is committed already when the stored row is the
        same move (a commit whose answer was lost, then retried)."""
        row = change.work
        if not isinstance(row, _MoveRow):
            return False
        try:
            async with self.engine.connect() as conn:
                stored = (await conn.execute(select(moves_table.c.move).where(
                    moves_table.c.code == row.code,
                    moves_table.c.match_number == row.match_number,
                    moves_table.c.idx == row.idx))).scalar_one_or_none()
        except Exception:
            return False
        return stored == row.move

    def _committed(self, batch: list[_Change]) -> None:
        for change in batch:
            if not change.future.done():
                change.future.set_result(change.result)
        was_ok = self.health.ok
        self.health.ok = True
        self.health.error = None
        self.health.failing_since = None
        self.health.last_commit = time.time()
        if not was_ok:
            log.warning("database writes work again; every queued change is committed")
            self._tell()

    def _failing(self, error: BaseException) -> None:
        reason = _reason(error)
        if self.health.ok or self.health.error != reason:
            log.error("database writes are failing (%s); retrying until they commit",
                      reason)
        was_ok = self.health.ok
        self.health.ok = False
        self.health.error = reason
        if self.health.failing_since is None:
            self.health.failing_since = time.time()
        if was_ok:
            self._tell()

    def _tell(self) -> None:
        for listener in self._listeners:
            try:
                listener(self.health)
            except Exception:
                log.exception("a storage health listener failed")

    # -- tables --------------------------------------------------------------------------

    async def create_table(self, code: str, config: dict[str, Any], seed: int,
                           seats: Iterable[tuple[int, str, str]] = (),
                           status: str = "waiting",
                           accounts: Mapping[int, int] | None = None,
                           epoch: int = 0) -> None:
        """A new table and its first taken seats ``(seat, name, token hash)``;
        ``accounts`` maps the seats taken by logged-in players to their account ids;
        ``epoch`` is its creator's owner epoch (servers sharing the database)."""
        now = _now_ms()
        accounts = accounts or {}
        statements = [insert(tables_table).values(
            code=code, config=json.dumps(config), seed=seed, match_number=1,
            created_at=now, updated_at=now, status=status, owner_epoch=epoch)]
        statements += [insert(seats_table).values(code=code, seat=seat, name=name,
                                                   token_hash=hashed,
                                                   user_id=accounts.get(seat))
                       for seat, name, hashed in seats]
        await self._commit(_statements(statements))

    async def save_seat(self, code: str, seat: int, name: str, token_hash: str,
                        status: str | None = None, user_id: int | None = None,
                        epoch: int | None = None) -> None:
        """A taken seat (by the account ``user_id``, if any); ``status`` too when taking
        it changes the table's status.

        With ``epoch`` (servers sharing a database), this and :meth:`add_move` and
        :meth:`start_match` write only while the table's stored owner epoch is still
        ``epoch``, else raise :class:`FencedError` and write nothing."""
        statements: list[Any] = [insert(seats_table).values(
            code=code, seat=seat, name=name, token_hash=token_hash, user_id=user_id)]
        if status is not None:
            statements.append(_status(code, status))
        await self._commit(_statements(statements, code, epoch))

    async def add_move(self, code: str, match_number: int, index: int, move: int,
                       epoch: int | None = None) -> None:
        """The move number ``index`` (from 0) of a table's current match."""
        await self._commit(_MoveRow(code, match_number, index, move, epoch))

    async def claim_table(self, code: str) -> int | None:
        """Take a stored table over (servers sharing a database): raise its owner epoch
        by one and return the new epoch, or None when no table has this code. From now
        on, writes of an older epoch are refused (:class:`FencedError`)."""
        return (await self.claim_tables([code])).get(code)

    async def claim_tables(self, codes: list[str]) -> dict[str, int]:
        """:meth:`claim_table` for many tables in one statement: the new epoch of each
        code that names a table."""
        def claim(conn: Connection) -> dict[str, int]:
            rows = conn.execute(
                update(tables_table).where(tables_table.c.code.in_(codes))
                .values(owner_epoch=tables_table.c.owner_epoch + 1)
                .returning(tables_table.c.code, tables_table.c.owner_epoch))
            return {str(row.code): int(row.owner_epoch) for row in rows}

        result: dict[str, int] = await self._commit(claim) if codes else {}
        return result

    async def start_match(self, code: str, match_number: int, seed: int,
                          epoch: int | None = None) -> None:
        """A rematch: the new match's number and seed; the old match's moves go."""
        from sqlalchemy import delete

        await self._commit(_statements([
            update(tables_table).where(tables_table.c.code == code).values(
                seed=seed, match_number=match_number, updated_at=_now_ms(),
                status="playing"),
            delete(moves_table).where(moves_table.c.code == code),
        ], code, epoch))

    async def set_status(self, code: str, status: str) -> None:
        await self._commit(_statements([_status(code, status)]))

    async def mark_opened(self, code: str) -> None:
        """Someone connected to the table: it never expires as unopened."""
        await self._commit(_statements([
            update(tables_table).where(tables_table.c.code == code,
                                       tables_table.c.opened_at.is_(None))
            .values(opened_at=_now_ms())]))

    async def load_table(self, code: str) -> SavedTable | None:
        """One stored table with its seats and the moves of its current match."""
        found = await self._load([code])
        return found[0] if found else None

    async def load_codes(self, codes: list[str]) -> dict[str, SavedTable]:
        """:meth:`load_table` for many tables in a few statements: each code that names a
        stored table, with its table."""
        return {saved.code: saved for saved in await self._load(codes)}

    async def load_tables(self, *, since_ms: int | None = None,
                          limit: int | None = None,
                          statuses: tuple[str, ...] = ("waiting", "playing")
                          ) -> list[SavedTable]:
        """The stored tables that are waiting or playing (or of ``statuses``), most
        recently active first (only those active since ``since_ms``, at most ``limit``)."""
        query = (select(tables_table.c.code)
                 .where(tables_table.c.status.in_(statuses))
                 .order_by(tables_table.c.updated_at.desc()))
        if since_ms is not None:
            query = query.where(tables_table.c.updated_at >= since_ms)
        if limit is not None:
            query = query.limit(limit)
        async with self.engine.connect() as conn:
            codes = list((await conn.execute(query)).scalars())
        return await self._load(codes)

    async def _load(self, codes: list[str]) -> list[SavedTable]:
        saved: dict[str, SavedTable] = {}
        async with self.engine.connect() as conn:
            for start in range(0, len(codes), 500):
                chunk = codes[start:start + 500]
                rows = await conn.execute(
                    select(tables_table).where(tables_table.c.code.in_(chunk)))
                for row in rows.all():
                    saved[row.code] = SavedTable(
                        row.code, json.loads(row.config), row.seed, row.match_number,
                        status=row.status, opened=row.opened_at is not None)
                seats = await conn.execute(
                    select(seats_table, users_table.c.name.label("account"))
                    .select_from(seats_table.outerjoin(
                        users_table, users_table.c.id == seats_table.c.user_id))
                    .where(seats_table.c.code.in_(chunk)))
                for row in seats.all():
                    saved[row.code].seats[row.seat] = (row.name, row.token_hash)
                    if row.user_id is not None and row.account is not None:
                        saved[row.code].accounts[row.seat] = (row.user_id, row.account)
                moves = await conn.execute(
                    select(moves_table).where(moves_table.c.code.in_(chunk))
                    .order_by(moves_table.c.code, moves_table.c.match_number,
                              moves_table.c.idx))
                for row in moves.all():
                    table = saved[row.code]
                    if row.match_number == table.match_number:
                        table.moves.append(row.move)
                records = await conn.execute(
                    select(records_table.c.id, records_table.c.code,
                           records_table.c.match_number)
                    .where(records_table.c.code.in_(chunk)).order_by(records_table.c.id))
                for row in records.all():
                    if row.code in saved:
                        saved[row.code].records.append((int(row.id), int(row.match_number)))
        return [saved[code] for code in codes if code in saved]

    # -- records ---------------------------------------------------------------------

    async def save_record(self, code: str, match_number: int, record: dict[str, Any],
                          text: str, computer_seats: Iterable[int] = (),
                          rated: RatedMatch | None = None) -> int:
        """Store a finished match's record (once: saving the same match again keeps the
        first) and mark the table finished; returns the record's id. ``computer_seats``
        are the human seats the computer was playing for when the match ended.

        With ``rated``, the accounts' ratings are updated in the same transaction, once
        per record: a row keyed by the record's id says the result is counted, so saving
        again (a retry, a restarted server) counts nothing twice."""
        result = record["result"]
        values = dict(
            code=code, match_number=match_number, variant=record["variant"],
            players=json.dumps([p["name"] for p in record["players"]]),
            totals=json.dumps(result["totals"]), winner=result["winner"],
            finished_at=_now_ms(), record=text,
            computer_seats=json.dumps(sorted(set(computer_seats))),
        )

        def write(conn: Connection) -> int:
            existing = conn.execute(select(records_table.c.id).where(
                records_table.c.code == code,
                records_table.c.match_number == match_number)).scalar_one_or_none()
            if existing is None:
                inserted = conn.execute(insert(records_table).values(**values))
                key = inserted.inserted_primary_key
                assert key is not None
                existing = int(key[0])
            conn.execute(update(tables_table).where(
                tables_table.c.code == code, tables_table.c.match_number == match_number)
                .values(status="finished", updated_at=_now_ms()))
            if rated is not None:
                _rate(conn, int(existing), rated)
            return int(existing)

        found: int = await self._commit(write)
        return found

    async def list_records(self, limit: int = 20, code: str | None = None
                           ) -> list[StoredRecord]:
        """The latest finished matches, newest first."""
        query = select(records_table).order_by(records_table.c.id.desc()).limit(limit)
        if code is not None:
            query = query.where(records_table.c.code == code)
        async with self.engine.connect() as conn:
            return [_stored(row) for row in (await conn.execute(query)).all()]

    async def get_record(self, record_id: int) -> StoredRecord | None:
        if not 0 < record_id < 1 << 63:
            return None
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(records_table).where(records_table.c.id == record_id))).first()
        return None if row is None else _stored(row)

    # -- ratings ---------------------------------------------------------------------

    async def rating_changes(self, record_id: int) -> list[SeatChange]:
        """How each account's rating moved in a rated match, by seat (none for a match
        not rated, or not yet)."""
        history = rating_history_table
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(history).where(
                history.c.record_id == record_id).order_by(history.c.seat))).all()
        return [SeatChange(row.seat, row.user_id, row.before, row.after) for row in rows]

    async def is_rated(self, record_id: int) -> bool:
        """Whether the result of this record is counted in the ratings."""
        async with self.engine.connect() as conn:
            found = (await conn.execute(select(rated_results_table.c.record_id).where(
                rated_results_table.c.record_id == record_id))).first()
        return found is not None

    async def ratings(self, user_ids: Iterable[int], pool: str | None = None
                      ) -> dict[tuple[int, str], Rating]:
        """The stored ratings of these accounts ``(user id, pool) -> rating``, in one
        pool or in all of theirs (an account new to a pool has none)."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        query = select(ratings_table).where(ratings_table.c.user_id.in_(ids))
        if pool is not None:
            query = query.where(ratings_table.c.pool == pool)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return {(row.user_id, row.pool): Rating(row.mu, row.sigma, row.games) for row in rows}

    async def rating_history(self, user_id: int) -> list[tuple[str, int, int, int, int]]:
        """An account's rated matches, oldest first: (pool, record id, Unix
        milliseconds, display rating before, after)."""
        history = rating_history_table
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(history).where(
                history.c.user_id == user_id).order_by(history.c.id))).all()
        return [(row.pool, row.record_id, row.created_at, row.before, row.after)
                for row in rows]

    async def user_matches(self, user_id: int, limit: int = 50
                           ) -> list[tuple[StoredRecord, int, dict[str, Any]]]:
        """The finished matches an account sat at, newest first: (record, the account's
        seat, the table's configuration)."""
        query = (select(records_table, seats_table.c.seat.label("account_seat"),
                        tables_table.c.config.label("table_config"))
                 .select_from(records_table.join(
                     seats_table, seats_table.c.code == records_table.c.code).outerjoin(
                     tables_table, tables_table.c.code == records_table.c.code))
                 .where(seats_table.c.user_id == user_id)
                 .order_by(records_table.c.id.desc()).limit(limit))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [(_stored(row), row.account_seat,
                 json.loads(row.table_config) if row.table_config else {}) for row in rows]

    async def leaderboard(self, pool: str, limit: int) -> list[tuple[str, Rating]]:
        """The best rated accounts of a pool: (name, rating), highest first."""
        query = (select(users_table.c.name, ratings_table)
                 .select_from(ratings_table.join(
                     users_table, users_table.c.id == ratings_table.c.user_id))
                 .where(ratings_table.c.pool == pool)
                 .order_by(ratings_table.c.display.desc(), ratings_table.c.games.desc(),
                           users_table.c.name_key)
                 .limit(limit))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [(row.name, Rating(row.mu, row.sigma, row.games)) for row in rows]

    async def rated_pools(self) -> list[str]:
        """The pools in which some account has a rating."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(ratings_table.c.pool).distinct())
            return sorted(rows.scalars())

    # -- accounts --------------------------------------------------------------------

    async def create_user(self, name: str, name_key: str, password_hash: str, *,
                          session_hash: str, expires_at: int, now: int,
                          replaces: str | None = None) -> StoredUser | None:
        """A new account, logged in by a first session; None when an account has the name
        key already. ``replaces`` is the hash of a session this one replaces (ended)."""

        def write(conn: Connection) -> StoredUser | None:
            found = conn.execute(select(users_table).where(
                users_table.c.name_key == name_key)).first()
            if found is not None:
                # Ours when the commit went through and only its answer was lost.
                ours = conn.execute(select(sessions_table.c.user_id).where(
                    sessions_table.c.token_hash == session_hash)).scalar_one_or_none()
                return _user(found) if ours == found.id else None
            added = conn.execute(_insert_new(conn, users_table, ["name_key"]).values(
                name=name, name_key=name_key, password_hash=password_hash, created_at=now))
            if added.rowcount == 0:  # another server process took it meanwhile
                return None
            key = added.inserted_primary_key
            assert key is not None
            user = StoredUser(int(key[0]), name, name_key, password_hash, now)
            _start_session(conn, user.id, session_hash, expires_at, now, replaces)
            return user

        created: StoredUser | None = await self._commit(write)
        return created

    async def find_user(self, name_key: str) -> StoredUser | None:
        """The account with this name key, if any."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(users_table).where(
                users_table.c.name_key == name_key))).first()
        return None if row is None else _user(row)

    async def session_user(self, session_hash: str, now: int) -> StoredUser | None:
        """The account logged in by the session with this token hash, unless the session
        is unknown or expired by ``now`` (Unix milliseconds)."""
        query = (select(users_table).join(sessions_table,
                                          sessions_table.c.user_id == users_table.c.id)
                 .where(sessions_table.c.token_hash == session_hash,
                        sessions_table.c.expires_at > now))
        async with self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _user(row)

    async def start_session(self, user_id: int, session_hash: str, *, expires_at: int,
                            now: int, name_key: str, password_hash: str | None = None,
                            replaces: str | None = None) -> None:
        """A log-in: a new session, the name's wrong passwords forgotten, and the password
        hash replaced by ``password_hash`` when given (new hashing parameters)."""

        def write(conn: Connection) -> None:
            _start_session(conn, user_id, session_hash, expires_at, now, replaces)
            conn.execute(delete(login_failures_table).where(
                login_failures_table.c.name_key == name_key))
            if password_hash is not None:
                conn.execute(update(users_table).where(users_table.c.id == user_id)
                             .values(password_hash=password_hash))

        await self._commit(write)

    async def end_session(self, session_hash: str) -> None:
        """Log out: the session is gone (nothing happens for an unknown one)."""
        await self._commit(_statements([
            delete(sessions_table).where(sessions_table.c.token_hash == session_hash)]))

    async def login_locked_until(self, name_key: str, now: int) -> int:
        """Until when log-ins to this name key are locked (Unix milliseconds), or 0 when
        they are not locked at ``now``."""
        async with self.engine.connect() as conn:
            until = (await conn.execute(select(login_failures_table.c.locked_until).where(
                login_failures_table.c.name_key == name_key))).scalar_one_or_none()
        return until if until is not None and until > now else 0

    async def add_login_failure(self, name_key: str, *, now: int, forget_before: int,
                                lock_ms: Callable[[int], int]) -> int:
        """One more wrong password for this name key; returns until when its log-ins are
        now locked (``now + lock_ms(failures in a row)``, 0 for no lock). Failures last
        made before ``forget_before`` are forgotten first (of every name)."""

        def write(conn: Connection) -> int:
            table = login_failures_table
            conn.execute(delete(table).where(table.c.last_failed_at < forget_before,
                                             table.c.locked_until <= now))
            failures = conn.execute(select(table.c.failures).where(
                table.c.name_key == name_key)).scalar_one_or_none()
            count = (failures or 0) + 1
            lock = lock_ms(count)
            until = now + lock if lock > 0 else 0
            values = {"failures": count, "last_failed_at": now, "locked_until": until}
            if failures is None:
                added = conn.execute(_insert_new(conn, table, ["name_key"]).values(
                    name_key=name_key, **values))
                if added.rowcount == 1:
                    return until
            conn.execute(update(table).where(table.c.name_key == name_key).values(**values))
            return until

        until: int = await self._commit(write)
        return until


def _insert_new(conn: Connection, table: Any, keys: list[str]) -> Any:
    """An INSERT that adds nothing (rowcount 0) where a row has the same ``keys``."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table).on_conflict_do_nothing(index_elements=keys)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table).on_conflict_do_nothing(index_elements=keys)


def _start_session(conn: Connection, user_id: int, session_hash: str, expires_at: int,
                   now: int, replaces: str | None) -> None:
    """Add a session; end the one it replaces and every expired one."""
    gone = sessions_table.c.expires_at <= now
    if replaces is not None:
        gone = gone | (sessions_table.c.token_hash == replaces)
    conn.execute(delete(sessions_table).where(gone))
    conn.execute(insert(sessions_table).values(
        token_hash=session_hash, user_id=user_id, created_at=now, expires_at=expires_at))


def _rate(conn: Connection, record_id: int, rated: RatedMatch) -> None:
    """Count a rated match's result, unless it is counted already (inside the
    transaction that stores its record)."""
    done = conn.execute(select(rated_results_table.c.record_id).where(
        rated_results_table.c.record_id == record_id)).first()
    if done is not None:
        return
    now = _now_ms()
    ids = [int(p.split(":", 1)[1]) for p in rated.players if p.startswith("user:")]
    stored: dict[str, Rating] = {}
    if ids:
        for row in conn.execute(select(ratings_table).where(
                ratings_table.c.user_id.in_(ids), ratings_table.c.pool == rated.pool)):
            stored[user_key(row.user_id)] = Rating(row.mu, row.sigma, row.games)
    try:
        updates: list[RatingUpdate] = rate_match(str(record_id), rated.pool, rated.sides(),
                                                 list(rated.ranks), stored)
    except ValueError as error:  # a bug: the record is kept, the result is not rated
        log.error("record %d could not be rated: %s", record_id, error)
        return
    conn.execute(insert(rated_results_table).values(record_id=record_id, pool=rated.pool,
                                                    rated_at=now))
    for update_row in updates:
        user_id = int(update_row.player.split(":", 1)[1])
        after = update_row.after
        values = {"mu": after.mu, "sigma": after.sigma, "games": after.games,
                  "display": after.display, "updated_at": now}
        if update_row.player in stored:
            conn.execute(update(ratings_table).where(
                ratings_table.c.user_id == user_id, ratings_table.c.pool == rated.pool)
                .values(**values))
        else:
            conn.execute(insert(ratings_table).values(user_id=user_id, pool=rated.pool,
                                                      **values))
        conn.execute(insert(rating_history_table).values(
            record_id=record_id, pool=rated.pool, user_id=user_id,
            seat=rated.players.index(update_row.player),
            before=update_row.before.display, after=after.display, created_at=now))


def _user(row: Any) -> StoredUser:
    return StoredUser(id=row.id, name=row.name, name_key=row.name_key,
                      password_hash=row.password_hash, created_at=row.created_at)


def _statements(statements: list[Any], code: str | None = None,
                epoch: int | None = None) -> Work:
    """Run ``statements``; with ``epoch``, only while ``code``'s owner epoch is it."""
    def run(conn: Connection) -> None:
        if code is not None and epoch is not None:
            _fence(conn, code, epoch)
        for statement in statements:
            conn.execute(statement)

    return run


def _status(code: str, status: str) -> Any:
    return update(tables_table).where(tables_table.c.code == code).values(
        status=status, updated_at=_now_ms())


def _probe(conn: Connection) -> None:
    """A tiny write that must commit: the store's heartbeat."""
    now = str(_now_ms())
    updated = conn.execute(
        update(meta_table).where(meta_table.c.key == "probe").values(value=now))
    if updated.rowcount == 0:
        conn.execute(insert(meta_table).values(key="probe", value=now))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def _sqlite_writer_pragmas(dbapi_connection: Any, record: Any) -> None:
    _sqlite_pragmas(dbapi_connection, record)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer thread does it
    # Busy (another process writing): fail at once and let the writer retry without
    # holding up the event loop.
    cursor.execute("PRAGMA busy_timeout=100")
    cursor.close()


class _Checkpointer:
    """Copies a SQLite write-ahead log into the database file, in a thread of its own,
    at most every CHECKPOINT_EVERY seconds while there are writes: checkpoints sync the
    files to disk, which must not hold up the event loop."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._wrote = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="basra-sqlite-checkpoint",
                                        daemon=True)
        self._thread.start()

    def wrote(self) -> None:
        self._wrote.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wrote.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        connection = sqlite3.connect(self._path, check_same_thread=False)
        try:
            connection.execute("PRAGMA busy_timeout=5000")
            while not self._stopping.is_set():
                self._wrote.wait()
                self._wrote.clear()
                if self._stopping.is_set():
                    break
                try:
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as error:  # a full disk: tried again after more writes
                    log.warning("could not checkpoint the database: %s", error)
                self._stopping.wait(CHECKPOINT_EVERY)
            with contextlib.suppress(sqlite3.Error):
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()


def _stored(row: Any) -> StoredRecord:
    return StoredRecord(
        id=row.id, code=row.code, match_number=row.match_number, variant=row.variant,
        players=json.loads(row.players), totals=json.loads(row.totals), winner=row.winner,
        finished_at=row.finished_at, record=row.record,
        computer_seats=json.loads(row.computer_seats) if row.computer_seats else [],
    )
