"""Accounts' notifications (``basra_notifications``, made by migration 0016): challenges,
accepted challenges, a followed player's tournament, moderators' messages. Each is stored
first, then delivered to the account's open pages (:mod:`basra.server.notifying`), and
kept in its inbox until read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from .schema import notifications_table
from .writer import Writer

__all__ = ["Notifications"]


def _notification(row: Any) -> dict[str, Any]:
    return {"id": row.id, "kind": row.kind, "payload": json.loads(row.payload),
            "created_at": row.created_at, "read": row.read_at is not None}


class Notifications:
    """Accounts' notifications (``store.notifications``)."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def add(self, user_id: int, kind: str, payload: dict[str, Any], now: int) -> int:
        """Store a notification; its id."""
        values = {"user_id": user_id, "kind": kind, "payload": json.dumps(payload),
                  "created_at": now}

        def write(conn: Connection) -> int:
            key = conn.execute(insert(notifications_table).values(**values)
                               ).inserted_primary_key
            assert key is not None
            return int(key[0])

        made: int = await self._writer.commit(write)
        return made

    async def last_id(self) -> int:
        """The newest notification's id (0 when there is none)."""
        async with self._writer.engine.connect() as conn:
            found = (await conn.execute(select(func.max(notifications_table.c.id)))).scalar()
        return int(found or 0)

    async def after(self, user_ids: Iterable[int], after_id: int
                    ) -> list[tuple[int, dict[str, Any]]]:
        """The notifications of ``user_ids`` newer than ``after_id``, oldest first:
        (account, notification)."""
        wanted = list(user_ids)
        if not wanted:
            return []
        table = notifications_table
        query = (select(table).where(table.c.id > after_id, table.c.user_id.in_(wanted))
                 .order_by(table.c.id).limit(1000))
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [(row.user_id, _notification(row)) for row in rows]

    async def inbox(self, user_id: int, limit: int = 50) -> list[dict[str, Any]]:
        """An account's latest notifications, newest first."""
        table = notifications_table
        query = (select(table).where(table.c.user_id == user_id)
                 .order_by(table.c.id.desc()).limit(limit))
        async with self._writer.engine.connect() as conn:
            return [_notification(row) for row in (await conn.execute(query)).all()]

    async def unread(self, user_id: int) -> int:
        """How many of an account's notifications are unread."""
        table = notifications_table
        query = select(func.count()).select_from(table).where(
            table.c.user_id == user_id, table.c.read_at.is_(None))
        async with self._writer.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def mark_read(self, user_id: int, ids: Iterable[int] | None, now: int) -> int:
        """Mark an account's notifications read (``ids``, or all); how many were."""
        table = notifications_table
        chosen = None if ids is None else list(ids)

        def write(conn: Connection) -> int:
            query = update(table).where(table.c.user_id == user_id, table.c.read_at.is_(None))
            if chosen is not None:
                query = query.where(table.c.id.in_(chosen))
            return int(conn.execute(query.values(read_at=now)).rowcount)

        marked: int = await self._writer.commit(write)
        return marked
