"""The observation tensor: the fixed-shape array of what one seat may see, which the
environments (:mod:`basra.envs`) hand to learners and the learned evaluator
(:mod:`basra.neural.network`) reads.

The observation (``OBSERVATION_SIZE`` = 703 float32 values, each from 0 to its bound in
:data:`OBSERVATION_HIGH`) is relative to the observing seat: "seat +k" is the seat k
places after it, "side +k" the side k places after its own::

    offset  size  what (1 = yes)
    0       52    my hand
    52      52    the floor
    104     208   cards captured this deal by side +0, +1, +2, +3 (52 each)
    312     208   cards played this deal by seat +0, +1, +2, +3 (52 each)
    520     52    cards buried this deal (seen face up, now somewhere in the stock)
    572     52    the card chosen, during a capture choice
    624     52    floor cards taken so far, during a capture choice
    676     4     cards in the hand of seat +0..+3, divided by the hand size
    680     1     cards in the stock / 52
    681     4     basras of side +0..+3 this deal, / 10 (bound 6)
    685     4     match points of side +0..+3 before this deal, / target (bound 10)
    689     1     target / the rules' target (bound 10)
    690     1     majority prize carried over / 100 (bound 10)
    691     4     the last capturer is seat +0..+3 (all 0: nobody yet)
    695     4     the dealer is seat +0..+3
    699     4     seat +0..+3 plays this deal

Scores above a bound are clipped to it. Seats and sides that do not exist are all 0.

The observation (``PILE_OBSERVATION_SIZE`` = 717 float32 values, bounds in
:data:`PILE_OBSERVATION_HIGH`) shows the pile as its top card (the only one a card can
match), the cards in it and its size: a capture takes the whole pile, so the order below
the top card never matters again. A face-down card of the first pile that the seat has not
been shown (spec 9.9) is counted, never named::

    offset  size  what (1 = yes)
    0       52    my hand
    52      52    the pile's top card (all 0: the pile is empty)
    104     52    the pile's cards that I see (face-down ones I was shown among them)
    156     52    the pile's face-down cards that I was shown
    208     52    the stock's shown cards: its bottom card, Jacks sent under it
    260     208   cards captured this deal by side +0, +1, +2, +3 that I see (52 each)
    468     208   cards played this deal by seat +0, +1, +2, +3 (52 each)
    676     4     cards in the hand of seat +0..+3, divided by the hand size
    680     1     cards in the stock / 52
    681     1     cards in the pile / 52
    682     1     face-down cards in the pile hidden from me / 52
    683     4     cards captured this deal by side +0..+3 / 52 (hidden ones too)
    687     4     piştis of side +0..+3 this deal / 10 (bound 6; double ones too)
    691     4     double piştis (a Jack on a lone Jack) of side +0..+3 / 10 (bound 6)
    695     4     pişti points of side +0..+3 this deal / 100 (bound 10)
    699     4     match points of side +0..+3 before this deal / target (bound 10)
    703     1     target / the rules' target (bound 10)
    704     1     majority prize carried over / 100 (bound 10)
    705     4     the last capturer is seat +0..+3 (all 0: nobody yet)
    709     4     the dealer is seat +0..+3
    713     4     seat +0..+3 plays this deal
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from basra.observe import Observation
from basra.rules import PILE_FAMILIES, Rules

__all__ = [
    "OBSERVATION_HIGH",
    "OBSERVATION_SIZE",
    "PILE_OBSERVATION_HIGH",
    "PILE_OBSERVATION_SIZE",
    "card_bits",
    "encode_observation",
    "observation_high",
    "observation_size",
]

_PLANES = 13
_SCALARS = 27
OBSERVATION_SIZE = _PLANES * 52 + _SCALARS

_high = np.ones(OBSERVATION_SIZE, dtype=np.float32)
_high[681:685] = 6.0
_high[685:691] = 10.0
OBSERVATION_HIGH: npt.NDArray[np.float32] = _high
"""The upper bound of each observation value (the lower bound is 0)."""

_PILE_PLANES = 13
_PILE_SCALARS = 41
PILE_OBSERVATION_SIZE = _PILE_PLANES * 52 + _PILE_SCALARS

_pile_high = np.ones(PILE_OBSERVATION_SIZE, dtype=np.float32)
_pile_high[687:695] = 6.0
_pile_high[695:705] = 10.0
PILE_OBSERVATION_HIGH: npt.NDArray[np.float32] = _pile_high
"""The upper bound of each value of a pile game's observation (the lower bound is 0)."""


def observation_size(rules: Rules) -> int:
    """The size of the observation tensor: 717 in a pile game, else 703."""
    return PILE_OBSERVATION_SIZE if rules.family in PILE_FAMILIES else OBSERVATION_SIZE


def observation_high(rules: Rules) -> npt.NDArray[np.float32]:
    """The upper bound of each observation value under ``rules``."""
    return PILE_OBSERVATION_HIGH if rules.family in PILE_FAMILIES else OBSERVATION_HIGH


def card_bits(mask: int) -> npt.NDArray[np.float32]:
    """A card set as 52 values, 1 for each card in it."""
    return np.unpackbits(
        np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8), bitorder="little"
    )[:52].astype(np.float32)


def _planes(out: npt.NDArray[np.float32], start: int, masks: Sequence[int],
            first: int) -> None:
    """``masks`` as 52-card planes from ``start``, the one of ``first`` (this seat or
    side) first, then on in turn."""
    count = len(masks)
    for k in range(count):
        out[start + 52 * k:start + 52 * (k + 1)] = card_bits(masks[(first + k) % count])


def _played(view: Observation) -> list[int]:
    """The cards each seat has played this deal (a mask per seat)."""
    played = [0] * view.rules.players
    for made in view.plays:
        played[made.seat] |= 1 << made.card
    return played


def encode_observation(view: Observation, card: int = -1,
                       taken: int = 0) -> npt.NDArray[np.float32]:
    """The observation tensor of a seat's view (see the module's tables); ``card`` and
    ``taken`` describe a capture choice in progress."""
    rules = view.rules
    if rules.family in PILE_FAMILIES:
        return _encode_pile(view)
    players, sides = rules.players, rules.sides
    seat, side = view.seat, view.side
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    out[0:52] = card_bits(view.hand)
    out[52:104] = card_bits(view.floor)
    _planes(out, 104, view.piles, side)
    _planes(out, 312, _played(view), seat)
    out[520:572] = card_bits(view.buried)
    if card >= 0:
        out[572 + card] = 1.0
        out[624:676] = card_bits(taken)
    for k in range(players):
        other = (seat + k) % players
        out[676 + k] = view.hand_counts[other] / rules.hand_size
        if other == view.last_capturer:
            out[691 + k] = 1.0
        if other == view.dealer:
            out[695 + k] = 1.0
        if view.turns and other in view.seats:
            out[699 + k] = 1.0
    out[680] = view.stock_count / 52
    for k in range(sides):
        other = (side + k) % sides
        out[681 + k] = view.basras[other] / 10
        out[685 + k] = view.totals[other] / view.target
    out[689] = view.target / rules.target
    out[690] = view.carry / 100
    np.minimum(out, OBSERVATION_HIGH, out=out)
    return out


def _encode_pile(view: Observation) -> npt.NDArray[np.float32]:
    """The observation tensor of a pile game's view (the module's second table)."""
    rules = view.rules
    players, sides = rules.players, rules.sides
    seat, side = view.seat, view.side
    out = np.zeros(PILE_OBSERVATION_SIZE, dtype=np.float32)
    out[0:52] = card_bits(view.hand)
    if view.pile and view.pile[-1] >= 0:
        out[52 + view.pile[-1]] = 1.0
    out[104:156] = card_bits(view.floor)
    out[156:208] = card_bits(view.down_seen & view.floor)
    out[208:260] = card_bits(view.stock_shown)
    _planes(out, 260, view.piles, side)
    _planes(out, 468, _played(view), seat)
    for k in range(players):
        other = (seat + k) % players
        out[676 + k] = view.hand_counts[other] / rules.hand_size
        if other == view.last_capturer:
            out[705 + k] = 1.0
        if other == view.dealer:
            out[709 + k] = 1.0
        if view.turns and other in view.seats:
            out[713 + k] = 1.0
    out[680] = view.stock_count / 52
    out[681] = len(view.pile) / 52
    out[682] = view.down_count / 52
    doubles = view.jack_pistis or (0,) * sides
    for k in range(sides):
        other = (side + k) % sides
        out[683 + k] = view.pile_counts[other] / 52
        out[687 + k] = view.basras[other] / 10
        out[691 + k] = doubles[other] / 10
        points = ((view.basras[other] - doubles[other]) * rules.pisti_points
                  + doubles[other] * rules.jack_pisti_points)
        out[695 + k] = points / 100
        out[699 + k] = view.totals[other] / view.target
    out[703] = view.target / rules.target
    out[704] = view.carry / 100
    np.minimum(out, PILE_OBSERVATION_HIGH, out=out)
    return out
