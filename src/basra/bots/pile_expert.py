"""The expert in the pile games, Pişti and Xeri: what the pile is worth, which ranks are
gone, when to hold a Jack.

A move is one card with one outcome: it takes the whole pile (a card of the top card's
rank, or a Jack on a pile that is not empty) or it is laid on top. For each card the
expert weighs what it takes now against what it leaves the next player:

- **The pile's worth**: its cards' points, its cards in the race for the majority, and
  the pişti (xeri) bonus when it holds one card of the played card's rank. Face-down
  cards this seat has not been shown count at the mean points of the cards it has not
  seen; a pişti on the deal's last play counts only under ``last_play_pisti``.
- **The next player's best reply**: their hand is a uniformly random set of the cards
  this seat has not seen, less those known to lie in the stock (the exposed bottom card
  while it is there) and with the bottom card in the dealer's last hand. A card is laid
  on top of a pile, so its rank decides the risk: a rank mostly gone is rarely matched,
  and a lone card on an empty pile is a pişti for any card of its rank (a Jack on a lone
  Jack, a double one). The expectation of their best capture is exact over that hand
  (:func:`expected_best`), counting the Jacks that take anything. A player who this
  batch laid a card on a pile it could have taken with a card of the top's rank or a
  Jack likely holds neither (:func:`passed_ranks`): half the weight goes to that reading.
- **Jacks**: a Jack played while the stock lasts gives up :data:`JACK_KEEP` points of
  option on a richer pile; in the last batch none.
- **The last batch of a 2-player deal**: once the other hand is known (always in Xeri;
  in Pişti up to the face-down cards the other side captured, whose possible places are
  tried one by one), the rest of the deal is solved exactly: every capture, pişti, the
  pile left to the last capturer and the majority.

It uses only the observation, never a hidden card.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from math import comb, factorial
from typing import Protocol

from basra.cards import JACK
from basra.observe import Observation
from basra.rules import Rules

__all__ = ["JACK_KEEP", "expected_best", "pile_move_values"]

JACK_KEEP = 3.0
"""Points a Jack kept in hand is worth while the stock lasts: its option on a richer pile
(docs/strength.md says what other values measured)."""
SOLVE_LEAVES = 5_000
"""The most lines of play (other hands tried × orders of play) the last-batch solve
searches; beyond it the heuristic plays."""
PASSED_TRUST = 0.5
"""The weight of the reading that a player who laid a card on a pile it could have taken
holds no card of the top card's rank, nor a Jack (as greedy play never passes a capture);
the rest of the weight on knowing nothing of its hand."""
TIE_BREAK = 0.01
"""The heuristic's weight beside the last-batch solve's margin: it orders the moves the
solve values alike."""


def expected_best(values: list[float], hand_size: int, floor: float = 0.0) -> float:
    """Expected maximum of ``floor`` and the ``values`` of a uniformly random hand of
    ``hand_size`` of them.

    >>> expected_best([10.0, 0.0, 0.0, 0.0], 1)
    2.5
    >>> expected_best([10.0, 0.0, 0.0, 0.0], 1, floor=4.0)
    5.5
    """
    unseen = len(values)
    if unseen == 0 or hand_size <= 0:
        return floor
    hand_size = min(hand_size, unseen)
    total = comb(unseen, hand_size)
    expected = floor
    for i, value in enumerate(sorted(values, reverse=True), 1):
        if value <= floor:
            break
        expected += (value - floor) * comb(unseen - i, hand_size - 1) / total
    return expected


def pisti_bonus(rules: Rules, lone: int, card: int) -> int:
    """The bonus of ``card`` capturing a pile of the one card ``lone`` (spec 9.5)."""
    if card >> 2 == lone >> 2:
        return rules.jack_pisti_points if card >> 2 == JACK else rules.pisti_points
    if card >> 2 == JACK and rules.jack_pisti == "lone":
        return rules.pisti_points
    return 0


def race_weight(observation: Observation) -> float:
    """What one captured card is worth in the race for the majority: the prize spread
    over the cards still to be captured, little once the race is decided."""
    rules = observation.rules
    counts = observation.pile_counts
    mine = counts[observation.side]
    best_other = max((c for s, c in enumerate(counts) if s != observation.side), default=0)
    remaining = 52 - sum(counts)
    if abs(mine - best_other) > remaining:
        return 0.02
    prize = rules.majority_points + observation.carry
    return max(0.02, min(1.0, 2.0 * prize / max(remaining, 8) / max(1, rules.sides - 1)))


def _places(observation: Observation) -> tuple[int, int]:
    """The cards another hand may hold or may lie face down in the pile (a mask: the
    cards this seat has not seen, less those it knows to be in the stock or in the
    dealer's hand), and the card known to be in the dealer's hand (-1: none)."""
    unseen = observation.unseen & ~observation.stock_shown
    bottom = observation.bottom_card
    in_dealer = -1
    if bottom >= 0 and unseen >> bottom & 1 and observation.dealer != observation.seat:
        in_dealer = bottom  # dealt to the dealer in the last batch, not played yet
        unseen &= ~(1 << bottom)
    return unseen, in_dealer


def passed_ranks(observation: Observation, seat: int) -> set[int]:
    """The ranks ``seat`` laid a card over this batch when a card of that rank or a Jack
    would have taken the pile (the top card's rank, and the Jack's rank): what it likely
    does not hold now. The first pile's top card is known from the pile while nothing
    was taken; after a capture, the deal's first play is left out (the order of the pile
    it took is not shown)."""
    batch_plays = len(observation.seats) * observation.rules.hand_size
    start = (observation.batch - 1) * batch_plays
    plays = observation.plays
    top = -1  # the top card each play found (-1: an empty pile, or not known)
    if not any(played.captured for played in plays):
        before = len(observation.pile) - len(plays)
        top = observation.pile[before - 1] if before > 0 else -1
    ranks: set[int] = set()
    for i, played in enumerate(plays):
        if i >= start and played.seat == seat and top >= 0 and not played.captured:
            ranks.update((top >> 2, JACK))
        top = -1 if played.captured else played.card
    return ranks


def next_reply(observation: Observation) -> tuple[int, int, bool]:
    """The seat that plays next, the cards it holds for its reply (a fresh hand when this
    play ends the round and the stock deals again, none when the deal ends) and whether
    this play ends the round."""
    turns = observation.turns
    following = turns[observation.seat]
    round_ends = (following == turns[observation.dealer]
                  and observation.hand_counts[observation.seat] == 1)
    if round_ends:
        return following, observation.rules.hand_size if observation.stock_count else 0, True
    return following, observation.hand_counts[following], False


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def pile_move_values(observation: Observation, keep: float | None = None
                     ) -> list[tuple[int, float]]:
    """Every legal move with its estimated worth to this seat's side, in the order of the
    legal moves (the last batch of a 2-player deal solved exactly where it can be, the
    heuristic telling apart the moves the solve values alike: a line that best play
    makes even may still tempt a player who is no solver into a mistake)."""
    values = _heuristic_values(observation, JACK_KEEP if keep is None else keep)
    solved = solve_last_batch(observation)
    if solved is None:
        return values
    return [(move, value + TIE_BREAK * hint)
            for (move, value), (_, hint) in zip(solved, values, strict=True)]


def _heuristic_values(observation: Observation, keep: float) -> list[tuple[int, float]]:
    rules = observation.rules
    weight = race_weight(observation)
    pile = observation.pile
    size = len(pile)
    top = pile[-1] if pile else -1
    hidden_pool, in_dealer = _places(observation)
    down_cards = _cards(hidden_pool)
    down_points = (sum(rules.points_of[c] for c in down_cards) / len(down_cards)
                   if down_cards else 0.0)
    pile_points = rules.card_points_of(observation.floor) + observation.down_count * down_points
    following, reply_hand, round_ends = next_reply(observation)
    remaining_plays = sum(observation.hand_counts) + observation.stock_count
    last_play = remaining_plays == 1
    reply_is_last = remaining_plays == 2
    same_side = rules.side_of[following] == observation.side
    forced = [in_dealer] if in_dealer >= 0 and following == observation.dealer else []
    pool = _cards(hidden_pool)
    passed = passed_ranks(observation, following) if not round_ends else set()
    likely = [c for c in pool if c >> 2 not in passed] if passed else pool
    values: list[tuple[int, float]] = []
    for move in observation.legal_moves:
        card = move & 63
        jack = card >> 2 == JACK
        takes = size > 0 and (jack or card >> 2 == top >> 2)
        value = 0.0
        if jack and observation.stock_count:
            value -= keep
        if takes:
            bonus = pisti_bonus(rules, top, card) if size == 1 else 0
            if last_play and not rules.last_play_pisti:
                bonus = 0
            value += pile_points + rules.points_of[card] + bonus + (size + 1) * weight
            values.append((move, value))
            continue
        # Laid on top: the next player takes it with a card of its rank or a Jack.
        after_points = pile_points + rules.points_of[card]
        after_size = size + 1
        if last_play:  # the pile left goes to the last capturer
            owner = observation.last_capturer
            if owner >= 0:
                worth = after_points + after_size * weight
                value += worth if rules.side_of[owner] == observation.side else -worth
            values.append((move, value))
            continue
        if not reply_hand:
            values.append((move, value))
            continue

        no_bonus = reply_is_last and not rules.last_play_pisti
        floor = max((_reply_value(rules, card, c, after_points, after_size, weight, no_bonus)
                     for c in forced), default=0.0)
        replies = [_reply_value(rules, card, c, after_points, after_size, weight, no_bonus)
                   for c in pool]
        risk = expected_best(replies, reply_hand - len(forced), floor)
        if passed:
            trusted = expected_best(
                [_reply_value(rules, card, c, after_points, after_size, weight, no_bonus)
                 for c in likely], reply_hand - len(forced), floor)
            risk = PASSED_TRUST * trusted + (1 - PASSED_TRUST) * risk
        value += risk if same_side else -risk
        values.append((move, value))
    return values


def _reply_value(rules: Rules, laid: int, other: int, points: float, size: int,
                 weight: float, no_bonus: bool) -> float:
    """What ``other`` takes from a pile of ``size`` cards worth ``points`` whose top card
    is ``laid`` (0: it takes nothing); ``no_bonus``: the play can score no pişti."""
    if other >> 2 != JACK and other >> 2 != laid >> 2:
        return 0.0
    bonus = pisti_bonus(rules, laid, other) if size == 1 and not no_bonus else 0
    return points + rules.points_of[other] + bonus + (size + 1) * weight


# The last batch of a 2-player deal, solved exactly.


def solve_last_batch(observation: Observation) -> list[tuple[int, float]] | None:
    """Every legal move with the mean margin of the rest of the deal under best play by
    both seats, over the other hands this seat cannot tell apart; None where it does not
    apply (not 2 players, not the last batch) or the lines of play are too many."""
    rules = observation.rules
    if rules.players != 2 or observation.stock_count or len(observation.seats) != 2:
        return None
    other = 1 - observation.seat
    held = observation.hand_counts[other]
    mine = observation.hand
    hidden_pool, in_dealer = _places(observation)
    known = 0
    if in_dealer >= 0:
        if other != observation.dealer:
            return None
        known = 1 << in_dealer
    pool = _cards(hidden_pool)
    free = held - known.bit_count()
    if free < 0 or free > len(pool):
        return None
    hands = comb(len(pool), free)
    lines = hands * factorial(mine.bit_count()) * factorial(held)
    if lines > SOLVE_LEAVES:
        return None
    pile = observation.pile
    down_cards = pool
    down_points = (sum(rules.points_of[c] for c in down_cards) / len(down_cards)
                   if down_cards else 0.0)
    pile_points = rules.card_points_of(observation.floor) + observation.down_count * down_points
    top = pile[-1] if pile else -1
    side = observation.side
    counts = (observation.pile_counts[side], observation.pile_counts[1 - side])
    last = observation.last_capturer
    last_mine = -1 if last < 0 else int(rules.side_of[last] != side)  # 0: mine, 1: theirs
    totals = [0.0] * len(observation.legal_moves)
    for chosen in combinations(pool, free):
        theirs = known
        for card in chosen:
            theirs |= 1 << card
        solve = _solver(rules)
        for i, move in enumerate(observation.legal_moves):
            card = move & 63
            totals[i] += _play(solve, rules, mine, theirs, 0, card, len(pile), top,
                               pile_points, counts[0], counts[1], last_mine)
        solve.cache_clear()
    return [(move, total / hands) for move, total in zip(observation.legal_moves, totals,
                                                          strict=True)]


def _play(solve: _Solve, rules: Rules, mine: int, theirs: int, mover: int, card: int,
          size: int, top: int, points: float, my_count: int, their_count: int,
          last: int) -> float:
    """The margin (mover 0's side less the other's) of playing ``card`` from here on."""
    if mover == 0:
        mine &= ~(1 << card)
    else:
        theirs &= ~(1 << card)
    final = not mine and not theirs
    gain = 0.0
    if size and (card >> 2 == JACK or card >> 2 == top >> 2):
        bonus = pisti_bonus(rules, top, card) if size == 1 else 0
        if final and not rules.last_play_pisti:
            bonus = 0
        gain = points + rules.points_of[card] + bonus
        taken = size + 1
        if mover == 0:
            my_count += taken
        else:
            their_count += taken
        signed = gain if mover == 0 else -gain
        return signed + solve(mine, theirs, 1 - mover, 0, -1, 0.0, my_count, their_count,
                              mover)
    return solve(mine, theirs, 1 - mover, size + 1, card, points + rules.points_of[card],
                 my_count, their_count, last)


class _Solve(Protocol):
    """The memoized solver's signature (for the type checker)."""

    def __call__(self, mine: int, theirs: int, mover: int, size: int, top: int,
                 points: float, my_count: int, their_count: int, last: int) -> float: ...

    def cache_clear(self) -> None: ...


def _solver(rules: Rules) -> _Solve:
    """A fresh memoized solver of the rest of a 2-player deal under ``rules``: the margin
    of seat 0's side (this seat's) over the other's from a position, both playing best."""

    @cache
    def solve(mine: int, theirs: int, mover: int, size: int, top: int, points: float,
              my_count: int, their_count: int, last: int) -> float:
        if not mine and not theirs:
            margin = 0.0
            if size and last >= 0:  # the pile left goes to the last capturer
                if last == 0:
                    margin += points
                    my_count += size
                else:
                    margin -= points
                    their_count += size
            if my_count > their_count:
                margin += rules.majority_points
            elif their_count > my_count:
                margin -= rules.majority_points
            return margin
        hand = mine if mover == 0 else theirs
        best = None
        for card in _cards(hand):
            value = _play(solve_typed, rules, mine, theirs, mover, card, size, top, points,
                          my_count, their_count, last)
            if best is None or (value > best if mover == 0 else value < best):
                best = value
        assert best is not None
        return best

    solve_typed: _Solve = solve
    return solve_typed
