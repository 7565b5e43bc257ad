"""How much the other seat's plays tell of its hand, as the master's inference reads them.

At each of seat 0's decisions of the expert's matches against ``--other`` (the expert or
greedy; 2-player egyptian) where
the other seat has played in this batch, the master's sampler deals ``--samples`` hands
to the other seat; each is weighted by :func:`basra.fast.kernels.likelihood` (the
rollout policy's values, ``--policy``, softmax temperature ``--tau``). Printed per number
of the other seat's plays seen: the share of the true hand's cards a sampled hand holds,
unweighted and weighted, and the weights' effective sample size as a share of the samples::

    python benchmarks/inference_overlap.py --matches 30 --policy 4 --tau 1
    python benchmarks/inference_overlap.py --matches 30 --other greedy --policy 1 --tau 0.05
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from harness import stamp

from basra import fast
from basra.bots import make_bot
from basra.bots.reading import LEVEL_STYLES
from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--policy", type=int, default=4)
    parser.add_argument("--tau", type=float, default=1.0)
    parser.add_argument("--other", choices=sorted(LEVEL_STYLES), default="expert",
                        help="who plays seat 1, whose plays are read")
    args = parser.parse_args(argv)
    if not fast.available():
        raise SystemExit("the compiled path is not available (numba missing)")
    from basra.fast import kernels as k
    from basra.fast.core import _search_inputs, batch_history, fast_rules

    rules = make_rules("egyptian")
    compiled = fast_rules(rules)
    players = (make_bot("expert", 1), make_bot(args.other, 2))
    buffers = (np.empty(k.MAX_MOVES, np.int64), np.empty(k.MAX_MOVES), np.empty(52),
               np.empty(k.EXPERT_CONTEXT, np.int64), np.empty(k.MAX_OPTIONS, np.int64))
    rows: dict[int, list[tuple[float, float, float]]] = {}
    sample = np.zeros(k.STATE_SIZE, np.int64)
    models = np.array([-1, args.policy, -1, -1], np.int64)  # seat 1's plays, read
    for seed in range(args.matches):
        match = Match(rules, seed)
        while not match.is_over:
            seat = match.state.to_play
            view = observe(match, seat)
            history, held = batch_history(view)
            if seat == 0 and len(history) and match.state.hands[1]:
                base, unseen, counts, order = _search_inputs(view)
                truth = match.state.hands[1]
                dice = np.array([seed * 2 + 1], np.uint64)
                weights, shares = [], []
                for _ in range(args.samples):
                    k.sample_into(compiled.cfg, base, unseen, counts, order, 0, dice, sample)
                    weights.append(k.likelihood(compiled.cfg, compiled.cards, sample, history,
                                                held, models, args.tau, *buffers,
                                                compiled.memo))
                    hand = int(sample[k.S_HANDS + 1])
                    shares.append((hand & truth).bit_count() / truth.bit_count())
                w, h = np.array(weights), np.array(shares)
                rows.setdefault(len(history), []).append(
                    (float(h.mean()), float((w * h).sum() / w.sum()),
                     float(w.sum() ** 2 / (w * w).sum() / len(w))))
            match.play(players[seat].choose(view))
    result = {**stamp("inference_overlap.py"), "matches": args.matches,
              "samples": args.samples, "other": args.other, "policy": args.policy, "tau": args.tau,
              "by_plays_seen": {
                  str(n): {"decisions": len(found),
                           "share_uniform": round(float(np.mean([r[0] for r in found])), 4),
                           "share_weighted": round(float(np.mean([r[1] for r in found])), 4),
                           "effective_share": round(float(np.mean([r[2] for r in found])),
                                                      3)}
                  for n, found in sorted(rows.items())}}
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
