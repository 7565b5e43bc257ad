"""The house variations of spec section 8 and the Pasur family, pinned down case by case.

The Hypothesis properties over whole matches (tests/test_properties.py) cover these
options too; here each rule is shown on a position built to exercise it.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basra.bots import make_bot
from basra.cards import ALL_CARDS, CARD_NAMES, JACK, KING, QUEEN, CardSet, value_of
from basra.match import Match, tied_seats
from basra.observe import observe
from basra.position import parse_position, position_text, rules_text
from basra.record import Player, dumps, loads, match_record, replay
from basra.rules import Rules, make_rules
from basra.state import (
    DealScore,
    Layout,
    LayoutError,
    apply,
    capture_table,
    check_layout,
    deal_layout,
    deal_score,
    legal_moves,
    make_move,
    parse_move,
    play,
)


def mask(text: str) -> int:
    return CardSet.parse(text).mask if text.strip() not in ("", "-") else 0


def names(cards: int) -> str:
    return str(CardSet(cards)) if cards else "-"


def end_position(rules: Rules, piles: list[str], basras: list[int]) -> str:
    """A finished deal: every card not named goes to the first side's pile."""
    named = 0
    for pile in piles[1:]:
        named |= mask(pile)
    first = ALL_CARDS & ~named
    texts = [names(first), *(names(mask(p)) for p in piles[1:])]
    return (f"{rules_text(rules)} | dealer 0 | turn 1 | floor - | hands "
            f"{' / '.join(['-'] * rules.players)} | stock - | piles {' / '.join(texts)} | "
            f"basras {' '.join(map(str, basras))} | last 0")


def score_of(rules: Rules, piles: list[str], basras: list[int], carry: int = 0) -> DealScore:
    return deal_score(parse_position(end_position(rules, piles, basras)), carry)


# Pasur: what a card captures


def spec_pasur_options(card: int, floor: int) -> set[int]:
    """Spec section 8, restated: a numeral takes one set of floor numerals that adds up to
    11 with it; a King one King, a Queen one Queen; a Jack every numeral and Jack."""
    rank = card >> 2
    floor_cards = [c for c in range(52) if floor >> c & 1]
    if rank < JACK:
        numerals = [c for c in floor_cards if c >> 2 < JACK]
        found = set()
        for size in range(1, len(numerals) + 1):
            for combo in itertools.combinations(numerals, size):
                if sum(value_of(c) for c in combo) + value_of(card) == 11:
                    found.add(sum(1 << c for c in combo))
        return found
    if rank == JACK:
        taken = sum(1 << c for c in floor_cards if c >> 2 <= JACK)
        return {taken} if taken else set()
    return {1 << c for c in floor_cards if c >> 2 == rank}


@settings(max_examples=300, deadline=None)
@given(floor=st.sets(st.integers(0, 51), max_size=9), card=st.integers(0, 51))
def test_pasur_captures_follow_the_spec(floor: set[int], card: int) -> None:
    floor.discard(card)
    floor_mask = sum(1 << c for c in floor)
    table = capture_table(make_rules("pasur"))
    assert set(table.options(card, floor_mask)) == spec_pasur_options(card, floor_mask)
    # The move generator offers exactly those captures, or the lay-down when there are none.
    state = parse_position(
        f"pasur/2 | dealer 1 | turn 0 | floor {names(floor_mask)} | hands {CARD_NAMES[card]} / "
        f"- | stock - | piles - / {names(ALL_CARDS & ~floor_mask & ~(1 << card))} | "
        "basras 0 0 | last -")
    moves = {m >> 6 for m in legal_moves(state)}
    assert moves == (spec_pasur_options(card, floor_mask) or {0})


def test_pasur_examples() -> None:
    state = parse_position(
        "pasur/2 | dealer 1 | turn 0 | floor AS 2H 4C 7D KS KH | hands 4S JH KD 10C / - "
        "| stock - | piles - / " + names(ALL_CARDS & ~mask("AS 2H 4C 7D KS KH 4S JH KD 10C"))
        + " | basras 0 0 | last -")
    four = sorted(str(CardSet(m >> 6)) for m in legal_moves(state) if m & 63 == 12)
    assert four == ["7D", "AS 2H 4C"]  # one set adding up to 7, never both
    ten = [str(CardSet(m >> 6)) for m in legal_moves(state) if CARD_NAMES[m & 63] == "10C"]
    assert ten == ["AS"]
    king = sorted(str(CardSet(m >> 6)) for m in legal_moves(state) if CARD_NAMES[m & 63] == "KD")
    assert king == ["KH", "KS"]
    jack = [str(CardSet(m >> 6)) for m in legal_moves(state) if CARD_NAMES[m & 63] == "JH"]
    assert jack == ["AS 2H 4C 7D"]  # never the Kings
    with pytest.raises(ValueError, match="several ways"):
        parse_move(state, "KD")


def test_a_pasur_card_that_can_capture_must_capture() -> None:
    state = parse_position(
        "pasur/2 | dealer 1 | turn 0 | floor 5S QH | hands 6H QS / - | stock - | piles - / "
        + names(ALL_CARDS & ~mask("5S QH 6H QS")) + " | basras 0 0 | last -")
    assert sorted(map(CARD_NAMES.__getitem__, (m & 63 for m in legal_moves(state)))) == [
        "6H", "QS"]
    assert all(m >> 6 for m in legal_moves(state))
    with pytest.raises(ValueError, match="must capture"):
        play(state, make_move(21))  # 6H laid down


# Pasur: surs


def pasur_state(floor: str, hands: list[str], stock: str = "", turn: int = 0,
                players: int = 2, dealer: int | None = None) -> str:
    named = mask(floor) | mask(stock)
    for hand in hands:
        named |= mask(hand)
    rest = names(ALL_CARDS & ~named)
    piles = ["-"] * (2 if players == 4 else players)
    piles[-1] = rest
    dealer = (turn - 1) % players if dealer is None else dealer
    return (f"pasur/{players} | dealer {dealer} | turn {turn} | floor {floor}"
            f" | hands {' / '.join(h or '-' for h in hands)} | stock {stock or '-'} | piles "
            f"{' / '.join(piles)} | basras {' '.join(['0'] * len(piles))} | last -")


def test_a_sur_clears_the_floor_with_any_card_but_a_jack() -> None:
    state = parse_position(pasur_state("5S 3H", ["3D 9S", "JD 2C"]))
    after = play(state, parse_move(state, "3D:5S+3H"))
    assert after.basras == (1, 0) and after.floor == 0
    state = parse_position(pasur_state("KS", ["KD 9S", "JD 2C"]))
    assert play(state, parse_move(state, "KD")).basras == (1, 0)
    state = parse_position(pasur_state("5S 3H", ["JD 9S", "3D 2C"]))
    after = play(state, parse_move(state, "JD"))
    assert after.floor == 0 and after.basras == (0, 0)  # a Jack's sweep is no sur


def test_no_sur_on_the_last_play_and_an_option_for_the_last_batch() -> None:
    text = pasur_state("5S 3H", ["3D", "-"], dealer=0)  # seat 0 plays last
    last = parse_position(text)
    assert play(last, parse_move(last, "3D")).basras == (0, 0)
    allowed = parse_position(text.replace("pasur/2", "pasur/2 last_play_basra=true"))
    assert play(allowed, parse_move(allowed, "3D")).basras == (1, 0)
    # The last batch, not its last play: a sur unless last_batch_basra is off.
    text = pasur_state("5S 3H", ["3D 9S", "2C 4D"])
    state = parse_position(text)
    assert play(state, parse_move(state, "3D")).basras == (1, 0)
    strict = parse_position(text.replace("pasur/2", "pasur/2 last_batch_basra=false"))
    assert play(strict, parse_move(strict, "3D")).basras == (0, 0)
    # With a batch still to come, the option changes nothing.
    later = parse_position(pasur_state("5S 3H", ["3D 9S", "2C 4D"],
                                       stock="AS AH AD AC 2S 2H 2D 6C").replace(
        "pasur/2", "pasur/2 last_batch_basra=false"))
    assert play(later, parse_move(later, "3D")).basras == (1, 0)


def test_surs_cancel_one_for_one() -> None:
    rules = make_rules("pasur")
    score = score_of(rules, ["-", "2S"], [3, 1])
    assert score.basras == (3, 1) and score.basra_points == (10, 0)
    three = make_rules("pasur", 3)
    score = score_of(three, ["-", "2S", "3S"], [3, 2, 1])
    assert score.basra_points == (10, 5, 0)  # each beyond the fewest made
    plain = make_rules("pasur", overrides={"basra_cancel": False})
    assert score_of(plain, ["-", "2S"], [3, 1]).basra_points == (15, 5)


def test_the_clubs_prize() -> None:
    rules = make_rules("pasur")
    clubs = [CARD_NAMES[c] for c in range(3, 52, 4)]
    seven = " ".join(clubs[:7])
    score = score_of(rules, ["-", seven], [0, 0])
    assert score.clubs == (0, 7)
    assert score.total[1] == score.card_points[1] + 7
    three = make_rules("pasur", 3)
    # 5 / 4 / 4 clubs: strictly the most wins; 5 / 5 / 3: nobody.
    assert score_of(three, ["-", " ".join(clubs[:5]), " ".join(clubs[5:9])],
                    [0, 0, 0]).clubs == (0, 7, 0)
    assert score_of(three, ["-", " ".join(clubs[:5]), " ".join(clubs[5:10])],
                    [0, 0, 0]).clubs == (0, 0, 0)
    seven_needed = make_rules("pasur", 3, {"clubs_min": 7})
    assert score_of(seven_needed, ["-", " ".join(clubs[:5]), " ".join(clubs[5:9])],
                    [0, 0, 0]).clubs == (0, 0, 0)
    assert score_of(make_rules("egyptian"), ["-", seven], [0, 0]).clubs == ()


def test_pasur_deals_a_floor_without_jacks_or_three_queens_or_kings() -> None:
    rules = make_rules("pasur")
    courts = [0b1111 << (4 * rank) for rank in (JACK, QUEEN, KING)]
    for seed in range(400):
        layout = deal_layout(rules, seed % 2, random.Random(seed))
        floor = sum(1 << c for c in layout.floor)
        jacks, queens, kings = ((floor & ranks).bit_count() for ranks in courts)
        assert jacks == 0 and queens <= 2 and kings <= 2
        check_layout(rules, layout)
    layout = deal_layout(rules, 0, random.Random(1))
    stock = list(layout.stock)
    queens = [c for c in stock if c >> 2 == QUEEN][:3]
    rest = [c for c in stock if c not in queens]
    assert len(queens) == 3
    bad = Layout(0, (*queens, layout.floor[0]), layout.hands, (*layout.floor[1:], *rest))
    with pytest.raises(LayoutError, match="more than two Queens or Kings"):
        check_layout(rules, bad)


def test_pasur_redeals_a_floor_with_two_jacks() -> None:
    """A generator that first shows two Jacks on the floor: the deck is shuffled again."""
    rules = make_rules("pasur")
    dealt = [deal_layout(rules, 0, random.Random(seed)) for seed in range(3000)]
    # Reproduce one redeal by hand: the first shuffle of some seed put 2 Jacks on the
    # floor, so its layout differs from the first shuffle's.
    redealt = 0
    for seed, layout in enumerate(dealt):
        rng = random.Random(seed)
        keys = [rng.random() for _ in range(52)]
        deck = sorted(range(52), key=keys.__getitem__)
        floor = deck[8:12]
        if sum(c >> 2 == JACK for c in floor) > 1:
            redealt += 1
            assert tuple(deck[:4]) not in layout.hands
    assert redealt > 0


# House variations


def test_majority_min() -> None:
    rules = make_rules("egyptian", overrides={"majority_min": 28})
    first_27 = " ".join(CARD_NAMES[c] for c in range(27, 52))  # 25 cards to side 1
    assert score_of(rules, ["-", first_27], [0, 0]).majority == (0, 0)
    first_28 = " ".join(CARD_NAMES[c] for c in range(28, 52))  # 24 cards: 28-24
    assert score_of(rules, ["-", first_28], [0, 0]).majority == (30, 0)
    assert score_of(make_rules("egyptian"), ["-", first_27], [0, 0]).majority == (30, 0)


def test_majority_tie_double() -> None:
    rules = make_rules("egyptian", overrides={"majority_tie": "double"})
    half = " ".join(CARD_NAMES[c] for c in range(26, 52))
    first = score_of(rules, ["-", half], [0, 0])
    assert first.majority == (0, 0) and first.carry_out == 30  # the next prize is 60
    second = score_of(rules, ["-", half], [0, 0], first.carry_out)
    assert second.carry_out == 90  # the next prize is 120
    third = score_of(rules, ["-", " ".join(CARD_NAMES[c] for c in range(27, 52))], [0, 0],
                     second.carry_out)
    assert third.majority == (120, 0)
    carry = make_rules("egyptian", overrides={"majority_tie": "carry"})
    assert score_of(carry, ["-", half], [0, 0], 30).carry_out == 60  # 30 -> 60 -> 90


def split_end(rules_text_: str, floor: str, last: str) -> str:
    named = mask(floor) | mask("9S") | mask(last)
    rest = names(ALL_CARDS & ~named)
    return (f"{rules_text_} | dealer 0 | turn 0 | floor {floor} | hands 9S / - | stock - | "
            f"piles {last} / {rest} | basras 0 0 | last 0")


def test_leftover_split_gives_cards_out_oldest_first_from_the_side_after_the_capturer() -> None:
    text = split_end("egyptian/2 leftover=split", "KS 3H QD", "2C")
    state = parse_position(text)
    assert state.laid == (mask("KS").bit_length() - 1, 9, 46)
    end = play(state, parse_move(state, "9S"))  # 9S trails: floor KS 3H QD 9S
    assert end.is_over and end.floor == 0
    # Seat 0 captured last: side 1 gets KS, side 0 3H, side 1 QD, side 0 9S.
    assert end.piles[0] & mask("KS 3H QD 9S") == mask("3H 9S")
    assert end.piles[1] & mask("KS 3H QD 9S") == mask("KS QD")
    assert end.leftover == mask("KS 3H QD 9S")
    again = parse_position(position_text(end))
    assert again == end
    default = parse_position(split_end("egyptian/2", "KS 3H QD", "2C"))
    end = play(default, parse_move(default, "9S"))
    assert end.piles[0] & mask("KS 3H QD 9S") == mask("KS 3H QD 9S")


@pytest.mark.slow
def test_leftover_split_with_no_capture_starts_with_the_first_player() -> None:
    rules = make_rules("egyptian", overrides={"leftover": "split", "bury": "none",
                                              "optional_capture": True})
    match = Match(rules, 3, first_dealer=1)
    while not match.is_over and len(match.deals) == 1:
        moves = match.legal_moves()
        match.play(next(m for m in moves if not m >> 6))  # always lay down
        if not match.deal_in_progress:
            break
    history = match.deals[0]
    assert history.leftover_seat == -1 and history.leftover == ALL_CARDS
    # Oldest first: the four floor cards, then the plays; side 0 (after dealer 1) first.
    order = [*history.layout.floor, *(p.card for p in history.plays)]
    assert [card for card, _ in history.shares] == order
    assert [side for _, side in history.shares] == [i % 2 for i in range(52)]
    record = match_record(match, [Player("a"), Player("b")])
    leftover = record["deals"][0]["leftover"]
    assert leftover["seat"] == -1 and leftover["sides"][:3] == [0, 1, 0]
    assert replay(json.loads(dumps(record))).totals == match.totals
    broken = json.loads(dumps(record))
    broken["deals"][0]["leftover"]["sides"][0] = 1
    with pytest.raises(ValueError, match="the leftover is given out"):
        replay(broken)


def three_player_tie(seed_range: range) -> Match:
    """A three-player egyptian match under tie_deal=tied that needed an extra deal."""
    rules = make_rules("egyptian", 3, {"tie_deal": "tied", "target": 1})
    for seed in seed_range:
        match = Match(rules, seed)
        bots = [make_bot("greedy", seed + seat) for seat in range(3)]
        while not match.is_over:
            seat = match.state.to_play
            match.play(bots[seat].choose(observe(match, seat)))
        if len(match.deals) > 1:
            return match
    raise AssertionError("no tie at the top in these seeds")


def test_tie_deal_tied_plays_the_extra_deal_between_the_tied_sides() -> None:
    match = three_player_tie(range(400))
    first, extra = match.deals[0], match.deals[1]
    assert first.score is not None
    best = max(first.score.total)
    tied = [side for side, total in enumerate(first.score.total) if total == best]
    assert 1 < len(tied) < 3
    out = next(seat for seat in range(3) if seat not in tied)
    assert extra.layout.hands[out] == () and all(extra.layout.hands[s] for s in tied)
    assert {p.seat for p in extra.plays} == set(tied)
    assert extra.score is not None and extra.score.total[out] == 0
    assert extra.score.cards[out] == 0
    record = match_record(match, [Player("a"), Player("b"), Player("c")])
    assert record["deals"][1]["seats"] == tied and "seats" not in record["deals"][0]
    assert record["deals"][1]["hands"][out] == []
    assert replay(json.loads(dumps(record))).totals == match.totals
    broken = json.loads(dumps(record))
    broken["deals"][1]["seats"] = [0, 1, 2]
    with pytest.raises(ValueError, match="are not the seats dealt cards"):
        replay(broken)


def test_tied_seats_in_partnerships_and_under_raise() -> None:
    rules = make_rules("egyptian", 4, {"tie_deal": "tied"})
    assert tied_seats(rules, [110, 110], 101, None) is None  # both sides: everyone plays
    independent = make_rules("egyptian", 4, {"partnership": False, "tie_deal": "tied"})
    assert tied_seats(independent, [110, 90, 110, 70], 101, None) == (0, 2)
    assert tied_seats(independent, [110, 90, 110, 70], 111, None) is None
    raised = make_rules("three-player", overrides={"tie_deal": "tied"})
    assert tied_seats(raised, [60, 60, 20], 51, None) is None


def test_a_sitting_out_seat_is_never_to_play_and_sees_no_cards() -> None:
    match = three_player_tie(range(400))
    rules = match.rules
    extra = match.deals[1]
    out = next(seat for seat, hand in enumerate(extra.layout.hands) if not hand)
    replayed = Match(rules, match.seed, first_dealer=match.first_dealer, auto_deal=False)
    replayed.deal(match.deals[0].layout)
    for made in match.deals[0].plays:
        replayed.play(make_move(made.card, made.captured))
    state = replayed.deal(extra.layout)
    assert out not in state.seats
    while not state.is_over:
        assert state.to_play != out and state.hands[out] == 0
        view = observe(replayed, out)
        assert view.legal_moves == () and view.hand == 0 and out not in view.seats
        state = apply(state, legal_moves(state)[0])
        replayed._state = state


# Records stay readable


def test_a_record_written_before_the_new_options_still_replays() -> None:
    rules = make_rules("jawaker")
    match = Match(rules, 12, variant="jawaker")
    rng = random.Random(1)
    while not match.is_over:
        match.play(rng.choice(match.legal_moves()))
    record = json.loads(dumps(match_record(match, [Player("a"), Player("b")])))
    for option in ("family", "floor_redeal", "basra_cancel", "last_batch_basra", "leftover",
                   "majority_min", "clubs_points", "clubs_min", "tie_deal"):
        del record["rules"][option]
    for deal in record["deals"]:
        deal.pop("buried")
    assert replay(record).totals == match.totals


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pasur_matches_record_and_replay(players: int) -> None:
    rules = make_rules("pasur", players)
    match = Match(rules, players, variant="pasur")
    bots = [make_bot("greedy", seat) for seat in range(players)]
    while not match.is_over:
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
    record = match_record(match, [Player(f"p{seat}") for seat in range(players)])
    assert record["variant"] == "pasur" and record["rules"]["family"] == "pasur"
    assert all("clubs" in deal["score"] for deal in record["deals"])
    text = dumps(record)
    assert replay(loads(text)).totals == match.totals
    assert max(match.totals) >= 62
    for deal in record["deals"]:
        if players != 3:  # two sides share the 13 clubs: one has 7 or more
            assert sorted(deal["score"]["clubs"]) == [0, 7]
        for entry in deal["plays"]:
            if entry["basra"]:
                assert CARD_NAMES.index(entry["card"]) >> 2 != JACK
