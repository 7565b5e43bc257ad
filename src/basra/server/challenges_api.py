"""Challenges and notifications (``docs/api.md``, "Challenges" and "Notifications").

    POST /api/challenge/{name}          {variant, players, rated, turn_seconds, invite}
                                        -> 201 a challenge
    POST /api/challenge/open            {...} -> 201 a challenge anyone may accept
    GET  /api/challenge/{id}            -> a challenge
    POST /api/challenge/{id}/accept     -> {"table", "seat", "token", "url"}
    POST /api/challenge/{id}/decline    {"reason"} -> a challenge
    POST /api/challenge/{id}/cancel     -> a challenge
    GET  /api/challenges                -> {"incoming": [...], "outgoing": [...]}
    GET  /api/notifications             -> {"unread", "notifications": [...]}
    POST /api/notifications/read        {"ids": [...]} or {} for all -> {"unread"}
    GET  /api/notifications/stream      -> ndjson: each new notification, a ping every 10 s

A page uses its session cookie; a program its token (``Authorization: Bearer``, scope
``play`` or ``bot`` to challenge and answer, ``read`` to read). The challenged account is
notified (``challenge``), the challenger when it is accepted (``challenge_accepted``, with
its own seat's token: only it receives it), declined or cancelled; players invited to a
three- or four-player table are notified of it (``table_invite``). A challenge is pending
for :data:`EXPIRES` at most.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from basra.players.accounts import name_key
from basra.rules import RulesError, preset
from basra.store import Store
from basra.store.challenges import StoredChallenge

from .bearer import account_or_token
from .bodies import ChallengeBody, DeclineBody, ReadBody, openapi_body, read_body
from .connections import Account
from .deps import StoreOf, account_settings
from .errors import (
    ChallengeError,
    LoginRequiredError,
    ServerBusyError,
    UnknownUserError,
)
from .hub import Hub
from .notifying import Notifier
from .seeking import Seeking
from .table import ConfigError, SeatConfig, TableConfig

__all__ = ["DECLINE_REASONS", "EXPIRES", "router"]

router = APIRouter()

EXPIRES = 20 * 60 * 1000
"""How long a challenge stays pending (milliseconds)."""
MOST_PENDING = 20
"""Pending challenges one account may have sent at once."""
DECLINE_REASONS = ("generic", "later", "too_fast", "too_slow", "casual", "rated", "variant",
                   "not_bots")
"""Why a challenge is declined (the pages word each)."""
KEEP_ALIVE = 10.0
"""Seconds between two keep-alive lines of a stream."""
PLAY = ("play", "bot")
"""The token scopes that may challenge and answer challenges."""


def _now(request: Request) -> int:
    return int(account_settings(request).clock() * 1000)


def _notifier(request: Request) -> Notifier:
    notifier: Notifier = request.app.state.notifier
    return notifier


async def _account(request: Request, scope: str | tuple[str, ...]) -> Account:
    found = await account_or_token(request, scope)
    if found is None:
        raise LoginRequiredError("challenges are for players with an account: log in first")
    return found


async def _names(store: Store, ids: list[int]) -> dict[int, str]:
    names = {}
    for user_id in set(ids):
        found = await store.accounts.find_by_id(user_id)
        if found is not None:
            names[user_id] = found.name
    return names


async def _view(store: Store, challenge: StoredChallenge, now: int) -> dict[str, Any]:
    """A challenge as the API sends it."""
    names = await _names(store, [challenge.from_user, *challenge.invited,
                                 *([challenge.to_user] if challenge.to_user else [])])
    expired = challenge.status == "pending" and now - challenge.created_at >= EXPIRES
    return {
        "id": challenge.id, "from": names.get(challenge.from_user),
        "to": None if challenge.to_user is None else names.get(challenge.to_user),
        "invite": [names.get(i) for i in challenge.invited], "variant": challenge.variant,
        "players": challenge.players, "rated": challenge.rated,
        "turn_seconds": challenge.turn_seconds,
        "status": "expired" if expired else challenge.status, "reason": challenge.reason,
        "table": challenge.table_code, "created_at": challenge.created_at,
        "url": f"/challenge/{challenge.id}",
    }


async def _challenge(store: Store, challenge_id: str) -> StoredChallenge:
    found = await store.challenges.get(challenge_id)
    if found is None:
        raise ChallengeError("unknown_challenge", f"no challenge has the id "
                             f"{challenge_id[:40]!r}", challenge=challenge_id[:40])
    return found


async def _parse(request: Request, store: Store, sender: Account) -> dict[str, Any]:
    """A challenge's game from its body; raises ``bad_challenge`` naming the field."""
    body = await read_body(request, ChallengeBody, example='{"variant": "egyptian", '
                                                         '"players": 2, "rated": false}')
    variant = body.variant if body.variant is not None else "egyptian"
    try:
        if not isinstance(variant, str):
            raise RulesError(f"variant must be a preset's name, not {variant!r}")
        found = preset(variant)
    except RulesError as error:
        raise ChallengeError("bad_challenge", str(error), field="variant") from None
    players = body.players if body.players is not None else found.players[0]
    if isinstance(players, bool) or players not in found.players:
        raise ChallengeError("bad_challenge", f"{found.name} is played by "
                             f"{' or '.join(map(str, found.players))} players, not "
                             f"{players!r}", field="players")
    rated = body.rated if body.rated is not None else False
    if not isinstance(rated, bool):
        raise ChallengeError("bad_challenge", f"rated must be true or false, not {rated!r}",
                             field="rated")
    turn = body.turn_seconds if body.turn_seconds is not None else 60
    if isinstance(turn, bool) or not isinstance(turn, int) or not (
            turn == 0 or 5 <= turn <= 600):
        raise ChallengeError("bad_challenge", f"turn_seconds {turn!r} is not 0 (no timer) "
                             "or 5 to 600 seconds", field="turn_seconds")
    invite = body.invite if body.invite is not None else []
    if not isinstance(invite, list) or len(invite) > players - 2 or not all(
            isinstance(name, str) for name in invite):
        raise ChallengeError("bad_challenge", f"invite at most {players - 2} more players "
                             "by name", field="invite")
    invited = []
    for name in invite:
        account = await store.accounts.find(name_key(name))
        if account is None or account.id == sender[0]:
            raise ChallengeError("bad_challenge", f"no other player is named {name[:40]!r}",
                                 field="invite")
        invited.append(account.id)
    if rated:
        seeking: Seeking = request.app.state.seeking
        await seeking.check_rated_play(sender[0])
    return {"variant": found.name, "players": players, "rated": rated, "turn_seconds": turn,
            "invited": tuple(dict.fromkeys(invited))}


async def _send(request: Request, store: Store, to_user: int | None) -> dict[str, Any]:
    sender = await _account(request, PLAY)
    now = _now(request)
    game = await _parse(request, store, sender)
    if await store.challenges.count_pending_from(sender[0], now - EXPIRES) >= MOST_PENDING:
        raise ChallengeError("challenge_limit", f"you have {MOST_PENDING} challenges "
                             "waiting for an answer, the most: cancel one first",
                             most=MOST_PENDING)
    challenge = StoredChallenge(secrets.token_hex(4), sender[0], to_user, game["invited"],
                                game["variant"], game["players"], game["rated"],
                                game["turn_seconds"], "pending", None, None, now, now)
    await store.challenges.create(challenge)
    view = await _view(store, challenge, now)
    if to_user is not None:
        await _notifier(request).notify(to_user, "challenge", view)
    return view


@router.post("/api/challenge/open", status_code=201,
             openapi_extra=openapi_body(ChallengeBody))
async def challenge_open(request: Request, store: StoreOf) -> dict[str, Any]:
    """A challenge anyone logged in may accept through its link."""
    return await _send(request, store, None)


@router.post("/api/challenge/{name}", status_code=201,
             openapi_extra=openapi_body(ChallengeBody))
async def challenge(name: str, request: Request, store: StoreOf) -> dict[str, Any]:
    """Challenge the player named ``name``."""
    sender = await _account(request, PLAY)
    target = await store.accounts.find(name_key(name))
    if target is None:
        raise UnknownUserError(f"no player is named {name[:40]!r}", name=name[:40])
    if target.id == sender[0]:
        raise ChallengeError("bad_challenge", "you cannot challenge yourself", field="name")
    if target.id in await store.moderation.avoided(sender[0]):
        raise ChallengeError("blocked", f"you cannot challenge {target.name}: one of you "
                             "blocked the other")
    return await _send(request, store, target.id)


@router.get("/api/challenge/{challenge_id}")
async def one(challenge_id: str, request: Request, store: StoreOf) -> dict[str, Any]:
    """A challenge (an open challenge's page shows it to anyone)."""
    return await _view(store, await _challenge(store, challenge_id), _now(request))


@router.post("/api/challenge/{challenge_id}/accept")
async def accept(challenge_id: str, request: Request, store: StoreOf) -> dict[str, Any]:
    """Accept a challenge: its table is made and both players seated; your seat's token
    (the challenger's is in its notification)."""
    player = await _account(request, PLAY)
    found = await _challenge(store, challenge_id)
    now = _now(request)
    if found.to_user is not None and found.to_user != player[0]:
        raise ChallengeError("not_yours", "this challenge is for another player")
    if found.from_user == player[0]:
        raise ChallengeError("not_yours", "you cannot accept your own challenge")
    if found.status != "pending" or now - found.created_at >= EXPIRES:
        raise ChallengeError("challenge_closed", "this challenge is no longer open",
                             status=(await _view(store, found, now))["status"])
    if found.from_user in await store.moderation.avoided(player[0]):
        raise ChallengeError("blocked", "one of you blocked the other")
    if found.rated:
        seeking: Seeking = request.app.state.seeking
        await seeking.check_rated_play(player[0])
    names = await _names(store, [found.from_user])
    challenger = (found.from_user, names.get(found.from_user, "?"))
    table, seats = await _make_table(request.app.state.hub, found, challenger, player)
    if not await store.challenges.close(found.id, "accepted", now, table_code=table,
                                        after=now - EXPIRES):
        raise ChallengeError("challenge_closed", "someone else accepted it first",
                             status="accepted")
    view = await _view(store, await _challenge(store, found.id), now)
    notifier = _notifier(request)
    seat, token = seats[challenger[0]]
    await notifier.notify(found.from_user, "challenge_accepted", {
        "challenge": view, "by": player[1], "table": table, "seat": seat, "token": token,
        "url": f"/t/{table}"})
    for invited in found.invited:
        await notifier.notify(invited, "table_invite", {"challenge": view, "table": table,
                                                        "url": f"/t/{table}"})
    seat, token = seats[player[0]]
    return {"table": table, "seat": seat, "token": token, "url": f"/t/{table}"}


async def _make_table(hub: Hub, found: StoredChallenge, challenger: Account,
                      player: Account) -> tuple[str, dict[int, tuple[int, str]]]:
    """The challenge's table: its two players in seats drawn at random, a seat kept
    free for each invited player, the computer in the others."""
    order = [challenger, player]
    random.shuffle(order)
    claims: list[tuple[object, Account | None] | None] = []
    seats: list[SeatConfig] = []
    for seat in range(found.players):
        if seat < 2:
            claims.append((order[seat][1], order[seat]))
            seats.append(SeatConfig("human"))
        elif seat - 2 < len(found.invited):
            claims.append(None)
            seats.append(SeatConfig("human"))
        else:
            claims.append(None)
            seats.append(SeatConfig("bot", "expert"))
    config = TableConfig(found.variant, found.players, {}, tuple(seats), found.turn_seconds,
                         "expert", found.rated, public=found.rated)
    try:
        table, seated = await hub.seat_players(config, claims)
    except ConfigError as error:
        raise ServerBusyError(f"the table could not be made: {error}") from None
    return table.code, {order[i][0]: seated[i] for i in range(2)}


@router.post("/api/challenge/{challenge_id}/decline",
             openapi_extra=openapi_body(DeclineBody))
async def decline(challenge_id: str, request: Request, store: StoreOf) -> dict[str, Any]:
    """Decline a challenge made to you, with a reason the challenger is told."""
    player = await _account(request, PLAY)
    found = await _challenge(store, challenge_id)
    body = await read_body(request, DeclineBody, example='{"reason": "later"}')
    reason = body.reason if body.reason is not None else "generic"
    if reason not in DECLINE_REASONS:
        raise ChallengeError("bad_challenge", f"reason must be one of "
                             f"{', '.join(DECLINE_REASONS)}, not {reason!r}"[:200],
                             field="reason")
    if found.to_user != player[0]:
        raise ChallengeError("not_yours", "only the challenged player declines a challenge")
    return await _close(request, store, found, "declined", found.from_user,
                        "challenge_declined", str(reason))


@router.post("/api/challenge/{challenge_id}/cancel")
async def cancel(challenge_id: str, request: Request, store: StoreOf) -> dict[str, Any]:
    """Take back a challenge you made."""
    player = await _account(request, PLAY)
    found = await _challenge(store, challenge_id)
    if found.from_user != player[0]:
        raise ChallengeError("not_yours", "only its sender cancels a challenge")
    return await _close(request, store, found, "cancelled", found.to_user,
                        "challenge_cancelled", None)


async def _close(request: Request, store: Store, found: StoredChallenge, status: str,
                 tell: int | None, kind: str, reason: str | None) -> dict[str, Any]:
    now = _now(request)
    if not await store.challenges.close(found.id, status, now, reason=reason,
                                        after=now - EXPIRES):
        raise ChallengeError("challenge_closed", "this challenge is no longer open",
                             status=(await _view(store, found, now))["status"])
    view = await _view(store, await _challenge(store, found.id), now)
    if tell is not None:
        await _notifier(request).notify(tell, kind, view)
    return view


@router.get("/api/challenges")
async def pending(request: Request, store: StoreOf) -> dict[str, Any]:
    """Your challenges waiting for an answer: made to you, and made by you."""
    player = await _account(request, ("read", "play", "bot"))
    now = _now(request)
    waiting = await store.challenges.pending(player[0], now - EXPIRES)
    views = [await _view(store, c, now) for c in waiting]
    return {"incoming": [v for c, v in zip(waiting, views, strict=True)
                         if c.to_user == player[0]],
            "outgoing": [v for c, v in zip(waiting, views, strict=True)
                         if c.from_user == player[0]]}


# -- notifications -----------------------------------------------------------------------

@router.get("/api/notifications")
async def notifications(request: Request, store: StoreOf) -> dict[str, Any]:
    """Your latest notifications, newest first, and how many are unread."""
    player = await _account(request, ("read", "play", "bot"))
    return {"unread": await store.notifications.unread(player[0]),
            "notifications": await store.notifications.inbox(player[0])}


@router.post("/api/notifications/read", openapi_extra=openapi_body(ReadBody))
async def mark_read(request: Request, store: StoreOf) -> dict[str, Any]:
    """Mark notifications read: ``ids``, or all of them."""
    player = await _account(request, ("read", "play", "bot"))
    body = await read_body(request, ReadBody, example='{"ids": [1, 2]}')
    ids = body.ids
    if ids is not None and (not isinstance(ids, list) or len(ids) > 1000 or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids)):
        raise ChallengeError("bad_challenge", "ids must be a list of notification ids",
                             field="ids")
    await store.notifications.mark_read(player[0], ids, _now(request))
    return {"unread": await store.notifications.unread(player[0])}


@router.get("/api/notifications/stream", response_model=None)
async def stream(request: Request) -> StreamingResponse:
    """Every new notification as one line of JSON, and ``{"type": "ping"}`` every
    :data:`KEEP_ALIVE` seconds (a page keeps its session alive with it)."""
    player = await _account(request, ("read", "play", "bot"))
    notifier = _notifier(request)

    async def lines() -> AsyncIterator[str]:
        async with notifier.listen(player[0]) as queue:
            yield json.dumps({"type": "hello", "unread":
                              await notifier.store.notifications.unread(player[0])}) + "\n"
            while True:
                try:
                    found = await asyncio.wait_for(queue.get(), KEEP_ALIVE)
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    await account_or_token(request, ("read", "play", "bot"))  # (touched)
                    yield '{"type": "ping"}\n'
                    continue
                yield json.dumps({"type": "notification", **found}) + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson",
                             headers={"Cache-Control": "no-store",
                                      "X-Accel-Buffering": "no"})
