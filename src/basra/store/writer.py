"""The one writer: every change to the database goes through its queue and is awaited
until it is committed.

One task drains the queue in batches, one transaction per batch (group commit): a busy
server commits many tables' moves at once, and each caller resumes only once its change
is in the database. The server confirms a move to anyone only after that.

When the database refuses a write for a reason that can pass (a full disk, a read-only
file, a lost connection), the batch is retried, with growing pauses, until it commits:
nothing queued is lost, and :attr:`Writer.health` says that storage is failing meanwhile
(the server pauses its tables and tells their players). A change that can never succeed
(a bug) fails alone: its caller gets the error, the rest of its batch is committed. A
change fenced by a table's owner epoch (servers sharing a database) is written only while
that epoch is still the table's, else its caller gets :class:`FencedError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import DataError, IntegrityError, NotSupportedError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncEngine

from .schema import meta_table, moves_table, tables_table
from .sqlite import Checkpointer

__all__ = [
    "BATCH_MOST",
    "PROBE_EVERY",
    "RETRY_FIRST",
    "RETRY_MOST",
    "TOUCH_EVERY",
    "FencedError",
    "MoveRow",
    "StorageError",
    "StoreHealth",
    "Work",
    "Writer",
    "fence",
    "insert_new",
    "now_ms",
    "reason",
    "statements",
]

log = logging.getLogger("basra.store")

RETRY_FIRST = 0.05
"""Seconds before the first retry of a failed batch; the pause doubles up to RETRY_MOST."""
RETRY_MOST = 2.0
PROBE_EVERY = 5.0
"""Seconds of quiet after which the writer probes the database with a tiny write, so that
:attr:`Writer.health` is never older than this."""
BATCH_MOST = 2000
"""Most changes committed in one transaction."""
TOUCH_EVERY = 30.0
"""Seconds between two writes of a playing table's ``updated_at`` (when it was last
active, which decides whether a restarted server loads it at once)."""


class StorageError(RuntimeError):
    """The database cannot be used: not reachable, read-only, or a write that can never
    succeed. The message names the database and the reason."""


class FencedError(StorageError):
    """A write for a table that another server has taken over since this one claimed it
    (the stored owner epoch is newer): nothing of it was written."""


class _Fenced(Exception):
    """Raised inside a transaction whose table's owner epoch moved on."""


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


def now_ms() -> int:
    """Unix milliseconds, as the tables store times."""
    return int(time.time() * 1000)


class MoveRow(NamedTuple):
    """One move of a table's current match: the writer's fast path (a batch's moves go
    in one statement)."""

    code: str
    match_number: int
    idx: int
    move: int
    epoch: int | None = None
    """The writer's owner epoch of the table (servers sharing a database), or None."""
    by_seat: int | None = None
    """The human seat that made the move itself; None when the computer chose it."""


Work = Callable[[Connection], Any]
"""A change other than a move: statements run on a connection inside the batch's
transaction; what it returns goes back to its caller."""


class _Change:
    """One change to commit; its caller awaits ``future``."""

    def __init__(self, work: Work | MoveRow | None) -> None:
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
        if isinstance(work, MoveRow):
            if work.epoch is not None:
                fenced.add((work.code, work.epoch))
            rows.append({"code": work.code, "match_number": work.match_number,
                         "idx": work.idx, "move": work.move, "by_seat": work.by_seat})
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
                     .values(updated_at=now_ms()))


def fence(conn: Connection, code: str, epoch: int) -> None:
    """Go on only while the table's stored owner epoch is ``epoch`` (else the change
    fails with :class:`FencedError` and its transaction is rolled back)."""
    done = conn.execute(update(tables_table).where(tables_table.c.code == code,
                                                   tables_table.c.owner_epoch == epoch)
                        .values(updated_at=now_ms()))
    if done.rowcount != 1:
        raise _Fenced(code)


def _fence_all(conn: Connection, fenced: Collection[tuple[str, int]]) -> None:
    """:func:`fence` for many (table, epoch) pairs in one statement (still inside the
    transaction: a table claimed meanwhile rolls the whole batch back, and the batch is
    then written change by change)."""
    # By code alone (the primary key's index: a row-value IN list is not planned onto
    # it); a stored epoch that differs rolls the whole transaction back anyway.
    done = conn.execute(update(tables_table)
                        .where(tables_table.c.code.in_(sorted({c for c, _ in fenced})))
                        .values(updated_at=now_ms())
                        .returning(tables_table.c.code, tables_table.c.owner_epoch))
    kept = {(str(row.code), int(row.owner_epoch)) for row in done}
    for code, epoch in sorted(fenced):
        if (code, epoch) not in kept:
            raise _Fenced(code)


def statements(queries: list[Any], code: str | None = None,
               epoch: int | None = None) -> Work:
    """Run ``queries``; with ``epoch``, only while ``code``'s owner epoch is it."""
    def run(conn: Connection) -> None:
        if code is not None and epoch is not None:
            fence(conn, code, epoch)
        for query in queries:
            conn.execute(query)

    return run


def insert_new(conn: Connection, table: Any, keys: list[str]) -> Any:
    """An INSERT that adds nothing (rowcount 0) where a row has the same ``keys``."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table).on_conflict_do_nothing(index_elements=keys)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table).on_conflict_do_nothing(index_elements=keys)


def _lasting(error: BaseException) -> bool:
    """Whether a failed write would fail again however often it is tried (a bug, a
    conflict, a table taken over by another server), rather than fail because of the
    database's condition (disk full, read-only, connection lost), which can pass."""
    return isinstance(error, IntegrityError | DataError | ProgrammingError
                      | NotSupportedError | _Fenced)


def reason(error: BaseException) -> str:
    """The database's own reason, in one line and without statement or parameters."""
    original = getattr(error, "orig", None)
    text = str(original if original is not None else error) or type(error).__name__
    return " ".join(text.split())[:300]


def _probe(conn: Connection) -> None:
    """A tiny write that must commit: the store's heartbeat."""
    now = str(now_ms())
    updated = conn.execute(
        update(meta_table).where(meta_table.c.key == "probe").values(value=now))
    if updated.rowcount == 0:  # a new database: another server may be adding it too
        conn.execute(insert_new(conn, meta_table, ["key"]).values(key="probe", value=now))


class Writer:
    """The queue of changes and the task that commits them, on a database's connections:
    ``engine`` (reads, and writes on PostgreSQL) and, for a SQLite file, ``sync_engine``
    (writes committed on the event loop itself) with a :class:`Checkpointer`."""

    def __init__(self) -> None:
        self.health = StoreHealth()
        self._engine: AsyncEngine | None = None
        self._sync_engine: Engine | None = None
        self._checkpointer: Checkpointer | None = None
        self._queue: asyncio.Queue[_Change] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._listeners: list[Callable[[StoreHealth], None]] = []
        self._commit_listeners: list[Callable[[int, int, float], None]] = []
        self._touched: dict[str, float] = {}
        """When each table's ``updated_at`` was last written (monotonic seconds)."""

    @property
    def engine(self) -> AsyncEngine:
        """The connections to read through."""
        if self._engine is None:
            raise RuntimeError("the store is not open")
        return self._engine

    @property
    def sync_engine(self) -> Engine | None:
        """The SQLite file's writing connection, if any."""
        return self._sync_engine

    def on_health(self, listener: Callable[[StoreHealth], None]) -> None:
        """Call ``listener`` whenever writes start failing or work again."""
        self._listeners.append(listener)

    def on_commit(self, listener: Callable[[int, int, float], None]) -> None:
        """Call ``listener(changes, moves, seconds)`` after each transaction of queued
        changes commits: how many changes, how many of them moves, and how long the
        transaction took (the server's metrics)."""
        self._commit_listeners.append(listener)

    @property
    def queued(self) -> int:
        """Changes waiting in the queue now."""
        return self._queue.qsize()

    async def start(self, engine: AsyncEngine, sync_engine: Engine | None = None,
                    sqlite_path: str | None = None) -> None:
        """Check that a write commits, then start committing the queue. On failure the
        error goes up and the connections are left to the caller."""
        self._engine, self._sync_engine = engine, sync_engine
        try:
            await self._transaction([_Change(_probe)])
        except Exception:
            self._engine, self._sync_engine = None, None
            raise
        if sync_engine is not None and sqlite_path:
            self._checkpointer = Checkpointer(sqlite_path)
        self.health = StoreHealth(last_commit=time.time())
        self._task = asyncio.create_task(self._write_loop(), name="basra-store-writer")

    async def stop(self) -> None:
        """Commit everything queued (unless writes are failing), then disconnect."""
        if self._engine is None:
            return
        if self.health.ok:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.flush(), timeout=10)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        if self._sync_engine is not None:
            self._sync_engine.dispose()
            self._sync_engine = None
        for change in self._drain():
            if not change.future.done():
                change.future.set_exception(StorageError("the store closed before the "
                                                         "change was written"))
        await self._engine.dispose()
        self._engine = None

    async def flush(self) -> None:
        """Wait until every change queued so far is committed."""
        if self._task is None:
            return
        await self.commit(None)

    async def commit(self, work: Work | MoveRow | None) -> Any:
        """Queue a change and wait until it is committed; returns what ``work`` returned.

        Raises :class:`StorageError` for a change that can never be written."""
        if self._task is None:
            raise RuntimeError("the store is not open")
        change = _Change(work)
        self._queue.put_nowait(change)
        self.health.queued = self._queue.qsize()
        # A caller cancelled meanwhile does not stop the change: it is in the queue.
        return await change.future

    async def _transaction(self, batch: list[_Change]) -> None:
        """Run ``batch`` in one transaction and commit it."""
        now = time.monotonic()
        touch = {change.work.code for change in batch if isinstance(change.work, MoveRow)
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
            began = time.perf_counter()
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
                          reason(error))
                if not change.future.done():
                    change.future.set_exception(StorageError(
                        f"the database refused a change: {reason(error)}"))
                return
            self._committed(batch)
            if self._commit_listeners:
                self._tell_commit(batch, time.perf_counter() - began)
            return

    def _tell_commit(self, batch: list[_Change], seconds: float) -> None:
        moves = sum(isinstance(change.work, MoveRow) for change in batch)
        for listener in self._commit_listeners:
            try:
                listener(len(batch), moves, seconds)
            except Exception:
                log.exception("a commit listener failed")

    async def _already_stored(self, change: _Change) -> bool:
        """A move refused as a duplicate is committed already when the stored row is the
        same move (a commit whose answer was lost, then retried)."""
        row = change.work
        if not isinstance(row, MoveRow):
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
        why = reason(error)
        if self.health.ok or self.health.error != why:
            log.error("database writes are failing (%s); retrying until they commit", why)
        was_ok = self.health.ok
        self.health.ok = False
        self.health.error = why
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
