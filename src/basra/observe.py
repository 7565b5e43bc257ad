"""What one seat may see: the only view of a match that players, bots and clients get.

An :class:`Observation` holds the seat's own hand, the floor, the public history of the
deal and counts of everything hidden (other hands, the stock). Nothing in it depends on
the cards in other hands or on the order of the stock.

In a pile game (Pişti) the first pile's face-down cards are hidden too (spec 9.9): the
floor, the pile, the captured cards, the plays and the legal moves leave out the ones
this seat has not been shown (:func:`basra.state.hidden_down`), and ``down_count`` says
how many of them lie in the pile. A capture is then named by the cards the seat sees;
:func:`basra.state.play` accepts it.

>>> from basra.match import Match
>>> from basra.rules import make_rules
>>> match = Match(make_rules("egyptian"), seed=1)
>>> view = observe(match, 0)
>>> view.hand_counts, view.stock_count, len(view.legal_moves) > 0 or view.to_play != 0
((4, 4), 40, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .cards import CARD_NAMES, card_names, parse_card, parse_cards
from .match import Match, Play
from .rules import PILE_FAMILIES, Rules
from .state import (
    DealState,
    hidden_down,
    legal_moves,
    make_move,
    move_text,
    playing_order,
    seat_turns,
    split_move_text,
)

__all__ = ["HiddenPlaces", "Observation", "hidden_places", "observation_from_dict", "observe",
           "observe_state"]


@dataclass(frozen=True)
class Observation:
    """One seat's view of a match at one moment."""

    rules: Rules
    seat: int
    dealer: int
    to_play: int
    """The seat whose turn it is (-1 once the match is over)."""
    hand: int
    """This seat's hand (mask)."""
    floor: int
    initial_floor: int
    """The floor as the deal began (public)."""
    hand_counts: tuple[int, ...]
    """Cards in each seat's hand."""
    stock_count: int
    pile_counts: tuple[int, ...]
    """Cards captured by each side so far this deal."""
    piles: tuple[int, ...]
    """Each side's captured cards this deal (public: every capture was seen)."""
    last_capturer: int
    """The seat that captured last this deal, -1 before any capture."""
    basras: tuple[int, ...]
    """Basras of each side so far this deal."""
    totals: tuple[int, ...]
    """Match points of each side before this deal."""
    target: int
    carry: int
    """Majority prize held over from tied deals."""
    deal_number: int
    """1 for the first deal."""
    plays: tuple[Play, ...]
    """Every play of this deal so far (public)."""
    legal_moves: tuple[int, ...]
    """This seat's legal moves when it is its turn, else empty."""
    turns: tuple[int, ...] = ()
    """The seat that plays after each seat this deal (seats that sit out an extra deal
    are skipped); see :attr:`basra.state.DealState.turns`."""
    laid: tuple[int, ...] = ()
    """The floor oldest card first, under ``leftover = split`` (else empty)."""

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats that play this deal, in turn order from the first player."""
        return playing_order(self.turns, self.dealer)
    buried: int = 0
    """The cards buried this deal (mask): bury cards that came up on the initial floor and
    were put back into the stock. Every seat saw them; they lie hidden in the stock."""
    batch: int = 1
    """The batch of hands being played, 1 for the hands dealt with the floor; each later
    batch is dealt when every hand is empty (the last, once the deal is over)."""
    pile: tuple[int, ...] = ()
    """Pile games: the pile, bottom to top, with -1 for each face-down card this seat has
    not been shown (empty in the other families)."""
    down_count: int = 0
    """Pile games: the face-down cards in the pile that this seat has not been shown."""
    bottom_card: int = -1
    """Pile games: the stock's exposed bottom card (-1: none); it reaches the dealer in the
    last batch."""
    stock_shown: int = 0
    """Pile games: the stock cards every seat saw (a mask): the bottom card and Jacks sent
    under the stock, while they are in the stock."""
    jack_pistis: tuple[int, ...] = ()
    """Pile games: each side's double piştis so far this deal (``basras`` counts every
    pişti)."""
    down_seen: int = 0
    """Pile games: the first pile's face-down cards this seat has been shown (a mask),
    wherever they lie now: under ``kitty_view``, once captured (or from the start for the
    first player), and every one once the deal is over. The others are hidden."""

    @property
    def side(self) -> int:
        return self.rules.side_of[self.seat]

    @property
    def seen(self) -> int:
        """Every card this seat has seen and knows the place of: its hand, the floor and
        every captured card (all were face up on the floor at some time). The
        :attr:`buried` cards were seen too, but their place in the stock is hidden."""
        mask = self.hand | self.floor
        for pile in self.piles:
            mask |= pile
        return mask

    @property
    def unseen(self) -> int:
        """Cards whose place this seat does not know: in other hands or the stock (the
        buried cards among them)."""
        return ((1 << 52) - 1) & ~self.seen

    def to_dict(self) -> dict[str, Any]:
        """The observation as JSON-ready values (cards by name)."""

        return {
            "seat": self.seat,
            "side": self.side,
            "dealer": self.dealer,
            "to_play": self.to_play,
            "hand": card_names(self.hand),
            "floor": card_names(self.floor),
            "initial_floor": card_names(self.initial_floor),
            "buried": card_names(self.buried),
            "hand_counts": list(self.hand_counts),
            "stock_count": self.stock_count,
            "pile_counts": list(self.pile_counts),
            "piles": [card_names(pile) for pile in self.piles],
            "last_capturer": self.last_capturer,
            "basras": list(self.basras),
            "totals": list(self.totals),
            "target": self.target,
            "carry": self.carry,
            "deal_number": self.deal_number,
            "batch": self.batch,
            "plays": [
                {"seat": p.seat, "card": CARD_NAMES[p.card], "captured": card_names(p.captured),
                 "basra": p.basra, **({"pisti": p.pisti} if p.pisti else {})}
                for p in self.plays
            ],
            "legal_moves": [move_text(m) for m in self.legal_moves],
            "rules": self.rules.to_dict(),
            "seats": list(self.seats),
            **({"floor_order": [CARD_NAMES[c] for c in self.laid]}
               if self.laid and self.floor else {}),
            **({"pile": [CARD_NAMES[c] if c >= 0 else "??" for c in self.pile],
                "down_count": self.down_count,
                "bottom_card": CARD_NAMES[self.bottom_card] if self.bottom_card >= 0 else None,
                "stock_shown": card_names(self.stock_shown),
                "jack_pistis": list(self.jack_pistis),
                "down_seen": card_names(self.down_seen)}
               if self.rules.family in PILE_FAMILIES else {}),
        }


class HiddenPlaces(NamedTuple):
    """Where the cards a seat has not seen may lie, beside the other hands and the stock:
    what a search deals them into (:func:`hidden_places`)."""

    unseen: int
    """The cards to deal at random (a mask): :attr:`Observation.unseen` less the cards
    whose place every seat knows (:attr:`known` and :attr:`tail`)."""
    known: tuple[int, ...]
    """Per seat, the cards known to be in its hand (a mask): a shown bottom card that the
    dealer holds since the last batch and has not played."""
    pile_slots: tuple[int, ...]
    """The places in :attr:`Observation.pile` (bottom first) of the face-down cards the
    seat has not been shown: the pile keeps its order, these places are dealt."""
    captured: tuple[int, ...]
    """Per side, how many face-down cards the seat has not been shown lie among that
    side's captured cards."""
    tail: tuple[int, ...]
    """The cards every seat saw at the stock's bottom, in stock order (the shown bottom
    card, then Jacks sent under the stock): they stay there, dealt last."""
    kitty: int
    """The seat that captured the face-down cards (the deal's first capture), -1 while
    they lie in the pile or where there are none."""


def hidden_places(observation: Observation) -> HiddenPlaces:
    """Where ``observation``'s unseen cards may lie. In the families other than the
    pile games: the other hands and the stock alone. In a pile game, also the face-down
    cards the seat has not been shown (in the pile, or captured by another side), and
    never the cards every seat saw: the shown bottom card stays at the stock's bottom
    (then in the dealer's hand), Jacks sent under the stock stay below it.

    >>> from basra.match import Match
    >>> from basra.rules import make_rules
    >>> view = observe(Match(make_rules("pisti"), seed=2), 0)
    >>> places = hidden_places(view)
    >>> places.pile_slots, places.tail == (view.bottom_card,)
    ((0, 1, 2), True)
    """
    rules = observation.rules
    players = len(observation.hand_counts)
    unseen = observation.unseen
    if rules.family not in PILE_FAMILIES:
        return HiddenPlaces(unseen, (0,) * players, (), (0,) * rules.sides, (), -1)
    known = [0] * players
    bottom = observation.bottom_card
    shown = observation.stock_shown
    tail: list[int] = []
    if bottom >= 0 and shown >> bottom & 1:
        tail.append(bottom)
    tail.extend(c for c in range(52) if shown >> c & 1 and c != bottom)
    if (bottom >= 0 and unseen >> bottom & 1 and not shown >> bottom & 1
            and observation.dealer != observation.seat):
        known[observation.dealer] |= 1 << bottom
    captured = tuple(count - pile.bit_count() for count, pile in
                     zip(observation.pile_counts, observation.piles, strict=True))
    # The deal's first capture takes the face-down cards with the whole first pile.
    kitty = next((play.seat for play in observation.plays if play.captured), -1)
    if not rules.pile_down:
        kitty = -1
    elif kitty < 0 and any(captured):  # without the plays, a seat of that side
        kitty = rules.side_of.index(next(s for s, count in enumerate(captured) if count))
    for mask in known:
        unseen &= ~mask
    return HiddenPlaces(
        unseen & ~shown, tuple(known),
        tuple(i for i, card in enumerate(observation.pile) if card < 0), captured,
        tuple(tail), kitty)


def _mask(names: list[str]) -> int:
    mask = 0
    for card in parse_cards(names):
        mask |= 1 << card
    return mask


def observation_from_dict(data: dict[str, Any]) -> Observation:
    """An observation read back from its JSON (as :meth:`Observation.to_dict` writes it,
    and as a bot gets it in ``docs/protocol.md``): how a program that is given the
    JSON, such as ``basra bot connect``, hands it to a bot. Raises ``ValueError``
    (``KeyError`` for a missing field) on what is not one.

    >>> from basra.match import Match
    >>> from basra.rules import make_rules
    >>> view = observe(Match(make_rules("egyptian"), seed=3), 1)
    >>> observation_from_dict(view.to_dict()) == view
    True
    """
    rules = Rules.from_dict(data["rules"])
    seats = tuple(int(seat) for seat in data["seats"])
    playing = None if len(seats) == rules.players else tuple(sorted(seats))
    moves = []
    for text in data["legal_moves"]:
        card, captured, _sep = split_move_text(text)
        moves.append(make_move(card, captured))
    return Observation(
        rules=rules, seat=int(data["seat"]), dealer=int(data["dealer"]),
        to_play=int(data["to_play"]), hand=_mask(data["hand"]), floor=_mask(data["floor"]),
        initial_floor=_mask(data["initial_floor"]),
        hand_counts=tuple(int(n) for n in data["hand_counts"]),
        stock_count=int(data["stock_count"]),
        pile_counts=tuple(int(n) for n in data["pile_counts"]),
        piles=tuple(_mask(pile) for pile in data["piles"]),
        last_capturer=int(data["last_capturer"]),
        basras=tuple(int(n) for n in data["basras"]),
        totals=tuple(int(n) for n in data["totals"]), target=int(data["target"]),
        carry=int(data["carry"]), deal_number=int(data["deal_number"]),
        plays=tuple(Play(int(p["seat"]), parse_card(p["card"]), _mask(p["captured"]),
                         bool(p["basra"]), int(p.get("pisti", 0))) for p in data["plays"]),
        legal_moves=tuple(moves), turns=seat_turns(rules.players, playing),
        laid=tuple(parse_card(card) for card in data.get("floor_order", ())),
        buried=_mask(data["buried"]), batch=int(data["batch"]),
        **(_pile_fields(data) if rules.family in PILE_FAMILIES else {}),
    )


def _pile_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The pile game's fields of an observation's JSON."""
    bottom = data["bottom_card"]
    return {
        "pile": tuple(-1 if name == "??" else parse_card(name) for name in data["pile"]),
        "down_count": int(data["down_count"]),
        "bottom_card": -1 if bottom is None else parse_card(bottom),
        "stock_shown": _mask(data["stock_shown"]),
        "jack_pistis": tuple(int(n) for n in data["jack_pistis"]),
        "down_seen": _mask(data.get("down_seen", [])),
    }


def observe(match: Match, seat: int) -> Observation:
    """What ``seat`` may see of the match's current deal."""
    rules = match.rules
    if not 0 <= seat < rules.players:
        raise ValueError(f"seat {seat} is not a seat of {rules.players} players")
    history = match.deals[-1]
    totals = list(match.totals)
    carry = match.carry
    if history.score is not None:  # the deal is finished: show the totals before it
        totals = [t - s for t, s in zip(totals, history.score.total, strict=True)]
        carry = history.score.carry_in
    initial_floor = buried = 0
    for card in history.layout.floor:
        initial_floor |= 1 << card
    for card in history.layout.buried:
        buried |= 1 << card
    return observe_state(
        match.state, seat, totals=tuple(totals), target=match.target, carry=carry,
        deal_number=len(match.deals), plays=tuple(history.plays), initial_floor=initial_floor,
        buried=buried,
    )


def observe_state(
    state: DealState,
    seat: int,
    *,
    totals: tuple[int, ...] | None = None,
    target: int | None = None,
    carry: int = 0,
    deal_number: int = 1,
    plays: tuple[Play, ...] = (),
    initial_floor: int | None = None,
    buried: int = 0,
) -> Observation:
    """What ``seat`` may see of a deal state (a position without its match around it)."""
    rules = state.rules
    if not 0 <= seat < rules.players:
        raise ValueError(f"seat {seat} is not a seat of {rules.players} players")
    in_progress = not state.is_over
    to_play = state.to_play if in_progress else -1
    batches = (52 - rules.floor_size) // (len(state.seats) * rules.hand_size)
    moves = tuple(legal_moves(state)) if to_play == seat else ()
    pile_fields: dict[str, Any] = {}
    hidden = hidden_down(state, seat)
    if state.table.pile:
        pile_fields = {
            "pile": tuple(-1 if hidden >> c & 1 else c for c in state.laid) if state.floor
            else (),
            "down_count": (hidden & state.floor).bit_count(),
            "bottom_card": state.bottom_card,
            "stock_shown": state.exposed & state.stock_mask(),
            "jack_pistis": state.jack_pistis,
            "down_seen": state.down & ~hidden,
        }
        if hidden:
            moves = tuple(m & ~(hidden << 6) for m in moves)
            plays = tuple(p._replace(captured=p.captured & ~hidden) for p in plays)
    return Observation(
        rules=rules,
        seat=seat,
        dealer=state.dealer,
        to_play=to_play,
        hand=state.hands[seat],
        floor=state.floor & ~hidden,
        initial_floor=(state.floor if initial_floor is None else initial_floor) & ~hidden,
        hand_counts=tuple(h.bit_count() for h in state.hands),
        stock_count=state.stock_count,
        pile_counts=tuple(p.bit_count() for p in state.piles),
        piles=tuple(pile & ~hidden for pile in state.piles),
        last_capturer=state.last_capturer,
        basras=state.basras,
        totals=(0,) * rules.sides if totals is None else totals,
        target=rules.target if target is None else target,
        carry=carry,
        deal_number=deal_number,
        plays=plays,
        legal_moves=moves,
        turns=state.turns,
        laid=() if state.table.pile else state.laid,  # a pile game's order is in pile
        buried=buried,
        # At least 1: a hand-made position with a short floor may hold one batch more.
        batch=max(1, batches - len(state.batches)),
        **pile_fields,
    )
