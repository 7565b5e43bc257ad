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

from sqlalchemy import Connection, select, update

from .schema import (
    analyses_table,
    mined_puzzles_table,
    puzzle_attempts_table,
    puzzle_ratings_table,
)
from .writer import Writer, insert_new, now_ms

__all__ = ["PUZZLE_START_RATING", "Analyses", "puzzle_rating_after"]

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
                   puzzles: list[dict[str, Any]]) -> None:
        """Store a record's analysis and the puzzles mined from it (once each: another
        server process that stored them first wins)."""
        now = now_ms()

        def write(conn: Connection) -> None:
            conn.execute(insert_new(conn, analyses_table, ["record_id"]).values(
                record_id=record_id, document=json.dumps(document), created_at=now))
            for puzzle in puzzles:
                conn.execute(insert_new(conn, mined_puzzles_table, ["id"]).values(
                    id=puzzle["id"], record_id=record_id, puzzle=json.dumps(puzzle),
                    created_at=now))

        await self._writer.commit(write)

    async def mined_puzzles(self, limit: int = 5000) -> list[dict[str, Any]]:
        """Puzzles mined from stored matches, newest first."""
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(select(mined_puzzles_table.c.puzzle).order_by(
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
