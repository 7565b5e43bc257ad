"""One deal: the layout, the immutable state, legal moves, plays and the deal score.

A move is an int: the played card in the low six bits and the captured cards' mask
above them (``card | captured << 6``); a trail captures nothing (in a pile game, a card
laid on the pile; a capture there always takes the whole pile)::

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

from .captures import JACK_PISTI, CaptureTable, PileCaptures, captures_for
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
from .rules import PILE_FAMILIES, Rules

__all__ = [
    "AmbiguousMoveError",
    "DealScore",
    "DealState",
    "IllegalMoveError",
    "InvalidMoveError",
    "Layout",
    "LayoutError",
    "apply",
    "canonical_move",
    "capture_table",
    "deal_layout",
    "deal_score",
    "hidden_down",
    "leftover_shares",
    "legal_moves",
    "make_move",
    "move_captured",
    "move_card",
    "move_text",
    "needs_pile_redeal",
    "new_deal",
    "parse_move",
    "play",
    "random_playout",
    "settle_pile",
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
    floor_down: tuple[int, ...] = ()
    """Pile games: the cards of ``floor`` dealt face down and never turned up, bottom to
    top."""
    bottom_card: int = -1
    """Pile games under ``bottom_card = shown``: the stock's exposed card (-1: none). It
    lies in ``stock`` below the Jacks sent there by ``centre_jack = to_stock``."""
    turned: tuple[int, ...] = ()
    """Pile games: the Jacks turned up on the first pile by ``centre_jack``, in order
    (every seat saw them): moved to the pile's bottom (turn_next) or under the stock
    (to_stock)."""


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
    order it was given out. Pile games keep the pile here, bottom to top, always (at the
    end of the deal, the leftover as it lay)."""
    down: int = 0
    """Pile games: the cards the first pile was dealt face down with (a mask; constant
    over the deal). Who may see them is :func:`hidden_down`'s answer."""
    jack_pistis: tuple[int, ...] = ()
    """Pile games: each side's double piştis (a Jack on a lone Jack); ``basras`` counts
    every pişti, these among them. Empty in the other families."""
    kitty: int = -1
    """Pile games: the seat that captured the face-down cards, -1 while they lie in the
    pile."""
    exposed: int = 0
    """Pile games: the stock cards every seat saw at the deal (a mask): the bottom card
    and the Jacks sent under the stock by ``centre_jack = to_stock``."""

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

    @property
    def bottom_card(self) -> int:
        """Pile games: the stock's shown bottom card (the exposed card that is no Jack),
        -1 for none."""
        return next((c for c in range(52) if self.exposed >> c & 1 and c >> 2 != JACK), -1)

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
    if rules.family in PILE_FAMILIES:
        return pile_layout(rules, dealer, rng, seats)
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


def _shuffled(rng: random.Random, cards: list[int] | tuple[int, ...]) -> list[int]:
    """The cards in a uniformly random order (sorted by independent random keys, as
    :func:`deal_layout` shuffles)."""
    keys = [rng.random() for _ in cards]
    order = sorted(range(len(cards)), key=keys.__getitem__)
    return [cards[i] for i in order]


def needs_pile_redeal(rules: Rules, pile: list[int] | tuple[int, ...]) -> bool:
    """Xeri's re-deal of the first pile (``pile_redeal``, spec 10.3.4): its top card is a
    Jack, or two of its cards share a rank (``pair_or_jack``; only the top two under
    ``top_pair_or_jack``)."""
    rule = rules.pile_redeal
    if rule == "none" or not pile:
        return False
    if pile[-1] >> 2 == JACK:
        return True
    ranks = [card >> 2 for card in (pile if rule == "pair_or_jack" else pile[-2:])]
    return len(set(ranks)) < len(ranks)


def pile_layout(rules: Rules, dealer: int, rng: random.Random,
                seats: tuple[int, ...] | None = None) -> Layout:
    """Shuffle and deal a pile game (spec 9.3 and 10.3).

    The shuffled deck's last card becomes the stock's exposed bottom card under
    ``bottom_card = shown``, never a Jack: a Jack there changes places with the non-Jack
    nearest the bottom, the cards between keeping their order. The first batch of hands
    is dealt, then the pile (its first card at the bottom); ``pile_redeal`` gathers the
    pile into the stock and deals it again from the shuffled stock (the bottom card stays
    where it is) until it passes; the lowest ``pile_down`` cards lie face down; then a Jack
    on top is dealt with as ``centre_jack`` says. A pile of Jacks alone, or a Jack to send
    under an empty stock, means a new shuffle. The layout keeps only the deal played.
    """
    order = playing_order(seat_turns(rules.players, seats), dealer)
    size = rules.hand_size
    shown = rules.bottom_card == "shown"
    while True:
        deck = _shuffled(rng, _DECK)
        if shown and deck[-1] >> 2 == JACK:
            nearest = max(i for i, card in enumerate(deck) if card >> 2 != JACK)
            deck.append(deck.pop(nearest))
        hands: list[tuple[int, ...]] = [()] * rules.players
        for i, seat in enumerate(order):
            hands[seat] = tuple(deck[i * size:(i + 1) * size])
        start = len(order) * size
        pile = deck[start:start + rules.floor_size]
        stock = deck[start + rules.floor_size:]
        bottom = stock[-1] if shown else -1
        while needs_pile_redeal(rules, pile):
            loose = pile + (stock[:-1] if shown else stock)
            loose = _shuffled(rng, loose)
            pile, stock = loose[:rules.floor_size], loose[rules.floor_size:]
            if shown:
                stock.append(bottom)
        layout = settle_pile(rules, dealer, hands, pile, stock, bottom)
        if layout is not None:
            return layout


def settle_pile(rules: Rules, dealer: int, hands: list[tuple[int, ...]] | tuple[
        tuple[int, ...], ...], pile: list[int], stock: list[int], bottom: int) -> Layout | None:
    """The end of :func:`pile_layout`, once the pile passed ``pile_redeal``: the lowest
    ``pile_down`` cards face down, then a Jack on top dealt with as ``centre_jack`` says
    (its random part is the shuffle before it). None when the deck must be shuffled again
    (a pile of Jacks alone, or a Jack to send under an empty stock). ``pile`` and
    ``stock`` are changed in place."""
    down = set(pile[:rules.pile_down])
    turned: list[int] = []
    if rules.centre_jack == "turn_next" and pile and all(c >> 2 == JACK for c in pile):
        return None
    while pile and pile[-1] >> 2 == JACK:
        jack = pile.pop()
        turned.append(jack)
        if rules.centre_jack == "turn_next":
            pile.insert(0, jack)
        else:
            if not stock:
                break
            stock.append(jack)
            pile.append(stock.pop(0))
        down.discard(pile[-1])
    if pile and pile[-1] >> 2 == JACK:
        return None
    return Layout(dealer, tuple(pile), tuple(hands), tuple(stock), (),
                  tuple(card for card in pile if card in down), bottom, tuple(turned))


def _check_pile_layout(rules: Rules, layout: Layout) -> None:
    """The pile game's part of :func:`check_layout`."""
    pile = layout.floor
    if layout.buried:
        raise LayoutError("a pile game buries no cards")
    if pile and pile[-1] >> 2 == JACK:
        raise LayoutError(f"the pile's top card {card_name(pile[-1])} is a Jack, which "
                          f"centre_jack={rules.centre_jack} turns away")
    if needs_pile_redeal(rules, pile):
        raise LayoutError(f"the pile {cards_text(sum(1 << c for c in pile))} is dealt again "
                          f"under pile_redeal={rules.pile_redeal}")
    down = layout.floor_down
    if len(down) > rules.pile_down or any(card not in pile[:-1] for card in down):
        raise LayoutError(f"floor_down must list at most {rules.pile_down} cards of the pile "
                          "below its top card")
    shown = rules.bottom_card == "shown"
    if shown != (layout.bottom_card >= 0):
        raise LayoutError(f"bottom_card={rules.bottom_card}, but the layout "
                          f"{'has no' if shown else 'has a'} bottom card")
    if shown:
        if layout.bottom_card >> 2 == JACK or layout.bottom_card not in layout.stock:
            raise LayoutError(f"the bottom card {card_name(layout.bottom_card)} must be a "
                              "card of the stock, not a Jack")
        after = layout.stock[layout.stock.index(layout.bottom_card) + 1:]
        if any(card not in layout.turned for card in after):
            raise LayoutError("only Jacks sent under the stock may lie below the bottom card")
    for card in layout.turned:
        if card >> 2 != JACK or card not in (*pile, *layout.stock):
            raise LayoutError(f"turned card {card_name(card)} is not a Jack of the pile or "
                              "the stock")


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
    if rules.family in PILE_FAMILIES:
        _check_pile_layout(rules, layout)
        return
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
    if table.pile:
        down = exposed = 0
        for card in layout.floor_down:
            down |= bits[card]
        for card in layout.turned:
            if card in layout.stock:
                exposed |= bits[card]
        if layout.bottom_card >= 0:
            exposed |= bits[layout.bottom_card]
        return DealState(
            table, layout.dealer, order[0], floor, tuple(first_batch), sides, sides,
            -1, tuple(batches), 0, turns, tuple(layout.floor), down, sides, -1, exposed,
        )
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
    In a pile game each card in hand is one move: it takes the whole pile or nothing.
    """
    table = state.table
    if table.pile:
        return _pile_moves(table, state.hands[state.to_play], state.floor, state.laid)
    return _moves(table, state.hands[state.to_play], state.floor)


def _pile_moves(table: CaptureTable, hand: int, floor: int, pile: tuple[int, ...]) -> list[int]:
    """The moves of ``hand`` on a pile (spec 9.4): a Jack, or a card of the top card's rank,
    takes the whole non-empty pile; every other card is laid on it."""
    moves: list[int] = []
    top_rank = pile[-1] >> 2 if pile else -1
    shifted = floor << 6
    while hand:
        low = hand & -hand
        hand ^= low
        card = low.bit_length() - 1
        rank = card >> 2
        moves.append(card | shifted if floor and (rank in (JACK, top_rank)) else card)
    return moves


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
    (table, dealer, seat, floor, hands, piles, basras, last, batches, leftover, turns, laid,
     down, jack_pistis, kitty, exposed) = state
    if table.pile:
        return _apply_pile(state, move)
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
         laid, down, jack_pistis, kitty, exposed),
    )


def _apply_pile(state: DealState, move: int) -> DealState:
    """:func:`apply` in a pile game (spec 9.4 to 9.6): the card takes the whole pile or is
    laid on top; a pişti is counted unless it is the deal's last play and
    ``last_play_pisti`` is off; at the end the pile left goes to the last capturer."""
    (table, dealer, seat, floor, hands, piles, basras, last, batches, leftover, turns, laid,
     down, jack_pistis, kitty, exposed) = state
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
        assert isinstance(table, PileCaptures)
        if len(laid) == 1 and (batches or table.last_play_pisti or not round_over):
            kind = table.pisti_kind(floor, card, captured)
            if kind:
                sides = list(basras)
                sides[side] += 1
                basras = tuple(sides)
            if kind == JACK_PISTI:
                sides = list(jack_pistis)
                sides[side] += 1
                jack_pistis = tuple(sides)
        if down and kitty < 0:
            kitty = seat
        floor = 0
        laid = ()
        last = seat
    else:
        floor |= bit
        laid = (*laid, card)
    if round_over:
        if batches:
            hands = batches[0]
            batches = batches[1:]
        elif last >= 0 and floor:
            sides = list(piles)
            sides[table.side_of[last]] |= floor
            piles = tuple(sides)
            if down and kitty < 0:
                kitty = last
            leftover, floor = floor, 0
    return _new_state(
        DealState,
        (table, dealer, following, floor, hands, piles, basras, last, batches, leftover, turns,
         laid, down, jack_pistis, kitty, exposed),
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
    (table, dealer, seat, floor, hands, piles, basras, last, batches, leftover, turns, laid,
     down, jack_pistis, kitty, exposed) = state
    if table.ordered or table.pile:
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
         batches, leftover, turns, laid, down, jack_pistis, kitty, exposed),
    )


def _position_for_error(state: DealState) -> str:
    if state.table.pile:
        pile = " ".join("??" if state.down >> c & 1 else CARD_NAMES[c] for c in state.laid)
        return (f"seat {state.to_play} to play, hand "
                f"{cards_text(state.hands[state.to_play])}, pile {pile or '-'}")
    return (f"seat {state.to_play} to play, hand {cards_text(state.hands[state.to_play])}, "
            f"floor {cards_text(state.floor)}")


def hidden_down(state: DealState, seat: int) -> int:
    """The face-down pile cards that ``seat`` may not see (a mask; spec 9.9): all of them
    until they are captured, then all but to the seats ``kitty_view`` shows them to
    (``first_player`` shows them to the first player from the start); none once the deal
    is over (it is scored face up)."""
    down = state.down
    if not down or state.is_over:
        return 0
    view = state.rules.kitty_view
    if view == "first_player" and seat == state.first:
        return 0
    kitty = state.kitty
    if kitty < 0:
        return down
    if seat == kitty or (view != "capturer" and state.rules.side_of[seat]
                         == state.rules.side_of[kitty]):
        return 0
    return down


def canonical_move(state: DealState, move: int) -> int:
    """The move as the state knows it. In a pile game a seat names a capture by the cards
    it can see: the pile less its face-down cards (:func:`hidden_down`); this gives the
    legal move that takes the whole pile. Any other move is returned unchanged."""
    if state.table.pile and state.down & state.floor and isinstance(move, int) and move >> 6:
        whole = move & 63 | state.floor << 6
        if move == whole & ~(state.down << 6) and whole in legal_moves(state):
            return whole
    return move


def play(state: DealState, move: int) -> DealState:
    """The checked :func:`apply`: raises :class:`IllegalMoveError` for an illegal move.

    In a pile game a capture may name the pile without its face-down cards
    (:func:`canonical_move`).
    """
    if state.is_over:
        raise IllegalMoveError("the deal is over: no more plays")
    if not isinstance(move, int) or move < 0 or move & 63 >= 52 or move >> 6 > ALL_CARDS:
        raise IllegalMoveError(f"not a move: {move!r}")
    move = canonical_move(state, move)
    if move not in legal_moves(state):
        card = move & 63
        if not state.hands[state.to_play] >> card & 1:
            reason = f"{card_name(card)} is not in the hand"
        elif move >> 6 and state.table.pile:
            reason = (f"{card_name(card)} cannot capture {cards_text(move >> 6)}: a capture "
                      "takes the whole pile, with a Jack or a card of the top card's rank")
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
    pistis: tuple[tuple[int, int], ...] = ()
    """Pile games: each side's (plain, jack) pişti counts (``basras`` holds their sums and
    ``basra_points`` their points); empty in the other families."""


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
    pistis: tuple[tuple[int, int], ...] = ()
    if rules.family in PILE_FAMILIES:
        pistis = tuple((b - j, j) for b, j in zip(basras, state.jack_pistis, strict=True))
        basra_points = tuple(plain * rules.pisti_points + jack * rules.jack_pisti_points
                             for plain, jack in pistis)
    elif rules.basra_cancel:
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
                     carry_in, carry_out, clubs, pistis)
