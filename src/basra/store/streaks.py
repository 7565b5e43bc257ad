"""Puzzle Streaks: puzzles solved in a row until the first mistake, per account (its
table is in ``schema.py``, made by migration 0013).

An account plays one streak at a time: :meth:`Streaks.start` begins one (the current
streak back to 0), each right answer adds one (a puzzle answered again in a row counts
once), and the first wrong answer ends it (back to 0). The best streak is kept.
A guest's streak lives in the browser only.
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Connection, select, update

from .schema import puzzle_streaks_table
from .writer import Writer, insert_new, now_ms

__all__ = ["Streak", "Streaks"]


class Streak(NamedTuple):
    """An account's streak: puzzles solved in a row now, and its best ever."""

    current: int
    best: int


class Streaks:
    """Accounts' Puzzle Streaks (``store.streaks``)."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def get(self, user_id: int) -> Streak:
        """An account's streak (0 and 0 before its first)."""
        table = puzzle_streaks_table
        async with self._writer.engine.connect() as conn:
            row = (await conn.execute(select(table.c.streak, table.c.best).where(
                table.c.user_id == user_id))).first()
        return Streak(0, 0) if row is None else Streak(row[0], row[1])

    async def start(self, user_id: int) -> Streak:
        """Begin a new streak: the current one back to 0, the best kept."""
        return await self._change(user_id, None, None)

    async def answer(self, user_id: int, puzzle_id: str, solved: bool) -> Streak:
        """Count an answer in the account's streak: one more when ``solved`` (once for a
        puzzle answered again in a row), else the streak ends (back to 0)."""
        return await self._change(user_id, puzzle_id, solved)

    async def _change(self, user_id: int, puzzle_id: str | None,
                      solved: bool | None) -> Streak:
        now = now_ms()
        table = puzzle_streaks_table

        def write(conn: Connection) -> Streak:
            conn.execute(insert_new(conn, table, ["user_id"]).values(
                user_id=user_id, streak=0, best=0, last_puzzle="", updated_at=now))
            current, best, last = conn.execute(
                select(table.c.streak, table.c.best, table.c.last_puzzle).where(
                    table.c.user_id == user_id)).one()
            if solved is None:
                current, last = 0, ""
            elif not solved:
                current, last = 0, puzzle_id or ""
            elif puzzle_id != last:
                current, last = current + 1, puzzle_id or ""
            best = max(best, current)
            conn.execute(update(table).where(table.c.user_id == user_id).values(
                streak=current, best=best, last_puzzle=last, updated_at=now))
            return Streak(current, best)

        streak: Streak = await self._writer.commit(write)
        return streak
