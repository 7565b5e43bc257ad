"""What one seat may see: the only view of a match that players, bots and clients get.

An :class:`Observation` holds the seat's own hand, the floor, the public history of the
deal and counts of everything hidden (other hands, the stock). Nothing in it depends on
the cards in other hands or on the order of the stock.

>>> from basra.match import Match
>>> from basra.rules import make_rules
>>> match = Match(make_rules("egyptian"), seed=1)
>>> view = observe(match, 0)
>>> view.hand_counts, view.stock_count, len(view.legal_moves) > 0 or view.to_play != 0
((4, 4), 40, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import CARD_NAMES, iter_cards
from .match import Match, Play
from .rules import Rules
from .state import move_text

__all__ = ["Observation", "observe"]


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

    @property
    def side(self) -> int:
        return self.rules.side_of[self.seat]

    @property
    def seen(self) -> int:
        """Every card this seat has seen: its hand, the initial floor and all plays."""
        mask = self.hand | self.initial_floor
        for play in self.plays:
            mask |= 1 << play.card
        return mask

    @property
    def piles(self) -> tuple[int, ...]:
        """Each side's captured cards this deal (public: every capture was seen)."""
        piles = [0] * self.rules.sides
        side_of = self.rules.side_of
        for play in self.plays:
            if play.captured:
                piles[side_of[play.seat]] |= play.captured | 1 << play.card
        return tuple(piles)

    @property
    def last_capturer(self) -> int:
        """The seat that captured last this deal, -1 before any capture."""
        for play in reversed(self.plays):
            if play.captured:
                return play.seat
        return -1

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: in other hands or the stock."""
        return ((1 << 52) - 1) & ~self.seen

    def to_dict(self) -> dict[str, Any]:
        """The observation as JSON-ready values (cards by name)."""

        def names(mask: int) -> list[str]:
            return [CARD_NAMES[c] for c in iter_cards(mask)]

        return {
            "seat": self.seat,
            "side": self.side,
            "dealer": self.dealer,
            "to_play": self.to_play,
            "hand": names(self.hand),
            "floor": names(self.floor),
            "initial_floor": names(self.initial_floor),
            "hand_counts": list(self.hand_counts),
            "stock_count": self.stock_count,
            "pile_counts": list(self.pile_counts),
            "basras": list(self.basras),
            "totals": list(self.totals),
            "target": self.target,
            "carry": self.carry,
            "deal_number": self.deal_number,
            "plays": [
                {"seat": p.seat, "card": CARD_NAMES[p.card], "captured": names(p.captured),
                 "basra": p.basra}
                for p in self.plays
            ],
            "legal_moves": [move_text(m) for m in self.legal_moves],
            "rules": self.rules.to_dict(),
        }


def observe(match: Match, seat: int) -> Observation:
    """What ``seat`` may see of the match's current deal."""
    rules = match.rules
    if not 0 <= seat < rules.players:
        raise ValueError(f"seat {seat} is not a seat of {rules.players} players")
    state = match.state
    history = match.deals[-1]
    in_progress = match.deal_in_progress
    totals = list(match.totals)
    if history.score is not None:  # the deal is finished: show the totals before it
        totals = [t - s for t, s in zip(totals, history.score.total, strict=True)]
    initial_floor = 0
    for card in history.layout.floor:
        initial_floor |= 1 << card
    to_play = state.to_play if in_progress else -1
    return Observation(
        rules=rules,
        seat=seat,
        dealer=state.dealer,
        to_play=to_play,
        hand=state.hands[seat],
        floor=state.floor,
        initial_floor=initial_floor,
        hand_counts=tuple(h.bit_count() for h in state.hands),
        stock_count=state.stock_count,
        pile_counts=tuple(p.bit_count() for p in state.piles),
        basras=state.basras,
        totals=tuple(totals),
        target=match.target,
        carry=match.carry if history.score is None else history.score.carry_in,
        deal_number=len(match.deals),
        plays=tuple(history.plays),
        legal_moves=tuple(match.legal_moves()) if to_play == seat else (),
    )
