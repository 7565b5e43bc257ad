"""``basra puzzles``: mine puzzles from records, or check and summarise a puzzle set."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click
from rich.table import Table

from basra.cli.common import (
    Number,
    UserError,
    cli,
    out,
    plural,
    print_table,
    progress_bar,
    read_text,
)
from basra.record import RecordError, loads
from basra.study.puzzles import (
    MIN_GAP,
    TAGS,
    Puzzle,
    PuzzleError,
    dump_puzzles,
    load_puzzles,
    mine_record,
    packaged_puzzles,
    verify_puzzle,
)


@cli.command(name="puzzles")
@click.option("--from", "from_dir", type=click.Path(path_type=Path), metavar="DIR",
              help="Mine the basra-record/1 files (*.json) of this directory.")
@click.option("--set", "set_file", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE", help="Check a basra-puzzles/1 file [default: the shipped set].")
@click.option("--min-gap", type=Number(0.5, whole=False), default=MIN_GAP, show_default=True,
              help="Points by which the best move must beat every other.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the mined puzzles to this basra-puzzles/1 file.")
@click.option("--json", "as_json", is_flag=True, help="Print the puzzles as JSON.")
def puzzles_command(from_dir: Path | None, set_file: Path | None, min_gap: float,
                    out_path: Path | None, as_json: bool) -> None:
    """Mine puzzles from records, or check a puzzle set with the exact solver.

    A puzzle is a position of a 2-player deal with an empty stock (every card is known)
    whose best move, by the exact solver, beats every other by --min-gap points. Each is
    tagged (basra, majority, trap, last batch) and rated for difficulty.
    """
    if from_dir is not None and set_file is not None:
        raise UserError("--from and --set cannot be used together")
    if from_dir is not None:
        found = _mine(from_dir, min_gap)
        if out_path is not None:
            out_path.parent.mkdir(parents=True, exist_ok=True)
            out_path.write_text(dump_puzzles(found), encoding="utf-8")
    else:
        if out_path is not None:
            raise UserError("--out needs --from DIR (the records to mine)")
        if set_file is not None:
            try:
                found = load_puzzles(read_text(set_file, "puzzle file"))
            except PuzzleError as error:
                raise UserError(f"{set_file}: {error}") from None
        else:
            found = packaged_puzzles()
        with progress_bar() as progress:
            task = progress.add_task("verifying", total=len(found))
            for puzzle in found:
                try:
                    verify_puzzle(puzzle)
                except PuzzleError as error:
                    raise UserError(str(error)) from None
                progress.advance(task)
    if as_json:
        click.echo(json.dumps([p.to_dict() for p in found], ensure_ascii=False))
        return
    _summary(found, "mined" if from_dir is not None else "verified by the exact solver")
    if out_path is not None:
        out.print(f"Puzzles written to {out_path}", soft_wrap=True)


def _mine(directory: Path, min_gap: float) -> list[Puzzle]:
    if not directory.is_dir():
        raise UserError(f"--from {directory}: not a directory")
    files = sorted(directory.glob("*.json"))
    if not files:
        raise UserError(f"--from {directory}: no *.json records in it")
    found: dict[str, Puzzle] = {}
    skipped = 0
    with progress_bar() as progress:
        task = progress.add_task("records", total=len(files))
        for path in files:
            try:
                record = loads(read_text(path, "record file"))
                for puzzle in mine_record(record, path.name, min_gap=min_gap):
                    found.setdefault(puzzle.id, puzzle)
            except RecordError:
                skipped += 1
            progress.advance(task)
    if skipped:
        out.print(f"Skipped {plural(skipped, 'file')} that are not valid records.")
    return sorted(found.values(), key=lambda p: (p.rating, p.id))


def _summary(found: list[Puzzle], how: str) -> None:
    tags = Counter(tag for p in found for tag in p.tags)
    table = Table()
    table.add_column("tag")
    table.add_column("puzzles", justify="right")
    for tag in TAGS:
        table.add_row(tag, str(tags[tag]))
    ratings = sorted(p.rating for p in found)
    spread = (f", ratings {ratings[0]} to {ratings[-1]} (median {ratings[len(ratings) // 2]})"
              if ratings else "")
    print_table(table, f"{plural(len(found), 'puzzle')} {how}{spread}")
