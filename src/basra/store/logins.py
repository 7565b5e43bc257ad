"""Account security (migration 0009): wrong passwords counted per name and address,
and each account's sessions with their last use, ended one by one, all but one, or
with a change of password.

What the counts mean and how long they lock is ``basra.players.accounts.LoginPace``'s;
this module only stores them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, select, update

from .accounts import StoredUser, user_of_row
from .schema import (
    login_address_failures_table,
    login_failures_table,
    sessions_table,
    users_table,
)
from .writer import Writer, insert_new

__all__ = ["Logins", "StoredSession"]


@dataclass(frozen=True)
class StoredSession:
    """One log-in of an account (its token is never stored: ``token_hash`` is its
    SHA-256)."""

    token_hash: str
    created_at: int
    """Unix milliseconds, as every time here."""
    last_used_at: int | None
    """When a request last came with it (written at most once a minute); None before
    its first use since migration 0009."""
    expires_at: int
    user_agent: str | None


def _bump(conn: Connection, table: Any, keys: dict[str, str], now: int,
          until: Callable[[int], int]) -> tuple[int, int]:
    """One more failure in ``table``'s row of ``keys``: (failures, locked until)."""
    where = [getattr(table.c, column) == value for column, value in keys.items()]
    failures = conn.execute(select(table.c.failures).where(*where)).scalar_one_or_none()
    count = (failures or 0) + 1
    locked = until(count)
    values = {"failures": count, "last_failed_at": now, "locked_until": locked}
    if failures is None:
        added = conn.execute(insert_new(conn, table, list(keys)).values(**keys, **values))
        if added.rowcount == 1:
            return count, locked
    conn.execute(update(table).where(*where).values(**values))
    return count, locked


class Logins:
    """Wrong passwords and sessions (``store.logins``): written through the store's
    writer."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    # -- wrong passwords ---------------------------------------------------------------

    async def locked_until(self, name_key: str, address: str, now: int) -> int:
        """Until when log-ins to this name key from this address are locked (Unix
        milliseconds), or 0 when they are not locked at ``now``."""
        table = login_address_failures_table
        async with self._writer.engine.connect() as conn:
            until = (await conn.execute(select(table.c.locked_until).where(
                table.c.name_key == name_key, table.c.address == address))
                     ).scalar_one_or_none()
        return until if until is not None and until > now else 0

    async def add_failure(self, name_key: str, address: str, *, now: int,
                          forget_before: int, brake_after: int,
                          lock_ms: Callable[[int, bool], int]) -> int:
        """One more wrong password for this name key from this address, counted for the
        name from every address too; returns until when log-ins to the name from this
        address are now locked (``now + lock_ms(failures from it, braked)``, 0 for no
        lock), ``braked`` when the name has more than ``brake_after`` failures from
        every address. Counts last bumped before ``forget_before`` are forgotten first
        (of every name, unless still locked)."""

        def write(conn: Connection) -> int:
            for table in (login_failures_table, login_address_failures_table):
                conn.execute(delete(table).where(table.c.last_failed_at < forget_before,
                                                 table.c.locked_until <= now))
            total, _ = _bump(conn, login_failures_table, {"name_key": name_key}, now,
                             lambda _count: 0)
            braked = total > brake_after

            def until(count: int) -> int:
                lock = lock_ms(count, braked)
                return now + lock if lock > 0 else 0

            _, locked = _bump(conn, login_address_failures_table,
                              {"name_key": name_key, "address": address}, now, until)
            return locked

        locked: int = await self._writer.commit(write)
        return locked

    # -- sessions ----------------------------------------------------------------------

    async def find_session(self, session_hash: str, now: int
                           ) -> tuple[StoredUser, StoredSession] | None:
        """The account and the session with this token hash, unless the session is
        unknown or expired by ``now``."""
        query = (select(users_table, sessions_table.c.token_hash,
                        sessions_table.c.created_at.label("session_created_at"),
                        sessions_table.c.last_used_at, sessions_table.c.expires_at,
                        sessions_table.c.user_agent)
                 .join(sessions_table, sessions_table.c.user_id == users_table.c.id)
                 .where(sessions_table.c.token_hash == session_hash,
                        sessions_table.c.expires_at > now))
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        return user_of_row(row), StoredSession(row.token_hash, row.session_created_at,
                                               row.last_used_at, row.expires_at,
                                               row.user_agent)

    async def touch(self, session_hash: str, now: int) -> None:
        """Write that the session was used at ``now``."""
        await self._writer.commit(lambda conn: conn.execute(
            update(sessions_table).where(sessions_table.c.token_hash == session_hash)
            .values(last_used_at=now)))

    async def sessions(self, user_id: int, now: int) -> list[StoredSession]:
        """The account's sessions that have not expired by ``now``, the latest used
        first."""
        table = sessions_table
        used = table.c.last_used_at
        query = (select(table).where(table.c.user_id == user_id, table.c.expires_at > now)
                 .order_by(used.is_(None), used.desc(), table.c.created_at.desc()))
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [StoredSession(row.token_hash, row.created_at, row.last_used_at,
                              row.expires_at, row.user_agent) for row in rows]

    async def end_sessions(self, user_id: int, *, only: str | None = None,
                           keep: str | None = None) -> int:
        """End the account's session with the hash ``only``, or every one but ``keep``;
        the number ended."""
        table = sessions_table
        where = [table.c.user_id == user_id]
        if only is not None:
            where.append(table.c.token_hash == only)
        if keep is not None:
            where.append(table.c.token_hash != keep)

        def write(conn: Connection) -> int:
            return int(conn.execute(delete(table).where(*where)).rowcount or 0)

        ended: int = await self._writer.commit(write)
        return ended

    async def change_password(self, user_id: int, password_hash: str, *, keep: str,
                              old_hash: str) -> bool:
        """Replace the account's password hash, unless it changed meanwhile (it is not
        ``old_hash`` any more: False), and end every session but ``keep``."""

        def write(conn: Connection) -> bool:
            changed = conn.execute(update(users_table).where(
                users_table.c.id == user_id, users_table.c.password_hash == old_hash)
                .values(password_hash=password_hash)).rowcount
            if not changed:
                return False
            conn.execute(delete(sessions_table).where(
                sessions_table.c.user_id == user_id,
                sessions_table.c.token_hash != keep))
            return True

        done: bool = await self._writer.commit(write)
        return done
