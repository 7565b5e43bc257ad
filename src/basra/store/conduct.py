"""Conduct in rated play, stored (``store.conduct``): the abandons the playban counts, a
table's current match's conduct (forfeits, why it is unrated), and how many rated
results two accounts had together lately (the same-pair limit).

The rules are :mod:`basra.players.conduct`; the tables are in ``schema.py`` (migration
0008). Who made each move is kept with the move (``basra_moves.by_seat``,
:meth:`basra.store.tables.Tables.add_move`).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, and_, func, insert, select, update
from sqlalchemy.orm import aliased

from .schema import (
    ABANDON_KINDS,
    abandons_table,
    flags_table,
    rating_history_table,
    tables_table,
)
from .writer import Writer, insert_new, now_ms, statements

__all__ = ["Conduct"]


class Conduct:
    """Abandons, tables' conduct and same-pair counts: written through the store's
    writer, read through its engine."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def record_abandon(self, user_id: int, kind: str, code: str, match_number: int,
                             since_ms: int, flag_at: int = 0) -> tuple[bool, list[int]]:
        """An account abandoned a rated match (once per account and match: a second call
        for the same match adds nothing). Returns whether it was added, and the times
        (Unix milliseconds, oldest first) of the account's abandons since ``since_ms``.

        When this one makes ``flag_at`` abandons since ``since_ms``, the account is
        flagged for moderators (``abandons``), in the same transaction."""
        if kind not in ABANDON_KINDS:
            raise ValueError(f"unknown abandon kind {kind!r}; expected one of "
                             f"{', '.join(ABANDON_KINDS)}")
        values = {"user_id": user_id, "kind": kind, "table_code": code,
                  "match_number": match_number, "created_at": now_ms()}

        def write(conn: Connection) -> tuple[bool, list[int]]:
            added = bool(conn.execute(insert_new(conn, abandons_table, [
                "table_code", "match_number", "user_id"]).values(**values)).rowcount)
            times = _times(conn, user_id, since_ms)
            if added and flag_at > 0 and len(times) == flag_at:
                details = {"abandons": len(times), "kind": kind,
                           "since": since_ms, "match": match_number}
                conn.execute(insert(flags_table).values(
                    kind="abandons", user_id=user_id, table_code=code,
                    details=json.dumps(details), status="open", created_at=now_ms()))
            return added, times

        found: tuple[bool, list[int]] = await self._writer.commit(write)
        return found

    async def abandons(self, user_id: int, since_ms: int) -> list[int]:
        """The times (Unix milliseconds, oldest first) of an account's abandons since
        ``since_ms``."""
        async with self._writer.engine.connect() as conn:
            rows = await conn.execute(_times_query(user_id, since_ms))
            return [int(at) for at in rows.scalars()]

    async def save_table(self, code: str, conduct: dict[str, Any] | None,
                         epoch: int | None = None) -> None:
        """The conduct of a table's current match (JSON; None clears it). With ``epoch``
        (servers sharing a database), written only while the table's owner epoch is it."""
        text = None if conduct is None else json.dumps(conduct, sort_keys=True)
        await self._writer.commit(statements(
            [update(tables_table).where(tables_table.c.code == code).values(conduct=text)],
            code, epoch))

    async def pair_results(self, first: int, second: int, pool: str, since_ms: int,
                           before_record: int | None = None) -> int:
        """How many rated results the two accounts had at one table in ``pool`` since
        ``since_ms`` (only those of records before ``before_record``, when given)."""
        one = aliased(rating_history_table)
        other = aliased(rating_history_table)
        query = (select(func.count(func.distinct(one.c.record_id)))
                 .select_from(one.join(other, and_(one.c.record_id == other.c.record_id,
                                                   other.c.user_id == second)))
                 .where(one.c.user_id == first, one.c.pool == pool,
                        one.c.created_at >= since_ms))
        if before_record is not None:
            query = query.where(one.c.record_id < before_record)
        async with self._writer.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())


def _times_query(user_id: int, since_ms: int) -> Any:
    return (select(abandons_table.c.created_at)
            .where(abandons_table.c.user_id == user_id,
                   abandons_table.c.created_at >= since_ms)
            .order_by(abandons_table.c.created_at))


def _times(conn: Connection, user_id: int, since_ms: int) -> list[int]:
    return [int(at) for at in conn.execute(_times_query(user_id, since_ms)).scalars()]
