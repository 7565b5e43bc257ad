"""``basra export``: a month's rated matches as open data, the way lichess publishes its
database: ``basra-record/1`` documents one a line (ndjson), oldest first, compressed with
zstandard, and a checksum file beside them (``docs/api.md``, "Open data").

    basra export --db sqlite:///srv/basra.db --month 2026-11 basra-rated-2026-11.ndjson.zst
    sha256sum -c basra-rated-2026-11.ndjson.zst.sha256
    zstdcat basra-rated-2026-11.ndjson.zst | head -n 1

The records are read from the database a page at a time and compressed as they come, so
memory stays small however big the month; the file is written under a ``.part`` name and
takes its own name only once complete.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import importlib.util
import re
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import click

from basra.cli.common import UserError, cli, out, plural, progress_bar

if TYPE_CHECKING:
    from basra.store import Store

__all__ = ["COMPRESSION_LEVEL", "export", "month_span"]

COMPRESSION_LEVEL = 10
"""zstandard's level: about a tenth of the text's size, at tens of megabytes a second."""
_MONTH = re.compile(r"(\d{4})-(\d{2})")


def month_span(text: str) -> tuple[int, int]:
    """The first and the last Unix millisecond of a month (UTC) written ``YYYY-MM``;
    ``ValueError`` for anything else.

    >>> month_span("2026-11")
    (1793491200000, 1796083199999)
    """
    found = _MONTH.fullmatch(text.strip())
    if found is None or not 1 <= int(found[2]) <= 12 or int(found[1]) < 1970:
        raise ValueError(f"--month must be a month as YYYY-MM (UTC, from 1970-01), e.g. "
                         f"2026-11, not {text[:40]!r}")
    year, month = int(found[1]), int(found[2])
    start = datetime.datetime(year, month, 1, tzinfo=datetime.UTC)
    end = datetime.datetime(year + month // 12, month % 12 + 1, 1, tzinfo=datetime.UTC)
    return int(start.timestamp()) * 1000, int(end.timestamp()) * 1000 - 1


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None for another database, or one in memory)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(str(parsed.database)).expanduser()


def _database(database: str | None) -> str:
    """The database URL to read, refusing one that cannot be: a SQLite file that is not
    there (opening it would make an empty one), PostgreSQL without its driver."""
    from basra.store import database_url, default_database_url, shown_url

    try:
        url = database_url(database) if database else default_database_url()
    except ValueError as error:
        raise UserError(f"--db: {error}") from None
    path = _sqlite_file(url)
    if path is not None and not path.is_file():
        what = "a folder" if path.is_dir() else "no such file"
        named = f"--db {shown_url(database)}" if database else f"the default database {path}"
        raise UserError(f"{named}: {what}, not a database")
    if url.startswith("postgresql") and importlib.util.find_spec("asyncpg") is None:
        raise UserError("PostgreSQL storage needs the asyncpg driver: "
                        "pip install 'basra[postgres]'")
    return url


def _claim(path: Path, force: bool) -> list[Path]:
    """The output file and its checksum file, refusing to overwrite either without
    ``force`` and a folder that is not there."""
    checksum = path.with_name(path.name + ".sha256")
    if not path.parent.is_dir():
        raise UserError(f"OUT {path}: the folder {path.parent} is not there")
    for target in (path, checksum):
        if target.is_dir():
            raise UserError(f"OUT {path}: {target} is a folder")
        if target.exists() and not force:
            raise UserError(f"{target} exists; give --force to overwrite it")
    return [path, checksum]


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, read a megabyte at a time, as hex."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


async def _write(store: Store, span: tuple[int, int], month: str, file: BinaryIO) -> int:
    """Write the month's rated records to ``file`` compressed; how many."""
    import zstandard

    from basra.store import RecordQuery

    query = RecordQuery(rated=True, since=span[0], until=span[1])
    written = 0
    compressor = zstandard.ZstdCompressor(level=COMPRESSION_LEVEL, write_checksum=True)
    with progress_bar() as progress, compressor.stream_writer(file, closefd=False) as sink:
        task = progress.add_task(f"rated matches of {month}",
                                 total=await store.records.count(query))
        async for record in store.records.stream(query, newest_first=False):
            sink.write(record.line())
            written += 1
            progress.advance(task)
    return written


@cli.command()
@click.option("--db", "database", metavar="URL",
              help="Database URL: sqlite:///PATH or postgresql+asyncpg://USER:PASS@HOST/DB "
                   "[default: basra.db in the user data directory].")
@click.option("--month", required=True, metavar="YYYY-MM",
              help="The month (UTC) whose rated matches to write, e.g. 2026-11.")
@click.option("--force", is_flag=True, help="Overwrite OUT and OUT.sha256 if they exist.")
@click.argument("out_path", metavar="OUT", type=click.Path(path_type=Path))
def export(database: str | None, month: str, force: bool, out_path: Path) -> None:
    """Write a month's rated matches to OUT: one basra-record/1 document a line (ndjson),
    oldest first, compressed with zstandard (read it with `zstdcat OUT`), and OUT.sha256,
    its checksum in the format of sha256sum (check it with `sha256sum -c OUT.sha256` in
    OUT's folder).

    A rated match is one whose result the ratings count; its month is when it finished.
    """
    from basra.store import StorageError, Store

    try:
        span = month_span(month)
    except ValueError as error:
        raise UserError(str(error)) from None
    url = _database(database)
    path, checksum = _claim(out_path, force)
    part = path.with_name(path.name + ".part")

    async def main() -> int:
        store = Store(url)
        await store.open()
        try:
            with part.open("wb") as file:
                return await _write(store, span, month.strip(), file)
        finally:
            await store.close()

    try:
        written = asyncio.run(main())
        part.replace(path)
    except StorageError as error:
        raise UserError(f"--db: {error}") from None
    finally:
        part.unlink(missing_ok=True)
    checksum.write_text(f"{sha256_of(path)}  {path.name}\n", encoding="utf-8")
    out.print(f"Wrote {plural(written, 'rated match')} of {month.strip()} to {path} "
              f"({path.stat().st_size} bytes) and its checksum to {checksum.name}",
              soft_wrap=True)
