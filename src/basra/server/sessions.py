"""Who a request is logged in as: the session cookie, and how accounts work on a server."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import HTTPConnection

from basra.players.accounts import SESSION_SECONDS, LoginPace, Passwords, token_hash
from basra.store import StorageError, Store, StoredUser

__all__ = ["SESSION_COOKIE", "TOUCH_EVERY", "AccountSettings", "request_account"]

SESSION_COOKIE = "basra_session"
"""The name of the cookie that holds a session's token."""

TOUCH_EVERY = 60_000
"""A session's last use is written at most this often (milliseconds): one write a
minute, however many requests it sends."""


@dataclass(frozen=True)
class AccountSettings:
    """How accounts work on one server (the defaults are what ``basra serve`` uses)."""

    passwords: Passwords = field(default_factory=Passwords)
    """Password hashing (Argon2id with ``argon2-cffi``'s recommended parameters)."""
    session_seconds: float = SESSION_SECONDS
    """How long a log-in lasts."""
    pace: LoginPace = field(default_factory=LoginPace)
    """How wrong passwords slow log-ins to a name."""
    hashing_at_once: int = 2
    """Passwords hashed at the same time (each takes 64 MiB and tens of milliseconds of a
    core, in a thread); more wait their turn."""
    clock: Callable[[], float] = time.time
    """Unix seconds now (tests move it)."""


async def request_account(store: Store, request: HTTPConnection,
                          clock: Callable[[], float] = time.time) -> StoredUser | None:
    """The account a request's (or a socket's) session cookie is logged in as, or
    None. The session's last use is written (at most once a :data:`TOUCH_EVERY`); a
    failing storage leaves it unwritten."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token or len(token) > 100:
        return None
    now = int(clock() * 1000)
    hashed = token_hash(token)
    found = await store.logins.find_session(hashed, now)
    if found is None:
        return None
    user, session = found
    if (session.last_used_at is None or now - session.last_used_at >= TOUCH_EVERY) \
            and store.health.ok:
        with contextlib.suppress(StorageError):  # a courtesy: the request goes on
            await store.logins.touch(hashed, now)
    return user
