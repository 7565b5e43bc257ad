"""Schema migrations (``basra.store.migrations``): a database made by an older server
upgrades in place when a newer one opens it, keeping every row.

Runs on SQLite, and on PostgreSQL in a database of its own when
``BASRA_TEST_POSTGRES_URL`` names a server (``tests/conftest.py`` starts one when
PostgreSQL is installed).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import (
    BigInteger,
    Column,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    insert,
    inspect,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from basra.store import Store
from basra.store.db import database_url
from basra.store.schema import metadata
from tests.support.stores import BACKENDS, POSTGRES_URL

HEAD = "0018"
"""The newest revision."""


# The schema as the first server made it, before migrations existed.
legacy = MetaData()
Table("basra_tables", legacy,
      Column("code", String(32), primary_key=True), Column("config", Text, nullable=False),
      Column("seed", BigInteger, nullable=False),
      Column("match_number", Integer, nullable=False),
      Column("created_at", BigInteger, nullable=False),
      Column("updated_at", BigInteger, nullable=False))
Table("basra_seats", legacy,
      Column("code", String(32), primary_key=True), Column("seat", Integer, primary_key=True),
      Column("name", String(64), nullable=False),
      Column("token_hash", String(64), nullable=False))
Table("basra_moves", legacy,
      Column("code", String(32), primary_key=True),
      Column("match_number", Integer, primary_key=True),
      Column("idx", Integer, primary_key=True), Column("move", Integer, nullable=False))
Table("basra_records", legacy,
      Column("id", Integer, primary_key=True, autoincrement=True),
      Column("code", String(32), nullable=False, index=True),
      Column("match_number", Integer, nullable=False),
      Column("variant", String(32), nullable=False), Column("players", Text, nullable=False),
      Column("totals", Text, nullable=False), Column("winner", Integer, nullable=False),
      Column("finished_at", BigInteger, nullable=False),
      Column("record", Text, nullable=False))

CONFIG = {"variant": "egyptian", "players": 2, "rules": {},
          "seats": [{"kind": "human", "level": None}, {"kind": "bot", "level": "expert"}],
          "turn_seconds": 0, "takeover_level": "expert"}


@pytest.fixture(params=BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """A database with nothing in it."""
    if request.param == "sqlite":
        yield database_url(f"sqlite:///{tmp_path}/old.db")
        return
    assert POSTGRES_URL is not None
    name = f"basra_migrate_{uuid.uuid4().hex[:12]}"
    server = make_url(database_url(POSTGRES_URL))

    async def admin(statement: str) -> None:
        engine = create_async_engine(server, isolation_level="AUTOCOMMIT")
        async with engine.connect() as conn:
            await conn.execute(text(statement))
        await engine.dispose()

    asyncio.run(admin(f"CREATE DATABASE {name}"))
    yield server.set(database=name).render_as_string(hide_password=False)
    asyncio.run(admin(f"DROP DATABASE {name}"))


def run(work: Any) -> Any:
    return asyncio.run(work())


def test_a_database_of_the_first_schema_upgrades_in_place(empty_url: str) -> None:
    async def make_legacy() -> None:
        engine = create_async_engine(empty_url)
        async with engine.begin() as conn:
            await conn.run_sync(legacy.create_all)
            await conn.execute(insert(legacy.tables["basra_tables"]).values(
                code="old1", config=json.dumps(CONFIG), seed=77, match_number=1,
                created_at=1, updated_at=2))
            await conn.execute(insert(legacy.tables["basra_seats"]).values(
                code="old1", seat=0, name="Amira", token_hash="a" * 64))
            await conn.execute(insert(legacy.tables["basra_moves"]), [
                {"code": "old1", "match_number": 1, "idx": i, "move": m}
                for i, m in enumerate([5, 17, 40])])
        await engine.dispose()

    run(make_legacy)

    async def upgrade_and_use() -> None:
        store = Store(empty_url)
        await store.open()
        try:
            table = await store.tables.load("old1")
            assert table is not None
            assert (table.seed, table.moves, table.seats) == (77, [5, 17, 40],
                                                              {0: ("Amira", "a" * 64)})
            assert table.status == "playing" and not table.opened
            await store.tables.add_move("old1", 1, 3, (1 << 58) - 1)  # needs 64 bits
            again = await store.tables.load("old1")
            assert again is not None and again.moves == [5, 17, 40, (1 << 58) - 1]
            async with store.engine.connect() as conn:
                version = await conn.execute(text("SELECT version_num FROM alembic_version"))
                assert version.scalar_one() == HEAD
                column = await conn.run_sync(lambda sync: next(
                    c for c in inspect(sync).get_columns("basra_moves") if c["name"] == "move"))
                if store.sqlite:
                    assert str(column["type"]) == "INTEGER"  # 64-bit in SQLite
                else:
                    assert str(column["type"]) == "BIGINT"
        finally:
            await store.close()

    run(upgrade_and_use)
    run(_reopen(empty_url))  # a second open changes nothing


def _reopen(url: str) -> Any:
    async def reopen() -> None:
        store = Store(url)
        await store.open()
        try:
            table = await store.tables.load("old1")
            assert table is not None and len(table.moves) == 4
        finally:
            await store.close()

    return reopen


def test_a_fresh_database_gets_exactly_the_schema_the_code_uses(empty_url: str) -> None:
    async def check() -> list[Any]:
        store = Store(empty_url)
        await store.open()
        try:
            async with store.engine.connect() as conn:
                return list(await conn.run_sync(lambda sync: compare_metadata(
                    MigrationContext.configure(sync), metadata)))
        finally:
            await store.close()

    differences = run(check)
    if empty_url.startswith("sqlite"):
        # SQLite's INTEGER already holds 64 bits: the moves column is left as it was made.
        differences = [d for d in differences
                       if not (isinstance(d, list) and d[0][0] == "modify_type"
                               and d[0][2:4] == ("basra_moves", "move"))]
    assert differences == []


def test_a_database_of_revision_0002_upgrades_and_keeps_its_records(empty_url: str) -> None:
    """Records stored before ``computer_seats`` existed read as finished by their players;
    new ones keep the seats the computer finished for."""
    from alembic import command
    from alembic.config import Config

    from basra.record import dumps
    from basra.store.db import migrate

    record = {"variant": "egyptian", "players": [{"name": "Amira", "kind": "human"},
                                                 {"name": "Layla (expert)", "kind": "bot"}],
              "result": {"totals": [101, 62], "winner": 0}}

    async def make_0002() -> None:
        def upgrade(sync: Any) -> None:
            config = Config()
            config.set_main_option("script_location", str(
                resources.files("basra.store") / "migrations"))
            config.attributes["connection"] = sync
            command.upgrade(config, "0002")

        engine = create_async_engine(empty_url)
        async with engine.begin() as conn:
            await conn.run_sync(upgrade)
            columns = await conn.run_sync(lambda sync: [
                c["name"] for c in inspect(sync).get_columns("basra_records")])
            assert "computer_seats" not in columns
            await conn.execute(text(
                "INSERT INTO basra_records (code, match_number, variant, players, totals, "
                "winner, finished_at, record) VALUES ('old2', 1, 'egyptian', "
                "'[\"Amira\", \"Layla (expert)\"]', '[101, 62]', 0, 5, '{}')"))
        await engine.dispose()

    run(make_0002)

    async def upgrade_and_use() -> None:
        store = Store(empty_url)
        await store.open()
        try:
            async with store.engine.connect() as conn:
                version = await conn.execute(text("SELECT version_num FROM alembic_version"))
                assert version.scalar_one() == HEAD
            [old] = await store.records.latest(code="old2")
            assert old.players == ["Amira", "Layla (expert)"] and old.totals == [101, 62]
            assert old.computer_seats == [] and old.summary()["computer_seats"] == []
            new_id = await store.records.save("new3", 1, record, dumps(record), [0])
            found = await store.records.get(new_id)
            assert found is not None and found.summary()["computer_seats"] == [0]
            async with store.engine.begin() as conn:
                await conn.run_sync(migrate)  # already at the head: nothing changes
        finally:
            await store.close()

    run(upgrade_and_use)


def migrate_to(url: str, revision: str) -> Any:
    """Bring an empty database to ``revision`` (not further)."""
    from alembic import command
    from alembic.config import Config

    def upgrade(sync: Any) -> None:
        config = Config()
        config.set_main_option("script_location", str(
            resources.files("basra.store") / "migrations"))
        config.attributes["connection"] = sync
        command.upgrade(config, revision)

    async def make() -> None:
        engine = create_async_engine(url)
        async with engine.begin() as conn:
            await conn.run_sync(upgrade)
        await engine.dispose()

    return make


def test_a_database_of_revision_0003_upgrades_to_accounts_in_place(empty_url: str) -> None:
    """Today's tables, seats, moves and records stay as they were; the accounts' tables
    come, empty, and work, the unique name key included."""
    from basra.players.accounts import name_key, token_hash

    run(migrate_to(empty_url, "0003"))

    async def fill_0003() -> None:
        engine = create_async_engine(empty_url)
        async with engine.begin() as conn:
            names = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
            assert "basra_users" not in names and "basra_sessions" not in names
            await conn.execute(text(
                "INSERT INTO basra_tables (code, config, seed, match_number, created_at, "
                "updated_at, status) VALUES ('old3', :config, 77, 1, 1, 2, 'playing')"),
                {"config": json.dumps(CONFIG)})
            await conn.execute(text("INSERT INTO basra_seats (code, seat, name, token_hash) "
                                    "VALUES ('old3', 0, 'Amira', :hash)"), {"hash": "a" * 64})
            await conn.execute(text("INSERT INTO basra_moves (code, match_number, idx, move) "
                                    "VALUES ('old3', 1, 0, 5)"))
            await conn.execute(text(
                "INSERT INTO basra_records (code, match_number, variant, players, totals, "
                "winner, finished_at, record, computer_seats) VALUES ('old3', 0, 'egyptian', "
                "'[\"Amira\", \"Layla (expert)\"]', '[101, 62]', 0, 5, '{}', '[1]')"))
        await engine.dispose()

    run(fill_0003)

    async def upgrade_and_use() -> None:
        store = Store(empty_url)
        await store.open()
        try:
            async with store.engine.connect() as conn:
                version = await conn.execute(text("SELECT version_num FROM alembic_version"))
                assert version.scalar_one() == HEAD
                indexes = await conn.run_sync(lambda sync: {
                    index["name"]: index["unique"]
                    for index in inspect(sync).get_indexes("basra_users")})
                assert indexes["ux_basra_users_name_key"]
            table = await store.tables.load("old3")
            assert table is not None and table.moves == [5]
            assert table.seats == {0: ("Amira", "a" * 64)}
            [old] = await store.records.latest(code="old3")
            assert old.computer_seats == [1] and old.totals == [101, 62]
            assert await store.accounts.find(name_key("Amira")) is None
            user = await store.accounts.create("Amira", name_key("Amira"), "$argon2id$x",
                                               session_hash=token_hash("t"), expires_at=10**13,
                                               now=1)
            assert user is not None
            assert await store.accounts.find_by_session(token_hash("t"), 2) == user
            assert await store.accounts.create("AMIRA", name_key("AMIRA"), "$argon2id$y",
                                               session_hash=token_hash("u"), expires_at=10**13,
                                               now=1) is None
        finally:
            await store.close()

    run(upgrade_and_use)


def test_a_database_of_revision_0004_upgrades_to_ratings_in_place(empty_url: str) -> None:
    """Accounts, seats and records stay; seats gain an empty account, the ratings' tables
    come empty and work: a rated result counts once."""
    from basra.players.accounts import name_key, token_hash
    from basra.record import dumps
    from basra.store import RatedMatch

    run(migrate_to(empty_url, "0004"))

    async def fill_0004() -> None:
        engine = create_async_engine(empty_url)
        async with engine.begin() as conn:
            names = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
            assert "basra_ratings" not in names and "basra_rated_results" not in names
            await conn.execute(text(
                "INSERT INTO basra_tables (code, config, seed, match_number, created_at, "
                "updated_at, status) VALUES ('old4', :config, 77, 1, 1, 2, 'playing')"),
                {"config": json.dumps(CONFIG)})
            await conn.execute(text("INSERT INTO basra_seats (code, seat, name, token_hash) "
                                    "VALUES ('old4', 0, 'Amira', :hash)"), {"hash": "a" * 64})
            await conn.execute(text(
                "INSERT INTO basra_users (name, name_key, password_hash, created_at) "
                "VALUES ('Amira', :key, '$argon2id$x', 1)"), {"key": name_key("Amira")})
        await engine.dispose()

    run(fill_0004)

    record = {"variant": "egyptian", "players": [{"name": "Amira", "kind": "human"},
                                                 {"name": "Bashir", "kind": "human"}],
              "result": {"totals": [101, 62], "winner": 0}}

    async def upgrade_and_use() -> None:
        store = Store(empty_url)
        await store.open()
        try:
            async with store.engine.connect() as conn:
                version = await conn.execute(text("SELECT version_num FROM alembic_version"))
                assert version.scalar_one() == HEAD
            table = await store.tables.load("old4")
            assert table is not None and table.seats == {0: ("Amira", "a" * 64)}
            assert table.accounts == {}
            amira = await store.accounts.find(name_key("Amira"))
            assert amira is not None
            bashir = await store.accounts.create("Bashir", name_key("Bashir"), "$argon2id$y",
                                                 session_hash=token_hash("b"),
                                                 expires_at=10**13, now=1)
            assert bashir is not None
            rated = RatedMatch("egyptian-2", (f"user:{amira.id}", f"user:{bashir.id}"),
                               (0, 1), (0, 1))
            first = await store.records.save("new4", 1, record, dumps(record), rated=rated)
            again = await store.records.save("new4", 1, record, dumps(record), rated=rated)
            assert first == again
            ratings = await store.ratings.of_accounts([amira.id, bashir.id], "egyptian-2")
            assert ratings[amira.id, "egyptian-2"].games == 1
            assert ratings[bashir.id, "egyptian-2"].games == 1
            changes = await store.ratings.changes(first)
            assert [(c.seat, c.before, c.after) for c in changes] == [
                (0, 1500, 1578), (1, 1500, 1422)]
        finally:
            await store.close()

    run(upgrade_and_use)
