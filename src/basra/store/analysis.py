"""Stored analyses, puzzles mined from stored matches, and accounts' puzzle ratings.

Its tables are in ``schema.py`` (made by migration 0007):

====================== ================================================================
table                  rows
====================== ================================================================
basra_analyses         one per analysed record: its ``basra-analysis/1`` document
basra_mined_puzzles    one per puzzle mined from a stored record (``basra-puzzles/1``)
basra_puzzle_ratings   one per account that solved puzzles: rating, solved, attempts
basra_puzzle_attempts  one per account and puzzle: only a first attempt moves a rating
====================== ================================================================
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, insert, select, update

from .schema import (
    analyses_table,
    flags_table,
    mined_puzzles_table,
    puzzle_attempts_table,
    puzzle_ratings_table,
    rating_history_table,
)
from .writer import Writer, insert_new, now_ms

__all__ = ["PUZZLE_RATING_FLOOR", "PUZZLE_START_RATING", "Analyses", "mining_verdict",
           "puzzle_rating_after"]

PUZZLE_RATING_FLOOR = 1600
"""A mined puzzle joins the public set at once only from a rated match whose every human
player was rated at least this much when it began; others wait for a moderator."""

PUZZLE_START_RATING = 1000
"""An account's puzzle rating before its first puzzle."""

PUZZLE_K = 32
"""How far one puzzle moves a rating (Elo's K)."""


def puzzle_rating_after(rating: int, puzzle_rating: int, solved: bool) -> int:
    """An account's puzzle rating after one first attempt (Elo, K = 32).

    >>> puzzle_rating_after(1000, 1000, True), puzzle_rating_after(1000, 1000, False)
    (1016, 984)
    """
    expected = 1 / (1 + 10 ** ((puzzle_rating - rating) / 400))
    return round(rating + PUZZLE_K * ((1.0 if solved else 0.0) - expected))


class Analyses:
    """Analyses, mined puzzles and puzzle ratings (``store.analysis``): written through
    the store's writer."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def get(self, record_id: int) -> dict[str, Any] | None:
        """A record's stored analysis, or None."""
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(select(analyses_table.c.document).where(
                analyses_table.c.record_id == record_id))).first()
        return None if row is None else dict(json.loads(row[0]))

    async def save(self, record_id: int, document: dict[str, Any],
                   puzzles: list[dict[str, Any]], rating_floor: int | None = None) -> None:
        """Store a record's analysis and the puzzles mined from it (once each: another
        server process that stored them first wins). With a ``rating_floor``, the puzzles
        join the public set only when :func:`mining_verdict` allows; else they wait for
        a moderator, and the record is flagged (``puzzle_mining``)."""
        now = now_ms()

        def write(conn: Connection) -> None:
            conn.execute(insert_new(conn, analyses_table, ["record_id"]).values(
                record_id=record_id, document=json.dumps(document), created_at=now))
            why = None if rating_floor is None else mining_verdict(conn, record_id,
                                                                   rating_floor)
            waiting = []
            for puzzle in puzzles:
                added = conn.execute(insert_new(conn, mined_puzzles_table, ["id"]).values(
                    id=puzzle["id"], record_id=record_id, puzzle=json.dumps(puzzle),
                    created_at=now, status="public" if why is None else "pending"))
                if added.rowcount:
                    waiting.append(puzzle["id"])
            if why is not None and waiting:
                conn.execute(insert(flags_table).values(
                    kind="puzzle_mining", record_id=record_id, status="open",
                    details=json.dumps({"why": why, "floor": rating_floor,
                                        "puzzles": waiting}), created_at=now))

        await self._writer.commit(write)

    async def mined_puzzles(self, limit: int = 5000) -> list[dict[str, Any]]:
        """Puzzles mined from stored matches that are in the public set, newest first."""
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(select(mined_puzzles_table.c.puzzle).where(
                mined_puzzles_table.c.status == "public").order_by(
                mined_puzzles_table.c.created_at.desc()).limit(limit))).all()
        return [dict(json.loads(row[0])) for row in rows]

    async def puzzle_rating(self, user_id: int) -> tuple[int, int, int]:
        """An account's (puzzle rating, solved, attempts)."""
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(select(
                puzzle_ratings_table.c.rating, puzzle_ratings_table.c.solved,
                puzzle_ratings_table.c.attempts).where(
                puzzle_ratings_table.c.user_id == user_id))).first()
        return (PUZZLE_START_RATING, 0, 0) if row is None else (row[0], row[1], row[2])

    async def record_attempt(self, user_id: int, puzzle_id: str, puzzle_rating: int,
                             solved: bool) -> tuple[int, int, bool]:
        """Count an account's answer to a puzzle: (rating before, after, whether it
        counted). Only the first answer to each puzzle moves the rating."""
        now = now_ms()
        ratings = puzzle_ratings_table

        def write(conn: Connection) -> tuple[int, int, bool]:
            row = conn.execute(select(ratings.c.rating, ratings.c.solved, ratings.c.attempts)
                               .where(ratings.c.user_id == user_id)).first()
            before, solved_count, attempts = ((PUZZLE_START_RATING, 0, 0) if row is None
                                              else (row[0], row[1], row[2]))
            added = conn.execute(insert_new(conn, puzzle_attempts_table,
                                            ["user_id", "puzzle_id"]).values(
                user_id=user_id, puzzle_id=puzzle_id, solved=int(solved), created_at=now))
            if added.rowcount == 0:  # answered before
                return before, before, False
            after = puzzle_rating_after(before, puzzle_rating, solved)
            values = {"rating": after, "solved": solved_count + solved,
                      "attempts": attempts + 1, "updated_at": now}
            if row is None:
                made = conn.execute(insert_new(conn, ratings, ["user_id"]).values(
                    user_id=user_id, **values))
                if made.rowcount == 1:
                    return before, after, True
            conn.execute(update(ratings).where(ratings.c.user_id == user_id).values(**values))
            return before, after, True

        counted: tuple[int, int, bool] = await self._writer.commit(write)
        return counted


def mining_verdict(conn: Connection, record_id: int, rating_floor: int) -> str | None:
    """Why the puzzles of a record must wait for a moderator: ``unrated`` (the match
    counted for no rating), ``below_floor`` (a human player was rated under
    ``rating_floor`` when it began); None when they may join the public set."""
    before = conn.execute(select(rating_history_table.c.before).where(
        rating_history_table.c.record_id == record_id)).scalars().all()
    if not before:
        return "unrated"
    return "below_floor" if min(before) < rating_floor else None
