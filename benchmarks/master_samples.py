"""How many samples the master's search makes in its time budget, on this machine.

Strength runs (``basra arena --master-samples N``) fix the master's samples per move, so
that their results do not depend on how busy the machine is. This script says which N
matches a time budget: it plays the master against the expert and, at each decision the
master searches (not those it solves exactly), counts the samples made in the budget.

    python benchmarks/master_samples.py --think-ms 300 --decisions 100

Run it on a quiet machine: the count is per core.
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
from basra.bots.master import MATCH_BONUS, ROLLOUT_POLICY, _fully_known
from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--think-ms", type=int, default=300)
    parser.add_argument("--decisions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not fast.available():
        raise SystemExit("the compiled search is not available (numba missing)")
    from basra.fast.core import compile_kernels, observation_search

    compile_kernels()
    rules = make_rules("egyptian")
    expert = make_bot("expert", args.seed)
    rng = random.Random(args.seed)
    counts: list[int] = []
    seconds = args.think_ms / 1000 - 0.015  # as MasterBot gives its search
    match = Match(rules, args.seed, variant="egyptian")
    while len(counts) < args.decisions:
        if match.is_over:
            match = Match(rules, rng.getrandbits(32), variant="egyptian")
        seat = match.state.to_play
        view = observe(match, seat)
        if seat == 0 and len(view.legal_moves) > 1 and not _fully_known(view):
            stats = observation_search(view, seconds, rng.getrandbits(32), policy=ROLLOUT_POLICY,
                                       match_bonus=MATCH_BONUS)
            counts.append(max(stats.visits))
        match.play(expert.choose(view))
    counts.sort()
    result = {**stamp("master_samples.py"), "think_ms": args.think_ms,
              "decisions": len(counts), "median_samples": statistics.median(counts),
              "p10": counts[len(counts) // 10], "p90": counts[9 * len(counts) // 10]}
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
