"""Search tools for the strong bots: sampling hidden cards, fast rollouts, exact endgames.

Everything here works from an :class:`~basra.observe.Observation`: a sampled state puts
the cards this seat has not seen into the other hands and the stock at random, keeping
every count it knows, so a search never uses what the seat cannot know.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from basra.bots.base import refuse_pile_games
from basra.bots.simple import move_value
from basra.observe import Observation
from basra.state import (
    DealState,
    apply,
    capture_table,
    deal_score,
    legal_moves,
    playing_order,
)

__all__ = ["Policy", "deal_margin", "greedy_playout", "sample_state", "solve"]


def sample_state(observation: Observation, rng: random.Random) -> DealState:
    """A full deal state consistent with everything the seat has seen.

    The unseen cards are shuffled into the other seats' hands (by their counts) and the
    stock (in batches, in dealing order). Pile games are refused (no sampling of their
    face-down cards yet).
    """
    refuse_pile_games(observation, "search")
    rules = observation.rules
    unseen = [c for c in range(52) if observation.unseen >> c & 1]
    rng.shuffle(unseen)
    players = rules.players
    hands = [0] * players
    position = 0
    for seat in range(players):
        if seat == observation.seat:
            hands[seat] = observation.hand
            continue
        for card in unseen[position:position + observation.hand_counts[seat]]:
            hands[seat] |= 1 << card
        position += observation.hand_counts[seat]
    turns = observation.turns
    order = playing_order(turns, observation.dealer)
    size = rules.hand_size
    batches = []
    while position < len(unseen):
        batch = [0] * players
        for seat in order:
            for card in unseen[position:position + size]:
                batch[seat] |= 1 << card
            position += size
        batches.append(tuple(batch))
    return DealState(
        capture_table(rules), observation.dealer, observation.to_play, observation.floor,
        tuple(hands), observation.piles, observation.basras, observation.last_capturer,
        tuple(batches), 0, turns, observation.laid,
    )


def deal_margin(state: DealState, side: int, carry: int = 0) -> float:
    """A finished deal's points for ``side`` minus the mean of the other sides'."""
    total = deal_score(state, carry).total
    others = [points for s, points in enumerate(total) if s != side]
    return total[side] - sum(others) / len(others)


def _greedy_move(state: DealState, moves: list[int], rng: random.Random) -> int:
    """The move worth most this turn (:func:`move_value`), ties broken at random."""
    table, floor = state.table, state.floor
    values = [move_value(table, floor, move) for move in moves]
    best_value = max(values)
    best = [move for move, value in zip(moves, values, strict=True) if value == best_value]
    return best[0] if len(best) == 1 else best[int(rng.random() * len(best))]


def greedy_playout(state: DealState, rng: random.Random) -> DealState:
    """Play the deal to its end with every seat playing the greedy move."""
    while not state.is_over:
        moves = legal_moves(state)
        state = apply(state, moves[0] if len(moves) == 1 else _greedy_move(state, moves, rng))
    return state


Policy = Callable[[DealState], list[int]]
"""A seat's known play: the moves it would play in a state (one of them at random)."""


def solve(state: DealState, side: int, carry: int = 0,
          policies: Mapping[int, Policy] | None = None) -> dict[int, float]:
    """Exact value (``deal_margin``) of every legal move when all cards are known.

    Alpha-beta over the rest of the deal, for two sides: ``side`` maximises, the other
    minimises, except a seat whose play is known (``policies``): it plays one of its
    policy's moves at random, so its turn is worth their mean, and the value is what
    each move brings against the way it plays rather than against its best replies.
    Meant for the last batch of a deal (a few cards in each hand).
    """
    side_of = state.rules.side_of
    known = policies or {}

    def value(node: DealState, alpha: float, beta: float) -> float:
        if node.is_over:
            return deal_margin(node, side, carry)
        policy = known.get(node.to_play)
        if policy is not None:
            # a mean needs each move's exact value, not a bound
            moves = policy(node)
            return sum(value(apply(node, m), -1e9, 1e9) for m in moves) / len(moves)
        maximising = side_of[node.to_play] == side
        best = -1e9 if maximising else 1e9
        for move in legal_moves(node):
            result = value(apply(node, move), alpha, beta)
            if maximising:
                best = max(best, result)
                alpha = max(alpha, best)
            else:
                best = min(best, result)
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    return {move: value(apply(state, move), -1e9, 1e9) for move in legal_moves(state)}
