"""Reading finished matches in pages (``store.records.stream`` and ``count`` with a
``RecordQuery``): an account's, a variant's, rated or casual ones, those of a time span;
newest or oldest first, page after page, up to a limit.

Runs on a fresh SQLite file, and on PostgreSQL too when ``BASRA_TEST_POSTGRES_URL``
names a database; there, tests use fresh names and codes, look only at their own rows and
delete them afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import delete, select

from basra.record import loads, replay
from basra.store import RecordQuery, Store
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
from tests.support.finished import DAY_MS, NOV_2026, accounts, finish
from tests.support.stores import BACKENDS, store_url, with_store


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return store_url(request.param, tmp_path)


@pytest.fixture()
def fresh(url: str) -> Iterator[str]:
    """A fresh prefix for names and table codes; their rows go afterwards."""
    prefix = "q" + uuid.uuid4().hex[:9]
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
            for table in (sessions_table, rating_history_table, ratings_table):
                await conn.execute(delete(table).where(table.c.user_id.in_(users)))
            await conn.execute(delete(users_table).where(users_table.c.name.like(prefix + "%")))

    with_store(url, clean)


def test_an_accounts_matches_come_newest_first_in_pages_and_filtered(
        url: str, fresh: str) -> None:
    async def work(store: Store) -> None:
        amira, bashir, omar = await accounts(store, fresh + "A", fresh + "B", fresh + "O")
        # Amira's matches, day by day: rated, casual, rated pasur, casual, rated.
        ids = [await finish(store, f"{fresh}t{day}", [amira, bashir], NOV_2026 + day * DAY_MS,
                            rated=day % 2 == 0, variant="pasur" if day == 2 else "egyptian",
                            seed=day)
               for day in range(5)]
        others = await finish(store, fresh + "x", [bashir, omar], NOV_2026, rated=True)
        everything = RecordQuery(account=amira.id)

        async def read(query: RecordQuery, *, newest_first: bool = True,
                       limit: int | None = None, page: int = 50) -> list[int]:
            return [record.id async for record in store.records.stream(
                query, newest_first=newest_first, limit=limit, page=page)]

        newest_first = ids[::-1]
        for page in (1, 2, 5, 50):  # page boundaries fall everywhere
            assert await read(everything, page=page) == newest_first
            assert await read(everything, page=page, newest_first=False) == ids
            assert await read(everything, page=page, limit=3) == newest_first[:3]
        assert await read(everything, limit=0) == []
        assert await store.records.count(everything) == 5
        assert await read(RecordQuery(account=bashir.id)) == [others, *newest_first]
        assert await read(RecordQuery(account=omar.id)) == [others]
        assert await read(replace(everything, rated=True)) == [ids[4], ids[2], ids[0]]
        assert await read(replace(everything, rated=False)) == [ids[3], ids[1]]
        assert await read(replace(everything, variant="pasur")) == [ids[2]]
        assert await read(replace(everything, variant="egyptian", rated=True)) == [
            ids[4], ids[0]]
        # since and until are both included
        span = replace(everything, since=NOV_2026 + DAY_MS, until=NOV_2026 + 3 * DAY_MS)
        assert await read(span) == [ids[3], ids[2], ids[1]]
        assert await store.records.count(replace(span, rated=True)) == 1
        assert await read(replace(everything, since=NOV_2026 + 4 * DAY_MS + 1)) == []
        # what comes is the whole stored record, which replays
        [latest] = [record async for record in store.records.stream(everything, limit=1)]
        document = loads(latest.line().decode())
        assert b"\n" not in latest.line()[:-1] and document == loads(latest.record)
        assert replay(document).winner == latest.winner

    with_store(url, work)


def test_a_months_rated_matches_of_everyone_oldest_first(url: str, fresh: str) -> None:
    async def work(store: Store) -> None:
        amira, bashir, omar = await accounts(store, fresh + "A", fresh + "B", fresh + "O")
        ours = {await finish(store, f"{fresh}t{n}", players, at, rated=rated, seed=n): n
                for n, (players, at, rated) in enumerate([
                    ([amira, bashir], NOV_2026 - 1, True),  # October
                    ([amira, omar], NOV_2026, True),
                    ([bashir, omar], NOV_2026 + 5 * DAY_MS, False),
                    ([omar, bashir], NOV_2026 + 9 * DAY_MS, True),
                ])}
        month = RecordQuery(rated=True, since=NOV_2026, until=NOV_2026 + 30 * DAY_MS - 1)
        found = [ours[record.id] async for record in
                 store.records.stream(month, newest_first=False, page=1)
                 if record.id in ours]
        assert found == [1, 3]

    with_store(url, work)
