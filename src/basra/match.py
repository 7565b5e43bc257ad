"""A match: deals in turn, dealer rotation, majority carry-over, target and tie rules.

:class:`Match` is the mutable convenience wrapper around the pure deal functions: it keeps
the history (layouts, plays, scores) that records and observations need.

>>> import random
>>> from basra.rules import make_rules
>>> match = Match(make_rules("egyptian"), seed=3)
>>> rng = random.Random(0)
>>> while not match.is_over:
...     _ = match.play(rng.choice(match.legal_moves()))
>>> match.winner is not None and max(match.totals) >= match.target
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import NamedTuple

from .rules import Rules
from .state import (
    DealScore,
    DealState,
    IllegalMoveError,
    Layout,
    apply,
    canonical_move,
    check_layout,
    deal_layout,
    deal_score,
    layout_seats,
    leftover_shares,
    legal_moves,
    play,
    start_deal,
)

__all__ = ["DealHistory", "Match", "MatchOverError", "Play", "match_result", "tied_seats"]


class MatchOverError(IllegalMoveError):
    """A play or a deal asked of a finished match."""


class Play(NamedTuple):
    """One play of a deal as the record writes it."""

    seat: int
    card: int
    captured: int
    """Mask of the floor cards taken (0 for a trail)."""
    basra: bool
    """Whether the play scored a basra (a sur, a pişti)."""
    pisti: int = 0
    """Pile games: the points of the play's pişti (0, pisti_points or
    jack_pisti_points; spec 9.5.8)."""


@dataclass
class DealHistory:
    """A deal as it was dealt and played."""

    layout: Layout
    plays: list[Play] = field(default_factory=list)
    leftover_seat: int = -1
    """The last capturer, who took the leftover (-1: nobody captured)."""
    leftover: int = 0
    shares: tuple[tuple[int, int], ...] = ()
    """Under ``leftover = split``: (card, side) for each leftover card, in the order they
    were given out."""
    score: DealScore | None = None
    """None while the deal is being played."""


def match_result(rules: Rules, totals: tuple[int, ...] | list[int],
                 target: int) -> tuple[int | None, int]:
    """After a deal: (winning side or None, target for the next deal), spec section 7.

    >>> from basra.rules import make_rules
    >>> match_result(make_rules("egyptian"), [104, 110], 101)
    (1, 101)
    >>> match_result(make_rules("egyptian"), [110, 110], 101)
    (None, 101)
    >>> match_result(make_rules("three-player"), [55, 58, 30], 51)
    (None, 61)
    >>> match_result(make_rules("three-player"), [64, 77, 40], 61)
    (None, 81)
    >>> match_result(make_rules("three-player", overrides={"target_raise": "step"}),
    ...              [64, 77, 40], 61)
    (None, 71)
    >>> match_result(make_rules("three-player", overrides={"target_raise": "lead"}),
    ...              [52, 60, 20], 51)
    (None, 70)
    """
    reached = [side for side, total in enumerate(totals) if total >= target]
    if not reached:
        return None, target
    if rules.tie_rule == "raise":
        if len(reached) == 1:
            return reached[0], target
        step = rules.target_step
        if rules.target_raise == "lead":
            return None, max(totals) + step
        if rules.target_raise == "step" or step == 0:
            return None, target + step
        # above: the first step above every side's total ("61, then 71 and so on").
        return None, target + step * ((max(totals) - target) // step + 1)
    best = max(totals)
    leaders = [side for side, total in enumerate(totals) if total == best]
    return (leaders[0] if len(leaders) == 1 else None), target


def tied_seats(rules: Rules, totals: list[int] | tuple[int, ...], target: int,
               winner: int | None) -> tuple[int, ...] | None:
    """The seats that play the next deal under ``tie_deal = tied``: those of the sides tied
    with the highest total at or over the target, when others are not; else None (all).

    >>> from basra.rules import make_rules
    >>> rules = make_rules("egyptian", 3, {"tie_deal": "tied"})
    >>> tied_seats(rules, [110, 110, 90], 101, None)
    (0, 1)
    >>> tied_seats(rules, [110, 110, 110], 101, None) is None
    True
    """
    if winner is not None or rules.tie_rule != "highest" or rules.tie_deal != "tied":
        return None
    best = max(totals)
    if best < target:
        return None
    leaders = {side for side, total in enumerate(totals) if total == best}
    if len(leaders) == rules.sides:
        return None
    return tuple(seat for seat in range(rules.players) if rules.side_of[seat] in leaders)


class Match:
    """A match played deal by deal to the target.

    With ``auto_deal`` (the default) the first deal is dealt at once and each next one
    as the previous ends, from a ``random.Random(seed)`` used for nothing but dealing, so
    the same seed gives the same deals. Without it, call :meth:`deal` with each layout
    (as a replay does).
    """

    def __init__(
        self,
        rules: Rules,
        seed: int | None = None,
        *,
        variant: str = "egyptian",
        first_dealer: int | None = None,
        auto_deal: bool = True,
    ) -> None:
        self.rules = rules
        self.variant = variant
        self.seed = seed
        self.rng = random.Random(seed)
        self.first_dealer = (
            self.rng.randrange(rules.players) if first_dealer is None else first_dealer
        )
        self.auto_deal = auto_deal
        self.totals: list[int] = [0] * rules.sides
        self.target = rules.target
        self.carry = 0
        """Majority prize held over from tied deals."""
        self.deals: list[DealHistory] = []
        self.winner: int | None = None
        self.playing: tuple[int, ...] | None = None
        """The seats that play the next deal: None for all, or the seats of the sides
        tied at the top under ``tie_deal = tied``."""
        self.resigned: list[int] = []
        """The sides that resigned, the first to go first (:meth:`resign`)."""
        self._state: DealState | None = None
        if auto_deal:
            self.deal()

    @property
    def state(self) -> DealState:
        """The state of the current (or last) deal."""
        if self._state is None:
            raise MatchOverError("no deal has been dealt yet")
        return self._state

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def deal_in_progress(self) -> bool:
        return self._state is not None and not self._state.is_over

    @property
    def next_dealer(self) -> int:
        return (self.first_dealer + len(self.deals)) % self.rules.players

    def deal(self, layout: Layout | None = None) -> DealState:
        """Start the next deal, shuffled from the match's generator or from ``layout``."""
        if self.is_over:
            raise MatchOverError("the match is over")
        if self.deal_in_progress:
            raise IllegalMoveError("the current deal is not finished")
        if layout is None:
            layout = deal_layout(self.rules, self.next_dealer, self.rng, self.playing)
        else:
            check_layout(self.rules, layout)
            if layout.dealer != self.next_dealer:
                raise IllegalMoveError(
                    f"the dealer of this deal is seat {self.next_dealer}, not {layout.dealer}"
                )
            expected = self.playing or tuple(range(self.rules.players))
            if layout_seats(layout) != expected:
                raise IllegalMoveError(
                    f"this deal is played by seats {' '.join(map(str, expected))}, not "
                    f"{' '.join(map(str, layout_seats(layout)))}")
        self.deals.append(DealHistory(layout))
        self._state = start_deal(self.rules, layout)
        return self._state

    def sides_in_play(self) -> list[int]:
        """The sides that have not resigned."""
        return [side for side in range(self.rules.sides) if side not in self.resigned]

    def resign(self, side: int) -> None:
        """Side ``side`` resigns: it can no longer win. Once one side is left in play the
        match is over and that side wins, at the totals reached so far (the deal being
        played is not scored); otherwise play goes on (someone plays the side's seats
        out) and the winner is the best side that did not resign.

        >>> from basra.rules import make_rules
        >>> match = Match(make_rules("egyptian"), seed=3)
        >>> match.resign(0)
        >>> match.is_over, match.winner, match.resigned
        (True, 1, [0])
        """
        if self.is_over:
            raise MatchOverError("the match is over")
        if not 0 <= side < self.rules.sides or side in self.resigned:
            raise ValueError(f"side {side!r} cannot resign: the sides in play are "
                             f"{self.sides_in_play()}")
        self.resigned.append(side)
        if len(self.sides_in_play()) <= 1:
            self.stop()

    def stop(self) -> None:
        """End the match now, at the totals reached so far: the side in play with the
        most points wins (the first of them on a tie)."""
        if self.is_over:
            raise MatchOverError("the match is over")
        left = self.sides_in_play() or list(range(self.rules.sides))
        self.winner = max(left, key=lambda side: (self.totals[side], -side))
        self.carry = 0
        self.playing = None

    def legal_moves(self) -> list[int]:
        """The legal moves of the seat to play."""
        return legal_moves(self.state) if self.deal_in_progress else []

    def play(self, move: int, *, checked: bool = True) -> Play:
        """Play a move for the seat to play; scores the deal and the match as they end."""
        if self.is_over:
            raise MatchOverError("the match is over")
        before = self.state
        move = canonical_move(before, move)
        after = play(before, move) if checked else apply(before, move)
        side = self.rules.side_of[before.to_play]
        basra = after.basras[side] > before.basras[side]
        pisti = 0
        if basra and before.table.pile:
            pisti = (self.rules.jack_pisti_points
                     if after.jack_pistis[side] > before.jack_pistis[side]
                     else self.rules.pisti_points)
        made = Play(before.to_play, move & 63, move >> 6, basra, pisti)
        self._state = after
        history = self.deals[-1]
        history.plays.append(made)
        if after.is_over:
            self._finish_deal(after, history)
        return made

    def _finish_deal(self, state: DealState, history: DealHistory) -> None:
        if state.leftover:
            history.leftover_seat = state.last_capturer
            history.leftover = state.leftover
            if state.table.ordered:
                history.shares = tuple(leftover_shares(
                    state.table, state.laid, state.last_capturer, state.dealer, state.turns))
        score = deal_score(state, self.carry)
        history.score = score
        self.carry = score.carry_out
        for side, points in enumerate(score.total):
            self.totals[side] += points
        self.winner, self.target = match_result(self.rules, self.totals, self.target)
        if self.winner is not None and self.winner in self.resigned:
            left = self.sides_in_play()  # a side that resigned cannot win
            self.winner = max(left, key=lambda side: (self.totals[side], -side))
        self.playing = tied_seats(self.rules, self.totals, self.target, self.winner)
        if self.winner is not None:
            self.carry = 0  # a match that ends drops the pending majority prize
        elif self.auto_deal:
            self.deal()
