"""What the server flags for a moderator to look at (its table is in ``schema.py``, made
by migration 0008): rated results between the same two accounts past the day's limit,
pairings of two seeks from one address, accounts that keep abandoning rated matches,
puzzles mined from a match that may have been thrown.

A flag is raised by the server, never by a player (players *report*); a moderator
dismisses it or acts on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, select, update

from .schema import FLAG_KINDS, FLAG_STATUSES, flags_table
from .writer import Writer, now_ms

__all__ = ["Flag", "Flags"]


@dataclass(frozen=True)
class Flag:
    """One flag: its ``kind`` (:data:`~basra.store.schema.FLAG_KINDS`), the accounts it
    concerns, where it came from, and what more it says."""

    id: int
    kind: str
    user_id: int | None
    other_user_id: int | None
    record_id: int | None
    table_code: str | None
    details: dict[str, Any]
    status: str
    created_at: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "user_id": self.user_id,
                "other_user_id": self.other_user_id, "record_id": self.record_id,
                "table": self.table_code, "details": self.details,
                "status": self.status, "created_at": self.created_at}


def _flag(row: Any) -> Flag:
    return Flag(row.id, row.kind, row.user_id, row.other_user_id, row.record_id,
                row.table_code, dict(json.loads(row.details)), row.status, row.created_at)


class Flags:
    """Flags for moderators (``store.flags``): written through the store's writer."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def raise_flag(self, kind: str, user_id: int | None = None,
                         other_user_id: int | None = None, record_id: int | None = None,
                         table_code: str | None = None,
                         details: dict[str, Any] | None = None) -> None:
        """Flag something for a moderator. Raises ``ValueError`` for an unknown kind."""
        if kind not in FLAG_KINDS:
            raise ValueError(f"unknown flag kind {kind!r}; expected one of "
                             f"{', '.join(FLAG_KINDS)}")
        values = {"kind": kind, "user_id": user_id, "other_user_id": other_user_id,
                  "record_id": record_id, "table_code": table_code,
                  "details": json.dumps(details or {}), "status": "open",
                  "created_at": now_ms()}

        def write(conn: Connection) -> None:
            conn.execute(insert(flags_table).values(**values))

        await self._writer.commit(write)

    async def listed(self, status: str | None = "open", user_id: int | None = None,
                     limit: int = 200) -> list[Flag]:
        """Flags, newest first: those with ``status`` (all when None), of one account
        (as either party) when ``user_id`` is given."""
        query = select(flags_table).order_by(flags_table.c.id.desc()).limit(limit)
        if status is not None:
            query = query.where(flags_table.c.status == status)
        if user_id is not None:
            query = query.where((flags_table.c.user_id == user_id)
                                | (flags_table.c.other_user_id == user_id))
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_flag(row) for row in rows]

    async def settle(self, flag_id: int, status: str) -> bool:
        """Mark a flag ``dismissed`` or ``actioned``; False when there is no such flag."""
        if status not in FLAG_STATUSES or status == "open":
            raise ValueError(f"bad flag status {status!r}; expected dismissed or actioned")

        def write(conn: Connection) -> bool:
            done = conn.execute(update(flags_table).where(flags_table.c.id == flag_id)
                                .values(status=status))
            return bool(done.rowcount)

        return bool(await self._writer.commit(write))
