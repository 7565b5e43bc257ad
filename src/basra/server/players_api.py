"""Players' public pages over HTTP (``docs/web-protocol.md``, "Players"): a player's
ratings, rating history, matches and statistics, and the leaderboards.

    GET /api/users/{name}          -> {"name", "bot", "ratings", "history", "matches", "stats"}
    GET /api/leaderboard           -> {"pools": {pool: [top 20]}}
    GET /api/leaderboard?pool=P    -> {"pool": P, "players": [top 100]}
    GET /api/leaderboard?bots=1    -> the same of the bot accounts (``"bot": true``)

The computer levels are on every leaderboard of people at their fixed ratings
(:data:`basra.players.ratings.COMPUTER_RATINGS`), marked ``"computer": true``; bot
accounts have their own list (``docs/api.md``, "Bot accounts").
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from basra.players.accounts import name_key
from basra.players.ratings import COMPUTER_RATINGS, computer_rating, parse_pool
from basra.rules import RulesError, make_rules
from basra.store import Store, StoredRecord

from .deps import StoreOf
from .errors import UnknownUserError

__all__ = ["LEADERBOARD_ALL", "LEADERBOARD_POOL", "MATCHES_SHOWN", "router"]

LEADERBOARD_ALL = 20
"""Players per pool on the leaderboard of every pool."""
LEADERBOARD_POOL = 100
"""Players on one pool's leaderboard."""
MATCHES_SHOWN = 50
"""A player's latest matches on their page (the statistics count these)."""
LONGEST_NAME_ASKED = 100


def _side_of(record: StoredRecord, players: int) -> tuple[int, ...]:
    try:
        return make_rules(record.variant, players).side_of
    except RulesError:
        return tuple(range(players))


def _basras(record: StoredRecord, seat: int) -> tuple[int, int]:
    """The basras ``seat`` made in a record, and the deals it played."""
    try:
        document = json.loads(record.record)
        made = deals = 0
        for deal in document.get("deals", ()):
            seats = deal.get("seats", range(len(deal.get("hands", ()))))
            if seat in seats:
                deals += 1
            made += sum(1 for play in deal.get("plays", ())
                        if play.get("seat") == seat and play.get("basra"))
        return made, deals
    except (ValueError, AttributeError, TypeError):
        return 0, 0


router = APIRouter()


@router.get("/api/users/{name}")
async def profile(name: str, store: StoreOf) -> JSONResponse:
    """A player's public page: their ratings per pool, the rating after each rated
    match, their latest matches and statistics."""
    user = (await store.accounts.find(name_key(name))
            if len(name) <= LONGEST_NAME_ASKED else None)
    if user is None:
        raise UnknownUserError(f"no player has the name {name[:40]!r}", name=name[:40])
    ratings = await store.ratings.of_accounts([user.id])
    history: dict[str, list[list[int]]] = {}
    change_of: dict[int, int] = {}
    for pool, record_id, at, before, after in await store.ratings.history(user.id):
        history.setdefault(pool, []).append([at // 1000, after])
        change_of[record_id] = after - before
    matches = []
    wins = basras = deals = 0
    for record, seat, config in await store.records.of_account(user.id, MATCHES_SHOWN):
        players = len(record.players)
        side = _side_of(record, players)[seat] if seat < players else seat
        won = record.winner == side
        wins += won
        made, played = _basras(record, seat)
        basras += made
        deals += played
        matches.append({
            "record": str(record.id), "variant": record.variant, "players": players,
            "rated": bool(config.get("rated", False)),
            "finished_at": record.finished_at // 1000, "won": won,
            "names": record.players, "totals": record.totals,
            "change": change_of.get(record.id),
        })
    return JSONResponse({
        "name": user.name, "bot": user.bot,
        "ratings": {pool: {"rating": rating.display, "games": rating.games,
                           "provisional": rating.provisional}
                    for (_, pool), rating in sorted(ratings.items())},
        "history": history,
        "matches": matches,
        "stats": {"games": len(matches), "wins": wins,
                  "basras_per_deal": round(basras / deals, 2) if deals else 0.0},
    })


async def _board(store: Store, pool: str, limit: int, bots: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [
        {"name": name, "rating": rating.display, "games": rating.games,
         "provisional": rating.provisional, "computer": False, "bot": bots}
        for name, rating in await store.ratings.leaderboard(pool, limit, bots)]
    if not bots:
        rows += [{"name": f"Computer ({level})",
                  "rating": computer_rating(level, pool).display, "games": 0,
                  "provisional": False, "computer": True, "bot": False}
                 for level in COMPUTER_RATINGS]
    rows.sort(key=lambda row: -row["rating"])
    return rows[:limit]


@router.get("/api/leaderboard")
async def leaderboard(store: StoreOf, pool: str | None = None,
                      bots: str | None = None) -> JSONResponse:
    """The best players of every pool played (or of one ``pool``): people's, or with
    ``bots=1`` the bot accounts' own list."""
    of_bots = bots is not None and bots.lower() in ("1", "true", "yes")
    if pool is not None:
        found = parse_pool(pool)  # UnknownPoolError: 400 unknown_pool
        return JSONResponse({"pool": found.key, "bots": of_bots, "players": await _board(
            store, found.key, LEADERBOARD_POOL, of_bots)})
    played = await store.ratings.pools(of_bots)
    pools = sorted(set(played) if of_bots else {"egyptian-2", *played})
    return JSONResponse({"bots": of_bots,
                         "pools": {key: await _board(store, key, LEADERBOARD_ALL, of_bots)
                                   for key in pools}})
