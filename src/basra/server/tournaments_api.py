"""The tournaments' HTTP API (``docs/web-protocol.md``, "Tournaments").

    POST /api/tournaments                   {kind, variant, ...} -> 201 {"id"}
    GET  /api/tournaments                   -> {"upcoming", "running", "finished"}
    GET  /api/tournaments/{id}              -> the tournament, its standings and games
    POST /api/tournaments/{id}/join         {} or {"partner": name} -> the tournament
    POST /api/tournaments/{id}/withdraw     -> the tournament
    POST /api/tournaments/{id}/pause        {"paused": bool} -> the tournament
    GET  /api/tournaments/{id}/records      -> every finished game, basra-record/1 ndjson

Joining, withdrawing and pausing change the entrant in the store; the director
(:mod:`.directing`) acts on it at its next pass. Only the asking account is told its own
seat's token (``you.game``), so that its tournament page can take it to its table.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from basra.players.accounts import name_key
from basra.players.events import SpecError, parse_spec
from basra.players.ratings import new_rating, pool_key
from basra.rules import make_rules
from basra.store import Store
from basra.store.tournaments import StoredEntrant, StoredTournament

from .bearer import account_or_token, bearer_token
from .bodies import PauseBody, TournamentBody, TournamentJoinBody, openapi_body, read_body
from .deps import AccountOf, StoreOf
from .directing import (
    Director,
    account_game,
    computer_entrants,
    entrant_for,
    stored_tournament,
)
from .errors import LoginRequiredError, TournamentError, UnknownTournamentError
from .seeking import Seeking
from .tournament_views import games_view, standings, summary

__all__ = ["router"]

router = APIRouter()

FINISHED_LISTED = 30
"""Finished tournaments the list shows (the latest)."""
DAY_MS = 24 * 3600 * 1000


def _director(request: Request) -> Director:
    director: Director = request.app.state.director
    return director


async def _tournament(store: Store, tournament_id: str) -> StoredTournament:
    found = await store.tournaments.get(tournament_id)
    if found is None:
        raise UnknownTournamentError(f"no tournament has the id {tournament_id[:40]!r}",
                                     tournament=tournament_id[:40])
    return found


async def _view(request: Request, tournament: StoredTournament,
                user: tuple[int, str] | None) -> dict[str, Any]:
    """A tournament as ``GET /api/tournaments/{id}`` sends it to ``user``."""
    store: Store = request.app.state.store
    entrants = await store.tournaments.entrants(tournament.id)
    games = await store.tournaments.games(tournament.id)
    lines = standings(tournament, entrants, games)
    finished = tournament.status == "finished"
    played = finished and any(line["games"] for line in lines)
    podium = [line["name"] for line in lines[:3]] if played else []
    creator = None
    if tournament.created_by is not None:
        found = await store.accounts.find_by_id(tournament.created_by)
        creator = None if found is None else found.name
    rules = make_rules(tournament.variant, tournament.players)
    view = {
        **summary(tournament, sum(1 for e in entrants if e.status in ("active", "paused"))),
        "now": _director(request).now_ms(), "created_by": creator,
        "allow_bots": tournament.allow_bots,
        "teams": rules.sides != rules.players, "standings": lines,
        "games": games_view(entrants, games), "podium": podium,
        "winner": podium[0] if podium else None, "you": None,
    }
    if user is not None:
        mine = entrant_for(tournament, entrants, user[0])
        status = None if mine is None else mine.status
        invitee = mine is not None and mine.invited == user[0]
        entered = status in ("active", "paused", "invited") and not invitee
        view["you"] = {
            "entered": entered, "status": status,
            "invited_by": mine.members[0][1] if invitee and mine is not None else None,
            "game": account_game(games, user[0]),
            "can_join": not finished and not entered
            and (tournament.kind == "arena" or tournament.status == "created"),
            "can_withdraw": not finished and entered,
            "can_pause": not finished and status in ("active", "paused"),
        }
    return view


@router.post("/api/tournaments", status_code=201,
             openapi_extra=openapi_body(TournamentBody, True))
async def create(request: Request, store: StoreOf, user: AccountOf) -> dict[str, Any]:
    """A new tournament, made by the logged-in account (a few a day)."""
    if user is None:
        raise LoginRequiredError("tournaments are made by players with an account: "
                                 "log in first")
    body = await read_body(request, TournamentBody, example='{"kind": "arena", '
                                                           '"variant": "egyptian", "minutes": 30}')
    try:
        spec = parse_spec(body.model_dump(exclude_none=True))
    except SpecError as error:
        raise TournamentError("bad_tournament", str(error), field=error.field) from None
    director = _director(request)
    now = director.now_ms()
    most = director.settings.daily_limit
    if await store.tournaments.created_since(user[0], now - DAY_MS) >= most:
        raise TournamentError("tournament_limit", f"you made {most} tournaments in the "
                              "last 24 hours, the most a day: try again later", most=most)
    made = stored_tournament(spec, now, user[0])
    await store.tournaments.create(made, computer_entrants(spec, now))
    return {"id": made.id}


@router.get("/api/tournaments")
async def listing(store: StoreOf) -> dict[str, Any]:
    """Upcoming, running and the latest finished tournaments."""
    live = await store.tournaments.live()
    finished = await store.tournaments.finished(FINISHED_LISTED)
    counts = await store.tournaments.entrant_counts([t.id for t in [*live, *finished]])

    def line(tournament: StoredTournament) -> dict[str, Any]:
        return summary(tournament, counts.get(tournament.id, 0))

    return {"upcoming": [line(t) for t in live if t.status == "created"],
            "running": [line(t) for t in live if t.status == "started"],
            "finished": [line(t) for t in finished]}


@router.get("/api/tournaments/{tournament_id}")
async def one(tournament_id: str, request: Request, store: StoreOf,
              user: AccountOf) -> dict[str, Any]:
    """A tournament: its rules, standings, games, podium, and the asker's place in it."""
    return await _view(request, await _tournament(store, tournament_id), user)


@router.post("/api/tournaments/{tournament_id}/join",
             openapi_extra=openapi_body(TournamentJoinBody))
async def join(tournament_id: str, request: Request, store: StoreOf,
               user: AccountOf) -> dict[str, Any]:
    """Enter the logged-in account, or a token's (scope ``bot`` or ``play``), with a
    partner in a partnership event; a rated event refuses an account kept from rated
    play (``playban``, ``rated_banned``), and an event that does not allow bots refuses
    a bot account (``bots_not_allowed``)."""
    if bearer_token(request) is not None:
        user = await account_or_token(request, ("bot", "play"))
    if user is None:
        raise LoginRequiredError("tournaments are for players with an account: log in first")
    tournament = await _tournament(store, tournament_id)
    if not tournament.allow_bots and await store.accounts.bots_among([user[0]]):
        raise TournamentError("bots_not_allowed", "this tournament does not allow bot "
                              "accounts")
    body = await read_body(request, TournamentJoinBody, example='{"partner": "name"}')
    if tournament.status == "finished" or (tournament.kind == "swiss"
                                           and tournament.status != "created"):
        raise TournamentError("tournament_closed", "this tournament is over"
                              if tournament.status == "finished" else
                              "this Swiss tournament has started: it takes no new entrants")
    if tournament.rated:
        seeking: Seeking = request.app.state.seeking
        await seeking.check_rated_play(user[0])  # a playban, a moderator's ban
    entrants = await store.tournaments.entrants(tournament.id)
    mine = entrant_for(tournament, entrants, user[0])
    now = _director(request).now_ms()
    if mine is not None and mine.status != "withdrawn" and mine.invited != user[0]:
        return await _view(request, tournament, user)  # in already
    pool = pool_key(tournament.variant, tournament.players)
    rules = make_rules(tournament.variant, tournament.players)
    if rules.sides == rules.players:
        rating = await _rating(store, user[0], pool)
        await store.tournaments.enter(tournament.id, StoredEntrant(
            f"user:{user[0]}", user[1], None, (user,), None, rating, "active", now))
        return await _view(request, tournament, user)
    partner_name = body.partner
    if not isinstance(partner_name, str) or not partner_name.strip():
        raise TournamentError("bad_tournament", "a partnership tournament is entered as a "
                              "team of two: name your partner", field="partner")
    partner = await store.accounts.find(name_key(partner_name.strip()))
    if partner is None or partner.id == user[0]:
        raise TournamentError("bad_tournament", f"no other player is named "
                              f"{partner_name.strip()[:40]!r}", field="partner")
    waiting = next((e for e in entrants if e.status == "invited" and e.invited == user[0]
                    and e.members and e.members[0][0] == partner.id), None)
    if waiting is not None:
        ratings = [await _rating(store, partner.id, pool), await _rating(store, user[0], pool)]
        await store.tournaments.enter(tournament.id, StoredEntrant(
            waiting.key, f"{partner.name} & {user[1]}", None,
            ((partner.id, partner.name), user), None, round(sum(ratings) / 2), "active",
            waiting.joined_at))
    else:
        if any(e.status in ("active", "paused") and any(m[0] == partner.id
                                                        for m in e.members)
               for e in entrants):
            raise TournamentError("bad_tournament", f"{partner.name} plays in another "
                                  "team already", field="partner")
        first, second = sorted((user[0], partner.id))
        await store.tournaments.enter(tournament.id, StoredEntrant(
            f"team:{first}-{second}", f"{user[1]} & {partner.name}", None, (user,),
            partner.id, await _rating(store, user[0], pool), "invited", now))
    return await _view(request, tournament, user)


async def _rating(store: Store, user_id: int, pool: str) -> int:
    stored = await store.ratings.of_accounts([user_id], pool)
    return (stored.get((user_id, pool)) or new_rating()).display


async def _entered(store: Store, tournament: StoredTournament,
                   user: tuple[int, str] | None) -> StoredEntrant:
    if user is None:
        raise LoginRequiredError("tournaments are for players with an account: log in first")
    if tournament.status == "finished":
        raise TournamentError("tournament_closed", "this tournament is over")
    mine = entrant_for(tournament, await store.tournaments.entrants(tournament.id), user[0])
    if mine is None or mine.status == "withdrawn":
        raise TournamentError("not_entered", "you are not in this tournament")
    return mine


@router.post("/api/tournaments/{tournament_id}/withdraw")
async def withdraw(tournament_id: str, request: Request, store: StoreOf,
                   user: AccountOf) -> dict[str, Any]:
    """Leave the tournament (its results stay; a Swiss event not started forgets it)."""
    tournament = await _tournament(store, tournament_id)
    mine = await _entered(store, tournament, user)
    if mine.status == "invited" or (tournament.kind == "swiss"
                                    and tournament.status == "created"):
        await store.tournaments.remove(tournament.id, mine.key)
    else:
        await store.tournaments.set_status(tournament.id, mine.key, "withdrawn")
    return await _view(request, tournament, user)


@router.post("/api/tournaments/{tournament_id}/pause",
             openapi_extra=openapi_body(PauseBody, True))
async def pause(tournament_id: str, request: Request, store: StoreOf,
                user: AccountOf) -> dict[str, Any]:
    """Pause (not paired until you come back), or come back."""
    tournament = await _tournament(store, tournament_id)
    body = await read_body(request, PauseBody, example='{"paused": true}')
    if not isinstance(body.paused, bool):
        raise TournamentError("bad_tournament", f"paused must be true or false, not "
                              f"{body.paused!r}", field="paused")
    mine = await _entered(store, tournament, user)
    if mine.status == "invited":
        raise TournamentError("not_entered", "your team is waiting for your partner")
    await store.tournaments.set_status(tournament.id, mine.key,
                                       "paused" if body.paused else "active",
                                       only_from=("active", "paused"))
    return await _view(request, tournament, user)


@router.get("/api/tournaments/{tournament_id}/records", response_model=None)
async def records(tournament_id: str, store: StoreOf) -> Response:
    """Every finished game of the tournament, one ``basra-record/1`` line each."""
    tournament = await _tournament(store, tournament_id)
    texts = await store.tournaments.record_texts(tournament.id)
    body = "".join(json.dumps(json.loads(text), ensure_ascii=False,
                              separators=(",", ":")) + "\n" for text in texts)
    return Response(body, media_type="application/x-ndjson", headers={
        "Content-Disposition": f'attachment; filename="tournament-{tournament.id}.ndjson"'})

