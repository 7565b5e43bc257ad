"""The pile family (Pişti and Xeri): every numbered rule of spec sections 9 and 10, and
properties over whole deals of both presets (issue 41).

Each test names the rule it checks. Positions are built from hand-made layouts: the pile
(bottom to top), the first batch of hands, and the cards named for the end of the stock;
every other card fills the stock in card order.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from basra.captures import JACK_PISTI, PLAIN_PISTI, PileCaptures, captures_for
from basra.cards import ALL_CARDS, CARD_NAMES, JACK, CardSet, parse_card, parse_cards
from basra.match import Match
from basra.observe import observation_from_dict, observe, observe_state
from basra.rules import PRESETS, Rules, RulesError, make_rules, option_names, preset
from basra.state import (
    DealState,
    IllegalMoveError,
    Layout,
    LayoutError,
    _shuffled,
    apply,
    canonical_move,
    check_layout,
    deal_layout,
    deal_score,
    hidden_down,
    legal_moves,
    make_move,
    new_deal,
    parse_move,
    play,
    random_playout,
    start_deal,
)

PILE_GAMES = [("pisti", 2), ("pisti", 3), ("pisti", 4), ("xeri", 2), ("xeri", 4)]


def mask(text: str) -> int:
    return CardSet.parse(text).mask


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def layout(rules: Rules, pile: str, hands: list[str], *, down: str | None = None,
           stock_end: str = "", dealer: int | None = None, turned: str = "") -> Layout:
    """A layout: ``hands`` in seat order (full first batches), the pile bottom to top, the
    stock ending with ``stock_end``. ``down`` defaults to the pile's lowest ``pile_down``
    cards; the bottom card (when shown) is the stock's last non-Jack."""
    named = [*cards(pile), *(c for hand in hands for c in cards(hand)), *cards(stock_end)]
    rest = [c for c in range(52) if c not in named]
    stock = (*rest, *cards(stock_end))
    bottom = -1
    if rules.bottom_card == "shown":
        bottom = next(c for c in reversed(stock) if c >> 2 != JACK)
    floor = cards(pile)
    floor_down = floor[:rules.pile_down] if down is None else cards(down)
    dealer = rules.players - 1 if dealer is None else dealer
    made = Layout(dealer, floor, tuple(cards(h) for h in hands), stock, (), floor_down,
                  bottom, cards(turned))
    check_layout(rules, made)
    return made


def two(rules: Rules | None = None, pile: str = "3D 9S 5C 7C",
        hands: tuple[str, str] = ("7H 8H KS QD", "2C 4D 6S 10H")) -> DealState:
    """A two-seat Pişti deal: seat 1 deals, seat 0 plays first."""
    rules = rules or make_rules("pisti", overrides={"bottom_card": "hidden"})
    return start_deal(rules, layout(rules, pile, list(hands)))


def plays(state: DealState, *names: str) -> DealState:
    """Play these cards in turn, each by the seat to play (checked)."""
    for name in names:
        state = play(state, parse_move(state, name))
    return state


def pile_text(state: DealState) -> str:
    return " ".join(CARD_NAMES[c] for c in state.laid)


# 9.1 Cards and the pile


def test_9_1_1_only_ranks_decide_a_capture() -> None:
    state = plays(two(), "7H")
    assert state.floor == 0 and state.piles[0] == mask("3D 9S 5C 7C 7H")


def test_9_1_2_the_pile_is_ordered_and_a_capture_takes_all_of_it() -> None:
    state = plays(two(), "8H")
    assert pile_text(state) == "3D 9S 5C 7C 8H"
    state = plays(state, "2C", "KS")
    assert pile_text(state) == "3D 9S 5C 7C 8H 2C KS"
    assert [move >> 6 for move in legal_moves(state)] == [0, 0, 0]  # 4D 6S 10H on KS
    state = plays(two(pile="3D 9S 5C 8C"), "8H")
    assert state.piles[0] == mask("3D 9S 5C 8C 8H") and state.laid == ()


def test_9_1_3_face_down_cards_are_ordinary_members_of_the_pile() -> None:
    state = two()
    assert state.down == mask("3D 9S 5C")
    state = plays(state, "7H")
    assert state.piles[0] & state.down == state.down
    assert deal_score(random_playout(state, random.Random(1))).cards[0] >= 5


# 9.2 Players and sides


def test_9_2_1_two_three_or_four_players_four_in_partnerships_by_default() -> None:
    assert preset("pisti").players == (2, 3, 4)
    assert make_rules("pisti", 4).partnership and make_rules("pisti", 4).sides == 2
    assert not make_rules("pisti", 3).partnership and make_rules("pisti", 3).sides == 3
    independent = make_rules("pisti", 4, {"partnership": False})
    assert independent.sides == 4


def test_9_2_2_the_seat_after_the_dealer_plays_first_and_the_deal_rotates() -> None:
    match = Match(make_rules("pisti", 3), seed=4, first_dealer=2)
    assert match.state.to_play == 0
    while len(match.deals) == 1:
        match.play(match.legal_moves()[0])
    assert match.state.dealer == 0 and match.state.to_play == 1


# 9.3 The deal


def raw_deck(seed: int) -> list[int]:
    """The shuffled deck pile_layout starts from with random.Random(seed)."""
    return _shuffled(random.Random(seed), tuple(range(52)))


def test_9_3_1_the_bottom_card_is_never_a_jack_and_reaches_the_dealer() -> None:
    rules = make_rules("pisti")
    seed = next(s for s in range(500) if raw_deck(s)[-1] >> 2 == JACK)
    deck = raw_deck(seed)
    made = deal_layout(rules, 1, random.Random(seed))
    nearest = max(i for i, c in enumerate(deck) if c >> 2 != JACK)
    assert made.bottom_card == deck[nearest] == made.stock[-1]
    assert made.stock[-(len(deck) - nearest - 1) - 1:-1] == tuple(deck[nearest + 1:])
    state = start_deal(rules, made)
    while state.batches:
        state = apply(state, legal_moves(state)[0])
    assert state.hands[made.dealer] >> made.bottom_card & 1


@pytest.mark.parametrize(("players", "batches"), [(2, 6), (3, 4), (4, 3)])
def test_9_3_2_hands_of_four_in_whole_batches(players: int, batches: int) -> None:
    state = new_deal(make_rules("pisti", players), 0, random.Random(players))
    assert len(state.batches) + 1 == batches
    assert all(hand.bit_count() == 4 for hand in state.hands)


def test_9_3_3_the_pile_is_dealt_after_the_first_batch_bottom_first() -> None:
    rules = make_rules("pisti", overrides={"bottom_card": "hidden"})
    seed = next(s for s in range(500) if all(c >> 2 != JACK for c in raw_deck(s)[8:12]))
    deck = raw_deck(seed)
    made = deal_layout(rules, 1, random.Random(seed))
    assert made.hands[0] == tuple(deck[:4]) and made.hands[1] == tuple(deck[4:8])
    assert made.floor == tuple(deck[8:12])


def test_9_3_4_three_cards_face_down_under_the_face_up_top() -> None:
    state = two()
    assert state.down == mask("3D 9S 5C") and state.laid[-1] == parse_card("7C")


def test_9_3_5_turn_next_moves_a_top_jack_to_the_bottom() -> None:
    rules = make_rules("pisti", overrides={"bottom_card": "hidden"})
    for seed in range(3000):
        deck = raw_deck(seed)
        if deck[11] >> 2 == JACK and deck[10] >> 2 != JACK:
            break
    made = deal_layout(rules, 1, random.Random(seed))
    assert made.floor == (deck[11], deck[8], deck[9], deck[10])
    assert made.turned == (deck[11],) and made.floor_down == (deck[8], deck[9])
    state = start_deal(rules, made)
    assert hidden_down(state, 0) == mask(f"{CARD_NAMES[deck[8]]} {CARD_NAMES[deck[9]]}")


def test_9_3_5_to_stock_sends_a_top_jack_under_the_stock_to_the_dealer() -> None:
    rules = make_rules("pisti", overrides={"centre_jack": "to_stock"})
    for seed in range(3000):
        deck = raw_deck(seed)
        if deck[11] >> 2 == JACK and deck[12] >> 2 != JACK and deck[-1] >> 2 != JACK:
            break
    made = deal_layout(rules, 1, random.Random(seed))
    assert made.floor == (*deck[8:11], deck[12])
    assert made.stock[-2:] == (deck[-1], deck[11]) and made.bottom_card == deck[-1]
    assert made.turned == (deck[11],) and made.floor_down == tuple(deck[8:11])
    state = start_deal(rules, made)
    assert state.exposed == 1 << deck[-1] | 1 << deck[11]
    while state.batches:
        state = apply(state, legal_moves(state)[0])
    assert state.hands[1] & state.exposed == state.exposed


def test_9_3_5_a_pile_of_jacks_alone_is_dealt_again() -> None:
    rules = make_rules("pisti", overrides={"bottom_card": "hidden"})
    with pytest.raises(LayoutError, match="Jack"):
        layout(rules, "JS JH JD JC", ["AS AH AD AC", "2S 2H 2D 2C"])
    # With a one-card pile a single Jack is a pile of Jacks alone: the deck is shuffled again.
    one = make_rules("pisti", 3, {"floor_size": 1, "pile_down": 0, "hand_size": 1,
                                  "bottom_card": "hidden"})
    seed = next(s for s in range(500) if raw_deck(s)[3] >> 2 == JACK)
    made = deal_layout(one, 2, random.Random(seed))
    assert made.floor[-1] >> 2 != JACK and made.turned == ()
    assert (*made.hands[0], *made.hands[1], *made.hands[2]) != tuple(raw_deck(seed)[:3])


@pytest.mark.parametrize(("name", "players"), PILE_GAMES)
def test_9_3_6_the_first_pile_holds_four_cards_its_top_a_face_up_non_jack(
        name: str, players: int) -> None:
    rng = random.Random(players)
    for _ in range(200):
        state = new_deal(make_rules(name, players), 0, rng)
        assert len(state.laid) == 4 and state.laid[-1] >> 2 != JACK
        assert not state.down >> state.laid[-1] & 1


# 9.4 A play


def test_9_4_1_every_card_in_hand_is_one_legal_move_and_the_turn_passes() -> None:
    state = two()
    moves = legal_moves(state)
    assert sorted(m & 63 for m in moves) == sorted(cards("7H 8H KS QD"))
    assert len(moves) == 4
    after = plays(state, "7H")
    assert after.to_play == 1  # a capture gives no extra turn


def test_9_4_2_a_card_of_the_top_cards_rank_captures_the_whole_pile() -> None:
    move = parse_move(two(), "7H")
    assert move == make_move(parse_card("7H"), mask("3D 9S 5C 7C"))


def test_9_4_3_a_jack_captures_the_whole_pile_whatever_its_top() -> None:
    state = plays(two(hands=("JS 8H KS QD", "2C 4D 6S 10H")), "JS")
    assert state.piles[0] == mask("3D 9S 5C 7C JS") and state.floor == 0


def test_9_4_4_other_cards_are_laid_on_top_and_a_jack_on_an_empty_pile_too() -> None:
    state = plays(two(hands=("7H 8H KS JD", "2C 4D 6S JC")), "7H")
    assert legal_moves(state) == [*cards("2C 4D 6S"), parse_card("JC")]
    state = plays(state, "JC")
    assert pile_text(state) == "JC" and state.piles == (mask("3D 9S 5C 7C 7H"), 0)
    state = plays(state, "JD")  # only a Jack takes a lone Jack
    assert state.piles[0] == mask("3D 9S 5C 7C 7H JC JD")


def test_9_4_5_only_the_top_card_counts() -> None:
    state = plays(two(hands=("9H 8H KS QD", "2C 4D 6S 10H")), "9H")
    assert pile_text(state) == "3D 9S 5C 7C 9H" and state.piles == (0, 0)


def test_9_4_6_a_card_that_can_capture_must_capture() -> None:
    state = two()
    with pytest.raises(IllegalMoveError, match="7H must capture"):
        play(state, parse_card("7H"))
    with pytest.raises(IllegalMoveError, match="whole pile"):
        play(state, make_move(parse_card("7H"), mask("9S 7C")))
    with pytest.raises(IllegalMoveError, match="whole pile"):
        play(state, make_move(parse_card("8H"), mask("3D 9S 5C 7C")))


def test_9_4_7_the_capture_goes_to_the_sides_store_and_a_new_pile_begins() -> None:
    rules = make_rules("pisti", 4)
    state = start_deal(rules, layout(
        rules, "3D 9S 5C 7C", ["AS 2S 3S 4S", "KH AH 2H 3H", "7H 6S 8S 10S", "4H 5H 6H 8H"],
        dealer=3))
    state = plays(state, "AS", "KH", "7H")  # 7H on KH: laid
    assert pile_text(state) == "3D 9S 5C 7C AS KH 7H"
    state = plays(state, "4H", "4S")  # seat 0 takes seat 3's 4H and the pile under it
    assert state.piles == (mask("3D 9S 5C 7C AS KH 7H 4H 4S"), 0) and state.laid == ()
    state = plays(state, "AH")
    assert pile_text(state) == "AH"


# 9.5 Pişti


def test_9_5_1_a_lone_card_taken_by_its_rank_is_a_pisti_worth_10() -> None:
    pisti = plays(two(hands=("7H 8H KS QD", "2C 4D 6S 8D")), "7H", "8D", "8H")
    assert pisti.basras == (1, 0) and pisti.jack_pistis == (0, 0)
    assert pisti.piles[0] == mask("3D 9S 5C 7C 7H 8D 8H")
    no_match = plays(two(hands=("7H 8H KS QD", "2C 4D 6S 8D")), "7H", "4D", "8H")
    assert no_match.basras == (0, 0) and no_match.laid == cards("4D 8H")
    score = deal_score(finished(pisti.rules, (ALL_CARDS, 0), (1, 0), (0, 0)))
    assert score.basra_points == (10, 0)


def test_9_5_2_a_jack_on_a_lone_jack_is_a_double_pisti_worth_20() -> None:
    state = plays(two(hands=("7H JH KS QD", "2C 4D 6S JC")), "7H", "JC", "JH")
    assert state.basras == (1, 0) and state.jack_pistis == (1, 0)
    match = Match(state.rules, auto_deal=False, first_dealer=1)
    match.deal(layout(state.rules, "3D 9S 5C 7C", ["7H JH KS QD", "2C 4D 6S JC"]))
    made = [match.play(parse_move(match.state, n)) for n in ("7H", "JC", "JH")]
    assert [p.pisti for p in made] == [0, 0, 20]


def test_9_5_3_a_jack_on_a_lone_non_jack_is_no_pisti_unless_jack_pisti_lone() -> None:
    hands = ("7H JH KS QD", "2C 4D 6S 10H")
    state = plays(two(hands=hands), "7H", "2C", "JH")
    assert state.piles[0] & mask("2C JH") and state.basras == (0, 0)
    lone = make_rules("pisti", overrides={"bottom_card": "hidden", "jack_pisti": "lone"})
    state = plays(two(lone, hands=hands), "7H", "2C", "JH")
    assert state.basras == (1, 0) and state.jack_pistis == (0, 0)
    assert deal_score(random_playout(state, random.Random(2))).pistis[0][0] >= 1


def test_9_5_4_a_pile_of_two_is_never_a_pisti_even_of_one_rank() -> None:
    state = plays(two(hands=("7H 8H KS QD", "2C 8D 6S 10H")), "7H", "8D", "8H")
    assert state.basras == (1, 0)
    state = plays(two(hands=("7H 8H 8S QD", "2C 8D 6S 10H")), "7H", "8D", "8S")
    assert state.basras == (1, 0)
    table = captures_for(make_rules("pisti"))
    assert isinstance(table, PileCaptures)
    assert table.pisti_kind(mask("8D 8C"), parse_card("8H"), mask("8D 8C")) == 0


def test_9_5_5_the_first_capture_takes_four_cards_and_is_never_a_pisti() -> None:
    state = plays(two(), "7H")
    assert state.basras == (0, 0) and state.piles[0].bit_count() == 5


def test_9_5_6_last_play_rule_on_a_position() -> None:
    for allowed in (False, True):
        rules = make_rules("pisti", overrides={"bottom_card": "hidden",
                                               "last_play_pisti": allowed})
        state = two(rules)
        table = state.table
        # The final play: the dealer's last card on a lone card of its rank.
        final = state._replace(
            to_play=1, hands=(0, mask("5H")), floor=mask("5S"), laid=cards("5S"),
            batches=(), last_capturer=0, down=0,
            piles=(ALL_CARDS & ~mask("5S 5H"), 0))
        after = apply(final, legal_moves(final)[0])
        assert after.is_over and after.piles[1] == mask("5S 5H")
        assert after.basras == ((0, 1) if allowed else (0, 0))
        assert table.rules.last_play_pisti is allowed


def test_9_5_7_who_laid_the_lone_card_does_not_matter() -> None:
    rules = make_rules("pisti", 4, {"bottom_card": "hidden"})
    state = start_deal(rules, layout(
        rules, "3D 9S 5C 7C", ["7H 2S 3S 4S", "AS KH 2H 3H", "AH 6S 8S 10S", "4H 5H 6H 8H"],
        dealer=3))
    state = plays(state, "7H", "AS", "AH")  # seat 2 (side 0) takes seat 1's lone AS
    assert state.basras == (1, 0)
    table = state.table
    assert isinstance(table, PileCaptures)
    # The pişti test reads the pile and the card alone: nothing names who laid the card.
    assert table.pisti_kind(mask("AS"), parse_card("AH"), mask("AS")) == PLAIN_PISTI


def test_9_5_8_each_play_reports_its_pisti_points() -> None:
    match = Match(make_rules("pisti", overrides={"bottom_card": "hidden",
                                                 "pisti_points": 7}),
                  auto_deal=False, first_dealer=1)
    match.deal(layout(match.rules, "3D 9S 5C 7C", ["7H 8H JH QD", "2C 8D 6S JC"]))
    made = [match.play(parse_move(match.state, n)) for n in ("7H", "8D", "8H", "JC", "JH")]
    assert [p.pisti for p in made] == [0, 0, 7, 0, 20]
    assert [p.basra for p in made] == [False, False, True, False, True]


# 9.6 End of the deal


def test_9_6_1_and_9_6_2_all_52_cards_are_played_the_leftover_to_the_last_capturer(
) -> None:
    for seed in range(20):
        state = new_deal(make_rules("pisti"), 0, random.Random(seed))
        played = 0
        capturer = -1
        while not state.is_over:
            move = legal_moves(state)[int(random.Random(seed + played).random() * 4) % len(
                legal_moves(state))]
            if move >> 6:
                capturer = state.to_play
            before = state
            state = apply(state, move)
            played += 1
        assert played == 48 and state.floor == 0
        assert sum(p.bit_count() for p in state.piles) == 52
        assert state.last_capturer == capturer
        side = state.rules.side_of[capturer]
        assert state.piles[side] & state.leftover == state.leftover
        assert state.basras == before.basras or move >> 6  # the pickup itself is no pişti


def test_9_6_2_the_leftover_is_never_a_pisti() -> None:
    rules = make_rules("pisti", overrides={"bottom_card": "hidden", "last_play_pisti": True})
    state = two(rules)
    final = state._replace(
        to_play=1, hands=(0, mask("4H")), floor=mask("5S"), laid=cards("5S"), batches=(),
        last_capturer=0, down=0, piles=(ALL_CARDS & ~mask("5S 4H"), 0))
    after = apply(final, legal_moves(final)[0])
    assert after.is_over and after.leftover == mask("5S 4H")
    assert after.piles[0] == ALL_CARDS and after.basras == (0, 0)


def test_9_6_2_leftover_split_is_refused() -> None:
    with pytest.raises(RulesError, match="option leftover is not used by the pile game"):
        make_rules("pisti", overrides={"leftover": "split"})


# 9.7 Scoring


def finished(rules: Rules, piles: tuple[int, ...], basras: tuple[int, ...] = (0, 0),
             jacks: tuple[int, ...] = (0, 0)) -> DealState:
    state = new_deal(rules, 0, random.Random(0))
    return state._replace(hands=(0,) * rules.players, batches=(), floor=0, laid=(),
                          piles=piles, basras=basras, jack_pistis=jacks)


def test_9_7_1_card_points_jack_ace_two_of_clubs_ten_of_diamonds_13_a_deal() -> None:
    rules = make_rules("pisti")
    assert sum(rules.points_of) == 13
    score = deal_score(finished(rules, (mask("JS AH 2C 10D 5S"), ALL_CARDS & ~mask(
        "JS AH 2C 10D 5S"))))
    assert score.card_points == (1 + 1 + 2 + 3, 13 - 7)


def test_9_7_2_majority_3_strict_and_nobody_on_a_tie() -> None:
    rules = make_rules("pisti")
    first = mask(" ".join(CARD_NAMES[c] for c in range(27)))
    assert deal_score(finished(rules, (first, ALL_CARDS & ~first))).majority == (3, 0)
    half = mask(" ".join(CARD_NAMES[c] for c in range(26)))
    assert deal_score(finished(rules, (half, ALL_CARDS & ~half))).majority == (0, 0)
    three = make_rules("pisti", 3)
    a = mask(" ".join(CARD_NAMES[c] for c in range(20)))
    b = mask(" ".join(CARD_NAMES[c] for c in range(20, 40)))
    tied = deal_score(finished(three, (a, b, ALL_CARDS & ~a & ~b), (0, 0, 0), (0, 0, 0)))
    assert tied.majority == (0, 0, 0)


def test_9_7_3_and_9_7_4_pistis_score_10_and_20_a_deal_is_16_plus_pistis() -> None:
    rules = make_rules("pisti")
    first = mask(" ".join(CARD_NAMES[c] for c in range(27)))
    score = deal_score(finished(rules, (first, ALL_CARDS & ~first), (3, 1), (1, 0)))
    assert score.pistis == ((2, 1), (1, 0))
    assert score.basra_points == (2 * 10 + 20, 10)
    assert sum(score.total) == 16 + 40 + 10


# 9.8 The match


def test_9_8_1_the_match_is_played_to_151_the_highest_total_wins() -> None:
    rules = make_rules("pisti")
    assert (rules.target, rules.tie_rule) == (151, "highest")
    match = Match(rules, seed=8)
    rng = random.Random(8)
    while not match.is_over:
        match.play(rng.choice(match.legal_moves()))
    assert match.winner is not None and max(match.totals) >= 151
    assert match.totals[match.winner] == max(match.totals)


def test_9_8_2_target_101_is_a_house_option() -> None:
    assert make_rules("pisti", overrides={"target": 101}).target == 101


# 9.9 Hidden information


def test_9_9_1_nobody_sees_the_face_down_cards_before_they_are_captured() -> None:
    state = two()
    for seat in (0, 1):
        view = observe_state(state, seat)
        assert view.floor == mask("7C") and view.down_count == 3
        assert view.pile == (-1, -1, -1, parse_card("7C"))
        assert view.to_dict()["pile"] == ["??", "??", "??", "7C"]
    assert observe_state(state, 0).legal_moves[0] == make_move(parse_card("7H"), mask("7C"))


def test_9_9_2_kitty_view_side_capturer_and_first_player() -> None:
    rules = make_rules("pisti", 4, {"bottom_card": "hidden"})
    hands = ["7H 2S 3S 4S", "AS AH 2H 3H", "9H 6S 8S 10S", "4H 5H 6H 8H"]
    down = mask("3D 9S 5C")
    for view, sees in (("side", {0, 2}), ("capturer", {0}), ("first_player", {0, 2})):
        house = Rules.from_dict({**rules.to_dict(), "kitty_view": view})
        state = plays(start_deal(house, layout(house, "3D 9S 5C 7C", hands, dealer=3)), "7H")
        assert {seat for seat in range(4) if not hidden_down(state, seat)} == sees
        for seat in range(4):
            assert bool(observe_state(state, seat).piles[0] & down) == (seat in sees)
    house = Rules.from_dict({**rules.to_dict(), "kitty_view": "first_player"})
    state = start_deal(house, layout(house, "3D 9S 5C 7C", hands, dealer=2))
    assert state.first == 3
    assert [observe_state(state, seat).down_count for seat in range(4)] == [3, 3, 3, 0]


def test_9_9_2_the_other_sides_learn_the_cards_when_the_deal_is_scored() -> None:
    state = random_playout(plays(two(), "7H"), random.Random(3))
    assert state.is_over and observe_state(state, 1).piles[0] & state.down == state.down


def test_9_9_3_the_bottom_card_and_turned_jacks_are_public() -> None:
    rules = make_rules("pisti")
    state = start_deal(rules, layout(rules, "3D 9S 5C 7C", ["7H 8H KS QD", "2C 4D 6S 10H"],
                                     stock_end="4C"))
    for seat in (0, 1):
        view = observe_state(state, seat)
        assert view.bottom_card == parse_card("4C") and view.stock_shown == mask("4C")
        assert view.to_dict()["bottom_card"] == "4C"


def test_9_9_4_a_capture_named_by_the_seen_cards_is_played_as_the_whole_pile() -> None:
    state = two()
    seen = observe_state(state, 0).legal_moves[0]
    assert canonical_move(state, seen) == make_move(parse_card("7H"), mask("3D 9S 5C 7C"))
    assert play(state, seen) == play(state, canonical_move(state, seen))
    match = Match(state.rules, auto_deal=False, first_dealer=1)
    match.deal(layout(state.rules, "3D 9S 5C 7C", ["7H 8H KS QD", "2C 4D 6S 10H"]))
    made = match.play(seen)
    assert made.captured == mask("3D 9S 5C 7C")


# 9.10 The preset and its options


def test_9_10_the_pisti_preset_and_its_names() -> None:
    rules = make_rules("pisti")
    assert rules.family == "pisti"
    assert (rules.hand_size, rules.floor_size, rules.pile_down) == (4, 4, 3)
    assert (rules.centre_jack, rules.bottom_card, rules.kitty_view) == (
        "turn_next", "shown", "side")
    assert (rules.jack_pisti, rules.pisti_points, rules.jack_pisti_points) == ("never", 10, 20)
    assert rules.last_play_pisti is False and rules.pile_redeal == "none"
    assert dict(rules.card_points) == {"J": 1, "A": 1, "2C": 2, "10D": 3}
    assert (rules.majority_points, rules.majority_tie, rules.target, rules.tie_rule) == (
        3, "none", 151, "highest")
    for alias in ("pishti", "pişti", "pispirik", "PISTI"):
        assert preset(alias).name == "pisti"


def test_9_10_house_variations_are_expressible() -> None:
    house = make_rules("pisti", 2, {
        "jack_pisti": "lone", "last_play_pisti": "true", "target": "101",
        "centre_jack": "to_stock", "bottom_card": "hidden", "kitty_view": "capturer",
        "card_points": "J:1,Q:1,K:1,A:1,10:1,10D:2,2C:1", "pisti_points": 5,
        "jack_pisti_points": 15})
    assert house.jack_pisti == "lone" and house.last_play_pisti and house.target == 101
    assert sum(house.points_of) == 22
    assert Rules.from_dict(house.to_dict()) == house
    assert make_rules("pisti", 2, {"kitty_view": "first_player"}).kitty_view == "first_player"


# 10 Xeri


def test_10_1_1_and_10_3_3_the_xeri_pile_is_all_face_up() -> None:
    state = new_deal(make_rules("xeri"), 0, random.Random(1))
    assert state.down == 0 and len(state.laid) == 4
    assert observe_state(state, 0).floor == state.floor


def test_10_2_1_two_players_or_four_in_partnerships_three_refused() -> None:
    assert preset("xeri").players == (2, 4) and make_rules("xeri", 4).partnership
    with pytest.raises(RulesError, match="'xeri' is played by 2 or 4 players, not 3"):
        make_rules("xeri", 3)
    with pytest.raises(RulesError, match="partnership=false is not offered"):
        make_rules("xeri", 4, {"partnership": False})
    with pytest.raises(RulesError, match="does not divide"):
        Rules.from_dict({**make_rules("xeri").to_dict(), "players": 3})


def test_10_2_2_the_non_dealer_plays_first() -> None:
    assert new_deal(make_rules("xeri"), 0, random.Random(2)).to_play == 1
    assert new_deal(make_rules("xeri", 4), 2, random.Random(2)).to_play == 3


@pytest.mark.parametrize(("players", "batches"), [(2, 4), (4, 2)])
def test_10_3_1_six_card_hands(players: int, batches: int) -> None:
    state = new_deal(make_rules("xeri", players), 0, random.Random(players))
    assert all(hand.bit_count() == 6 for hand in state.hands)
    assert len(state.batches) + 1 == batches


def test_10_3_2_no_bottom_card_is_exposed() -> None:
    state = new_deal(make_rules("xeri"), 0, random.Random(3))
    assert state.exposed == 0 and observe_state(state, 0).bottom_card == -1


def test_10_3_4_pile_redeal_rules() -> None:
    xeri = make_rules("xeri")
    top = Rules.from_dict({**xeri.to_dict(), "pile_redeal": "top_pair_or_jack"})
    none = Rules.from_dict({**xeri.to_dict(), "pile_redeal": "none"})
    hands = ["AS AH AD AC 3S 3H", "2S 2H 2D 2C 3D 3C"]
    with pytest.raises(LayoutError, match="dealt again"):
        layout(xeri, "5S 9S 5C 7C", hands)  # a pair anywhere
    with pytest.raises(LayoutError, match="Jack"):
        layout(xeri, "5S 9S 4C JC", hands)  # a Jack on top
    layout(top, "5S 9S 5C 7C", hands)  # the pair is not on top
    with pytest.raises(LayoutError, match="dealt again"):
        layout(top, "5S 9S 7S 7C", hands)
    layout(none, "5S 9S 7S 7C", hands)
    layout(xeri, "JS 9S 5C 7C", hands)  # a Jack may lie lower in the pile


@pytest.mark.parametrize("players", [2, 4])
def test_10_3_5_the_first_pile_has_four_ranks_and_no_top_jack(players: int) -> None:
    rng = random.Random(players)
    for _ in range(300):
        state = new_deal(make_rules("xeri", players), 0, rng)
        assert len({c >> 2 for c in state.laid}) == 4 and state.laid[-1] >> 2 != JACK


def xeri_two(hands: tuple[str, str]) -> DealState:
    rules = make_rules("xeri")
    return start_deal(rules, layout(rules, "3D 9S 5C 7C", list(hands)))


def test_10_4_1_and_10_5_a_xeri_plays_and_scores_as_a_pisti() -> None:
    state = plays(xeri_two(("7H 8H KS QD 4S 4H", "2C 8D 6S 10H 6H JC")), "7H", "8D", "8H")
    assert state.basras == (1, 0)
    state = plays(xeri_two(("7H JH KS QD 4S 4H", "2C 8D 6S 10H 6H JC")), "7H", "JC", "JH")
    assert state.jack_pistis == (1, 0)
    state = plays(xeri_two(("7H JH KS QD 4S 4H", "2C 8D 6S 10H 6H JC")), "7H", "2C", "JH")
    assert state.basras == (0, 0)  # 10.5.3: a Jack on a lone 2C is no xeri


def test_10_6_1_the_leftover_goes_to_the_last_capturer() -> None:
    state = random_playout(new_deal(make_rules("xeri"), 0, random.Random(4)),
                           random.Random(4))
    assert state.is_over and state.floor == 0
    assert sum(p.bit_count() for p in state.piles) == 52


def test_10_7_scoring_22_card_points_a_deal_worth_25_plus_xeris() -> None:
    rules = make_rules("xeri")
    assert sum(rules.points_of) == 22
    assert rules.points_of[parse_card("10D")] == 2 and rules.points_of[parse_card("2C")] == 1
    assert rules.points_of[parse_card("10S")] == 1 and rules.points_of[parse_card("2S")] == 0
    first = mask(" ".join(CARD_NAMES[c] for c in range(27)))
    score = deal_score(finished(rules, (first, ALL_CARDS & ~first), (1, 1), (1, 0)))
    assert sum(score.total) == 25 + 20 + 10 and score.majority == (3, 0)


def test_10_8_1_the_xeri_match_is_played_to_101() -> None:
    assert (make_rules("xeri").target, make_rules("xeri").tie_rule) == (101, "highest")


def test_10_9_1_every_first_pile_card_is_public() -> None:
    state = new_deal(make_rules("xeri", 4), 0, random.Random(5))
    assert all(observe_state(state, seat).down_count == 0 for seat in range(4))


def test_10_10_the_xeri_preset_and_its_names() -> None:
    rules = make_rules("xeri")
    assert (rules.family, rules.hand_size, rules.pile_down, rules.pile_redeal) == (
        "pisti", 6, 0, "pair_or_jack")
    assert (rules.bottom_card, rules.jack_pisti, rules.last_play_pisti) == (
        "hidden", "never", False)
    assert (rules.pisti_points, rules.jack_pisti_points, rules.majority_points) == (10, 20, 3)
    for alias in ("kseri", "ξερή", "Xeri"):
        assert preset(alias).name == "xeri"


# 11 Engine note


@pytest.mark.parametrize("option", ["sums", "seven_diamonds", "basra", "jack_basra",
                                    "optional_capture", "basra_cancel", "bury",
                                    "last_batch_basra", "clubs_points", "leftover"])
def test_11_5_basra_options_are_refused_in_a_pile_game(option: str) -> None:
    other = {"sums": True, "seven_diamonds": "sweep", "basra": "lone", "jack_basra": "lone",
             "optional_capture": True, "basra_cancel": True, "bury": "J",
             "last_batch_basra": False, "clubs_points": 7, "leftover": "split"}[option]
    with pytest.raises(RulesError) as caught:
        make_rules("pisti", overrides={option: other})
    message = str(caught.value)
    assert message.startswith(f"option {option} is not used by the pile game pisti")
    assert "\n" not in message


def test_11_5_pile_options_are_refused_in_the_other_families() -> None:
    with pytest.raises(RulesError, match="option pile_down belongs to the pile family"):
        make_rules("egyptian", overrides={"pile_down": 0})
    with pytest.raises(RulesError, match="option jack_pisti belongs to the pile family"):
        make_rules("pasur", overrides={"jack_pisti": "lone"})


def test_11_5_bad_pile_option_values_name_the_value() -> None:
    with pytest.raises(RulesError, match="option centre_jack must be one of turn_next, "
                                         "to_stock, not 'sideways'"):
        make_rules("pisti", overrides={"centre_jack": "sideways"})
    with pytest.raises(RulesError, match="pile_down must leave the top card"):
        make_rules("pisti", overrides={"pile_down": 4})
    with pytest.raises(RulesError, match="option pisti_points must be 0 to 1000, not 1001"):
        make_rules("pisti", overrides={"pisti_points": 1001})


def test_11_the_rules_round_trip_through_their_dict() -> None:
    for name, players in PILE_GAMES:
        rules = make_rules(name, players)
        assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    assert set(option_names()) >= {"pisti_points", "jack_pisti_points", "jack_pisti",
                                   "last_play_pisti", "pile_down", "centre_jack",
                                   "bottom_card", "kitty_view", "pile_redeal"}
    assert {"pisti", "xeri"} <= set(PRESETS)


def test_11_1_a_move_is_a_card_and_the_whole_pile_or_nothing() -> None:
    table = captures_for(make_rules("pisti"))
    assert isinstance(table, PileCaptures)
    pile = mask("3D 9S 7C")
    assert table.pile_capture(parse_card("7H"), parse_card("7C"), pile) == pile
    assert table.pile_capture(parse_card("9H"), parse_card("7C"), pile) == 0
    assert table.pisti_kind(mask("7C"), parse_card("7H"), mask("7C")) == PLAIN_PISTI
    assert table.pisti_kind(mask("JC"), parse_card("JH"), mask("JC")) == JACK_PISTI
    with pytest.raises(ValueError, match="top card"):
        table.options(parse_card("7H"), pile)


# Properties over whole deals (spec 11.7 and 12)

games = st.sampled_from(PILE_GAMES)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
house_views = st.sampled_from(["side", "capturer", "first_player"])


def recount(rules: Rules, layout_: Layout, moves: list[int]) -> tuple[list[int], list[int]]:
    """Piştis per side counted from the plays alone: (all, with a Jack on a Jack)."""
    counts, jacks = [0] * rules.sides, [0] * rules.sides
    pile: list[int] = list(layout_.floor)
    seats = start_deal(rules, layout_).seats
    total = len(moves)
    for index, move in enumerate(moves):
        seat = seats[index % len(seats)]
        card, captured = move & 63, move >> 6
        if captured:
            last = index == total - 1
            lone = len(pile) == 1
            same = pile[-1] >> 2 == card >> 2 if pile else False
            jack = card >> 2 == JACK
            if lone and (not last or rules.last_play_pisti) and (
                    same or (jack and rules.jack_pisti == "lone")):
                counts[rules.side_of[seat]] += 1
                if jack and pile[-1] >> 2 == JACK:
                    jacks[rules.side_of[seat]] += 1
            pile = []
        else:
            pile.append(card)
    return counts, jacks


@settings(max_examples=60, deadline=None)
@given(game=games, seed=seeds, view=house_views, lone=st.booleans(), last=st.booleans(),
       centre=st.sampled_from(["turn_next", "to_stock"]))
def test_whole_deals_keep_every_invariant(game: tuple[str, int], seed: int, view: str,
                                          lone: bool, last: bool, centre: str) -> None:
    name, players = game
    rules = make_rules(name, players, {
        "kitty_view": view, "jack_pisti": "lone" if lone else "never",
        "last_play_pisti": last, "centre_jack": centre})
    rng = random.Random(seed)
    made = deal_layout(rules, seed % players, rng)
    check_layout(rules, made)
    state = start_deal(rules, made)
    moves: list[int] = []
    while not state.is_over:
        # Every card in exactly one place; the pile's order matches its cards.
        places = [*state.hands, state.floor, *state.piles, state.stock_mask()]
        assert sum(p.bit_count() for p in places) == 52
        union = 0
        for place in places:
            union |= place
        assert union == ALL_CARDS
        assert len(set(state.laid)) == len(state.laid)
        assert sum(1 << c for c in state.laid) == state.floor
        legal = legal_moves(state)
        assert sorted(m & 63 for m in legal) == [c for c in range(52)
                                                  if state.hands[state.to_play] >> c & 1]
        assert all(m >> 6 in (0, state.floor) for m in legal)
        move = legal[int(rng.random() * len(legal))]
        moves.append(move)
        state = play(state, move)
    assert state.floor == 0 and sum(p.bit_count() for p in state.piles) == 52
    score = deal_score(state)
    assert sum(score.card_points) == (13 if name == "pisti" else 22)
    # The score recomputed from the piles and the pişti counts.
    counts, jacks = recount(rules, made, moves)
    assert list(state.basras) == counts and list(state.jack_pistis) == jacks
    for side in range(rules.sides):
        plain, jack = score.pistis[side]
        assert (plain + jack, jack) == (counts[side], jacks[side])
        others = [score.cards[s] for s in range(rules.sides) if s != side]
        majority = rules.majority_points if score.cards[side] > max(others) else 0
        assert score.total[side] == (rules.card_points_of(state.piles[side]) + majority
                                     + plain * rules.pisti_points
                                     + jack * rules.jack_pisti_points)
    # A replay of the moves reproduces the deal.
    again = start_deal(rules, made)
    for move in moves:
        again = play(again, move)
    assert again == state


def visible_names(view_json: dict[str, object]) -> set[str]:
    """Every card name anywhere in an observation's JSON (its rules left out), moves
    such as ``7H:3D+9S`` read card by card."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.update(word for word in value.replace(":", " ").replace("+", " ").split()
                         if word in CARD_NAMES)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key != "rules":
                    walk(item)

    walk(view_json)
    return found


@settings(max_examples=40, deadline=None)
@given(game=games, seed=seeds, view=house_views)
def test_no_seat_ever_sees_a_face_down_card_it_should_not(game: tuple[str, int], seed: int,
                                                          view: str) -> None:
    name, players = game
    rules = make_rules(name, players, {"kitty_view": view})
    match = Match(rules, seed=seed)
    rng = random.Random(seed)
    deal_number, capturer, down, first = 0, -1, 0, -1
    while not match.is_over and len(match.deals) <= 2:
        if len(match.deals) != deal_number:  # a new deal: nobody has seen its kitty
            deal_number, capturer = len(match.deals), -1
            down = sum(1 << c for c in match.deals[-1].layout.floor_down)
            first = match.state.first
        for seat in range(players):
            allowed = (view == "first_player" and seat == first) or (capturer >= 0 and (
                seat == capturer or (view != "capturer"
                                     and rules.side_of[seat] == rules.side_of[capturer])))
            observation = observe(match, seat)
            if not allowed:
                shown = mask(" ".join(visible_names(observation.to_dict())))
                assert not shown & down, (seat, view)
                assert not observation.floor & down and not observation.initial_floor & down
                assert all(not pile & down for pile in observation.piles)
                assert all(not m >> 6 & down for m in observation.legal_moves)
                assert observation.down_count == (down & match.state.floor).bit_count()
            assert observation_from_dict(observation.to_dict()) == observation
        seat = match.state.to_play
        observation = observe(match, seat)
        move = observation.legal_moves[int(rng.random() * len(observation.legal_moves))]
        if move >> 6 and capturer < 0:
            capturer = seat  # the first capture takes the whole first pile
        match.play(move)


# Every level plays the pile games (the master's search: test_pile_master.py); the layers
# that do not show them yet refuse them in one line (issue 41); records hold them
# (test_pile_record.py)


def test_every_level_plays_the_pile_games() -> None:
    from basra.bots import make_bot

    view = observe_state(two(), 0)
    for level in ("expert", "master"):
        bot = make_bot(level, 1, workers=1, samples=1)
        assert bot.choose(view) in view.legal_moves
    levels = ("random", "greedy", "expert")
    for name, players in PILE_GAMES:
        match = Match(make_rules(name, players), seed=players)
        bots = [make_bot(levels[seat % 3], seat) for seat in range(players)]
        while not match.is_over:
            seat = match.state.to_play
            match.play(bots[seat].choose(observe(match, seat)))
        assert max(match.totals) >= match.target


def test_greedy_takes_a_pisti_over_a_larger_capture_of_nothing() -> None:
    from basra.bots.simple import GreedyBot

    state = plays(two(hands=("7H 8H KS QD", "2C 8D 6S 10H")), "7H", "8D")
    assert GreedyBot(1).choose(observe_state(state, 0)) == parse_move(state, "8H")
    first = observe_state(two(hands=("7H JH KS QD", "2C 8D 6S 10H")), 0)
    # On the first pile (three cards face down) neither capture is a pişti.
    values = {m & 63: m for m in GreedyBot(1).best_moves(first)}
    assert set(values) <= set(cards("7H JH"))


def test_variants_lists_the_pile_presets() -> None:
    from click.testing import CliRunner

    from basra.cli import cli

    result = CliRunner().invoke(cli, ["variants", "xeri"])
    assert result.exit_code == 0, result.output
    assert "pile_redeal" in result.output and "pair_or_jack" in result.output
    listing = CliRunner().invoke(cli, ["variants", "--json"])
    assert {"pisti", "xeri"} <= set(json.loads(listing.output))


@settings(max_examples=30, deadline=None)
@given(seed=seeds, players=st.sampled_from([2, 3, 4]), plays_made=st.integers(0, 3))
def test_a_seat_cannot_tell_which_cards_lie_face_down(seed: int, players: int,
                                                      plays_made: int) -> None:
    """9.9.1: swapping a face-down card with a card of the stock (hidden too) leaves every
    seat's observation the same until the pile is captured."""
    rules = make_rules("pisti", players)
    made = deal_layout(rules, 0, random.Random(seed))
    # Jacks turned up from the first pile go under it face up: three Jacks leave no
    # face-down card (seed 63 with four players).
    assume(made.floor_down)
    down, swap = made.floor_down[0], made.stock[0]
    assert swap != made.bottom_card

    def swapped(card: int) -> int:
        return swap if card == down else down if card == swap else card

    other = made._replace(floor=tuple(map(swapped, made.floor)),
                          floor_down=tuple(map(swapped, made.floor_down)),
                          stock=tuple(map(swapped, made.stock)))
    check_layout(rules, other)
    first, second = start_deal(rules, made), start_deal(rules, other)
    for _ in range(plays_made):
        move = legal_moves(first)[0]
        if move >> 6:
            break
        first, second = apply(first, move), apply(second, legal_moves(second)[0])
    for seat in range(players):
        assert observe_state(first, seat) == observe_state(second, seat)
