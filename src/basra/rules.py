"""Rule options as one frozen dataclass, and the named presets of every variant.

A :class:`Rules` value is complete: it holds every option of the rules (spec sections 2 to
7), so a record or a table carries its rules alone. Presets are instances found by name;
house rules are overrides applied with :func:`make_rules` (or ``dataclasses.replace``),
checked on construction.

>>> rules = make_rules("egyptian", players=4)
>>> rules.partnership, rules.hand_size, rules.target
(True, 4, 101)
>>> make_rules("egyptian", overrides={"basra_points": "5"}).basra_points
5
>>> make_rules("six-card", players=3)
Traceback (most recent call last):
...
basra.rules.RulesError: variant 'six-card' is played by 2 or 4 players, not 3

Every numeric option has a range (:data:`OPTION_RANGES`), wide enough for any house rule
and narrow enough that a match ends and every score stays a small number:

>>> make_rules("egyptian", overrides={"target": 10**300})
Traceback (most recent call last):
...
basra.rules.RulesError: option target must be 1 to 10000, not 10**300
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .cards import (
    CARD_NAMES,
    RANK_NAMES,
    InvalidCardError,
    parse_card,
    rank_mask,
)

__all__ = [
    "BASRA_RULES",
    "BOTTOM_CARD_RULES",
    "CENTRE_JACK_RULES",
    "FAMILIES",
    "JACK_BASRA_RULES",
    "JACK_PISTI_RULES",
    "KITTY_VIEW_RULES",
    "LEFTOVER_RULES",
    "MAJORITY_TIE_RULES",
    "OPTION_GROUPS",
    "OPTION_RANGES",
    "PILE_FAMILIES",
    "PILE_OPTIONS",
    "PILE_REDEAL_RULES",
    "PILE_UNUSED_OPTIONS",
    "PRESETS",
    "SEVEN_DIAMONDS_RULES",
    "TARGET_RAISE_RULES",
    "TIE_DEAL_RULES",
    "TIE_RULES",
    "Preset",
    "Rules",
    "RulesError",
    "make_rules",
    "option_names",
    "option_specs",
    "preset",
]

FAMILIES = ("basra", "pasur", "pisti")
PILE_FAMILIES = ("pisti",)
"""The families played on one pile, bottom to top, where a capture takes the whole pile
(spec sections 9 to 11). One family value serves Pişti and Xeri: they share every capture,
bonus and scoring rule and differ only in option values (the deal, the faces of the pile,
the card points, the target), so a second value would only repeat every test of the first."""
SEVEN_DIAMONDS_RULES = ("plain", "sweep", "sweep_small", "sweep_any")
BASRA_RULES = ("clear", "lone")
JACK_BASRA_RULES = ("never", "lone", "lone_or_pair")
LEFTOVER_RULES = ("last_capturer", "split")
MAJORITY_TIE_RULES = ("none", "carry", "double")
TIE_RULES = ("highest", "raise")
TARGET_RAISE_RULES = ("above", "step", "lead")
TIE_DEAL_RULES = ("all", "tied")
JACK_PISTI_RULES = ("never", "lone")
CENTRE_JACK_RULES = ("turn_next", "to_stock")
BOTTOM_CARD_RULES = ("shown", "hidden")
KITTY_VIEW_RULES = ("side", "capturer", "first_player")
PILE_REDEAL_RULES = ("none", "pair_or_jack", "top_pair_or_jack")

_CHOICES = {
    "family": FAMILIES,
    "seven_diamonds": SEVEN_DIAMONDS_RULES,
    "basra": BASRA_RULES,
    "jack_basra": JACK_BASRA_RULES,
    "leftover": LEFTOVER_RULES,
    "majority_tie": MAJORITY_TIE_RULES,
    "tie_rule": TIE_RULES,
    "target_raise": TARGET_RAISE_RULES,
    "tie_deal": TIE_DEAL_RULES,
    "jack_pisti": JACK_PISTI_RULES,
    "centre_jack": CENTRE_JACK_RULES,
    "bottom_card": BOTTOM_CARD_RULES,
    "kitty_view": KITTY_VIEW_RULES,
    "pile_redeal": PILE_REDEAL_RULES,
}

_STANDARD_POINTS = (("J", 1), ("A", 1), ("2C", 2), ("10D", 3))

OPTION_RANGES: dict[str, tuple[int, int]] = {
    "players": (2, 4),
    "hand_size": (1, 26),
    "floor_size": (0, 50),
    "basra_points": (0, 1000),
    "card_points": (0, 100),
    "majority_points": (0, 1000),
    "majority_min": (0, 52),
    "clubs_points": (0, 1000),
    "clubs_min": (0, 13),
    "target": (1, 10000),
    "target_step": (0, 1000),
    "pisti_points": (0, 1000),
    "jack_pisti_points": (0, 1000),
    "pile_down": (0, 49),
}
"""The smallest and largest value of every numeric option, both allowed (``card_points``:
of each card's points). The deck narrows ``players``, ``hand_size`` and ``floor_size``
further. A deal scores at most 52 x 100 card points, 52 basras and a majority prize, so
totals stay far below the 2**53 that every JSON reader holds exactly."""


class RulesError(ValueError):
    """Rule options that are unknown, malformed or impossible together."""


def _shown(value: object) -> str:
    """A value as an error message quotes it: short, whatever its size.

    >>> _shown(10**300), _shown(-25), _shown(int("9" * 4000))
    ('10**300', '-25', '9999…(4000 digits)')
    >>> _shown("9" * 4002)
    "'99999999…(4002 characters)'"
    """
    if isinstance(value, int) and not isinstance(value, bool):
        sign = "-" if value < 0 else ""
        size = abs(value)
        if size < 10**15:
            return str(value)
        # Counted without str(), which refuses ints of more than 4300 digits.
        digits = int(size.bit_length() * math.log10(2))
        while size >= 10**digits:
            digits += 1
        while size < 10 ** (digits - 1):
            digits -= 1
        if size == 10 ** (digits - 1):
            return f"{sign}10**{digits - 1}"
        return f"{sign}{size // 10 ** (digits - 4)}…({digits} digits)"
    if isinstance(value, str):
        if len(value) <= 40:
            return repr(value)
        start = repr(value[:8])
        return f"{start[:-1]}…({len(value)} characters){start[-1]}"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # ints too long for text, nesting too deep
        return f"a {type(value).__name__}"
    return text if len(text) <= 60 else f"{text[:40]}…({len(text)} characters)"


def _out_of_range(name: str, value: object) -> RulesError:
    low, high = OPTION_RANGES[name.partition("[")[0]]
    return RulesError(f"option {name} must be {low} to {high}, not {_shown(value)}")


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_text(value: object) -> str:
    """A list entry or key as text to parse (``7`` reads as ``"7"``)."""
    return value if isinstance(value, str) else _shown(value)


def _card_spec(text: str) -> str:
    """Canonical form of a card spec: a rank (``J``) or a card (``10D``)."""
    word = text.strip().upper()
    if word == "T":
        word = "10"
    if word == "1":
        word = "A"
    if word in RANK_NAMES:
        return word
    try:
        return CARD_NAMES[parse_card(word)]
    except InvalidCardError:
        raise RulesError(
            f"bad card spec {_shown(text)}: expected a rank (J, A, ...) or a card (2C, 10D, ...)"
        ) from None


def spec_mask(spec: str) -> int:
    """The cards a card spec names: a whole rank, or one card."""
    if spec in RANK_NAMES:
        return rank_mask(RANK_NAMES.index(spec))
    return 1 << CARD_NAMES.index(spec)


@dataclass(frozen=True)
class Rules:
    """Every rule option of a Basra match (see the spec, sections 2 to 7).

    The defaults are the two-player Egyptian game.
    """

    family: str = "basra"
    """The rule family: basra (matches and sums to the card's value, basras) or pasur (sums
    to 11, King and Queen pairs, surs, the clubs prize). It decides what a card captures."""
    players: int = 2
    """Number of seats, 2 to 4."""
    partnership: bool = False
    """Seats 0 & 2 and 1 & 3 score together (4 players only)."""
    hand_size: int = 4
    """Cards dealt to each seat per batch, 1 to 26."""
    floor_size: int = 4
    """Cards dealt face up to the floor at the start of a deal, 0 to 50."""
    bury: tuple[str, ...] = ("J", "7D")
    """Cards (ranks or single cards) that may not stay on the initial floor."""
    floor_redeal: bool = False
    """Pasur's shuffle again: an initial floor with more than one Jack, or more than two
    Queens or Kings, is gathered and the whole deck dealt again."""
    sums: bool = True
    """Numerals capture by summing as well as by matching."""
    optional_capture: bool = False
    """A card that could capture may be trailed instead."""
    seven_diamonds: str = "sweep_small"
    """What the 7♦ does: plain, sweep, sweep_small or sweep_any."""
    basra: str = "clear"
    """Which captures are basras: clear (the floor is cleared) or lone (a lone card by rank)."""
    jack_basra: str = "lone"
    """When a Jack scores a basra: never, lone (floor of one) or lone_or_pair."""
    basra_points: int = 10
    """Points per basra (a sur in Pasur), 0 to 1000."""
    basra_cancel: bool = False
    """Basras of different sides cancel one for one (Pasur's surs): each side scores only
    for the basras it made beyond the fewest made by any side in the deal."""
    last_play_basra: bool = True
    """Whether the last play of a deal can score a basra."""
    last_batch_basra: bool = True
    """Whether plays of the deal's last batch (after the stock is dealt out) can score a
    basra; many Pasur players allow no sur in the last hand."""
    leftover: str = "last_capturer"
    """Who gets the floor left at the end: last_capturer, or split (one card at a time,
    oldest laid first, to each side in turn from the side after the last capturer's)."""
    card_points: tuple[tuple[str, int], ...] = _STANDARD_POINTS
    """Points per captured card: (rank or card, points 0 to 100); a card entry overrides its
    rank."""
    majority_points: int = 30
    """Prize for the side that captured strictly more cards than every other side, 0 to
    1000."""
    majority_min: int = 0
    """The fewest cards that can win the majority prize, besides strictly the most, 0 to
    52."""
    majority_tie: str = "none"
    """On a tie for most cards: none (nobody scores), carry (the prize is added to the next
    deal's) or double (the next deal's prize is twice this deal's)."""
    clubs_points: int = 0
    """Prize for the side that captured strictly the most clubs (Pasur: 7), 0 to 1000."""
    clubs_min: int = 0
    """The fewest clubs that can win the clubs prize, besides strictly the most, 0 to 13
    (with two sides every deal has one side with 7 or more)."""
    target: int = 101
    """Score that ends the match, 1 to 10000."""
    tie_rule: str = "highest"
    """highest (the highest total at or over the target wins) or raise (the target rises)."""
    target_step: int = 10
    """How far the target rises under tie_rule = raise, 0 to 1000."""
    target_raise: str = "above"
    """Under tie_rule = raise: the target rises in steps of target_step to the first step
    above every side's total (above), by one step only (step), or to the highest total
    plus target_step (lead)."""
    tie_deal: str = "all"
    """Under tie_rule = highest, who plays the extra deal after the highest totals tie at
    the target: all, or tied (only the tied sides; the others sit out)."""
    pisti_points: int = 10
    """Pile family: points per pişti (xeri), a lone pile card captured by a card of its
    rank, 0 to 1000."""
    jack_pisti_points: int = 20
    """Pile family: points for a Jack that captures a lone Jack (a double pişti), 0 to
    1000."""
    jack_pisti: str = "never"
    """Pile family: whether a Jack that captures a lone card of another rank is a pişti:
    never, or lone (worth pisti_points)."""
    last_play_pisti: bool = False
    """Pile family: whether the last card played in a deal can score a pişti."""
    pile_down: int = 3
    """Pile family: how many of the first pile's cards are dealt face down, below its
    face-up top card (3 in Pişti, 0 in Xeri)."""
    centre_jack: str = "turn_next"
    """Pile family: a Jack on top of the first pile goes to the bottom of the pile and the
    next card is turned up (turn_next), or goes face up under the stock to the dealer and
    the stock's top card is turned up on the pile (to_stock)."""
    bottom_card: str = "shown"
    """Pile family: the stock's last card, never a Jack, is shown to every seat (shown) and
    reaches the dealer in the last batch, or nothing is exposed (hidden)."""
    kitty_view: str = "side"
    """Pile family: who sees the face-down pile cards once they are captured: the
    capturing side, only the capturer, or (first_player) the capturing side and the first
    player from the start of the deal."""
    pile_redeal: str = "none"
    """Pile family: the first pile is dealt again from a shuffled stock while two of its
    cards share a rank or its top card is a Jack (pair_or_jack), while its top two cards
    share a rank or its top card is a Jack (top_pair_or_jack), or never (none)."""

    def __post_init__(self) -> None:
        def need(ok: bool, message: str) -> None:
            if not ok:
                raise RulesError(message)

        for name in ("players", "hand_size", "floor_size", "basra_points", "majority_points",
                     "majority_min", "clubs_points", "clubs_min", "target", "target_step",
                     "pisti_points", "jack_pisti_points", "pile_down"):
            value = getattr(self, name)
            need(_is_whole(value), f"option {name} must be a whole number, not {_shown(value)}")
            low, high = OPTION_RANGES[name]
            if not low <= value <= high:
                raise _out_of_range(name, value)
        for name in ("partnership", "sums", "optional_capture", "last_play_basra",
                     "last_batch_basra", "floor_redeal", "basra_cancel", "last_play_pisti"):
            value = getattr(self, name)
            need(isinstance(value, bool),
                 f"option {name} must be true or false, not {_shown(value)}")
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            need(isinstance(value, str) and value in allowed,
                 f"option {name} must be one of {', '.join(allowed)}, not {_shown(value)}")
        need(not self.partnership or self.players == 4,
             f"partnerships need 4 players, not {self.players}")
        if self.family == "pasur":
            for name, wanted in (("seven_diamonds", "plain"), ("basra", "clear"),
                                 ("sums", True)):
                need(getattr(self, name) == wanted,
                     f"option {name} belongs to the basra family: pasur needs "
                     f"{name}={str(wanted).lower()}, not {_shown(getattr(self, name))}")
        if self.family in PILE_FAMILIES:
            for name, (required, hint) in _PILE_REFUSED.items():
                value = getattr(self, name)
                need(value == required,
                     f"option {name} is not used by the pile game {self.family}{hint}: "
                     f"leave it at {_option_value(required)}, not {_option_value(value)}")
            need(self.pile_down < max(self.floor_size, 1),
                 f"option pile_down must leave the top card of the {self.floor_size}-card "
                 f"pile face up: at most {max(self.floor_size - 1, 0)}, not {self.pile_down}")
        else:
            for name in PILE_OPTIONS:
                value, required = getattr(self, name), _PILE_DEFAULTS[name]
                need(value == required,
                     f"option {name} belongs to the pile family pisti: family {self.family} "
                     f"needs {_option_value(required)}, not {_option_value(value)}")
        batch = self.players * self.hand_size
        stock = 52 - self.floor_size
        need(
            stock >= batch and stock % batch == 0,
            f"hand_size {self.hand_size} with {self.players} players does not divide the "
            f"{stock} cards after the floor into whole batches ({stock} / {batch} is not whole)",
        )
        if self.tie_deal == "tied" and not self.partnership:
            for fewer in range(2, self.players):
                need(stock % (fewer * self.hand_size) == 0,
                     f"tie_deal=tied needs hands that also deal out to {fewer} players: "
                     f"{stock} / {fewer * self.hand_size} is not whole")
        need(isinstance(self.bury, tuple) and all(isinstance(s, str) for s in self.bury),
             f"option bury must be a tuple of card specs, not {_shown(self.bury)}")
        for spec in self.bury:
            need(_card_spec(spec) == spec, f"bury spec {_shown(spec)} is not canonical")
        need(
            not self.bury_mask or stock - batch > self.bury_mask.bit_count(),
            f"burying {', '.join(self.bury)} needs more stock than {stock - batch} cards "
            "left after the first batch",
        )
        need(isinstance(self.card_points, tuple), "option card_points must be a tuple of pairs")
        for pair in self.card_points:
            need(isinstance(pair, tuple) and len(pair) == 2,
                 f"card_points entry {_shown(pair)} is not a (card, points) pair")
            spec, points = pair
            need(isinstance(spec, str) and _card_spec(spec) == spec,
                 f"card_points spec {_shown(spec)} is not canonical")
            need(_is_whole(points),
                 f"option card_points[{spec}] must be a whole number, not {_shown(points)}")
            low, high = OPTION_RANGES["card_points"]
            if not low <= points <= high:
                raise _out_of_range(f"card_points[{spec}]", points)
        specs = [spec for spec, _ in self.card_points]
        need(len(set(specs)) == len(specs), "card_points names a card twice")
        if self.family in PILE_FAMILIES and self.bottom_card == "shown":
            need(stock > batch,
                 "bottom_card=shown needs cards left in the stock after the pile and the "
                 f"first batch, but {self.players} hands of {self.hand_size} take all {stock}")
        bonus = ("pisti_points", "jack_pisti_points") if self.family in PILE_FAMILIES else (
            "basra_points",)
        need(
            any(getattr(self, name) > 0 for name in bonus) or self.majority_points > 0
            or any(points > 0 for _, points in self.card_points),
            f"no side could ever score, so no match would end: give {', '.join(bonus)}, "
            "majority_points or a card_points entry a value above 0",
        )

    # Derived tables (computed once per rules value).

    @cached_property
    def sides(self) -> int:
        """Number of sides that score: 2 in partnership games, else one per seat."""
        return 2 if self.partnership else self.players

    @cached_property
    def side_of(self) -> tuple[int, ...]:
        """The side of each seat."""
        return tuple(seat % self.sides for seat in range(self.players))

    @cached_property
    def bury_mask(self) -> int:
        """The cards that may not stay on the initial floor."""
        mask = 0
        for spec in self.bury:
            mask |= spec_mask(spec)
        return mask

    @cached_property
    def points_of(self) -> tuple[int, ...]:
        """Points of each card, indexed by card."""
        table = [0] * 52
        # Rank entries first, then single cards, so a card entry overrides its rank.
        ranks_first = sorted(self.card_points, key=lambda pair: pair[0] not in RANK_NAMES)
        for spec, points in ranks_first:
            mask = spec_mask(spec)
            for card in range(52):
                if mask >> card & 1:
                    table[card] = points
        return tuple(table)

    @cached_property
    def point_masks(self) -> tuple[tuple[int, int], ...]:
        """(points, mask of cards worth that) for every non-zero point value."""
        by_points: dict[int, int] = {}
        for card, points in enumerate(self.points_of):
            if points:
                by_points[points] = by_points.get(points, 0) | 1 << card
        return tuple(sorted(by_points.items()))

    def card_points_of(self, mask: int) -> int:
        """Total card points of a set of cards."""
        return sum(points * (mask & cards).bit_count() for points, cards in self.point_masks)

    def to_dict(self) -> dict[str, Any]:
        """Every option as JSON-ready values (the record's ``rules`` object)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "bury":
                value = list(value)
            elif f.name == "card_points":
                value = dict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> Rules:
        """Rules from a mapping of JSON values (as :meth:`to_dict` writes).

        Options left out take their default; an unknown option is an error.
        """
        return _with_values(cls(), options)


def _option_value(value: object) -> str:
    """An option value as the options are written: ``true``, ``none``, ``plain``, ``3``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        return ",".join(value) or "none"
    return _shown(value) if isinstance(value, int | tuple) else str(value)


PILE_OPTIONS = ("pisti_points", "jack_pisti_points", "jack_pisti", "last_play_pisti",
                "pile_down", "centre_jack", "bottom_card", "kitty_view", "pile_redeal")
"""The options of the pile family alone; other families keep their defaults."""

_PILE_DEFAULTS = {name: getattr(Rules, name) for name in PILE_OPTIONS}

_PILE_REFUSED: dict[str, tuple[object, str]] = {
    "sums": (False, ""),
    "seven_diamonds": ("plain", ""),
    "basra": ("clear", " (its bonus is the pişti)"),
    "jack_basra": ("never", " (see jack_pisti)"),
    "optional_capture": (False, " (a card that can capture always does)"),
    "basra_cancel": (False, ""),
    "bury": ((), " (see centre_jack and pile_redeal)"),
    "floor_redeal": (False, " (see pile_redeal)"),
    "last_batch_basra": (True, ""),
    "last_play_basra": (True, " (see last_play_pisti)"),
    "basra_points": (0, " (see pisti_points)"),
    "clubs_points": (0, ""),
    "clubs_min": (0, ""),
    "leftover": ("last_capturer", " (the last capturer takes the pile)"),
}
"""The options a pile game has no use for (spec 11.5), with the one value each may hold
there and a pointer to the pile option that takes its place."""

PILE_UNUSED_OPTIONS = tuple(_PILE_REFUSED)
"""The options a pile game has no use for (spec 11.5): each is held at one value there."""


def option_names() -> list[str]:
    """The names of every rule option, in order."""
    return [f.name for f in dataclasses.fields(Rules)]


OPTION_GROUPS: dict[str, tuple[str, ...]] = {
    "table": ("players", "partnership", "target", "basra_points"),
    "deal": ("family", "hand_size", "floor_size", "bury", "floor_redeal"),
    "capture": ("sums", "optional_capture", "seven_diamonds"),
    "basra": ("basra", "jack_basra", "last_play_basra", "last_batch_basra", "basra_cancel"),
    "score": ("card_points", "majority_points", "majority_min", "majority_tie",
              "clubs_points", "clubs_min", "leftover"),
    "match": ("tie_rule", "target_step", "target_raise", "tie_deal"),
    "pile": PILE_OPTIONS,
}
"""Every option in one group, as a New table form shows them: ``table`` holds what most
tables set (players, partners, target, points per basra), the others the house rules of
one part of the game (``pile``: the options of the pile family, Pişti and Xeri)."""


def option_specs() -> list[dict[str, Any]]:
    """Every option as a form offers it, in the order of :data:`OPTION_GROUPS`: its
    ``name``, ``group`` and ``kind`` (``number`` with its ``range``, ``flag``, ``choice``
    with its ``choices``, ``cards``: a list of ranks and cards, ``card_points``: points by
    rank or card, each within ``range``).

    >>> specs = {spec["name"]: spec for spec in option_specs()}
    >>> specs["target"]
    {'name': 'target', 'group': 'table', 'kind': 'number', 'range': [1, 10000]}
    >>> specs["majority_tie"]["choices"]
    ['none', 'carry', 'double']
    >>> [spec["kind"] for spec in option_specs() if spec["group"] == "deal"]
    ['choice', 'number', 'number', 'cards', 'flag']
    >>> sorted(specs) == sorted(option_names())
    True
    """
    defaults = Rules()
    specs: list[dict[str, Any]] = []
    for group, names in OPTION_GROUPS.items():
        for name in names:
            spec: dict[str, Any] = {"name": name, "group": group}
            default = getattr(defaults, name)
            if name == "bury":
                spec["kind"] = "cards"
            elif name == "card_points":
                spec["kind"] = "card_points"
                spec["range"] = list(OPTION_RANGES[name])
            elif isinstance(default, bool):
                spec["kind"] = "flag"
            elif isinstance(default, int):
                spec["kind"] = "number"
                spec["range"] = list(OPTION_RANGES[name])
            else:
                spec["kind"] = "choice"
                spec["choices"] = list(_CHOICES[name])
            specs.append(spec)
    return specs


def _parse_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "yes", "on", "1"):
            return True
        if word in ("false", "no", "off", "0"):
            return False
    raise RulesError(f"option {name} must be true or false, not {_shown(value)}")


def _parse_int(name: str, value: object) -> int:
    """A whole number from a JSON or text value; ``name`` as messages name the option.

    Range checks are left to :class:`Rules`, except for numbers too long to convert.
    """
    if _is_whole(value):
        assert isinstance(value, int)
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            # int() refuses more than 4300 digits: such a number is far out of range.
            if text.lstrip("+-").replace("_", "").isdecimal():
                raise _out_of_range(name, value) from None
    raise RulesError(f"option {name} must be a whole number, not {_shown(value)}")


def _parse_bury(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        words = value.replace(",", " ").split()
        if [w.lower() for w in words] in ([], ["none"]):
            return ()
    elif isinstance(value, list | tuple):
        words = [_as_text(w) for w in value]
    else:
        raise RulesError(
            f"option bury must be a list of cards or ranks, not {_shown(value)}")
    return tuple(_card_spec(word) for word in words)


def _parse_card_points(value: object) -> tuple[tuple[str, int], ...]:
    pairs: list[tuple[str, object]]
    if isinstance(value, Mapping):
        pairs = [(_as_text(k), v) for k, v in value.items()]
    elif isinstance(value, str) and value.strip().lower() == "none":
        pairs = []
    elif isinstance(value, str):
        pairs = []
        for item in value.replace(",", " ").split():
            spec, sep, points = item.partition(":")
            if not sep:
                spec, sep, points = item.partition("=")
            if not sep:
                raise RulesError(
                    f"bad card_points entry {_shown(item)}: expected CARD:POINTS such as J:1 "
                    "or 10D:3"
                )
            pairs.append((spec, points))
    elif isinstance(value, list | tuple):
        pairs = []
        for entry in value:
            if not isinstance(entry, list | tuple) or len(entry) != 2:
                raise RulesError(
                    f"bad card_points entry {_shown(entry)}: expected a [CARD, POINTS] pair")
            pairs.append((_as_text(entry[0]), entry[1]))
    else:
        raise RulesError(
            f"option card_points must map cards to points, not {_shown(value)}")
    parsed = []
    for spec, given in pairs:
        card = _card_spec(spec)
        parsed.append((card, _parse_int(f"card_points[{card}]", given)))
    return tuple(parsed)


def _parse_option(name: str, value: object) -> object:
    default = getattr(Rules(), name)
    if name == "bury":
        return _parse_bury(value)
    if name == "card_points":
        return _parse_card_points(value)
    if isinstance(default, bool):
        return _parse_bool(name, value)
    if isinstance(default, int):
        return _parse_int(name, value)
    text = value.strip().lower().replace("-", "_") if isinstance(value, str) else ""
    if text not in _CHOICES[name]:
        raise RulesError(
            f"option {name} must be one of {', '.join(_CHOICES[name])}, not {_shown(value)}"
        )
    return text


def _with_values(base: Rules, options: Mapping[str, Any]) -> Rules:
    known = option_names()
    changes: dict[str, Any] = {}
    for raw_name, value in options.items():
        name = _as_text(raw_name).strip().replace("-", "_").lower()
        if name not in known:
            raise RulesError(
                f"unknown rule option {_shown(raw_name)}; the options are: {', '.join(known)}"
            )
        changes[name] = _parse_option(name, value)
    return dataclasses.replace(base, **changes)


@dataclass(frozen=True)
class Preset:
    """A named variant: its rules, the player counts it is played with, its source."""

    name: str
    description: str
    rules: Rules
    players: tuple[int, ...]
    partnership_players: tuple[int, ...] = ()
    """Player counts that play in partnerships by default."""
    aliases: tuple[str, ...] = field(default=())
    independent: bool = True
    """Whether its partnership player counts may also be played without partnerships
    (``partnership=false``)."""

    def rules_for(self, players: int | None = None) -> Rules:
        """The preset's rules for a player count (its first count by default)."""
        count = self.players[0] if players is None else players
        if count not in self.players:
            allowed = " or ".join(str(n) for n in self.players)
            raise RulesError(
                f"variant {self.name!r} is played by {allowed} players, not {_shown(count)}"
            )
        return dataclasses.replace(
            self.rules, players=count, partnership=count in self.partnership_players
        )


_EGYPTIAN = Rules()
_PISTI = Rules(
    family="pisti", sums=False, seven_diamonds="plain", jack_basra="never", bury=(),
    basra_points=0, majority_points=3, target=151,
)

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "jawaker",
            "two-player online rules: 7♦ sweeps, majority ties carry over, 121 points",
            dataclasses.replace(
                _EGYPTIAN, jack_basra="never", seven_diamonds="sweep", majority_tie="carry",
                target=121,
            ),
            (2,),
        ),
        Preset(
            "egyptian",
            "the common Egyptian game: Jack basra on a lone card, 7♦ sweeps a small floor",
            _EGYPTIAN,
            (2, 3, 4),
            (4,),
        ),
        Preset(
            "lebanese",
            "basra only by capturing a lone card by rank; the 7♦ is a plain 7",
            dataclasses.replace(
                _EGYPTIAN, bury=("J",), jack_basra="never", seven_diamonds="plain",
                basra="lone",
            ),
            (2, 3, 4),
            (4,),
        ),
        Preset(
            "iraqi",
            "Egyptian play with 5-point basras and a 6-point 10♦",
            dataclasses.replace(
                _EGYPTIAN, basra_points=5,
                card_points=(("J", 1), ("A", 1), ("2C", 2), ("10D", 6)),
            ),
            (2, 3, 4),
            (4,),
        ),
        Preset(
            "six-card",
            "children's rules: six-card hands, no burying, no 7♦ power, 3-point majority",
            dataclasses.replace(
                _EGYPTIAN, hand_size=6, bury=(), jack_basra="never", seven_diamonds="plain",
                basra="lone", majority_points=3,
            ),
            (2, 4),
            (4,),
        ),
        Preset(
            "three-player",
            "three players with eight-card hands to 51, the target rises on a tie",
            dataclasses.replace(
                _EGYPTIAN, players=3, hand_size=8, bury=("J", "10D"), jack_basra="never",
                seven_diamonds="plain", basra_points=5, majority_points=3, target=51,
                tie_rule="raise",
            ),
            (3,),
        ),
        Preset(
            "classic",
            "long-form rules: 7♦ worth 3 and sweeping, majority ties carry over",
            dataclasses.replace(
                _EGYPTIAN, jack_basra="never", seven_diamonds="sweep_any", majority_tie="carry",
                card_points=(("J", 1), ("A", 1), ("2C", 2), ("7D", 3)),
            ),
            (2, 3, 4),
        ),
        Preset(
            "pisti",
            "the Turkish pile game: match the top card, Jacks take the pile, 10 a pişti, to 151",
            _PISTI,
            (2, 3, 4),
            (4,),
            aliases=("pishti", "pişti", "pispirik"),
        ),
        Preset(
            "xeri",
            "the Greek pile game: six-card hands, an open pile, tens and court cards count",
            dataclasses.replace(
                _PISTI, hand_size=6, pile_down=0, bottom_card="hidden",
                pile_redeal="pair_or_jack", target=101,
                card_points=(("A", 1), ("K", 1), ("Q", 1), ("J", 1), ("10", 1), ("10D", 2),
                             ("2C", 1)),
            ),
            (2, 4),
            (4,),
            aliases=("kseri", "ξερή"),
            independent=False,
        ),
        Preset(
            "pasur",
            "the Iranian game: sums to 11, surs that cancel, 7 points for most clubs, to 62",
            Rules(
                family="pasur", bury=("J",), floor_redeal=True, jack_basra="never",
                seven_diamonds="plain", basra_points=5, basra_cancel=True,
                last_play_basra=False, majority_points=0, clubs_points=7, target=62,
            ),
            (2, 3, 4),
            (4,),
            aliases=("pasoor", "pashur", "chahar-barg"),
        ),
    )
}


def preset(name: str) -> Preset:
    """The preset of that name (case and ``_``/``-`` insensitive)."""
    key = name.strip().lower().replace("_", "-")
    found = PRESETS.get(key) or next(
        (p for p in PRESETS.values() if key in p.aliases), None)
    if found is None:
        raise RulesError(
            f"unknown variant {_shown(name)}; the variants are: {', '.join(PRESETS)}")
    return found


def make_rules(
    variant: str = "egyptian",
    players: int | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Rules:
    """The rules of a preset for a player count, with house-rule overrides.

    Override values may be text (``"5"``, ``"true"``, ``"J,7D"``, ``"J:1,10D:3"``) or the
    JSON values a record holds. ``players`` cannot be overridden: pass it as the argument.
    """
    overrides = dict(overrides or {})
    if "players" in overrides:
        count = _parse_int("players", overrides.pop("players"))
        if players is not None and count != players:
            raise RulesError(f"players given twice: {_shown(players)} and {_shown(count)}")
        players = count
    found = preset(variant)
    rules = _with_values(found.rules_for(players), overrides)
    if not found.independent and rules.players in found.partnership_players \
            and not rules.partnership:
        raise RulesError(f"variant {found.name!r} with {rules.players} players is played in "
                         "partnerships: partnership=false is not offered")
    return rules
