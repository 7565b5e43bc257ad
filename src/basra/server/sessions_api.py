"""A logged-in player's own account (``docs/web-protocol.md``, "Your account"): the
list of their sessions, ending one or every other, and a change of password.

    GET  /api/account/sessions      -> {"sessions": [{"id", "created_at", "last_used_at",
                                        "expires_at", "browser", "current"}, ...]}
    POST /api/account/sessions/end  {"id": ID} or {"others": true} -> {"ended": N}
    POST /api/account/password      {"current", "new"} -> {"name", "ended": N}

Times are Unix milliseconds; ``last_used_at`` is written at most once a minute per
session (:data:`~basra.server.sessions.TOUCH_EVERY`). A session's ``id`` is derived from
its token's hash and says nothing of the token. A change of password needs the current
one (a wrong one counts as a wrong password at log-in, and is locked out the same way),
follows the rules of a new password (``weak_password`` and ``bad_password``
refusals) and ends every other session of the account; this one stays logged in.

Every route answers 401 ``login_required`` without a session, and every POST is refused
like the log-in's when another site sends it (``cross_site``).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from basra.players.accounts import PASSWORD_LENGTH, address_group, check_password
from basra.store import Store, StoredUser

from .accounts_api import AccountRoute, AccountsOf, cookie_hash, writable
from .bodies import EndSessionsBody, PasswordBody, openapi_body, read_body
from .deps import StoreOf, address
from .errors import (
    BadRequestError,
    LoginLockedError,
    LoginRequiredError,
    UnknownSessionError,
    WrongPasswordError,
)

__all__ = ["router", "session_id"]

router = APIRouter(route_class=AccountRoute)

MAX_BODY = 4096
"""Largest body of these requests, in bytes."""


def session_id(session_hash: str) -> str:
    """The id a session is shown and ended by: 16 hex digits of a hash of its token's
    hash (so the list of sessions gives away no token hash).

    >>> len(session_id("ab" * 32))
    16
    """
    return hashlib.sha256(f"basra-session:{session_hash}".encode()).hexdigest()[:16]


async def _logged_in(request: Request, store: Store, now: int) -> tuple[StoredUser, str]:
    """The request's account and its session's hash, or :class:`LoginRequiredError`."""
    found = cookie_hash(request)
    session = None if found is None else await store.logins.find_session(found, now)
    if found is None or session is None:
        raise LoginRequiredError("log in to see and change your account")
    return session[0], found


def _answer(body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@router.get("/api/account/sessions")
async def sessions(request: Request, store: StoreOf, accounts: AccountsOf) -> JSONResponse:
    """The account's sessions, the latest used first."""
    now = accounts.now_ms()
    user, current = await _logged_in(request, store, now)
    listed = await store.logins.sessions(user.id, now)
    return _answer({"sessions": [
        {"id": session_id(session.token_hash), "created_at": session.created_at,
         "last_used_at": session.last_used_at, "expires_at": session.expires_at,
         "browser": session.user_agent, "current": session.token_hash == current}
        for session in listed]})


@router.post("/api/account/sessions/end", openapi_extra=openapi_body(EndSessionsBody, True))
async def end_sessions(request: Request, store: StoreOf,
                       accounts: AccountsOf) -> JSONResponse:
    """End one session of the account (this one too: a log-out), or every other."""
    accounts.same_site(request)
    now = accounts.now_ms()
    user, current = await _logged_in(request, store, now)
    body = await read_body(request, EndSessionsBody, MAX_BODY,
                           'a JSON object like {"id": "0123abcd0123abcd"} or {"others": true}')
    writable(store)
    if body.others is True and body.id is None:
        return _answer({"ended": await store.logins.end_sessions(user.id, keep=current)})
    if body.others not in (None, False) or not isinstance(body.id, str) or not body.id:
        raise BadRequestError('give the "id" of one session, or "others": true')
    wanted = body.id.strip().lower()[:40]
    for session in await store.logins.sessions(user.id, now):
        if session_id(session.token_hash) == wanted:
            ended = await store.logins.end_sessions(user.id, only=session.token_hash)
            return _answer({"ended": ended})
    raise UnknownSessionError(f"no session of yours has the id {wanted!r}; it has ended "
                              "already", id=wanted)


@router.post("/api/account/password", openapi_extra=openapi_body(PasswordBody, True))
async def change_password(request: Request, store: StoreOf,
                          accounts: AccountsOf) -> JSONResponse:
    """A new password, given the current one; every other session ends."""
    accounts.same_site(request)
    await accounts.limit("login", request)  # a guess at the current password is a log-in
    now = accounts.now_ms()
    user, current = await _logged_in(request, store, now)
    body = await read_body(request, PasswordBody, MAX_BODY,
                           'a JSON object like {"current": "...", "new": "..."}')
    if not isinstance(body.current, str) or not isinstance(body.new, str):
        raise BadRequestError('give the "current" and the "new" password as text')
    where = address_group(address(request))
    locked_until = await store.logins.locked_until(user.name_key, where, now)
    if locked_until:
        locked_for = max(1, math.ceil((locked_until - now) / 1000))
        raise LoginLockedError("too many wrong passwords for this name from this address; "
                               f"try again in {locked_for} s", locked_for)
    right = len(body.current) <= PASSWORD_LENGTH[1] and await accounts.verified(
        user.password_hash, body.current)
    if not right:
        pace = accounts.settings.pace
        writable(store)
        await store.logins.add_failure(
            user.name_key, where, now=now, forget_before=now - int(pace.forget_after * 1000),
            brake_after=pace.brake_after,
            lock_ms=lambda failures, braked: int(pace.lock_seconds(failures, braked) * 1000))
        raise WrongPasswordError("the current password is wrong; nothing changed")
    new = check_password(body.new, user.name)
    if new == body.current:
        raise BadRequestError("the new password is the current one; choose another")
    writable(store)
    before = await store.logins.sessions(user.id, now)
    changed = await store.logins.change_password(
        user.id, await accounts.hashed(new), keep=current, old_hash=user.password_hash)
    if not changed:
        raise WrongPasswordError("the password was changed meanwhile; log in again")
    return _answer({"name": user.name,
                    "ended": sum(session.token_hash != current for session in before)})
