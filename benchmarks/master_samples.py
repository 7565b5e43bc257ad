"""How many samples the master's search makes in its time budget, on this machine.

Strength runs (``basra arena --master-samples N``) fix the master's samples per move, so
that their results do not depend on how busy the machine is. This script says which N
matches a time budget: it plays matches of the expert (``--against``) against itself and,
at each decision of seat 0 the master would search (not those it solves exactly), counts
the samples the master's search makes in the budget.
It reads the other seat's style from its plays as the master does; once it is read (two
players) the master's tree counts deals (each played with every move), and ``read_*``
give the figures of those decisions alone.

    python benchmarks/master_samples.py --think-ms 300 --decisions 100
    python benchmarks/master_samples.py --against greedy --decisions 300
    python benchmarks/master_samples.py --against 'expert~0.03' --decisions 300  # slips
    python benchmarks/master_samples.py --against random --read-as expert  # a misread
    python benchmarks/master_samples.py --settings '{"tree": true, "flat_root": false}'
    python benchmarks/master_samples.py --old --think-ms 1000          # the old master
    # the batch before the last alone, its rollouts solving the last batch
    python benchmarks/master_samples.py --settings '{"solve_rollouts": true}' --before-last

``--settings`` takes the fields of :class:`basra.bots.master.SearchSettings` as JSON (the
master's own by default); ``--old`` counts the samples of the pure-Python search on two
worker processes, as the master searched before the compiled path (both processes'
samples added). Run it on a quiet machine: the count is per core.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys

from harness import make_level, stamp

from basra import fast
from basra.bots.master import (
    SearchSettings,
    _fully_known,
    _search,
    _solves_rollouts,
    move_settings,
    search_moves,
)
from basra.bots.reading import LEVEL_STYLES, StyleReader
from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules

SOLVING = SearchSettings(solve_rollouts=True)
"""Settings whose rollouts solve the last batch: which decisions ``--before-last`` counts."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--think-ms", type=int, default=300)
    parser.add_argument("--decisions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--against", default="expert",
                        help="the level both seats play (LEVEL~CHANCE: slipping)")
    parser.add_argument("--read-as", choices=sorted(LEVEL_STYLES),
                        help="take the other seat as playing this level's style from the "
                             "first move, whatever it plays (a misread)")
    parser.add_argument("--settings", type=json.loads, default={},
                        help="SearchSettings fields as JSON")
    parser.add_argument("--old", action="store_true",
                        help="the pure-Python search on two processes (the old master)")
    parser.add_argument("--before-last", action="store_true",
                        help="count only the decisions of the deal's batch before the last "
                             "(where solve_rollouts solves the rollouts' last batch)")
    args = parser.parse_args(argv)
    if not fast.available() and not args.old:
        raise SystemExit("the compiled search is not available (numba missing)")
    from concurrent.futures import ProcessPoolExecutor

    if fast.available():
        from basra.fast.core import compile_kernels

        compile_kernels()
    rules = make_rules("egyptian")
    try:
        other = make_level(args.against, args.seed)
    except ValueError as error:
        parser.error(str(error))
    rng = random.Random(args.seed)
    counts: list[int] = []
    read: list[bool] = []
    settings = SearchSettings(**args.settings)
    reader = StyleReader(settings.read_after)
    # as MasterBot gives its search
    seconds = args.think_ms / 1000 - (0.05 if args.old else 0.015)
    pool = ProcessPoolExecutor(2) if args.old else None
    match = Match(rules, args.seed, variant="egyptian")
    while len(counts) < args.decisions:
        if match.is_over:
            match = Match(rules, rng.getrandbits(32), variant="egyptian")
            reader = StyleReader(settings.read_after)
        seat = match.state.to_play
        view = observe(match, seat)
        if seat == 0:
            reader.observe(view)
        styles = reader.styles(2) if settings.read_styles else ()
        if args.read_as:
            styles = (None, LEVEL_STYLES[args.read_as])
        if seat == 0 and len(view.legal_moves) > 1 and not _fully_known(view) and (
                not args.before_last or _solves_rollouts(SOLVING, view)):
            seed = rng.getrandbits(32)
            if pool is not None:
                jobs = [pool.submit(search_moves, view, seconds, seed + i) for i in range(2)]
                counts.append(sum(max(c for _, c in job.result()) for job in jobs))
            else:
                # the master's own search (one worker): (sum, weight, visits) per move
                move = move_settings(settings, reader, view)
                visits = [v for _, _, v in _search(view, seconds, seed, None, move, styles)]
                iterations = move.uses_tree(rules, styles) and not move.flat_root
                counts.append(sum(visits) if iterations else max(visits))
            read.append(any(s is not None for s in styles))
        match.play(other.choose(view))
    tree = sorted(c for c, r in zip(counts, read, strict=True) if r)
    counts.sort()
    if pool is not None:
        pool.shutdown()
    result = {**stamp("master_samples.py"), "think_ms": args.think_ms,
              "against": args.against, "read_as": args.read_as, "settings": args.settings,
              "before_last": args.before_last,
              "decisions": len(counts), "read": sum(read),
              "median_samples": statistics.median(counts),
              "p10": counts[len(counts) // 10], "p90": counts[9 * len(counts) // 10],
              "read_median": statistics.median(tree) if tree else None,
              "read_p10": tree[len(tree) // 10] if tree else None,
              "read_p2": tree[len(tree) // 50] if tree else None}
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
