"""The game the environments share: a match played by actions of a fixed discrete space,
and the fixed-shape tensor of what one seat may see.

Actions of Basra and Pasur (``NUM_ACTIONS`` = 105), one space for every preset and player
count (the pile games have their own, below)::

    action     meaning
    0 .. 51    play card c from the hand                      (PLAY + c)
    52 .. 103  capture floor card f, in a capture choice      (TAKE + f)
    104        lay the chosen card down, in a capture choice  (LAY_DOWN)

Cards are numbered as in :mod:`basra.cards` (``rank * 4 + suit``). A move of the engine
(``card | captured << 6``) is one action when the card has exactly one legal move (a
lay-down, or its only capture): ``PLAY + card``. When the card has several (several
equally large capture sets, or under ``optional_capture`` a capture and a lay-down), the
same seat decides again, by floor cards: the mask then allows ``TAKE + f`` for each floor
card f that is in some of the remaining choices but not in all of them (and ``LAY_DOWN``
where laying the card down is one of the choices); each ``TAKE`` keeps the choices that
capture f, and the move is played as soon as one choice remains. No choice is a subset of
another (they are equally large, or in Pasur add up to the same total), so every move is
reached, and by at most a few actions.

The pile games (Pişti and Xeri, :data:`basra.rules.PILE_FAMILIES`) have a space of
their own (:func:`action_count`). Every card in hand
is one legal move there, so an action is a card: ``PILE_NUM_ACTIONS`` = 52, action c
plays card c.

The observation tensors of what a seat may see (703 values in Basra and Pasur, 717 in
the pile games) are :mod:`basra.neural.tensor`'s, which the learned evaluator reads too;
this module re-exports them.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from basra.match import Match, Play
from basra.neural.tensor import (
    OBSERVATION_HIGH,
    OBSERVATION_SIZE,
    PILE_OBSERVATION_HIGH,
    PILE_OBSERVATION_SIZE,
    encode_observation,
    observation_high,
    observation_size,
)
from basra.observe import Observation, observe
from basra.rules import PILE_FAMILIES, Rules, make_rules
from basra.state import canonical_move, move_text

__all__ = [
    "LAY_DOWN",
    "NUM_ACTIONS",
    "OBSERVATION_HIGH",
    "OBSERVATION_SIZE",
    "PILE_NUM_ACTIONS",
    "PILE_OBSERVATION_HIGH",
    "PILE_OBSERVATION_SIZE",
    "PLAY",
    "REWARDS",
    "TAKE",
    "ActionError",
    "Table",
    "action_count",
    "action_text",
    "choose_move",
    "encode_observation",
    "move_actions",
    "new_table",
    "observation_from_json",
    "observation_high",
    "observation_size",
    "side_margins",
]

PLAY = 0
TAKE = 52
LAY_DOWN = 104
NUM_ACTIONS = 105

REWARDS = ("match", "deal", "win")
"""What the environments pay: ``match``, each deal's score margin as it is scored, to the
end of the match; ``deal``, one deal per episode, its score margin at its end; ``win``,
+1 to the winning side at the end of the match and -1/(sides - 1) to each other side."""

PILE_NUM_ACTIONS = 52


def action_count(rules: Rules) -> int:
    """The size of the action space: 52 in a pile game (a card), else 105.

    >>> action_count(make_rules("pisti")), action_count(make_rules("pasur"))
    (52, 105)
    """
    return PILE_NUM_ACTIONS if rules.family in PILE_FAMILIES else NUM_ACTIONS


class ActionError(ValueError):
    """An action that is not legal in the position."""


def action_text(action: int) -> str:
    """``play 7H``, ``take 3C`` or ``lay down``.

    >>> action_text(25), action_text(52 + 11), action_text(104)
    ('play 7H', 'take 3C', 'lay down')
    """
    from basra.cards import card_name

    if PLAY <= action < TAKE:
        return f"play {card_name(action)}"
    if TAKE <= action < LAY_DOWN:
        return f"take {card_name(action - TAKE)}"
    if action == LAY_DOWN:
        return "lay down"
    raise ActionError(f"not an action: {action!r} (actions are 0 to {NUM_ACTIONS - 1})")


def _choices(moves: list[int] | tuple[int, ...], card: int, taken: int) -> list[int]:
    """The moves of ``card`` still open after the floor cards ``taken`` were chosen."""
    return [m for m in moves if m & 63 == card and (m >> 6) & taken == taken
            and (not taken or m >> 6)]


def _discriminating(choices: list[int]) -> int:
    """The floor cards in some of ``choices`` but not in all of them."""
    union = 0
    common = -1
    for move in choices:
        union |= move >> 6
        common &= move >> 6
    return union & ~common


def choice_actions(moves: list[int] | tuple[int, ...], card: int, taken: int) -> list[int]:
    """The legal actions of a capture choice for ``card`` after ``taken``."""
    choices = _choices(moves, card, taken)
    open_cards = _discriminating(choices)
    actions = [TAKE + f for f in range(52) if open_cards >> f & 1]
    if not taken and any(not m >> 6 for m in choices):
        actions.append(LAY_DOWN)
    return actions


def move_actions(move: int, moves: list[int] | tuple[int, ...]) -> list[int]:
    """The actions that make ``move`` among the legal ``moves`` (taking the lowest
    distinguishing floor card first).

    >>> from basra.state import make_move
    >>> moves = [make_move(25, 1 << 13 | 1 << 11), make_move(25, 1 << 24), make_move(32)]
    >>> move_actions(moves[1], moves), move_actions(moves[2], moves)
    ([25, 76], [32])
    """
    if move not in moves:
        raise ActionError(f"{move_text(move)} is not one of the legal moves")
    card, captured = move & 63, move >> 6
    actions = [PLAY + card]
    taken = 0
    choices = _choices(moves, card, taken)
    while len(choices) > 1:
        if not captured:
            actions.append(LAY_DOWN)
            break
        open_cards = _discriminating(choices) & captured
        low = open_cards & -open_cards
        taken |= low
        actions.append(TAKE + low.bit_length() - 1)
        choices = _choices(moves, card, taken)
    return actions


def side_margins(points: tuple[int, ...] | list[int]) -> list[float]:
    """Each side's points minus the mean of the other sides' (they add up to 0).

    >>> side_margins([30, 10]), side_margins([12, 0, 6])
    ([20.0, -20.0], [9.0, -9.0, 0.0])
    """
    total = sum(points)
    others = len(points) - 1
    return [p - (total - p) / others for p in points]


class Table:
    """A match played by actions, one decision at a time.

    ``auto_deal`` as in :class:`~basra.match.Match`: deals come from ``seed``; without it,
    call :meth:`deal` with each layout (the OpenSpiel game deals by chance nodes).
    """

    def __init__(self, rules: Rules, variant: str = "egyptian", seed: int | None = None,
                 *, auto_deal: bool = True, first_dealer: int | None = None) -> None:
        self.rules = rules
        self.num_actions = action_count(rules)
        """The size of the action space (:func:`action_count`)."""
        self.variant = variant
        self.match = Match(rules, seed, variant=variant, auto_deal=auto_deal,
                           first_dealer=first_dealer)
        self.card = -1
        """The card chosen, during a capture choice (-1: none)."""
        self.taken = 0
        """The floor cards taken so far, during a capture choice."""

    @classmethod
    def for_variant(cls, variant: str = "egyptian", players: int | None = None,
                    rules: dict[str, Any] | None = None, seed: int | None = None) -> Table:
        """A table of a preset, its player count and house rules."""
        return cls(make_rules(variant, players, rules), variant, seed)

    def copy(self) -> Table:
        """An independent copy (the rules and the played deals' layouts are shared)."""
        other = copy.copy(self)
        match = copy.copy(self.match)
        match.totals = list(self.match.totals)
        match.rng = random.Random()
        match.rng.setstate(self.match.rng.getstate())
        match.deals = list(self.match.deals)
        if match.deals:
            last = copy.copy(match.deals[-1])
            last.plays = list(last.plays)
            match.deals[-1] = last
        other.match = match
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self.copy()

    @property
    def to_play(self) -> int:
        """The seat to decide, -1 when no deal is in progress."""
        return self.match.state.to_play if self.match.deal_in_progress else -1

    def legal_moves(self) -> list[int]:
        return self.match.legal_moves()

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat to decide, lowest first."""
        moves = self.match.legal_moves()
        if not moves:
            return []
        if self.card >= 0:
            return choice_actions(moves, self.card, self.taken)
        return sorted({PLAY + (m & 63) for m in moves})

    def action_mask(self) -> npt.NDArray[np.int8]:
        """1 for each legal action of the seat to decide."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def apply_action(self, action: int) -> Play | None:
        """Take one action; the play it completes, or None during a capture choice.

        Raises :class:`ActionError` for an action that is not legal.
        """
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            shown = ", ".join(action_text(a) for a in legal) or "none"
            raise ActionError(f"illegal action {action!r}"
                              + (f" ({action_text(action)})"
                                 if 0 <= action < self.num_actions else "")
                              + f"; the legal actions are {legal} ({shown})")
        moves = self.match.legal_moves()
        if action == LAY_DOWN:
            card, self.card, self.taken = self.card, -1, 0
            return self.match.play(card, checked=False)
        if action < TAKE:
            card, taken = action, 0
        else:
            card, taken = self.card, self.taken | 1 << (action - TAKE)
        choices = _choices(moves, card, taken)
        if len(choices) == 1:
            self.card, self.taken = -1, 0
            return self.match.play(choices[0], checked=False)
        self.card, self.taken = card, taken
        return None

    def play_move(self, move: int) -> Play:
        """Play a whole engine move (for bots): every action it takes. In a pile game a
        capture may be named by the cards the seat sees (:func:`basra.state.canonical_move`)."""
        played = None
        move = canonical_move(self.match.state, move)
        for action in move_actions(move, self.match.legal_moves()):
            played = self.apply_action(action)
        assert played is not None
        return played

    def observe(self, seat: int) -> Observation:
        return observe(self.match, seat)

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """The observation tensor of ``seat`` (see the module's table)."""
        choosing = self.to_play == seat and self.card >= 0
        return encode_observation(self.observe(seat), self.card if choosing else -1,
                                  self.taken if choosing else 0)


def new_table(rules: Rules, variant: str, seed: int, reward: str) -> Table:
    """The table of an episode: a whole match, or under ``reward="deal"`` its first deal
    alone (no deal follows it)."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    table = Table(rules, variant, seed, auto_deal=reward != "deal")
    if reward == "deal":
        table.match.deal()
    return table


def choose_move(view: Observation,
                policy: Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int]) -> int:
    """The legal move of ``view`` that ``policy`` makes: it is asked for actions (given
    the observation tensor and the action mask) until they make one move, as in a
    :class:`Table`. For bots driven by a trained policy."""
    moves = list(view.legal_moves)
    card, taken = -1, 0
    while True:
        legal = (sorted({PLAY + (m & 63) for m in moves}) if card < 0
                 else choice_actions(moves, card, taken))
        mask = np.zeros(action_count(view.rules), dtype=np.int8)
        mask[legal] = 1
        action = int(policy(encode_observation(view, card, taken), mask))
        if action not in legal:
            raise ActionError(f"the policy chose illegal action {action!r}; the legal "
                              f"actions are {legal}")
        if action == LAY_DOWN:
            return card
        if action < TAKE:
            card, taken = action, 0
        else:
            taken |= 1 << (action - TAKE)
        choices = _choices(moves, card, taken)
        if len(choices) == 1:
            return choices[0]


def observation_from_json(data: dict[str, Any]) -> Observation:
    """The :class:`~basra.observe.Observation` of a bot protocol ``move`` request's
    ``observation`` (docs/protocol.md), so that a bot program can use
    :func:`encode_observation` and :func:`choose_move`."""
    from basra.cards import parse_card, parse_cards
    from basra.match import Play
    from basra.observe import observation_from_dict
    from basra.rules import Rules
    from basra.state import make_move, seat_turns, split_move_text

    if Rules.from_dict(data["rules"]).family in PILE_FAMILIES:
        return observation_from_dict(data)

    def mask(names: list[str]) -> int:
        value = 0
        for card in parse_cards(names):
            value |= 1 << card
        return value

    rules = Rules.from_dict(data["rules"])
    seats = tuple(data.get("seats") or range(rules.players))
    moves = []
    for text in data["legal_moves"]:
        card, captured, _ = split_move_text(text)
        moves.append(make_move(card, captured))
    return Observation(
        rules=rules, seat=data["seat"], dealer=data["dealer"], to_play=data["to_play"],
        hand=mask(data["hand"]), floor=mask(data["floor"]),
        initial_floor=mask(data["initial_floor"]), hand_counts=tuple(data["hand_counts"]),
        stock_count=data["stock_count"], pile_counts=tuple(data["pile_counts"]),
        piles=tuple(mask(p) for p in data["piles"]), last_capturer=data["last_capturer"],
        basras=tuple(data["basras"]), totals=tuple(data["totals"]), target=data["target"],
        carry=data["carry"], deal_number=data["deal_number"],
        plays=tuple(Play(p["seat"], parse_card(p["card"]), mask(p["captured"]), p["basra"])
                    for p in data["plays"]),
        legal_moves=tuple(moves),
        turns=seat_turns(rules.players, None if len(seats) == rules.players else seats),
        laid=tuple(parse_card(c) for c in data.get("floor_order", [])),
        buried=mask(data.get("buried", [])), batch=data.get("batch", 1),
    )
