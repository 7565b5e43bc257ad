"""Interactive lessons: short positions that teach one rule each, built and checked by the
rules core.

A lesson is a few :class:`Step` values. A step names a preset, the floor, the player's
hand and what the sentence (a catalog key) claims: the right move's card, what it takes,
whether it scores a basra (a sur in Pasur, a pişti in the pile games). :func:`step_state`
builds the whole deal state through :func:`basra.position.parse_position` (all 52 cards
accounted for), and :func:`judge` plays any card of the hand with
:func:`basra.state.apply`, so every explanation comes from the real capture:

>>> step = lesson("matching").steps[0]
>>> verdict = judge(step, "5S")
>>> verdict.right, verdict.taken
(True, ['5D'])
>>> wrong = judge(step, "8H")
>>> wrong.right, wrong.why["key"], wrong.why["value"]
(False, 'learn_why_trail_sum', 8)

``goal`` says what makes the right move better than every other legal move: ``cards``
(the most cards), ``basra`` (a basra, then cards), ``points`` (card and basra points),
``clubs`` (clubs, then cards). ``tests/test_lessons.py`` proves it for every step.

In the pile games (Pişti and Xeri) a step's floor is the pile, listed bottom to top: only
its last card, the top, can be matched, and every capture takes it whole. A step may lay
the first pile's ``down`` cards face down under it and show the stock's bottom card:

>>> step = lesson("pile_first").steps[0]
>>> step_view(step)["floor"], step_view(step)["shown"]
([None, None, None, '7S'], '10D')
>>> judge(step, "7D").taken, judge(step, "3C").why["key"]
(['2H', '4C', '7S', '9D'], 'learn_why_pile_lay')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from basra.cards import (
    CARD_NAMES,
    JACK,
    KING,
    QUEEN,
    CardSet,
    card_names,
    cards_text,
    rank_of,
    value_of,
)
from basra.position import parse_position
from basra.rules import PILE_FAMILIES, preset
from basra.state import CLUBS, DealState, apply, legal_moves, move_captured, move_card, move_text

__all__ = ["FAMILIES", "LESSONS", "Lesson", "Step", "Verdict", "judge", "lesson",
           "lesson_ids", "step_state", "step_view"]

GOALS = ("cards", "basra", "points", "clubs")


@dataclass(frozen=True)
class Step:
    """One position of a lesson and what its sentence claims."""

    text: str
    """The sentence's catalog key."""
    preset: str
    floor: str
    hand: str
    right: str
    """The right move as move text: ``5S:5D`` (or ``5S`` when the card has one move)."""
    takes: str = ""
    """The cards the right move takes from the floor, as the sentence says (``-``: none)."""
    basra: bool = False
    """Whether the right move scores a basra (a sur)."""
    goal: str = "cards"
    leftover: str = ""
    """The floor cards the right move's side gets at the end of the deal (a last card)."""
    last_card: bool = False
    """The deal's last card: the stock and the other hand are empty, the player is last."""
    last: int = -1
    """The seat that captured last before this play (0: the player, 1: the other)."""
    down: str = ""
    """Pile games: the pile's cards that lie face down (the first pile's bottom cards)."""
    shown: str = ""
    """Pile games: the stock's bottom card, shown to every seat (it goes to the dealer)."""


@dataclass(frozen=True)
class Lesson:
    """A lesson: its id (the URL's ``/learn/ID``), its rule family and its steps; its
    title is the catalog's ``learn_l_ID``."""

    id: str
    family: str
    steps: tuple[Step, ...] = field(default=())

    @property
    def title(self) -> str:
        return f"learn_l_{self.id}"

    @property
    def rules_preset(self) -> str:
        """The preset the lesson's first step plays (its rules page)."""
        return self.steps[0].preset


def _s(text: str, preset_name: str, floor: str, hand: str, right: str, takes: str,
       **more: Any) -> Step:
    return Step(text=text, preset=preset_name, floor=floor, hand=hand, right=right,
                takes=takes, **more)


E, P, K, X = "egyptian", "pasur", "pisti", "xeri"

LESSONS: tuple[Lesson, ...] = (
    Lesson("matching", "basra", (
        _s("learn_s_matching_1", E, "5D 9C KH 2S", "5S 8H 3C 10D", "5S", "5D"),
        _s("learn_s_matching_2", E, "8C 8D 3H KS", "8S 6H 10C QD", "8S", "8C 8D"),
    )),
    Lesson("sums", "basra", (
        _s("learn_s_sums_1", E, "3H 6C KS 10D", "9S 4C QH 2D", "9S", "3H 6C"),
        _s("learn_s_sums_2", E, "AS 2D 4C QH", "7C 5H 8S 10D", "7C", "AS 2D 4C"),
    )),
    Lesson("sets", "basra", (
        _s("learn_s_sets_1", E, "4H 2C 6S KD", "6D 8C 3H QS", "6D", "4H 2C 6S"),
        _s("learn_s_sets_2", E, "3C 7H 5D 5S 10H KC", "10C 8D QC 2H", "10C",
           "3C 7H 5D 5S 10H"),
    )),
    Lesson("courts", "basra", (
        _s("learn_s_courts_1", E, "2C KH 3S 9D", "QS KD 6C 4H", "KD", "KH"),
        _s("learn_s_courts_2", E, "QS QD 7C", "QH 8D 2S 3C", "QH", "QS QD"),
    )),
    Lesson("jack", "basra", (
        _s("learn_s_jack_1", E, "3C 8D KH 5S", "JS 4H 9C 6D", "JS", "3C 8D KH 5S"),
        _s("learn_s_jack_2", E, "9H", "JC 2S 5D QH", "JC", "9H", basra=True, goal="basra"),
    )),
    Lesson("seven", "basra", (
        _s("learn_s_seven_1", E, "2C 3H 4S", "7D 5C KH 8S", "7D", "2C 3H 4S", basra=True,
           goal="basra"),
        _s("learn_s_seven_2", E, "5H 6C 9D 2S", "7D 9S KH 4C", "7D", "5H 2S"),
    )),
    Lesson("basra", "basra", (
        _s("learn_s_basra_1", E, "4H 6C", "10S 4D KH 8C", "10S", "4H 6C", basra=True,
           goal="basra"),
        _s("learn_s_basra_2", E, "8C", "8H 3S QD 5D", "8H", "8C", basra=True, goal="basra"),
    )),
    Lesson("last", "basra", (
        _s("learn_s_last_1", E, "5H KC 9D", "5S", "5S", "5H", leftover="KC 9D",
           last_card=True, last=1),
        _s("learn_s_last_2", E, "3C 8H QD", "2S", "2S", "", last_card=True, last=1),
    )),
    Lesson("scoring", "basra", (
        _s("learn_s_scoring_1", E, "10D 2C 9S", "10H 2S KD 6C", "10H", "10D", goal="points"),
        _s("learn_s_scoring_2", E, "2H 3D 5C 8S", "5S 9H KC 4D", "5S", "5C 2H 3D"),
    )),
    Lesson("variants", "basra", (
        _s("learn_s_variants_1", "jawaker", "9C 8H KS 6D", "7D 2S 3C 4H", "7D",
           "9C 8H KS 6D"),
        _s("learn_s_variants_2", "lebanese", "3C 5D", "8H 3S KC QD", "8H", "3C 5D"),
        _s("learn_s_variants_3", "iraqi", "10D 5C 3H", "10S 8C KH QS", "10S", "10D",
           goal="points"),
        _s("learn_s_variants_4", "jawaker", "9H", "JC 9S 2D QH", "9S", "9H", basra=True,
           goal="basra"),
    )),
    Lesson("p_eleven", "pasur", (
        _s("learn_s_p_eleven_1", P, "4C 5H 2D KS", "2S 9H 7C QD", "2S", "4C 5H"),
        _s("learn_s_p_eleven_2", P, "2C 6H 4D 5S", "5C KH 9D QS", "5C:2C+4D", "2C 4D"),
    )),
    Lesson("p_courts", "pasur", (
        _s("learn_s_p_courts_1", P, "KC KH 5D QS", "KD 3S 10H 9H", "KD:KC", "KC",
           goal="clubs"),
    )),
    Lesson("p_jack", "pasur", (
        _s("learn_s_p_jack_1", P, "4C 9H QD KS 7S", "JH 3D 6C 2H", "JH", "4C 9H 7S"),
    )),
    Lesson("p_sur", "pasur", (
        _s("learn_s_p_sur_1", P, "3C 5D", "3S 6H KH QC", "3S", "3C 5D", basra=True,
           goal="basra"),
        _s("learn_s_p_sur_2", P, "2H 3C", "JS 6D KC QH", "6D", "2H 3C", basra=True,
           goal="basra"),
    )),
    Lesson("p_clubs", "pasur", (
        _s("learn_s_p_clubs_1", P, "4C 4H KD", "7S QH 10D 2S", "7S:4C", "4C", goal="clubs"),
        _s("learn_s_p_clubs_2", P, "10D 2C 6H", "AS 9S 5H KC", "AS", "10D", goal="points"),
    )),
    Lesson("pile_top", "pisti", (
        _s("learn_s_pile_top_1", K, "4D 9C KH 5S", "5H 9H 3D QS", "5H", "4D 9C KH 5S"),
        _s("learn_s_pile_top_2", K, "7C 2H 9S", "2D 9D KC 4H", "9D", "7C 2H 9S"),
    )),
    Lesson("pile_jack", "pisti", (
        _s("learn_s_pile_jack_1", K, "3C 8D KH 6S", "JS 4H 9C 2D", "JS", "3C 8D KH 6S"),
    )),
    Lesson("pile_pisti", "pisti", (
        _s("learn_s_pile_pisti_1", K, "8C", "8H 3S QD 5D", "8H", "8C", basra=True,
           goal="basra"),
        _s("learn_s_pile_pisti_2", K, "9H", "JC 9S 2D QH", "9S", "9H", basra=True,
           goal="basra"),
        _s("learn_s_pile_pisti_3", K, "JD", "JC 4S 9H KD", "JC", "JD", basra=True,
           goal="basra"),
    )),
    Lesson("pile_first", "pisti", (
        _s("learn_s_pile_first_1", K, "4C 9D 2H 7S", "7D 3C KH 5S", "7D", "4C 9D 2H 7S",
           down="4C 9D 2H", shown="10D"),
    )),
    Lesson("pile_scoring", "pisti", (
        _s("learn_s_pile_scoring_1", K, "4S 10D", "10H 4D KC 6C", "10H", "4S 10D",
           goal="points"),
        _s("learn_s_pile_scoring_2", K, "3C 8H 6D QS 5H", "5S 6H KC 2D", "5S",
           "3C 8H 6D QS 5H"),
        _s("learn_s_pile_scoring_3", X, "KD", "KS 10H 3C 7D", "KS", "KD", basra=True,
           goal="basra"),
    )),
)
"""Every lesson, in the order the page lists them (Basra's, Pasur's, then the pile
games')."""

FAMILIES = ("basra", "pasur", "pisti")

_BY_ID = {found.id: found for found in LESSONS}


def lesson_ids() -> list[str]:
    """The id of every lesson, in order."""
    return [found.id for found in LESSONS]


def lesson(lesson_id: str) -> Lesson:
    """The lesson of that id; ``KeyError`` when there is none."""
    return _BY_ID[lesson_id]


def _mask(text: str) -> int:
    """The cards of a step's text (``"-"`` for none) as a mask."""
    return CardSet.parse(text.replace("-", " ")).mask


def step_state(step: Step) -> DealState:
    """The deal state of a step, the player at seat 0 of two, read back by the core.

    The other seat holds as many cards as the player (none at a deal's last card); the
    other cards of the deck make whole batches of stock, the rest lie in the piles (all
    of them at a deal's last card). A pile game's stock ends with the step's shown card.
    """
    found = preset(step.preset)
    rules = found.rules_for(2)
    pile = rules.family in PILE_FAMILIES
    floor, hand, shown = _mask(step.floor), _mask(step.hand), _mask(step.shown)
    rest = [card for card in range(52) if not (floor | hand | shown) >> card & 1]
    other = 0
    if not step.last_card:
        for card in rest[-hand.bit_count():]:
            other |= 1 << card
        rest = rest[:-hand.bit_count()]
    batch = 2 * rules.hand_size
    stock_count = 0 if step.last_card else (len(rest) + shown.bit_count()) // batch * batch
    stock_count -= shown.bit_count()
    stock = rest[:stock_count] + [card for card in range(52) if shown >> card & 1]
    piled = rest[stock_count:]
    piles = [0, 0]
    for index, card in enumerate(piled):
        piles[index % 2] |= 1 << card
    dealer = 0 if step.last_card else 1
    last = "-" if step.last < 0 else str(step.last)
    laid = step.floor if pile else cards_text(floor)  # a pile is listed bottom to top
    text = (f"{found.name}/2 | dealer {dealer} | turn 0 | floor {laid}"
            f" | hands {cards_text(hand)} / {cards_text(other)}"
            f" | stock {' '.join(CARD_NAMES[c] for c in stock) or '-'}"
            f" | piles {cards_text(piles[0])} / {cards_text(piles[1])} | basras 0 0 | last {last}")
    if pile:
        text += (f" | down {cards_text(_mask(step.down))} | jacks 0 0 | kitty -"
                 f" | shown {cards_text(shown)}")
    return parse_position(text)


@dataclass(frozen=True)
class Outcome:
    """What a move does for the player's side."""

    move: str
    taken: list[str]
    """The floor cards the move takes (in card order)."""
    leftover: list[str]
    """The floor cards the side gets at the end of the deal."""
    basra: bool
    gained: int
    """Every card the side's pile gains, the played card with them."""
    points: int
    """Card points of ``gained``, plus the basra's points."""
    bonus: int = 0
    """The points of the basra (a sur, a pişti, a Jack's double pişti): 0 without one."""

    def score(self, goal: str) -> tuple[int, ...]:
        """How good the move is by a step's goal (higher is better)."""
        cards = self.gained.bit_count()
        if goal == "basra":
            return (int(self.basra), cards)
        if goal == "points":
            return (self.points,)
        if goal == "clubs":
            return ((self.gained & CLUBS).bit_count(), cards)
        return (cards,)


def outcome(state: DealState, move: int) -> Outcome:
    """Play ``move`` (a legal move of the player, seat 0) and see what it does."""
    after = apply(state, move)
    rules = state.rules
    gained = after.piles[0] & ~state.piles[0]
    basra = after.basras[0] > state.basras[0]
    bonus = rules.basra_points if basra else 0
    if basra and rules.family in PILE_FAMILIES:
        double = after.jack_pistis[0] > state.jack_pistis[0]
        bonus = rules.jack_pisti_points if double else rules.pisti_points
    return Outcome(
        move=move_text(move),
        taken=card_names(move_captured(move)),
        leftover=card_names(after.leftover & after.piles[0]),
        basra=basra,
        gained=gained,
        points=rules.card_points_of(gained) + bonus,
        bonus=bonus,
    )


def outcomes(step: Step) -> list[Outcome]:
    """What every legal move of the step's position does, lowest card first."""
    state = step_state(step)
    return [outcome(state, move) for move in legal_moves(state)]


def right_outcome(step: Step) -> Outcome:
    """The outcome of the step's right move (``ValueError`` when it is not legal)."""
    card = step.right.partition(":")[0]
    found = [o for o in outcomes(step) if o.move == step.right
             or (":" not in step.right and o.move.partition(":")[0] == card)]
    if len(found) != 1:
        raise ValueError(f"step {step.text}: {step.right!r} is not exactly one legal move "
                         f"(moves: {[o.move for o in outcomes(step)]})")
    return found[0]


@dataclass(frozen=True)
class Verdict:
    """The answer to a move of a step: right or not, what it took, and why it is worse."""

    right: bool
    move: str
    taken: list[str]
    leftover: list[str]
    basra: bool
    why: dict[str, Any] | None = None
    """A wrong move's explanation: ``{"key": catalog key, its params}``."""
    bonus: int = 0
    """The basra's points (a pişti's 10, a double pişti's 20): 0 without one."""

    def to_json(self) -> dict[str, Any]:
        return {"right": self.right, "move": self.move, "taken": self.taken,
                "leftover": self.leftover, "basra": self.basra, "bonus": self.bonus,
                "why": self.why}


def _pile_trail_reason(state: DealState, card: int) -> dict[str, Any]:
    """Why a card is laid on the pile: it does not match the top card (perhaps a lower
    one) and is no Jack."""
    code, top = CARD_NAMES[card], state.laid[-1]
    lower = any(rank_of(other) == rank_of(card) for other in state.laid[:-1])
    return {"key": "learn_why_pile_lower" if lower else "learn_why_pile_lay", "card": code,
            "top": CARD_NAMES[top]}


def _trail_reason(state: DealState, card: int) -> dict[str, Any]:
    """Why a card takes nothing, in the words of its family."""
    if state.rules.family in PILE_FAMILIES and state.laid:
        return _pile_trail_reason(state, card)
    pasur = state.rules.family == "pasur"
    rank = rank_of(card)
    code = CARD_NAMES[card]
    if rank in (KING, QUEEN):
        return {"key": "learn_why_trail_rank", "card": code}
    if rank == JACK:
        return {"key": "learn_why_trail_jack", "card": code}
    if pasur:
        return {"key": "learn_why_trail_eleven", "card": code, "need": 11 - value_of(card)}
    return {"key": "learn_why_trail_sum", "card": code, "value": value_of(card)}


def _why(step: Step, state: DealState, move: int, got: Outcome, best: Outcome
         ) -> dict[str, Any]:
    card = move_card(move)
    family = state.rules.family
    suffix = f"_{family}" if family != "basra" else ""
    base = {"card": CARD_NAMES[card], "right": best.move.partition(":")[0],
            "right_taken": best.taken}
    if not got.taken:
        return _trail_reason(state, card)
    if step.goal == "basra" and best.basra and not got.basra:
        cleared = move_captured(move) == state.floor
        if family in PILE_FAMILIES:  # every capture clears the pile: was it one card?
            cleared = state.floor.bit_count() == 1
        kind = "not_basra" if cleared else "no_basra"
        return {"key": f"learn_why_{kind}{suffix}", **base, "taken": got.taken}
    if step.goal == "points":
        return {"key": "learn_why_points", **base, "taken": got.taken,
                "points": got.points, "right_points": best.points}
    if step.goal == "clubs":
        return {"key": "learn_why_clubs", **base, "taken": got.taken,
                "clubs": (got.gained & CLUBS).bit_count(),
                "right_clubs": (best.gained & CLUBS).bit_count()}
    return {"key": "learn_why_fewer", **base, "taken": got.taken}


def judge(step: Step, move: str) -> Verdict:
    """The verdict on playing ``move`` in a step: a card (``9H``; its only move) or a move
    with its capture (``5C:2C+4D``). ``ValueError`` when it is no legal move there."""
    state = step_state(step)
    text = move.strip().upper()
    every = [(move_int, outcome(state, move_int)) for move_int in legal_moves(state)]
    found = [pair for pair in every if pair[1].move == text]
    if not found and ":" not in text:
        found = [pair for pair in every if pair[1].move.partition(":")[0] == text]
    if len(found) != 1:
        raise ValueError(f"{move!r} is not one legal move of this step")
    (played, got), best = found[0], right_outcome(step)
    right = got.move == best.move
    return Verdict(right=right, move=got.move, taken=got.taken, leftover=got.leftover,
                   basra=got.basra, why=None if right else _why(step, state, played, got, best),
                   bonus=got.bonus)


def step_view(step: Step) -> dict[str, Any]:
    """A step as the page draws it: the sentence, the floor, the hand, the other hand's
    size, each card's legal moves, the rule family and the preset.

    A pile game's floor is its pile, bottom to top, a face-down card as None; ``shown``
    is the stock's bottom card that every seat sees (None when none is)."""
    state = step_state(step)
    rules = state.rules
    pile = rules.family in PILE_FAMILIES
    floor: list[str | None] = list(card_names(state.floor))
    if pile:
        floor = [None if state.down >> card & 1 else CARD_NAMES[card] for card in state.laid]
    shown = card_names(state.exposed) if pile else []
    return {
        "text": step.text,
        "preset": preset(step.preset).name,
        "family": rules.family,
        "floor": floor,
        "shown": shown[0] if shown else None,
        "hand": card_names(state.hands[0]),
        "other": state.hands[1].bit_count(),
        "stock": state.stock_count,
        "moves": [{"move": o.move, "card": o.move.partition(":")[0], "captured": o.taken}
                  for o in outcomes(step)],
        "last_card": step.last_card,
        "basra_points": rules.pisti_points if pile else rules.basra_points,
        "jack_basra_points": rules.jack_pisti_points if pile else rules.basra_points,
    }

