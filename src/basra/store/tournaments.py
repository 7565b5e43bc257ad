"""Tournaments: events, their entrants and their games (tables in ``schema.py``, made by
migration 0014).

Everything a tournament's director decides is stored before it is acted on, so that a
restarted server, or the next server to hold the director's lease, carries on where the
last one stopped: a pairing is stored (:meth:`Tournaments.add_games`) before its table is
made (:meth:`Tournaments.set_table`), and a game's result is counted once
(:meth:`Tournaments.finish_game` changes a game that has no result yet, and nothing else).
Standings are never stored: they are computed from the games each time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from .schema import (
    records_table,
    tables_table,
    tournament_entrants_table,
    tournament_games_table,
    tournaments_table,
)
from .writer import Writer, now_ms

__all__ = ["GameOutcome", "StoredEntrant", "StoredGame", "StoredTournament", "Tournaments"]


@dataclass(frozen=True)
class StoredTournament:
    """One tournament as stored (times in Unix milliseconds)."""

    id: str
    name: str
    kind: str
    variant: str
    players: int
    rated: bool
    turn_seconds: int
    minutes: int | None
    rounds: int | None
    round: int
    starts_at: int
    ends_at: int | None
    status: str
    created_by: int | None
    schedule_key: str | None
    allow_bots: bool
    created_at: int
    finished_at: int | None
    winner: str | None = None


@dataclass(frozen=True)
class StoredEntrant:
    """One entrant: an account, a team of two accounts, or a computer."""

    key: str
    name: str
    level: str | None
    members: tuple[tuple[int, str], ...]
    """The accounts that play it, (id, name) each: one, two for a team, none for a
    computer."""
    invited: int | None
    rating: int
    status: str
    joined_at: int

    @property
    def computer(self) -> bool:
        return self.level is not None


@dataclass(frozen=True)
class StoredGame:
    """One game (or Swiss bye) of a tournament."""

    id: int
    round: int
    entrants: tuple[str, ...]
    table_code: str | None
    seats: dict[int, tuple[int, str]]
    ranks: tuple[int, ...] | None
    record_id: int | None
    created_at: int
    finished_at: int | None

    @property
    def bye(self) -> bool:
        """A Swiss bye: one entrant, no table."""
        return len(self.entrants) == 1


@dataclass(frozen=True)
class GameOutcome:
    """How a tournament game's table ended: its record (None when the match was aborted
    before any result), the seats the computer played at the end, and the conduct."""

    table_code: str
    status: str
    record_id: int | None
    record: dict[str, Any] | None
    computer_seats: tuple[int, ...]
    conduct: dict[str, Any] | None


def _tournament(row: Any) -> StoredTournament:
    return StoredTournament(
        row.id, row.name, row.kind, row.variant, row.players, bool(row.rated),
        row.turn_seconds, row.minutes, row.rounds, row.round, row.starts_at, row.ends_at,
        row.status, row.created_by, row.schedule_key, bool(row.allow_bots), row.created_at,
        row.finished_at, row.winner)


def _entrant(row: Any) -> StoredEntrant:
    return StoredEntrant(row.key, row.name, row.level,
                         tuple((int(m[0]), str(m[1])) for m in json.loads(row.members)),
                         row.invited,
                         row.rating, row.status, row.joined_at)


def _game(row: Any) -> StoredGame:
    seats = {int(user): (int(seat), str(token))
             for user, (seat, token) in json.loads(row.seats or "{}").items()}
    ranks = None if row.ranks is None else tuple(int(r) for r in json.loads(row.ranks))
    return StoredGame(row.id, row.round, tuple(json.loads(row.entrants)), row.table_code,
                      seats, ranks, row.record_id, row.created_at, row.finished_at)


class Tournaments:
    """Tournaments as stored (``store.tournaments``)."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    # -- reading ------------------------------------------------------------------------

    async def get(self, tournament_id: str) -> StoredTournament | None:
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(select(tournaments_table).where(
                tournaments_table.c.id == tournament_id[:16]))).first()
        return None if row is None else _tournament(row)

    async def live(self) -> list[StoredTournament]:
        """Every tournament not finished, the soonest first."""
        query = (select(tournaments_table)
                 .where(tournaments_table.c.status != "finished")
                 .order_by(tournaments_table.c.starts_at, tournaments_table.c.id))
        async with self._writer.engine.connect() as conn:
            return [_tournament(row) for row in (await conn.execute(query)).all()]

    async def finished(self, limit: int) -> list[StoredTournament]:
        """The latest finished tournaments, the last to finish first."""
        query = (select(tournaments_table)
                 .where(tournaments_table.c.status == "finished")
                 .order_by(tournaments_table.c.finished_at.desc()).limit(limit))
        async with self._writer.engine.connect() as conn:
            return [_tournament(row) for row in (await conn.execute(query)).all()]

    async def created_since(self, user_id: int, since: int) -> int:
        """How many tournaments the account made since ``since`` (Unix ms)."""
        query = select(func.count()).select_from(tournaments_table).where(
            tournaments_table.c.created_by == user_id,
            tournaments_table.c.created_at >= since)
        async with self._writer.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def entrants(self, tournament_id: str) -> list[StoredEntrant]:
        """A tournament's entrants, in the order they joined."""
        table = tournament_entrants_table
        query = (select(table).where(table.c.tournament_id == tournament_id)
                 .order_by(table.c.joined_at, table.c.key))
        async with self._writer.engine.connect() as conn:
            return [_entrant(row) for row in (await conn.execute(query)).all()]

    async def entrant_counts(self, ids: Sequence[str]) -> dict[str, int]:
        """How many entrants (withdrawn and waiting teams aside) each tournament has."""
        if not ids:
            return {}
        table = tournament_entrants_table
        query = (select(table.c.tournament_id, func.count())
                 .where(table.c.tournament_id.in_(list(ids)),
                        table.c.status.in_(("active", "paused")))
                 .group_by(table.c.tournament_id))
        async with self._writer.engine.connect() as conn:
            return {row[0]: int(row[1]) for row in (await conn.execute(query)).all()}

    async def games(self, tournament_id: str) -> list[StoredGame]:
        """A tournament's games and byes, in the order they were paired."""
        table = tournament_games_table
        query = (select(table).where(table.c.tournament_id == tournament_id)
                 .order_by(table.c.id))
        async with self._writer.engine.connect() as conn:
            return [_game(row) for row in (await conn.execute(query)).all()]

    async def outcomes(self, codes: Iterable[str]) -> dict[str, GameOutcome]:
        """How the tables ``codes`` ended, for those whose match is over (a record
        stored, or the table finished without one: aborted)."""
        wanted = list(codes)
        if not wanted:
            return {}
        query = (select(tables_table.c.code, tables_table.c.status, tables_table.c.conduct,
                        records_table.c.id.label("record_id"), records_table.c.record,
                        records_table.c.computer_seats)
                 .select_from(tables_table.outerjoin(records_table, (
                     records_table.c.code == tables_table.c.code)
                     & (records_table.c.match_number == 1)))
                 .where(tables_table.c.code.in_(wanted)))
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        found: dict[str, GameOutcome] = {}
        for row in rows:
            if row.record_id is None and row.status not in ("finished", "expired"):
                continue
            found[row.code] = GameOutcome(
                row.code, row.status, row.record_id,
                None if row.record is None else json.loads(row.record),
                tuple(json.loads(row.computer_seats or "[]")),
                None if row.conduct is None else json.loads(row.conduct))
        return found

    async def record_texts(self, tournament_id: str) -> list[str]:
        """The ``basra-record/1`` text of every finished game, oldest first."""
        games = tournament_games_table
        query = (select(records_table.c.record)
                 .select_from(games.join(records_table,
                                         records_table.c.id == games.c.record_id))
                 .where(games.c.tournament_id == tournament_id)
                 .order_by(games.c.finished_at, games.c.id))
        async with self._writer.engine.connect() as conn:
            return [str(row[0]) for row in (await conn.execute(query)).all()]

    # -- writing ------------------------------------------------------------------------

    async def create(self, tournament: StoredTournament,
                     computers: Sequence[StoredEntrant] = ()) -> bool:
        """Store a new tournament with its computer entrants; False (and nothing stored)
        when one with the same ``schedule_key`` exists already."""
        values = {field: getattr(tournament, field)
                  for field in StoredTournament.__dataclass_fields__}
        values["rated"] = int(tournament.rated)
        values["allow_bots"] = int(tournament.allow_bots)

        def write(conn: Connection) -> bool:
            if tournament.schedule_key is not None and conn.execute(
                    select(tournaments_table.c.id).where(
                        tournaments_table.c.schedule_key == tournament.schedule_key)
            ).first() is not None:
                return False
            conn.execute(insert(tournaments_table).values(**values))
            for entrant in computers:
                conn.execute(insert(tournament_entrants_table).values(
                    tournament_id=tournament.id, **_entrant_values(entrant)))
            return True

        made: bool = await self._writer.commit(write)
        return made

    async def enter(self, tournament_id: str, entrant: StoredEntrant) -> None:
        """Add an entrant, or bring one back (its row replaced: a withdrawn player who
        joins again keeps its games)."""
        table = tournament_entrants_table

        def write(conn: Connection) -> None:
            conn.execute(table.delete().where(table.c.tournament_id == tournament_id,
                                              table.c.key == entrant.key))
            conn.execute(insert(table).values(tournament_id=tournament_id,
                                              **_entrant_values(entrant)))

        await self._writer.commit(write)

    async def set_status(self, tournament_id: str, key: str, status: str,
                         only_from: Sequence[str] = ()) -> bool:
        """Change an entrant's status (only from one of ``only_from`` when given);
        whether it changed."""
        table = tournament_entrants_table

        def write(conn: Connection) -> bool:
            query = update(table).where(table.c.tournament_id == tournament_id,
                                        table.c.key == key)
            if only_from:
                query = query.where(table.c.status.in_(list(only_from)))
            return bool(conn.execute(query.values(status=status)).rowcount)

        changed: bool = await self._writer.commit(write)
        return changed

    async def remove(self, tournament_id: str, key: str) -> None:
        """Take an entrant out entirely (a team that never formed)."""
        table = tournament_entrants_table

        def write(conn: Connection) -> None:
            conn.execute(table.delete().where(table.c.tournament_id == tournament_id,
                                              table.c.key == key))

        await self._writer.commit(write)

    async def start(self, tournament_id: str, ends_at: int | None,
                    drop: Sequence[str] = ()) -> bool:
        """Mark a tournament started (once), dropping the entrants ``drop`` (teams that
        never formed); whether this call started it."""

        def write(conn: Connection) -> bool:
            started = conn.execute(update(tournaments_table).where(
                tournaments_table.c.id == tournament_id,
                tournaments_table.c.status == "created").values(
                status="started", ends_at=ends_at)).rowcount
            if started:
                table = tournament_entrants_table
                for key in drop:
                    conn.execute(table.delete().where(table.c.tournament_id == tournament_id,
                                                      table.c.key == key))
            return bool(started)

        changed: bool = await self._writer.commit(write)
        return changed

    async def add_games(self, tournament_id: str, round_number: int,
                        tables: Sequence[Sequence[str]], byes: Sequence[str] = (),
                        swiss_round: bool = False) -> list[StoredGame]:
        """Store a wave of pairings (tables to make) and byes (counted at once); with
        ``swiss_round`` the tournament's round becomes ``round_number``, once: a second
        call for the same round stores nothing and returns []."""
        now = now_ms()
        games = tournament_games_table

        def write(conn: Connection) -> list[StoredGame]:
            if swiss_round and not conn.execute(update(tournaments_table).where(
                    tournaments_table.c.id == tournament_id,
                    tournaments_table.c.round == round_number - 1).values(
                    round=round_number)).rowcount:
                return []
            made = []
            for entrants in tables:
                key = conn.execute(insert(games).values(
                    tournament_id=tournament_id, round=round_number,
                    entrants=json.dumps(list(entrants)), created_at=now)
                ).inserted_primary_key
                assert key is not None
                made.append(StoredGame(int(key[0]), round_number, tuple(entrants), None,
                                       {}, None, None, now, None))
            for entrant in byes:
                conn.execute(insert(games).values(
                    tournament_id=tournament_id, round=round_number,
                    entrants=json.dumps([entrant]), created_at=now, finished_at=now))
            return made

        stored: list[StoredGame] = await self._writer.commit(write)
        return stored

    async def set_table(self, game_id: int, code: str,
                        seats: dict[int, tuple[int, str]]) -> None:
        """The table a stored pairing plays at, and each account's seat and token."""
        values = {"table_code": code,
                  "seats": json.dumps({str(u): list(s) for u, s in seats.items()})}

        def write(conn: Connection) -> None:
            conn.execute(update(tournament_games_table).where(
                tournament_games_table.c.id == game_id).values(**values))

        await self._writer.commit(write)

    async def finish_game(self, tournament_id: str, game_id: int, ranks: Sequence[int],
                          record_id: int | None, pause: Sequence[str] = ()) -> bool:
        """Count a game's result: the sides' places (0 first), once, and pause the active
        entrants ``pause`` (absent at its end) in the same transaction. Whether this call
        counted it (False: it was counted already). The seats' tokens are forgotten."""
        values = {"ranks": json.dumps(list(ranks)), "record_id": record_id,
                  "finished_at": now_ms(), "seats": None}
        entrants = tournament_entrants_table

        def write(conn: Connection) -> bool:
            counted = bool(conn.execute(update(tournament_games_table).where(
                tournament_games_table.c.id == game_id,
                tournament_games_table.c.ranks.is_(None)).values(**values)).rowcount)
            if counted and pause:
                conn.execute(update(entrants).where(
                    entrants.c.tournament_id == tournament_id,
                    entrants.c.key.in_(list(pause)), entrants.c.status == "active"
                ).values(status="paused"))
            return counted

        counted: bool = await self._writer.commit(write)
        return counted

    async def finish(self, tournament_id: str, winner: str | None) -> bool:
        """Mark a tournament finished, won by ``winner`` (once); whether this call
        finished it."""

        def write(conn: Connection) -> bool:
            return bool(conn.execute(update(tournaments_table).where(
                tournaments_table.c.id == tournament_id,
                tournaments_table.c.status != "finished").values(
                status="finished", finished_at=now_ms(), winner=winner)).rowcount)

        changed: bool = await self._writer.commit(write)
        return changed


def _entrant_values(entrant: StoredEntrant) -> dict[str, Any]:
    return {"key": entrant.key, "name": entrant.name, "level": entrant.level,
            "members": json.dumps([list(m) for m in entrant.members]),
            "invited": entrant.invited,
            "rating": entrant.rating, "status": entrant.status,
            "joined_at": entrant.joined_at}
