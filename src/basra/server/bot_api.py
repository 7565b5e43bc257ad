"""Bot accounts and the Bot API (``docs/api.md``, "Bot accounts"), for programs that
play people online with a personal access token of scope ``bot``:

    POST /api/bot/account/upgrade          -> {"name", "bot": true}; 409 has_games
    GET  /api/stream/event                 -> ndjson: challenge, gameStart, gameFinish
    GET  /api/bot/game/stream/{code}       -> ndjson: the seat's states (bot_streams.py)
    POST /api/bot/game/{code}/move/{move}  -> {"ok": true}; 400 illegal_move, not_your_turn

An account that has never sat at a table may become a bot, for good; a bot account
plays through these routes only (its games come by challenges and tournaments that
allow bots; it never seeks). The seat a bot plays is the one its account holds at the
table (``bot_play.py``), wherever in a cluster the table lives.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from basra.players.accounts import token_hash
from basra.store import StoredUser

from .bearer import bearer_token, token_account
from .bot_play import at_table
from .bot_streams import Check, LineStream, event_lines, game_stream
from .challenges_api import EXPIRES
from .challenges_api import _view as challenge_view
from .deps import account_settings, address, hub_of, store_of
from .errors import BotError
from .notifying import Notifier

__all__ = ["bot_account", "router"]

router = APIRouter()

MAX_MOVE = 40
"""Longest move text read."""


async def bot_account(request: Request) -> StoredUser:
    """The bot account of a request's token (scope ``bot``); raises :class:`BotError`
    (``not_a_bot``) for a person's account, and the token's errors."""
    user, _token = await token_account(request, "bot")
    if not user.bot:
        raise BotError("not_a_bot", f"{user.name} is not a bot account: upgrade it first "
                       "(POST /api/bot/account/upgrade)", name=user.name)
    return user


@router.post("/api/bot/account/upgrade")
async def upgrade(request: Request) -> dict[str, Any]:
    """Make the token's account a bot account, for good (it must never have played)."""
    user, _token = await token_account(request, "bot")
    now = int(account_settings(request).clock() * 1000)
    upgraded = await store_of(request).accounts.upgrade_to_bot(user.id, now)
    if upgraded is None:
        raise BotError("has_games", f"{user.name} has played games: only an account that "
                       "never sat at a table can become a bot", name=user.name)
    return {"name": upgraded.name, "bot": True}


async def _seat(request: Request, code: str, user: StoredUser) -> int:
    seat = await at_table(hub_of(request), code, "seat", user.id)
    if seat is None:
        raise BotError("not_your_game", f"{user.name} holds no seat at table {code[:40]!r}",
                       table=code[:40])
    return int(seat)


def _token_check(request: Request) -> Check:
    """Whether the request's token still works (not revoked): asked by its streams at
    each keep-alive, apart from the token's rate limit."""
    token = bearer_token(request)
    store = store_of(request)
    clock = account_settings(request).clock

    async def check() -> bool:
        if token is None:
            return False
        return await store.tokens.find(token_hash(token), int(clock() * 1000)) is not None

    return check


@router.get("/api/stream/event", response_model=None)
async def events(request: Request) -> LineStream:
    """The account's events as newline-delimited JSON: its pending challenges and its
    games in progress at once, then each new challenge and each game that starts or
    ends (scope ``bot``, or ``play`` for a person's program)."""
    user, _token = await token_account(request, ("bot", "play"))
    notifier: Notifier = request.app.state.notifier
    store = store_of(request)
    listening = contextlib.AsyncExitStack()
    queue = await listening.enter_async_context(notifier.listen(user.id))
    try:
        now = int(account_settings(request).clock() * 1000)
        first = [{"type": "challenge", "challenge": await challenge_view(store, found, now)}
                 for found in await store.challenges.pending(user.id, now - EXPIRES)
                 if found.to_user == user.id]
        first += [{"type": "gameStart", "game": {"id": code, "seat": seat}}
                  for code, seat in await store.tables.playing_of(user.id)]
    except BaseException:
        await listening.aclose()
        raise
    return LineStream(event_lines(queue, first, _token_check(request)), listening.aclose)


@router.get("/api/bot/game/stream/{code}", response_model=None)
async def game(code: str, request: Request) -> LineStream:
    """The bot's seat at a table, as newline-delimited JSON: the current state at once,
    then a line each time it changes, until the match is over."""
    user = await bot_account(request)
    seat = await _seat(request, code, user)
    hub = hub_of(request)
    connection = await hub.open_socket(code, None, address(request), seat=seat)
    return game_stream(hub, connection, user.id, _token_check(request))


@router.post("/api/bot/game/{code}/move/{move}", response_model=None)
async def play_move(code: str, move: str, request: Request) -> JSONResponse:
    """Play the bot's move, written in protocol notation (``7H:3C+4H``, ``7H``)."""
    user = await bot_account(request)
    answer = await at_table(hub_of(request), code, "move", user.id, move=move[:MAX_MOVE])
    if answer is None:
        raise BotError("not_your_game", f"{user.name} holds no seat at table {code[:40]!r}",
                       table=code[:40])
    status, body = answer
    return JSONResponse(body, status_code=int(status))
