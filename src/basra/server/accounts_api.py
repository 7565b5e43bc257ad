"""The accounts' HTTP API (``docs/web-protocol.md``, "Accounts"): sign up, log in, log
out, who is logged in, and a player's public page.

    POST /api/signup        {name, password} -> 201 {"name"}, and the session cookie
    POST /api/login         {name, password} -> 200 {"name"}, and the session cookie
    POST /api/logout        -> 200 {"name": null}, the cookie cleared
    GET  /api/me            -> {"name": "Amira"} or {"name": null}

(A player's public page, ``GET /api/users/{name}``, is in :mod:`.players_api`.)

The session is a random token in an HttpOnly, SameSite=Lax cookie (Secure when the
request came over HTTPS, as uvicorn sees it: behind a proxy at 127.0.0.1 that sends
``X-Forwarded-Proto: https`` too). The database keeps only its SHA-256, with its expiry.

Refusals answer ``{"code": "bad_name", "message": "one line", "params": {}}`` like the
rest of the API (:mod:`basra.server.errors`), and are never cached. Every
POST here is refused (403, ``cross_site``) when the browser says it comes from another
site (``Sec-Fetch-Site``), on top of the Origin rule of :mod:`basra.server.security`.
Sign-ups and log-ins are rate-limited per address, and wrong passwords lock a name's
log-ins from the address that sent them for longer and longer, and brake every address
while the name is under attack (:class:`basra.players.accounts.LoginPace`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.requests import HTTPConnection

from basra.players.accounts import (
    PASSWORD_LENGTH,
    address_group,
    check_name,
    check_password,
    look_alike_keys,
    name_key,
    new_token,
    token_hash,
)
from basra.store import StorageError, Store, StoredUser

from .bodies import AccountBody, openapi_body, read_body
from .deps import StoreOf, address
from .errors import (
    AccountClosedError,
    BadRequestError,
    CrossSiteError,
    LoginLockedError,
    NameTakenError,
    WrongLoginError,
    error_response,
    refusal_of,
)
from .ratelimit import ACCOUNT_LIMITS, RateLimited, RateLimits
from .security import parse_origin
from .sessions import SESSION_COOKIE, AccountSettings, request_account

__all__ = ["ACCOUNT_LIMITS", "SESSION_COOKIE", "AccountSettings", "Accounts", "request_account",
           "router"]

_WHAT = {"signup": "sign-ups", "login": "log-in attempts"}
MAX_BODY = 4096
"""Largest body of a sign-up or log-in, in bytes."""
LONGEST_NAME_ASKED = 100
"""A name longer than this cannot be an account's: it is looked up as no name."""
_EXAMPLE = 'a JSON object like {"name": "Amira", "password": "..."}'


class Accounts:
    """How one app signs up and logs in: its settings, rate limits, allowed origins and
    password hashing (``app.state.accounts``)."""

    def __init__(self, settings: AccountSettings | None = None, *,
                 allow_origins: Sequence[str] = (),
                 rate_limits: Mapping[str, str] = ACCOUNT_LIMITS,
                 rate_limit_storage: str = "memory://") -> None:
        self.settings = settings if settings is not None else AccountSettings()
        self.limiter = RateLimits({**ACCOUNT_LIMITS, **{
            kind: rates for kind, rates in rate_limits.items() if kind in _WHAT}},
            rate_limit_storage)
        self.allowed = frozenset(parse_origin(origin) for origin in allow_origins)
        self.hashing = asyncio.Semaphore(self.settings.hashing_at_once)

    def now_ms(self) -> int:
        """Unix milliseconds now."""
        return int(self.settings.clock() * 1000)

    def same_site(self, request: Request) -> None:
        """Refuse a request the browser says another site made (an allowed origin's
        pages excepted). The Origin rule has already refused a foreign Origin."""
        site = request.headers.get("sec-fetch-site")
        if site is None or site in ("same-origin", "none"):
            return
        origin = request.headers.get("origin")
        if origin is not None:
            try:
                if parse_origin(origin) in self.allowed:
                    return
            except ValueError:
                pass
        raise CrossSiteError(f"a {site[:20]!r} request may not sign up, log in or log out; "
                             "only the server's own pages may", site=site[:20])

    async def limit(self, kind: str, request: Request) -> None:
        """Count a sign-up or a log-in of the request's address, or refuse it."""
        where = address(request)
        try:
            await self.limiter.check(kind, where)
        except RateLimited as refused:
            raise RateLimited(f"too many {_WHAT[kind]} from {where}",
                              refused.retry_after) from None

    async def hashed(self, password: str) -> str:
        """The password's hash (in a thread, a few at a time)."""
        async with self.hashing:
            return await asyncio.to_thread(self.settings.passwords.hash, password)

    async def verified(self, stored: str | None, password: str) -> bool:
        """Whether the password is the one hashed (as long without a hash)."""
        async with self.hashing:
            return await asyncio.to_thread(self.settings.passwords.verify, stored, password)


def accounts_of(connection: HTTPConnection) -> Accounts:
    """The app's :class:`Accounts`."""
    accounts: Accounts = connection.app.state.accounts
    return accounts


AccountsOf = Annotated[Accounts, Depends(accounts_of)]


class AccountRoute(APIRoute):
    """A route whose refusals are never cached."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as error:
                if refusal_of(error) is None:
                    raise
                return error_response(error, {"Cache-Control": "no-store"})

        return answer


router = APIRouter(route_class=AccountRoute)


def writable(store: Store) -> None:
    """Refuse at once while storage fails (a write would wait until it works)."""
    if not store.health.ok:
        raise StorageError(store.health.error or "writes do not commit")


def user_agent(request: Request) -> str | None:
    """The browser's ``User-Agent``, cut to 200 characters (shown in the list of
    sessions)."""
    agent = request.headers.get("user-agent")
    return agent[:200] if agent else None


def cookie_hash(request: Request) -> str | None:
    token = request.cookies.get(SESSION_COOKIE)
    return token_hash(token) if token and len(token) <= 100 else None


def _logged_in(request: Request, accounts: Accounts, user: StoredUser, token: str,
               status: int) -> JSONResponse:
    response = JSONResponse({"name": user.name}, status_code=status,
                            headers={"Cache-Control": "no-store"})
    response.set_cookie(SESSION_COOKIE, token, max_age=int(accounts.settings.session_seconds),
                        path="/", secure=request.url.scheme == "https", httponly=True,
                        samesite="lax")
    return response


def _logged_out(request: Request, answer: dict[str, Any]) -> JSONResponse:
    response = JSONResponse(answer, headers={"Cache-Control": "no-store"})
    response.delete_cookie(SESSION_COOKIE, path="/", secure=request.url.scheme == "https",
                           httponly=True, samesite="lax")
    return response


@router.post("/api/signup", status_code=201, openapi_extra=openapi_body(AccountBody, True))
async def signup(request: Request, store: StoreOf, accounts: AccountsOf) -> JSONResponse:
    """A new account, logged in at once."""
    accounts.same_site(request)
    await accounts.limit("signup", request)
    body = await read_body(request, AccountBody, MAX_BODY, _EXAMPLE)
    name = check_name(body.name)
    password = check_password(body.password, name)
    key = name_key(name)
    writable(store)
    taken = await store.accounts.find(key)
    for look_alike in sorted(look_alike_keys(name) - {key}):
        if taken is None:  # a small Greek letter may pass for a Latin one as it is
            taken = await store.accounts.find(look_alike)
    if taken is None:
        token = new_token()
        now = accounts.now_ms()
        user = await store.accounts.create(
            name, key, await accounts.hashed(password), session_hash=token_hash(token),
            expires_at=now + int(accounts.settings.session_seconds * 1000), now=now,
            replaces=cookie_hash(request), user_agent=user_agent(request))
        if user is not None:
            return _logged_in(request, accounts, user, token, 201)
        taken = await store.accounts.find(key)
    same = "" if taken is None or taken.name == name else f" (as {taken.name!r})"
    raise NameTakenError(f"the name {name!r} is taken{same}; names are the same whatever "
                         "their case: choose another", name=name)


@router.post("/api/login", openapi_extra=openapi_body(AccountBody, True))
async def login(request: Request, store: StoreOf, accounts: AccountsOf) -> JSONResponse:
    """Log in with a name and a password."""
    accounts.same_site(request)
    await accounts.limit("login", request)
    body = await read_body(request, AccountBody, MAX_BODY, _EXAMPLE)
    name, password = body.name, body.password
    if not isinstance(name, str) or not isinstance(password, str):
        raise BadRequestError("give the name and the password as text")
    name = name.strip()
    key = name_key(name) if 0 < len(name) <= LONGEST_NAME_ASKED else ""
    where = address_group(address(request))
    now = accounts.now_ms()
    writable(store)
    locked_until = await store.logins.locked_until(key, where, now) if key else 0
    if locked_until:
        locked_for = max(1, math.ceil((locked_until - now) / 1000))
        raise LoginLockedError("too many wrong passwords for this name from this address; "
                               f"try again in {locked_for} s", locked_for)
    user = await store.accounts.find_for_login(name, key) if key else None
    stored = (user.password_hash if user is not None
              and len(password) <= PASSWORD_LENGTH[1] else None)
    right = await accounts.verified(stored, password)  # as long for no account at all
    if user is None or not right:
        wait: int | None = None
        if key:
            pace = accounts.settings.pace
            until = await store.logins.add_failure(
                key, where, now=now, forget_before=now - int(pace.forget_after * 1000),
                brake_after=pace.brake_after,
                lock_ms=lambda failures, braked: int(
                    pace.lock_seconds(failures, braked) * 1000))
            wait = max(1, math.ceil((until - now) / 1000)) if until else None
        later = f"; try again in {wait} s" if wait else ""
        raise WrongLoginError(f"wrong name or password{later}", wait)
    closed = await store.moderation.active(user.id, "closed", now)
    if closed is not None:
        raise AccountClosedError(f"a moderator closed this account: {closed.reason}",
                                 reason=closed.reason)
    passwords = accounts.settings.passwords
    rehashed = (await accounts.hashed(password) if passwords.needs_rehash(user.password_hash)
                else None)
    token = new_token()
    await store.accounts.start_session(
        user.id, token_hash(token),
        expires_at=now + int(accounts.settings.session_seconds * 1000), now=now,
        name_key=key, password_hash=rehashed, replaces=cookie_hash(request),
        address=where, user_agent=user_agent(request))
    return _logged_in(request, accounts, user, token, 200)


@router.post("/api/logout")
async def logout(request: Request, store: StoreOf) -> JSONResponse:
    """End this browser's session (nothing to do when it has none)."""
    accounts_of(request).same_site(request)
    found = cookie_hash(request)
    if found is not None:
        writable(store)
        await store.accounts.end_session(found)
    return _logged_out(request, {"name": None})


@router.get("/api/me")
async def me(request: Request, store: StoreOf, accounts: AccountsOf) -> JSONResponse:
    """Who this browser is logged in as: ``{"name": null}`` for a guest."""
    user = await request_account(store, request, accounts.settings.clock)
    if user is None and SESSION_COOKIE in request.cookies:
        return _logged_out(request, {"name": None})  # a stale cookie: clear it
    return JSONResponse({"name": None if user is None else user.name},
                        headers={"Cache-Control": "no-store"})
