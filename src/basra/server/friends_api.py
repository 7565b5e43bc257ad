"""Following players over HTTP (``docs/api.md``, "Friends"): follow and unfollow from a
logged-in page, and the list of whom one follows with where each is.

    POST /api/follow/{name}     -> {"name", "following": true, "followers": n}
    POST /api/unfollow/{name}   -> {"name", "following": false, "followers": n}
    GET  /api/follow/{name}     -> {"name", "following": bool, "followers": n} (a guest too)
    GET  /api/following         (cookie, or Bearer with scope read)
                                -> {"following": [{"name", "status", "table", "bot"}]}

``status`` is ``playing`` (``table`` is the code of the table to watch, ``/t/{code}``),
``online`` (a session used in the last two minutes) or ``away``: read from the database
(:mod:`basra.store.follows`), so every server of a cluster answers the same. Players are
listed playing first, then online, then away, each group by name.

A block overrides it all: an account cannot follow one it blocked or that blocked it
(403 ``blocked``), and a block ends the follows between the two both ways.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from basra.i18n import sort_key
from basra.players.accounts import name_key
from basra.store import Store, StoredUser
from basra.store.follows import PRESENCES, presence

from .accounts_api import accounts_of
from .bearer import account_or_token
from .deps import AccountOf, StoreOf, account_settings
from .errors import FollowError, LoginRequiredError, UnknownUserError
from .pages import page_language

__all__ = ["MAX_FOLLOWING", "router"]

router = APIRouter()

MAX_FOLLOWING = 500
"""Accounts one account may follow at once."""

_NO_STORE = {"Cache-Control": "no-store"}


def _logged_in(user: tuple[int, str] | None) -> tuple[int, str]:
    if user is None:
        raise LoginRequiredError("following players needs an account: log in first")
    return user


async def _player(store: Store, name: str) -> StoredUser:
    """The account called ``name``, or 404 ``unknown_user``."""
    wanted = name.strip()
    found = await store.accounts.find(name_key(wanted)) if 0 < len(wanted) <= 100 else None
    if found is None:
        raise UnknownUserError(f"no player is called {wanted[:40]!r}", name=wanted[:40])
    return found


async def _answer(store: Store, user_id: int | None, player: StoredUser) -> JSONResponse:
    return JSONResponse({"name": player.name,
                         "following": user_id is not None
                         and await store.follows.follows(user_id, player.id),
                         "followers": await store.follows.followers(player.id)},
                        headers=_NO_STORE)


@router.post("/api/follow/{name}")
async def follow(name: str, request: Request, store: StoreOf,
                 user: AccountOf) -> JSONResponse:
    """Follow a player: they appear in your following list."""
    accounts_of(request).same_site(request)
    me = _logged_in(user)
    player = await _player(store, name)
    if player.id == me[0]:
        raise FollowError("bad_follow", "you cannot follow yourself")
    if player.id in await store.moderation.avoided(me[0]):
        raise FollowError("blocked", f"you cannot follow {player.name}: one of you blocked "
                                     "the other", name=player.name)
    if (not await store.follows.follows(me[0], player.id)
            and await store.follows.count(me[0]) >= MAX_FOLLOWING):
        raise FollowError("follow_limit", f"you follow {MAX_FOLLOWING} players, the most: "
                          "unfollow one first", most=MAX_FOLLOWING)
    now = int(account_settings(request).clock() * 1000)
    await store.follows.follow(me[0], player.id, now)
    return await _answer(store, me[0], player)


@router.post("/api/unfollow/{name}")
async def unfollow(name: str, request: Request, store: StoreOf,
                   user: AccountOf) -> JSONResponse:
    """Stop following a player (nothing to do when you did not follow them)."""
    accounts_of(request).same_site(request)
    me = _logged_in(user)
    player = await _player(store, name)
    await store.follows.unfollow(me[0], player.id)
    return await _answer(store, me[0], player)


@router.get("/api/follow/{name}")
async def follows(name: str, store: StoreOf, user: AccountOf) -> JSONResponse:
    """How many follow a player, and whether you do (never, for a guest)."""
    return await _answer(store, None if user is None else user[0], await _player(store, name))


@router.get("/api/following")
async def following(request: Request, store: StoreOf) -> JSONResponse:
    """The players you follow: playing (with the table to watch), online or away, each
    group by name as the asking page's language sorts names."""
    me = _logged_in(await account_or_token(request, "read"))
    now = int(account_settings(request).clock() * 1000)
    listed: list[dict[str, Any]] = []
    for followed in await store.follows.following(me[0], now):
        status = presence(followed, now)
        listed.append({"name": followed.name, "status": status,
                       "table": followed.table if status == "playing" else None,
                       "bot": followed.bot})
    by_name = sort_key(page_language(request))
    listed.sort(key=lambda entry: (PRESENCES.index(entry["status"]), by_name(entry["name"])))
    return JSONResponse({"following": listed}, headers=_NO_STORE)
