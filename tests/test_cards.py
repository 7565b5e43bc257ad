"""Cards, their text forms and CardSet (spec section 1)."""

import pytest

from basra.cards import (
    ALL_CARDS,
    CARD_NAMES,
    NUMERALS,
    SEVEN_OF_DIAMONDS,
    CardSet,
    InvalidCardError,
    card_long_name,
    card_name,
    cards_text,
    iter_cards,
    parse_card,
    parse_cards,
    rank_mask,
    rank_of,
    suit_of,
    value_of,
)

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]


def test_card_numbering_is_rank_times_four_plus_suit() -> None:
    for rank, rank_text in enumerate(RANKS):
        for suit, suit_text in enumerate(SUITS):
            card = rank * 4 + suit
            assert card_name(card) == rank_text + suit_text
            assert rank_of(card) == rank
            assert suit_of(card) == suit


def test_every_card_round_trips_through_its_name() -> None:
    names = [card_name(card) for card in range(52)]
    assert len(set(names)) == 52
    for card in range(52):
        assert parse_card(card_name(card)) == card
    assert names == list(CARD_NAMES)


def test_canonical_names_are_ascii() -> None:
    assert card_name(0) == "AS"
    assert card_name(38) == "10D"
    assert card_name(45) == "QH"
    assert card_name(SEVEN_OF_DIAMONDS) == "7D"
    assert all(name.isascii() for name in CARD_NAMES)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("TD", "10D"),
        ("td", "10D"),
        ("Ts", "10S"),
        ("1S", "AS"),
        ("1c", "AC"),
        ("as", "AS"),
        ("qh", "QH"),
        ("10h", "10H"),
        ("kC", "KC"),
        ("7♦", "7D"),
        ("A♠", "AS"),
        ("10♥", "10H"),
        ("J♣", "JC"),
        ("T♦", "10D"),
        ("q♠", "QS"),
        ("  7D ", "7D"),
    ],
)
def test_aliases_parse_to_the_canonical_card(text: str, name: str) -> None:
    assert card_name(parse_card(text)) == name


def test_every_alias_of_every_card() -> None:
    symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    for card in range(52):
        rank, suit = RANKS[card >> 2], SUITS[card & 3]
        rank_forms = {rank, rank.lower()}
        if rank == "10":
            rank_forms |= {"T", "t"}
        if rank == "A":
            rank_forms |= {"1"}
        for rank_form in rank_forms:
            for suit_form in (suit, suit.lower(), symbols[suit]):
                assert parse_card(rank_form + suit_form) == card


@pytest.mark.parametrize(
    "text", ["", " ", "7", "10", "7X", "ZS", "11S", "0S", "7DD", "1 0D", "AS,", "S7", "♠A"]
)
def test_bad_card_text_raises_and_quotes_the_text(text: str) -> None:
    with pytest.raises(InvalidCardError) as caught:
        parse_card(text)
    assert repr(text) in str(caught.value)


def test_invalid_card_error_is_a_value_error() -> None:
    assert issubclass(InvalidCardError, ValueError)


def test_values_ranks_and_suits() -> None:
    assert [value_of(rank * 4) for rank in range(13)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0]
    assert value_of(parse_card("10C")) == 10
    assert value_of(parse_card("AH")) == 1
    assert suit_of(parse_card("7D")) == 2
    assert rank_of(parse_card("KC")) == 12


def test_masks() -> None:
    assert ALL_CARDS.bit_count() == 52
    assert sum(1 << card for card in range(52) if value_of(card)) == NUMERALS
    assert list(iter_cards(rank_mask(10))) == [parse_card(t) for t in ("JS", "JH", "JD", "JC")]
    assert list(iter_cards(0)) == []
    assert list(iter_cards(1 << 51 | 1 << 3 | 1)) == [0, 3, 51]


def test_long_names() -> None:
    assert card_long_name(parse_card("7D")) == "7 of diamonds"
    assert card_long_name(parse_card("QS")) == "queen of spades"
    assert card_long_name(parse_card("AC")) == "ace of clubs"
    assert card_long_name(parse_card("10H")) == "10 of hearts"


def test_parse_cards_keeps_order_and_accepts_commas_and_lists() -> None:
    assert parse_cards("7S, 4H 3c") == [24, 13, 11]
    assert parse_cards(["7s", "4H", "3C"]) == [24, 13, 11]
    assert parse_cards("KC,,AS") == [51, 0]
    assert parse_cards("") == []
    assert parse_cards("  ") == []


def test_parse_cards_rejects_duplicates_naming_the_card() -> None:
    with pytest.raises(InvalidCardError, match="7S is given twice"):
        parse_cards("7S 4H 7s")
    with pytest.raises(InvalidCardError, match="10D is given twice"):
        parse_cards(["TD", "10♦"])


def test_parse_cards_quotes_a_bad_word() -> None:
    with pytest.raises(InvalidCardError, match="'7X'"):
        parse_cards("7S 7X 3C")


def test_cards_text() -> None:
    assert cards_text(0) == "-"
    assert cards_text(1 << 24 | 1 << 13 | 1 << 11) == "3C 4H 7S"
    assert cards_text(ALL_CARDS).split() == list(CARD_NAMES)


def test_cardset_from_mask_iterable_and_text() -> None:
    floor = CardSet.parse("7S 4H 3C 5D")
    assert floor == CardSet([24, 13, 11, 18])
    assert floor == CardSet(1 << 24 | 1 << 13 | 1 << 11 | 1 << 18)
    assert floor.mask == 1 << 24 | 1 << 13 | 1 << 11 | 1 << 18
    assert len(floor) == 4
    assert list(floor) == [11, 13, 18, 24]
    assert floor.names() == ["3C", "4H", "5D", "7S"]
    assert str(floor) == "3C 4H 5D 7S"
    assert 24 in floor
    assert 25 not in floor
    assert "7S" not in floor
    assert 52 not in floor
    assert -1 not in floor


def test_cardset_empty() -> None:
    empty = CardSet()
    assert not empty
    assert len(empty) == 0
    assert str(empty) == "-"
    assert list(empty) == []
    assert CardSet.parse("") == empty
    assert bool(CardSet.parse("AS"))


def test_cardset_repr_is_valid_python() -> None:
    for cards in (CardSet.parse("7S 4H 3C"), CardSet(), CardSet(ALL_CARDS)):
        assert eval(repr(cards)) == cards
    assert repr(CardSet.parse("7S 4H 3C")) == "CardSet.parse('3C 4H 7S')"


def test_cardset_operators() -> None:
    a = CardSet.parse("7S 4H 3C")
    b = CardSet.parse("4H 5D")
    assert a | b == CardSet.parse("7S 4H 3C 5D")
    assert a & b == CardSet.parse("4H")
    assert a - b == CardSet.parse("7S 3C")
    assert b - a == CardSet.parse("5D")
    assert a != b
    assert (a == 5) is False


def test_cardset_is_hashable_and_immutable() -> None:
    a = CardSet.parse("7S 4H")
    assert hash(a) == hash(CardSet([13, 24]))
    assert len({a, CardSet([24, 13]), CardSet.parse("QS")}) == 2
    with pytest.raises(AttributeError):
        a.mask = 3  # type: ignore[misc]


@pytest.mark.parametrize("cards", [-1, 1 << 52, [52], [-1], [3, 60]])
def test_cardset_rejects_non_cards(cards: int | list[int]) -> None:
    with pytest.raises(ValueError):
        CardSet(cards)


def test_cardset_parse_rejects_duplicates() -> None:
    with pytest.raises(InvalidCardError):
        CardSet.parse("7S 7S")
