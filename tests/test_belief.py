"""The master's learned belief over the other seat's hand (issue 42): what it reads of a
position, that it reads only what the seat saw, that numpy computes what JAX fitted,
and how the compiled search weighs the deals it samples by it."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest

from basra.bots.master import MasterBot, SearchSettings
from basra.fast import kernels as k
from basra.fast.core import fast_rules, observation_search
from basra.match import Match
from basra.neural.belief import (
    CARD_FEATURES,
    applies,
    batch_plays,
    belief_odds,
    card_features,
    load_belief,
)
from basra.observe import Observation, hidden_places, observation_from_dict, observe
from basra.rules import make_rules
from basra.state import capture_table
from basra.train.belief import _logits, init_belief, to_belief
from basra.train.data import belief_positions

EGYPTIAN = make_rules("egyptian")


def views_after_a_play_of_the_other_seat(seed: int, count: int) -> list[tuple[Match,
                                                                             Observation]]:
    """Positions of a match (first legal move each turn) in which the seat to play saw
    the other seat play in this batch."""
    match = Match(EGYPTIAN, seed)
    found: list[tuple[Match, Observation]] = []
    while not match.is_over and len(found) < count:
        view = observe(match, match.state.to_play)
        if batch_plays(view):
            found.append((match, view))
        match.play(view.legal_moves[-1])
    return found


def unseen_cards(view: Observation) -> list[int]:
    mask = hidden_places(view).unseen
    return [card for card in range(52) if mask >> card & 1]


def test_the_features_say_which_cards_would_have_taken_more_than_the_play() -> None:
    table = capture_table(EGYPTIAN)
    checked = 0
    for _match, view in views_after_a_play_of_the_other_seat(5, 40):
        unseen = unseen_cards(view)
        features = card_features(view, unseen)
        assert features.shape == (len(unseen), CARD_FEATURES)
        for slot, (played, floor, captured) in enumerate(batch_plays(view)):
            start = slot * 8
            assert (features[:, start] == 1).all()
            for row, card in enumerate(unseen):
                options = [o for o in table.options(card, floor) if o]
                # a card that takes nothing there shows no take and never "more"
                if not options:
                    assert features[row, start + 1:start + 4].sum() == 0
                    assert features[row, start + 7] == 0
                # the play's own take is the same on every card's row
                assert features[row, start + 4] == pytest.approx(
                    (captured | 1 << played).bit_count() / 10 if captured else 0.0)
                checked += 1
        # the rank and the other hand's size
        for row, card in enumerate(unseen):
            assert features[row, 32 + card // 4] == 1
            assert features[row, 46] == view.hand_counts[1 - view.seat] / 4
    assert checked > 500


def test_the_belief_reads_only_what_the_seat_saw() -> None:
    """The belief of a view equals that of the view as a bot receives it (its JSON, which
    holds no hidden card), and has a row for the other seat's unseen cards alone."""
    for _match, view in views_after_a_play_of_the_other_seat(8, 12):
        odds = belief_odds(view)
        assert odds is not None
        sent = observation_from_dict(json.loads(json.dumps(view.to_dict())))
        np.testing.assert_array_equal(belief_odds(sent), odds)
        other = 1 - view.seat
        unseen = unseen_cards(view)
        assert np.count_nonzero(odds[view.seat]) == 0
        outside = [card for card in range(52) if card not in unseen]
        assert np.count_nonzero(odds[other, outside]) == 0
        assert np.count_nonzero(odds[other, unseen]) == len(unseen)


def test_where_the_belief_applies() -> None:
    assert applies(EGYPTIAN)
    assert applies(make_rules("lebanese"))
    assert not applies(make_rules("egyptian", 4))
    for variant in ("pasur", "pisti", "xeri"):
        assert not applies(make_rules(variant))
    match = Match(make_rules("pisti"), 3)
    match.play(observe(match, match.state.to_play).legal_moves[0])
    assert belief_odds(observe(match, match.state.to_play)) is None
    # before the other seat has played in the batch there is nothing to read
    match = Match(EGYPTIAN, 3)
    assert belief_odds(observe(match, match.state.to_play)) is None


def test_numpy_belief_computes_what_jax_fitted() -> None:
    params = init_belief(jax.random.PRNGKey(4))
    params = {name: value + 0.1 for name, value in params.items()}
    features = np.random.default_rng(2).random((7, CARD_FEATURES), dtype=np.float32)
    np.testing.assert_allclose(to_belief(params).logits(features),
                               np.asarray(_logits(params, features)), rtol=1e-5,
                               atol=1e-5)


def test_belief_rows_say_which_cards_the_other_seat_held() -> None:
    rows = belief_positions(EGYPTIAN, "egyptian", 1, 10, 2)
    assert len(rows) > 100
    assert rows.features.shape == (len(rows), CARD_FEATURES)
    # a hand of at most four among the unseen cards: the even chance is its share
    assert rows.chance.min() > 0 and rows.chance.max() <= 1
    assert 0.02 < rows.held.mean() < 0.5
    again = belief_positions(EGYPTIAN, "egyptian", 1, 10, 2)
    np.testing.assert_array_equal(rows.features, again.features)


def test_a_sample_weighs_the_odds_of_the_hands_it_deals() -> None:
    fast = fast_rules(EGYPTIAN)
    state = np.zeros(k.STATE_SIZE, np.int64)
    k.new_deal(fast.cfg, state, 0, np.array([5], np.uint64))
    belief = np.random.default_rng(1).normal(size=(4, 52))
    other = int(state[k.S_HANDS + 1])
    expected = np.exp(sum(belief[1, c] for c in range(52) if other >> c & 1))
    assert k.belief_weight(fast.cfg, state, 0, belief) == pytest.approx(expected)


def test_an_even_belief_changes_no_value_and_a_sure_one_plays_the_known_hand() -> None:
    _match, view = views_after_a_play_of_the_other_seat(11, 1)[0]
    plain = observation_search(view, 0.0, 3, 200, policy=3, prune=False)
    even = observation_search(view, 0.0, 3, 200, policy=3, prune=False,
                              belief=np.full((4, 52), 0.7))
    for a, b, wa, wb in zip(plain.sums, even.sums, plain.weights, even.weights,
                            strict=True):
        assert a / wa == pytest.approx(b / wb)
    # a belief sure of the other hand's cards: every sample with another hand weighs
    # next to nothing, so the values are those of the deals that deal it that hand
    other = 1 - view.seat
    hand = _match.state.hands[other]
    sure = np.zeros((4, 52))
    sure[other] = [30.0 if hand >> card & 1 else 0.0 for card in range(52)]
    weighted = observation_search(view, 0.0, 3, 400, policy=3, prune=False, belief=sure)
    assert weighted.weights[0] > 0
    assert weighted.weights[0] != pytest.approx(400.0)


def test_the_master_searches_with_the_belief_and_plays_legal_moves() -> None:
    assert SearchSettings().belief
    match = Match(EGYPTIAN, 21)
    bot = MasterBot(2, samples=200)
    plain = MasterBot(2, samples=200, settings=SearchSettings(belief=False))
    played = differ = 0
    while not match.is_over and len(match.deals) < 2:
        view = observe(match, match.state.to_play)
        move = bot.choose(view)
        assert move in view.legal_moves
        if belief_odds(view) is not None and len(view.legal_moves) > 1:
            mine = [e.value for e in bot.estimates(view)]
            theirs = [e.value for e in plain.estimates(view)]
            differ += mine != theirs
            played += 1
        match.play(move)
    assert load_belief().arrays["w1"].shape == (CARD_FEATURES, 32)
    assert played and differ
