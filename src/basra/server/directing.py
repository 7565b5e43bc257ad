"""The tournament director: starts tournaments on time, pairs their games onto tables,
counts the results, and ends them (``docs/web-protocol.md``, "Tournaments").

Every ``tick`` seconds the director reads each tournament that is not finished from the
store and does what is due, storing each decision before acting on it
(:mod:`basra.store.tournaments`): a tournament's state lives in the database only, so a
restarted server, or another one, carries on where it stopped, and a result counts once.

- **Start**: at ``starts_at``; an arena ends ``minutes`` later (no game is paired after
  its end; the games in progress finish, then it is over). Teams still waiting for their
  second member are dropped. The followers of its players are notified
  (``tournament_start``).
- **Games**: a pairing is stored first, then its table made (an ordinary table, rated or
  casual, public on the Watch page, its seats taken for the entrants' accounts or the
  computer, the seat order drawn at random). Each account's seat and token wait in the
  store for the tournament page to take the player there.
- **Tables**: a game's table that no server holds in memory (after a restart, or the death
  of its server in a cluster) is loaded again, so that it plays on to its end.
- **Results**: a table's record gives the sides' places (forfeits and resignations rank
  last, as in rated play); a match aborted (a player aborted it, or was gone before a
  play of their own) ranks the side that aborted last and the others first, whatever the
  computer made of it afterwards. An entrant whose seat the computer was playing at the end
  (the player left, or never came) is paused: absent players stop being paired until they
  come back (the Pause button).
- **Arena**: the entrants free now are paired in waves (:func:`pair_arena`); a table of
  computers only is never made (they play people), and a person left over meets the
  computers free.
- **Blocks**: entrants whose players blocked one another are kept apart as matchmaking
  keeps them (an arena pairs them as if they had just met, a Swiss event as if they had
  met before).
- **Swiss**: when every game of a round is counted, the next round is paired
  (:func:`pair_swiss`), byes counted at once; after the last round it is over.

**Many servers**: one server directs every tournament, the holder of the ``~director``
lease (taken by any server that finds it free or its holder gone, renewed every tick), as
one server pairs the seeks.

**Schedule**: the operator's schedule (:func:`basra.players.events.load_schedule`) makes
each next occurrence once, ``announce`` minutes before its start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from basra.players.conduct import ranks_with_forfeits
from basra.players.events import ScheduledTournament, TournamentSpec
from basra.players.names import computer_label
from basra.players.ratings import COMPUTER_RATINGS
from basra.players.tournaments import (
    ArenaPlayer,
    Entrant,
    arena_points,
    pair_arena,
    pair_swiss,
    rank_points,
)
from basra.rules import make_rules
from basra.store import StorageError, Store
from basra.store.tournaments import (
    GameOutcome,
    StoredEntrant,
    StoredGame,
    StoredTournament,
)

from .errors import ElsewhereError, ServerBusyError
from .hub import Hub
from .table import ConfigError, SeatConfig, TableConfig
from .tournament_views import standings, swiss_rounds

__all__ = ["DIRECTOR", "Director", "TournamentSettings"]

log = logging.getLogger("basra.server")

DIRECTOR = "~director"
"""The lease of the server that directs every tournament (a shared cluster)."""


@dataclass(frozen=True)
class TournamentSettings:
    """How tournaments are run (``create_app(tournaments=...)``)."""

    tick: float = 1.0
    """Seconds between two passes of the director."""
    minute: float = 60.0
    """Seconds in an arena's minute (shortened by tests and demonstrations only)."""
    daily_limit: int = 3
    """Tournaments one account may create in 24 hours."""
    schedule: tuple[ScheduledTournament, ...] = ()
    """The operator's recurring tournaments."""


def new_tournament_id() -> str:
    return secrets.token_hex(4)


def computer_entrants(spec: TournamentSpec, joined_at: int) -> list[StoredEntrant]:
    """The computer entrants of a new tournament, one per level listed, named as
    computer seats are (``Sami (expert)``)."""
    return [StoredEntrant(f"computer:{number}", computer_label(number, level), level, (),
                          None, COMPUTER_RATINGS.get(level, 1500), "active", joined_at)
            for number, level in enumerate(spec.computers)]


def stored_tournament(spec: TournamentSpec, now_ms: int, created_by: int | None,
                      schedule_key: str | None = None,
                      starts_at: int | None = None) -> StoredTournament:
    """A new tournament's row from its spec."""
    return StoredTournament(
        new_tournament_id(), spec.name, spec.kind, spec.variant, spec.players, spec.rated,
        spec.turn_seconds, spec.minutes, spec.rounds, 0,
        now_ms + spec.starts_in * 1000 if starts_at is None else starts_at, None,
        "created", created_by, schedule_key, spec.allow_bots, now_ms, None)


def game_ranks(tournament: StoredTournament, outcome: GameOutcome) -> tuple[int, ...]:
    """The sides' places in a finished tournament game (0 first)."""
    rules = make_rules(tournament.variant, tournament.players)
    conduct = outcome.conduct or {}
    aborter = conduct.get("aborted")
    if aborter is None:
        aborter = conduct.get("aborted_by")  # (gone before a play of its own)
    if aborter is not None:  # whatever the computer made of the match afterwards
        side = rules.side_of[int(aborter)]
        return tuple(1 if s == side else 0 for s in range(rules.sides))
    if outcome.record is None or "result" not in outcome.record:
        return tuple([0] * rules.sides)
    result = outcome.record["result"]
    gone = [rules.side_of[int(seat)] for seat in conduct.get("forfeits") or []]
    gone += [int(side) for side in result.get("resigned") or []]
    return tuple(ranks_with_forfeits(list(result["totals"]), int(result["winner"]), gone))


class Director:
    """Runs every tournament of the store (see the module's docstring)."""

    def __init__(self, hub: Hub, store: Store, settings: TournamentSettings | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.hub = hub
        self.store = store
        self.settings = settings or TournamentSettings()
        self.clock = clock
        self.directing_here = not hub.cluster.shared
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.live_count: int | None = None
        """Tournaments not finished at the last pass (None before one, and on a server
        that does not direct them)."""

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="basra-tournament-director")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.tick)
            try:
                if self.hub.cluster.shared:
                    await self._lead()
                if self.directing_here:
                    await self.direct()
            except Exception:
                log.exception("directing the tournaments failed")

    async def _lead(self) -> None:
        """Keep (or take) the director's lease."""
        cluster = self.hub.cluster
        if self.directing_here:
            if not await cluster.renew([DIRECTOR]):
                return
            log.warning("this server no longer directs the tournaments")
            self.directing_here = False
            self.live_count = None
        owner = (await cluster.owners([DIRECTOR]))[DIRECTOR]
        free = owner is None or (owner != cluster.server_id
                                 and owner not in await cluster.listening([owner]))
        if free and (await cluster.acquire(DIRECTOR)).holder is None:
            log.info("this server directs the tournaments")
            self.directing_here = True

    # -- one pass ------------------------------------------------------------------------

    async def direct(self) -> None:
        """Do what is due now: the schedule's next events, then every live tournament."""
        async with self._lock:
            now = self.now_ms()
            for item in self.settings.schedule:
                await self._schedule(item, now)
            live = await self.store.tournaments.live()
            self.live_count = len(live)
            for tournament in live:
                try:
                    await self._direct(tournament, now)
                except StorageError as error:
                    log.warning("tournament %s waits for storage: %s", tournament.id, error)

    async def _schedule(self, item: ScheduledTournament, now: int) -> None:
        start = item.next_start(now)
        if start - item.announce * 60_000 > now:
            return
        made = stored_tournament(item.spec, now, None, item.key(start), start)
        if await self.store.tournaments.create(made, computer_entrants(item.spec, now)):
            log.info("scheduled tournament %s (%s) made: it starts at %d", made.id,
                     made.name, start)

    async def _direct(self, tournament: StoredTournament, now: int) -> None:
        store = self.store.tournaments
        if tournament.status == "created":
            if now < tournament.starts_at:
                return
            joined = await store.entrants(tournament.id)
            ends = (None if tournament.minutes is None
                    else now + int(tournament.minutes * self.settings.minute * 1000))
            if await store.start(tournament.id, ends,
                                 [e.key for e in joined if e.status == "invited"]):
                await self._tell_followers(tournament, joined)
            tournament = replace(tournament, status="started", ends_at=ends)
        entrants = {e.key: e for e in await store.entrants(tournament.id)}
        games = await store.games(tournament.id)
        if await self._collect(tournament, games, entrants):
            entrants = {e.key: e for e in await store.entrants(tournament.id)}
            games = await store.games(tournament.id)
        for game in games:
            if game.table_code is None and not game.bye and game.ranks is None:
                await self._seat(tournament, game, entrants)
        if tournament.kind == "arena":
            await self._arena(tournament, games, entrants, now)
        else:
            await self._swiss(tournament, games, entrants)

    async def _tell_followers(self, tournament: StoredTournament,
                              joined: list[StoredEntrant]) -> None:
        """Tell the followers of each player in a tournament that it starts (once a
        follower, however many of the players it follows)."""
        players = {user_id: name for e in joined if e.status in ("active", "paused")
                   for user_id, name in e.members}
        told: set[int] = set(players)  # (the players see it on their own page)
        now = self.now_ms()
        for user_id, followers in (
                await self.store.follows.follower_ids(list(players))).items():
            for follower in followers:
                if follower in told:
                    continue
                told.add(follower)
                await self.store.notifications.add(follower, "tournament_start", {
                    "tournament": tournament.id, "name": tournament.name,
                    "player": players[user_id], "url": f"/tournament/{tournament.id}"}, now)

    async def _collect(self, tournament: StoredTournament, games: list[StoredGame],
                       entrants: dict[str, StoredEntrant]) -> bool:
        """Count the results of the games whose tables are over; whether any was."""
        pending = {g.table_code: g for g in games
                   if g.ranks is None and not g.bye and g.table_code is not None}
        outcomes = await self.store.tournaments.outcomes(list(pending))
        for code in pending:
            if code not in outcomes and code not in self.hub.tables:
                await self._wake(code)
        rules = make_rules(tournament.variant, tournament.players)
        for code, outcome in outcomes.items():
            game = pending[code]
            ranks = game_ranks(tournament, outcome)
            resigned = set((outcome.conduct or {}).get("resigned") or [])
            absent = [game.entrants[rules.side_of[seat]] for seat in outcome.computer_seats
                      if seat not in resigned]
            await self.store.tournaments.finish_game(
                tournament.id, game.id, ranks, outcome.record_id,
                [key for key in absent if key in entrants and not entrants[key].computer])
        return bool(outcomes)

    async def _wake(self, code: str) -> None:
        """Load a game's table that no server has in memory (after a restart, or its
        server's death in a cluster), so that it plays on to its end; a table another
        live server holds is left to it."""
        try:
            await self.hub.table(code)
        except ElsewhereError:
            pass
        except Exception as error:
            log.warning("tournament table %s could not be loaded: %s", code, error)

    async def _seat(self, tournament: StoredTournament, game: StoredGame,
                    entrants: dict[str, StoredEntrant]) -> None:
        """Make the table of a stored pairing and take its seats."""
        rules = make_rules(tournament.variant, tournament.players)
        seats: list[SeatConfig] = []
        claims: list[tuple[object, tuple[int, str] | None] | None] = []
        accounts: list[int] = []
        for seat in range(rules.players):
            side = rules.side_of[seat]
            entrant = entrants.get(game.entrants[side])
            if entrant is None or entrant.computer or not entrant.members:
                level = entrant.level if entrant is not None and entrant.level else "expert"
                seats.append(SeatConfig("bot", level))
                claims.append(None)
                continue
            partners = [s for s in range(rules.players) if rules.side_of[s] == side]
            user_id, name = entrant.members[partners.index(seat) % len(entrant.members)]
            seats.append(SeatConfig("human"))
            claims.append((name, (user_id, name)))
            accounts.append(user_id)
        config = TableConfig(tournament.variant, tournament.players, {}, tuple(seats),
                             tournament.turn_seconds, "expert", tournament.rated,
                             public=True, tournament=tournament.id)
        try:
            table, seated = await self.hub.seat_players(config, claims)
        except (ServerBusyError, ConfigError) as error:
            log.warning("tournament %s: game %d waits for a table: %s", tournament.id,
                        game.id, error)
            return
        await self.store.tournaments.set_table(
            game.id, table.code, dict(zip(accounts, seated, strict=True)))

    # -- arena ---------------------------------------------------------------------------

    async def _arena(self, tournament: StoredTournament, games: list[StoredGame],
                     entrants: dict[str, StoredEntrant], now: int) -> None:
        pending = [g for g in games if g.ranks is None and not g.bye]
        if tournament.ends_at is not None and now >= tournament.ends_at:
            if not pending:
                await self._finish(tournament)
            return
        busy = {key for game in pending for key in game.entrants}
        base: dict[str, list[float]] = defaultdict(list)
        last: dict[str, frozenset[str]] = {}
        for game in sorted((g for g in games if g.ranks is not None and not g.bye),
                           key=lambda g: (g.finished_at or 0, g.id)):
            for key, points in zip(game.entrants, rank_points(game.ranks or ()),
                                   strict=True):
                base[key].append(points)
                last[key] = frozenset(game.entrants) - {key}
        active = [e for e in entrants.values() if e.status == "active"]
        sides = make_rules(tournament.variant, tournament.players).sides
        if sum(1 for e in active if e.key not in busy) < sides:
            return
        apart = await self._apart(entrants)
        waiting = [ArenaPlayer(e.key, e.rating, sum(arena_points(base[e.key])),
                               last.get(e.key, frozenset()) | apart.get(e.key, frozenset()))
                   for e in active if e.key not in busy]
        tables = [t for t in pair_arena(waiting, sides, active=len(active))
                  if not all(entrants[key].computer for key in t)]
        taken = {key for table in tables for key in table}
        people = [p.key for p in waiting if p.key not in taken and not entrants[p.key].computer]
        machines = [p.key for p in waiting if p.key not in taken and entrants[p.key].computer]
        while people and len(machines) >= sides - 1:  # a person left over meets computers
            tables.append((people.pop(0), *(machines.pop(0) for _ in range(sides - 1))))
        if tables:
            await self._pair(tournament, tournament.round, tables, entrants)

    async def _apart(self, entrants: dict[str, StoredEntrant]) -> dict[str, frozenset[str]]:
        """The entrants each entrant is kept apart from: one of their players blocked a
        player of the other (as matchmaking never seats them together)."""
        of_account = {user_id: e.key for e in entrants.values() for user_id, _ in e.members}
        apart: dict[str, set[str]] = defaultdict(set)
        for user_id, key in of_account.items():
            for other in await self.store.moderation.avoided(user_id):
                if other in of_account and of_account[other] != key:
                    apart[key].add(of_account[other])
        return {key: frozenset(others) for key, others in apart.items()}

    async def _pair(self, tournament: StoredTournament, round_number: int,
                    tables: list[tuple[str, ...]], entrants: dict[str, StoredEntrant],
                    byes: tuple[str, ...] = (), swiss_round: bool = False) -> None:
        """Store a wave of pairings (each table's seat order drawn), then seat them."""
        drawn = [tuple(random.sample(table, len(table))) for table in tables]
        stored = await self.store.tournaments.add_games(tournament.id, round_number, drawn,
                                                        byes, swiss_round=swiss_round)
        for game in stored:
            await self._seat(tournament, game, entrants)

    async def _finish(self, tournament: StoredTournament) -> None:
        """End a tournament, its winner the first of the final standings."""
        store = self.store.tournaments
        lines = standings(tournament, await store.entrants(tournament.id),
                          await store.games(tournament.id))
        winner = lines[0]["name"] if lines and lines[0]["games"] else None
        if await store.finish(tournament.id, winner):
            log.info("tournament %s is over: %s won", tournament.id, winner or "nobody")

    # -- Swiss ---------------------------------------------------------------------------

    async def _swiss(self, tournament: StoredTournament, games: list[StoredGame],
                     entrants: dict[str, StoredEntrant]) -> None:
        if any(g.ranks is None and not g.bye for g in games):
            return
        rounds = tournament.rounds or 0
        playing = [e for e in entrants.values() if e.status == "active"]
        sides = make_rules(tournament.variant, tournament.players).sides
        if tournament.round >= rounds or len(playing) < sides:
            await self._finish(tournament)
            return
        apart = await self._apart(entrants)
        pairing = pair_swiss([Entrant(e.key, e.name, e.rating) for e in playing],
                             swiss_rounds(games), sides,
                             [frozenset((key, other)) for key, others in apart.items()
                              for other in others])
        await self._pair(tournament, tournament.round + 1, list(pairing.tables), entrants,
                         pairing.byes, swiss_round=True)


def entrant_for(tournament: StoredTournament, entrants: list[StoredEntrant],
                user_id: int) -> StoredEntrant | None:
    """The entrant an account plays in (or is invited to), if any."""
    for entrant in entrants:
        if entrant.invited == user_id or any(m[0] == user_id for m in entrant.members):
            return entrant
    return None


def account_game(games: list[StoredGame], user_id: int) -> dict[str, Any] | None:
    """An account's game in progress: its table, seat and token."""
    for game in reversed(games):
        if game.ranks is None and user_id in game.seats and game.table_code is not None:
            seat, token = game.seats[user_id]
            return {"table": game.table_code, "seat": seat, "token": token,
                    "url": f"/t/{game.table_code}"}
    return None
