"""Personal access tokens (``basra_api_tokens``, made by migration 0015).

A token is shown to its owner once, when it is made; only its SHA-256 is stored, so a
stolen database holds no usable token. A revoked token stops working at once: every
request looks it up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, select, update

from .accounts import StoredUser, user_of_row
from .schema import api_tokens_table, users_table
from .writer import StorageError, Writer

__all__ = ["StoredToken", "Tokens"]

TOUCH_EVERY = 60_000
"""A token's last use is written at most this often (milliseconds)."""


@dataclass(frozen=True)
class StoredToken:
    """A token as its owner sees it listed (never the token itself)."""

    id: int
    description: str
    scopes: tuple[str, ...]
    created_at: int
    last_used_at: int | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "description": self.description, "scopes": list(self.scopes),
                "created_at": self.created_at, "last_used_at": self.last_used_at}


def _token(row: Any) -> StoredToken:
    return StoredToken(row.id, row.description, tuple(row.scopes.split()), row.created_at,
                       row.last_used_at)


class Tokens:
    """Personal access tokens (``store.tokens``)."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def create(self, user_id: int, token_hash: str, description: str,
                     scopes: Sequence[str], now: int) -> StoredToken:
        """Store a new token's hash; the token as listed."""
        values = {"user_id": user_id, "token_hash": token_hash, "description": description,
                  "scopes": " ".join(scopes), "created_at": now}

        def write(conn: Connection) -> int:
            key = conn.execute(insert(api_tokens_table).values(**values)).inserted_primary_key
            assert key is not None
            return int(key[0])

        token_id: int = await self._writer.commit(write)
        return StoredToken(token_id, description, tuple(scopes), now, None)

    async def of_account(self, user_id: int) -> list[StoredToken]:
        """An account's tokens not revoked, the newest first."""
        table = api_tokens_table
        query = (select(table).where(table.c.user_id == user_id, table.c.revoked_at.is_(None))
                 .order_by(table.c.id.desc()))
        async with self._writer.engine.connect() as conn:
            return [_token(row) for row in (await conn.execute(query)).all()]

    async def revoke(self, user_id: int, token_id: int, now: int) -> bool:
        """Revoke one of the account's tokens; whether it had one with this id."""
        table = api_tokens_table

        def write(conn: Connection) -> bool:
            return bool(conn.execute(update(table).where(
                table.c.id == token_id, table.c.user_id == user_id,
                table.c.revoked_at.is_(None)).values(revoked_at=now)).rowcount)

        revoked: bool = await self._writer.commit(write)
        return revoked

    async def find(self, token_hash: str, now: int
                   ) -> tuple[StoredUser, StoredToken] | None:
        """The account and the token with this hash, unless it is unknown or revoked
        (its last use written at most once a :data:`TOUCH_EVERY`)."""
        table = api_tokens_table
        query = (select(users_table, table.c.id.label("token_id"), table.c.description,
                        table.c.scopes, table.c.created_at.label("token_created_at"),
                        table.c.last_used_at)
                 .join(table, table.c.user_id == users_table.c.id)
                 .where(table.c.token_hash == token_hash, table.c.revoked_at.is_(None)))
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        token = StoredToken(row.token_id, row.description, tuple(row.scopes.split()),
                            row.token_created_at, row.last_used_at)
        if (token.last_used_at is None or now - token.last_used_at >= TOUCH_EVERY) \
                and self._writer.health.ok:

            def touch(conn: Connection) -> None:
                conn.execute(update(table).where(table.c.id == token.id).values(
                    last_used_at=now))

            with contextlib.suppress(StorageError):  # a courtesy: the request goes on
                await self._writer.commit(touch)
        return user_of_row(row), token
