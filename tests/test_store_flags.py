"""Flags for moderators in the store (``basra.store.flags``).

Runs on a fresh SQLite file, and on PostgreSQL too when ``BASRA_TEST_POSTGRES_URL``
names a database; tests there use fresh account ids and delete their rows afterwards.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import delete

from basra.store import Store
from basra.store.schema import flags_table
from tests.support.stores import BACKENDS, store_url, with_store


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield store_url(request.param, tmp_path)


@pytest.fixture()
def users(url: str) -> Iterator[tuple[int, int]]:
    """Two fresh account ids; their flags go afterwards."""
    pair = (random.randrange(1 << 20, 1 << 30), random.randrange(1 << 20, 1 << 30))
    yield pair

    async def clean(store: Store) -> None:
        async with store.engine.begin() as conn:
            await conn.execute(delete(flags_table).where(flags_table.c.user_id.in_(pair)))

    with_store(url, clean)


def test_a_flag_is_listed_for_either_account_until_settled(
        url: str, users: tuple[int, int]) -> None:
    first, second = users

    async def work(store: Store) -> tuple[list[object], ...]:
        await store.flags.raise_flag("same_pair", first, second, record_id=7,
                                     details={"results_today": 4})
        mine = await store.flags.listed(user_id=first)
        theirs = await store.flags.listed(user_id=second)
        assert await store.flags.settle(mine[0].id, "dismissed")
        assert not await store.flags.settle(-1, "dismissed")
        return mine, theirs, await store.flags.listed(user_id=first), \
            await store.flags.listed(status="dismissed", user_id=first)

    mine, theirs, still_open, dismissed = with_store(url, work)
    assert [flag.to_dict()["details"] for flag in mine] == [{"results_today": 4}]
    assert mine == theirs
    assert still_open == []
    assert [flag.status for flag in dismissed] == ["dismissed"]


def test_unknown_kinds_and_statuses_are_refused(url: str) -> None:
    async def work(store: Store) -> None:
        with pytest.raises(ValueError, match="unknown flag kind 'rude'"):
            await store.flags.raise_flag("rude", 1)
        with pytest.raises(ValueError, match="bad flag status 'open'"):
            await store.flags.settle(1, "open")

    with_store(url, work)
