"""The lessons each account has finished (``store.learning``; its table is in
``schema.py``, made by migration 0012).

A guest's progress stays in the browser; when the guest logs in the page sends it here
and it joins the account's (:meth:`Learning.finish` with several lessons): a lesson
finished twice keeps its first time.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, select

from .schema import lessons_table
from .writer import Writer, insert_new, now_ms

__all__ = ["Learning"]


class Learning:
    """Lessons finished per account (``store.learning``)."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def finished(self, user_id: int) -> dict[str, int]:
        """The account's finished lessons: lesson id → when (Unix milliseconds)."""
        table = lessons_table
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(
                select(table.c.lesson, table.c.finished_at)
                .where(table.c.user_id == user_id)
                .order_by(table.c.finished_at, table.c.lesson))).all()
        return {str(row[0]): int(row[1]) for row in rows}

    async def finish(self, user_id: int, lessons: Iterable[str],
                     now: int | None = None) -> None:
        """Note lessons as finished by the account now; one finished before keeps its
        first time."""
        at = now_ms() if now is None else now
        names = sorted(set(lessons))
        if not names:
            return

        def write(conn: Connection) -> None:
            for name in names:
                conn.execute(insert_new(conn, lessons_table, ["user_id", "lesson"]).values(
                    user_id=user_id, lesson=name, finished_at=at))

        await self._writer.commit(write)
