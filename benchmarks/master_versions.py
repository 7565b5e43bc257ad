"""Duplicate matches between versions of the master, or a version and another level.

``basra arena`` seats one master, as it plays today. This script seats any versions of it
side by side: each side is a level name (``greedy``, ``expert``) or a JSON object of the
master's options, its budget (``think_ms`` or ``samples``, ``workers``) and the fields of
:class:`basra.bots.master.SearchSettings`::

    # today's master at 300 ms against the expert, 200 matches on both cores
    python benchmarks/master_versions.py --first '{}' --second expert -n 200 --jobs 2

    # at a fixed number of deals a move (reproducible whatever the load)
    python benchmarks/master_versions.py --first '{"samples": 5000}' --second greedy -n 200

A level may slip: ``expert~0.03`` plays a uniformly random legal move with chance 0.03,
else the expert's (a player the master reads as a level who strays from it now and then,
as people do)::

    python benchmarks/master_versions.py --first '{"samples": 5000}' --second 'expert~0.03'

``--old-master`` names the master as it was before the compiled search: pure-Python
greedy rollouts on two worker processes for 1000 ms a move, no pruning, deal margins only.
Playing it for real costs a core each and four times the time; ``--old-samples N`` plays
instead the same search in compiled code with the N samples a move it made in its second
on this project's machine (:data:`OLD_SAMPLES`).

Prints one JSON object: the first side's wins, Wilson interval, points per deal, its mean
margin per deal over the seeds with a standard error (the two seatings of a seed count as
one paired observation), and each side's median and 90th-percentile decision time; per
seed, the first side's margin (``margin_per_seed``) and matches won (``won_per_seed``, 0
to 2), so that two runs on the same seeds can be compared seed by seed.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import fields
from pathlib import Path
from typing import Any

from harness import level_spec, make_level, stamp
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from basra.arena.duplicate import side_totals, wilson_interval
from basra.bots import Bot, close_bot
from basra.bots.master import MasterBot, SearchSettings
from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules

OLD_MASTER = {"compiled": False, "think_ms": 1000, "workers": 2, "prune": False,
              "match_bonus": 0.0, "policy": 1, "read_styles": False}
"""The master before the compiled search (its search is :func:`search_moves`)."""
OLD_SAMPLES = 2936
"""The samples the old master made a move in its 1000 ms on two cores of this project's
machine (the median of 40 decisions; docs/strength.md)."""


def old_master(samples: int | None = None) -> dict[str, Any]:
    """The old master's options: itself, or emulated by the same search in compiled
    code at ``samples`` a move on one core."""
    if samples is None:
        return dict(OLD_MASTER)
    return {**OLD_MASTER, "compiled": True, "workers": 1, "samples": int(samples)}

BUDGET = ("think_ms", "samples", "workers")
SETTINGS = tuple(f.name for f in fields(SearchSettings))


def side(text: str) -> str | dict[str, Any]:
    """A side given on the command line: a level name (``LEVEL~CHANCE``: slipping) or a
    JSON object of master options."""
    text = text.strip()
    if not text.startswith("{"):
        try:
            level_spec(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return text
    options = json.loads(text)
    unknown = set(options) - set(BUDGET) - set(SETTINGS)
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown master option {sorted(unknown)[0]!r}; known: {', '.join(BUDGET + SETTINGS)}")
    return dict(options)


def build(spec: str | dict[str, Any], seed: int) -> Bot:
    if isinstance(spec, str):
        return make_level(spec, seed)
    settings = SearchSettings(**{k: v for k, v in spec.items() if k in SETTINGS})
    return MasterBot(seed, think_ms=int(spec.get("think_ms", 300)),
                     workers=spec.get("workers"), samples=spec.get("samples"),
                     settings=settings)


def play(args: tuple[str, int, int, list[str | dict[str, Any]]]
         ) -> tuple[int, int, int | None, int, list[int], list[list[float]]]:
    """One match: seed, rotation (the first side sits at seat ``rotation``), winner side
    index (0: the first side), deals, points of (first, second), decision times."""
    variant, seed, rotation, sides = args
    rules = make_rules(variant)
    players = rules.players
    owner = [(seat - rotation) % players % 2 for seat in range(players)]
    bots = [build(sides[owner[seat]], (seed * players + rotation) * players + seat)
            for seat in range(players)]
    times: list[list[float]] = [[], []]
    match = Match(rules, seed, variant=variant)
    try:
        while not match.is_over and len(match.deals) <= 1000:
            seat = match.state.to_play
            view = observe(match, seat)
            started = time.perf_counter()
            move = bots[seat].choose(view)
            if len(view.legal_moves) > 1:
                times[owner[seat]].append((time.perf_counter() - started) * 1000)
            match.play(move)
    finally:
        for bot in bots:
            close_bot(bot)
    deals, points, _ = side_totals(match)
    side_of = rules.side_of
    mine = [0, 0]
    for s in range(rules.sides):
        seats = [seat for seat in range(players) if side_of[seat] == s]
        mine[owner[seats[0]]] += points[s]
    winner = None if match.winner is None else owner[
        next(seat for seat in range(players) if side_of[seat] == match.winner)]
    return seed, rotation, winner, deals, mine, times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--first", type=side, default={}, help="a level or master options")
    parser.add_argument("--second", type=side, default="expert")
    parser.add_argument("--old-master", choices=("first", "second"),
                        help="that side is the master before the compiled search")
    parser.add_argument("--old-samples", type=int, default=None,
                        help="emulate the old master in compiled code at N samples a move "
                             f"(it made {OLD_SAMPLES} on this project's machine)")
    parser.add_argument("-v", "--variant", default="egyptian")
    parser.add_argument("-n", "--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path, help="append the result to this JSON list")
    args = parser.parse_args(argv)
    sides: list[str | dict[str, Any]] = [args.first, args.second]
    old_samples = None
    if args.old_master:
        index = 0 if args.old_master == "first" else 1
        sides[index] = old_master(args.old_samples)
        if args.old_samples is not None:
            old_samples = args.old_samples
            print(f"old master emulated at {int(old_samples)} samples a move", file=sys.stderr)
    from basra import fast

    if fast.available():  # compile (or load the cache) once, not in every worker at once
        from basra.fast.core import compile_kernels

        compile_kernels()
    rules = make_rules(args.variant)
    if rules.players not in (2, 4) or (rules.players == 4 and not rules.partnership):
        raise SystemExit("two sides: 2 players, or 4 in partnerships")
    seeds = -(-args.matches // 2)
    tasks = [(args.variant, s, r, sides) for s in range(args.seed, args.seed + seeds)
             for r in range(2)]
    results = []
    with ProcessPoolExecutor(args.jobs) as pool, Progress(
            "{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            transient=True) as progress:
        bar = progress.add_task("matches", total=len(tasks))
        for future in as_completed([pool.submit(play, t) for t in tasks]):
            results.append(future.result())
            progress.advance(bar)
    results.sort(key=lambda r: (r[0], r[1]))
    wins = sum(1 for r in results if r[2] == 0)
    decided = len(results)
    deals = sum(r[3] for r in results)
    points = [sum(r[4][i] for r in results) for i in range(2)]
    by_seed: dict[int, list[float]] = {}
    won: dict[int, int] = {}
    for seed, _, winner, n, pts, _ in results:
        by_seed.setdefault(seed, []).append((pts[0] - pts[1]) / max(n, 1))
        won[seed] = won.get(seed, 0) + (winner == 0)
    paired = [statistics.fmean(v) for v in by_seed.values()]
    margin = statistics.fmean(paired)
    se = statistics.stdev(paired) / math.sqrt(len(paired)) if len(paired) > 1 else 0.0
    lo, hi = wilson_interval(wins, decided)
    times = [[t for r in results for t in r[5][i]] for i in range(2)]
    out = {
        **stamp("master_versions.py"), "label": args.label, "variant": args.variant,
        "first": sides[0], "second": sides[1], "old_master_samples": old_samples,
        "seed": args.seed, "matches": decided, "first_won": wins,
        "win_rate": round(wins / decided, 4), "wilson_95": [round(lo, 4), round(hi, 4)],
        "points_per_deal": [round(p / max(deals, 1), 2) for p in points],
        "margin_per_deal": round(margin, 2), "margin_se": round(se, 2),
        "median_decision_ms": [round(statistics.median(t), 1) if t else None for t in times],
        "p90_decision_ms": [round(statistics.quantiles(t, n=10)[-1], 1) if len(t) > 1
                            else None for t in times],
        "margin_per_seed": {seed: round(statistics.fmean(v), 2) for seed, v in by_seed.items()},
        "won_per_seed": won,
    }
    print(json.dumps(out))
    if args.out:
        existing = json.loads(args.out.read_text()) if args.out.exists() else []
        args.out.write_text(json.dumps([*existing, out], indent=1) + "\n")


if __name__ == "__main__":
    main()
