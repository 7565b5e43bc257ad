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

Refusals answer ``{"error": "one line", "code": "bad_name"}`` like the rest of the API
(``error`` is the text to show) with a ``code`` for programs and translations. Every
POST here is refused (403, ``cross_site``) when the browser says it comes from another
site (``Sec-Fetch-Site``), on top of the Origin rule of :mod:`basra.server.security`.
Sign-ups and log-ins are rate-limited per address, and wrong passwords lock a name's
log-ins for longer and longer (:class:`basra.players.accounts.LoginPace`).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute

from basra.players.accounts import (
    PASSWORD_LENGTH,
    SESSION_SECONDS,
    AccountError,
    LoginPace,
    Passwords,
    check_name,
    check_password,
    name_key,
    new_token,
    token_hash,
)
from basra.store import StorageError, Store, StoredUser

from .ratelimit import ACCOUNT_LIMITS, RateLimited, RateLimits
from .security import parse_origin

__all__ = ["ACCOUNT_LIMITS", "SESSION_COOKIE", "AccountSettings", "accounts_router",
           "request_account"]

SESSION_COOKIE = "basra_session"
"""The name of the cookie that holds a session's token."""


_WHAT = {"signup": "sign-ups", "login": "log-in attempts"}
MAX_BODY = 4096
"""Largest body of a sign-up or log-in, in bytes."""
LONGEST_NAME_ASKED = 100
"""A name longer than this cannot be an account's: it is looked up as no name."""


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


class _Refusal(Exception):
    """An account request answered with an error."""

    def __init__(self, status: int, code: str, message: str,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.retry_after = retry_after

    def response(self) -> JSONResponse:
        headers = {"Cache-Control": "no-store"}
        if self.retry_after is not None:
            headers["Retry-After"] = str(self.retry_after)
        return JSONResponse({"error": str(self), "code": self.code}, status_code=self.status,
                            headers=headers)


class _AccountRoute(APIRoute):
    """A route whose refusals (and broken account rules) answer as ``_Refusal`` says."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except AccountError as error:
                return _Refusal(400, error.code, str(error)).response()
            except _Refusal as refusal:
                return refusal.response()

        return answer


async def request_account(store: Store, request: Request,
                          clock: Callable[[], float] = time.time) -> StoredUser | None:
    """The account a request's session cookie is logged in as, or None."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token or len(token) > 100:
        return None
    return await store.accounts.find_by_session(token_hash(token), int(clock() * 1000))


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else ""


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise _Refusal(400, "bad_request", f"request body of {len(raw)} bytes; at most "
                                           f"{MAX_BODY}")
    try:
        body = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        raise _Refusal(400, "bad_request", "the request body is not JSON") from None
    if not isinstance(body, dict):
        raise _Refusal(400, "bad_request", "expected a JSON object like "
                                           '{"name": "Amira", "password": "..."}')
    return body


def accounts_router(store: Store, settings: AccountSettings | None = None, *,
                    allow_origins: Sequence[str] = (),
                    rate_limits: Mapping[str, str] = ACCOUNT_LIMITS,
                    rate_limit_storage: str = "memory://") -> APIRouter:
    """The accounts' routes, storing in ``store``. ``allow_origins`` are the other sites
    whose pages may post here (``--allow-origin``); ``rate_limits`` may hold rates for
    ``signup`` and ``login`` (others are ignored; :data:`ACCOUNT_LIMITS` fill in)."""
    settings = settings if settings is not None else AccountSettings()
    passwords = settings.passwords
    pace = settings.pace
    limiter = RateLimits({**ACCOUNT_LIMITS, **{kind: rates for kind, rates
                                               in rate_limits.items() if kind in _WHAT}},
                         rate_limit_storage)
    allowed = frozenset(parse_origin(origin) for origin in allow_origins)
    hashing = asyncio.Semaphore(settings.hashing_at_once)
    router = APIRouter(route_class=_AccountRoute)

    def now_ms() -> int:
        return int(settings.clock() * 1000)

    def same_site(request: Request) -> None:
        """Refuse a request the browser says another site made (an allowed origin's
        pages excepted). The Origin rule has already refused a foreign Origin."""
        site = request.headers.get("sec-fetch-site")
        if site is None or site in ("same-origin", "none"):
            return
        origin = request.headers.get("origin")
        if origin is not None:
            try:
                if parse_origin(origin) in allowed:
                    return
            except ValueError:
                pass
        raise _Refusal(403, "cross_site", f"a {site[:20]!r} request may not sign up, log in "
                                          "or log out; only the server's own pages may")

    async def limit(kind: str, request: Request) -> None:
        address = _address(request)
        try:
            await limiter.check(kind, address)
        except RateLimited as refused:
            raise _Refusal(429, "rate_limited", f"too many {_WHAT[kind]} from {address}; "
                           f"try again in {refused.retry_after} s",
                           refused.retry_after) from None

    def writable() -> None:
        """Refuse at once while storage fails (a write would wait until it works)."""
        if not store.health.ok:
            raise StorageError(store.health.error or "writes do not commit")

    async def hashed(password: str) -> str:
        async with hashing:
            return await asyncio.to_thread(passwords.hash, password)

    async def verified(stored: str | None, password: str) -> bool:
        async with hashing:
            return await asyncio.to_thread(passwords.verify, stored, password)

    def cookie_hash(request: Request) -> str | None:
        token = request.cookies.get(SESSION_COOKIE)
        return token_hash(token) if token and len(token) <= 100 else None

    async def current_user(request: Request) -> StoredUser | None:
        found = cookie_hash(request)
        return None if found is None else await store.accounts.find_by_session(found, now_ms())

    def secure(request: Request) -> bool:
        return request.url.scheme == "https"

    def logged_in(request: Request, user: StoredUser, token: str,
                  status: int) -> JSONResponse:
        response = JSONResponse({"name": user.name}, status_code=status,
                                headers={"Cache-Control": "no-store"})
        response.set_cookie(SESSION_COOKIE, token, max_age=int(settings.session_seconds),
                            path="/", secure=secure(request), httponly=True, samesite="lax")
        return response

    def logged_out(request: Request, answer: dict[str, Any]) -> JSONResponse:
        response = JSONResponse(answer, headers={"Cache-Control": "no-store"})
        response.delete_cookie(SESSION_COOKIE, path="/", secure=secure(request),
                               httponly=True, samesite="lax")
        return response

    @router.post("/api/signup", status_code=201)
    async def signup(request: Request) -> JSONResponse:
        """A new account, logged in at once."""
        same_site(request)
        await limit("signup", request)
        body = await _body(request)
        name = check_name(body.get("name"))
        password = check_password(body.get("password"), name)
        key = name_key(name)
        writable()
        taken = await store.accounts.find(key)
        if taken is None:
            token = new_token()
            now = now_ms()
            user = await store.accounts.create(
                name, key, await hashed(password), session_hash=token_hash(token),
                expires_at=now + int(settings.session_seconds * 1000), now=now,
                replaces=cookie_hash(request))
            if user is not None:
                return logged_in(request, user, token, 201)
            taken = await store.accounts.find(key)
        same = "" if taken is None or taken.name == name else f" (as {taken.name!r})"
        raise _Refusal(409, "name_taken", f"the name {name!r} is taken{same}; names are the "
                                          "same whatever their case: choose another")

    @router.post("/api/login")
    async def login(request: Request) -> JSONResponse:
        """Log in with a name and a password."""
        same_site(request)
        await limit("login", request)
        body = await _body(request)
        name, password = body.get("name"), body.get("password")
        if not isinstance(name, str) or not isinstance(password, str):
            raise _Refusal(400, "bad_request", "give the name and the password as text")
        name = name.strip()
        key = name_key(name) if 0 < len(name) <= LONGEST_NAME_ASKED else ""
        now = now_ms()
        writable()
        locked_until = await store.accounts.login_locked_until(key, now) if key else 0
        if locked_until:
            locked_for = max(1, math.ceil((locked_until - now) / 1000))
            raise _Refusal(429, "login_locked", "too many wrong passwords for this name; "
                           f"try again in {locked_for} s", locked_for)
        user = await store.accounts.find(key) if key else None
        stored = (user.password_hash if user is not None
                  and len(password) <= PASSWORD_LENGTH[1] else None)
        right = await verified(stored, password)  # as long for no account at all
        if user is None or not right:
            wait: int | None = None
            if key:
                until = await store.accounts.add_login_failure(
                    key, now=now, forget_before=now - int(pace.forget_after * 1000),
                    lock_ms=lambda failures: int(pace.lock_seconds(failures) * 1000))
                wait = max(1, math.ceil((until - now) / 1000)) if until else None
            later = f"; try again in {wait} s" if wait else ""
            raise _Refusal(401, "wrong_login", f"wrong name or password{later}", wait)
        rehashed = (await hashed(password) if passwords.needs_rehash(user.password_hash)
                    else None)
        token = new_token()
        await store.accounts.start_session(
            user.id, token_hash(token), expires_at=now + int(settings.session_seconds * 1000),
            now=now, name_key=key, password_hash=rehashed, replaces=cookie_hash(request))
        return logged_in(request, user, token, 200)

    @router.post("/api/logout")
    async def logout(request: Request) -> JSONResponse:
        """End this browser's session (nothing to do when it has none)."""
        same_site(request)
        found = cookie_hash(request)
        if found is not None:
            writable()
            await store.accounts.end_session(found)
        return logged_out(request, {"name": None})

    @router.get("/api/me")
    async def me(request: Request) -> JSONResponse:
        """Who this browser is logged in as: ``{"name": null}`` for a guest."""
        user = await current_user(request)
        if user is None and SESSION_COOKIE in request.cookies:
            return logged_out(request, {"name": None})  # a stale cookie: clear it
        return JSONResponse({"name": None if user is None else user.name},
                            headers={"Cache-Control": "no-store"})

    return router
