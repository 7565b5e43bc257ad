"""``basra backup`` while a real server plays, and ``basra restore`` of that copy
(``docs/operations.md``, "Backups and restores"): the copy holds every finished record
(each replays), every account and rating, and every live table at a move its players saw
confirmed, at least the one they had when the backup started; a server started on the
restored copy goes on from there. On SQLite (the online backup API) and on PostgreSQL
(``pg_dump``/``pg_restore`` from Debian's ``postgresql`` package).

The commands' refusals (a file in the way, a database in use, a backup that is not one)
are quick tests on SQLite files.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from basra.cli.backup import libpq_url, postgres_program
from basra.players.accounts import name_key
from basra.record import replay
from basra.store import Store
from tests.support.finished import accounts, finish
from tests.support.realserver import Server, sqlite_url, until
from tests.support.seats import SeatClient, TableLog, close_all, seat_clients, two_human_tables
from tests.support.services import fresh_database
from tests.support.stores import BACKENDS, POSTGRES_URL, with_store
from tests.web.test_durability import LIFTED, stored_moves

NAMES = ("Amira", "Omar", "Huda", "Karim")
TABLES = 12


def basra(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``python -m basra ARGUMENTS``, its output kept."""
    return subprocess.run([sys.executable, "-m", "basra", *arguments], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120, check=False)


async def seed(store: Store) -> dict[str, Any]:
    """Accounts, rated and casual finished matches; what the copy must hold."""
    players = await accounts(store, *NAMES)
    ids = [
        await finish(store, "BKUP01", players[:2], 1_793_500_000_000, rated=True, seed=1),
        await finish(store, "BKUP02", players[2:], 1_793_500_100_000, rated=True, seed=2),
        await finish(store, "BKUP03", [players[0], players[3]], 1_793_500_200_000,
                     rated=True, seed=3),
        await finish(store, "BKUP04", players[1:3], 1_793_500_300_000, rated=False, seed=4),
    ]
    return await holdings(store, ids)


async def holdings(store: Store, record_ids: list[int]) -> dict[str, Any]:
    """The accounts (by name), their ratings and the records of ``record_ids``."""
    users = [await store.accounts.find(name_key(name)) for name in NAMES]
    found = {name: user.id if user else None for name, user in zip(NAMES, users, strict=True)}
    ratings = await store.ratings.of_accounts([user.id for user in users if user])
    records = {}
    for record_id in record_ids:
        stored = await store.records.get(record_id)
        records[record_id] = None if stored is None else stored.record
    return {"accounts": found,
            "ratings": {f"{user}/{pool}": (r.mu, r.sigma, r.games)
                        for (user, pool), r in sorted(ratings.items())},
            "records": records}


def check_tables(logs: list[TableLog], before: dict[str, int],
                 stored: dict[str, list[int]]) -> None:
    """Each table of the copy is at a confirmed move, at least the one of ``before``, and
    every move it holds is the one its players saw confirmed."""
    from tests.web.test_durability import play_of

    for log in logs:
        moves = stored[log.code]
        assert len(moves) >= before[log.code], (log.code, len(moves), before[log.code])
        assert len(moves) in log.confirmed, (log.code, len(moves), "never confirmed")
        for seq, move in enumerate(moves, start=1):
            last = log.confirmed.get(seq)
            assert last is not None, (log.code, seq)
            assert play_of(move) == (last["card"], sorted(last["captured"])), (log.code, seq)


@pytest.mark.slow
@pytest.mark.parametrize("database", BACKENDS)
def test_a_backup_under_load_restores_records_accounts_ratings_and_tables(
        database: str, tmp_path: Path) -> None:
    if database == "postgresql":
        assert POSTGRES_URL is not None
        assert postgres_program("pg_dump") and postgres_program("pg_restore"), \
            "PostgreSQL's server is installed without pg_dump and pg_restore"
        url, target = fresh_database(POSTGRES_URL), fresh_database(POSTGRES_URL)
    else:
        url, target = sqlite_url(tmp_path / "live.db"), sqlite_url(tmp_path / "restored.db")
    copy = tmp_path / "basra.backup"
    seeded = with_store(url, seed)
    assert len(seeded["ratings"]) == 4 and all(seeded["records"].values())

    async def scenario() -> tuple[list[TableLog], dict[str, int]]:
        with Server(url, tmp_path, "--bot-delay", "0", *LIFTED) as server:
            await server.ready()
            logs = await two_human_tables(server.base, TABLES)
            clients = seat_clients(logs, server.ws_base, pace=0.01)
            await until(lambda: all(log.top >= 3 for log in logs), "every table playing")
            before = {log.code: log.top for log in logs}
            started = time.monotonic()
            made = await asyncio.to_thread(basra, "backup", "--db", url, str(copy))
            during = sum(log.confirmed_between(started, time.monotonic()) for log in logs)
            assert made.returncode == 0, made.stderr
            assert "Backed up" in made.stdout
            await until(lambda: all(log.top >= before[log.code] + 4 for log in logs),
                        "play goes on after the backup")
            await close_all(clients)
        assert during > 0 or database == "postgresql", "no move confirmed during the backup"
        assert not any(client.errors for client in clients)
        return logs, before

    logs, before = asyncio.run(scenario())
    assert copy.is_file() and not copy.with_name(copy.name + ".part").exists()

    put = basra("restore", str(copy), "--db", target)
    assert put.returncode == 0, put.stderr
    assert with_store(target, lambda store: holdings(store, list(seeded["records"]))) \
        == seeded
    for text in seeded["records"].values():
        replay(json.loads(text))
    stored = asyncio.run(stored_moves(target, [log.code for log in logs]))
    check_tables(logs, before, stored)

    async def resume() -> None:
        with Server(target, tmp_path, "--bot-delay", "0", *LIFTED) as server:
            await server.ready()
            clients = [SeatClient.at(log, seat, server.ws_base).start()
                       for log in logs for seat in (0, 1)]
            await until(lambda: all(client.first is not None for client in clients),
                        "every seat gets a state from the restored copy")
            for client in clients:
                assert client.first is not None
                assert client.first["seq"] == len(stored[client.code]), client.code
            await until(lambda: all(log.top >= len(stored[log.code]) + 2 for log in logs),
                        "play goes on from the restored copy")
            await close_all(clients)

    asyncio.run(resume())


# -- the commands' refusals --------------------------------------------------------------


def small_database(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE t (x)")
        connection.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(5000)])
    connection.close()


def test_backup_and_restore_refuse_what_they_should(tmp_path: Path) -> None:
    live, copy = tmp_path / "live.db", tmp_path / "copy.db"
    small_database(live)
    made = basra("backup", "--db", sqlite_url(live), str(copy))
    assert made.returncode == 0, made.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["copy.db", "live.db"]

    again = basra("backup", "--db", sqlite_url(live), str(copy))
    assert (again.returncode, again.stderr) == (
        2, f"error: {copy} exists; give --force to overwrite it\n")
    missing = basra("backup", "--db", sqlite_url(tmp_path / "none.db"), str(tmp_path / "x"))
    assert (missing.returncode, missing.stderr) == (
        2, f"error: --db {tmp_path / 'none.db'}: no such file, not a database\n")
    bad_url = basra("backup", "--db", "mysql://x/y", str(tmp_path / "x"))
    assert bad_url.returncode == 2 and bad_url.stderr.startswith(
        "error: --db: unsupported database 'mysql'"), bad_url.stderr

    assert basra("restore", str(copy), "--db", sqlite_url(live)).stderr == (
        f"error: --db {live} exists; give --force to replace it with the backup\n")
    with sqlite3.connect(live) as holder:  # a server has it open
        holder.execute("SELECT count(*) FROM t").fetchone()
        busy = basra("restore", str(copy), "--db", sqlite_url(live), "--force")
    holder.close()
    assert (busy.returncode, busy.stderr) == (
        2, f"error: --db {live} is in use (a server has it open); stop the servers that "
           "use it, then restore\n")
    (tmp_path / "junk").write_text("not a database")
    junk = basra("restore", str(tmp_path / "junk"), "--db", sqlite_url(tmp_path / "r.db"))
    assert (junk.returncode, junk.stderr) == (
        2, f"error: {tmp_path / 'junk'}: not a SQLite database (file is not a database)\n")
    assert not (tmp_path / "r.db").exists()

    put = basra("restore", str(copy), "--db", sqlite_url(live), "--force")
    assert put.returncode == 0, put.stderr
    with sqlite3.connect(live) as connection:
        assert connection.execute("SELECT count(*) FROM t").fetchone() == (5000,)
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    connection.close()


def test_postgres_urls_become_libpq_ones_without_the_password() -> None:
    assert libpq_url("postgresql+asyncpg://basra:s3cret@127.0.0.1:5433/basra") == (
        "postgresql://basra@127.0.0.1:5433/basra", "s3cret")
    assert libpq_url("postgresql+asyncpg://postgres@127.0.0.1/db") == (
        "postgresql://postgres@127.0.0.1/db", None)
