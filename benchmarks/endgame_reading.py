"""What solving the last batch against a read seat's style gains over solving it against
its best replies, exactly, per deal.

Once the stock is empty (two players) the master knows every card and solves the rest
of the deal. It used to take the other seat to reply its best (minimax); against a seat
read as a level it now takes it to play as the level does (``SearchSettings.read_solve``).
This script plays deals of 2-player egyptian to the first decision of seat 0 in the last
batch, seat 0 playing the expert (as a stand-in for the master before the last batch)
and seat 1 the level ``--against``, then computes, exactly, the points margin seat 0
expects to the end of the deal against that level's play (its ties at random) when it
plays each way at all its decisions of the batch. The gain is never negative; its mean
is the points a deal the change is worth against that level.

    python benchmarks/endgame_reading.py --against expert --deals 2000
    python benchmarks/endgame_reading.py --against greedy --deals 2000
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from functools import partial

from harness import err, stamp
from rich.progress import Progress

from basra.bots.reading import LEVEL_STYLES, style_moves
from basra.bots.search import Policy, deal_margin, solve
from basra.observe import observe_state
from basra.rules import make_rules
from basra.state import DealState, apply, new_deal

SEAT, OTHER = 0, 1


def _level_play(style: int, seat: int, node: DealState) -> list[int]:
    return style_moves(style, observe_state(node, seat))


def minimax_play_value(state: DealState, side: int, policy: Policy) -> float:
    """Seat 0's expected margin against ``policy`` when at each of its turns it plays
    one of the moves a solve against best replies values most (at random, as the master
    breaks ties)."""
    if state.is_over:
        return deal_margin(state, side)
    if state.to_play == OTHER:
        moves = policy(state)
    else:
        values = solve(state, side)
        best = max(values.values())
        moves = [m for m, v in values.items() if v >= best - 1e-9]
    return sum(minimax_play_value(apply(state, m), side, policy) for m in moves) / len(moves)


def last_batch(rng: random.Random, style: int, dealer: int) -> DealState:
    """A deal played by the expert (seat 0) and ``style`` (seat 1) to seat 0's first
    decision with the stock empty."""
    rules = make_rules("egyptian", 2)
    state = new_deal(rules, dealer, rng)
    expert = LEVEL_STYLES["expert"]
    while not (state.stock_count == 0 and state.to_play == SEAT):
        seat = state.to_play
        moves = style_moves(expert if seat == SEAT else style, observe_state(state, seat))
        state = apply(state, moves[0] if len(moves) == 1 else rng.choice(moves))
    return state


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--against", choices=sorted(LEVEL_STYLES), default="expert")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    style = LEVEL_STYLES[args.against]
    policy = partial(_level_play, style, OTHER)
    rng = random.Random(args.seed)
    gains: list[float] = []
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("deals", total=args.deals)
        for deal in range(args.deals):
            state = last_batch(rng, style, deal % 2)
            side = state.rules.side_of[SEAT]
            against = solve(state, side, 0, {OTHER: policy})
            best_response = max(against.values())
            gains.append(best_response - minimax_play_value(state, side, policy))
            progress.advance(task)
    n = len(gains)
    mean = statistics.fmean(gains)
    error = statistics.stdev(gains) / math.sqrt(n) if n > 1 else 0.0
    result = {
        "against": args.against,
        "deals": n,
        "seed": args.seed,
        "gain_per_deal": round(mean, 3),
        "gain_standard_error": round(error, 3),
        "deals_gaining": sum(g > 1e-9 for g in gains),
        "largest_gain": round(max(gains), 2),
        **stamp("endgame_reading.py"),
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
