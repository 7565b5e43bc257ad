"""``basra analyze``: every decision of a record judged from the deciding seat's view."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from basra.cards import parse_card
from basra.cli.common import (
    Number,
    UserError,
    card_markup,
    cards_markup,
    cli,
    load_master_search,
    out,
    print_table,
    progress_bar,
    read_text,
    seat_short_name,
)
from basra.record import RecordError, loads, replay
from basra.state import move_text
from basra.study.analysis import (
    DEFAULT_THINK_MS,
    ENGINES,
    LABELS,
    LEGEND,
    THRESHOLDS,
    Decision,
    analysis_document,
    analyze_match,
)

LABEL_STYLE = {"best": "green", "good": "green", "inaccuracy": "yellow", "mistake": "red",
               "blunder": "bold red"}


@cli.command(name="analyze")
@click.argument("file", type=click.Path(path_type=Path), metavar="RECORD")
@click.option("--seat", "seats", type=Number(0, 3), multiple=True,
              help="Analyse only this seat's decisions (repeatable) [default: every seat].")
@click.option("--engine", type=click.Choice(ENGINES, case_sensitive=False), default="master",
              show_default=True,
              help="What judges the moves: the master's sampled search, or the learned "
                   "network's value head (instant; no --think-ms, --samples or --jobs).")
@click.option("--think-ms", type=Number(1), default=DEFAULT_THINK_MS, show_default=True,
              help="Search budget per decision, in milliseconds.")
@click.option("--samples", type=Number(1),
              help="A fixed number of sampled deals per decision instead of the time "
                   "budget (reproducible on any machine).")
@click.option("--seed", type=Number(), default=0, show_default=True,
              help="Seed of the sampling.")
@click.option("--jobs", "-j", type=Number(1), default=min(2, os.cpu_count() or 1),
              show_default="2 or the number of cores",
              help="Processes that analyse decisions side by side.")
@click.option("--all", "show_all", is_flag=True,
              help="List every decision, not only inaccuracies and worse.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the basra-analysis/1 document to this file.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the basra-analysis/1 document instead of tables.")
def analyze(file: Path, seats: tuple[int, ...], engine: str, think_ms: int,
            samples: int | None, seed: int, jobs: int, show_all: bool, out_path: Path | None,
            as_json: bool) -> None:
    """Analyse a finished match: each decision's best move, the points lost and a label.

    Every decision is judged from the deciding seat's own view (its hand and what was
    played), never with cards it could not see. Labels by points lost, less one
    standard error of the estimate (so a loss measured with more noise gets the milder
    label): good from 0.5, inaccuracy from 2, mistake from 5, blunder from 10 (see
    docs/analysis.md). ``--engine neural`` judges with the learned network instead of
    the search; a deal's end, once every card is known, is solved exactly either way.
    """
    text = read_text(file, "record file")
    try:
        record = loads(text)
        match = replay(record)
    except RecordError as error:
        raise UserError(f"{file}: {error}") from None
    players = match.rules.players
    for seat in seats:
        if seat >= players:
            raise UserError(f"--seat must be a seat from 0 to {players - 1}, not {seat}")
    engine = engine.lower()
    if engine == "master":
        load_master_search()
    started = time.perf_counter()
    with progress_bar() as progress:
        task = progress.add_task("decisions", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        decisions = analyze_match(match, seats=seats or None, think_ms=think_ms,
                                  samples=samples, seed=seed, jobs=jobs, progress=advance,
                                  engine=engine)
    seconds = time.perf_counter() - started
    document = analysis_document(record, decisions, think_ms=think_ms, samples=samples,
                                 seed=seed, source=file.name, seconds=seconds, engine=engine)
    if out_path is not None:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    if as_json:
        click.echo(json.dumps(document, ensure_ascii=False))
        return
    names = [seat_short_name(seat, p["name"], p.get("kind", "bot"))
             for seat, p in enumerate(record["players"])]
    _print_decisions(decisions, names, show_all)
    summary = Table()
    for column in ("player", "moves", "accuracy", "best", "good", "inacc.", "mistake",
                   "blunder"):
        summary.add_column(column, justify="left" if column == "player" else "right")
    for entry in document["players"]:
        summary.add_row(escape(names[entry["seat"]]), str(entry["decisions"]),
                        "-" if entry["accuracy"] is None else f"{entry['accuracy']:.1f}",
                        *(str(entry["labels"][label]) for label in LABELS))
    if engine == "neural":
        how = "by the neural network"
    else:
        budget = f"{samples} samples" if samples is not None else f"{think_ms} ms"
        how = f"({budget} each, {jobs} jobs)"
    print_table(summary, f"{len(decisions)} decisions analysed in {seconds:.1f} s {how}")
    out.print(LEGEND, soft_wrap=True)
    if out_path is not None:
        out.print(f"Analysis written to {out_path}", soft_wrap=True)


def move_markup(text: str) -> str:
    """A move (``JH:6S+KD``) as Rich markup with suit symbols, as ``basra replay`` shows
    plays.

    >>> move_markup("JH:6S+KD"), move_markup("7S")
    ('[red]J♥[/] takes 6♠ [red]K♦[/]', '7♠ to the floor')
    """
    card, _, taken = text.partition(":")
    played = card_markup(parse_card(card))
    if not taken:
        return f"{played} to the floor"
    return f"{played} takes {cards_markup([parse_card(c) for c in taken.split('+')])}"


def _error_text(decision: Decision) -> str:
    """The ``±`` of a decision's loss: its standard error over the samples, ``exact`` when
    solved, ``-`` when the network judged it (no error to give)."""
    if decision.evaluation.exact:
        return "exact"
    return "-" if decision.evaluation.samples == 0 else f"{decision.loss_error:.1f}"


def _print_decisions(decisions: list[Decision], names: list[str], show_all: bool) -> None:
    table = Table()
    for column in ("deal", "play", "player", "played", "best", "lost", "±", "label"):
        table.add_column(column, justify="right" if column in ("deal", "play", "lost", "±")
                         else "left")
    notes: list[str] = []
    for d in decisions:
        if not show_all and d.label in ("best", "good"):
            continue
        style = LABEL_STYLE[d.label]
        table.add_row(str(d.deal), str(d.play), escape(names[d.seat]),
                      move_markup(move_text(d.played)), move_markup(move_text(d.best)),
                      f"{d.loss:.1f}", _error_text(d),
                      f"[{style}]{d.label}[/]")
        notes.extend(f"Deal {d.deal}, play {d.play}, {escape(names[d.seat])}: {escape(note)}"
                     for note in d.notes)
    if table.row_count:
        title = "Every decision" if show_all else (
            f"Inaccuracies and worse (a loss, less one standard error, of "
            f"{THRESHOLDS[1]:g} points or more)")
        print_table(table, title)
        for line in notes:
            out.print(line)
    else:
        out.print("No inaccuracies: every decision was best or good.")
