"""The simple levels: a uniformly random player and a one-move greedy player."""

from __future__ import annotations

import random

from basra.captures import CaptureTable
from basra.observe import Observation
from basra.state import capture_table

__all__ = ["GreedyBot", "RandomBot", "immediate_value", "move_value"]


def move_value(table: CaptureTable, floor: int, move: int, last_play: bool = False,
               pile_size: int | None = None) -> float:
    """What a move on ``floor`` is worth to its side this turn: points, basras, then cards
    (0.5 each). A trail gives its card away: minus the card's points, and lower cards a
    little more (they are easier for others to take). ``last_play``: a play whose basra
    the rules may not count (the last play, or any of the last batch's). ``pile_size``:
    in a pile game, the cards in the pile (face-down ones too, which ``floor`` may not
    show); only a pile of one can make a pişti."""
    rules = table.rules
    card, captured = move & 63, move >> 6
    if not captured:
        return -rules.points_of[card] - (card >> 2) / 100
    taken = captured | 1 << card
    if table.pile:
        allowed = rules.last_play_pisti or not last_play
        bonus = table.bonus_points(floor, card, captured) if pile_size in (None, 1) else 0
        return rules.card_points_of(taken) + allowed * bonus + taken.bit_count() * 0.5
    basra = table.is_basra(floor, card, captured) and (
        (rules.last_play_basra and rules.last_batch_basra) or not last_play)
    return rules.card_points_of(taken) + basra * rules.basra_points + taken.bit_count() * 0.5


def immediate_value(observation: Observation, move: int) -> float:
    """:func:`move_value` of a move in an observed position."""
    rules = observation.rules
    last_play = observation.stock_count == 0 and (
        sum(observation.hand_counts) == 1 or not rules.last_batch_basra)
    pile_size = len(observation.pile) if observation.pile else None
    return move_value(capture_table(rules), observation.floor, move, last_play, pile_size)


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

    def best_moves(self, observation: Observation) -> list[int]:
        """The moves worth the most this turn (it plays one of them at random)."""
        moves = observation.legal_moves
        values = [immediate_value(observation, move) for move in moves]
        best = max(values)
        return [m for m, v in zip(moves, values, strict=True) if v == best]

    def choose(self, observation: Observation) -> int:
        return self.rng.choice(self.best_moves(observation))


