"""``basra export``: a month's rated matches as zstandard-compressed ndjson with a
``sha256sum`` checksum file (``docs/api.md``, "Open data"), and its one-line refusals."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import zstandard
from click.testing import CliRunner, Result

from basra.cli import cli
from basra.record import loads, replay
from basra.store import Store
from tests.support.finished import DAY_MS, DEC_2026, NOV_2026, accounts, finish
from tests.support.stores import with_store

OUT = "basra-rated-2026-11.ndjson.zst"


def export(*args: str) -> Result:
    return CliRunner().invoke(cli, ["export", *args])


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[bytes]]:
    """A SQLite store with rated and casual matches in October, November and December
    2026: (its URL, the lines November's rated matches make, oldest first)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('export')}/basra.db"

    async def fill(store: Store) -> list[bytes]:
        amira, bashir, omar = await accounts(store, "Amira", "Bashir", "Omar")
        made = [
            ("oct", [amira, bashir], NOV_2026 - 1, True, "egyptian"),
            ("first", [amira, omar], NOV_2026, True, "egyptian"),
            ("casual", [bashir, omar], NOV_2026 + DAY_MS, False, "egyptian"),
            ("pasur", [omar, amira, bashir], NOV_2026 + 2 * DAY_MS, True, "pasur"),
            ("last", [bashir, amira], DEC_2026 - 1, True, "egyptian"),
            ("dec", [amira, bashir], DEC_2026, True, "egyptian"),
        ]
        ids = {code: await finish(store, code, players, at, rated=rated, variant=variant,
                                  seed=seed)
               for seed, (code, players, at, rated, variant) in enumerate(made)}
        wanted = []
        for code in ("first", "pasur", "last"):
            stored = await store.records.get(ids[code])
            assert stored is not None
            wanted.append(stored.line())
        return wanted

    return url, with_store(url, fill)


def test_a_months_rated_matches_are_written_compressed_with_a_checksum(
        database: tuple[str, list[bytes]], tmp_path: Path) -> None:
    url, wanted = database
    result = export("--db", url, "--month", "2026-11", str(tmp_path / OUT))
    assert result.exit_code == 0, result.output
    assert f"Wrote 3 rated matches of 2026-11 to {tmp_path / OUT}" in result.stdout
    assert "rated matches of 2026-11" in result.stderr  # the progress bar
    assert sorted(path.name for path in tmp_path.iterdir()) == [OUT, OUT + ".sha256"]
    text = zstandard.ZstdDecompressor().stream_reader((tmp_path / OUT).open("rb")).read()
    lines = text.splitlines(keepends=True)
    assert lines == wanted
    documents = [loads(line.decode("utf-8")) for line in lines]
    assert [document["variant"] for document in documents] == ["egyptian", "pasur",
                                                               "egyptian"]
    for document in documents:
        assert replay(document).is_over
    checked = subprocess.run(["sha256sum", "-c", OUT + ".sha256"], cwd=tmp_path,
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0 and checked.stdout == f"{OUT}: OK\n", checked


def test_a_changed_file_fails_its_checksum(database: tuple[str, list[bytes]],
                                           tmp_path: Path) -> None:
    url, _ = database
    assert export("--db", url, "--month", "2026-11", str(tmp_path / OUT)).exit_code == 0
    with (tmp_path / OUT).open("ab") as file:
        file.write(b"\0")
    checked = subprocess.run(["sha256sum", "-c", OUT + ".sha256"], cwd=tmp_path,
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 1 and "FAILED" in checked.stdout


def test_a_month_without_rated_matches_makes_an_empty_file(
        database: tuple[str, list[bytes]], tmp_path: Path) -> None:
    url, _ = database
    result = export("--db", url, "--month", "2025-02", str(tmp_path / "empty.ndjson.zst"))
    assert result.exit_code == 0, result.output
    assert "Wrote 0 rated matches of 2025-02" in result.stdout
    with (tmp_path / "empty.ndjson.zst").open("rb") as file:
        assert zstandard.ZstdDecompressor().stream_reader(file).read() == b""
    assert subprocess.run(["sha256sum", "-c", "empty.ndjson.zst.sha256"], cwd=tmp_path,
                          capture_output=True, check=False).returncode == 0


def test_an_existing_file_is_overwritten_only_with_force(
        database: tuple[str, list[bytes]], tmp_path: Path) -> None:
    url, wanted = database
    target = tmp_path / OUT
    target.write_bytes(b"kept")
    refused = export("--db", url, "--month", "2026-11", str(target))
    assert refused.exit_code == 2
    assert refused.stderr == f"error: {target} exists; give --force to overwrite it\n"
    assert target.read_bytes() == b"kept"
    assert not (tmp_path / (OUT + ".sha256")).exists()
    result = export("--db", url, "--month", "2026-11", "--force", str(target))
    assert result.exit_code == 0, result.output
    with target.open("rb") as file:
        assert zstandard.ZstdDecompressor().stream_reader(file).read() == b"".join(wanted)
    # the checksum file alone is refused too
    target.unlink()
    again = export("--db", url, "--month", "2026-11", str(target))
    assert again.exit_code == 2 and f"{target}.sha256 exists" in again.stderr


@pytest.mark.parametrize("month", ["2026-13", "2026-00", "2026/11", "26-11", "november",
                                   "1969-12", ""])
def test_a_bad_month_is_one_line_naming_it(database: tuple[str, list[bytes]],
                                           tmp_path: Path, month: str) -> None:
    result = export("--db", database[0], "--month", month, str(tmp_path / OUT))
    assert result.exit_code == 2
    assert result.stderr == ("error: --month must be a month as YYYY-MM (UTC, from 1970-01), "
                             f"e.g. 2026-11, not {month!r}\n")
    assert list(tmp_path.iterdir()) == []


def test_bad_options_are_one_line_each(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database" * 100)
    out = str(tmp_path / OUT)
    cases: list[tuple[list[str], str]] = [
        (["--db", f"sqlite:///{tmp_path}/missing.db", "--month", "2026-11", out],
         f"error: --db sqlite:///{tmp_path}/missing.db: no such file, "
         "not a database"),
        (["--db", f"sqlite:///{tmp_path}", "--month", "2026-11", out],
         f"error: --db sqlite:///{tmp_path}: a folder, not a database"),
        (["--db", "mysql://u@h/db", "--month", "2026-11", out],
         "error: --db: unsupported database 'mysql'"),
        (["--db", f"sqlite:///{garbage}", "--month", "2026-11", out],
         f"error: --db: cannot write to the database sqlite+aiosqlite:///{garbage}: "),
        (["--db", f"sqlite:///{garbage}", "--month", "2026-11",
          str(tmp_path / "no" / "such" / OUT)],
         f"error: OUT {tmp_path / 'no' / 'such' / OUT}: the folder "
         f"{tmp_path / 'no' / 'such'} is not there"),
        (["--db", f"sqlite:///{garbage}", "--month", "2026-11", str(tmp_path)],
         f"error: OUT {tmp_path}: {tmp_path} is a folder"),
        (["--db", f"sqlite:///{garbage}", out], "error: missing option '--month'"),
    ]
    for args, message in cases:
        result = export(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith(message), (args, result.stderr)
        assert result.stderr.count("\n") == 1, result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["garbage.db"]
    assert not (tmp_path / "missing.db").exists()  # not made by opening it


def test_help_says_what_is_written_and_how_to_check_it() -> None:
    result: Any = CliRunner().invoke(cli, ["export", "--help"])
    assert result.exit_code == 0
    for words in ("--month YYYY-MM", "--force", "zstdcat OUT", "sha256sum -c OUT.sha256",
                  "basra-record/1"):
        assert words in " ".join(result.stdout.split()), words
    assert "export" in CliRunner().invoke(cli, ["--help"]).stdout
