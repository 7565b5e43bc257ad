"""Analyses, mined puzzles and puzzle ratings in the store (``basra.store.analysis``),
written through the one writer queue like every other change.

Runs on a fresh SQLite file, and on PostgreSQL too when ``BASRA_TEST_POSTGRES_URL``
names a database; tests there use fresh ids and delete their rows afterwards.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import delete

from basra.store import PUZZLE_START_RATING, Store, puzzle_rating_after
from basra.store.schema import (
    analyses_table,
    mined_puzzles_table,
    puzzle_attempts_table,
    puzzle_ratings_table,
)
from tests.support.stores import BACKENDS, store_url, with_store


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return store_url(request.param, tmp_path)



@pytest.fixture()
def ids(url: str) -> Iterator[tuple[int, int, str]]:
    """A fresh record id, account id and puzzle id prefix; their rows go afterwards."""
    record_id = random.randrange(1 << 40, 1 << 50)
    user_id = random.randrange(1 << 20, 1 << 30)
    prefix = uuid.uuid4().hex[:8]
    yield record_id, user_id, prefix

    async def clean(store: Store) -> None:
        async with store.engine.begin() as conn:
            await conn.execute(delete(analyses_table).where(
                analyses_table.c.record_id == record_id))
            await conn.execute(delete(mined_puzzles_table).where(
                mined_puzzles_table.c.record_id == record_id))
            await conn.execute(delete(puzzle_attempts_table).where(
                puzzle_attempts_table.c.user_id == user_id))
            await conn.execute(delete(puzzle_ratings_table).where(
                puzzle_ratings_table.c.user_id == user_id))

    with_store(url, clean)


def test_an_analysis_and_its_puzzles_are_stored_once(
        url: str, ids: tuple[int, int, str]) -> None:
    record_id, _user_id, prefix = ids
    puzzles = [{"id": f"{prefix}-{i}", "n": i} for i in range(3)]

    async def work(store: Store) -> None:
        assert await store.analysis.get(record_id) is None
        await store.analysis.save(record_id, {"format": "first"}, puzzles)
        # Saved again (another server process, a second request): the first stays.
        await store.analysis.save(record_id, {"format": "second"},
                                  [*puzzles, {"id": f"{prefix}-new", "n": 9}])
        assert await store.analysis.get(record_id) == {"format": "first"}
        mined = [p for p in await store.analysis.mined_puzzles()
                 if str(p["id"]).startswith(prefix)]
        assert sorted(p["n"] for p in mined) == [0, 1, 2, 9]

    with_store(url, work)


def test_only_the_first_answer_to_a_puzzle_moves_the_rating(
        url: str, ids: tuple[int, int, str]) -> None:
    _record_id, user_id, prefix = ids

    async def work(store: Store) -> None:
        assert await store.analysis.puzzle_rating(user_id) == (PUZZLE_START_RATING, 0, 0)
        first = await store.analysis.record_attempt(user_id, f"{prefix}-a", 1200, True)
        after = puzzle_rating_after(PUZZLE_START_RATING, 1200, True)
        assert first == (PUZZLE_START_RATING, after, True)
        assert await store.analysis.record_attempt(user_id, f"{prefix}-a", 1200, False) == (
            after, after, False)
        assert await store.analysis.puzzle_rating(user_id) == (after, 1, 1)

    with_store(url, work)


def test_answers_at_once_are_counted_one_after_the_other(
        url: str, ids: tuple[int, int, str]) -> None:
    """Queued together, committed together: each answer starts from the rating the one
    before it left, and a repeated answer counts once."""
    _record_id, user_id, prefix = ids
    answers = [(f"{prefix}-{i % 4}", 900 + 50 * i, i % 3 == 0) for i in range(6)]

    async def work(store: Store) -> None:
        results = await asyncio.gather(*(store.analysis.record_attempt(user_id, *answer)
                                         for answer in answers))
        rating = PUZZLE_START_RATING
        for (_puzzle, puzzle_rating, solved), (before, after, counted) in zip(
                answers[:4], results[:4], strict=True):
            assert (before, counted) == (rating, True)
            rating = puzzle_rating_after(rating, puzzle_rating, solved)
            assert after == rating
        assert [counted for _b, _a, counted in results[4:]] == [False, False]
        solved = sum(solved for _p, _r, solved in answers[:4])
        assert await store.analysis.puzzle_rating(user_id) == (rating, solved, 4)

    with_store(url, work)
