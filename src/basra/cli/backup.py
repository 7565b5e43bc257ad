"""``basra backup`` and ``basra restore``: a consistent copy of a server's database while
it runs, and that copy put back (``docs/operations.md``, "Backups and restores").

    basra backup --db sqlite:///srv/basra.db /backups/basra-2026-11-29.db
    basra restore /backups/basra-2026-11-29.db --db sqlite:///srv/basra.db --force

SQLite: the copy is made with SQLite's online backup API, a few hundred pages a step,
inside one read transaction: the database is in write-ahead-log mode, so the copy is the
database as it was when the backup started, while the server goes on committing. The copy
is written under a ``.part`` name, checked (``PRAGMA integrity_check``) and only then
takes its own name. A restore copies a backup into place the same way, and refuses a
database that a server has open (stop it first), or one that exists without ``--force``.

PostgreSQL: ``pg_dump -Fc`` makes the copy (one transaction, so it is consistent too) and
``pg_restore`` puts it back; the commands run them when they are installed (Debian's
``postgresql-client``) and otherwise print the exact command to run.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sqlite3
import subprocess
from pathlib import Path

import click

from basra.cli.common import UserError, cli, out, progress_bar

__all__ = ["PAGES_PER_STEP", "backup", "libpq_url", "postgres_program", "restore"]

PAGES_PER_STEP = 256
"""Pages the SQLite backup copies a step (a megabyte at SQLite's default page size)."""
BUSY_MS = 5000
"""How long the copy waits for a lock that a checkpoint holds."""


# -- the databases -----------------------------------------------------------------------


def _url(database: str) -> str:
    """``database`` with its async driver (``--db``'s error otherwise)."""
    from basra.store import database_url

    try:
        return database_url(database)
    except ValueError as error:
        raise UserError(f"--db: {error}") from None


def _sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for PostgreSQL); an error for one in memory."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if parsed.database in (None, "", ":memory:"):
        raise UserError("--db: a database in memory has nothing to back up or restore")
    return Path(str(parsed.database)).expanduser()


def libpq_url(url: str) -> tuple[str, str | None]:
    """A PostgreSQL URL as libpq's tools take it (``postgresql://USER@HOST:PORT/DB``), and
    its password apart (given to them in ``PGPASSWORD``, not on the command line).

    >>> libpq_url("postgresql+asyncpg://basra:secret@db.example:5433/basra")
    ('postgresql://basra@db.example:5433/basra', 'secret')
    """
    from sqlalchemy.engine import URL, make_url

    parsed = make_url(url)
    plain = URL.create("postgresql", username=parsed.username, host=parsed.host,
                       port=parsed.port, database=parsed.database, query=parsed.query)
    return plain.render_as_string(hide_password=False), parsed.password


def postgres_program(name: str) -> Path | None:
    """``pg_dump`` or ``pg_restore``: on the ``PATH``, else the newest in
    ``/usr/lib/postgresql/<version>/bin`` (where Debian puts the server's), else None."""
    found = shutil.which(name)
    if found:
        return Path(found)

    def version(program: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in program.parent.parent.name.split(".")
                     if part.isdigit())

    installed = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=version)
    return installed[-1] if installed else None


def _run_postgres(name: str, arguments: list[str], password: str | None) -> None:
    """Run ``pg_dump`` or ``pg_restore``, or say what to run when it is not installed."""
    program = postgres_program(name)
    shown = shlex.join([name, *arguments])
    if program is None:
        raise UserError(f"{name} is not installed (Debian: apt install postgresql-client); "
                        f"PostgreSQL is backed up and restored with it: {shown}")
    out.print(f"Running: {shown}", soft_wrap=True, markup=False)
    environment = dict(os.environ)
    if password is not None:
        environment["PGPASSWORD"] = password
    done = subprocess.run([str(program), *arguments], env=environment,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        said = " / ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise UserError(f"{name} failed (exit status {done.returncode}): "
                        f"{said or 'no message'}")


def _check_copy(path: Path, read_only: bool = False) -> int:
    """Open ``path`` as a SQLite database and check it whole; its size in pages."""
    try:
        connection = (sqlite3.connect(f"file:{path}?mode=ro", uri=True) if read_only
                      else sqlite3.connect(path))
    except sqlite3.Error as error:
        raise UserError(f"{path}: cannot open it as a SQLite database: {error}") from None
    try:
        found = [row[0] for row in connection.execute("PRAGMA integrity_check")]
        pages = int(connection.execute("PRAGMA page_count").fetchone()[0])
    except sqlite3.DatabaseError as error:
        raise UserError(f"{path}: not a SQLite database ({error})") from None
    finally:
        connection.close()
    if found != ["ok"]:
        raise UserError(f"{path}: the integrity check failed: {'; '.join(found[:3])}")
    return pages


def _copy_pages(source: sqlite3.Connection, target: sqlite3.Connection, what: str) -> int:
    """Copy every page of ``source`` into ``target`` with SQLite's backup API, in steps,
    with a progress bar; the pages copied. ``source`` holds one read transaction
    throughout, so that the copy is one snapshot however long it takes."""
    source.execute("BEGIN")
    try:
        source.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the snapshot
        total = int(source.execute("PRAGMA page_count").fetchone()[0])
        with progress_bar() as progress:
            task = progress.add_task(what, total=total)

            def step(_status: int, remaining: int, pages: int) -> None:
                progress.update(task, total=pages, completed=pages - remaining)

            source.backup(target, pages=PAGES_PER_STEP, progress=step)
            progress.update(task, completed=progress.tasks[0].total)
    finally:
        source.execute("COMMIT")
    return total


def _claim(path: Path, force: bool, what: str) -> Path:
    """``path``'s ``.part`` file beside it, refusing a folder that is not there and a
    file there without ``force``."""
    if not path.parent.is_dir():
        raise UserError(f"{what} {path}: the folder {path.parent} is not there")
    if path.is_dir():
        raise UserError(f"{what} {path}: a folder, not a file")
    if path.exists() and not force:
        raise UserError(f"{path} exists; give --force to overwrite it")
    return path.with_name(path.name + ".part")


# -- backup ------------------------------------------------------------------------------


def _backup_sqlite(source_path: Path, target: Path, force: bool) -> None:
    if not source_path.is_file():
        what = "a folder" if source_path.is_dir() else "no such file"
        raise UserError(f"--db {source_path}: {what}, not a database")
    part = _claim(target, force, "OUT")
    part.unlink(missing_ok=True)
    try:
        source = sqlite3.connect(source_path, timeout=BUSY_MS / 1000, isolation_level=None)
        copy = sqlite3.connect(part)
        try:
            pages = _copy_pages(source, copy, f"backing up {source_path.name}")
            # Out of write-ahead-log mode (the page that says so was copied): OUT is one
            # file, whole on its own (a server puts it back in WAL mode when it opens it).
            copy.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error as error:
            raise UserError(f"--db {source_path}: {error}") from None
        finally:
            copy.close()
            source.close()
        _check_copy(part)
        with part.open("rb") as file:
            os.fsync(file.fileno())
        part.replace(target)
    finally:
        part.unlink(missing_ok=True)
    out.print(f"Backed up {source_path} to {target}: {pages} pages "
              f"({target.stat().st_size} bytes), integrity check ok", soft_wrap=True)


def _backup_postgres(url: str, target: Path, force: bool) -> None:
    part = _claim(target, force, "OUT")
    plain, password = libpq_url(url)
    try:
        _run_postgres("pg_dump", ["--format=custom", "--file", str(part), "--dbname", plain],
                      password)
        part.replace(target)
    finally:
        part.unlink(missing_ok=True)
    out.print(f"Backed up {plain} to {target} ({target.stat().st_size} bytes); restore it "
              "with basra restore or pg_restore", soft_wrap=True)


@cli.command()
@click.option("--db", "database", metavar="URL", required=True,
              help="The database to back up: sqlite:///PATH or "
                   "postgresql+asyncpg://USER:PASS@HOST/DB.")
@click.option("--force", is_flag=True, help="Overwrite OUT if it exists.")
@click.argument("out_path", metavar="OUT", type=click.Path(path_type=Path))
def backup(database: str, force: bool, out_path: Path) -> None:
    """Copy a database to OUT while servers use it: the database as it was when the copy
    began, every finished match, account and rating, every table at a confirmed move.

    SQLite: SQLite's online backup API, then an integrity check of the copy (OUT is a
    SQLite database). PostgreSQL: pg_dump -Fc (OUT is pg_dump's custom format), run when
    installed, else printed for you to run. Bring it back with basra restore."""
    url = _url(database)
    path = _sqlite_path(url)
    if path is not None:
        _backup_sqlite(path, out_path, force)
    else:
        _backup_postgres(url, out_path, force)


# -- restore -----------------------------------------------------------------------------


def _restore_sqlite(backup_path: Path, target: Path, force: bool) -> None:
    pages = _check_copy(backup_path, read_only=True)
    if not target.parent.is_dir():
        raise UserError(f"--db {target}: the folder {target.parent} is not there")
    if target.is_dir():
        raise UserError(f"--db {target}: a folder, not a database")
    if target.exists() and not force:
        raise UserError(f"--db {target} exists; give --force to replace it with the backup")
    # An exclusive lock kept to the end (locking_mode=EXCLUSIVE): refused while any
    # server has the database open, and no server opens it during the restore.
    new = not target.exists()
    into = sqlite3.connect(target, timeout=0, isolation_level=None)
    try:
        into.execute("PRAGMA locking_mode=EXCLUSIVE")
        try:
            into.execute("BEGIN EXCLUSIVE")
            into.execute("COMMIT")
        except sqlite3.OperationalError:
            raise UserError(f"--db {target} is in use (a server has it open); stop the "
                            "servers that use it, then restore") from None
        source = sqlite3.connect(f"file:{backup_path}?mode=ro", uri=True,
                                 isolation_level=None)
        try:
            _copy_pages(source, into, f"restoring {backup_path.name}")
        finally:
            source.close()
        into.execute("PRAGMA journal_mode=DELETE")  # one file, its log emptied into it
        into.execute("PRAGMA locking_mode=NORMAL")
        into.execute("SELECT count(*) FROM sqlite_master").fetchone()  # lets the lock go
    except sqlite3.Error as error:
        into.close()
        if new:  # no half-restored database left behind
            target.unlink(missing_ok=True)
        raise UserError(f"--db {target}: {error}") from None
    finally:
        into.close()
    _check_copy(target)
    out.print(f"Restored {backup_path} into {target}: {pages} pages, integrity check ok",
              soft_wrap=True)


def _restore_postgres(backup_path: Path, url: str, force: bool) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    if not backup_path.is_file():
        raise UserError(f"BACKUP {backup_path}: no such file")

    async def looks() -> tuple[bool, int]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                has = await conn.scalar(text(
                    "SELECT count(*) FROM information_schema.tables "
                    "WHERE table_schema = 'public' AND table_name = 'basra_tables'"))
                others = await conn.scalar(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                    "current_database() AND pid <> pg_backend_pid()"))
        finally:
            await engine.dispose()
        return bool(has), int(others or 0)

    try:
        holds, others = asyncio.run(looks())
    except Exception as error:  # asyncpg's and SQLAlchemy's connection errors
        raise UserError(f"--db: cannot reach the database: {error}") from None
    if others:
        raise UserError(f"--db: the database is in use ({others} other connections); stop "
                        "the servers that use it, then restore")
    if holds and not force:
        raise UserError("--db: the database holds basra's tables; give --force to replace "
                        "them with the backup's, or restore into a new database")
    plain, password = libpq_url(url)
    arguments = ["--no-owner", "--exit-on-error", "--single-transaction",
                 *(["--clean", "--if-exists"] if holds else []), "--dbname", plain,
                 str(backup_path)]
    _run_postgres("pg_restore", arguments, password)
    out.print(f"Restored {backup_path} into {plain}", soft_wrap=True)


@cli.command()
@click.option("--db", "database", metavar="URL", required=True,
              help="The database to restore into: sqlite:///PATH or "
                   "postgresql+asyncpg://USER:PASS@HOST/DB.")
@click.option("--force", is_flag=True,
              help="Replace the database if it exists (never one a server has open).")
@click.argument("backup_path", metavar="BACKUP", type=click.Path(path_type=Path))
def restore(database: str, force: bool, backup_path: Path) -> None:
    """Put a backup made by basra backup back into a database, with every server that
    uses it stopped.

    SQLite: BACKUP is checked, then copied into the database; refused while a server has
    it open, and when it exists unless --force. PostgreSQL: pg_restore (into a new, empty
    database, or with --force over basra's tables)."""
    url = _url(database)
    path = _sqlite_path(url)
    if path is not None:
        if not backup_path.is_file():
            raise UserError(f"BACKUP {backup_path}: no such file")
        _restore_sqlite(backup_path, path, force)
    else:
        _restore_postgres(backup_path, url, force)
