"""A match: dealer rotation, target and tie rules, majority carry-over (spec sections 6, 7)."""

import random
from itertools import pairwise

import pytest

from basra.match import Match, MatchOverError, match_result
from basra.rules import Rules, make_rules
from basra.state import IllegalMoveError


def play_out(match: Match, rng: random.Random) -> Match:
    while not match.is_over:
        match.play(rng.choice(match.legal_moves()))
    return match


def random_match(rules: Rules, seed: int, first_dealer: int | None = None) -> Match:
    return play_out(Match(rules, seed=seed, first_dealer=first_dealer), random.Random(seed))


def spec_outcome(rules: Rules, totals: list[int], target: int) -> tuple[int | None, int]:
    """Spec section 7, written out independently of the package."""
    reached = [side for side, total in enumerate(totals) if total >= target]
    if not reached:
        return None, target
    if rules.tie_rule == "highest":
        best = max(totals)
        leaders = [side for side, total in enumerate(totals) if total == best]
        return (leaders[0], target) if len(leaders) == 1 else (None, target)
    if len(reached) == 1:
        return reached[0], target
    return None, target + rules.target_step


def check_history(match: Match) -> list[tuple[int | None, int]]:
    """Replay the totals deal by deal; check each deal's outcome against the spec."""
    rules = match.rules
    totals = [0] * rules.sides
    target = rules.target
    outcomes = []
    for number, deal in enumerate(match.deals):
        assert deal.score is not None
        totals = [a + b for a, b in zip(totals, deal.score.total, strict=True)]
        winner, target = spec_outcome(rules, totals, target)
        outcomes.append((winner, target))
        last = number == len(match.deals) - 1
        assert (winner is not None) == last, (number, totals)
    assert match.totals == totals
    assert match.winner == outcomes[-1][0]
    assert match.target == target
    return outcomes


# match_result


def test_match_result_highest() -> None:
    rules = make_rules("egyptian")
    assert match_result(rules, [90, 100], 101) == (None, 101)
    assert match_result(rules, [104, 110], 101) == (1, 101)
    assert match_result(rules, [101, 60], 101) == (0, 101)
    assert match_result(rules, [110, 110], 101) == (None, 101)
    three = make_rules("egyptian", 3)
    assert match_result(three, [120, 120, 50], 101) == (None, 101)
    assert match_result(three, [130, 120, 102], 101) == (0, 101)
    assert match_result(three, [102, 130, 130], 101) == (None, 101)
    assert match_result(three, [100, 100, 100], 101) == (None, 101)


def test_match_result_raise() -> None:
    rules = make_rules("three-player")
    assert match_result(rules, [50, 40, 20], 51) == (None, 51)
    assert match_result(rules, [52, 40, 20], 51) == (0, 51)
    assert match_result(rules, [52, 60, 20], 51) == (None, 61)
    assert match_result(rules, [60, 60, 60], 51) == (None, 61)
    assert match_result(rules, [62, 60, 20], 61) == (0, 61)
    # The target rises to the first step above every total (spec section 7's examples).
    assert match_result(rules, [55, 58, 30], 51) == (None, 61)
    assert match_result(rules, [64, 77, 40], 61) == (None, 81)
    assert match_result(rules, [62, 71, 20], 61) == (None, 81)
    stepped = make_rules("three-player", overrides={"target_step": 7})
    assert match_result(stepped, [52, 60, 20], 51) == (None, 65)
    one_step = make_rules("three-player", overrides={"target_raise": "step"})
    assert match_result(one_step, [62, 71, 20], 61) == (None, 71)
    assert match_result(one_step, [64, 77, 40], 61) == (None, 71)
    no_step = make_rules("three-player", overrides={"target_step": 0})
    assert match_result(no_step, [64, 77, 40], 61) == (None, 61)


# Dealer rotation and seeds


def test_dealer_rotates_every_deal() -> None:
    for variant, players in (("egyptian", 2), ("egyptian", 3), ("egyptian", 4),
                             ("three-player", 3)):
        rules = make_rules(variant, players)
        for first in range(players):
            match = random_match(rules, seed=first, first_dealer=first)
            assert match.first_dealer == first
            dealers = [deal.layout.dealer for deal in match.deals]
            assert dealers == [(first + k) % players for k in range(len(dealers))]
            for deal in match.deals:
                assert deal.plays[0].seat == (deal.layout.dealer + 1) % players


def test_first_dealer_comes_from_the_seed() -> None:
    rules = make_rules("egyptian", 4)
    firsts = {Match(rules, seed=seed).first_dealer for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    for seed in range(10):
        assert Match(rules, seed=seed).first_dealer == Match(rules, seed=seed).first_dealer


def test_same_seed_gives_the_same_deals() -> None:
    rules = make_rules("classic", 3)
    a = random_match(rules, seed=17)
    b = random_match(rules, seed=17)
    assert [deal.layout for deal in a.deals] == [deal.layout for deal in b.deals]
    assert [deal.plays for deal in a.deals] == [deal.plays for deal in b.deals]
    assert a.totals == b.totals
    # The deals depend on the seed only, not on the moves played.
    c = play_out(Match(rules, seed=17), random.Random(1000))
    common = min(len(a.deals), len(c.deals))
    assert [d.layout for d in a.deals[:common]] == [d.layout for d in c.deals[:common]]
    other = Match(rules, seed=18)
    assert other.deals[0].layout != a.deals[0].layout


def test_replaying_the_layouts_reproduces_the_match() -> None:
    rules = make_rules("egyptian", 4)
    original = random_match(rules, seed=5)
    replay = Match(rules, first_dealer=original.first_dealer, auto_deal=False)
    for deal in original.deals:
        replay.deal(deal.layout)
        for made in deal.plays:
            again = replay.play(made.card | made.captured << 6)
            assert again == made
    assert replay.totals == original.totals
    assert replay.winner == original.winner
    assert [d.score for d in replay.deals] == [d.score for d in original.deals]


# The target and tie rules through whole matches


def test_totals_are_the_sum_of_deal_scores_and_the_match_ends_by_the_spec() -> None:
    for variant, players in (("egyptian", 2), ("jawaker", 2), ("classic", 3),
                             ("iraqi", 4), ("six-card", 4), ("three-player", 3)):
        rules = make_rules(variant, players)
        for seed in range(3):
            match = random_match(rules, seed)
            check_history(match)
            assert max(match.totals) >= rules.target


def test_tied_highest_totals_play_another_deal() -> None:
    # Only Jacks score, one point each, to a target of 1: a 2-2 split of the Jacks is a tie
    # of the highest totals over the target.
    rules = make_rules("egyptian", overrides={
        "card_points": "J:1", "basra_points": 0, "majority_points": 0, "target": 1,
    })
    ties = 0
    for seed in range(30):
        match = random_match(rules, seed)
        outcomes = check_history(match)
        first = match.deals[0].score
        assert first is not None
        if first.total == (2, 2):
            ties += 1
            assert outcomes[0] == (None, 1)
            assert len(match.deals) > 1
    assert ties >= 3


def test_raise_lifts_the_target_when_several_sides_reach_it() -> None:
    rules = make_rules("three-player", overrides={
        "card_points": "J:1", "basra_points": 0, "majority_points": 0, "target": 2,
        "target_step": 3,
    })
    raised = 0
    for seed in range(30):
        match = random_match(rules, seed)
        outcomes = check_history(match)
        targets = [2] + [target for _, target in outcomes]
        raised += sum(1 for a, b in pairwise(targets) if b == a + 3)
        # A raise happens exactly when more than one side has reached the target.
        totals = [0, 0, 0]
        for deal, (before, after) in zip(match.deals, pairwise(targets), strict=True):
            assert deal.score is not None
            totals = [a + b for a, b in zip(totals, deal.score.total, strict=True)]
            several = sum(1 for total in totals if total >= before) > 1
            assert (after == before + 3) == several
    assert raised >= 3


def test_three_player_preset_match_ends_with_one_side_over_the_target() -> None:
    match = random_match(make_rules("three-player"), seed=3)
    assert match.winner is not None
    reached = [side for side, total in enumerate(match.totals) if total >= match.target]
    assert reached == [match.winner]
    assert match.target >= 51
    assert (match.target - 51) % 10 == 0


# Majority carry-over


def test_majority_carry_is_passed_from_deal_to_deal() -> None:
    rules = make_rules("classic")
    carried = 0
    for seed in range(60):
        match = random_match(rules, seed)
        carry = 0
        for deal in match.deals:
            score = deal.score
            assert score is not None
            assert score.carry_in == carry
            prize = rules.majority_points + carry
            if sorted(score.cards)[-1] == sorted(score.cards)[-2]:
                assert score.majority == (0, 0)
                assert score.carry_out == prize
            else:
                assert sorted(score.majority) == [0, prize]
                assert score.carry_out == 0
            carried += score.carry_in > 0
            carry = score.carry_out
    assert carried > 0


def test_pending_carry_between_deals() -> None:
    rules = make_rules("classic")
    seen = 0
    for seed in range(40):
        match = Match(rules, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            deals_before = len(match.deals)
            match.play(rng.choice(match.legal_moves()))
            if len(match.deals) > deals_before:  # a deal ended and the next one started
                finished = match.deals[-2].score
                assert finished is not None
                assert match.carry == finished.carry_out
                seen += match.carry > 0
    assert seen > 0


def test_pending_carry_is_dropped_at_match_end() -> None:
    # To a target of 1 the first deal nearly always ends the match, tied majority or not.
    rules = make_rules("classic", overrides={"target": 1})
    dropped = 0
    for seed in range(200):
        match = random_match(rules, seed)
        last = match.deals[-1].score
        assert last is not None
        assert match.carry == 0
        dropped += last.carry_out > 0
    assert dropped > 0


def test_majority_tie_none_never_carries() -> None:
    rules = make_rules("egyptian")
    for seed in range(20):
        match = random_match(rules, seed)
        for deal in match.deals:
            assert deal.score is not None
            assert deal.score.carry_in == deal.score.carry_out == 0


# Match API refusals


def test_no_play_or_deal_after_the_match_ends() -> None:
    match = random_match(make_rules("egyptian"), seed=1)
    assert match.is_over
    assert match.legal_moves() == []
    with pytest.raises(MatchOverError, match="the match is over"):
        match.play(match.deals[-1].plays[-1].card)
    with pytest.raises(MatchOverError, match="the match is over"):
        match.deal()
    assert issubclass(MatchOverError, IllegalMoveError)


def test_deal_refusals() -> None:
    rules = make_rules("egyptian")
    match = Match(rules, seed=2)
    with pytest.raises(IllegalMoveError, match="the current deal is not finished"):
        match.deal()
    manual = Match(rules, first_dealer=0, auto_deal=False)
    with pytest.raises(MatchOverError, match="no deal has been dealt yet"):
        _ = manual.state
    assert manual.legal_moves() == []
    layout = Match(rules, seed=2, first_dealer=1).deals[0].layout
    with pytest.raises(IllegalMoveError, match="the dealer of this deal is seat 0, not 1"):
        manual.deal(layout)


def test_play_records_basras() -> None:
    match = Match(make_rules("egyptian"), seed=4)
    rng = random.Random(4)
    while not match.is_over:
        side = match.rules.side_of[match.state.to_play]
        before = match.state.basras[side]
        deals = len(match.deals)
        made = match.play(rng.choice(match.legal_moves()))
        if len(match.deals) == deals and not match.is_over:
            assert made.basra == (match.state.basras[side] == before + 1)
    for deal in match.deals:
        assert deal.score is not None
        assert sum(made.basra for made in deal.plays) == sum(deal.score.basras)
