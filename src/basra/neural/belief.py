"""The learned belief: which unseen cards the other seat holds, read from its plays.

A seat that plays a card does not play the others it holds: when another card would have
taken more from the floor it played on, it likelier did not hold that card. The belief
learns how much that says from the master's own matches (:mod:`basra.train`, where the
hidden hands are known) and gives, per unseen card, the log-odds that the other seat
holds it; the master's search weighs each deal it samples by the odds of the hands it
deals (:func:`basra.fast.kernels.belief_weight`).

It is one small model shared by every card (so that it learns from every card what it
learns of one), over :data:`CARD_FEATURES` values per unseen card::

    offset  size  what
    0       4×8   per play of the other seat in this batch (the first four): present (1),
                  what the card would have taken on the floor that play met (its best
                  capture: the cards, their points, the bonus; /10 each), what the play
                  took (the same three), whether the card would have taken more
    32      13    the card's rank
    45      1     the card is the 7 of diamonds
    46      1     the other seat's cards in hand / the hand size
    47      1     (0, kept for the shape)

and ``logit = relu(features · w1 + b1) · w2 + b2`` (:data:`BELIEF_HIDDEN` units). It
plays two-player Basra (the family of the shipped ``basra`` network): where it does not
apply, :func:`belief_odds` is None and the search samples every deal alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from basra.captures import CaptureTable
from basra.observe import Observation, hidden_places
from basra.rules import Rules
from basra.state import capture_table

from .network import WeightsError, weights_name

__all__ = ["BELIEF_HIDDEN", "BELIEF_NAMES", "CARD_FEATURES", "Belief", "applies",
           "batch_plays", "belief_inputs", "belief_odds", "belief_path", "card_features",
           "load_belief"]

CARD_FEATURES = 48
"""The features of an unseen card (see the module)."""
BELIEF_HIDDEN = 32
"""The belief model's hidden units."""
BELIEF_NAMES = ("w1", "b1", "w2", "b2")
"""The arrays of a belief model, in its weights file under these names."""
SLOTS = 4
"""The other seat's plays of the batch read (a hand's four cards)."""
_SLOT = 8
SEVEN_OF_DIAMONDS = 6 * 4 + 2

Array = npt.NDArray[np.float32]


def applies(rules: Rules) -> bool:
    """Whether the shipped belief plays under ``rules``: two players, Basra's family."""
    return rules.players == 2 and weights_name(rules) == "basra"


def _take(rules: Rules, table: CaptureTable, floor: int, card: int,
          captured: int) -> tuple[float, float, float]:
    """The cards, points and bonus a play takes, /10 each."""
    if not captured:
        return 0.0, 0.0, 0.0
    taken = captured | 1 << card
    return (taken.bit_count() / 10, rules.card_points_of(taken) / 10,
            table.bonus_points(floor, card, captured) / 10)


def _worth(take: tuple[float, float, float]) -> float:
    cards, points, bonus = take
    return points * 10 + cards + bonus * 10


def batch_plays(view: Observation) -> list[tuple[int, int, int]]:
    """The other seats' plays of the batch being played: (card, floor before, taken)."""
    rules = view.rules
    per_batch = len(view.seats) * rules.hand_size
    first = (view.batch - 1) * per_batch
    floor = view.initial_floor
    plays: list[tuple[int, int, int]] = []
    for index, play in enumerate(view.plays[:first + per_batch]):
        if index >= first and play.seat != view.seat:
            plays.append((play.card, floor, play.captured))
        floor = floor ^ play.captured if play.captured else floor | 1 << play.card
    return plays[:SLOTS]


def card_features(view: Observation, unseen: list[int]) -> Array:
    """The features of each of the ``unseen`` cards in a two-player view (see the
    module), one row each."""
    rules = view.rules
    table = capture_table(rules)
    out = np.zeros((len(unseen), CARD_FEATURES), np.float32)
    for slot, (played, floor, captured) in enumerate(batch_plays(view)):
        took = _take(rules, table, floor, played, captured)
        start = slot * _SLOT
        for row, card in enumerate(unseen):
            best = max((_take(rules, table, floor, card, option)
                        for option in table.options(card, floor)),
                       key=_worth, default=(0.0, 0.0, 0.0))
            out[row, start:start + _SLOT] = (1.0, *best, *took,
                                             float(_worth(best) > _worth(took)))
    other = 1 - view.seat
    for row, card in enumerate(unseen):
        out[row, 32 + card // 4] = 1.0
        out[row, 45] = float(card == SEVEN_OF_DIAMONDS)
        out[row, 46] = view.hand_counts[other] / rules.hand_size
    return out


def belief_inputs(view: Observation) -> tuple[list[int], Array] | None:
    """The cards the seat of a two-player view has not seen and their features, or None
    when there is nothing to read: the other seat has not played in this batch, or no
    card is unseen."""
    if not batch_plays(view):
        return None
    unseen_mask = hidden_places(view).unseen
    unseen = [card for card in range(52) if unseen_mask >> card & 1]
    if not unseen:
        return None
    return unseen, card_features(view, unseen)


@dataclass(frozen=True)
class Belief:
    """A belief model's arrays (:data:`BELIEF_NAMES`)."""

    arrays: dict[str, Array]

    @classmethod
    def from_file(cls, path: Path) -> Belief:
        try:
            with np.load(path) as data:
                arrays = {name: np.asarray(data[name], np.float32) for name in BELIEF_NAMES}
        except (OSError, KeyError, ValueError) as error:
            raise WeightsError(f"cannot read the belief in {path}: {error}") from error
        shapes = {"w1": (CARD_FEATURES, BELIEF_HIDDEN), "b1": (BELIEF_HIDDEN,),
                  "w2": (BELIEF_HIDDEN,), "b2": ()}
        for name, shape in shapes.items():
            if arrays[name].shape != shape:
                raise WeightsError(f"belief array {name} has shape {arrays[name].shape}, "
                                   f"expected {shape}")
        return cls(arrays)

    def save(self, path: Path) -> None:
        arrays: dict[str, Any] = dict(self.arrays)
        np.savez(path, **arrays)

    def logits(self, features: Array) -> Array:
        """The log-odds (up to a constant per position) of each row's card being held."""
        a = self.arrays
        hidden = np.maximum(features @ a["w1"] + a["b1"], 0.0)
        return np.asarray(hidden @ a["w2"] + a["b2"], np.float32)

    def odds(self, view: Observation) -> npt.NDArray[np.float64] | None:
        """Per seat and card, the log-odds that the seat holds the card (the other seat's
        row; 0 elsewhere), or None before the other seat has played in this batch (its
        hand is then as likely as any)."""
        readable = belief_inputs(view)
        if readable is None:
            return None
        unseen, features = readable
        out = np.zeros((4, 52))
        out[1 - view.seat, unseen] = self.logits(features)
        return out


def belief_path() -> Path:
    """Where the shipped belief lies."""
    return Path(str(resources.files("basra.neural") / "weights" / "belief.npz"))


@cache
def load_belief() -> Belief:
    """The shipped belief, read once."""
    return Belief.from_file(belief_path())


def belief_odds(view: Observation) -> npt.NDArray[np.float64] | None:
    """The shipped belief's log-odds for the master's search in ``view`` (see
    :meth:`Belief.odds`), or None where it does not apply."""
    if not applies(view.rules):
        return None
    return load_belief().odds(view)
