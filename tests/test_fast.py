"""The compiled fast path against the reference core: random deals of every preset and
player count, and of random house rules, compared state by state.

The long run (millions of plays) is ``benchmarks/fast_differential.py``.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np

from basra.fast import core, kernels
from basra.fast.check import (
    FastMismatchError,
    differential_deals,
    differential_state,
    random_rules,
)
from basra.rules import PRESETS, make_rules
from basra.state import new_deal

GAMES = [(name, players) for name, found in PRESETS.items() for players in found.players]


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_every_preset_plays_the_same(name: str, players: int) -> None:
    rules = PRESETS[name].rules_for(players)
    assert differential_deals(rules, deals=6, seed=players) >= 6 * (52 - rules.floor_size)


@pytest.mark.parametrize("seed", range(4))
def test_random_house_rules_play_the_same(seed: int) -> None:
    rng = random.Random(seed)
    for number in range(25):
        differential_deals(random_rules(rng), deals=1, seed=seed * 100 + number)


def test_an_extra_deal_between_tied_seats_plays_the_same() -> None:
    rules = make_rules("egyptian", players=3, overrides={"tie_deal": "tied"})
    assert differential_deals(rules, deals=4, seed=3, seats=(0, 2)) == 4 * 48


def test_a_disagreement_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # The compiled side plays other house rules (no basra points, no majority): the
    # check must notice, at the latest in the deal score.
    other = core.FastRules(make_rules("egyptian", overrides={
        "basra_points": "0", "majority_points": "0", "card_points": "J:1"}))
    monkeypatch.setattr(core, "fast_rules", lambda rules: other)
    state = new_deal(make_rules("egyptian"), 0, random.Random(4))
    with pytest.raises(FastMismatchError, match="differ"):
        differential_state(state, random.Random(0))


@pytest.mark.parametrize(("name", "players"), [("egyptian", 2), ("pasur", 4),
                                                ("three-player", 3)])
def test_compiled_deals_hold_every_card_once(name: str, players: int) -> None:
    rules = PRESETS[name].rules_for(players)
    fast = core.fast_rules(rules)
    st = np.zeros(kernels.STATE_SIZE, np.int64)
    rng = np.array([99], np.uint64)
    for dealer in range(players):
        kernels.new_deal(fast.cfg, st, dealer, rng)
        state = core.from_array(st, fast.table)
        masks = [state.floor, *state.hands, *(h for batch in state.batches for h in batch)]
        assert sum(m.bit_count() for m in masks) == 52
        union = 0
        for mask in masks:
            union |= mask
        assert union == (1 << 52) - 1
        assert not state.floor & rules.bury_mask
        assert state.to_play == (dealer + 1) % players
        assert state.hands[state.to_play].bit_count() == rules.hand_size


def test_compiled_random_deals_are_reproducible() -> None:
    fast = core.fast_rules(make_rules("egyptian"))
    assert core.random_deals(fast, 50, seed=7) == core.random_deals(fast, 50, seed=7)
    totals = {core.random_deals(fast, 50, seed=s) for s in range(4)}
    assert len(totals) > 1


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_compiled_samples_agree_with_the_observation(name: str, players: int) -> None:
    """The compiled search deals only what the seat has not seen, and keeps every count."""
    from basra.match import Match
    from basra.observe import observe
    from basra.state import legal_moves

    match = Match(PRESETS[name].rules_for(players), seed=players)
    rng = random.Random(players)
    for number in range(25):
        seat = match.state.to_play
        view = observe(match, seat)
        sample = core.sample_observation(view, seed=number)
        truth = match.state
        assert sample.hands[seat] == truth.hands[seat]
        assert [h.bit_count() for h in sample.hands] == [h.bit_count() for h in truth.hands]
        assert (sample.floor, sample.piles, sample.basras, sample.last_capturer, sample.laid) == (
            truth.floor, truth.piles, truth.basras, truth.last_capturer, truth.laid)
        assert [[h.bit_count() for h in b] for b in sample.batches] == [
            [h.bit_count() for h in b] for b in truth.batches]
        assert legal_moves(sample) == legal_moves(truth)
        hidden = sample.stock_mask()
        for other, hand in enumerate(sample.hands):
            if other != seat:
                hidden |= hand
        assert hidden == view.unseen
        match.play(rng.choice(match.legal_moves()))


def test_compiled_search_is_reproducible_with_fixed_samples() -> None:
    from basra.bots.master import MasterBot
    from basra.match import Match
    from basra.observe import observe

    match = Match(make_rules("egyptian"), seed=8)
    view = observe(match, match.state.to_play)
    first = MasterBot(5, samples=40).estimates(view)
    again = MasterBot(5, samples=40).estimates(view)
    assert first == again
    assert sorted(e.move for e in first) == sorted(view.legal_moves)


def test_the_match_outcome_of_a_sampled_deal() -> None:
    fast = core.fast_rules(make_rules("egyptian"))
    totals = np.array([90, 60, 0, 0], np.int64)

    def outcome(mine: int, theirs: int, target: int = 101) -> int:
        deal = np.array([mine, theirs, 0, 0], np.int64)
        return int(kernels._match_outcome(fast.cfg, totals, deal, 0, target))

    assert outcome(20, 10) == 1  # 110 to 70: the match is won
    assert outcome(5, 10) == 0  # 95 to 70: it goes on
    assert outcome(5, 50) == -1  # 95 to 110: lost
    assert outcome(20, 50) == 0  # 110 to 110: level, it goes on under the tie rule
    assert outcome(20, 10, target=200) == 0


def test_the_batch_history_holds_the_other_seats_plays_of_this_batch() -> None:
    from basra.bots import make_bot
    from basra.match import Match
    from basra.observe import observe

    rules = make_rules("egyptian")
    match = Match(rules, seed=11)
    bot = make_bot("greedy", 3)
    floors: list[int] = []  # the floor before each play of the deal
    for _ in range(8 + 5):  # one whole batch, then five plays of the next
        floors.append(match.state.floor)
        match.play(bot.choose(observe(match, match.state.to_play)))
    seat = match.state.to_play
    view = observe(match, seat)
    assert view.batch == 2
    history, held = core.batch_history(view)
    plays = list(view.plays)[8:]
    expected = [(p.seat, floors[8 + i], p.card | p.captured << 6)
                for i, p in enumerate(plays) if p.seat != seat]
    assert [tuple(int(x) for x in row) for row in history] == expected
    other = [p for p in plays if p.seat != seat]
    for j, play in enumerate(other):
        # The cards that seat still held at that play: its card and every later one.
        assert int(held[j]) == sum(1 << p.card for p in other[j:])
        assert int(held[j]) >> play.card & 1


def test_inference_weighs_down_hands_that_would_not_have_trailed() -> None:
    from basra.cards import parse_card, parse_cards

    fast = core.fast_rules(make_rules("egyptian"))

    def mask(text: str) -> int:
        return sum(1 << card for card in parse_cards(text))

    # Seat 1 trailed the 3♣ on a lone 5♥ while the stock lasted.
    history = np.array([[1, mask("5H"), parse_card("3C")]], np.int64)
    held = np.array([mask("3C")], np.int64)

    def weight(hand_now: str) -> float:
        sample = np.zeros(kernels.STATE_SIZE, np.int64)
        sample[kernels.S_HANDS + 1] = mask(hand_now)
        return float(kernels.likelihood(
            fast.cfg, fast.cards, sample, history, held, True, 2.0,
            np.empty(kernels.MAX_MOVES, np.int64), np.empty(kernels.MAX_OPTIONS, np.int64),
            kernels.new_memo()))

    could_basra = weight("5S 9C")  # the 5♠ took the lone 5♥ as a basra: why trail?
    nothing_better = weight("9C KD")  # every card trails: the 3♣ was as good as any
    assert 0 < could_basra < 0.01 < 0.2 < nothing_better <= 1
    # A hand with a Jack kept for a richer floor is less likely, not ruled out.
    assert could_basra < weight("JC 9C") < nothing_better


def test_search_with_inference_is_reproducible_and_ranks_every_move() -> None:
    from basra.bots.master import MasterBot, SearchSettings
    from basra.match import Match
    from basra.observe import observe

    match = Match(make_rules("egyptian"), seed=8)
    for _ in range(3):
        match.play(match.legal_moves()[0])
    view = observe(match, match.state.to_play)
    assert len(core.batch_history(view)[0]) >= 1

    def estimates() -> list[object]:
        bot = MasterBot(5, samples=40, settings=SearchSettings(infer_tau=2.0))
        return list(bot.estimates(view))

    first = estimates()
    assert first == estimates()
    assert sorted(e.move for e in first) == sorted(view.legal_moves)  # type: ignore[attr-defined]


def test_tree_search_is_reproducible_and_tries_every_move() -> None:
    from basra.match import Match
    from basra.observe import observe

    match = Match(make_rules("egyptian"), seed=8)
    for _ in range(3):
        match.play(match.legal_moves()[0])
    view = observe(match, match.state.to_play)
    first = core.observation_tree_search(view, 0.0, 3, samples=600, match_bonus=50.0)
    assert first == core.observation_tree_search(view, 0.0, 3, samples=600, match_bonus=50.0)
    assert sum(first.visits) == 600  # every iteration goes through one of the root's moves
    assert len(first.visits) == len(view.legal_moves) and min(first.visits) >= 1
    assert first.weights == [float(v) for v in first.visits]


def test_tree_search_finds_the_best_line_when_every_card_is_known() -> None:
    """With one consistent deal the tree search is plain UCT: it finds the exact solver's
    best move, and the line it values most is worth what the solver says."""
    from basra.bots.search import solve
    from basra.observe import observe_state
    from basra.position import parse_position
    from basra.state import parse_move

    state = parse_position(
        "egyptian/2 | dealer 1 | turn 0 | floor 2H 3H 6H 7H 9H | hands AC 8C / 4H 10D "
        "| stock - | piles AH AD 2S 3S 3D 4S 5S 5H 5C 6S 6D 7D 8S 8H 8D 9S 9D 9C 10S 10H "
        "10C JS JH JC QS QH QD / AS 2D 2C 3C 4D 4C 5D 6C 7S 7C JD QC KS KH KD KC "
        "| basras 2 0 | last 1")
    view = observe_state(state, 0)
    exact = solve(state, 0)
    stats = core.observation_tree_search(view, 0.0, 1, samples=3000, exploration=20.0)
    moves = list(view.legal_moves)
    chosen = moves[stats.visits.index(max(stats.visits))]
    assert chosen == parse_move(state, "AC") == max(exact, key=lambda m: exact[m])
    index = moves.index(chosen)
    assert stats.sums[index] / stats.visits[index] == pytest.approx(exact[chosen], abs=0.5)


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_the_tree_searching_master_plays_legal_moves(name: str, players: int) -> None:
    from basra.bots.master import MasterBot, SearchSettings
    from basra.match import Match
    from basra.observe import observe

    match = Match(PRESETS[name].rules_for(players), seed=players, variant=name)
    bot = MasterBot(1, samples=30, settings=SearchSettings(tree=True))
    for _ in range(3 * players * 4):
        if match.is_over:
            break
        view = observe(match, match.state.to_play)
        move = bot.choose(view)
        assert move in view.legal_moves
        match.play(move)


def test_fixed_samples_do_not_depend_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``samples`` the pruning sees the same chunks however fast the machine is."""
    import itertools

    from basra.match import Match
    from basra.observe import observe

    match = Match(make_rules("egyptian"), seed=12)
    view = observe(match, match.state.to_play)
    normal = core.observation_search(view, 0.0, 4, samples=3000, match_bonus=50.0)
    ticks = itertools.count(step=0.5)  # a machine where every chunk takes half a second
    monkeypatch.setattr(core.time, "perf_counter", lambda: next(ticks))
    slow = core.observation_search(view, 0.0, 4, samples=3000, match_bonus=50.0)
    assert slow == normal
    assert max(normal.visits) == 3000
