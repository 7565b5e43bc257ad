"""Engine speed in CPU time: deals a second by random playouts and step by step.

``basra bench`` measures wall-clock time, which swings when other work shares the cores;
this script times a fixed number of seeded deals with ``time.process_time`` instead, so
two versions of the engine can be compared on a busy machine (run them interleaved)::

    python benchmarks/cpu_speed.py egyptian 2 3000
    PYTHONPATH=/path/to/older/checkout/src python benchmarks/cpu_speed.py egyptian 2 3000
"""

from __future__ import annotations

import argparse
import random
import time

from basra.rules import make_rules
from basra.state import apply, deal_score, legal_moves, new_deal, random_playout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", nargs="?", default="egyptian")
    parser.add_argument("players", nargs="?", type=int, default=2)
    parser.add_argument("deals", nargs="?", type=int, default=3000)
    args = parser.parse_args()
    rules = make_rules(args.variant, args.players)
    rng = random.Random(1)
    start = time.process_time()
    for i in range(args.deals):
        deal_score(random_playout(new_deal(rules, i % rules.players, rng), rng))
    playout = time.process_time() - start
    rng = random.Random(1)
    start = time.process_time()
    for i in range(args.deals):
        state = new_deal(rules, i % rules.players, rng)
        while not state.is_over:
            moves = legal_moves(state)
            state = apply(state, moves[int(rng.random() * len(moves))])
        deal_score(state)
    step = time.process_time() - start
    print(f"{args.variant}/{args.players}: {args.deals / playout:,.0f} deals/s by playouts, "
          f"{args.deals / step:,.0f} deals/s step by step (CPU time)")


if __name__ == "__main__":
    main()
