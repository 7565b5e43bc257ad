"""Measure the bots' strength with duplicate arenas; print and save the figures.

Usage (from the repository root, with the project installed):

    python benchmarks/strength.py                      # every pairing, full sizes
    python benchmarks/strength.py --only expert-greedy --matches 400
    python benchmarks/strength.py --master-matches 20 --out benchmarks/results/strength.json
    python benchmarks/strength.py --only pisti-master-expert --master-matches 400 \
        --master-samples 1000
    python benchmarks/strength.py --only neural-expert --matches 400

Each pairing is an arena (``basra.arena.run_arena``): every seed is played once per seat
rotation, so both bots get the same cards. Results go to ``--out`` as JSON after every
pairing, so an interrupted run keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from basra.arena.duplicate import run_arena
from basra.rules import make_rules

PAIRINGS: dict[str, dict[str, Any]] = {
    "expert-greedy": {"variant": "egyptian", "players": 2, "bots": ["expert", "greedy"],
                      "target": 0.60, "jobs": 2},
    "master-expert": {"variant": "egyptian", "players": 2, "bots": ["master", "expert"],
                      "target": 0.80, "jobs": 1},
    "master-greedy": {"variant": "egyptian", "players": 2, "bots": ["master", "greedy"],
                      "target": 0.90, "jobs": 1},
    "master-pair-greedy-pair": {"variant": "egyptian", "players": 4,
                                "bots": ["master", "greedy"], "target": 0.65, "jobs": 1},
    "master-pair-expert-pair": {"variant": "egyptian", "players": 4,
                                "bots": ["master", "expert"], "target": None, "jobs": 1},
    "master-two-experts": {"variant": "three-player", "players": 3,
                           "bots": ["master", "expert", "expert"], "target": None, "jobs": 1},
    "pisti-master-expert": {"variant": "pisti", "players": 2, "bots": ["master", "expert"],
                            "target": None, "jobs": 1},
    "xeri-master-expert": {"variant": "xeri", "players": 2, "bots": ["master", "expert"],
                           "target": None, "jobs": 1},
    "neural-expert": {"variant": "egyptian", "players": 2, "bots": ["neural", "expert"],
                      "target": 0.75, "jobs": 2},
    "neural-greedy": {"variant": "egyptian", "players": 2, "bots": ["neural", "greedy"],
                      "target": None, "jobs": 2},
    "neural-pair-expert-pair": {"variant": "egyptian", "players": 4,
                                "bots": ["neural", "expert"], "target": None, "jobs": 2},
    "pasur-neural-expert": {"variant": "pasur", "players": 2, "bots": ["neural", "expert"],
                            "target": None, "jobs": 2},
    "pisti-neural-expert": {"variant": "pisti", "players": 2, "bots": ["neural", "expert"],
                            "target": None, "jobs": 2},
    "xeri-neural-expert": {"variant": "xeri", "players": 2, "bots": ["neural", "expert"],
                           "target": None, "jobs": 2},
    "pisti-neural-greedy": {"variant": "pisti", "players": 2, "bots": ["neural", "greedy"],
                            "target": None, "jobs": 2},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=list(PAIRINGS),
                        help="Run only this pairing (repeatable).")
    parser.add_argument("--matches", type=int, default=400,
                        help="Matches for pairings without the master (default 400).")
    parser.add_argument("--master-matches", type=int, default=20,
                        help="Matches for pairings with the master (default 20).")
    parser.add_argument("--think-ms", type=int, default=300,
                        help="Master budget per move (default 300, the bot's default).")
    parser.add_argument("--master-samples", type=int, default=None,
                        help="The master searches this many deals a move instead of "
                             "--think-ms (reproducible whatever the load).")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/strength.json"))
    args = parser.parse_args()

    results: dict[str, Any] = {}
    if args.out.exists():
        results = json.loads(args.out.read_text(encoding="utf-8"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for name in args.only or list(PAIRINGS):
        pairing = PAIRINGS[name]
        uses_master = "master" in pairing["bots"]
        matches = args.master_matches if uses_master else args.matches
        rules = make_rules(pairing["variant"], pairing["players"])
        started = time.perf_counter()
        result = run_arena(rules, pairing["variant"], pairing["bots"], matches, args.seed,
                           jobs=pairing["jobs"], think_ms=args.think_ms,
                           samples=args.master_samples)
        entry = result.to_dict()
        entry.update(variant=pairing["variant"], players=pairing["players"],
                     target=pairing["target"], think_ms=args.think_ms,
                     master_samples=args.master_samples,
                     wall_seconds=round(time.perf_counter() - started, 1))
        results[name] = entry
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        lo, hi = entry["win_rate_ci95"][0]
        target = "none" if pairing["target"] is None else f"{pairing['target']:.0%}"
        print(f"{name}: {entry['bots'][0]} won {entry['win_rate'][0]:.1%} of "
              f"{entry['matches_played']} matches (95% CI {lo:.1%}-{hi:.1%}; target "
              f"{target}); median decision {entry['median_ms'][0]:.0f} ms; "
              f"{entry['wall_seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
