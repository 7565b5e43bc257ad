"""The compiled fast path against the reference core: random deals of every preset and
player count, and of random house rules, compared state by state.

The long run (millions of plays) is ``benchmarks/fast_differential.py``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from basra.fast import core, kernels
from basra.fast.check import (
    FastMismatchError,
    differential_deals,
    differential_state,
    random_rules,
)
from basra.rules import PILE_FAMILIES, PRESETS, make_rules
from basra.state import DealState, apply, deal_score, legal_moves, new_deal

GAMES = [(name, players) for name, found in PRESETS.items() for players in found.players]
# The search tests below play the rollout policies of Basra and Pasur; the pile games'
# search is checked in test_pile_master.py.
SEARCH_GAMES = [(name, players) for name, players in GAMES
                if PRESETS[name].rules.family not in PILE_FAMILIES]
PILE_GAMES = [(name, players) for name, players in GAMES if (name, players) not in SEARCH_GAMES]


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


def test_pile_games_with_every_deal_option_play_the_same() -> None:
    """Both presets with 4 independent players, and each house rule of the deal and the
    pişti (spec 9.10 and 10.10)."""
    variations: list[tuple[str, int, dict[str, str]]] = [
        ("pisti", 4, {"partnership": "false"}),
        ("pisti", 2, {"centre_jack": "to_stock"}),
        ("pisti", 3, {"bottom_card": "hidden", "kitty_view": "capturer"}),
        ("pisti", 2, {"jack_pisti": "lone", "last_play_pisti": "true"}),
        ("xeri", 2, {"pile_redeal": "top_pair_or_jack", "jack_pisti": "lone"}),
        ("xeri", 4, {"pile_redeal": "none", "last_play_pisti": "true",
                     "majority_tie": "carry"}),
    ]
    for number, (name, players, overrides) in enumerate(variations):
        rules = make_rules(name, players, overrides=overrides)
        assert differential_deals(rules, deals=4, seed=number) == 4 * (52 - rules.floor_size)


@pytest.mark.parametrize(("name", "players"), PILE_GAMES)
def test_compiled_pile_deals_are_dealt_by_the_rules(name: str, players: int) -> None:
    """The compiled deal of a pile game (its own random numbers): every card once, a pile
    whose top card is face up and no Jack, at most ``pile_down`` face-down cards below it,
    Xeri's pile re-dealt until it passes, the bottom card shown and in the dealer's last
    batch; and a compiled deal plays as the reference core plays it."""
    from basra.state import needs_pile_redeal

    rules = PRESETS[name].rules_for(players)
    fast = core.fast_rules(rules)
    st = np.zeros(kernels.STATE_SIZE, np.int64)
    rng = np.array([99], np.uint64)
    for number in range(60):
        kernels.new_deal(fast.cfg, st, number % players, rng)
        state = core.from_array(st, fast.table)
        masks = [state.floor, *state.hands, *(h for batch in state.batches for h in batch)]
        union = 0
        for mask in masks:
            union |= mask
        assert union == (1 << 52) - 1 and sum(m.bit_count() for m in masks) == 52
        assert len(state.laid) == rules.floor_size
        assert sum(1 << card for card in state.laid) == state.floor
        assert state.laid[-1] >> 2 != 10  # the top card is no Jack
        assert state.down.bit_count() <= rules.pile_down
        assert all(card in state.laid[:-1] for card in range(52) if state.down >> card & 1)
        assert not needs_pile_redeal(rules, state.laid)
        if rules.bottom_card == "shown":
            assert state.exposed.bit_count() == 1
            assert state.exposed & state.batches[-1][state.dealer] == state.exposed
            assert not state.exposed & kernels.JACKS
        else:
            assert state.exposed == 0
        assert state.to_play == (state.dealer + 1) % players
        assert state.kitty == -1 and not any(state.jack_pistis)
        if number < 6:
            differential_state(state, random.Random(number))


def test_compiled_random_pile_deals_score_piştis() -> None:
    """Random playouts of both presets make plain and double piştis, and a deal's card
    points add up to the preset's: 13 in Pişti, 22 in Xeri (spec 11.7)."""
    for name, deal_points in (("pisti", 13), ("xeri", 22)):
        rules = make_rules(name)
        fast = core.fast_rules(rules)
        st = np.zeros(kernels.STATE_SIZE, np.int64)
        rng = np.array([5], np.uint64)
        pistis = doubles = 0
        for number in range(400):
            kernels.new_deal(fast.cfg, st, number % 2, rng)
            kernels.random_playout(fast.cfg, fast.cards, st, rng, fast.moves, fast.options,
                                   fast.memo)
            state = core.from_array(st, fast.table)
            assert state.is_over and not state.floor
            assert sum(rules.card_points_of(pile) for pile in state.piles) == deal_points
            pistis += sum(state.basras)
            doubles += sum(state.jack_pistis)
            totals, _ = core.deal_totals(fast, st)
            assert totals == deal_score(state).total
        assert pistis > doubles > 0


@pytest.mark.parametrize(("name", "players"), PILE_GAMES)
def test_the_compiled_greedy_plays_a_pile_game_as_the_greedy_bot(name: str,
                                                                  players: int) -> None:
    """Rollout policy 1 in a pile game captures when it can, preferring a pişti, and
    otherwise lays the card worth the fewest points, the lowest of those: one of the
    greedy bot's best cards (it values a capture by the cards it sees; every capture
    takes the same pile, so the card it prefers is the same)."""
    from basra.bots.simple import GreedyBot
    from basra.observe import observe_state

    rules = PRESETS[name].rules_for(players)
    fast = core.fast_rules(rules)
    rng = random.Random(players)
    bot = GreedyBot(0)
    decided = captured = 0
    for number in range(4):
        state = new_deal(rules, number % players, rng)
        while not state.is_over:
            moves = legal_moves(state)
            if len(moves) > 1:
                best = bot.best_moves(observe_state(state, state.to_play))
                chosen = kernels.policy_move(
                    fast.cfg, fast.cards, core.to_array(state), np.array(moves, np.int64),
                    len(moves), np.array([number * 2 + 1], np.uint64), 1,
                    np.empty(kernels.MAX_MOVES, np.int64), fast.options, fast.memo,
                    np.empty(52))
                assert chosen & 63 in {move & 63 for move in best}
                assert bool(chosen >> 6) == any(move >> 6 for move in moves)
                decided += 1
                captured += chosen >> 6 != 0
            state = apply(state, rng.choice(moves))
    assert decided > 100 and captured > 10


def test_the_compiled_search_plays_the_pile_games_with_the_pile_policy() -> None:
    from basra.match import Match
    from basra.observe import observe

    match = Match(make_rules("pisti"), seed=1)
    view = observe(match, match.state.to_play)
    stats = core.observation_search(view, 0.0, 1, samples=8, policy=5)
    assert stats.visits == [8] * len(view.legal_moves)
    with pytest.raises(ValueError, match="pile rollout policy plays the pile games alone"):
        egyptian = Match(make_rules("egyptian"), seed=1)
        core.observation_search(observe(egyptian, egyptian.state.to_play), 0.0, 1,
                                samples=8, policy=5)
    # nor does the expert's rollout policy (it weighs replies on a floor of loose cards)
    fast = core.fast_rules(view.rules)
    moves = np.array(view.legal_moves, np.int64)
    with pytest.raises(ValueError, match="does not play the pile games"):
        kernels.policy_move(fast.cfg, fast.cards, core.to_array(match.state), moves,
                            len(moves), np.array([1], np.uint64), 4,
                            np.empty(kernels.MAX_MOVES, np.int64), fast.options, fast.memo,
                            np.empty(52))


def test_compiled_random_deals_are_reproducible() -> None:
    fast = core.fast_rules(make_rules("egyptian"))
    assert core.random_deals(fast, 50, seed=7) == core.random_deals(fast, 50, seed=7)
    totals = {core.random_deals(fast, 50, seed=s) for s in range(4)}
    assert len(totals) > 1


@pytest.mark.parametrize(("name", "players"), SEARCH_GAMES)
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


def test_the_master_rolls_out_with_the_experts_play_when_more_than_two_play() -> None:
    from basra.bots.master import MANY_PLAYERS_POLICY, ROLLOUT_POLICY, MasterBot, SearchSettings
    from basra.match import Match
    from basra.observe import observe

    assert SearchSettings().rollout_policy(make_rules("egyptian")) == ROLLOUT_POLICY == 3
    assert SearchSettings().rollout_policy(make_rules("egyptian", players=4)) == 4
    assert SearchSettings().rollout_policy(make_rules("three-player")) == MANY_PLAYERS_POLICY
    assert SearchSettings(policy=1).rollout_policy(make_rules("three-player")) == 1
    with pytest.raises(ValueError, match="rollout policy 2"):
        SearchSettings(policy=2)

    match = Match(make_rules("three-player"), seed=8)
    view = observe(match, match.state.to_play)

    def estimates(settings: SearchSettings) -> list[tuple[int, float]]:
        found = MasterBot(5, samples=60, settings=settings).estimates(view)
        return sorted((e.move, e.value) for e in found)

    default = estimates(SearchSettings())
    assert default == estimates(SearchSettings(policy=4))
    assert default != estimates(SearchSettings(policy=3))


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


def test_a_sampled_deal_is_worth_its_gain_in_lead_over_the_best_other_side() -> None:
    two = core.fast_rules(make_rules("egyptian"))
    three = core.fast_rules(make_rules("three-player", players=3))

    def gain(fast: core.FastRules, totals: list[int], deal: list[int], side: int) -> float:
        return kernels.lead_gain(fast.cfg, np.array([*totals, 0, 0, 0, 0][:4], np.int64),
                                 np.array([*deal, 0, 0, 0, 0][:4], np.int64), side)

    # Two sides: the deal's margin, whatever the totals.
    assert gain(two, [90, 20], [7, 12], 0) == -5
    assert gain(two, [0, 80], [30, 4], 1) == -26
    # Three: points to the side ahead cost in full, to a side far behind nothing.
    assert gain(three, [50, 60, 10], [5, 8, 2], 0) == 5 - 8
    assert gain(three, [50, 60, 10], [5, 0, 30], 0) == 5
    assert gain(three, [50, 60, 10], [5, 0, 55], 0) == 5 - 5  # the third goes ahead: 65
    assert gain(three, [50, 60, 10], [5, 8, 2], 1) == 8 - 5  # a lead of 10 becomes 13
    # The search's value adds the bonus when the deal ends the match.
    totals = np.array([95, 60, 10, 0], np.int64)
    deal = np.array([10, 4, 0, 0], np.int64)
    value = kernels.sample_value(three.cfg, totals, deal, 0, 101, 50.0)
    assert value == 10 - 4 + 50


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
    expected = [(p.seat, p.card | p.captured << 6, floors[8 + i])
                for i, p in enumerate(plays) if p.seat != seat]
    context = kernels.H_CONTEXT
    assert [(int(row[kernels.H_SEAT]), int(row[kernels.H_MOVE]),
             int(row[context + kernels.X_FLOOR])) for row in history] == expected
    for row, play in zip(history, [p for p in plays if p.seat != seat], strict=True):
        # what that seat knew: the floor and piles in sight, the next hand's size
        piles = [int(p) for p in row[kernels.H_PILES:kernels.H_PILES + 2]]
        assert int(row[context + kernels.X_UNSEEN]) == (
            int(row[context + kernels.X_FLOOR]) | piles[0] | piles[1])
        before = plays.index(play)
        replies = sum(1 for p in plays[:before] if p.seat == seat)
        assert int(row[context + kernels.X_REPLY_HAND]) == 4 - replies
        assert not row[context + kernels.X_PARTNER]
    # the piles of the last row grow to the observation's with the plays after it
    assert all(int(row[kernels.H_PILES]) & ~view.piles[0] == 0 for row in history)
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

    # Seat 1 trailed the 3♣ on a lone 5♥ while the stock lasted (seat 0 to reply with
    # three cards).
    history = np.zeros((1, kernels.HISTORY_COLUMNS), np.int64)
    history[0, kernels.H_SEAT] = 1
    history[0, kernels.H_MOVE] = parse_card("3C")
    history[0, kernels.H_CONTEXT + kernels.X_FLOOR] = mask("5H")
    history[0, kernels.H_CONTEXT + kernels.X_UNSEEN] = mask("5H")
    history[0, kernels.H_CONTEXT + kernels.X_REPLY_HAND] = 3
    held = np.array([mask("3C")], np.int64)

    def weight(hand_now: str, policy: int, tau: float = 2.0) -> float:
        sample = np.zeros(kernels.STATE_SIZE, np.int64)
        sample[kernels.S_HANDS + 1] = mask(hand_now)
        return float(kernels.likelihood(
            fast.cfg, fast.cards, sample, history, held, np.full(4, policy, np.int64), tau,
            np.empty(kernels.MAX_MOVES, np.int64), np.empty(kernels.MAX_MOVES),
            np.empty(52), np.empty(kernels.EXPERT_CONTEXT, np.int64),
            np.empty(kernels.MAX_OPTIONS, np.int64), kernels.new_memo()))

    for policy in (3, 4):  # a greedy player keeping its sweepers, and the expert
        could_basra = weight("5S 9C", policy)  # the 5♠ took the lone 5♥ as a basra
        nothing_better = weight("9C KD", policy)  # every card trails
        assert 0 < could_basra < 0.01 < nothing_better <= 1
        # A hand with a Jack kept for a richer floor is less likely, not ruled out.
        assert could_basra < weight("JC 9C", policy) < nothing_better
    assert weight("9C KD", 3) > 0.2  # greedy: the lowest card laid, as good as any
    # The expert weighs what each laid card hands the next player: the 3♣ beside the 5♥
    # gives an 8 both cards, where the K♦ gives a King only itself: less likely with a K♦
    # in hand than with a 10♦ (laid, it would hand over 3 points and the 5♥ to a 5).
    assert weight("KD 9C", 4) < weight("10D 9C", 4)
    # However sharp the reading, a play its model would never make with the hand dealt
    # is a slip, as likely as any of the hand's three moves picked at random: the deal
    # weighs that little, not nothing.
    for policy in (1, 4):
        assert weight("5S 9C", policy, tau=0.001) == pytest.approx(kernels.SLIP / 3,
                                                                   rel=1e-9)
    assert weight("9C KD", 1, tau=0.001) > 0.99  # greedy's own lay: the lowest card


def test_tree_search_plays_every_move_on_each_deal() -> None:
    """Under the flat root every root move is tried on each of the deals, on the same
    deals and rollout randomness, so the search is reproducible, each move has as many
    visits as there were deals, and a move's value is the mean over those deals."""
    from basra.match import Match
    from basra.observe import observe

    match = Match(make_rules("egyptian"), seed=8)
    for _ in range(3):
        match.play(match.legal_moves()[0])
    view = observe(match, match.state.to_play)
    first = core.observation_tree_search(view, 0.0, 3, samples=500, policy=1)
    assert first == core.observation_tree_search(view, 0.0, 3, samples=500, policy=1)
    assert first.visits == [500] * len(view.legal_moves) == [int(w) for w in first.weights]
    assert first.nodes > len(view.legal_moves) + 1  # the tree grew below the root's moves
    assert first != core.observation_tree_search(view, 0.0, 4, samples=500, policy=1)


def test_tree_search_finds_the_best_line_when_every_card_is_known() -> None:
    """With one consistent deal the tree search is plain UCT below each move: it values
    every move at what the exact solver says, so the best valued is the solver's."""
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
    values = [total / visits for total, visits in zip(stats.sums, stats.visits, strict=True)]
    chosen = moves[values.index(max(values))]
    assert chosen == parse_move(state, "AC") == max(exact, key=lambda m: exact[m])
    for move, value in zip(moves, values, strict=True):
        assert value == pytest.approx(exact[move], abs=0.5)


def test_the_tree_plans_against_a_seat_of_known_style() -> None:
    """A seat read as greedy plays greedily in the tree too, so the tree finds the best
    reply to greedy play, which the tree with the other seat choosing by UCB (and the
    exact solver) cannot tell from a move worth ten points less against it."""
    from basra.bots.search import deal_margin, solve
    from basra.bots.simple import move_value
    from basra.observe import observe_state
    from basra.position import parse_position
    from basra.state import parse_move

    state = parse_position(
        "egyptian/2 | dealer 1 | turn 0 | floor AS 4C 5D 8H 10H KH | hands AC 9S JC / "
        "2D 4D 10C | stock - | piles 2H 3H 3C 4S 4H 5S 5H 5C 6H 6D 8S 8D 8C 10S 10D JH "
        "JD QS KD / AH AD 2S 2C 3S 3D 6S 6C 7S 7H 7D 7C 9H 9D 9C JS QH QD QC KS KC "
        "| basras 2 0 | last 0")

    def against_greedy(node: DealState) -> float:
        """The deal's margin for seat 0 playing its best against greedy play."""
        if node.is_over:
            return deal_margin(node, 0)
        moves = legal_moves(node)
        if node.to_play == 0:
            return max(against_greedy(apply(node, m)) for m in moves)
        values = [move_value(node.table, node.floor, m) for m in moves]
        best = [m for m, v in zip(moves, values, strict=True) if v == max(values)]
        return sum(against_greedy(apply(node, m)) for m in best) / len(best)

    view = observe_state(state, 0)
    moves = list(view.legal_moves)
    exact = {m: against_greedy(apply(state, m)) for m in moves}
    best = parse_move(state, "9S:AS+4C+5D+8H")
    assert max(exact, key=lambda m: exact[m]) == best
    assert exact[best] - 10 == max(v for m, v in exact.items() if m != best)
    assert solve(state, 0)[best] == max(solve(state, 0).values()) == exact[best] - 10

    # every move is searched below as deep: each is valued as it is against greedy
    read = core.observation_tree_search(view, 0.0, 1, samples=1000, policy=1,
                                        exploration=20.0, styles=(None, 1))
    values = [total / visits for total, visits in zip(read.sums, read.visits, strict=True)]
    assert moves[values.index(max(values))] == best
    for move, value in zip(moves, values, strict=True):
        assert value == pytest.approx(exact[move], abs=1.0)
    # unread, the other seat chooses by UCB in the tree: its best replies
    unread = core.observation_tree_search(view, 0.0, 1, samples=3000, policy=1,
                                          exploration=20.0)
    index = moves.index(best)
    assert unread.sums[index] / unread.visits[index] == pytest.approx(exact[best] - 10,
                                                                      abs=1.0)


def test_the_tree_deals_few_deals_for_a_read_seat_that_plays_otherwise() -> None:
    """A seat taken as the expert that plays at random makes plays of the batch that few
    deals, or none, explain: the tree weighs a deal against the likeliest it has seen,
    so it turns down a few deals for each one it searches, not hundreds, and still
    searches every move as often."""
    from statistics import median

    from basra.bots import make_bot
    from basra.match import Match
    from basra.observe import observe

    match = Match(make_rules("egyptian"), seed=3)
    bots = (make_bot("greedy", 1), make_bot("random", 2))
    per_deal: list[float] = []
    while len(per_deal) < 12:
        seat = match.state.to_play
        view = observe(match, seat)
        if (seat == 0 and view.stock_count and len(view.legal_moves) > 1
                and len(core.batch_history(view)[0])):
            stats = core.observation_tree_search(view, 0.0, 5, samples=40, policy=3,
                                                 match_bonus=50.0, styles=(None, 4))
            assert stats.visits == [40] * len(view.legal_moves)
            per_deal.append(stats.dealt / 40)
        match.play(bots[seat].choose(view))
    # 64 deals weighed first, then each deal searched takes a few
    assert min(per_deal) > 1
    assert median(per_deal) < 20


@pytest.mark.parametrize("options", [{"policy": 1, "prune": False, "match_bonus": 0.0,
                                      "read_styles": False}, {"policy": 4}],
                         ids=["the master before the compiled search", "expert rollouts"])
@pytest.mark.parametrize(("name", "players"), SEARCH_GAMES)
@pytest.mark.slow
def test_the_master_plays_legal_moves_with_other_settings(
        name: str, players: int, options: dict[str, object]) -> None:
    from basra.bots.master import MasterBot, SearchSettings
    from basra.match import Match
    from basra.observe import observe

    match = Match(PRESETS[name].rules_for(players), seed=players, variant=name)
    bot = MasterBot(1, samples=30, settings=SearchSettings(**options))  # type: ignore[arg-type]
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


@pytest.mark.parametrize(("name", "players"), SEARCH_GAMES)
def test_the_compiled_expert_plays_as_the_expert(name: str, players: int) -> None:
    """Rollout policy 4 is the expert's choice, on what the seat to play may see (the
    other hands and the stock are unseen to it, not read)."""
    from basra.bots.expert import ExpertBot
    from basra.observe import observe_state
    from basra.state import apply, legal_moves

    rules = PRESETS[name].rules_for(players)
    fast = core.fast_rules(rules)
    rng = random.Random(players)
    expert = ExpertBot(0)
    values = np.empty(52)
    context = np.empty(kernels.EXPERT_CONTEXT, np.int64)
    options = np.empty(kernels.MAX_OPTIONS, np.int64)
    decided = 0
    for number in range(6):
        state = new_deal(rules, number % players, rng)
        while not state.is_over:
            moves = legal_moves(state)
            if len(moves) > 1:
                worth = dict(expert.move_values(observe_state(state, state.to_play)))
                chosen = kernels.expert_move(
                    fast.cfg, fast.cards, core.to_array(state), np.array(moves, np.int64),
                    len(moves), np.array([number * 2 + 1], np.uint64), values, context,
                    options, fast.memo)
                assert worth[chosen] == pytest.approx(max(worth.values()), abs=1e-9)
                decided += 1
            state = apply(state, rng.choice(moves))
    assert decided > 50


def test_the_compiled_expert_reads_no_hidden_card() -> None:
    """Two deals that differ only in cards the seat to play has not seen get the same
    move from policy 4 (the same random numbers for ties)."""
    from basra.state import legal_moves

    rules = make_rules("egyptian")
    fast = core.fast_rules(rules)
    values = np.empty(52)
    context = np.empty(kernels.EXPERT_CONTEXT, np.int64)
    options = np.empty(kernels.MAX_OPTIONS, np.int64)
    rng = random.Random(3)
    for number in range(40):
        state = new_deal(rules, 0, rng)
        truth = core.to_array(state)
        seat = state.to_play
        moves = np.array(legal_moves(state), np.int64)
        # another deal of the hidden cards: the other hand and the stock shuffled together
        other = 1 - seat
        hidden = [c for c in range(52) if (state.stock_mask() | state.hands[other]) >> c & 1]
        rng.shuffle(hidden)
        swapped = truth.copy()
        swapped[kernels.S_HANDS + other] = sum(1 << c for c in hidden[:4])
        position = 4
        for b in range(int(truth[kernels.S_BATCHES_COUNT])):
            for s in range(2):
                swapped[kernels.S_BATCHES + 4 * b + s] = sum(
                    1 << c for c in hidden[position:position + 4])
                position += 4
        picks = [kernels.expert_move(fast.cfg, fast.cards, st, moves, len(moves),
                                     np.array([number * 2 + 1], np.uint64), values, context,
                                     options, fast.memo) for st in (truth, swapped)]
        assert picks[0] == picks[1]
