"""The expert and master levels: known endgames, the exact solver, search tools, hints."""

from __future__ import annotations

import random
from functools import partial

import pytest

from basra.bots import make_bot
from basra.bots.expert import ExpertBot, expected_best_reply
from basra.bots.master import MasterBot
from basra.bots.search import deal_margin, sample_state, solve
from basra.bots.simple import GreedyBot
from basra.cards import CARD_NAMES
from basra.match import Match
from basra.observe import observe, observe_state
from basra.position import parse_position
from basra.rules import PRESETS, make_rules
from basra.state import DealState, apply, legal_moves, new_deal, parse_move
from tests.support.positions import last_batch_states

# Seat 1 to play with 4C and 9C on a floor of AC; seat 0 holds 5S and 8S, the last cards
# of the deal. Trailing the 4C lets seat 0's 5S take A+4 and clear the floor: a basra.
# Trailing the 9C leaves nothing seat 0 can take (5 and 8 make no 10 with an ace or 9).
LONE_CARD = (
    "egyptian/2 | dealer 0 | turn 1 | floor AC | hands 5S 8S / 4C 9C | stock - "
    "| piles 2S 2H 3C 4D 6S 6D 7S 7C 10H 10D QS QH KH KD / AS AH AD 2D 2C 3S 3H 3D 4S 4H 5H "
    "5D 5C 6H 6C 7H 7D 8H 8D 8C 9S 9H 9D 10S 10C JS JH JD JC QD QC KS KC | basras 0 2 | last 1"
)

# Seat 0 to play AC or 8C on a floor of 2H 3H 6H 7H 9H; seat 1 holds 4H and 10D. Taking
# 2H+6H with the 8C looks best now, but trailing the AC keeps 8C for later and leaves seat 1
# no clearing capture; exact play gains 6 points over the greedy capture.
TRAIL_FIRST = (
    "egyptian/2 | dealer 1 | turn 0 | floor 2H 3H 6H 7H 9H | hands AC 8C / 4H 10D | stock - "
    "| piles AH AD 2S 3S 3D 4S 5S 5H 5C 6S 6D 7D 8S 8H 8D 9S 9D 9C 10S 10H 10C JS JH JC QS QH "
    "QD / AS 2D 2C 3C 4D 4C 5D 6C 7S 7C JD QC KS KH KD KC | basras 2 0 | last 1"
)


def minimax(state: DealState, side: int) -> float:
    """Plain minimax over the rest of a deal, independent of the bots' solver."""
    if state.is_over:
        return deal_margin(state, side)
    results = [minimax(apply(state, move), side) for move in legal_moves(state)]
    return max(results) if state.rules.side_of[state.to_play] == side else min(results)


def test_master_avoids_leaving_a_basra() -> None:
    state = parse_position(LONE_CARD)
    view = observe_state(state, 1)
    master = MasterBot(0, workers=1)
    assert master.choose(view) == parse_move(state, "9C")
    values = {e.move: e.value for e in master.estimates(view)}
    assert values[parse_move(state, "9C")] - values[parse_move(state, "4C")] == 10


def test_expert_avoids_leaving_a_basra() -> None:
    state = parse_position(LONE_CARD)
    assert ExpertBot(0).choose(observe_state(state, 1)) == parse_move(state, "9C")


def test_master_finds_the_line_greedy_misses() -> None:
    state = parse_position(TRAIL_FIRST)
    view = observe_state(state, 0)
    best = parse_move(state, "AC")
    assert MasterBot(0, workers=1).choose(view) == best
    assert GreedyBot(0).choose(view) != best
    exact = solve(state, 0)
    assert exact[best] == minimax(apply(state, best), 0)
    assert exact[best] - exact[parse_move(state, "8C:2H+6H")] == 6


@pytest.mark.parametrize("variant", ["egyptian", "jawaker", "lebanese", "six-card", "pasur"])
def test_exact_solver_agrees_with_plain_minimax(variant: str) -> None:
    rules = make_rules(variant)
    rng = random.Random(7)
    checked = 0
    for trial in range(200):
        state = new_deal(rules, trial % 2, rng)
        while not state.is_over and (state.batches or state.hands[state.to_play].bit_count() > 3):
            moves = legal_moves(state)
            state = apply(state, moves[rng.randrange(len(moves))])
        if state.is_over:
            continue
        side = rules.side_of[state.to_play]
        exact = solve(state, side)
        for move, value in exact.items():
            assert value == minimax(apply(state, move), side)
        checked += 1
        if checked == 12:
            break
    assert checked == 12


def _best_replies(side: int, node: DealState) -> list[int]:
    """The moves of the seat to play that leave ``side`` least (its best replies)."""
    values = solve(node, side)
    worst = min(values.values())
    return [m for m, v in values.items() if v == worst]


def _level_moves(bot: ExpertBot | GreedyBot, seat: int, node: DealState) -> list[int]:
    return bot.best_moves(observe_state(node, seat))


@pytest.mark.parametrize("variant", ["egyptian", "pasur"])
def test_solving_against_the_best_replies_as_a_known_play_is_plain_solving(
        variant: str) -> None:
    """A seat whose known play is its best replies leaves every value as alpha-beta's."""
    for state in last_batch_states(variant, seed=5, count=10):
        side = state.rules.side_of[state.to_play]
        other = state.turns[state.to_play]

        replies = partial(_best_replies, side)
        assert solve(state, side, 0, {other: replies}) == solve(state, side)


@pytest.mark.parametrize("level", [ExpertBot, GreedyBot])
def test_solving_against_a_levels_play_is_worth_at_least_its_best_replies(
        level: type[ExpertBot] | type[GreedyBot]) -> None:
    """Against a level's play each move is worth at least what it is against the best
    replies, and on some deals more: a level does not always reply its best."""
    better = 0
    for state in last_batch_states("egyptian", seed=8, count=40):
        side = state.rules.side_of[state.to_play]
        other = state.turns[state.to_play]
        exact = solve(state, side)
        against = solve(state, side, 0, {other: partial(_level_moves, level(0), other)})
        assert against.keys() == exact.keys()
        assert all(against[m] >= exact[m] for m in exact)
        better += max(against.values()) > max(exact.values())
    assert better >= 4


HOUSE_RULES = [
    ("pasur", 2, {}),
    ("pasur", 3, {"last_batch_basra": "false", "clubs_min": "7"}),
    ("pasur", 4, {"leftover": "split"}),
    ("egyptian", 3, {"leftover": "split", "majority_min": "20", "majority_tie": "double",
                     "tie_deal": "tied", "target": "40"}),
    ("classic", 4, {"tie_deal": "tied", "majority_tie": "double", "target": "30",
                    "last_batch_basra": "false"}),
]


@pytest.mark.parametrize(("variant", "players", "overrides"), HOUSE_RULES,
                         ids=[f"{v}/{p}/{len(o)}" for v, p, o in HOUSE_RULES])
def test_every_level_plays_pasur_and_the_house_variations_legally(
        variant: str, players: int, overrides: dict[str, str]) -> None:
    """A whole match with every level seated: every move goes through the checked play."""
    rules = make_rules(variant, players, overrides)
    levels = ["master", "neural", "expert", "greedy", "random"][:players]
    bots = [make_bot(level, seat, think_ms=5, workers=1) for seat, level in enumerate(levels)]
    match = Match(rules, seed=players)
    while not match.is_over and len(match.deals) < 30:
        seat = match.state.to_play
        view = observe(match, seat)
        move = bots[seat].choose(view)
        assert move in view.legal_moves
        match.play(move)
    assert match.is_over


def test_master_plays_optimally_once_every_card_is_known() -> None:
    rules = make_rules("egyptian")
    rng = random.Random(3)
    for trial in range(8):
        state = new_deal(rules, trial % 2, rng)
        while state.batches or state.hands[state.to_play].bit_count() > 3:
            moves = legal_moves(state)
            state = apply(state, moves[rng.randrange(len(moves))])
        seat = state.to_play
        view = observe_state(state, seat)
        choice = MasterBot(trial, workers=1).choose(view)
        side = rules.side_of[seat]
        best = max(minimax(apply(state, m), side) for m in legal_moves(state))
        assert minimax(apply(state, choice), side) == best


@pytest.mark.parametrize("name", [name for name, found in PRESETS.items()
                                  if found.rules.family != "pisti"])  # issue 41: no search yet
def test_sampled_states_agree_with_the_observation(name: str) -> None:
    for players in PRESETS[name].players:
        match = Match(make_rules(name, players), seed=players)
        rng = random.Random(players)
        for _ in range(30):
            seat = match.state.to_play
            view = observe(match, seat)
            sample = sample_state(view, rng)
            truth = match.state
            assert sample.hands[seat] == truth.hands[seat]
            assert [h.bit_count() for h in sample.hands] == [h.bit_count() for h in truth.hands]
            assert (sample.floor, sample.piles, sample.basras, sample.last_capturer) == (
                truth.floor, truth.piles, truth.basras, truth.last_capturer)
            assert sample.stock_count == truth.stock_count
            assert legal_moves(sample) == legal_moves(truth)
            everything = sample.floor | sample.stock_mask()
            for mask in (*sample.hands, *sample.piles):
                everything |= mask
            assert everything == (1 << 52) - 1
            match.play(rng.choice(match.legal_moves()))


def test_expected_best_reply_matches_enumeration() -> None:
    from itertools import combinations

    values = [7.0, 0.0, 3.0, 3.0, 12.5, 0.0, 1.0]
    for hand in range(1, 5):
        hands = list(combinations(values, hand))
        mean = sum(max(h) for h in hands) / len(hands)
        assert expected_best_reply(values, hand) == pytest.approx(mean)


def test_master_estimates_every_move_best_first() -> None:
    match = Match(make_rules("egyptian"), seed=11)
    seat = match.state.to_play
    view = observe(match, seat)
    estimates = MasterBot(1, workers=1, samples=3).estimates(view)
    assert sorted(e.move for e in estimates) == sorted(view.legal_moves)
    assert [e.value for e in estimates] == sorted((e.value for e in estimates), reverse=True)
    assert all(e.samples == 3 for e in estimates)


@pytest.mark.slow
def test_master_uses_worker_processes_and_closes_them() -> None:
    match = Match(make_rules("egyptian"), seed=5)
    view = observe(match, match.state.to_play)
    bot = make_bot("master", 2, think_ms=150, workers=2)
    assert isinstance(bot, MasterBot)
    assert bot.choose(view) in view.legal_moves
    assert bot._pool is not None
    bot.close()
    assert bot._pool is None


def test_expert_keeps_a_jack_for_a_richer_floor() -> None:
    # Early in a deal, floor KS 5S. The JC would sweep two cards; the 5H takes the 5S and
    # leaves the KS, which no unseen card but a Jack can take (the other kings are gone),
    # so the expert keeps its Jack for a richer floor. Greedy spends it.
    floor, mine, theirs = "5S KS", "5H 8D 9S JC", "3D 4C 6H 10C"
    piles = ("KH KD QS QH AS 2S", "KC QD QC 3S")
    used = set(f"{floor} {mine} {theirs} {piles[0]} {piles[1]}".split())
    stock = [name for name in CARD_NAMES if name not in used]
    assert len(stock) == 32
    state = parse_position(
        f"jawaker/2 | dealer 1 | turn 0 | floor {floor} | hands {mine} / {theirs} "
        f"| stock {' '.join(stock)} | piles {piles[0]} / {piles[1]} | basras 0 0 | last 1")
    view = observe_state(state, 0)
    assert GreedyBot(0).choose(view) == parse_move(state, "JC")
    assert ExpertBot(0).choose(view) == parse_move(state, "5H")
