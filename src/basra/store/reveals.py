"""Puzzle solutions shown, and to whom (its table is in ``schema.py``, made by migration
0010).

A puzzle's answer shows its solution. An account's puzzle rating counts an answer only
for a puzzle whose solution it has not been shown: not to the account itself (ever), and
not to anyone answering from the same client address within :data:`ADDRESS_DAY_MS` (a
guest's wrong answer, or another account's, would otherwise hand the solution to an
account that answers next). The address is never stored: only a keyed hash of it (HMAC
with a random key the store makes once and keeps in ``basra_meta``).

>>> Reveals.shown_to_account(7)
'user:7'
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from sqlalchemy import Connection, delete, or_, select, update

from .schema import meta_table, puzzle_reveals_table
from .writer import Writer, insert_new, now_ms

__all__ = ["ADDRESS_DAY_MS", "Reveals"]

ADDRESS_DAY_MS = 24 * 3600 * 1000
"""How long a solution shown to an address counts as shown to every account there."""

SALT_KEY = "puzzle_reveal_key"
"""The ``basra_meta`` key of the address hashes' key."""


class Reveals:
    """Puzzle solutions shown to accounts and addresses (``store.reveals``)."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer
        self._key: bytes | None = None

    @staticmethod
    def shown_to_account(user_id: int) -> str:
        """The ``shown_to`` of an account."""
        return f"user:{user_id}"

    async def address_key(self, address: str) -> str:
        """The ``shown_to`` of a client address: a keyed hash, never the address."""
        if self._key is None:
            made = secrets.token_hex(32)

            def key(conn: Connection) -> str:
                conn.execute(insert_new(conn, meta_table, ["key"]).values(
                    key=SALT_KEY, value=made))
                found = conn.execute(select(meta_table.c.value).where(
                    meta_table.c.key == SALT_KEY)).scalar_one()
                return str(found)

            self._key = bytes.fromhex(await self._writer.commit(key))
        digest = hmac.new(self._key, address.encode("utf-8", "replace"), hashlib.sha256)
        return f"address:{digest.hexdigest()[:40]}"

    async def shown(self, puzzle_id: str, user_id: int, address: str,
                    now: int | None = None) -> str | None:
        """Why an account's answer to a puzzle must not count, or None when it may:
        ``solution_shown`` (the account was shown the solution) or
        ``solution_shown_here`` (someone at its address was, within a day)."""
        at = now_ms() if now is None else now
        mine, here = self.shown_to_account(user_id), await self.address_key(address)
        table = puzzle_reveals_table
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(select(table.c.shown_to).where(
                table.c.puzzle_id == puzzle_id,
                or_(table.c.shown_to == mine,
                    (table.c.shown_to == here)
                    & (table.c.shown_at > at - ADDRESS_DAY_MS))))).all()
        found = {row[0] for row in rows}
        if mine in found:
            return "solution_shown"
        return "solution_shown_here" if found else None

    async def reveal(self, puzzle_id: str, user_id: int | None, address: str,
                     now: int | None = None) -> None:
        """Note that a puzzle's solution is shown now: to the account (when logged in)
        and to the address. Address notes older than a day are dropped meanwhile."""
        at = now_ms() if now is None else now
        who = [await self.address_key(address)]
        if user_id is not None:
            who.append(self.shown_to_account(user_id))
        table = puzzle_reveals_table

        def write(conn: Connection) -> None:
            for shown_to in who:
                added = conn.execute(insert_new(conn, table, ["puzzle_id", "shown_to"])
                                     .values(puzzle_id=puzzle_id, shown_to=shown_to,
                                             shown_at=at))
                if added.rowcount == 0:
                    conn.execute(update(table).where(
                        table.c.puzzle_id == puzzle_id, table.c.shown_to == shown_to
                    ).values(shown_at=at))
            conn.execute(delete(table).where(table.c.shown_at <= at - ADDRESS_DAY_MS,
                                             table.c.shown_to.like("address:%")))

        await self._writer.commit(write)
