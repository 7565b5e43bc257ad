"""The neural level: plays the learned network's policy alone, in well under a
millisecond a move (:mod:`basra.neural.network`).

It sees what its seat sees and nothing more: the network reads the seat's observation
tensor. Its move is the legal move of the highest policy logit; moves of equal logits
(the same card's capture choices the network cannot tell apart) go to the one its value
head rates higher, then to its seeded generator.
"""

from __future__ import annotations

import random

from basra.neural.network import Network, load_network, weights_name
from basra.observe import Observation

from .master import MoveEstimate

__all__ = ["NeuralBot"]


class NeuralBot:
    """Plays the shipped network of the rules' family (or ``network``, when given)."""

    name = "neural"

    def __init__(self, seed: int | None = None, network: Network | None = None) -> None:
        self.rng = random.Random(seed)
        self.network = network

    def _network(self, observation: Observation) -> Network:
        return self.network or load_network(weights_name(observation.rules))

    def estimates(self, observation: Observation) -> list[MoveEstimate]:
        """Every legal move's value (the expected points margin to the end of the deal,
        by the value head), best first."""
        _, values = self._network(observation).evaluate(observation)
        ranked = [MoveEstimate(move, float(value), 1)
                  for move, value in zip(observation.legal_moves, values, strict=True)]
        return sorted(ranked, key=lambda e: -e.value)

    def choose(self, observation: Observation) -> int:
        moves = observation.legal_moves
        if len(moves) == 1:
            return moves[0]
        logits, values = self._network(observation).evaluate(observation)
        keys = [(float(logit), float(value)) for logit, value in zip(logits, values,
                                                                     strict=True)]
        best = max(keys)
        choices = [m for m, key in zip(moves, keys, strict=True) if key == best]
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)
