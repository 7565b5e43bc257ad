"""Tables in progress: configuration, deal seed, seats and the moves played.

Replaying a table's moves through the rules core rebuilds its exact state, so tables
survive a restart. Servers sharing a database take tables over by raising their owner
epoch (:meth:`Tables.claim`); a write made with an older epoch is refused
(:class:`~basra.store.writer.FencedError`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from .schema import moves_table, records_table, seats_table, tables_table, users_table
from .writer import MoveRow, Writer, now_ms, statements

__all__ = ["SavedTable", "Tables"]


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
    movers: list[int | None] = field(default_factory=list)
    """Who made each move of :attr:`moves`: the human seat that played it itself, or None
    (the computer)."""
    conduct: dict[str, Any] | None = None
    """The current match's conduct in rated play (``basra_tables.conduct``), if any."""


def _status(code: str, status: str) -> Any:
    return update(tables_table).where(tables_table.c.code == code).values(
        status=status, updated_at=now_ms())


class Tables:
    """Tables, seats and moves (``store.tables``): written through the store's writer."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def create(self, code: str, config: dict[str, Any], seed: int,
                     seats: Iterable[tuple[int, str, str]] = (), status: str = "waiting",
                     accounts: Mapping[int, int] | None = None, epoch: int = 0) -> None:
        """A new table and its first taken seats ``(seat, name, token hash)``;
        ``accounts`` maps the seats taken by logged-in players to their account ids;
        ``epoch`` is its creator's owner epoch (servers sharing the database)."""
        now = now_ms()
        accounts = accounts or {}
        queries = [insert(tables_table).values(
            code=code, config=json.dumps(config), seed=seed, match_number=1,
            created_at=now, updated_at=now, status=status, owner_epoch=epoch)]
        queries += [insert(seats_table).values(code=code, seat=seat, name=name,
                                                token_hash=hashed, user_id=accounts.get(seat))
                    for seat, name, hashed in seats]
        await self._writer.commit(statements(queries))

    async def save_seat(self, code: str, seat: int, name: str, token_hash: str,
                        status: str | None = None, user_id: int | None = None,
                        epoch: int | None = None) -> None:
        """A taken seat (by the account ``user_id``, if any); ``status`` too when taking
        it changes the table's status.

        With ``epoch`` (servers sharing a database), this and :meth:`add_move` and
        :meth:`start_match` write only while the table's stored owner epoch is still
        ``epoch``, else raise :class:`FencedError` and write nothing."""
        queries: list[Any] = [insert(seats_table).values(
            code=code, seat=seat, name=name, token_hash=token_hash, user_id=user_id)]
        if status is not None:
            queries.append(_status(code, status))
        await self._writer.commit(statements(queries, code, epoch))

    async def add_move(self, code: str, match_number: int, index: int, move: int,
                       epoch: int | None = None, by_seat: int | None = None) -> None:
        """The move number ``index`` (from 0) of a table's current match; ``by_seat`` is
        the human seat that made it itself (None: the computer chose it)."""
        await self._writer.commit(MoveRow(code, match_number, index, move, epoch, by_seat))

    async def claim(self, code: str) -> int | None:
        """Take a stored table over (servers sharing a database): raise its owner epoch
        by one and return the new epoch, or None when no table has this code. From now
        on, writes of an older epoch are refused (:class:`FencedError`)."""
        return (await self.claim_many([code])).get(code)

    async def claim_many(self, codes: list[str]) -> dict[str, int]:
        """:meth:`claim` for many tables in one statement: the new epoch of each code
        that names a table."""
        def claim(conn: Connection) -> dict[str, int]:
            rows = conn.execute(
                update(tables_table).where(tables_table.c.code.in_(codes))
                .values(owner_epoch=tables_table.c.owner_epoch + 1)
                .returning(tables_table.c.code, tables_table.c.owner_epoch))
            return {str(row.code): int(row.owner_epoch) for row in rows}

        result: dict[str, int] = await self._writer.commit(claim) if codes else {}
        return result

    async def start_match(self, code: str, match_number: int, seed: int,
                          epoch: int | None = None) -> None:
        """A rematch: the new match's number and seed; the old match's moves and
        conduct go."""
        await self._writer.commit(statements([
            update(tables_table).where(tables_table.c.code == code).values(
                seed=seed, match_number=match_number, updated_at=now_ms(),
                status="playing", conduct=None),
            delete(moves_table).where(moves_table.c.code == code),
        ], code, epoch))

    async def set_status(self, code: str, status: str) -> None:
        """The table's status (``waiting``, ``playing``, ``finished``, ``expired``)."""
        await self._writer.commit(statements([_status(code, status)]))

    async def playing_of(self, user_id: int) -> list[tuple[str, int]]:
        """The tables whose match an account is playing now: (code, its seat), oldest
        first."""
        query = (select(seats_table.c.code, seats_table.c.seat)
                 .select_from(seats_table.join(tables_table,
                                               tables_table.c.code == seats_table.c.code))
                 .where(seats_table.c.user_id == user_id, tables_table.c.status == "playing")
                 .order_by(tables_table.c.created_at))
        async with self._writer.engine.connect() as conn:
            return [(row.code, row.seat) for row in (await conn.execute(query)).all()]

    async def mark_opened(self, code: str) -> None:
        """Someone connected to the table: it never expires as unopened."""
        await self._writer.commit(statements([
            update(tables_table).where(tables_table.c.code == code,
                                       tables_table.c.opened_at.is_(None))
            .values(opened_at=now_ms())]))

    async def load(self, code: str) -> SavedTable | None:
        """One stored table with its seats and the moves of its current match."""
        found = await self._load([code])
        return found[0] if found else None

    async def load_many(self, codes: list[str]) -> dict[str, SavedTable]:
        """:meth:`load` for many tables in a few statements: each code that names a
        stored table, with its table."""
        return {saved.code: saved for saved in await self._load(codes)}

    async def load_recent(self, *, since_ms: int | None = None, limit: int | None = None,
                          statuses: tuple[str, ...] = ("waiting", "playing")
                          ) -> list[SavedTable]:
        """The stored tables that are waiting or playing (or of ``statuses``), most
        recently active first (only those active since ``since_ms``, at most ``limit``)."""
        return await self._load(await self.recent_codes(since_ms=since_ms, limit=limit,
                                                        statuses=statuses))

    async def recent_codes(self, *, since_ms: int | None = None, limit: int | None = None,
                           statuses: tuple[str, ...] = ("waiting", "playing")) -> list[str]:
        """The codes of the tables :meth:`load_recent` would load, without loading them."""
        query = (select(tables_table.c.code)
                 .where(tables_table.c.status.in_(statuses))
                 .order_by(tables_table.c.updated_at.desc()))
        if since_ms is not None:
            query = query.where(tables_table.c.updated_at >= since_ms)
        if limit is not None:
            query = query.limit(limit)
        async with self._writer.engine.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def _load(self, codes: list[str]) -> list[SavedTable]:
        saved: dict[str, SavedTable] = {}
        async with self._writer.engine.connect() as conn:
            for start in range(0, len(codes), 500):
                chunk = codes[start:start + 500]
                rows = await conn.execute(
                    select(tables_table).where(tables_table.c.code.in_(chunk)))
                for row in rows.all():
                    saved[row.code] = SavedTable(
                        row.code, json.loads(row.config), row.seed, row.match_number,
                        status=row.status, opened=row.opened_at is not None,
                        conduct=json.loads(row.conduct) if row.conduct else None)
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
                        table.movers.append(row.by_seat)
                records = await conn.execute(
                    select(records_table.c.id, records_table.c.code,
                           records_table.c.match_number)
                    .where(records_table.c.code.in_(chunk)).order_by(records_table.c.id))
                for row in records.all():
                    if row.code in saved:
                        saved[row.code].records.append((int(row.id), int(row.match_number)))
        return [saved[code] for code in codes if code in saved]
