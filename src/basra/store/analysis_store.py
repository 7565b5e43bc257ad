"""Stored analyses, puzzles mined from stored matches, and accounts' puzzle ratings.

Kept apart from the main store (:class:`basra.store.Store`), on the same database; its
tables are in ``schema.py`` (made by migration 0007):

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

import asyncio
import json
import time
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .db import Store
from .schema import (
    analyses_table,
    mined_puzzles_table,
    puzzle_attempts_table,
    puzzle_ratings_table,
)

__all__ = ["PUZZLE_START_RATING", "AnalysisStore", "puzzle_rating_after"]

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


def _now_ms() -> int:
    return int(time.time() * 1000)


class AnalysisStore:
    """The analysis tables, on an open :class:`Store`'s database."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = asyncio.Lock()

    async def _tables(self) -> None:
        """The tables are made by the store's migrations (nothing to do)."""

    async def get_analysis(self, record_id: int) -> dict[str, Any] | None:
        """A record's stored analysis, or None."""
        await self._tables()
        async with self.store.engine.connect() as conn:
            row = (await conn.execute(select(analyses_table.c.document).where(
                analyses_table.c.record_id == record_id))).first()
        return None if row is None else dict(json.loads(row[0]))

    async def save_analysis(self, record_id: int, document: dict[str, Any],
                            puzzles: list[dict[str, Any]]) -> None:
        """Store a record's analysis and the puzzles mined from it (once each: another
        server process that stored them first wins)."""
        await self._tables()
        now = _now_ms()
        rows = [(analyses_table, analyses_table.c.record_id, record_id,
                 {"record_id": record_id, "document": json.dumps(document), "created_at": now})]
        rows += [(mined_puzzles_table, mined_puzzles_table.c.id, p["id"],
                  {"id": p["id"], "record_id": record_id, "puzzle": json.dumps(p),
                   "created_at": now}) for p in puzzles]
        for table, key, value, values in rows:
            try:
                async with self.store.engine.begin() as conn:
                    found = (await conn.execute(select(key).where(key == value))).first()
                    if found is None:
                        await conn.execute(table.insert().values(**values))
            except IntegrityError:
                continue  # stored meanwhile by another process

    async def mined_puzzles(self, limit: int = 5000) -> list[dict[str, Any]]:
        """Puzzles mined from stored matches, newest first."""
        await self._tables()
        async with self.store.engine.connect() as conn:
            rows = (await conn.execute(select(mined_puzzles_table.c.puzzle).order_by(
                mined_puzzles_table.c.created_at.desc()).limit(limit))).all()
        return [dict(json.loads(row[0])) for row in rows]

    async def puzzle_rating(self, user_id: int) -> tuple[int, int, int]:
        """An account's (puzzle rating, solved, attempts)."""
        await self._tables()
        async with self.store.engine.connect() as conn:
            row = (await conn.execute(select(
                puzzle_ratings_table.c.rating, puzzle_ratings_table.c.solved,
                puzzle_ratings_table.c.attempts).where(
                puzzle_ratings_table.c.user_id == user_id))).first()
        return (PUZZLE_START_RATING, 0, 0) if row is None else (row[0], row[1], row[2])

    async def record_attempt(self, user_id: int, puzzle_id: str, puzzle_rating: int,
                             solved: bool) -> tuple[int, int, bool]:
        """Count an account's answer to a puzzle: (rating before, after, whether it
        counted). Only the first answer to each puzzle moves the rating."""
        await self._tables()
        now = _now_ms()
        async with self._lock:
            before, solved_count, attempts = await self.puzzle_rating(user_id)
            try:
                async with self.store.engine.begin() as conn:
                    await conn.execute(puzzle_attempts_table.insert().values(
                        user_id=user_id, puzzle_id=puzzle_id, solved=int(solved),
                        created_at=now))
                    after = puzzle_rating_after(before, puzzle_rating, solved)
                    values = {"rating": after, "solved": solved_count + solved,
                              "attempts": attempts + 1, "updated_at": now}
                    exists = (await conn.execute(select(puzzle_ratings_table.c.user_id).where(
                        puzzle_ratings_table.c.user_id == user_id))).first()
                    if exists is None:
                        await conn.execute(puzzle_ratings_table.insert().values(
                            user_id=user_id, **values))
                    else:
                        await conn.execute(puzzle_ratings_table.update().where(
                            puzzle_ratings_table.c.user_id == user_id).values(**values))
            except IntegrityError:
                return before, before, False
        return before, after, True
