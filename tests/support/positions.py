"""Positions the solver tests start from, shared by the test modules."""

from __future__ import annotations

import random

from basra.rules import make_rules
from basra.state import DealState, apply, legal_moves, new_deal


def last_batch_states(variant: str, seed: int, count: int) -> list[DealState]:
    """Two-player deals of ``variant`` played at random to a turn of the last batch (a
    random one of its turns) with at least two moves: every card known."""
    rules = make_rules(variant, 2)
    rng = random.Random(seed)
    states: list[DealState] = []
    while len(states) < count:
        state = new_deal(rules, len(states) % 2, rng)
        while not state.is_over and (state.batches or len(legal_moves(state)) < 2
                                     or rng.random() < 0.3):
            moves = legal_moves(state)
            state = apply(state, moves[rng.randrange(len(moves))])
        if not state.is_over:
            states.append(state)
    return states
