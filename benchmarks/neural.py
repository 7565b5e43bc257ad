"""Measure the neural level: its time a move, and how often its move is the exact solver's
best in last-batch positions, beside the other levels' and the master's search.

Usage (from the repository root, with the project installed):

    python benchmarks/neural.py                         # 2-player egyptian, 200 matches
    python benchmarks/neural.py --variant pisti --matches 100

Positions come from matches of the expert against itself (seeds ``--seed`` on). A
last-batch position is one of a 2-player deal where the seat knows where every card lies
(:func:`basra.bots.search.all_known`) and has two moves or more; the solver's values are
exact there (:func:`basra.bots.search.solve`). For each player the figures are the share
of those positions where its move is worth the best move's exact value, and the points
it loses on average. ``search`` is the master's sampled search without its exact solve
(``--samples`` deals a move), as it plays before the last batch. Results go to ``--out``
as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from basra.bots.expert import ExpertBot
from basra.bots.levels import make_bot
from basra.bots.master import SearchSettings
from basra.bots.neural import NeuralBot
from basra.bots.search import all_known, sample_state, solve
from basra.fast.core import observation_search
from basra.match import Match
from basra.observe import Observation, observe
from basra.rules import make_rules


def last_batch_positions(variant: str, matches: int, seed: int) -> tuple[
        list[Observation], list[Observation]]:
    """Every decision of the matches, and the last-batch ones among them."""
    rules = make_rules(variant)
    every: list[Observation] = []
    last: list[Observation] = []
    for k in range(matches):
        match = Match(rules, seed + k, variant=variant)
        bots = [ExpertBot(seed + k), ExpertBot(seed + k + 1)]
        while not match.is_over and len(match.deals) < 40:
            view = observe(match, match.state.to_play)
            every.append(view)
            if len(view.legal_moves) > 1 and all_known(view):
                last.append(view)
            match.play(bots[view.seat].choose(view))
    return every, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="egyptian")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    every, last = last_batch_positions(args.variant, args.matches, args.seed)
    neural = NeuralBot(1)
    times = []
    for view in every[:5000]:
        started = time.perf_counter()
        neural.choose(view)
        times.append((time.perf_counter() - started) * 1000)
    players: dict[str, Any] = {
        "neural": neural.choose,
        "neural values": lambda v: neural.estimates(v)[0].move,
        "expert": make_bot("expert", 1).choose,
        "greedy": make_bot("greedy", 1).choose,
    }
    policy = SearchSettings().rollout_policy(make_rules(args.variant))

    def search(view: Observation) -> int:
        stats = observation_search(view, 0.0, 11, args.samples, policy=policy, prune=False)
        means = [s / w for s, w in zip(stats.sums, stats.weights, strict=True)]
        return view.legal_moves[max(range(len(means)), key=means.__getitem__)]

    players["search"] = search
    right = dict.fromkeys(players, 0)
    lost: dict[str, list[float]] = {name: [] for name in players}
    rng = random.Random(1)
    for view in last:
        exact = solve(sample_state(view, rng), view.side, view.carry)
        best = max(exact.values())
        for name, choose in players.items():
            value = exact[choose(view)]
            right[name] += value >= best - 1e-9
            lost[name].append(best - value)
    result = {
        "variant": args.variant, "matches": args.matches, "seed": args.seed,
        "decisions": len(every), "last_batch_positions": len(last),
        "neural_ms_median": round(statistics.median(times), 4),
        "neural_ms_p99": round(sorted(times)[int(len(times) * 0.99)], 4),
        "agreement": {name: round(right[name] / max(1, len(last)), 4) for name in players},
        "mean_loss": {name: round(statistics.fmean(lost[name]), 3) if lost[name] else 0.0
                      for name in players},
    }
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
