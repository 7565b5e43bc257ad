"""Tables, seats, moves and finished records in one SQL database (SQLAlchemy, async).

A table in progress is stored as its configuration, its deal seed and the list of moves
played: replaying the moves through the rules core rebuilds the exact state, so tables
survive a restart. Finished matches are stored as ``basra-record/1`` documents.

Writes of the play-by-play kind (a move, a join) go through a write-behind queue that
one task drains in batches, one transaction per batch, so a busy server does not wait on
the disk for each move; :meth:`Store.flush` waits for everything queued (the server
calls it on shutdown).

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
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    Column,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    delete,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

__all__ = ["SavedTable", "Store", "StoredRecord", "database_url", "default_database_url"]

log = logging.getLogger("basra.store")

metadata = MetaData()

tables_table = Table(
    "basra_tables", metadata,
    Column("code", String(32), primary_key=True),
    Column("config", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("match_number", Integer, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
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
    Column("move", Integer, nullable=False),
)

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
)


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

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id, "code": self.code, "match_number": self.match_number,
            "variant": self.variant, "players": self.players, "totals": self.totals,
            "winner": self.winner, "finished_at": self.finished_at,
        }


def _now_ms() -> int:
    return int(time.time() * 1000)


Operation = Callable[[AsyncConnection], Awaitable[Any]]

_MOVES_INSERT = insert(moves_table)
"""One statement for every move row: rows of a batch go to it in one executemany."""


class _MoveRow(NamedTuple):
    code: str
    match_number: int
    idx: int
    move: int


class _RecordWrite:
    """A finished match's record, written by the writer task; its id comes back."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self.future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.id: int | None = None

    async def __call__(self, conn: AsyncConnection) -> None:
        inserted = await conn.execute(self.statement)
        key = inserted.inserted_primary_key
        assert key is not None
        self.id = int(key[0])


Change = Operation | _MoveRow


async def _apply(conn: AsyncConnection, changes: list[Change]) -> None:
    """Run changes in order; runs of move rows go in one executemany."""
    rows: list[dict[str, Any]] = []
    for change in changes:
        if isinstance(change, _MoveRow):
            rows.append(change._asdict())
            continue
        if rows:
            await conn.execute(_MOVES_INSERT, rows)
            rows = []
        await change(conn)
    if rows:
        await conn.execute(_MOVES_INSERT, rows)


def _settle(changes: list[Change], error: BaseException | None = None) -> None:
    """Answer the records' waiters once their transaction is over."""
    for change in changes:
        if isinstance(change, _RecordWrite) and not change.future.done():
            if error is None and change.id is not None:
                change.future.set_result(change.id)
            else:
                change.future.set_exception(error or RuntimeError("record not written"))


class Store:
    """The database behind a server. Use ``await store.open()`` before anything else."""

    def __init__(self, url: str | None = None) -> None:
        self.url = database_url(url) if url else default_database_url()
        self._engine: AsyncEngine | None = None
        self._queue: asyncio.Queue[Change | asyncio.Event] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise RuntimeError("the store is not open")
        return self._engine

    async def open(self) -> None:
        """Connect, create the schema if needed and start the writer."""
        parsed = make_url(self.url)
        if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(self.url)
        if parsed.get_backend_name() == "sqlite":
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        async with engine.begin() as conn:
            await conn.run_sync(metadata.create_all)
        self._engine = engine
        self._writer = asyncio.create_task(self._write_loop(), name="basra-store-writer")

    async def close(self) -> None:
        """Write everything queued, then disconnect."""
        if self._engine is None:
            return
        await self.flush()
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        await self._engine.dispose()
        self._engine = None

    async def flush(self) -> None:
        """Wait until every queued write is in the database."""
        if self._writer is None:
            return
        done = asyncio.Event()
        self._queue.put_nowait(done)
        await done.wait()

    def _submit(self, operation: Change) -> None:
        self._queue.put_nowait(operation)

    async def _write_loop(self) -> None:
        while True:
            first = await self._queue.get()
            batch: list[Change | asyncio.Event] = [first]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            operations = [op for op in batch if not isinstance(op, asyncio.Event)]
            if operations:
                try:
                    async with self.engine.begin() as conn:
                        await _apply(conn, operations)
                except Exception:
                    # One bad change must not lose the others of its batch.
                    for operation in operations:
                        try:
                            async with self.engine.begin() as conn:
                                await _apply(conn, [operation])
                        except Exception as error:
                            log.exception("could not write a change to the database")
                            _settle([operation], error)
                        else:
                            _settle([operation])
                else:
                    _settle(operations)
            for item in batch:
                if isinstance(item, asyncio.Event):
                    item.set()

    # -- tables (queued writes) --------------------------------------------------------

    def create_table(self, code: str, config: dict[str, Any], seed: int) -> None:
        now = _now_ms()
        statement = insert(tables_table).values(
            code=code, config=json.dumps(config), seed=seed, match_number=1,
            created_at=now, updated_at=now,
        )
        self._submit(lambda conn: conn.execute(statement))

    def start_match(self, code: str, match_number: int, seed: int) -> None:
        """A rematch: the new match's number and seed; the old match's moves go."""
        statements = (
            update(tables_table).where(tables_table.c.code == code).values(
                seed=seed, match_number=match_number, updated_at=_now_ms()),
            delete(moves_table).where(moves_table.c.code == code),
        )

        async def run(conn: AsyncConnection) -> None:
            for statement in statements:
                await conn.execute(statement)

        self._submit(run)

    def save_seat(self, code: str, seat: int, name: str, token_hash: str) -> None:
        statement = insert(seats_table).values(
            code=code, seat=seat, name=name, token_hash=token_hash)
        self._submit(lambda conn: conn.execute(statement))

    def add_move(self, code: str, match_number: int, index: int, move: int) -> None:
        self._submit(_MoveRow(code, match_number, index, move))

    async def load_tables(self) -> list[SavedTable]:
        """Every stored table with its seats and the moves of its current match."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(tables_table))).all()
            saved = {
                row.code: SavedTable(row.code, json.loads(row.config), row.seed,
                                     row.match_number)
                for row in rows
            }
            for row in (await conn.execute(select(seats_table))).all():
                if row.code in saved:
                    saved[row.code].seats[row.seat] = (row.name, row.token_hash)
            moves = await conn.execute(
                select(moves_table).order_by(moves_table.c.code, moves_table.c.idx))
            for row in moves.all():
                table = saved.get(row.code)
                if table is not None and row.match_number == table.match_number:
                    table.moves.append(row.move)
        return list(saved.values())

    # -- records ---------------------------------------------------------------------

    async def save_record(self, code: str, match_number: int, record: dict[str, Any],
                          text: str) -> int:
        """Store a finished match's record; returns its id."""
        result = record["result"]
        statement = insert(records_table).values(
            code=code, match_number=match_number, variant=record["variant"],
            players=json.dumps([p["name"] for p in record["players"]]),
            totals=json.dumps(result["totals"]), winner=result["winner"],
            finished_at=_now_ms(), record=text,
        )
        if self._writer is None:  # not open: write it here
            async with self.engine.begin() as conn:
                inserted = await conn.execute(statement)
                key = inserted.inserted_primary_key
                assert key is not None
                return int(key[0])
        write = _RecordWrite(statement)
        self._submit(write)
        return await write.future

    async def list_records(self, limit: int = 20, code: str | None = None
                           ) -> list[StoredRecord]:
        """The latest finished matches, newest first."""
        query = select(records_table).order_by(records_table.c.id.desc()).limit(limit)
        if code is not None:
            query = query.where(records_table.c.code == code)
        async with self.engine.connect() as conn:
            return [_stored(row) for row in (await conn.execute(query)).all()]

    async def get_record(self, record_id: int) -> StoredRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(records_table).where(records_table.c.id == record_id))).first()
        return None if row is None else _stored(row)


def _stored(row: Any) -> StoredRecord:
    return StoredRecord(
        id=row.id, code=row.code, match_number=row.match_number, variant=row.variant,
        players=json.loads(row.players), totals=json.loads(row.totals), winner=row.winner,
        finished_at=row.finished_at, record=row.record,
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
