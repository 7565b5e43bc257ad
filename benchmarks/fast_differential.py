"""The long differential run: millions of random plays through the reference core and the
compiled path, every legal-move list, state and deal score compared.

Cycles through every preset and player count (the pile games Pişti and Xeri among them),
an extra deal between tied seats, and random house rules (every option that changes
capturing, basras, piştis, the pile's deal or scoring), until at least PLAYS plays were
checked::

    python benchmarks/fast_differential.py --plays 2000000

Prints the count of deals and plays checked per kind and exits 1 on the first mismatch
(with both positions).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from basra.fast import unavailable_reason


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"the compiled path is not available: {reason}", file=sys.stderr)
        return 2
    from basra.fast.check import FastMismatchError, differential_deals, random_rules
    from basra.rules import PRESETS, make_rules

    games = [(f"{name}/{players}", PRESETS[name].rules_for(players))
             for name, preset in PRESETS.items() for players in preset.players]
    tied = make_rules("egyptian", players=3, overrides={"tie_deal": "tied"})
    rng = random.Random(args.seed)
    plays = deals = 0
    per_kind: dict[str, int] = {}
    started = time.perf_counter()
    round_number = 0
    try:
        while plays < args.plays:
            for label, rules in games:
                checked = differential_deals(rules, 5, args.seed + round_number)
                per_kind[label] = per_kind.get(label, 0) + checked
                plays += checked
                deals += 5
            checked = differential_deals(tied, 2, args.seed + round_number, seats=(0, 2))
            per_kind["egyptian/3 tied seats 0 2"] = per_kind.get(
                "egyptian/3 tied seats 0 2", 0) + checked
            plays += checked
            deals += 2
            for _ in range(40):
                checked = differential_deals(random_rules(rng), 1, rng.getrandbits(32))
                per_kind["random house rules"] = per_kind.get("random house rules", 0) + checked
                plays += checked
                deals += 1
            round_number += 1
            print(f"\r{plays:,} plays checked ({time.perf_counter() - started:.0f} s)",
                  end="", file=sys.stderr, flush=True)
    except FastMismatchError as error:
        print(f"\nMISMATCH after {plays:,} plays: {error}")
        return 1
    print(file=sys.stderr)
    for label, count in per_kind.items():
        print(f"{label:28} {count:>10,} plays")
    print(f"{'all':28} {plays:>10,} plays in {deals:,} deals, no difference "
          f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
