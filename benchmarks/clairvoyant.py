"""What the hidden cards are worth: a player that sees them, against the expert or greedy.

A ceiling for the master's strength targets. The clairvoyant player does what the master
does (each legal move played out to the end of the deal with the expert's rollouts,
:func:`basra.fast.kernels.expert_move`, the best mean margin played) but on the true deal
instead of deals sampled from what its seat may see:

* ``all``: it sees every card, the other hand and the stock;
* ``hand``: it sees the other hand; the stock is shuffled afresh for each sample.

It plays duplicate matches (2-player egyptian, each seed once per seating) against the
expert (or ``--against greedy``) and prints the share it wins with its Wilson interval::

    python benchmarks/clairvoyant.py --sees hand -n 200 --samples 100
    python benchmarks/clairvoyant.py --sees hand -n 200 --samples 100 --against greedy

In its rollouts the other seat plays as it does (the expert's play, or greedy's), as the
master's do once it has read that seat's style.

The master, which sees only its seat, won 72.5% of 200 against the expert
(docs/strength.md): the gap to these figures is what the hidden cards cost it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from harness import stamp

from basra import fast
from basra.arena.duplicate import wilson_interval
from basra.bots import make_bot
from basra.bots.reading import LEVEL_STYLES
from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules

RULES = make_rules("egyptian")


def _choose(match: Match, sees: str, samples: int, seed: int, other: int) -> int:
    from basra.fast import kernels as k
    from basra.fast.core import fast_rules, to_array

    moves = match.legal_moves()
    if len(moves) == 1:
        return moves[0]
    rules = fast_rules(RULES)
    truth = to_array(match.state)
    side = RULES.side_of[match.state.to_play]
    policies = np.full(4, other, np.int64)  # the other seat plays as it does
    policies[match.state.to_play] = 4  # the clairvoyant's own seat: the expert's play
    rng = random.Random(seed)
    deals = []
    for _ in range(samples if sees == "hand" else 1):
        deal = truth.copy()
        if sees == "hand":  # the stock's cards, dealt afresh into its batches
            slots = [k.S_BATCHES + 4 * b + s for b in range(int(deal[k.S_NEXT_BATCH]),
                                                             int(deal[k.S_BATCHES_COUNT]))
                     for s in range(RULES.players)]
            stock = [c for slot in slots for c in range(52) if int(deal[slot]) >> c & 1]
            rng.shuffle(stock)
            for i, slot in enumerate(slots):
                deal[slot] = sum(1 << c for c in stock[4 * i:4 * i + 4])
        deals.append(deal)
    moves_buffer = np.empty(k.MAX_MOVES, np.int64)
    replies = np.empty(k.MAX_MOVES, np.int64)
    options = np.empty(k.MAX_OPTIONS, np.int64)
    scratch = np.empty(52)
    total = np.zeros(4, np.int64)
    totals = np.zeros(4, np.int64)  # the deal's margin: two sides
    best, best_value = moves[0], -1e18
    for move in moves:
        value = 0.0
        for i, deal in enumerate(deals):
            st = deal.copy()
            k.apply(rules.cfg, rules.cards, st, move)
            dice = np.array([(seed + i) * 2 + 1], np.uint64)
            k.policy_playout(rules.cfg, rules.cards, st, dice, moves_buffer, options,
                             rules.memo, policies, replies, scratch)
            k.deal_score(rules.cfg, rules.cards, st, match.carry, total)
            value += k.lead_gain(rules.cfg, totals, total, side)
        if value > best_value:
            best, best_value = move, value
    return best


def play(seed: int, seat: int, sees: str, samples: int, against: str) -> bool:
    """One match; whether the clairvoyant player (at ``seat``) won it."""
    other = make_bot(against, seed)
    policy = LEVEL_STYLES[against]  # its play in the rollouts
    match = Match(RULES, seed, variant="egyptian")
    decision = 0
    while not match.is_over:
        to_play = match.state.to_play
        if to_play == seat:
            decision += 1
            move = _choose(match, sees, samples, seed * 1000 + decision, policy)
        else:
            move = other.choose(observe(match, to_play))
        match.play(move)
    return match.winner == RULES.side_of[seat]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sees", choices=["all", "hand"], default="hand")
    parser.add_argument("-n", "--matches", type=int, default=200)
    parser.add_argument("--samples", type=int, default=100,
                        help="deals of the stock a move with --sees hand")
    parser.add_argument("--against", choices=sorted(LEVEL_STYLES), default="expert")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if not fast.available():
        raise SystemExit("the compiled path is not available (numba missing)")
    games = [(args.seed + i // 2, i % 2) for i in range(args.matches)]
    with ProcessPoolExecutor(args.jobs) as pool:
        won = sum(pool.map(play, [s for s, _ in games], [t for _, t in games],
                           [args.sees] * len(games), [args.samples] * len(games),
                           [args.against] * len(games)))
    low, high = wilson_interval(won, args.matches)
    json.dump({**stamp("clairvoyant.py"), "sees": args.sees, "against": args.against,
               "samples": args.samples,
               "seed": args.seed, "matches": args.matches, "won": won,
               "win_rate": won / args.matches, "wilson_95": [round(low, 4), round(high, 4)]},
              sys.stdout)
    print()


if __name__ == "__main__":
    main()
