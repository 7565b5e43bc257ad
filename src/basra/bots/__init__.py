"""Computer players. A bot sees only an :class:`~basra.observe.Observation` and returns
one of its legal moves.

>>> from basra.match import Match
>>> from basra.observe import observe
>>> from basra.rules import make_rules
>>> match = Match(make_rules("egyptian"), seed=2)
>>> bot = make_bot("greedy")
>>> seat = match.state.to_play
>>> bot.choose(observe(match, seat)) in match.legal_moves()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from basra.observe import Observation
from basra.state import capture_table

__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "UnknownBotError", "make_bot"]


class UnknownBotError(ValueError):
    """A bot name that is not known."""


class Bot(Protocol):
    """A computer player."""

    name: str

    def choose(self, observation: Observation) -> int:
        """One of ``observation.legal_moves``."""
        ...


class RandomBot:
    """Plays a uniformly random legal move."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Observation) -> int:
        moves = observation.legal_moves
        return moves[int(self.rng.random() * len(moves))]


class GreedyBot:
    """Plays the move worth the most this turn: points, basras, then cards.

    A trail gives its card away, so among trails it prefers the card worth the fewest
    points and the lowest, ties broken at random.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def value(self, observation: Observation, move: int) -> float:
        """Immediate value of a move for this seat's side."""
        rules = observation.rules
        card, captured = move & 63, move >> 6
        if not captured:
            return -rules.points_of[card] - (card >> 2) / 100
        table = capture_table(rules)
        last_play = observation.stock_count == 0 and sum(observation.hand_counts) == 1
        basra = table.is_basra(observation.floor, card, captured) and (
            rules.last_play_basra or not last_play
        )
        taken = captured | 1 << card
        return (rules.card_points_of(taken) + basra * rules.basra_points
                + taken.bit_count() * 0.5)

    def choose(self, observation: Observation) -> int:
        moves = observation.legal_moves
        values = [self.value(observation, move) for move in moves]
        best = max(values)
        return self.rng.choice([m for m, v in zip(moves, values, strict=True) if v == best])


BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
}
"""Bot factories by name; each takes a seed."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by name (``random``, ``greedy``)."""
    factory = BOTS.get(name.strip().lower())
    if factory is None:
        raise UnknownBotError(f"unknown bot {name!r}; the bots are: {', '.join(BOTS)}")
    return factory(seed)
