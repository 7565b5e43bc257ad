"""Search tools for the strong bots: sampling hidden cards, fast rollouts, exact endgames.

Everything here works from an :class:`~basra.observe.Observation`: a sampled state puts
the cards this seat has not seen into the other hands and the stock at random (in a pile
game, also into the face-down cards it was not shown), keeping every count and every
place it knows, so a search never uses what the seat cannot know.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from basra.bots.simple import move_value
from basra.cards import JACK
from basra.observe import Observation, hidden_places
from basra.rules import PILE_FAMILIES
from basra.state import (
    DealState,
    apply,
    capture_table,
    deal_score,
    legal_moves,
    playing_order,
)

__all__ = ["PILE_JACK_KEEP", "SOLVE_CARDS", "Policy", "all_known", "deal_margin",
           "greedy_playout", "pile_move_value", "sample_state", "solve"]

SOLVE_CARDS = 8
"""The most cards left in the hands for which a fully known position is solved exactly
(:func:`solve`) where time counts: the pure-Python solver takes a second or more on
Xeri's twelve, up to half a second on nine, 0.1 s on eight. Eight is the most a Basra or
Pasur last batch holds."""

PILE_JACK_KEEP = 3.0
"""Pile games: what a Jack is worth kept while more hands are to come (it takes any
pile), in :func:`pile_move_value`."""


def sample_state(observation: Observation, rng: random.Random) -> DealState:
    """A full deal state consistent with everything the seat has seen.

    The unseen cards are shuffled into the other seats' hands (by their counts) and the
    stock (in batches, in dealing order). In a pile game
    (:func:`basra.observe.hidden_places`) they also fill the pile's face-down places the
    seat was not shown (the pile keeps its order) and the face-down cards another side
    captured out of its sight; the cards every seat saw at the stock's bottom stay
    there (a shown bottom card, once dealt, stays in the dealer's hand).
    """
    rules = observation.rules
    if rules.family in PILE_FAMILIES:
        return _sample_pile_state(observation, rng)
    unseen = [c for c in range(52) if observation.unseen >> c & 1]
    rng.shuffle(unseen)
    players = rules.players
    hands = [0] * players
    position = 0
    for seat in range(players):
        if seat == observation.seat:
            hands[seat] = observation.hand
            continue
        for card in unseen[position:position + observation.hand_counts[seat]]:
            hands[seat] |= 1 << card
        position += observation.hand_counts[seat]
    turns = observation.turns
    return DealState(
        capture_table(rules), observation.dealer, observation.to_play, observation.floor,
        tuple(hands), observation.piles, observation.basras, observation.last_capturer,
        _batches(observation, unseen[position:]), 0, turns, observation.laid,
    )


def _batches(observation: Observation, stock: list[int]) -> tuple[tuple[int, ...], ...]:
    """The stock's cards, in order, as batches of hands dealt in playing order."""
    players = observation.rules.players
    order = playing_order(observation.turns, observation.dealer)
    size = observation.rules.hand_size
    batches = []
    position = 0
    while position < len(stock):
        batch = [0] * players
        for seat in order:
            for card in stock[position:position + size]:
                batch[seat] |= 1 << card
            position += size
        batches.append(tuple(batch))
    return tuple(batches)


def _sample_pile_state(observation: Observation, rng: random.Random) -> DealState:
    """:func:`sample_state` in a pile game."""
    rules = observation.rules
    places = hidden_places(observation)
    unseen = [c for c in range(52) if places.unseen >> c & 1]
    rng.shuffle(unseen)
    cards = iter(unseen)
    hands = list(places.known)
    for seat in range(rules.players):
        if seat == observation.seat:
            hands[seat] = observation.hand
            continue
        for _ in range(observation.hand_counts[seat] - hands[seat].bit_count()):
            hands[seat] |= 1 << next(cards)
    pile = list(observation.pile)
    floor, down = observation.floor, observation.down_seen
    for slot in places.pile_slots:
        card = next(cards)
        pile[slot] = card
        floor |= 1 << card
        down |= 1 << card
    piles = list(observation.piles)
    for side, count in enumerate(places.captured):
        for _ in range(count):
            card = next(cards)
            piles[side] |= 1 << card
            down |= 1 << card
    exposed = observation.stock_shown
    if observation.bottom_card >= 0:
        exposed |= 1 << observation.bottom_card
    return DealState(
        capture_table(rules), observation.dealer, observation.to_play, floor, tuple(hands),
        tuple(piles), observation.basras, observation.last_capturer,
        _batches(observation, [*cards, *places.tail]), 0, observation.turns, tuple(pile),
        down, observation.jack_pistis, places.kitty, exposed,
    )


def all_known(observation: Observation) -> bool:
    """Whether the seat knows where every card lies: two players (two sides), the stock
    empty (the other hand is the unseen cards), and in a pile game no face-down card it
    was not shown (in the pile, or captured by the other side out of its sight). Then
    :func:`sample_state` deals the only deal consistent with it, and :func:`solve` values
    its moves exactly."""
    rules = observation.rules
    if rules.players != 2 or rules.sides != 2 or observation.stock_count:
        return False
    return rules.family not in PILE_FAMILIES or (
        observation.unseen.bit_count() == observation.hand_counts[1 - observation.seat])


def deal_margin(state: DealState, side: int, carry: int = 0) -> float:
    """A finished deal's points for ``side`` minus the mean of the other sides'."""
    total = deal_score(state, carry).total
    others = [points for s, points in enumerate(total) if s != side]
    return total[side] - sum(others) / len(others)


def pile_move_value(state: DealState, move: int) -> float:
    """Pile games, greedy for piles (the compiled rollout policy 5,
    :func:`basra.fast.kernels.pile_value`): a capture is worth :func:`move_value` (its
    cards' points, half a point a card, a pişti's points), less :data:`PILE_JACK_KEEP`
    for a Jack spent while more hands are to come (not on a double pişti); a card laid is
    worth minus its points, minus the stake it hands the next player (a pişti's points on
    an empty pile, else the pile's points and half a point a card) times the share of its
    rank's four cards not in sight (the seat's hand, the pile, the captured cards), and a
    hundredth of its rank. It takes when it can and does not feed a pişti."""
    table, floor = state.table, state.floor
    rules = table.rules
    points = rules.points_of
    card = move & 63
    rank = card >> 2
    early = bool(state.batches)
    if move >> 6:
        value = move_value(table, floor, move)
        double = floor.bit_count() == 1 and rank == JACK and floor >> (4 * JACK) & 0b1111
        if early and rank == JACK and not double:
            value -= PILE_JACK_KEEP
        return value
    sight = floor | state.hands[state.to_play]
    for pile in state.piles:
        sight |= pile
    unknown = 4 - (sight >> (4 * rank) & 0b1111).bit_count()
    if floor:
        stake = 0.5 * (floor.bit_count() + 1) + points[card] + sum(
            points[c] for c in range(52) if floor >> c & 1)
    else:
        stake = float(rules.jack_pisti_points if rank == JACK else rules.pisti_points)
    value = -points[card] - stake * unknown / 4.0 - rank / 100
    if rank == JACK and early:
        value -= PILE_JACK_KEEP
    return value


def _greedy_move(state: DealState, moves: list[int], rng: random.Random) -> int:
    """The move worth most this turn (:func:`move_value`; in a pile game
    :func:`pile_move_value`), ties broken at random."""
    table, floor = state.table, state.floor
    if table.pile:
        values = [pile_move_value(state, move) for move in moves]
    else:
        values = [move_value(table, floor, move) for move in moves]
    best_value = max(values)
    best = [move for move, value in zip(moves, values, strict=True) if value == best_value]
    return best[0] if len(best) == 1 else best[int(rng.random() * len(best))]


def greedy_playout(state: DealState, rng: random.Random) -> DealState:
    """Play the deal to its end with every seat playing the greedy move (in a pile game,
    greedy for piles)."""
    while not state.is_over:
        moves = legal_moves(state)
        state = apply(state, moves[0] if len(moves) == 1 else _greedy_move(state, moves, rng))
    return state


Policy = Callable[[DealState], list[int]]
"""A seat's known play: the moves it would play in a state (one of them at random)."""


def solve(state: DealState, side: int, carry: int = 0,
          policies: Mapping[int, Policy] | None = None) -> dict[int, float]:
    """Exact value (``deal_margin``) of every legal move when all cards are known.

    Alpha-beta over the rest of the deal, for two sides: ``side`` maximises, the other
    minimises, except a seat whose play is known (``policies``): it plays one of its
    policy's moves at random, so its turn is worth their mean, and the value is what
    each move brings against the way it plays rather than against its best replies.
    Meant for the last batch of a deal (a few cards in each hand).
    """
    side_of = state.rules.side_of
    known = policies or {}

    def value(node: DealState, alpha: float, beta: float) -> float:
        if node.is_over:
            return deal_margin(node, side, carry)
        policy = known.get(node.to_play)
        if policy is not None:
            # a mean needs each move's exact value, not a bound
            moves = policy(node)
            return sum(value(apply(node, m), -1e9, 1e9) for m in moves) / len(moves)
        maximising = side_of[node.to_play] == side
        best = -1e9 if maximising else 1e9
        for move in legal_moves(node):
            result = value(apply(node, move), alpha, beta)
            if maximising:
                best = max(best, result)
                alpha = max(alpha, best)
            else:
                best = min(best, result)
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    return {move: value(apply(state, move), -1e9, 1e9) for move in legal_moves(state)}
