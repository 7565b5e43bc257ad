"""How often the environments' action scheme needs more than one action for a move.

Plays uniformly random deals of every preset and player count and prints, per preset:
the most capture choices one card had, the share of turns where some card had several
(so that playing it takes a second decision), and the mean number of actions per move.

    python benchmarks/capture_choices.py --deals 1000
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from basra.envs.game import move_actions
from basra.rules import PRESETS, make_rules
from basra.state import apply, legal_moves, new_deal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'preset':<16} {'most choices':>12} {'turns with a choice':>20} "
          f"{'actions per move':>17}")
    for name, preset in PRESETS.items():
        for players in preset.players:
            rules = make_rules(name, players)
            rng = random.Random(args.seed)
            most = turns = choosing = moves_played = actions = 0
            for deal in range(args.deals):
                state = new_deal(rules, deal % players, rng)
                while not state.is_over:
                    moves = legal_moves(state)
                    per_card = Counter(m & 63 for m in moves)
                    most = max(most, max(per_card.values()))
                    turns += 1
                    choosing += max(per_card.values()) > 1
                    move = rng.choice(moves)
                    actions += len(move_actions(move, moves))
                    moves_played += 1
                    state = apply(state, move)
            print(f"{f'{name}-{players}':<16} {most:>12} {choosing / turns:>19.2%} "
                  f"{actions / moves_played:>17.4f}")


if __name__ == "__main__":
    main()
