"""Accounts, their sessions (log-ins) and wrong passwords in a row per name.

Names, password hashing and the lock-out rules are ``basra.players.accounts``'s; this
module only stores what they decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from .schema import (
    login_address_failures_table,
    login_failures_table,
    seats_table,
    sessions_table,
    users_table,
)
from .writer import Writer, insert_new, statements

__all__ = ["Accounts", "StoredUser", "user_of_row"]


@dataclass(frozen=True)
class StoredUser:
    """An account."""

    id: int
    name: str
    """As its player wrote it."""
    name_key: str
    """What makes two names the same (``basra.players.accounts.name_key``), unique."""
    password_hash: str
    created_at: int
    """Unix milliseconds."""
    bot_since: int | None = None
    """When the account was upgraded to a bot (Unix ms); None for a person's account."""

    @property
    def bot(self) -> bool:
        return self.bot_since is not None


def user_of_row(row: Any) -> StoredUser:
    """The account in a row of ``basra_users``."""
    return StoredUser(id=row.id, name=row.name, name_key=row.name_key,
                      password_hash=row.password_hash, created_at=row.created_at,
                      bot_since=row.bot_since)


def _start_session(conn: Connection, user_id: int, session_hash: str, expires_at: int,
                   now: int, replaces: str | None, user_agent: str | None = None) -> None:
    """Add a session; end the one it replaces and every expired one."""
    gone = sessions_table.c.expires_at <= now
    if replaces is not None:
        gone = gone | (sessions_table.c.token_hash == replaces)
    conn.execute(delete(sessions_table).where(gone))
    conn.execute(insert(sessions_table).values(
        token_hash=session_hash, user_id=user_id, created_at=now, expires_at=expires_at,
        last_used_at=now, user_agent=None if user_agent is None else user_agent[:200]))


class Accounts:
    """Accounts and sessions (``store.accounts``): written through the store's writer."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def create(self, name: str, name_key: str, password_hash: str, *,
                     session_hash: str, expires_at: int, now: int,
                     replaces: str | None = None,
                     user_agent: str | None = None) -> StoredUser | None:
        """A new account, logged in by a first session; None when an account has the name
        key already. ``replaces`` is the hash of a session this one replaces (ended);
        ``user_agent`` the browser's."""

        def write(conn: Connection) -> StoredUser | None:
            found = conn.execute(select(users_table).where(
                users_table.c.name_key == name_key)).first()
            if found is not None:
                # Ours when the commit went through and only its answer was lost.
                ours = conn.execute(select(sessions_table.c.user_id).where(
                    sessions_table.c.token_hash == session_hash)).scalar_one_or_none()
                return user_of_row(found) if ours == found.id else None
            added = conn.execute(insert_new(conn, users_table, ["name_key"]).values(
                name=name, name_key=name_key, password_hash=password_hash, created_at=now))
            if added.rowcount == 0:  # another server process took it meanwhile
                return None
            key = added.inserted_primary_key
            assert key is not None
            user = StoredUser(int(key[0]), name, name_key, password_hash, now)
            _start_session(conn, user.id, session_hash, expires_at, now, replaces, user_agent)
            return user

        created: StoredUser | None = await self._writer.commit(write)
        return created

    async def find(self, name_key: str) -> StoredUser | None:
        """The account with this name key, if any."""
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(select(users_table).where(
                users_table.c.name_key == name_key))).first()
        return None if row is None else user_of_row(row)

    async def find_by_id(self, user_id: int) -> StoredUser | None:
        """The account with this id, if any."""
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(select(users_table).where(
                users_table.c.id == user_id))).first()
        return None if row is None else user_of_row(row)

    async def upgrade_to_bot(self, user_id: int, now: int) -> StoredUser | None:
        """Make an account a bot account for good (``bot_since`` = ``now``, Unix ms), in
        one transaction with the check that it never sat at a table: None when it did
        (an account that has played stays a person's). Upgrading a bot again changes
        nothing."""

        def write(conn: Connection) -> StoredUser | None:
            row = conn.execute(select(users_table).where(users_table.c.id == user_id)).first()
            if row is None or row.bot_since is not None:
                return None if row is None else user_of_row(row)
            seated = conn.execute(select(seats_table.c.code).where(
                seats_table.c.user_id == user_id).limit(1)).first()
            if seated is not None:
                return None
            conn.execute(update(users_table).where(users_table.c.id == user_id)
                         .values(bot_since=now))
            return replace(user_of_row(row), bot_since=now)

        upgraded: StoredUser | None = await self._writer.commit(write)
        return upgraded

    async def bots_among(self, user_ids: Iterable[int]) -> set[int]:
        """The bot accounts among these accounts."""
        ids = sorted(set(user_ids))
        if not ids:
            return set()
        async with self._writer.engine.connect() as conn:
            rows = await conn.execute(select(users_table.c.id).where(
                users_table.c.id.in_(ids), users_table.c.bot_since.is_not(None)))
            return set(rows.scalars())

    async def find_for_login(self, name: str, name_key: str) -> StoredUser | None:
        """The account named exactly ``name``, else the one with this name key (an
        account that kept its old key in migration 0009 is found by its name)."""
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(select(users_table).where(
                users_table.c.name == name))).first()
            if row is None:
                row = (await conn.execute(select(users_table).where(
                    users_table.c.name_key == name_key))).first()
        return None if row is None else user_of_row(row)

    async def find_by_session(self, session_hash: str, now: int) -> StoredUser | None:
        """The account logged in by the session with this token hash, unless the session
        is unknown or expired by ``now`` (Unix milliseconds)."""
        query = (select(users_table).join(sessions_table,
                                          sessions_table.c.user_id == users_table.c.id)
                 .where(sessions_table.c.token_hash == session_hash,
                        sessions_table.c.expires_at > now))
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else user_of_row(row)

    async def start_session(self, user_id: int, session_hash: str, *, expires_at: int,
                            now: int, name_key: str, password_hash: str | None = None,
                            replaces: str | None = None, address: str | None = None,
                            user_agent: str | None = None) -> None:
        """A log-in: a new session, the name's wrong passwords from ``address`` forgotten
        (from every address without one), and the password hash replaced by
        ``password_hash`` when given (new hashing parameters)."""

        def write(conn: Connection) -> None:
            _start_session(conn, user_id, session_hash, expires_at, now, replaces,
                           user_agent)
            if address is None:
                conn.execute(delete(login_failures_table).where(
                    login_failures_table.c.name_key == name_key))
            else:
                conn.execute(delete(login_address_failures_table).where(
                    login_address_failures_table.c.name_key == name_key,
                    login_address_failures_table.c.address == address))
            if password_hash is not None:
                conn.execute(update(users_table).where(users_table.c.id == user_id)
                             .values(password_hash=password_hash))

        await self._writer.commit(write)

    async def end_session(self, session_hash: str) -> None:
        """Log out: the session is gone (nothing happens for an unknown one)."""
        await self._writer.commit(statements([
            delete(sessions_table).where(sessions_table.c.token_hash == session_hash)]))

    async def login_locked_until(self, name_key: str, now: int) -> int:
        """Until when log-ins to this name key are locked (Unix milliseconds), or 0 when
        they are not locked at ``now``."""
        async with self._writer.engine.connect() as conn:
            until = (await conn.execute(select(login_failures_table.c.locked_until).where(
                login_failures_table.c.name_key == name_key))).scalar_one_or_none()
        return until if until is not None and until > now else 0

    async def add_login_failure(self, name_key: str, *, now: int, forget_before: int,
                                lock_ms: Callable[[int], int]) -> int:
        """One more wrong password for this name key; returns until when its log-ins are
        now locked (``now + lock_ms(failures in a row)``, 0 for no lock). Failures last
        made before ``forget_before`` are forgotten first (of every name)."""

        def write(conn: Connection) -> int:
            table = login_failures_table
            conn.execute(delete(table).where(table.c.last_failed_at < forget_before,
                                             table.c.locked_until <= now))
            failures = conn.execute(select(table.c.failures).where(
                table.c.name_key == name_key)).scalar_one_or_none()
            count = (failures or 0) + 1
            lock = lock_ms(count)
            until = now + lock if lock > 0 else 0
            values = {"failures": count, "last_failed_at": now, "locked_until": until}
            if failures is None:
                added = conn.execute(insert_new(conn, table, ["name_key"]).values(
                    name_key=name_key, **values))
                if added.rowcount == 1:
                    return until
            conn.execute(update(table).where(table.c.name_key == name_key).values(**values))
            return until

        until: int = await self._writer.commit(write)
        return until
