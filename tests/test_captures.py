"""What a card captures and which captures are basras (spec sections 3, 4 and 5)."""

import random
from functools import cache
from itertools import combinations

from basra.captures import CaptureTable, best_packings, captures_for, pip_total
from basra.cards import CARD_NAMES, CardSet, iter_cards, parse_card, parse_cards
from basra.position import parse_position, rules_text
from basra.rules import Rules, make_rules
from basra.state import DealState, apply, legal_moves, move_captured, move_card, move_text


def table_of(variant: str = "egyptian", **overrides: object) -> CaptureTable:
    return captures_for(make_rules(variant, overrides=overrides))


def takes(card: str, floor: str, variant: str = "egyptian", **overrides: object) -> list[str]:
    """Every capture option of ``card`` on ``floor``, as sorted card texts."""
    table = table_of(variant, **overrides)
    options = table.options(parse_card(card), CardSet.parse(floor).mask)
    return sorted(str(CardSet(mask)) for mask in options)


def is_basra(card: str, floor: str, variant: str = "egyptian", **overrides: object) -> bool:
    """Whether ``card``'s capture on ``floor`` is a basra (it must capture, with one option)."""
    table = table_of(variant, **overrides)
    floor_mask = CardSet.parse(floor).mask
    options = table.options(parse_card(card), floor_mask)
    assert len(options) == 1, f"{card} on {floor}: expected one capture, got {len(options)}"
    return table.is_basra(floor_mask, parse_card(card), options[0])


def position(rules: Rules, floor: str, hands: list[str], turn: int = 0) -> DealState:
    """A position through the text form: the cards not named go to the last side's pile."""
    named = parse_cards(f"{floor} {' '.join(hands)}")
    rest = " ".join(CARD_NAMES[c] for c in range(52) if c not in named)
    piles = ["-"] * (rules.sides - 1) + [rest or "-"]
    dealer = (turn - 1) % rules.players
    return parse_position(
        f"{rules_text(rules)} | dealer {dealer} | turn {turn} | floor {floor or '-'}"
        f" | hands {' / '.join(h or '-' for h in hands)} | stock -"
        f" | piles {' / '.join(piles)} | basras {' '.join(['0'] * rules.sides)} | last -"
    )


def basras_after(state: DealState, move_text_: str) -> tuple[int, ...]:
    """The basra counts after playing the move written as text (which must be legal)."""
    moves = {move_text(m): m for m in legal_moves(state)}
    assert move_text_ in moves, f"{move_text_} not among {sorted(moves)}"
    return apply(state, moves[move_text_]).basras


# Spec section 3, worked examples


def test_seven_takes_the_seven_and_four_plus_three_and_leaves_the_five() -> None:
    assert takes("7H", "7S 4H 3C 5D", "lebanese") == ["3C 4H 7S"]


def test_nine_takes_seven_plus_two_and_four_plus_five() -> None:
    assert takes("9H", "7S 2H 4C 5D", "lebanese") == ["2H 4C 5D 7S"]


def test_eight_takes_five_plus_three_or_six_plus_ace_plus_ace() -> None:
    assert takes("8H", "5S 3H", "lebanese") == ["3H 5S"]
    assert takes("8H", "6C AD AC", "lebanese") == ["AD AC 6C"]
    # Both groups together when both are there (the largest set).
    assert takes("8H", "5S 3H 6C AD AC", "lebanese") == ["AD AC 3H 5S 6C"]
    # 6 + A needs a second ace: only 5 + 3 is taken.
    assert takes("8H", "5S 3H 6C AD", "lebanese") == ["3H 5S"]
    assert takes("8H", "6C AD AC 5S", "lebanese") == ["AD AC 6C"]


def test_the_largest_set_wins_over_a_smaller_group() -> None:
    # 7 = 4 + 3 (two cards) or 4 + 2 + A (three cards): the three-card group.
    assert takes("7H", "4S 3H 2D AC", "lebanese") == ["AC 2D 4S"]
    # 10 on 1..4 and 6: 6 + 4 or 4 + 3 + 2 + A; one group only (total 16), four cards.
    assert takes("10H", "AS 2S 3S 4S 6S", "lebanese") == ["AS 2S 3S 4S"]


def test_equally_large_sets_are_separate_options() -> None:
    # 4 = 3 + A twice: which of the three aces stays is the player's choice.
    assert takes("4H", "AS AH AD 3C 3D", "lebanese") == [
        "AH AD 3D 3C",
        "AS AD 3D 3C",
        "AS AH 3D 3C",
    ]
    assert takes("8C", "5S 3H 3D", "lebanese") == ["3D 5S", "3H 5S"]
    assert takes("7C", "5S 2H 2D 3C 4S", "lebanese") == ["2D 3C 4S 5S", "2H 3C 4S 5S"]


def test_matches_are_always_taken() -> None:
    assert takes("5C", "5S 5H 4C AD", "lebanese") == ["AD 4C 5S 5H"]
    assert takes("5C", "5S 5H 2C 3D 4H", "lebanese") == ["2C 3D 5S 5H"]
    assert takes("6C", "6S 3H 3D", "lebanese") == ["3H 3D 6S"]
    assert takes("6C", "6S 6H 6D", "lebanese") == ["6S 6H 6D"]
    # A match with no sum beside it.
    assert takes("9C", "9S 8H 7D", "lebanese") == ["9S"]


def test_cards_above_the_value_are_never_taken() -> None:
    assert takes("3C", "5S 9H 10D", "lebanese") == []
    assert takes("3C", "2S AH 5D 9C", "lebanese") == ["AH 2S"]
    assert takes("AC", "AS 2S 10D", "lebanese") == ["AS"]
    assert takes("2C", "AS AH 3D", "lebanese") == ["AS AH"]


def test_court_cards_are_ignored_by_numerals() -> None:
    assert takes("10C", "JS QH KD", "lebanese") == []
    assert takes("10C", "10S QH JD", "lebanese") == ["10S"]
    assert takes("5C", "2S 3H KD QS", "lebanese") == ["2S 3H"]


def test_queen_and_king_capture_only_their_rank() -> None:
    assert takes("QS", "QH QD KC 5S JH", "lebanese") == ["QH QD"]
    assert takes("KS", "KH QD", "lebanese") == ["KH"]
    assert takes("KS", "QH 5D JC", "lebanese") == []
    assert takes("QS", "", "lebanese") == []


def test_jack_takes_every_card_of_a_non_empty_floor() -> None:
    for variant in ("egyptian", "lebanese", "jawaker", "classic"):
        assert takes("JS", "5S KH QD 7D JC", variant) == ["5S 7D JC QD KH"]
        assert takes("JS", "KH", variant) == ["KH"]


def test_jack_trails_on_an_empty_floor() -> None:
    assert takes("JS", "") == []
    state = position(make_rules("egyptian"), "", ["JS 5H", "5C"])
    assert [move_text(m) for m in legal_moves(state)] == ["5H", "JS"]
    after = apply(state, parse_card("JS"))
    assert after.floor == 1 << parse_card("JS")


# Spec section 5: the 7♦


def test_plain_seven_of_diamonds_is_an_ordinary_seven() -> None:
    assert takes("7D", "3S 4H", "lebanese") == ["3S 4H"]
    assert takes("7D", "3S 4H KD", "lebanese") == ["3S 4H"]
    assert takes("7D", "5S", "lebanese") == []
    assert takes("7D", "", "lebanese") == []


def test_sweep_takes_every_card_of_a_non_empty_floor() -> None:
    assert takes("7D", "5S 6H KC JD", "jawaker") == ["5S 6H JD KC"]
    assert takes("7D", "9S", "jawaker") == ["9S"]
    assert takes("7D", "", "jawaker") == []
    # Other sevens are plain.
    assert takes("7S", "5S 6H KC", "jawaker") == []


def test_sweep_any_takes_every_card_of_a_non_empty_floor() -> None:
    assert takes("7D", "5S 6H KC JD", "classic") == ["5S 6H JD KC"]
    assert takes("7D", "QS", "classic") == ["QS"]
    assert takes("7D", "", "classic") == []


def test_sweep_small_sweeps_a_floor_of_ten_or_less() -> None:
    assert takes("7D", "3S 4H") == ["3S 4H"]
    assert takes("7D", "3S 2H 5C") == ["2H 3S 5C"]
    # Court cards count 0 and are swept too.
    assert takes("7D", "3S 4H KC JD") == ["3S 4H JD KC"]
    assert takes("7D", "QS") == ["QS"]
    assert takes("7D", "9S") == ["9S"]
    assert takes("7D", "") == []


def test_sweep_small_over_ten_plays_as_an_ordinary_seven() -> None:
    assert takes("7D", "4S 3H 5C") == ["3H 4S"]  # 12: 4 + 3, the 5 stays
    assert takes("7D", "5S 6H") == []  # 11: nothing makes 7, it trails
    assert takes("7D", "5S 2H 4C") == ["2H 5S"]  # 11: 5 + 2
    assert takes("7D", "7S 4H") == ["7S"]  # 11: the match
    assert takes("7D", "7S 7H 7C") == ["7S 7H 7C"]  # 21
    assert takes("7D", "6S 5H KC") == []  # 11 with a court card


def test_sums_false_captures_only_matches() -> None:
    assert takes("7H", "4H 3C", sums=False) == []
    assert takes("7H", "7S 4H 3C", sums=False) == ["7S"]
    assert takes("7H", "7S 7C 4H 3C", sums=False) == ["7S 7C"]
    assert takes("9H", "7S 2H 4C 5D", "lebanese", sums=False) == []
    # Court cards and the Jack are unchanged.
    assert takes("QH", "QS 5D", sums=False) == ["QS"]
    assert takes("JH", "QS 5D", sums=False) == ["5D QS"]


# Spec section 4: basras


def test_clear_basra_is_clearing_the_floor_with_a_non_jack() -> None:
    assert is_basra("7H", "3S 4H")
    assert is_basra("7H", "7S 3C 4H")
    assert not is_basra("7H", "7S 3C 4H 5D")
    assert is_basra("5H", "5S")
    assert is_basra("QH", "QS QD")
    assert not is_basra("QH", "QS 5D")
    assert is_basra("9C", "7S 2H 4C 5D")


def test_clear_basra_is_never_a_jack_when_jack_basra_is_never() -> None:
    assert not is_basra("JH", "3S 4H", "jawaker")
    assert not is_basra("JH", "5S", "jawaker")
    assert not is_basra("JH", "JS", "jawaker")


def test_lone_basra_is_a_lone_card_taken_by_rank() -> None:
    assert is_basra("5H", "5S", "lebanese")
    assert is_basra("QH", "QS", "lebanese")
    assert is_basra("KH", "KS", "lebanese")
    # Clearing two cards, or clearing by a sum, is no basra under the lone rule.
    assert not is_basra("5H", "5S 5D", "lebanese")
    assert not is_basra("7H", "3S 4H", "lebanese")
    assert not is_basra("QH", "QS QD", "lebanese")
    assert not is_basra("5H", "5S KD", "lebanese")


def test_lone_basra_jack_on_a_lone_jack_counts_once() -> None:
    assert is_basra("JH", "JS", "lebanese")
    assert basras_after(position(make_rules("lebanese"), "JS", ["JH 5C", "KD"]), "JH:JS") == (1, 0)
    # With jack_basra = lone as well, the Jack on a lone Jack is still one basra.
    both = make_rules("lebanese", overrides={"jack_basra": "lone"})
    assert basras_after(position(both, "JS", ["JH 5C", "KD"]), "JH:JS") == (1, 0)


def test_lone_basra_jack_on_a_lone_non_jack_is_not_a_basra() -> None:
    assert not is_basra("JH", "5S", "lebanese")
    assert not is_basra("JH", "QS", "lebanese")
    assert basras_after(position(make_rules("lebanese"), "5S", ["JH 5C", "KD"]), "JH:5S") == (0, 0)


def test_jack_basra_never() -> None:
    for variant in ("jawaker", "classic", "three-player"):
        assert not is_basra("JH", "5S", variant)
        assert not is_basra("JH", "5S 6C", variant)


def test_jack_basra_lone() -> None:
    assert is_basra("JH", "5S")  # egyptian
    assert is_basra("JH", "KS")
    assert is_basra("JH", "JS")
    assert not is_basra("JH", "5S 6C")
    assert is_basra("JH", "5S", "iraqi")


def test_jack_basra_lone_or_pair() -> None:
    assert is_basra("JH", "5S", jack_basra="lone_or_pair")
    assert is_basra("JH", "5S 6C", jack_basra="lone_or_pair")
    assert not is_basra("JH", "5S 6C 7C", jack_basra="lone_or_pair")


def test_seven_of_diamonds_basra_under_sweep() -> None:
    assert is_basra("7D", "3S 4H", "jawaker")
    assert is_basra("7D", "10S", "jawaker")  # exactly 10
    assert is_basra("7D", "AS 2S 3S 4S", "jawaker")
    assert not is_basra("7D", "5S 6H", "jawaker")  # 11
    assert not is_basra("7D", "3S KH", "jawaker")  # a court card
    assert not is_basra("7D", "JS", "jawaker")
    assert not is_basra("7D", "9S 9H", "jawaker")


def test_seven_of_diamonds_basra_under_sweep_any() -> None:
    assert is_basra("7D", "3S 4H", "classic")
    assert is_basra("7D", "10S", "classic")
    assert not is_basra("7D", "6S 5H", "classic")
    assert not is_basra("7D", "3S KH", "classic")
    assert not is_basra("7D", "QS", "classic")


def test_seven_of_diamonds_basra_under_sweep_small() -> None:
    assert is_basra("7D", "3S 4H")
    assert is_basra("7D", "10S")
    assert is_basra("7D", "3S 4H KC")  # courts count 0 and are swept
    assert is_basra("7D", "KC")
    # Over 10 it is an ordinary 7: a basra only if that clears the floor.
    assert not is_basra("7D", "4S 3H 5C")
    assert not is_basra("7D", "7S 4H")
    assert is_basra("7D", "7S 7H 7C")


def test_plain_seven_of_diamonds_basra_follows_the_basra_rule() -> None:
    assert is_basra("7D", "7S", "lebanese")
    assert not is_basra("7D", "3S 4H", "lebanese")
    assert is_basra("7D", "3S 4H", "three-player")  # clear rule
    assert not is_basra("7D", "3S 4H 5C", "three-player")


def test_a_trail_is_never_a_basra() -> None:
    table = table_of()
    assert not table.is_basra(CardSet.parse("5S").mask, parse_card("JH"), 0)
    assert not table.is_basra(0, parse_card("7D"), 0)


def test_basras_are_counted_by_apply_for_the_side_that_plays() -> None:
    rules = make_rules("egyptian")
    state = position(rules, "3S 4H 9C", ["7H 2C", "9S QD"])
    assert basras_after(state, "7H:3S+4H") == (0, 0)  # the 9C stays
    moves = {move_text(m): m for m in legal_moves(state)}
    after = apply(state, moves["7H:3S+4H"])
    assert basras_after(after, "9S:9C") == (0, 1)  # seat 1 clears the floor


def test_pip_total() -> None:
    assert pip_total(CardSet.parse("AS 10D KC JH QS").mask) == 11
    assert pip_total(0) == 0
    assert pip_total((1 << 52) - 1) == 4 * 55


def test_best_packings() -> None:
    options = best_packings(7, CardSet.parse("5S 2H 2D 3C 4S").mask)
    assert sorted(str(CardSet(m)) for m in options) == ["2D 3C 4S 5S", "2H 3C 4S 5S"]
    assert best_packings(7, CardSet.parse("5S 5H").mask) == (0,)
    assert best_packings(7, 0) == (0,)


# Perft-style counts from fixed positions


def perft(state: DealState, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(apply(state, move), depth - 1) for move in legal_moves(state))


def test_perft_lebanese_sums() -> None:
    state = position(make_rules("lebanese"), "AS AH 2D 3C 4S 5H 6D KC", ["7C 8H KS QD", "2S"])
    moves = legal_moves(state)
    # 7C: no match; A A 2 3 4 5 6 add up to 22, three groups of 7 use 21, so one ace stays
    #     (6+A, 5+2, 4+3): two options, one per ace.
    # 8H: two groups of 8 at most (24 > 22); keeping the most cards means leaving out one
    #     card of 6, the 6D (5+3 and 4+2+A+A): one option.
    # KS: takes the KC: one option.  QD: no queen, it trails: one move.
    assert [move_text(m) for m in moves] == [
        "7C:AS+2D+3C+4S+5H+6D",
        "7C:AH+2D+3C+4S+5H+6D",
        "8H:AS+AH+2D+3C+4S+5H",
        "QD",
        "KS:KC",
    ]
    assert len(moves) == 5
    assert sum(1 for m in moves if move_captured(m)) == 4


def test_perft_egyptian_seven_of_diamonds_and_jack() -> None:
    state = position(make_rules("egyptian"), "2S 3H KD", ["7D 5C JH KS", "2C"])
    moves = legal_moves(state)
    # 7D: the pips are 2 + 3 = 5, so it sweeps all three (a basra).
    # 5C: 2 + 3.  JH: sweeps all three.  KS: the KD.  Four moves, all captures.
    assert len(moves) == 4
    assert sorted(move_text(m) for m in moves) == [
        "5C:2S+3H", "7D:2S+3H+KD", "JH:2S+3H+KD", "KS:KD",
    ]
    basras = {move_text(m): apply(state, m).basras[0] for m in moves}
    assert basras == {"5C:2S+3H": 0, "7D:2S+3H+KD": 1, "JH:2S+3H+KD": 0, "KS:KD": 0}


def test_perft_optional_capture_adds_a_trail_per_capturing_card() -> None:
    rules = make_rules("egyptian", overrides={"optional_capture": "true"})
    state = position(rules, "5S 5H", ["5D 10C JS QH", "2C"])
    moves = legal_moves(state)
    # 5D: both fives, or trail.  10C: 5+5, or trail.  JS: sweep, or trail.  QH: trail only.
    assert len(moves) == 7
    assert sum(1 for m in moves if move_captured(m)) == 3
    assert sorted(move_text(m) for m in moves) == [
        "10C", "10C:5S+5H", "5D", "5D:5S+5H", "JS", "JS:5S+5H", "QH",
    ]


def test_perft_several_options_for_one_card() -> None:
    state = position(make_rules("lebanese"), "AS AH AD 3C 3D", ["4H 2C", "KS"])
    moves = legal_moves(state)
    # 4H: 3+A twice, three ways to pick the two aces: three options.
    # 2C: A+A (one group only: two groups need four aces); three ways to pick two aces.
    assert len(moves) == 6
    assert sum(1 for m in moves if move_card(m) == parse_card("4H")) == 3
    assert sum(1 for m in moves if move_card(m) == parse_card("2C")) == 3


def test_perft_depth_two() -> None:
    for variant in ("egyptian", "lebanese"):
        state = position(make_rules(variant), "3S 4H", ["7C 3D QS", "7D 4C KS"])
        # Seat 0: 7C takes 3+4, 3D takes 3S, QS trails: 3 moves.
        assert perft(state, 1) == 3
        # Seat 1 then has three moves after each of them:
        #   floor empty:        7D, 4C, KS all trail;
        #   floor 4H:           7D takes 4H (a sweep, or a plain match), 4C takes 4H, KS trails;
        #   floor 3S 4H QS:     7D takes (all three | 3+4), 4C takes 4H, KS trails.
        assert perft(state, 2) == 9


def test_perft_three_players_empty_floor() -> None:
    rules = make_rules("egyptian", 3)
    state = position(rules, "", ["AS 2S", "3S 4S", "5S 6S"])
    # Seat 0 trails AS or 2S; seat 1's 3S and 4S capture nothing from a lone A or 2, so
    # they trail too; seat 2 then has two moves on each of the four floors (A+3: both
    # trail; A+4: 5 takes 4+A; 2+3: 5 takes 2+3; 2+4: 6 takes 2+4): 2 * 2 * 2 leaves.
    assert perft(state, 3) == 8
    after = apply(apply(state, parse_card("AS")), parse_card("4S"))
    # Floor AS 4S: 5S takes 4+A, 6S trails.
    assert sorted(move_text(m) for m in legal_moves(after)) == ["5S:AS+4S", "6S"]


def test_legal_moves_agree_with_the_capture_table() -> None:
    rng = random.Random(11)
    for variant in ("egyptian", "lebanese", "jawaker", "classic", "six-card"):
        rules = make_rules(variant)
        table = captures_for(rules)
        for _ in range(100):
            cards = rng.sample(range(52), rng.randint(4, 12))
            hand, floor = cards[:4], cards[4:]
            state = position(rules, " ".join(CARD_NAMES[c] for c in floor),
                             [" ".join(CARD_NAMES[c] for c in hand), ""])
            expected = []
            for card in sorted(hand):
                options = table.options(card, state.floor)
                expected += [card | captured << 6 for captured in options] or [card]
            assert sorted(legal_moves(state)) == sorted(expected)


# Brute-force cross-check of numeral captures


@cache
def splits_into_groups(values: tuple[int, ...], total: int) -> bool:
    """Whether the values (largest first) split into disjoint groups each summing to total."""
    if not values:
        return True
    first, rest = values[0], values[1:]
    if first > total:
        return False
    need = total - first
    if need == 0:
        return splits_into_groups(rest, total)
    for size in range(1, len(rest) + 1):
        for picked in combinations(range(len(rest)), size):
            if sum(rest[i] for i in picked) == need:
                left = tuple(v for i, v in enumerate(rest) if i not in picked)
                if splits_into_groups(left, total):
                    return True
    return False


def naive_options(value: int, floor: int) -> set[int]:
    """Every largest subset of the floor's numerals that splits into groups of ``value``."""
    numerals = [card for card in iter_cards(floor) if card < 40]
    best, found = 0, set()
    for chosen_bits in range(1, 1 << len(numerals)):
        chosen = [card for i, card in enumerate(numerals) if chosen_bits >> i & 1]
        if len(chosen) < best:
            continue
        values = tuple(sorted(((card >> 2) + 1 for card in chosen), reverse=True))
        if sum(values) % value or not splits_into_groups(values, value):
            continue
        mask = sum(1 << card for card in chosen)
        if len(chosen) > best:
            best, found = len(chosen), {mask}
        else:
            found.add(mask)
    return found


def test_numeral_options_match_a_brute_force_search() -> None:
    rng = random.Random(20240601)
    table = table_of("lebanese")
    seven_small = table_of("egyptian")
    several = 0
    for _ in range(2000):
        card = rng.randrange(40)
        pool = [c for c in range(52) if c != card]
        floor_cards = rng.sample(pool, rng.randint(0, 10))
        floor = sum(1 << c for c in floor_cards)
        expected = naive_options((card >> 2) + 1, floor)
        assert set(table.options(card, floor)) == expected, (CARD_NAMES[card], floor_cards)
        several += len(expected) > 1
        # The 7♦ under sweep_small over 10 pips is exactly an ordinary 7.
        if pip_total(floor) > 10:
            options = set(seven_small.options(parse_card("7D"), floor))
            assert options == naive_options(7, floor)
    assert several > 0


def test_numeral_options_match_a_brute_force_search_on_small_cards() -> None:
    # Floors of aces to sixes, where sums abound, for every value of played card.
    rng = random.Random(7)
    table = table_of("lebanese")
    several = 0
    for _ in range(250):
        floor_cards = rng.sample(range(24), rng.randint(0, 10))
        floor = sum(1 << c for c in floor_cards)
        for card in range(3, 40, 4):  # the clubs, A..10
            if floor >> card & 1:
                continue
            expected = naive_options((card >> 2) + 1, floor)
            assert set(table.options(card, floor)) == expected, (CARD_NAMES[card], floor_cards)
            several += len(expected) > 1
    assert several > 50
