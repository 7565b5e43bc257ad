"""How many samples the master's search makes in its time budget, on this machine.

Strength runs (``basra arena --master-samples N``) fix the master's samples per move, so
that their results do not depend on how busy the machine is. This script says which N
matches a time budget: it plays the master against the expert and, at each decision the
master searches (not those it solves exactly), counts the samples made in the budget.

    python benchmarks/master_samples.py --think-ms 300 --decisions 100
    python benchmarks/master_samples.py --settings '{"tree": true}'   # tree iterations
    python benchmarks/master_samples.py --old --think-ms 1000          # the old master

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

from harness import stamp

from basra import fast
from basra.bots import make_bot
from basra.bots.master import SearchSettings, _fully_known, search_moves
from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--think-ms", type=int, default=300)
    parser.add_argument("--decisions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--settings", type=json.loads, default={},
                        help="SearchSettings fields as JSON")
    parser.add_argument("--old", action="store_true",
                        help="the pure-Python search on two processes (the old master)")
    args = parser.parse_args(argv)
    if not fast.available() and not args.old:
        raise SystemExit("the compiled search is not available (numba missing)")
    from concurrent.futures import ProcessPoolExecutor

    if fast.available():
        from basra.fast.core import compile_kernels, observation_search, observation_tree_search

        compile_kernels()
    rules = make_rules("egyptian")
    expert = make_bot("expert", args.seed)
    rng = random.Random(args.seed)
    counts: list[int] = []
    settings = SearchSettings(**args.settings)
    # as MasterBot gives its search
    seconds = args.think_ms / 1000 - (0.05 if args.old else 0.015)
    policy = settings.rollout_policy(rules)
    pool = ProcessPoolExecutor(2) if args.old else None
    match = Match(rules, args.seed, variant="egyptian")
    while len(counts) < args.decisions:
        if match.is_over:
            match = Match(rules, rng.getrandbits(32), variant="egyptian")
        seat = match.state.to_play
        view = observe(match, seat)
        if seat == 0 and len(view.legal_moves) > 1 and not _fully_known(view):
            seed = rng.getrandbits(32)
            if pool is not None:
                jobs = [pool.submit(search_moves, view, seconds, seed + i) for i in range(2)]
                counts.append(sum(max(c for _, c in job.result()) for job in jobs))
            elif settings.tree:
                tree = observation_tree_search(view, seconds, seed, policy=policy,
                                               match_bonus=settings.match_bonus,
                                               exploration=settings.exploration,
                                               win_chance=settings.win_chance)
                counts.append(sum(tree.visits))
            else:
                stats = observation_search(view, seconds, seed, policy=policy,
                                           prune=settings.prune,
                                           match_bonus=settings.match_bonus,
                                           infer_tau=settings.infer_tau,
                                           win_chance=settings.win_chance)
                counts.append(max(stats.visits))
        match.play(expert.choose(view))
    counts.sort()
    if pool is not None:
        pool.shutdown()
    result = {**stamp("master_samples.py"), "think_ms": args.think_ms,
              "decisions": len(counts), "median_samples": statistics.median(counts),
              "p10": counts[len(counts) // 10], "p90": counts[9 * len(counts) // 10]}
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
