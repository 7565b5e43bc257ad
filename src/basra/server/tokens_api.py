"""Personal access tokens (``docs/api.md``, "Tokens"): made, listed and revoked from a
logged-in page (the session cookie: a token cannot make tokens).

    POST   /api/tokens        {"description", "scopes": ["read", "play", "bot"]}
                              -> 201 {"token", "id", "description", "scopes", ...}
    GET    /api/tokens        -> {"tokens": [{"id", "description", "scopes", ...}]}
    DELETE /api/tokens/{id}   -> {"revoked": id}
    GET    /api/account       (Bearer, scope read) -> {"id", "name", "bot", "scopes"}

The token is in the answer to its POST only; the server keeps its SHA-256.
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request

from basra.players.accounts import token_hash
from basra.store.schema import TOKEN_SCOPES

from .bearer import TOKEN_PREFIX, token_account
from .bodies import TokenBody, openapi_body, read_body
from .deps import AccountOf, StoreOf, account_settings
from .errors import LoginRequiredError, TokenError

__all__ = ["MAX_TOKENS", "router"]

router = APIRouter()

MAX_TOKENS = 20
"""Tokens one account may hold at once."""
MAX_DESCRIPTION = 120


def _user(user: tuple[int, str] | None) -> tuple[int, str]:
    if user is None:
        raise LoginRequiredError("tokens are made from your account page: log in first")
    return user


@router.post("/api/tokens", status_code=201, openapi_extra=openapi_body(TokenBody, True))
async def create(request: Request, store: StoreOf, user: AccountOf) -> dict[str, Any]:
    """A new token for the logged-in account: shown this once."""
    account = _user(user)
    body = await read_body(request, TokenBody,
                           example='{"description": "my bot", "scopes": ["bot"]}')
    description = body.description if body.description is not None else ""
    if (not isinstance(description, str) or len(description) > MAX_DESCRIPTION
            or not description.isprintable()):
        raise TokenError("bad_token_request", f"description must be text of at most "
                         f"{MAX_DESCRIPTION} characters", field="description")
    scopes = body.scopes
    if (not isinstance(scopes, list) or not scopes
            or any(scope not in TOKEN_SCOPES for scope in scopes)):
        raise TokenError("bad_token_request", f"scopes must be a list of "
                         f"{', '.join(TOKEN_SCOPES)}, not {scopes!r}"[:200], field="scopes")
    if len(await store.tokens.of_account(account[0])) >= MAX_TOKENS:
        raise TokenError("bad_token_request", f"you hold {MAX_TOKENS} tokens, the most: "
                         "revoke one first", field="tokens")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    now = int(account_settings(request).clock() * 1000)
    made = await store.tokens.create(account[0], token_hash(token), description.strip(),
                                     sorted(set(scopes), key=TOKEN_SCOPES.index), now)
    return {"token": token, **made.to_json()}


@router.get("/api/tokens")
async def listing(store: StoreOf, user: AccountOf) -> dict[str, Any]:
    """The logged-in account's tokens (never the tokens themselves)."""
    account = _user(user)
    return {"tokens": [token.to_json() for token in await store.tokens.of_account(account[0])]}


@router.delete("/api/tokens/{token_id}")
async def revoke(token_id: int, request: Request, store: StoreOf,
                 user: AccountOf) -> dict[str, Any]:
    """Revoke a token of the logged-in account: it stops working at once."""
    account = _user(user)
    now = int(account_settings(request).clock() * 1000)
    if not await store.tokens.revoke(account[0], token_id, now):
        raise TokenError("unknown_token_id", f"no token of yours has the id {token_id}",
                         token=token_id)
    return {"revoked": token_id}


@router.get("/api/account")
async def account(request: Request) -> dict[str, Any]:
    """Who a token stands for (scope ``read``)."""
    user, token = await token_account(request, "read")
    return {"id": user.id, "name": user.name, "bot": user.bot, "scopes": list(token.scopes)}
