"""Finished matches, stored as ``basra-record/1`` documents (once per table and match)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Connection, func, insert, select, update

from .ratings import RatedMatch, count_result
from .schema import rated_results_table, records_table, seats_table, tables_table
from .writer import Writer, now_ms

__all__ = ["PAGE", "RecordQuery", "Records", "StoredRecord"]

PAGE = 50
"""Records read at a time by :meth:`Records.stream` (a record is some kilobytes)."""


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

    def line(self) -> bytes:
        """The document as one line of ndjson (its JSON without spaces, and a newline).

        >>> StoredRecord(1, "abc", 1, "egyptian", [], [], 0, 0,
        ...              '{"format": "basra-record/1",\\n "variant": "egyptian"}').line()
        b'{"format":"basra-record/1","variant":"egyptian"}\\n'
        """
        document = json.loads(self.record)
        return json.dumps(document, ensure_ascii=False,
                          separators=(",", ":")).encode("utf-8") + b"\n"


@dataclass(frozen=True)
class RecordQuery:
    """Which finished matches :meth:`Records.stream` and :meth:`Records.count` read: those
    of an account (the tables it sat at), of a variant (a preset's name), rated or not (a
    rated match is one whose result the ratings count), finished between ``since`` and
    ``until`` (Unix milliseconds, both included); None leaves a condition out."""

    account: int | None = None
    variant: str | None = None
    rated: bool | None = None
    since: int | None = None
    until: int | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        records = records_table
        found: list[ColumnElement[bool]] = []
        if self.account is not None:
            found.append(records.c.code.in_(select(seats_table.c.code).where(
                seats_table.c.user_id == self.account)))
        if self.variant is not None:
            found.append(records.c.variant == self.variant)
        if self.rated is not None:
            counted = select(rated_results_table.c.record_id).where(
                rated_results_table.c.record_id == records.c.id).exists()
            found.append(counted if self.rated else ~counted)
        if self.since is not None:
            found.append(records.c.finished_at >= self.since)
        if self.until is not None:
            found.append(records.c.finished_at <= self.until)
        return found


def _stored(row: Any) -> StoredRecord:
    return StoredRecord(
        id=row.id, code=row.code, match_number=row.match_number, variant=row.variant,
        players=json.loads(row.players), totals=json.loads(row.totals), winner=row.winner,
        finished_at=row.finished_at, record=row.record,
        computer_seats=json.loads(row.computer_seats) if row.computer_seats else [],
    )


class Records:
    """Finished matches (``store.records``): written through the store's writer."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def save(self, code: str, match_number: int, record: dict[str, Any], text: str,
                   computer_seats: Iterable[int] = (), rated: RatedMatch | None = None
                   ) -> int:
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
            finished_at=now_ms(), record=text,
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
                .values(status="finished", updated_at=now_ms()))
            if rated is not None:
                count_result(conn, int(existing), rated)
            return int(existing)

        found: int = await self._writer.commit(write)
        return found

    async def latest(self, limit: int = 20, code: str | None = None) -> list[StoredRecord]:
        """The latest finished matches (of the table ``code``), newest first."""
        query = select(records_table).order_by(records_table.c.id.desc()).limit(limit)
        if code is not None:
            query = query.where(records_table.c.code == code)
        async with self._writer.engine.connect() as conn:
            return [_stored(row) for row in (await conn.execute(query)).all()]

    async def get(self, record_id: int) -> StoredRecord | None:
        """One finished match, or None."""
        if not 0 < record_id < 1 << 63:
            return None
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(
                select(records_table).where(records_table.c.id == record_id))).first()
        return None if row is None else _stored(row)

    async def of_account(self, user_id: int, limit: int = 50
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
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [(_stored(row), row.account_seat,
                 json.loads(row.table_config) if row.table_config else {}) for row in rows]

    async def stream(self, query: RecordQuery, *, newest_first: bool = True,
                     limit: int | None = None, page: int = PAGE
                     ) -> AsyncIterator[StoredRecord]:
        """The finished matches ``query`` asks for, newest first (or oldest first), at
        most ``limit``: read ``page`` at a time, each page on a connection of its own, so
        neither memory nor a connection is held however many there are or however slowly
        they are taken. The order is the order of storing, which is the order of
        finishing."""
        ids = records_table.c.id
        conditions = query.conditions()
        last: int | None = None
        left = limit
        while left is None or left > 0:
            wanted = page if left is None else min(page, left)
            after = [] if last is None else [ids < last if newest_first else ids > last]
            statement = (select(records_table).where(*conditions, *after)
                         .order_by(ids.desc() if newest_first else ids).limit(wanted))
            async with self._writer.engine.connect() as conn:
                rows = (await conn.execute(statement)).all()
            for row in rows:
                yield _stored(row)
            if len(rows) < wanted:
                return
            last = rows[-1].id
            if left is not None:
                left -= len(rows)

    async def count(self, query: RecordQuery) -> int:
        """How many finished matches ``query`` asks for."""
        statement = select(func.count()).select_from(records_table).where(*query.conditions())
        async with self._writer.engine.connect() as conn:
            found: int = (await conn.execute(statement)).scalar_one()
        return found
