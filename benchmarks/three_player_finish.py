"""Check that three-player matches under ``tie_rule = raise`` end: every pairing of bot
levels plays the ``three-player`` preset, and the deals per match are counted.

Usage (from the repository root, with the project installed):

    python benchmarks/three_player_finish.py --master-matches 240   # about 25 minutes
    python benchmarks/three_player_finish.py                        # 400 each, about 35
    python benchmarks/three_player_finish.py --only greedy-greedy --matches 100
    python benchmarks/three_player_finish.py --master-matches 60 --step all

The preset is 3 players, target 51, eight-card hands, ``tie_rule = raise`` with
``target_step = 10``. With ``target_raise = above`` (the default) a target that several
sides have reached rises to the first step above every side's total; with ``step`` (the
old rule, kept as an option) it rises by one step only, which the leaders can stay over.

**Pairings.** Every pair of levels (random, greedy, expert, master), a level against
itself included: ten pairings. A level against itself fills all three seats. Two levels
A and B alternate two line-ups, one A against two B (A,B,B) and two A against one B
(A,A,B); the line-up's seats are rotated one place every other match, so each level sits
at each seat. Match i of a pairing deals with seed ``--seed`` + i, so every pairing and
both rules play the same deal orders, and a match under ``step`` is the same match as
under ``above`` until the first time the target rises.

**Figures.** Per pairing and rule: the matches played, those still undecided after
``--max-deals`` deals (the target: 0), the deals per match (median, mean, max; an
unfinished match counts its ``--max-deals`` deals), how many matches raised the target
and the highest target any match reached. ``above`` is measured for every pairing,
``step`` for the pairings named by ``--step`` (greedy-greedy by default).

**The master** searches ``--think-ms`` per move (10 by default, not its 1000). Its search
keeps 50 ms of the budget for the hand-over and never searches less than 5 ms, so any
budget up to 55 ms searches 5 ms: about 200 times less than at the default. Each match
runs in one of ``--jobs`` worker processes with a master of one search process.
``--master-matches`` (400 by default) sets how many matches the pairings with the master
play; the table says how many were played against how many the brief asks (400).

The run is appended to ``--out`` (JSON) with the command line, the date and the machine,
and rewritten after every pairing, so an interrupted run keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any, NamedTuple

from harness import cpu_model, err, stamp
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from basra.arena.duplicate import play_bot_match, side_totals
from basra.bots import BOT_LEVELS
from basra.rules import Rules, make_rules

VARIANT = "three-player"
PLAYERS = 3
ASKED_MATCHES = 400
"""Matches per pairing that the measurement is meant to have."""

PAIRINGS = [f"{a}-{b}" for a, b in combinations_with_replacement(BOT_LEVELS, 2)]
"""``random-random``, ``random-greedy``, ... ``master-master``: weaker level first."""


def line_ups(pairing: str) -> list[tuple[str, ...]]:
    """The line-ups a pairing alternates, seat 0 first.

    >>> line_ups("greedy-greedy")
    [('greedy', 'greedy', 'greedy')]
    >>> line_ups("random-expert")
    [('random', 'expert', 'expert'), ('random', 'random', 'expert')]
    """
    a, b = pairing.split("-")
    if a == b:
        return [(a, a, a)]
    return [(a, b, b), (a, a, b)]


def seating(pairing: str, index: int) -> tuple[str, ...]:
    """Who sits where in match ``index`` of a pairing: the line-ups in turn, each turned
    one seat further every other match.

    >>> [seating("random-expert", i) for i in range(4)]  # doctest: +NORMALIZE_WHITESPACE
    [('random', 'expert', 'expert'), ('random', 'random', 'expert'),
     ('expert', 'random', 'expert'), ('expert', 'random', 'random')]
    """
    ups = line_ups(pairing)
    line_up = ups[index % len(ups)]
    turn = (index // len(ups)) % PLAYERS
    return tuple(line_up[(seat - turn) % PLAYERS] for seat in range(PLAYERS))


class MatchJob(NamedTuple):
    rules: Rules
    seed: int
    bots: tuple[str, ...]
    think_ms: int
    max_deals: int


class MatchEnd(NamedTuple):
    deals: int
    """Deals scored."""
    winner_level: str | None
    """The level of the seat that won; None when stopped at ``max_deals``."""
    final_target: int


def play_one(job: MatchJob) -> MatchEnd:
    """Play one match to its end or ``max_deals``; runs in a worker process."""
    bot_seeds = [job.seed * 10 + seat for seat in range(PLAYERS)]  # as basra simulate
    match, _ = play_bot_match(job.rules, VARIANT, job.seed, job.bots, bot_seeds,
                              think_ms=job.think_ms, workers=1, max_deals=job.max_deals)
    deals, _, _ = side_totals(match)
    winner = None if match.winner is None else job.bots[match.winner]
    return MatchEnd(deals, winner, match.target)


def measure(pool: ProcessPoolExecutor, progress: Progress, pairing: str, raise_rule: str,
            args: argparse.Namespace) -> dict[str, Any]:
    """Play a pairing's matches under one ``target_raise`` and gather the figures."""
    rules = make_rules(VARIANT, PLAYERS, {"target_raise": raise_rule})
    matches = args.master_matches if "master" in pairing else args.matches
    jobs = [MatchJob(rules, args.seed + i, seating(pairing, i), args.think_ms, args.max_deals)
            for i in range(matches)]
    task = progress.add_task(f"{pairing} ({raise_rule})", total=matches)
    started = time.perf_counter()
    ends = []
    for future in as_completed([pool.submit(play_one, job) for job in jobs]):
        ends.append(future.result())
        progress.advance(task)
    seconds = time.perf_counter() - started
    deals = sorted(end.deals for end in ends)
    finished = [end.deals for end in ends if end.winner_level is not None]
    return {
        "pairing": pairing,
        "target_raise": raise_rule,
        "line_ups": [list(up) for up in line_ups(pairing)],
        "matches_asked": ASKED_MATCHES,
        "matches": matches,
        "unfinished": matches - len(finished),
        "deals_median": statistics.median(deals),
        "deals_mean": round(statistics.fmean(deals), 3),
        "deals_max": deals[-1],
        "deals_total": sum(deals),
        "finished_deals_mean": round(statistics.fmean(finished), 3) if finished else None,
        "raised": sum(end.final_target > rules.target for end in ends),
        "highest_target": max(end.final_target for end in ends),
        "won_by": {level: sum(end.winner_level == level for end in ends)
                   for level in dict.fromkeys(pairing.split("-"))},
        "think_ms": args.think_ms if "master" in pairing else None,
        "wall_seconds": round(seconds, 1),
    }


def _pool_context() -> Any:
    # Not fork: the progress bar runs a thread, and a forked child could inherit its lock.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def save_run(run: dict[str, Any], path: Path, first: bool) -> None:
    """Append the run to the file's ``runs`` (``first``), or replace its last run with it."""
    runs: list[dict[str, Any]] = []
    if path.exists():
        try:
            runs = list(json.loads(path.read_text(encoding="utf-8"))["runs"])
        except (ValueError, KeyError, TypeError):
            runs = []
    if first or not runs:
        runs.append(run)
    else:
        runs[-1] = run
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": runs}, indent=1) + "\n", encoding="utf-8")


def figures_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title=f"{VARIANT}, {PLAYERS} players: deals per match")
    for column in ("pairing", "target_raise", "matches", "unfinished", "median", "mean",
                   "max", "raised", "top target", "seconds"):
        table.add_column(column, justify="left" if column in ("pairing", "target_raise")
                         else "right")
    for row in rows:
        matches = str(row["matches"])
        if row["matches"] < row["matches_asked"]:
            matches += f" of {row['matches_asked']}"
        table.add_row(
            row["pairing"], row["target_raise"], matches,
            str(row["unfinished"]) if not row["unfinished"] else f"[red]{row['unfinished']}[/]",
            f"{row['deals_median']:g}", f"{row['deals_mean']:.2f}", str(row["deals_max"]),
            str(row["raised"]), str(row["highest_target"]), f"{row['wall_seconds']:.0f}",
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=PAIRINGS,
                        help="Measure only this pairing (repeatable; default: all ten).")
    parser.add_argument("--step", action="append", default=None, metavar="PAIRING",
                        help="Also measure this pairing under target_raise=step (repeatable; "
                             "'all' for every pairing measured, 'none' for none; "
                             "default: greedy-greedy).")
    parser.add_argument("--matches", type=int, default=ASKED_MATCHES,
                        help=f"Matches per pairing without the master (default {ASKED_MATCHES}).")
    parser.add_argument("--master-matches", type=int, default=ASKED_MATCHES,
                        help=f"Matches per pairing with the master (default {ASKED_MATCHES}).")
    parser.add_argument("--think-ms", type=int, default=10,
                        help="Master budget per move in ms (default 10; the bot's own is 1000).")
    parser.add_argument("--max-deals", type=int, default=1000,
                        help="Stop a match still undecided after this many deals (default 1000).")
    parser.add_argument("--seed", type=int, default=1, help="Seed of match 0 (default 1).")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="Worker processes (default: every core).")
    parser.add_argument("--out", type=Path,
                        default=Path("benchmarks/results/three-player-finish.json"))
    args = parser.parse_args()

    pairings = args.only or PAIRINGS
    step_names = args.step or ["greedy-greedy"]
    if "all" in step_names:
        step_names = pairings
    measured = [(p, "above") for p in pairings]
    measured += [(p, "step") for p in pairings if p in step_names]
    run: dict[str, Any] = {
        **stamp("three_player_finish.py"),
        "machine": {"cores": os.cpu_count(), "cpu": cpu_model()},
        "variant": VARIANT, "players": PLAYERS, "seed": args.seed,
        "max_deals": args.max_deals, "think_ms": args.think_ms, "jobs": args.jobs,
        "seating": "a level against itself: all three seats; levels A and B: line-ups "
                   "A,B,B and A,A,B in turn, rotated one seat every other match; match i "
                   "uses seed + i",
        "complete": False,
        "rows": [],
    }
    started = time.perf_counter()
    progress = Progress(TextColumn("{task.description:<28}"), BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=err)
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=_pool_context()) as pool, \
            progress:
        for index, (pairing, raise_rule) in enumerate(measured):
            run["rows"].append(measure(pool, progress, pairing, raise_rule, args))
            run["wall_seconds"] = round(time.perf_counter() - started, 1)
            run["complete"] = index == len(measured) - 1
            save_run(run, args.out, first=index == 0)
    out = Console(highlight=False)
    if not out.is_terminal:
        out.width = 120  # not the 80 columns of a pipe: the table would wrap
    out.print(figures_table(run["rows"]))
    unfinished = sum(row["unfinished"] for row in run["rows"] if row["target_raise"] == "above")
    short = list(dict.fromkeys(row["pairing"] for row in run["rows"]
                               if row["matches"] < row["matches_asked"]))
    print(f"target_raise=above: {unfinished} unfinished (target 0); "
          + (f"fewer than {ASKED_MATCHES} matches: {', '.join(short)}; " if short else "")
          + f"{run['wall_seconds']:.0f} s in all; saved to {args.out}")


if __name__ == "__main__":
    main()
