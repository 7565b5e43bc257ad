"""Challenges (``basra_challenges``, made by migration 0016): one account asks another
(or anyone, through an open link) to play a game of its choosing. A challenge is pending
until it is accepted (its table made), declined (with a reason), cancelled by its sender,
or it expires; each change happens once (:meth:`Challenges.close` changes a pending one
only).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, or_, select, update

from .schema import challenges_table
from .writer import Writer

__all__ = ["Challenges", "StoredChallenge"]


@dataclass(frozen=True)
class StoredChallenge:
    """A challenge as stored (times in Unix milliseconds)."""

    id: str
    from_user: int
    to_user: int | None
    """None: an open challenge, for anyone with the link."""
    invited: tuple[int, ...]
    """Further accounts asked to the table (3 and 4 players)."""
    variant: str
    players: int
    rated: bool
    turn_seconds: int
    status: str
    reason: str | None
    table_code: str | None
    created_at: int
    updated_at: int


def _challenge(row: Any) -> StoredChallenge:
    return StoredChallenge(row.id, row.from_user, row.to_user,
                           tuple(int(i) for i in json.loads(row.invited)), row.variant,
                           row.players, bool(row.rated), row.turn_seconds, row.status,
                           row.reason, row.table_code, row.created_at, row.updated_at)


class Challenges:
    """Challenges (``store.challenges``)."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def create(self, challenge: StoredChallenge) -> None:
        values = {**{name: getattr(challenge, name)
                     for name in StoredChallenge.__dataclass_fields__},
                  "invited": json.dumps(list(challenge.invited)),
                  "rated": int(challenge.rated)}

        def write(conn: Connection) -> None:
            conn.execute(insert(challenges_table).values(**values))

        await self._writer.commit(write)

    async def get(self, challenge_id: str) -> StoredChallenge | None:
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(select(challenges_table).where(
                challenges_table.c.id == challenge_id[:16]))).first()
        return None if row is None else _challenge(row)

    async def pending(self, user_id: int, since: int) -> list[StoredChallenge]:
        """The account's pending challenges, to it and from it, made since ``since``
        (older ones have expired), the newest first."""
        table = challenges_table
        query = (select(table).where(
            table.c.status == "pending", table.c.created_at >= since,
            or_(table.c.to_user == user_id, table.c.from_user == user_id))
            .order_by(table.c.created_at.desc()))
        async with self._writer.engine.connect() as conn:
            return [_challenge(row) for row in (await conn.execute(query)).all()]

    async def count_pending_from(self, user_id: int, since: int) -> int:
        return sum(1 for c in await self.pending(user_id, since) if c.from_user == user_id)

    async def close(self, challenge_id: str, status: str, now: int, reason: str | None = None,
                    table_code: str | None = None, after: int = 0) -> bool:
        """Close a pending challenge made at ``after`` or later (``accepted``, with its
        table; ``declined`` with a reason; ``cancelled``; ``expired``); whether this call
        closed it."""
        table = challenges_table

        def write(conn: Connection) -> bool:
            return bool(conn.execute(update(table).where(
                table.c.id == challenge_id, table.c.status == "pending",
                table.c.created_at >= after).values(
                status=status, reason=reason, table_code=table_code, updated_at=now)
            ).rowcount)

        closed: bool = await self._writer.commit(write)
        return closed
