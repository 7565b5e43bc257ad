"""The expert: a fast hand-crafted player that counts cards.

For each legal move it weighs what the move takes now against what it hands the next
player. The next player's hand is a uniformly random set of the cards this seat has not
seen (other hands and the stock: it counts every card played), so the expected value of
their best reply is exact over that distribution: sort the unseen cards by the best reply
each allows, and weight the i-th by the chance that it is the best card they hold,
``C(u - i, h - 1) / C(u, h)``. That one term is what keeps it from leaving a lone card
the next player can take as a basra, or a floor a Jack or the 7♦ would sweep.

On top of it: Jacks (and a sweeping 7♦) are kept for rich floors, the majority race and
Pasur's clubs race are weighed by how open they still are, and in partnerships gains are
its side's. Pasur's surs cancel between sides, which leaves a sur worth its points in the
margin between them either way.

The pile games (Pişti, Xeri) have their own weighing, in :mod:`basra.bots.pile_expert`:
what the pile is worth, which ranks are gone, when to hold a Jack.
"""

from __future__ import annotations

import random
from math import comb

from basra.captures import JACK_KIND, SEVEN_SMALL, SEVEN_SWEEP
from basra.observe import Observation
from basra.rules import PILE_FAMILIES
from basra.state import CLUBS, capture_table

from .pile_expert import next_reply, pile_move_values

__all__ = ["ExpertBot", "expected_best_reply"]

SWEEPER_KEEP = 8.0
"""Points a Jack (or sweeping 7♦) is worth kept in hand for a richer floor while the
stock lasts (docs/strength.md says what other values measured)."""


def card_weight(observation: Observation) -> float:
    """Value of one captured card in the majority race, from how open the race is."""
    rules = observation.rules
    prize = rules.majority_points + observation.carry
    piles = observation.pile_counts
    mine = piles[observation.side]
    best_other = max((c for s, c in enumerate(piles) if s != observation.side), default=0)
    remaining = 52 - sum(piles)
    if mine - best_other > remaining or best_other - mine > remaining:
        return 0.05  # decided either way
    # Spread the prize over the cards still in play; the closer the race, the more each counts.
    return max(0.05, min(1.5, 2.0 * prize / max(remaining, 8) / max(1, rules.sides - 1)))


def clubs_weight(observation: Observation) -> float:
    """Value of one captured club in the race for the clubs prize (Pasur's 7 points for
    strictly the most clubs): nothing once the race is decided, more the closer it is."""
    rules = observation.rules
    if not rules.clubs_points:
        return 0.0
    counts = [(pile & CLUBS).bit_count() for pile in observation.piles]
    mine = counts[observation.side]
    best_other = max((c for s, c in enumerate(counts) if s != observation.side), default=0)
    remaining = 13 - sum(counts)
    if mine - best_other > remaining or best_other - mine > remaining:
        return 0.0
    return min(3.0, 2.0 * rules.clubs_points / max(remaining, 4))


def _value_of_take(observation: Observation, floor: int, card: int, captured: int,
                   weight: float, last_play: bool, clubs: float = 0.0) -> float:
    rules = observation.rules
    if not captured:
        return 0.0
    table = capture_table(rules)
    basra = table.is_basra(floor, card, captured) and (rules.last_play_basra or not last_play)
    if basra and not rules.last_batch_basra and not observation.stock_count:
        basra = False
    taken = captured | 1 << card
    # Under basra_cancel a sur either scores or cancels one of the other side's: in the
    # margin between sides it is worth the same basra_points.
    return (rules.card_points_of(taken) + basra * rules.basra_points
            + taken.bit_count() * weight + (taken & CLUBS).bit_count() * clubs)


def best_reply_value(observation: Observation, floor: int, card: int, weight: float,
                     clubs: float = 0.0) -> float:
    """The most a player gets this turn by playing ``card`` on ``floor``."""
    table = capture_table(observation.rules)
    best = 0.0
    for captured in table.options(card, floor):
        value = _value_of_take(observation, floor, card, captured, weight, last_play=False,
                               clubs=clubs)
        best = max(best, value)
    return best


def expected_best_reply(values: list[float], hand_size: int) -> float:
    """Expected maximum of ``values`` over a uniformly random hand of ``hand_size`` of them.

    >>> expected_best_reply([10.0, 0.0, 0.0, 0.0], 1)
    2.5
    >>> expected_best_reply([10.0, 0.0, 0.0, 0.0], 4)
    10.0
    """
    unseen = len(values)
    if unseen == 0 or hand_size <= 0:
        return 0.0
    hand_size = min(hand_size, unseen)
    total = comb(unseen, hand_size)
    expected = 0.0
    for i, value in enumerate(sorted(values, reverse=True), 1):
        if value <= 0:
            break
        expected += value * comb(unseen - i, hand_size - 1) / total
    return expected


class ExpertBot:
    """Counts cards and weighs each move against the next player's best reply."""

    name = "expert"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def move_values(self, observation: Observation) -> list[tuple[int, float]]:
        """Every legal move with its estimated worth, in the order of the legal moves
        (the pile games' worth is :func:`basra.bots.pile_expert.pile_move_values`)."""
        rules = observation.rules
        if rules.family in PILE_FAMILIES:
            return pile_move_values(observation)
        table = capture_table(rules)
        weight = card_weight(observation)
        clubs = clubs_weight(observation)
        floor = observation.floor
        unseen = [c for c in range(52) if observation.unseen >> c & 1]
        following, reply_hand, _ = next_reply(observation)
        last_play = observation.stock_count == 0 and sum(observation.hand_counts) == 1
        same_side = rules.side_of[following] == observation.side
        late = observation.stock_count == 0
        values: list[tuple[int, float]] = []
        for move in observation.legal_moves:
            card, captured = move & 63, move >> 6
            gain = _value_of_take(observation, floor, card, captured, weight, last_play, clubs)
            after = floor ^ captured if captured else floor | 1 << card
            if not captured:
                gain -= rules.points_of[card] * 0.5  # a trailed point card may be lost
            if table.kinds[card] in (JACK_KIND, SEVEN_SWEEP, SEVEN_SMALL) and not late:
                gain -= SWEEPER_KEEP
            risk = 0.0
            if reply_hand and after:
                replies = [best_reply_value(observation, after, c, weight, clubs)
                           for c in unseen]
                risk = expected_best_reply(replies, reply_hand)
            values.append((move, gain + risk if same_side else gain - risk))
        return values

    def best_moves(self, observation: Observation) -> list[int]:
        """The moves it values best (it plays one of them at random)."""
        values = self.move_values(observation)
        best = max(value for _, value in values)
        return [move for move, value in values if value >= best - 1e-9]

    def choose(self, observation: Observation) -> int:
        choices = self.best_moves(observation)
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)
