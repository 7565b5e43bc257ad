"""One deal: dealing, batches, turns, plays, the end of the deal and its score."""

import random

import pytest

from basra.cards import ALL_CARDS, CARD_NAMES, CardSet, parse_card, parse_cards
from basra.position import parse_position, rules_text
from basra.rules import PRESETS, Rules, make_rules
from basra.state import (
    AmbiguousMoveError,
    DealState,
    IllegalMoveError,
    InvalidMoveError,
    Layout,
    LayoutError,
    apply,
    check_layout,
    deal_layout,
    deal_score,
    legal_moves,
    make_move,
    move_captured,
    move_card,
    move_text,
    new_deal,
    parse_move,
    play,
    random_playout,
    start_deal,
)


def all_rules() -> list[Rules]:
    found = [make_rules(name, players) for name, entry in PRESETS.items()
             for players in entry.players]
    found.append(make_rules("classic", 4, {"partnership": True}))
    return found


def mask(text: str) -> int:
    return CardSet.parse(text).mask


def position(
    rules: Rules, floor: str, hands: list[str], *, turn: int = 0, stock: str = "",
    piles: list[str] | None = None, last: int = -1,
) -> DealState:
    """A position through the text form: cards named nowhere go to the last side's pile."""
    piles = list(piles or ["-"] * rules.sides)
    named = parse_cards(f"{floor} {' '.join(hands)} {stock} {' '.join(piles).replace('-', '')}")
    rest = " ".join(CARD_NAMES[c] for c in range(52) if c not in named)
    if rest:
        piles[-1] = rest if piles[-1] == "-" else f"{piles[-1]} {rest}"
    dealer = (turn - 1) % rules.players
    return parse_position(
        f"{rules_text(rules)} | dealer {dealer} | turn {turn} | floor {floor or '-'}"
        f" | hands {' / '.join(h or '-' for h in hands)} | stock {stock or '-'}"
        f" | piles {' / '.join(piles)} | basras {' '.join(['0'] * rules.sides)}"
        f" | last {last if last >= 0 else '-'}"
    )


def play_text(state: DealState, text: str) -> DealState:
    return play(state, parse_move(state, text))


class DeckOrder(random.Random):
    """A generator that makes ``deal_layout`` see the deck in a chosen order.

    ``deal_layout`` shuffles by sorting the cards by one ``random()`` key each, drawn card
    by card; it buries with ``randint``, answered here from ``inserts`` (None: the end).
    """

    def __init__(self, deck: list[int], inserts: list[int | None] | None = None) -> None:
        super().__init__(0)
        self.keys = iter([deck.index(card) / 52 for card in range(52)])
        self.inserts = list(inserts or [])

    def random(self) -> float:
        return next(self.keys)

    def randint(self, a: int, b: int) -> int:
        chosen = self.inserts.pop(0) if self.inserts else None
        return b if chosen is None else chosen


# Dealing


@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: rules_text(r))
def test_deal_sizes(rules: Rules) -> None:
    n, size = rules.players, rules.hand_size
    for dealer in range(n):
        layout = deal_layout(rules, dealer, random.Random(dealer))
        assert layout.dealer == dealer
        assert [len(hand) for hand in layout.hands] == [size] * n
        assert len(layout.floor) == 4
        assert len(layout.stock) == 52 - 4 - n * size
        cards = [*layout.floor, *layout.stock, *(c for hand in layout.hands for c in hand)]
        assert sorted(cards) == list(range(52))
        check_layout(rules, layout)
        state = start_deal(rules, layout)
        assert [hand.bit_count() for hand in state.hands] == [size] * n
        assert state.floor.bit_count() == 4
        assert state.stock_count == 52 - 4 - n * size
        assert len(state.batches) == (48 - n * size) // (n * size)
        assert state.to_play == (dealer + 1) % n
        assert state.first == (dealer + 1) % n
        assert not state.is_over


def test_batches_per_preset() -> None:
    # Spec section 8: six-card deals four 6-card batches to 2 players, two to 4 players.
    assert len(new_deal(make_rules("six-card", 2), 0, random.Random(1)).batches) == 3
    assert len(new_deal(make_rules("six-card", 4), 0, random.Random(1)).batches) == 1
    assert len(new_deal(make_rules("egyptian", 2), 0, random.Random(1)).batches) == 5
    assert len(new_deal(make_rules("egyptian", 3), 0, random.Random(1)).batches) == 3
    assert len(new_deal(make_rules("egyptian", 4), 0, random.Random(1)).batches) == 2
    assert len(new_deal(make_rules("three-player"), 0, random.Random(1)).batches) == 1


@pytest.mark.parametrize("name", [n for n in PRESETS if PRESETS[n].rules.bury])
def test_the_initial_floor_never_holds_a_bury_card(name: str) -> None:
    rules = make_rules(name)
    assert rules.bury_mask
    buried_somewhere = 0
    for seed in range(400):
        layout = deal_layout(rules, seed % rules.players, random.Random(seed))
        floor = sum(1 << card for card in layout.floor)
        assert not floor & rules.bury_mask, (seed, layout.floor)
        assert sorted([*layout.floor, *layout.stock, *sum(layout.hands, ())]) == list(range(52))
        buried_somewhere |= sum(1 << card for card in layout.stock) & rules.bury_mask
    # The bury cards do turn up in the stock (the deal is not avoiding them by luck).
    assert buried_somewhere == rules.bury_mask


def test_without_burying_a_jack_may_start_on_the_floor() -> None:
    rules = make_rules("six-card")
    jacks = mask("JS JH JD JC")
    assert any(
        sum(1 << c for c in deal_layout(rules, 0, random.Random(seed)).floor) & jacks
        for seed in range(200)
    )


def test_the_first_batch_goes_to_the_seat_after_the_dealer() -> None:
    deck = list(range(52))  # AS AH AD AC 2S ... KC, unshuffled
    rules = make_rules("egyptian", 2)
    layout = deal_layout(rules, 1, DeckOrder(deck))
    assert layout.hands == ((0, 1, 2, 3), (4, 5, 6, 7))
    assert layout.floor == (8, 9, 10, 11)
    assert layout.stock == tuple(range(12, 52))
    layout = deal_layout(rules, 0, DeckOrder(deck))
    assert layout.hands == ((4, 5, 6, 7), (0, 1, 2, 3))

    rules = make_rules("egyptian", 3)
    layout = deal_layout(rules, 0, DeckOrder(deck))
    # Seat 1 first, then seat 2, then the dealer.
    assert layout.hands == ((8, 9, 10, 11), (0, 1, 2, 3), (4, 5, 6, 7))
    assert layout.floor == (12, 13, 14, 15)


def test_burying_returns_the_card_to_the_stock_and_refills_from_the_top() -> None:
    rules = make_rules("egyptian", 2)
    js, seven_d = parse_card("JS"), parse_card("7D")
    floor = [js, parse_card("5S"), seven_d, parse_card("6S")]
    hands = list(range(8))
    stock = [c for c in range(52) if c not in floor and c not in hands]
    deck = hands + floor + stock
    layout = deal_layout(rules, 1, DeckOrder(deck))  # every buried card goes to the end
    assert layout.floor == (stock[0], parse_card("5S"), stock[1], parse_card("6S"))
    assert layout.stock == (*stock[2:], js, seven_d)
    assert layout.buried == (js, seven_d)
    # Repeatedly: the Jack goes back on top and is drawn again for the 7♦'s place, so it
    # is buried twice, and listed twice.
    layout = deal_layout(rules, 1, DeckOrder(deck, [0]))
    assert layout.floor == (stock[0], parse_card("5S"), stock[1], parse_card("6S"))
    assert layout.stock == (*stock[2:], seven_d, js)
    assert layout.buried == (js, seven_d, js)


def test_a_replacement_that_is_a_bury_card_is_buried_too() -> None:
    rules = make_rules("egyptian", 2)
    js, jh, seven_d = parse_card("JS"), parse_card("JH"), parse_card("7D")
    floor = [parse_card("5S"), js, parse_card("6S"), parse_card("8S")]
    hands = list(range(8))
    stock = [jh, seven_d, *(c for c in range(52) if c not in (*floor, *hands, jh, seven_d))]
    layout = deal_layout(rules, 0, DeckOrder(hands + floor + stock))
    assert layout.buried == (js, jh, seven_d)
    assert layout.floor == (parse_card("5S"), stock[2], parse_card("6S"), parse_card("8S"))
    assert layout.stock[-3:] == (js, jh, seven_d)
    check_layout(rules, layout)
    assert deal_layout(rules, 0, DeckOrder(list(range(52)))).buried == ()


@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: rules_text(r))
def test_the_buried_cards_are_bury_cards_in_the_stock(rules: Rules) -> None:
    counts = set()
    for seed in range(300):
        layout = deal_layout(rules, seed % rules.players, random.Random(seed))
        check_layout(rules, layout)
        assert all(rules.bury_mask >> card & 1 for card in layout.buried)
        assert set(layout.buried) <= set(layout.stock)
        counts.add(len(layout.buried))
    if rules.bury:
        assert {0, 1, 2} <= counts
    else:
        assert counts == {0}


# Batches and turns


def test_later_batches_are_consecutive_stock_cards_from_the_first_player() -> None:
    rules = make_rules("egyptian", 3, {"bury": "none"})  # a hand-made floor may hold anything
    deck = random.Random(5).sample(range(52), 52)
    dealer = 2  # seat 0 plays first, then 1, then 2
    layout = Layout(dealer, tuple(deck[12:16]),
                    (tuple(deck[0:4]), tuple(deck[4:8]), tuple(deck[8:12])), tuple(deck[16:]))
    check_layout(rules, layout)
    state = start_deal(rules, layout)
    stock = deck[16:]
    expected = [
        tuple(sum(1 << c for c in stock[number * 12 + seat * 4:number * 12 + seat * 4 + 4])
              for seat in range(3))
        for number in range(3)
    ]
    assert list(state.batches) == expected
    # Playing the deal hands them out in that order, each when every hand is empty.
    rng = random.Random(2)
    dealt = []
    while not state.is_over:
        before = len(state.batches)
        state = apply(state, rng.choice(legal_moves(state)))
        if len(state.batches) < before:
            dealt.append(state.hands)
    assert dealt == expected


def test_batches_start_with_the_seat_after_the_dealer() -> None:
    rules = make_rules("egyptian", 4, {"bury": "none"})
    deck = list(range(52))
    layout = Layout(1, tuple(deck[16:20]),
                    (tuple(deck[12:16]), tuple(deck[0:4]), tuple(deck[4:8]), tuple(deck[8:12])),
                    tuple(deck[20:]))
    check_layout(rules, layout)
    state = start_deal(rules, layout)
    # Dealer 1: seats 2, 3, 0, 1 in that order take 4 consecutive cards each.
    first_later = state.batches[0]
    assert first_later[2] == mask("6S 6H 6D 6C")
    assert first_later[3] == mask("7S 7H 7D 7C")
    assert first_later[0] == mask("8S 8H 8D 8C")
    assert first_later[1] == mask("9S 9H 9D 9C")
    assert state.batches[1][2] == mask("10S 10H 10D 10C")
    assert state.batches[1][1] == mask("KS KH KD KC")


def test_turn_order_and_new_batches() -> None:
    for rules in (make_rules("egyptian", 2), make_rules("egyptian", 3),
                  make_rules("egyptian", 4), make_rules("six-card", 4),
                  make_rules("three-player")):
        n = rules.players
        for dealer in range(n):
            state = new_deal(rules, dealer, random.Random(dealer + 10 * n))
            first = (dealer + 1) % n
            rng = random.Random(dealer)
            turns = []
            rounds = 0
            while not state.is_over:
                turns.append(state.to_play)
                batches_before = len(state.batches)
                state = apply(state, rng.choice(legal_moves(state)))
                if len(state.batches) < batches_before:
                    rounds += 1
                    # A new batch: every seat holds hand_size cards, the first player plays.
                    assert [h.bit_count() for h in state.hands] == [rules.hand_size] * n
                    assert state.to_play == first
            assert turns == [(first + i) % n for i in range(52 - 4)]
            assert rounds == 48 // (n * rules.hand_size) - 1


# Plays


def test_a_capture_moves_cards_to_the_side_pile() -> None:
    rules = make_rules("egyptian")
    state = position(rules, "7S 4H 3C 5D", ["7H 2C", "9S 8S"])
    after = play_text(state, "7H")
    assert after.floor == mask("5D")
    assert after.piles[0] == mask("7H 7S 4H 3C")
    assert after.hands == (mask("2C"), mask("9S 8S"))
    assert after.to_play == 1
    assert after.last_capturer == 0
    assert after.basras == (0, 0)


def test_a_trail_adds_the_card_to_the_floor() -> None:
    rules = make_rules("egyptian")
    state = position(rules, "7S 4H 3C 5D", ["7H 2C", "9S 8S"])
    after = play_text(state, "2C")
    assert after.floor == mask("7S 4H 3C 5D 2C")
    assert after.piles == state.piles
    assert after.last_capturer == -1


def test_play_equals_apply_for_every_legal_move() -> None:
    rng = random.Random(4)
    for rules in all_rules():
        state = new_deal(rules, 0, rng)
        while not state.is_over:
            moves = legal_moves(state)
            assert len(set(moves)) == len(moves)
            for move in moves:
                assert play(state, move) == apply(state, move)
            state = apply(state, rng.choice(moves))


def test_legal_moves_are_card_by_card_lowest_first() -> None:
    state = position(make_rules("lebanese"), "AS AH 2D 3C 4S 5H 6D KC", ["QD KS 8H 7C", "2S"])
    cards = [move_card(m) for m in legal_moves(state)]
    assert cards == sorted(cards)


def test_moves() -> None:
    move = make_move(parse_card("7H"), mask("7S 4H 3C"))
    assert move_card(move) == parse_card("7H")
    assert move_captured(move) == mask("7S 4H 3C")
    assert move_text(move) == "7H:3C+4H+7S"
    assert move_text(make_move(parse_card("10D"))) == "10D"


def test_random_playout_equals_repeated_apply() -> None:
    for rules in all_rules():
        start = new_deal(rules, 1 % rules.players, random.Random(8))
        rng = random.Random(99)
        state = start
        while not state.is_over:
            moves = legal_moves(state)
            state = apply(state, moves[int(rng.random() * len(moves))])
        assert random_playout(start, random.Random(99)) == state


# Illegal and unreadable moves


def test_illegal_move_messages() -> None:
    state = position(make_rules("egyptian"), "AS 3S 3H 7S", ["2H 2D 6H 7H", "4C 10H 10D 10C"])
    where = "(seat 0 to play, hand 2H 2D 6H 7H, floor AS 3S 3H 7S)"
    with pytest.raises(IllegalMoveError) as caught:
        play(state, parse_card("5C"))
    assert str(caught.value) == f"illegal move 5C: 5C is not in the hand {where}"
    with pytest.raises(IllegalMoveError) as caught:
        play(state, parse_card("7H"))
    assert str(caught.value) == f"illegal move 7H: 7H must capture {where}"
    with pytest.raises(IllegalMoveError) as caught:
        play(state, make_move(parse_card("7H"), mask("7S")))
    assert str(caught.value) == f"illegal move 7H:7S: 7H cannot capture 7S {where}"
    with pytest.raises(IllegalMoveError, match="cannot capture 4C"):
        play(state, make_move(parse_card("6H"), mask("4C")))
    for bad in (-1, 52, 63, 1 << 60, 1.5):
        with pytest.raises(IllegalMoveError, match="not a move"):
            play(state, bad)  # type: ignore[arg-type]


def test_no_play_after_the_deal_is_over() -> None:
    state = position(make_rules("egyptian"), "5S", ["9C", ""], turn=0)
    state = play_text(state, "9C")
    assert state.is_over
    assert legal_moves(state) == []
    with pytest.raises(IllegalMoveError, match="the deal is over"):
        play(state, parse_card("9C"))


def test_parse_move() -> None:
    state = position(make_rules("egyptian"), "AS 3S 3H 7S", ["2H 2D 6H 7H", "4C 10H 10D 10C"])
    assert parse_move(state, "2H") == parse_card("2H")
    assert parse_move(state, "7H") == make_move(parse_card("7H"), mask("AS 3S 3H 7S"))
    assert parse_move(state, "6h") == make_move(parse_card("6H"), mask("3S 3H"))
    assert parse_move(state, "7h:7s+3H+as+3s") == make_move(parse_card("7H"), mask("AS 3S 3H 7S"))
    assert parse_move(state, " 2D: ") == parse_card("2D")
    assert parse_move(state, "2D:-") == parse_card("2D")
    with pytest.raises(IllegalMoveError, match="7H must capture"):
        parse_move(state, "7H:")
    with pytest.raises(IllegalMoveError, match="7H cannot capture 7S"):
        parse_move(state, "7H:7S")
    with pytest.raises(IllegalMoveError, match="5C is not in the hand"):
        parse_move(state, "5C")


@pytest.mark.parametrize("text", ["ZZ", "", "7H:ZZ", "7H:7S+7S", "-1"])
def test_parse_move_rejects_unreadable_text(text: str) -> None:
    state = position(make_rules("egyptian"), "AS 3S 3H 7S", ["2H 2D 6H 7H", "4C 10H 10D 10C"])
    with pytest.raises(InvalidMoveError) as caught:
        parse_move(state, text)
    assert repr(text) in str(caught.value)


def test_parse_move_ambiguous_lists_the_choices() -> None:
    state = position(make_rules("lebanese"), "AS AH AD 3C 3D", ["4H 2C", "KS"])
    with pytest.raises(AmbiguousMoveError) as caught:
        parse_move(state, "4H")
    message = str(caught.value)
    assert message.startswith("4H can capture in several ways: ")
    for choice in ("4H:AS+AH+3D+3C", "4H:AS+AD+3D+3C", "4H:AH+AD+3D+3C"):
        assert choice in message
    assert parse_move(state, "4H:AS+3C+AH+3D") == make_move(parse_card("4H"), mask("AS AH 3C 3D"))
    assert issubclass(AmbiguousMoveError, ValueError)


def test_parse_move_with_optional_capture_reads_a_bare_card_as_its_trail() -> None:
    rules = make_rules("egyptian", overrides={"optional_capture": True})
    state = position(rules, "5S 5H", ["5D 10C", "2C"])
    assert parse_move(state, "5D") == parse_card("5D")
    assert parse_move(state, "5D:5S+5H") == make_move(parse_card("5D"), mask("5S 5H"))
    assert play_text(state, "10C").floor == mask("5S 5H 10C")


# The end of a deal


def test_last_play_basra_option() -> None:
    for allowed in (True, False):
        rules = make_rules("egyptian", overrides={"last_play_basra": allowed})
        # Seat 1 deals; seat 0 trails the 4H, then seat 1's 9C clears 5 + 4: the last play.
        state = position(rules, "5S", ["4H", "9C"])
        end = play_text(play_text(state, "4H"), "9C")
        assert end.is_over
        assert end.basras == ((0, 1) if allowed else (0, 0))
        assert end.piles[1] & mask("5S 4H 9C") == mask("5S 4H 9C")


def test_last_play_basra_false_only_concerns_the_very_last_play() -> None:
    rules = make_rules("egyptian", overrides={"last_play_basra": False})
    # The last play of a batch that is not the deal's last still scores.
    stock = "2S 2H 2D 8C 3S 3H 3D 9D"
    state = position(rules, "5S", ["4H", "9C"], stock=stock)
    after = play_text(play_text(state, "4H"), "9C")
    assert not after.is_over
    assert after.basras == (0, 1)
    assert after.hands == (mask("2S 2H 2D 8C"), mask("3S 3H 3D 9D"))
    assert after.to_play == 0
    # The first play of the final round scores too.
    state = position(rules, "5S", ["5H", "9C"])
    after = play_text(state, "5H")
    assert after.basras == (1, 0)


def test_leftover_goes_to_the_last_capturer_and_is_no_basra() -> None:
    rules = make_rules("egyptian")
    state = position(rules, "5S 8D", ["5H", "9C"])
    state = play_text(state, "5H")  # takes the 5S; the 8D stays
    assert state.last_capturer == 0
    end = play_text(state, "9C")  # trails
    assert end.is_over
    assert end.floor == 0
    assert end.leftover == mask("8D 9C")
    assert end.piles[0] & mask("5S 5H 8D 9C") == mask("5S 5H 8D 9C")
    assert end.basras == (0, 0)
    assert end.last_capturer == 0


def test_leftover_that_clears_the_floor_is_still_no_basra() -> None:
    # The last capturer picks up the whole floor (one card): never a basra (spec section 2).
    rules = make_rules("egyptian")
    state = position(rules, "5S", ["5H", "KD"])
    end = play_text(play_text(state, "5H"), "KD")
    assert end.leftover == mask("KD")
    assert end.basras == (1, 0)  # the 5H on the lone 5S only


def test_leftover_goes_to_the_side_of_the_last_capturer() -> None:
    rules = make_rules("egyptian", 4)
    state = position(rules, "5S 8D", ["KS", "6H", "5H", "9C"])
    for text in ("KS", "6H", "5H", "9C"):
        state = play_text(state, text)
    # Seat 2 captured last; its side is side 0.
    assert state.is_over
    assert state.last_capturer == 2
    assert state.leftover == mask("8D KS 6H 9C")
    assert state.piles[0] & mask("5S 5H 8D KS 6H 9C") == mask("5S 5H 8D KS 6H 9C")


def test_a_deal_without_captures_leaves_the_floor_uncaptured() -> None:
    # Only optional capture allows it (a Jack on a non-empty floor must capture otherwise);
    # matches-only play keeps the move generation on a 52-card floor quick.
    rules = make_rules("egyptian", overrides={"optional_capture": True, "sums": False})
    state = new_deal(rules, 0, random.Random(3))
    while not state.is_over:
        trails = [m for m in legal_moves(state) if not move_captured(m)]
        state = play(state, trails[0])
    assert state.floor == ALL_CARDS
    assert state.piles == (0, 0)
    assert state.leftover == 0
    assert state.last_capturer == -1
    score = deal_score(state)
    assert score.cards == (0, 0)
    assert score.total == (0, 0)


def test_partnership_piles_and_basras_are_pooled() -> None:
    rules = make_rules("egyptian", 4)
    state = position(rules, "5S", ["5H 2C", "KS 2D", "9C 2H", "4D 2S"])
    state = play_text(state, "5H")  # seat 0 clears: a basra for side 0
    state = play_text(state, "KS")  # seat 1 trails
    state = play_text(state, "9C")  # seat 2 trails
    state = play_text(state, "4D")  # seat 3 trails
    state = play_text(state, "2C")  # seat 0 trails
    state = play_text(state, "2D")  # seat 1: 2 on 2C
    state = play_text(state, "2H")  # seat 2 trails
    state = play_text(state, "2S")  # seat 3: 2 on 2H
    assert state.piles[0] & mask("5S 5H") == mask("5S 5H")
    assert state.piles[1] & mask("2C 2D 2H 2S") == mask("2C 2D 2H 2S")
    assert len(state.piles) == 2
    assert state.basras == (1, 0)


# Scoring


def finished(rules: Rules, piles: list[int], basras: list[int]) -> DealState:
    """A finished deal with those piles and basras; any other card stays on the floor."""
    texts = [" ".join(CARD_NAMES[c] for c in range(52) if p >> c & 1) or "-" for p in piles]
    floor = ALL_CARDS & ~sum(piles)
    return parse_position(
        f"{rules_text(rules)} | dealer 0 | turn 1 | floor "
        f"{' '.join(CARD_NAMES[c] for c in range(52) if floor >> c & 1) or '-'}"
        f" | hands {' / '.join(['-'] * rules.players)} | stock - | piles {' / '.join(texts)}"
        f" | basras {' '.join(map(str, basras))} | last -"
    )


FIRST_27 = (1 << 27) - 1  # aces, twos (2C worth 2), threes to sixes, 7S 7H 7D
LAST_25 = ALL_CARDS & ~FIRST_27  # 7C to KC: 10D worth 3, four Jacks
FIRST_26 = (1 << 26) - 1
LAST_26 = ALL_CARDS & ~FIRST_26


def test_deal_score_card_basra_and_majority_points() -> None:
    state = finished(make_rules("egyptian"), [FIRST_27, LAST_25], [1, 2])
    score = deal_score(state)
    assert score.cards == (27, 25)
    assert score.basras == (1, 2)
    assert score.card_points == (4 + 2, 3 + 4)
    assert score.basra_points == (10, 20)
    assert score.majority == (30, 0)
    assert score.total == (6 + 10 + 30, 7 + 20)
    assert score.carry_in == 0
    assert score.carry_out == 0


def test_deal_score_under_other_presets() -> None:
    iraqi = deal_score(finished(make_rules("iraqi"), [FIRST_27, LAST_25], [1, 0]))
    assert iraqi.card_points == (6, 6 + 4)
    assert iraqi.total == (6 + 5 + 30, 10)
    classic = deal_score(finished(make_rules("classic"), [FIRST_27, LAST_25], [0, 0]))
    # 7D (card 26) is in the first 27 and worth 3; the 10D is worth nothing.
    assert classic.card_points == (4 + 2 + 3, 4)
    three = deal_score(finished(make_rules("three-player"), [mask("AS 2C"), mask("10D JS"),
                                                              ALL_CARDS & ~mask("AS 2C 10D JS")],
                                [1, 0, 2]))
    assert three.card_points == (3, 4, 3 + 3)
    assert three.majority == (0, 0, 3)
    assert three.total == (3 + 5, 4, 6 + 10 + 3)


def test_majority_is_strict() -> None:
    score = deal_score(finished(make_rules("egyptian"), [FIRST_26, LAST_26], [0, 0]))
    assert score.cards == (26, 26)
    assert score.majority == (0, 0)
    assert score.carry_out == 0
    three = make_rules("classic", 3)
    tied = deal_score(finished(three, [(1 << 20) - 1, ((1 << 40) - 1) ^ ((1 << 20) - 1),
                                       ALL_CARDS ^ ((1 << 40) - 1)], [0, 0, 0]))
    assert tied.cards == (20, 20, 12)
    assert tied.majority == (0, 0, 0)
    assert tied.carry_out == 30
    alone = deal_score(finished(three, [(1 << 20) - 1, ((1 << 36) - 1) ^ ((1 << 20) - 1),
                                        ALL_CARDS ^ ((1 << 36) - 1)], [0, 0, 0]))
    assert alone.cards == (20, 16, 16)
    assert alone.majority == (30, 0, 0)


def test_majority_tie_none_drops_the_prize() -> None:
    state = finished(make_rules("egyptian"), [FIRST_26, LAST_26], [0, 0])
    assert deal_score(state).carry_out == 0
    assert deal_score(state).total == deal_score(state).card_points


def test_majority_tie_carry_accumulates() -> None:
    rules = make_rules("classic")
    tie = finished(rules, [FIRST_26, LAST_26], [0, 0])
    win = finished(rules, [FIRST_27, LAST_25], [0, 0])
    first = deal_score(tie)
    assert first.majority == (0, 0)
    assert (first.carry_in, first.carry_out) == (0, 30)
    second = deal_score(tie, first.carry_out)
    assert (second.carry_in, second.carry_out) == (30, 60)
    assert second.majority == (0, 0)
    third = deal_score(win, second.carry_out)
    assert third.majority == (90, 0)
    assert (third.carry_in, third.carry_out) == (60, 0)
    assert third.total[0] == third.card_points[0] + 90


def test_partnership_score_is_per_side() -> None:
    rules = make_rules("egyptian", 4)
    score = deal_score(finished(rules, [FIRST_27, LAST_25], [2, 1]))
    assert len(score.total) == 2
    assert score.total == (6 + 20 + 30, 7 + 10)


def test_card_points_over_sides_add_up_after_random_deals() -> None:
    rng = random.Random(12)
    for rules in all_rules():
        state = random_playout(new_deal(rules, 0, rng), rng)
        score = deal_score(state)
        captured = 0
        for pile in state.piles:
            captured |= pile
        assert sum(score.card_points) == rules.card_points_of(captured)
        assert sum(score.cards) + state.floor.bit_count() == 52
        if rules.family == "pisti":  # issue 41: a pile game scores plain and Jack piştis
            assert tuple(map(sum, score.pistis)) == state.basras
            assert score.basra_points == tuple(
                plain * rules.pisti_points + jack * rules.jack_pisti_points
                for plain, jack in score.pistis)
        else:
            assert score.basra_points == tuple(b * rules.basra_points for b in state.basras)


# Layouts


def test_check_layout_refusals() -> None:
    rules = make_rules("egyptian")
    good = deal_layout(rules, 0, random.Random(1))
    check_layout(rules, good)
    with pytest.raises(LayoutError, match="dealer must be a seat from 0 to 1"):
        check_layout(rules, good._replace(dealer=2))
    with pytest.raises(LayoutError, match="the floor has 3 cards, expected 4"):
        check_layout(rules, good._replace(floor=good.floor[:3]))
    with pytest.raises(LayoutError, match="seat 1 was dealt 3 cards, expected 4"):
        check_layout(rules, good._replace(hands=(good.hands[0], good.hands[1][:3])))
    with pytest.raises(LayoutError, match=f"card {CARD_NAMES[good.floor[0]]} is dealt twice"):
        check_layout(rules, good._replace(stock=(good.floor[0], *good.stock[1:])))
    deck = list(range(52))
    jack = Layout(1, (8, 9, 10, parse_card("JS")), (tuple(deck[0:4]), tuple(deck[4:8])),
                  tuple(c for c in deck[11:] if c != parse_card("JS")))
    with pytest.raises(LayoutError, match="the initial floor holds JS, which must be buried"):
        check_layout(rules, jack)
    check_layout(make_rules("egyptian", overrides={"bury": "none"}), jack)


def test_check_layout_and_the_buried_cards() -> None:
    rules = make_rules("egyptian", 2)
    js, jh = parse_card("JS"), parse_card("JH")
    floor = [js, parse_card("5S"), parse_card("6S"), parse_card("8S")]
    hands = [jh, *range(1, 8)]
    stock = [c for c in range(52) if c not in floor and c not in hands]
    layout = deal_layout(rules, 0, DeckOrder(hands + floor + stock))
    assert layout.buried == (js,) and layout.hands[1][0] == jh
    check_layout(rules, layout)
    check_layout(rules, layout._replace(buried=()))  # unknown, as in an older record
    assert Layout(*layout[:4]) == layout._replace(buried=())
    # Which bury card came up cannot be checked, only that it could have.
    check_layout(rules, layout._replace(buried=(parse_card("7D"), parse_card("JD"))))
    with pytest.raises(LayoutError, match="5H is listed as buried, but these rules bury J 7D"):
        check_layout(rules, layout._replace(buried=(parse_card("5H"),)))
    with pytest.raises(LayoutError, match="JH is listed as buried, but it is not in the stock"):
        check_layout(rules, layout._replace(buried=(jh,)))
    with pytest.raises(LayoutError, match="a buried card is not a card: 52"):
        check_layout(rules, layout._replace(buried=(52,)))
    no_bury = make_rules("six-card")
    plain = deal_layout(no_bury, 0, random.Random(1))
    assert plain.buried == ()
    jack = next(c for c in plain.stock if CARD_NAMES[c].startswith("J"))
    with pytest.raises(LayoutError, match=f"{CARD_NAMES[jack]} is listed as buried, but these "
                                          "rules bury no cards"):
        check_layout(no_bury, plain._replace(buried=(jack,)))
