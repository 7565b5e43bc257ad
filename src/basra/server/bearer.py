"""Who a request with a personal access token is: ``Authorization: Bearer TOKEN``.

A token has scopes (``read``, ``play``, ``bot``): a route asks for the one it needs, and a
token without it is refused (``missing_scope``, 403); an unknown, malformed or revoked
token is ``bad_token`` (401). Every request that carries a token counts against the
token's own rate limit (``token``, wherever it comes from). A route that takes either a
logged-in page or a program (:func:`account_or_token`) reads the token when there is an
``Authorization`` header, else the session cookie.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

from basra.players.accounts import token_hash
from basra.store import Store, StoredUser
from basra.store.tokens import StoredToken

from .connections import Account
from .errors import TokenError
from .ratelimit import RateLimits
from .sessions import AccountSettings, request_account

__all__ = ["TOKEN_PREFIX", "account_or_token", "bearer_token", "token_account"]

TOKEN_PREFIX = "basra_"
"""Every token starts so (a secret scanner can find one pasted where it should not be)."""
MAX_TOKEN = 100
"""Longest token read."""


def bearer_token(connection: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer`` header, None without the header; raises
    :class:`TokenError` (``bad_token``) for another scheme."""
    header = connection.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or len(token) > MAX_TOKEN:
        raise TokenError("bad_token", "send Authorization: Bearer TOKEN with a personal "
                                      "access token (made on your account page)")
    return token.strip()


async def token_account(connection: HTTPConnection, scope: str | tuple[str, ...],
                        token: str | None = None) -> tuple[StoredUser, StoredToken]:
    """The account and token a request's Bearer token (or ``token``) stands for, if it
    has ``scope`` (one of them, given several); raises :class:`TokenError` or
    ``RateLimited``."""
    scopes = (scope,) if isinstance(scope, str) else scope
    app = connection.app
    store: Store = app.state.store
    settings: AccountSettings = app.state.account_settings
    limiter: RateLimits = app.state.limiter
    token = token if token is not None else bearer_token(connection)
    if token is None:
        raise TokenError("bad_token", "this needs a personal access token: send "
                                      "Authorization: Bearer TOKEN")
    found = await store.tokens.find(token_hash(token), int(settings.clock() * 1000))
    if found is None:
        raise TokenError("bad_token", "this token is unknown or was revoked")
    user, stored = found
    await limiter.check("token", f"token:{stored.id}")
    if not any(wanted in stored.scopes for wanted in scopes):
        needed = " or ".join(scopes)
        raise TokenError("missing_scope", f"this token lacks the {needed} scope "
                         f"(it has {', '.join(stored.scopes) or 'none'})", scope=needed)
    return user, stored


async def account_or_token(connection: HTTPConnection, scope: str | tuple[str, ...]
                           ) -> Account | None:
    """The account of a request's Bearer token (with ``scope``) when it sends one, else
    of its session cookie; None for a guest."""
    if bearer_token(connection) is not None:
        user, _token = await token_account(connection, scope)
        return user.id, user.name
    settings: AccountSettings = connection.app.state.account_settings
    found = await request_account(connection.app.state.store, connection, settings.clock)
    return None if found is None else (found.id, found.name)
