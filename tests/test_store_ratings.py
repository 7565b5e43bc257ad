"""Ratings in the store (``basra.store.ratings``): a rated match is counted in the
transaction that stores its record, once; ratings, their history and the leaderboard
read back; and an account's matches (``store.records.of_account``).

Runs on a fresh SQLite file, and on PostgreSQL too when ``BASRA_TEST_POSTGRES_URL``
names a database; tests there use fresh names and codes and delete their rows afterwards.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import delete, select

from basra.players.accounts import name_key, token_hash
from basra.record import dumps
from basra.store import RatedMatch, Store, StoredUser, user_key
from basra.store.schema import (
    rated_results_table,
    rating_history_table,
    ratings_table,
    records_table,
    seats_table,
    sessions_table,
    tables_table,
    users_table,
)
from tests.support.stores import BACKENDS, store_url, with_store

POOL = "egyptian-2"
CONFIG = {"variant": "egyptian", "players": 2, "rules": {},
          "seats": [{"kind": "human", "level": None}, {"kind": "human", "level": None}]}
RECORD = {"variant": "egyptian", "players": [{"name": "A", "kind": "human"},
                                             {"name": "B", "kind": "human"}],
          "result": {"totals": [101, 62], "winner": 0}}


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return store_url(request.param, tmp_path)



@pytest.fixture()
def fresh(url: str) -> Iterator[str]:
    """A fresh prefix for names and table codes; their rows go afterwards (an account's
    ratings and history with it)."""
    prefix = "r" + uuid.uuid4().hex[:9]
    yield prefix

    async def clean(store: Store) -> None:
        async with store.engine.begin() as conn:
            codes = select(tables_table.c.code).where(tables_table.c.code.like(prefix + "%"))
            ids = select(records_table.c.id).where(records_table.c.code.in_(codes))
            await conn.execute(delete(rated_results_table).where(
                rated_results_table.c.record_id.in_(ids)))
            for table in (records_table, seats_table):
                await conn.execute(delete(table).where(table.c.code.in_(codes)))
            await conn.execute(delete(tables_table).where(
                tables_table.c.code.like(prefix + "%")))
            users = select(users_table.c.id).where(users_table.c.name.like(prefix + "%"))
            await conn.execute(delete(sessions_table).where(
                sessions_table.c.user_id.in_(users)))
            for table in (rating_history_table, ratings_table):
                await conn.execute(delete(table).where(table.c.user_id.in_(users)))
            await conn.execute(delete(users_table).where(users_table.c.name.like(prefix + "%")))

    with_store(url, clean)


async def two_accounts(store: Store, prefix: str) -> tuple[StoredUser, StoredUser]:
    made = [await store.accounts.create(f"{prefix}{who}", name_key(f"{prefix}{who}"),
                                        "$argon2id$x", session_hash=token_hash(prefix + who),
                                        expires_at=10**13, now=1) for who in "AB"]
    assert made[0] is not None and made[1] is not None
    return made[0], made[1]


async def seated_table(store: Store, code: str, a: StoredUser, b: StoredUser) -> None:
    await store.tables.create(code, CONFIG, 5, seats=[(0, a.name, "a" * 64),
                                                      (1, b.name, "b" * 64)],
                              status="playing", accounts={0: a.id, 1: b.id})


def test_a_rated_match_is_counted_once_and_reads_back(url: str, fresh: str) -> None:
    async def work(store: Store) -> None:
        a, b = await two_accounts(store, fresh)
        code = fresh + "t1"
        await seated_table(store, code, a, b)
        rated = RatedMatch(POOL, (user_key(a.id), user_key(b.id)), (0, 1), (0, 1))
        first = await store.records.save(code, 1, RECORD, dumps(RECORD), rated=rated)
        again = await store.records.save(code, 1, RECORD, dumps(RECORD), rated=rated)
        assert first == again and await store.ratings.is_rated(first)
        changes = await store.ratings.changes(first)
        assert [(c.seat, c.user_id, c.before, c.after) for c in changes] == [
            (0, a.id, 1500, 1578), (1, b.id, 1500, 1422)]
        assert changes[0].to_dict() == {"seat": 0, "before": 1500, "after": 1578}
        ratings = await store.ratings.of_accounts([a.id, b.id, a.id], POOL)
        assert {key: r.games for key, r in ratings.items()} == {(a.id, POOL): 1,
                                                                 (b.id, POOL): 1}
        assert await store.ratings.of_accounts([a.id]) == {(a.id, POOL): ratings[a.id, POOL]}
        assert await store.ratings.of_accounts([]) == {}
        [(pool, record_id, _at, before, after)] = await store.ratings.history(a.id)
        assert (pool, record_id, before, after) == (POOL, first, 1500, 1578)
        board = [name for name, _rating in await store.ratings.leaderboard(POOL, 10_000)
                 if name.startswith(fresh)]
        assert board == [a.name, b.name]  # the winner first
        assert POOL in await store.ratings.pools()
        [(stored, seat, config)] = await store.records.of_account(b.id)
        assert (stored.id, seat, config) == (first, 1, CONFIG)
        assert await store.records.of_account(b.id, limit=0) == []

    with_store(url, work)


def test_a_casual_match_and_a_result_that_cannot_be_rated_count_nothing(
        url: str, fresh: str, caplog: pytest.LogCaptureFixture) -> None:
    async def work(store: Store) -> None:
        a, b = await two_accounts(store, fresh)
        await seated_table(store, fresh + "t1", a, b)
        await seated_table(store, fresh + "t2", a, b)
        casual = await store.records.save(fresh + "t1", 1, RECORD, dumps(RECORD))
        assert not await store.ratings.is_rated(casual)
        assert await store.ratings.changes(casual) == []
        wrong = RatedMatch(POOL, (user_key(a.id), user_key(b.id)), (0, 0), (0,))
        with caplog.at_level(logging.ERROR, logger="basra.store"):
            kept = await store.records.save(fresh + "t2", 1, RECORD, dumps(RECORD),
                                            rated=wrong)
        assert "could not be rated" in caplog.text
        assert (await store.records.get(kept)) is not None  # the record is kept
        assert not await store.ratings.is_rated(kept)
        assert await store.ratings.of_accounts([a.id, b.id]) == {}
        assert await store.ratings.history(a.id) == []

    with_store(url, work)
