"""One deal: the layout, the immutable state, legal moves, plays and the deal score.

A move is an int: the played card in the low six bits and the captured cards' mask
above them (``card | captured << 6``); a trail captures nothing::

    bits  63 .. 6          5 .. 0
          captured mask    card

:func:`apply` is the unchecked fast path (for search and simulation); :func:`play` is the
checked entry point for moves from outside and raises :class:`IllegalMoveError`.

>>> import random
>>> from basra.rules import make_rules
>>> state = new_deal(make_rules("egyptian"), dealer=1, rng=random.Random(7))
>>> while not state.is_over:
...     state = apply(state, legal_moves(state)[0])
>>> sum(pile.bit_count() for pile in state.piles) + state.floor.bit_count()
52
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import NamedTuple

from .captures import CaptureTable, captures_for
from .cards import (
    ALL_CARDS,
    CARD_NAMES,
    JACK,
    KING,
    QUEEN,
    card_name,
    cards_text,
    iter_cards,
    parse_card,
    parse_cards,
    rank_mask,
)
from .rules import Rules

__all__ = [
    "AmbiguousMoveError",
    "DealScore",
    "DealState",
    "IllegalMoveError",
    "InvalidMoveError",
    "Layout",
    "LayoutError",
    "apply",
    "capture_table",
    "deal_layout",
    "deal_score",
    "leftover_shares",
    "legal_moves",
    "make_move",
    "move_captured",
    "move_card",
    "move_text",
    "new_deal",
    "parse_move",
    "play",
    "random_playout",
    "split_move_text",
    "start_deal",
]


class LayoutError(ValueError):
    """A deal layout that is not a shuffled deck dealt by the rules."""


class InvalidMoveError(ValueError):
    """Move text that cannot be read as a move."""


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in this position."""


class AmbiguousMoveError(ValueError):
    """Move text that fits several legal moves (several capture choices)."""


@lru_cache(maxsize=64)
def capture_table(rules: Rules) -> CaptureTable:
    """The shared, memoised capture table of a rules value."""
    return captures_for(rules)


# Moves


def make_move(card: int, captured: int = 0) -> int:
    """The move that plays ``card`` and captures the cards of mask ``captured``."""
    return card | captured << 6


def move_card(move: int) -> int:
    """The card a move plays."""
    return move & 63


def move_captured(move: int) -> int:
    """The mask of the floor cards a move captures (0 for a trail)."""
    return move >> 6


def move_text(move: int) -> str:
    """``7H`` for a trail, ``7H:4H+3C+7S`` for a capture.

    >>> move_text(make_move(25, 1 << 24 | 1 << 13 | 1 << 11))
    '7H:3C+4H+7S'
    """
    card, captured = move & 63, move >> 6
    if not captured:
        return CARD_NAMES[card]
    return CARD_NAMES[card] + ":" + "+".join(CARD_NAMES[c] for c in iter_cards(captured))


# Layout and state

_DECK = tuple(range(52))
_BITS = tuple(1 << card for card in _DECK)


class Layout(NamedTuple):
    """How a deal was dealt: the record's ``dealer``, ``floor``, ``hands``, ``stock`` and
    ``buried``."""

    dealer: int
    floor: tuple[int, ...]
    """The initial floor, after burying."""
    hands: tuple[tuple[int, ...], ...]
    """The first batch of each seat."""
    stock: tuple[int, ...]
    """The rest of the deck in dealing order."""
    buried: tuple[int, ...] = ()
    """The bury cards that came up on the initial floor and went back into the stock, one
    entry per burial in the order they happened (a card that comes up again as a
    replacement and is buried again is listed again). Every seat saw them face up; they lie
    somewhere in ``stock``. Empty when nothing was buried, or when it is not known (a layout
    read from an older record)."""


class DealState(NamedTuple):
    """The whole state of a deal in progress. Immutable; advance it with :func:`apply`."""

    table: CaptureTable
    """The rules with their memoised capture tables."""
    dealer: int
    to_play: int
    """The seat whose turn it is."""
    floor: int
    hands: tuple[int, ...]
    """Each seat's hand as a mask."""
    piles: tuple[int, ...]
    """Each side's captured cards."""
    basras: tuple[int, ...]
    """Each side's basras."""
    last_capturer: int
    """The seat that captured last, -1 before any capture."""
    batches: tuple[tuple[int, ...], ...]
    """The batches of hands still to be dealt, in order (the stock)."""
    leftover: int
    """The floor cards given out when the deal ended (0 until then): to the last capturer,
    or one at a time to each side in turn under ``leftover = split``."""
    turns: tuple[int, ...]
    """The seat that plays after each seat: the next seat, skipping seats that sit out an
    extra deal (``tie_deal = tied``)."""
    laid: tuple[int, ...]
    """The floor cards in the order they were laid, oldest first; kept only under
    ``leftover = split`` (empty otherwise). At the end of the deal, the leftover in the
    order it was given out."""

    @property
    def rules(self) -> Rules:
        return self.table.rules

    @property
    def first(self) -> int:
        """The seat that plays first in this deal (the one after the dealer)."""
        return self.turns[self.dealer]

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats that play this deal, in turn order from the first."""
        return playing_order(self.turns, self.dealer)

    @property
    def is_over(self) -> bool:
        """Whether every card of the deal has been played."""
        return not self.batches and not any(self.hands)

    @property
    def stock_count(self) -> int:
        """Cards not yet dealt."""
        return sum(hand.bit_count() for later in self.batches for hand in later)

    def stock_mask(self) -> int:
        """The cards not yet dealt."""
        mask = 0
        for later in self.batches:
            for hand in later:
                mask |= hand
        return mask

    def __repr__(self) -> str:
        hands = " ".join(str(hand.bit_count()) for hand in self.hands)
        return (f"<DealState dealer {self.dealer} turn {self.to_play} "
                f"floor {cards_text(self.floor) or '-'} hands {hands} stock {self.stock_count}>")


@lru_cache(maxsize=256)
def seat_turns(players: int, seats: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """The seat after each seat when only ``seats`` play (all of them by default).

    >>> seat_turns(4), seat_turns(4, (0, 2)), seat_turns(3, (1, 2))
    ((1, 2, 3, 0), (2, 2, 0, 0), (1, 2, 1))
    """
    playing = range(players) if seats is None else seats
    return tuple(next(s % players for s in range(seat + 1, seat + players + 1)
                      if s % players in playing) for seat in range(players))


def playing_order(turns: tuple[int, ...], dealer: int) -> tuple[int, ...]:
    """The seats that play, in turn order from the one after ``dealer``."""
    order = [turns[dealer]]
    while turns[order[-1]] != order[0]:
        order.append(turns[order[-1]])
    return tuple(order)


_COURT_RANKS = tuple(rank_mask(rank) for rank in (JACK, QUEEN, KING))
CLUBS = sum(1 << card for card in range(3, 52, 4))
"""The mask of the thirteen clubs."""


def needs_redeal(rules: Rules, floor: list[int] | tuple[int, ...]) -> bool:
    """Pasur's shuffle again (``floor_redeal``): more than one Jack, or more than two
    Queens or two Kings, on the initial floor."""
    if not rules.floor_redeal:
        return False
    mask = 0
    for card in floor:
        mask |= 1 << card
    jacks, queens, kings = ((mask & ranks).bit_count() for ranks in _COURT_RANKS)
    return jacks > 1 or queens > 2 or kings > 2


def deal_layout(rules: Rules, dealer: int, rng: random.Random,
                seats: tuple[int, ...] | None = None) -> Layout:
    """Shuffle and deal: hands, then the floor, with floor burying (spec section 2).

    Each bury card on the initial floor goes back into the stock at a random position
    and is replaced from the top of the stock, until the floor holds none; the layout's
    ``buried`` lists each burial in order. Under ``floor_redeal`` a floor with more than
    one Jack, or more than two Queens or Kings (as dealt, or after burying), is gathered
    and the whole deck shuffled again. Only ``seats`` are dealt cards when given (an extra
    deal between tied sides).
    """
    order = playing_order(seat_turns(rules.players, seats), dealer)
    size = rules.hand_size
    while True:
        # A uniform shuffle: sort the deck by 52 independent random keys (one C-level
        # call each, several times faster than random.shuffle's 51 Python-level draws).
        keys = [rng.random() for _ in _DECK]
        deck = sorted(_DECK, key=keys.__getitem__)
        hands: list[tuple[int, ...]] = [()] * rules.players
        for i, seat in enumerate(order):
            hands[seat] = tuple(deck[i * size:(i + 1) * size])
        start = len(order) * size
        floor = deck[start:start + rules.floor_size]
        if needs_redeal(rules, floor):
            continue
        stock = deck[start + rules.floor_size:]
        bury = rules.bury_mask
        buried: list[int] = []
        for i, card in enumerate(floor):
            while bury >> card & 1:
                buried.append(card)
                replacement = stock.pop(0)
                stock.insert(rng.randint(0, len(stock)), card)
                floor[i] = card = replacement
        if not needs_redeal(rules, floor):
            return Layout(dealer, tuple(floor), tuple(hands), tuple(stock), tuple(buried))


def check_layout(rules: Rules, layout: Layout) -> None:
    """Raise :class:`LayoutError` unless the layout is a whole deck dealt by these rules.

    The ``buried`` cards, when listed, must be bury cards of the rules and lie in the stock.
    """
    n, size = rules.players, rules.hand_size
    if not (isinstance(layout.dealer, int) and 0 <= layout.dealer < n):
        raise LayoutError(f"dealer must be a seat from 0 to {n - 1}, not {layout.dealer!r}")
    if len(layout.floor) != rules.floor_size:
        raise LayoutError(f"the floor has {len(layout.floor)} cards, expected {rules.floor_size}")
    if len(layout.hands) != n:
        raise LayoutError(f"{len(layout.hands)} hands dealt, expected one for each of {n} seats")
    playing = layout_seats(layout)
    if len(playing) < 2:
        raise LayoutError("at least two seats must be dealt cards")
    for seat in playing:
        hand = layout.hands[seat]
        if len(hand) != size:
            raise LayoutError(f"seat {seat} was dealt {len(hand)} cards, expected {size}")
    expected_stock = 52 - rules.floor_size - len(playing) * size
    if len(layout.stock) != expected_stock:
        raise LayoutError(f"the stock has {len(layout.stock)} cards, expected {expected_stock}")
    cards = [*layout.floor, *(c for hand in layout.hands for c in hand), *layout.stock]
    if any(not isinstance(c, int) or not 0 <= c < 52 for c in cards):
        raise LayoutError("a card of the layout is not a card")
    if len(set(cards)) != 52:
        seen: set[int] = set()
        for card in cards:
            if card in seen:
                raise LayoutError(f"card {card_name(card)} is dealt twice")
            seen.add(card)
    unburied = [card_name(c) for c in layout.floor if rules.bury_mask >> c & 1]
    if unburied:
        raise LayoutError(f"the initial floor holds {' '.join(unburied)}, which must be buried")
    if needs_redeal(rules, layout.floor):
        raise LayoutError("the initial floor holds more than two Queens or Kings, which "
                          "the rules shuffle again")
    # Where a buried card went in the stock is random: only what it is can be checked.
    for card in layout.buried:
        if not isinstance(card, int) or not 0 <= card < 52:
            raise LayoutError(f"a buried card is not a card: {card!r}")
        if not rules.bury_mask >> card & 1:
            bury = " ".join(rules.bury) or "no cards"
            raise LayoutError(f"{card_name(card)} is listed as buried, but these rules bury "
                              f"{bury}")
        if card not in layout.stock:
            raise LayoutError(f"{card_name(card)} is listed as buried, but it is not in the "
                              "stock")


def layout_seats(layout: Layout) -> tuple[int, ...]:
    """The seats a layout deals cards to (all of them, except in an extra deal between tied
    sides)."""
    return tuple(seat for seat, hand in enumerate(layout.hands) if hand)


def start_deal(rules: Rules, layout: Layout) -> DealState:
    """The state at the start of a dealt layout (unchecked: see :func:`check_layout`)."""
    n, size = rules.players, rules.hand_size
    playing = layout_seats(layout)
    turns = seat_turns(n, None if len(playing) == n else playing)
    order = playing_order(turns, layout.dealer)
    bits = _BITS
    first_batch = []
    for cards in layout.hands:
        mask = 0
        for card in cards:
            mask |= bits[card]
        first_batch.append(mask)
    batches = []
    stock = layout.stock
    position = 0
    while position < len(stock):
        batch = [0] * n
        for seat in order:
            mask = 0
            for card in stock[position:position + size]:
                mask |= bits[card]
            batch[seat] = mask
            position += size
        batches.append(tuple(batch))
    floor = 0
    for card in layout.floor:
        floor |= bits[card]
    sides = (0,) * rules.sides
    table = capture_table(rules)
    return DealState(
        table, layout.dealer, order[0], floor, tuple(first_batch), sides, sides,
        -1, tuple(batches), 0, turns, tuple(layout.floor) if table.ordered else (),
    )


def new_deal(rules: Rules, dealer: int, rng: random.Random) -> DealState:
    """Shuffle, deal and return the starting state."""
    return start_deal(rules, deal_layout(rules, dealer, rng))


# Moves and plays

_new_state = tuple.__new__


def legal_moves(state: DealState) -> list[int]:
    """Every legal move of the seat to play, card by card (lowest card first).

    Each equally large capture set is its own move; a card that captures nothing trails.
    """
    return _moves(state.table, state.hands[state.to_play], state.floor)


def _moves(table: CaptureTable, hand: int, floor: int) -> list[int]:
    """The moves of ``hand`` on ``floor``: the move generator behind :func:`legal_moves`
    and :func:`random_playout`."""
    key_masks = table.key_masks
    memos = table.memos
    optional = table.optional
    sweeps = table.sweeps
    moves: list[int] = []
    append = moves.append
    while hand:
        low = hand & -hand
        hand ^= low
        card = low.bit_length() - 1
        memo = memos[card]
        captures: tuple[int, ...]
        if memo is None:
            if floor and sweeps[card]:
                captures = (floor << 6,)
            else:
                captures = table.shifted_options(card, floor)
        else:
            key = floor & key_masks[card]
            known = memo.get(key)
            if known is None:
                known = memo[key] = table.shifted_options(card, key)
            captures = known
        if captures:
            for captured in captures:
                append(card | captured)
            if optional:
                append(card)
        else:
            append(card)
    return moves


def apply(state: DealState, move: int) -> DealState:
    """The state after ``move`` (unchecked: the move must be one of :func:`legal_moves`).

    Deals the next batch when every hand is empty, and at the end of the deal gives out
    the floor (to the last capturer, or split under ``leftover = split``).
    """
    table, dealer, seat, floor, hands, piles, basras, last, batches, leftover, turns, laid = state
    card = move & 63
    captured = move >> 6
    bit = 1 << card
    seats = list(hands)
    hand = seats[seat] ^ bit
    seats[seat] = hand
    hands = tuple(seats)
    following = turns[seat]
    round_over = not hand and following == turns[dealer]
    if captured:
        side = table.side_of[seat]
        sides = list(piles)
        sides[side] |= captured | bit
        piles = tuple(sides)
        if (
            captured == floor if table.clears[card] else table.is_basra(floor, card, captured)
        ) and (batches or (table.late_basra and (table.last_play_basra or not round_over))):
            sides = list(basras)
            sides[side] += 1
            basras = tuple(sides)
        floor ^= captured
        if laid:
            laid = tuple(c for c in laid if not captured >> c & 1)
        last = seat
    else:
        floor |= bit
        if table.ordered:
            laid = (*laid, card)
    if round_over:
        if batches:
            hands = batches[0]
            batches = batches[1:]
        elif floor and table.ordered:
            sides = list(piles)
            for card, side in leftover_shares(table, laid, last, dealer, turns):
                sides[side] |= 1 << card
            piles = tuple(sides)
            leftover, floor = floor, 0  # laid keeps the order the leftover was given out
        elif last >= 0 and floor:
            side = table.side_of[last]
            sides = list(piles)
            sides[side] |= floor
            piles = tuple(sides)
            leftover, floor = floor, 0
    return _new_state(
        DealState,
        (table, dealer, following, floor, hands, piles, basras, last, batches, leftover, turns,
         laid),
    )


def leftover_shares(table: CaptureTable, laid: tuple[int, ...], last: int, dealer: int,
                    turns: tuple[int, ...]) -> list[tuple[int, int]]:
    """Under ``leftover = split``: (card, side) for each card left on the floor, oldest
    laid first, to each side in turn from the side after the last capturer's (after the
    dealer's when nobody captured)."""
    seat = turns[last if last >= 0 else dealer]
    shares = []
    for card in laid:
        shares.append((card, table.side_of[seat]))
        seat = turns[seat]
    return shares


def random_playout(state: DealState, rng: random.Random) -> DealState:
    """Play uniformly random legal moves to the end of the deal; the final state.

    The fast path for simulation and search rollouts: the same result as repeating
    ``apply(state, moves[int(rng.random() * len(moves))])`` with ``moves =
    legal_moves(state)``, drawing the same random numbers, but with the state kept in
    local variables between plays.
    """
    table, dealer, seat, floor, hands, piles, basras, last, batches, leftover, turns, laid = state
    if table.ordered:
        # The leftover split needs the order of the floor: the plain path keeps it.
        while not state.is_over:
            moves = legal_moves(state)
            state = apply(state, moves[int(rng.random() * len(moves))])
        return state
    generate = _moves
    clears = table.clears
    side_of = table.side_of
    last_play_basra = table.last_play_basra
    late_basra = table.late_basra
    is_basra = table.is_basra
    random_ = rng.random
    seats = list(hands)
    sides = list(piles)
    basra_counts = list(basras)
    first = turns[dealer]
    while True:
        hand = seats[seat]
        if not hand:
            break
        moves = generate(table, hand, floor)
        move = moves[int(random_() * len(moves))]
        card = move & 63
        captured = move >> 6
        bit = 1 << card
        hand = seats[seat] ^ bit
        seats[seat] = hand
        following = turns[seat]
        round_over = not hand and following == first
        if captured:
            side = side_of[seat]
            sides[side] |= captured | bit
            if (
                captured == floor if clears[card] else is_basra(floor, card, captured)
            ) and (batches or (late_basra and (last_play_basra or not round_over))):
                basra_counts[side] += 1
            floor ^= captured
            last = seat
        else:
            floor |= bit
        seat = following
        if round_over:
            if batches:
                seats = list(batches[0])
                batches = batches[1:]
            elif last >= 0 and floor:
                sides[side_of[last]] |= floor
                leftover, floor = floor, 0
    return _new_state(
        DealState,
        (table, dealer, seat, floor, tuple(seats), tuple(sides), tuple(basra_counts), last,
         batches, leftover, turns, laid),
    )


def _position_for_error(state: DealState) -> str:
    return (f"seat {state.to_play} to play, hand {cards_text(state.hands[state.to_play])}, "
            f"floor {cards_text(state.floor)}")


def play(state: DealState, move: int) -> DealState:
    """The checked :func:`apply`: raises :class:`IllegalMoveError` for an illegal move."""
    if state.is_over:
        raise IllegalMoveError("the deal is over: no more plays")
    if not isinstance(move, int) or move < 0 or move & 63 >= 52 or move >> 6 > ALL_CARDS:
        raise IllegalMoveError(f"not a move: {move!r}")
    if move not in legal_moves(state):
        card = move & 63
        if not state.hands[state.to_play] >> card & 1:
            reason = f"{card_name(card)} is not in the hand"
        elif move >> 6:
            reason = f"{card_name(card)} cannot capture {cards_text(move >> 6)}"
        else:
            reason = f"{card_name(card)} must capture"
        raise IllegalMoveError(
            f"illegal move {move_text(move)}: {reason} ({_position_for_error(state)})"
        )
    return apply(state, move)


def split_move_text(text: str) -> tuple[int, int, bool]:
    """Read move text alone: (card, captured mask, whether a ``:`` part was given).

    ``7H`` gives ``(25, 0, False)``; ``7H:4H+3C`` the captured cards; ``7H:`` or ``7H:-``
    an explicit trail. Raises :class:`InvalidMoveError` for text that is not a move.
    """
    card_text, sep, captured_text = text.strip().partition(":")
    try:
        card = parse_card(card_text)
        captured = 0
        if sep and captured_text.strip() not in ("", "-"):
            for c in parse_cards(captured_text.replace("+", " ")):
                captured |= 1 << c
    except ValueError as error:
        raise InvalidMoveError(f"bad move {text!r}: {error}") from None
    return card, captured, bool(sep)


def parse_move(state: DealState, text: str) -> int:
    """Read a move in the position: ``7H`` or ``7H:4H+3C+7S`` (captures in any order).

    A bare card means its trail where trailing it is legal, otherwise its only capture;
    raises :class:`AmbiguousMoveError` when the card has several capture choices.
    """
    card, captured, sep = split_move_text(text)
    legal = legal_moves(state)
    if sep or (card in legal):
        move = make_move(card, captured)
        if move not in legal:
            play(state, move)  # raises with the reason
        return move
    choices = [m for m in legal if m & 63 == card]
    if len(choices) == 1:
        return choices[0]
    if not choices:
        play(state, card)  # raises: the card is not in the hand
    listed = ", ".join(move_text(m) for m in choices)
    raise AmbiguousMoveError(f"{card_name(card)} can capture in several ways: {listed}")


# Scoring


class DealScore(NamedTuple):
    """The score of a finished deal, one entry per side (the record's ``score``)."""

    cards: tuple[int, ...]
    basras: tuple[int, ...]
    """Basras (surs) made, before any cancelling."""
    majority: tuple[int, ...]
    card_points: tuple[int, ...]
    basra_points: tuple[int, ...]
    """Points for basras, after cancelling under ``basra_cancel``."""
    total: tuple[int, ...]
    carry_in: int
    carry_out: int
    clubs: tuple[int, ...] = ()
    """The clubs prize (Pasur), per side; empty when the rules have none."""


def _strict_leader(counts: list[int], fewest: int) -> int | None:
    """The side with strictly the most, if it has at least ``fewest``."""
    top = max(counts)
    leaders = [side for side, count in enumerate(counts) if count == top]
    return leaders[0] if len(leaders) == 1 and top >= fewest else None


def deal_score(state: DealState, carry_in: int = 0) -> DealScore:
    """Score a finished deal; ``carry_in`` is the majority prize held over from ties.

    Sides that sat the deal out (``tie_deal = tied``) score nothing and take no part in
    the majority, the clubs prize or the cancelling of basras.
    """
    rules = state.rules
    side_of = rules.side_of
    playing = sorted({side_of[seat] for seat in state.seats})
    cards = tuple(pile.bit_count() for pile in state.piles)
    prize = rules.majority_points + carry_in
    counts = [cards[side] if side in playing else -1 for side in range(rules.sides)]
    majority = [0] * rules.sides
    carry_out = 0
    top = max(counts)
    leader = _strict_leader(counts, rules.majority_min)
    if leader is not None:
        majority[leader] = prize
    elif counts.count(top) > 1 and rules.majority_tie == "carry":
        carry_out = prize
    elif counts.count(top) > 1 and rules.majority_tie == "double":
        carry_out = 2 * prize - rules.majority_points
    card_points = tuple(rules.card_points_of(pile) for pile in state.piles)
    basras = state.basras
    if rules.basra_cancel:
        fewest = min(basras[side] for side in playing)
        basra_points = tuple(
            (b - fewest) * rules.basra_points if side in playing else 0
            for side, b in enumerate(basras))
    else:
        basra_points = tuple(b * rules.basra_points for b in basras)
    parts = [card_points, basra_points, tuple(majority)]
    clubs: tuple[int, ...] = ()
    if rules.clubs_points:
        counts = [(state.piles[side] & CLUBS).bit_count() if side in playing else -1
                  for side in range(rules.sides)]
        winner = _strict_leader(counts, rules.clubs_min)
        clubs = tuple(rules.clubs_points if side == winner else 0
                      for side in range(rules.sides))
        parts.append(clubs)
    total = tuple(map(sum, zip(*parts, strict=True)))
    return DealScore(cards, basras, tuple(majority), card_points, basra_points, total,
                     carry_in, carry_out, clubs)
