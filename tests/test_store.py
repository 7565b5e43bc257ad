"""The store (``basra.store``): tables, seats, moves and finished records in SQL.

Every test runs on a fresh SQLite file, and on PostgreSQL too when the environment
variable ``BASRA_TEST_POSTGRES_URL`` names a database, e.g.
``postgresql+asyncpg://postgres@localhost:5433/basra_test`` (``tests/conftest.py`` starts
one when PostgreSQL is installed). Tests there use fresh table codes and delete their rows
afterwards, so they can run again and again.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, event, func, select
from sqlalchemy.exc import OperationalError

from basra.bots import make_bot
from basra.match import Match
from basra.observe import observe
from basra.record import Player, dumps, match_record
from basra.rules import make_rules
from basra.store import (
    FencedError,
    SavedTable,
    StorageError,
    Store,
    StoredRecord,
    database_url,
    default_database_url,
    writer,
)
from basra.store.schema import moves_table, records_table, seats_table, tables_table
from tests.support.stores import BACKENDS, store_url, with_store

CONFIG = {"variant": "egyptian", "players": 2, "rules": {"basra_points": 5},
          "seats": [{"kind": "human", "level": None}, {"kind": "bot", "level": "expert"}],
          "turn_seconds": 30, "takeover_level": "expert"}
BIG_SEED = (1 << 62) - 12345
"""Seeds are 62-bit: they need a BIGINT column."""
WIDEST_MOVE = (1 << 58) - 1
"""A move is ``card | captured << 6``: up to 58 bits."""


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return store_url(request.param, tmp_path)


@pytest.fixture()
def new_code(url: str) -> Iterator[Callable[[], str]]:
    """Fresh table codes; their rows are deleted after the test."""
    codes: list[str] = []

    def make() -> str:
        codes.append("t" + uuid.uuid4().hex[:15])
        return codes[-1]

    yield make

    async def clean(store: Store) -> None:
        async with store.engine.begin() as conn:
            for table in (moves_table, seats_table, tables_table, records_table):
                await conn.execute(delete(table).where(table.c.code.in_(codes)))

    if codes:
        with_store(url, clean)



async def saved(store: Store, code: str) -> SavedTable:
    found = await store.tables.load(code)
    assert found is not None, code
    return found


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A finished match's record."""
    match = Match(make_rules("egyptian"), seed=7)
    bots = [make_bot("greedy", 1), make_bot("random", 2)]
    while not match.is_over:
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
    return match_record(match, [Player("Amira", "human"), Player("greedy", "bot")])


# URLs


@pytest.mark.parametrize(("given", "expected"), [
    ("sqlite:///tmp/basra.db", "sqlite+aiosqlite:///tmp/basra.db"),
    ("sqlite:////var/lib/basra/basra.db", "sqlite+aiosqlite:////var/lib/basra/basra.db"),
    ("sqlite+aiosqlite:///basra.db", "sqlite+aiosqlite:///basra.db"),
    ("sqlite://", "sqlite+aiosqlite://"),
    ("postgresql://u:p@localhost/basra", "postgresql+asyncpg://u:p@localhost/basra"),
    ("postgresql+psycopg2://u:secret@db.example:5433/basra",
     "postgresql+asyncpg://u:secret@db.example:5433/basra"),
    ("postgresql+asyncpg://u:p%40ss@localhost/basra",
     "postgresql+asyncpg://u:p%40ss@localhost/basra"),
])
def test_database_urls_get_their_async_driver(given: str, expected: str) -> None:
    assert database_url(given) == expected
    assert Store(given).url == expected


@pytest.mark.parametrize("given", ["mysql://x", "mysql+aiomysql://u:p@h/db",
                                   "oracle://scott@h/db", "garbage", "http://example.com",
                                   "://nothing"])
def test_other_database_urls_are_refused_naming_the_url(given: str) -> None:
    with pytest.raises(ValueError, match="sqlite") as refused:
        database_url(given)
    assert repr(given) in str(refused.value)
    with pytest.raises(ValueError):
        Store(given)


def test_the_default_database_is_a_sqlite_file() -> None:
    default = default_database_url()
    assert default.startswith("sqlite+aiosqlite:///") and default.endswith("basra.db")
    assert Store().url == Store(None).url == default


def test_a_store_must_be_opened_before_use(tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path}/unused.db")
    with pytest.raises(RuntimeError, match="not open"):
        _ = store.engine

    async def harmless() -> None:
        await store.flush()
        await store.close()

    asyncio.run(harmless())
    assert not (tmp_path / "unused.db").exists()


def test_opening_makes_the_folder_of_a_sqlite_file(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/deep/er/basra.db"
    with_store(url, lambda store: store.tables.load_recent())
    assert (tmp_path / "deep" / "er" / "basra.db").is_file()


# Tables, seats and moves


def test_a_table_its_seats_and_moves_come_back_as_saved(url: str,
                                                        new_code: Callable[[], str]) -> None:
    code, other = new_code(), new_code()

    async def write_and_read(store: Store) -> None:
        await store.tables.create(code, CONFIG, BIG_SEED)
        await store.tables.save_seat(code, 0, "أميرة", "a" * 64)
        await store.tables.save_seat(code, 2, "Omar", "b" * 64)
        await store.tables.create(other, {**CONFIG, "turn_seconds": 0}, 5)
        for index, move in [(0, 17), (2, WIDEST_MOVE), (1, 9)]:
            await store.tables.add_move(code, 1, index, move)
        await store.tables.add_move(other, 1, 0, 51)
        table = await saved(store, code)
        assert table == SavedTable(code, CONFIG, BIG_SEED, 1,
                                   {0: ("أميرة", "a" * 64), 2: ("Omar", "b" * 64)},
                                   [17, 9, WIDEST_MOVE], status="waiting",
                                   movers=[None, None, None])
        assert await saved(store, other) == SavedTable(
            other, {**CONFIG, "turn_seconds": 0}, 5, 1, {}, [51], status="waiting",
            movers=[None])
        assert [t.code for t in await store.tables.load_recent() if t.code in (code, other)] == [
                   other, code]  # the most recently active first

    with_store(url, write_and_read)


def test_writes_at_once_commit_together_and_each_waits_for_its_commit(
        url: str, new_code: Callable[[], str]) -> None:
    """Group commit: many tables' moves in few transactions, each caller resuming only
    once its move is committed."""
    codes = [new_code() for _ in range(20)]
    commits: list[float] = []

    async def write(store: Store) -> None:
        event.listen(store.engine.sync_engine, "commit", lambda _conn: commits.append(1))
        await asyncio.gather(*(store.tables.create(code, CONFIG, 11) for code in codes))
        commits.clear()
        done: list[tuple[str, int]] = []

        async def play(code: str) -> None:
            for index in range(10):
                await store.tables.add_move(code, 1, index, index << 6 | 5)
                done.append((code, index))
                # Committed before the caller goes on: a fresh connection reads it.
                async with store.engine.connect() as conn:
                    found = await conn.execute(select(moves_table.c.move).where(
                        moves_table.c.code == code, moves_table.c.idx == index))
                    assert found.scalar_one() == index << 6 | 5

        await asyncio.gather(*(play(code) for code in codes))
        assert len(done) == 200
        assert len(commits) < 100, len(commits)  # far fewer transactions than moves

    with_store(url, write)

    async def read(store: Store) -> list[SavedTable]:
        return [await saved(store, code) for code in codes]

    assert all(table.moves == [i << 6 | 5 for i in range(10)] for table in with_store(url, read))


def test_a_rematch_keeps_only_the_new_matchs_moves(url: str,
                                                   new_code: Callable[[], str]) -> None:
    code, other = new_code(), new_code()

    async def rematch(store: Store) -> None:
        await store.tables.create(code, CONFIG, 1)
        await store.tables.create(other, CONFIG, 2)
        await store.tables.save_seat(code, 0, "Amira", "d" * 64)
        for index in range(5):
            await store.tables.add_move(code, 1, index, 100 + index)
            await store.tables.add_move(other, 1, index, 200 + index)
        await store.flush()
        await store.tables.start_match(code, 2, BIG_SEED)
        await store.tables.add_move(code, 2, 0, 7)
        await store.tables.add_move(code, 2, 1, 8)
        await store.flush()
        table = await saved(store, code)
        assert (table.match_number, table.seed, table.moves) == (2, BIG_SEED, [7, 8])
        assert table.seats == {0: ("Amira", "d" * 64)}
        assert (await saved(store, other)).moves == [200, 201, 202, 203, 204]
        async with store.engine.connect() as conn:
            rows = await conn.execute(select(func.count()).select_from(moves_table)
                                      .where(moves_table.c.code == code))
            assert rows.scalar_one() == 2  # the old match's moves are gone

    with_store(url, rematch)


def test_a_claimed_table_refuses_the_writes_of_its_old_owner(
        url: str, new_code: Callable[[], str]) -> None:
    """Fencing for servers sharing a database: once another server claims a table (its
    owner epoch rises), the old owner's moves, seats and rematches are refused and write
    nothing, even batched with other tables' moves, which commit."""
    code, other = new_code(), new_code()

    async def fenced(store: Store) -> None:
        await store.tables.create(code, CONFIG, 1, epoch=1)
        await store.tables.create(other, CONFIG, 2, epoch=1)
        await store.tables.add_move(code, 1, 0, 100, epoch=1)
        assert await store.tables.claim(code) == 2
        assert await store.tables.claim("nosuchtable") is None
        old_owner = [store.tables.add_move(code, 1, 1, 101, epoch=1),
                     store.tables.save_seat(code, 1, "Omar", "e" * 64, epoch=1),
                     store.tables.start_match(code, 2, 5, epoch=1)]
        others = store.tables.add_move(other, 1, 0, 200, epoch=1)
        results = await asyncio.gather(*old_owner, others, return_exceptions=True)
        assert all(isinstance(r, FencedError) for r in results[:3]), results
        assert results[3] is None
        table = await saved(store, code)
        assert (table.moves, table.seats, table.match_number) == ([100], {}, 1)
        await store.tables.add_move(code, 1, 1, 102, epoch=2)  # the new owner's play
        assert (await saved(store, code)).moves == [100, 102]
        assert (await saved(store, other)).moves == [200]

    with_store(url, fenced)


def test_many_tables_are_claimed_and_read_in_one_go(url: str, new_code: Callable[[], str],
                                                   record: dict[str, Any]) -> None:
    """A dead server's tables are taken over together: one claim raises every epoch, one
    read brings each table back with its moves and the ids of its records."""
    first, second = new_code(), new_code()

    async def together(store: Store) -> None:
        await store.tables.create(first, CONFIG, 1, epoch=1)
        await store.tables.create(second, CONFIG, 2, epoch=1)
        await store.tables.add_move(first, 1, 0, 100, epoch=1)
        await store.tables.add_move(second, 1, 0, 200, epoch=1)
        await store.tables.claim(second)  # taken over once already
        assert await store.tables.claim_many([first, second, "nosuchtable"]) == {
                 first: 2, second: 3}
        stored = await store.records.save(first, 1, record, dumps(record))
        found = await store.tables.load_many([second, first, "nosuchtable"])
        assert set(found) == {first, second}
        assert (found[first].moves, found[second].moves) == ([100], [200])
        assert (found[first].records, found[second].records) == ([(stored, 1)], [])
        with pytest.raises(FencedError):
            await store.tables.add_move(second, 1, 1, 201, epoch=2)  # an epoch behind

    with_store(url, together)


def test_a_write_that_can_never_succeed_fails_alone(url: str,
                                                    new_code: Callable[[], str]) -> None:
    """A change the database refuses for good (here a second table with the same code)
    raises StorageError to its caller; the changes committed with it are kept."""
    code, other, later = new_code(), new_code(), new_code()

    async def write(store: Store) -> None:
        await store.tables.create(code, CONFIG, 1)
        outcomes = await asyncio.gather(
            store.tables.create(other, CONFIG, 4),
            store.tables.create(code, CONFIG, 2),  # the same code again: refused
            store.tables.add_move(code, 1, 0, 3),
            return_exceptions=True)
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], StorageError) and "refused" in str(outcomes[1])
        assert store.health.ok  # a refused change is not a failing database
        await store.tables.create(later, CONFIG, 3)
        await store.tables.save_seat(later, 1, "Omar", "e" * 64)
        assert (await saved(store, code)).seed == 1
        assert (await saved(store, code)).moves == [3]
        assert (await saved(store, other)).seed == 4
        assert (await saved(store, later)).seats == {1: ("Omar", "e" * 64)}

    with_store(url, write)


def test_a_refused_write_is_logged_without_its_parameters(
        url: str, new_code: Callable[[], str], caplog: pytest.LogCaptureFixture) -> None:
    """A token's hash is a secret: a database error names the statement's problem, never
    the values it carried."""
    code = new_code()
    secret = "5ec2e7" * 10 + "abcd"

    async def write(store: Store) -> None:
        await store.tables.create(code, CONFIG, 1)
        await store.tables.save_seat(code, 0, "Amira", secret)
        with pytest.raises(StorageError) as refused:
            await store.tables.save_seat(code, 0, "Amira", secret)  # the same seat twice
        assert secret not in str(refused.value)

    with_store(url, write)
    assert "could not be written" in caplog.text
    assert secret not in caplog.text and "Amira" not in caplog.text


def test_failing_writes_are_retried_until_they_commit_and_health_says_so(
        url: str, new_code: Callable[[], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """While the database cannot commit (a full disk, a lost connection), the writer
    retries the same batch; callers wait, health says failing, then nothing is lost."""
    code = new_code()
    real_apply = writer._apply
    failures = {"left": 0}

    def flaky(conn: Any, changes: list[Any], touch: Any = ()) -> None:
        if failures["left"] > 0:
            failures["left"] -= 1
            raise OperationalError("INSERT", {}, sqlite3.OperationalError(
                "database or disk is full"))
        real_apply(conn, changes, touch)

    monkeypatch.setattr(writer, "_apply", flaky)
    monkeypatch.setattr(writer, "RETRY_MOST", 0.05)
    heard: list[tuple[bool, str | None]] = []

    async def write(store: Store) -> None:
        store.on_health(lambda health: heard.append((health.ok, health.error)))
        await store.tables.create(code, CONFIG, 1)
        failures["left"] = 6
        moves = asyncio.gather(*(store.tables.add_move(code, 1, i, i + 100) for i in range(5)))
        while store.health.ok:
            await asyncio.sleep(0.005)
        assert store.health.error == "database or disk is full"
        assert store.health.failing_since is not None
        assert not moves.done()  # nobody is told a move is stored while it is not
        await moves
        assert store.health.ok and store.health.error is None
        assert (await saved(store, code)).moves == [100, 101, 102, 103, 104]

    with_store(url, write)
    assert heard == [(False, "database or disk is full"), (True, None)]


def test_whole_matches_with_captures_are_stored_as_played(
        url: str, new_code: Callable[[], str]) -> None:
    """Every move of whole matches, captures of many cards included (moves of up to 58
    bits), comes back exactly: on PostgreSQL a 32-bit column refused them."""
    played: dict[str, list[int]] = {}
    for variant, players in [("egyptian", 2), ("classic", 4), ("three-player", 3)]:
        match = Match(make_rules(variant, players), seed=players, variant=variant)
        bots = [make_bot("greedy", seat) for seat in range(players)]
        moves: list[int] = []
        while not match.is_over and len(match.deals) < 3:
            seat = match.state.to_play
            move = bots[seat].choose(observe(match, seat))
            match.play(move)
            moves.append(move)
        played[new_code()] = moves
    every = [move for moves in played.values() for move in moves]
    assert max(every) >= 1 << 31  # captures that need more than 32 bits were played
    assert sum(move >> 6 != 0 for move in every) >= 30

    async def store_them(store: Store) -> None:
        for code, moves in played.items():
            await store.tables.create(code, CONFIG, 5)
            for index, move in enumerate(moves):
                await store.tables.add_move(code, 1, index, move)

    with_store(url, store_them)

    async def read(store: Store) -> dict[str, list[int]]:
        return {code: (await saved(store, code)).moves for code in played}

    assert with_store(url, read) == played


# Records


def test_records_are_saved_listed_and_found(url: str, new_code: Callable[[], str],
                                            record: dict[str, Any]) -> None:
    code, other = new_code(), new_code()
    text = dumps(record)

    async def records(store: Store) -> None:
        start = int(time.time() * 1000)
        first = await store.records.save(code, 1, record, text)
        second = await store.records.save(other, 1, record, text)
        third = await store.records.save(code, 2, record, text, computer_seats=[0])
        assert first < second < third
        found = await store.records.get(third)
        assert isinstance(found, StoredRecord)
        assert (found.id, found.code, found.match_number) == (third, code, 2)
        assert found.variant == record["variant"] == "egyptian"
        assert found.players == ["Amira", "greedy"]
        assert found.totals == record["result"]["totals"]
        assert found.winner == record["result"]["winner"]
        assert start - 1000 <= found.finished_at <= time.time() * 1000 + 1000
        assert found.record == text and json.loads(found.record) == record
        assert found.summary() == {
            "id": third, "code": code, "match_number": 2, "variant": "egyptian",
            "players": ["Amira", "greedy"], "totals": record["result"]["totals"],
            "winner": record["result"]["winner"], "finished_at": found.finished_at,
            "computer_seats": [0]}
        assert [r.computer_seats for r in await store.records.latest(code=code)] == [[0], []]
        assert [r.id for r in await store.records.latest(code=code)] == [third, first]
        assert [r.id for r in await store.records.latest(code=other)] == [second]
        assert [r.id for r in await store.records.latest(limit=1, code=code)] == [third]
        mine = {first, second, third}
        newest = [r.id for r in await store.records.latest(limit=1000) if r.id in mine]
        assert newest == [third, second, first]
        assert await store.records.get(third + 1000) is None
        assert await store.records.latest(code=new_code()) == []

    with_store(url, records)


def test_records_outlive_the_store(url: str, new_code: Callable[[], str],
                                   record: dict[str, Any]) -> None:
    code = new_code()
    changed = json.loads(dumps(record))
    changed["players"][0]["name"] = "Ḥuda \"the\" 🂡"
    text = dumps(changed)

    async def save(store: Store) -> int:
        return await store.records.save(code, 3, changed, text)

    record_id = with_store(url, save)

    async def load(store: Store) -> StoredRecord | None:
        return await store.records.get(record_id)

    found = with_store(url, load)
    assert found is not None and found.record == text
    assert found.players == ["Ḥuda \"the\" 🂡", "greedy"] and found.match_number == 3


def test_a_rematch_played_in_the_store_round_trips(url: str, new_code: Callable[[], str],
                                                   record: dict[str, Any]) -> None:
    """The write order of a table's life: create, seats, moves, record, rematch."""
    code = new_code()
    rng = random.Random(3)
    moves = [rng.randrange(1 << 20) for _ in range(30)]

    async def life(store: Store) -> None:
        await store.tables.create(code, CONFIG, 42)
        await store.tables.save_seat(code, 0, "Amira", "f" * 64)
        for index, move in enumerate(moves):
            await store.tables.add_move(code, 1, index, move)
        record_id = await store.records.save(code, 1, record, dumps(record))
        await store.tables.start_match(code, 2, 43)
        await store.flush()
        table = await saved(store, code)
        assert (table.match_number, table.seed, table.moves) == (2, 43, [])
        assert [r.id for r in await store.records.latest(code=code)] == [record_id]

    with_store(url, life)
