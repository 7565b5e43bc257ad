"""The expert in the pile games, Pişti and Xeri (basra.bots.pile_expert): legal play in
every preset and player count, its key decisions, and the last batch solved exactly."""

from __future__ import annotations

import random

import pytest

from basra.bots import GreedyBot, make_bot
from basra.bots.expert import ExpertBot
from basra.bots.pile_expert import (
    expected_best,
    passed_ranks,
    pile_move_values,
    solve_last_batch,
)
from basra.cards import CARD_NAMES, JACK, parse_card, parse_cards
from basra.match import Match, Play
from basra.observe import Observation, observe, observe_state
from basra.rules import Rules, make_rules
from basra.state import (
    DealState,
    Layout,
    apply,
    check_layout,
    deal_score,
    legal_moves,
    new_deal,
    parse_move,
    play,
    start_deal,
)

PILE_GAMES = [("pisti", 2, {}), ("pisti", 3, {}), ("pisti", 4, {}),
              ("pisti", 4, {"partnership": "false"}), ("xeri", 2, {}), ("xeri", 4, {})]
HOUSE_RULES = [
    ("pisti", {"jack_pisti": "lone", "last_play_pisti": "true"}),
    ("pisti", {"kitty_view": "capturer", "centre_jack": "to_stock"}),
    ("pisti", {"kitty_view": "first_player", "bottom_card": "hidden"}),
    ("xeri", {"pile_redeal": "none", "card_points": "J:1,A:1,2C:2,10D:3"}),
]


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def deal(rules: Rules, pile: str, hands: list[str]) -> DealState:
    """A deal with this pile (bottom to top) and these first hands, in seat order; the
    last seat deals, so seat 0 plays first."""
    named = [*cards(pile), *(c for hand in hands for c in cards(hand))]
    stock = tuple(c for c in range(52) if c not in named)
    bottom = next(c for c in reversed(stock) if c >> 2 != JACK) if (
        rules.bottom_card == "shown") else -1
    floor = cards(pile)
    layout = Layout(rules.players - 1, floor, tuple(cards(h) for h in hands), stock, (),
                    floor[:rules.pile_down], bottom, ())
    check_layout(rules, layout)
    return start_deal(rules, layout)


def plays(state: DealState, *names: str) -> DealState:
    for name in names:
        state = play(state, parse_move(state, name))
    return state


def _name(card: int) -> str:
    return CARD_NAMES[card]


def chosen(state: DealState, seed: int = 1) -> str:
    """The card the expert plays for the seat to play."""
    return _name(ExpertBot(seed).choose(observe_state(state, state.to_play)) & 63)


def values_by_card(observation: Observation) -> dict[str, float]:
    return {_name(move & 63): value for move, value in pile_move_values(observation)}


XERI = make_rules("xeri")
# Seat 0 lays KH on the first pile, seat 1 takes it all with KD: seat 0 then plays on an
# empty pile.
FIRST = ("3D 9S 5C 7C", ["KH 9D 9C 5S 8H 8D", "KD JS 4D 6S 10H QH"])


# Legal, deterministic play everywhere


@pytest.mark.parametrize(("name", "players", "options"), PILE_GAMES)
def test_the_expert_plays_whole_matches_legally(name: str, players: int,
                                                 options: dict[str, str]) -> None:
    rules = make_rules(name, players, options)
    levels = ("expert", "greedy", "expert", "random")

    def game(seed: int) -> list[int]:
        match = Match(rules, seed=seed, variant=name)
        bots = [make_bot(levels[seat], seed * 10 + seat) for seat in range(players)]
        moves = []
        while not match.is_over:
            seat = match.state.to_play
            view = observe(match, seat)
            move = bots[seat].choose(view)
            assert move in view.legal_moves
            moves.append(move)
            match.play(move)
        assert max(match.totals) >= match.target
        return moves

    assert game(players) == game(players)  # the same seeds, the same play


@pytest.mark.parametrize(("name", "options"), HOUSE_RULES)
def test_the_expert_plays_house_rules_legally(name: str, options: dict[str, str]) -> None:
    rules = make_rules(name, 2, options)
    rng = random.Random(3)
    for seed in range(3):
        state = new_deal(rules, seed % 2, rng)
        bots = [ExpertBot(seed), GreedyBot(seed)]
        while not state.is_over:
            view = observe_state(state, state.to_play)
            move = bots[state.to_play].choose(view)
            assert move in view.legal_moves
            state = play(state, move)


# Key decisions


def test_it_lays_a_card_whose_rank_is_gone_on_an_empty_pile() -> None:
    """No 9 is left unseen (9S was taken, 9D and 9C are its own), so laying one gives no
    pişti; a 5 or an 8 might. Greedy lays its lowest card, the 5."""
    state = plays(deal(XERI, *FIRST), "KH", "KD")
    assert not state.floor and state.to_play == 0
    assert chosen(state) in ("9D", "9C")
    assert _name(GreedyBot(1).choose(observe_state(state, 0)) & 63) == "5S"


def test_it_does_not_feed_a_pisti_when_it_has_another_choice() -> None:
    """A lone 4H: any 4 takes it as a pişti. Laying the 4 it holds on an empty pile is
    valued below laying a 9 nobody can match."""
    state = plays(deal(XERI, *FIRST), "KH", "KD")
    values = values_by_card(observe_state(state, 0))
    assert values["9D"] > values["5S"] and values["9D"] > values["8H"]


def test_it_takes_a_pisti_when_offered() -> None:
    """Seat 1 faces a lone 4H with 4D and a Jack: the 4 scores the pişti and keeps the
    Jack."""
    state = plays(deal(XERI, "3D 9S 5C 7C", ["KH 4H 9C 5S 8H 8D", "KD JS 4D 6S 10H QH"]),
                  "KH", "KD", "4H")
    assert list(state.laid) == [parse_card("4H")]
    assert chosen(state) == "4D"


def test_it_takes_a_rich_pile_with_a_jack() -> None:
    """A pile of nine cards with an ace, a ten of diamonds, a queen and a king, and no card
    of the top card's rank in hand: the Jack takes it."""
    rules = XERI
    state = deal(rules, "3D 9S 5C 7C", ["AH QS 2H 4S 6H 8S", "10D KC JS 4H 6D 8D"])
    state = plays(state, "AH", "10D", "QS", "KC")
    assert len(state.laid) == 8 and state.to_play == 0
    state = plays(state, "2H")
    assert state.to_play == 1
    assert chosen(state) == "JS"


def test_it_keeps_a_lone_jack_early_on_a_poor_pile() -> None:
    """The first pile (four low cards, no points in Xeri) early in the deal: the Jack is
    kept, a card of no match is laid instead; on an empty pile a Jack is never laid (a
    Jack on a lone Jack is a double pişti)."""
    state = deal(XERI, "3D 9S 5C 7C", ["JH 2H 4H 6H 8D QD", "KD 9C 4D 6S 10H QH"])
    assert chosen(state) != "JH"
    empty = plays(deal(XERI, "3D 9S 5C 7C", ["KH JH 2H 4H 6H 8D", "KD 9C 4D 6S 10H QH"]),
                  "KH", "KD")
    assert not empty.floor
    assert chosen(empty) != "JH"


def test_it_counts_face_down_cards_it_has_not_seen() -> None:
    """Pişti's first pile: three cards face down under the top card. The expert's values
    depend on what it sees only: the same view whatever the face-down cards are."""
    rules = make_rules("pisti", overrides={"bottom_card": "hidden"})
    hands = ["7H 8H KS QD", "2C 4D 6S 10H"]
    one = deal(rules, "3D 9S 5C 7C", hands)
    other = deal(rules, "AC 10D 2D 7C", hands)
    first, second = observe_state(one, 0), observe_state(other, 0)
    assert first.pile == second.pile == (-1, -1, -1, parse_card("7C"))
    assert pile_move_values(first) == pile_move_values(second)


def test_the_expected_best_reply() -> None:
    assert expected_best([10.0, 0.0, 0.0, 0.0], 1) == 2.5
    assert expected_best([10.0, 0.0, 0.0, 0.0], 4) == 10.0
    assert expected_best([10.0, 0.0], 1, floor=4.0) == 7.0
    assert expected_best([], 3, floor=1.5) == 1.5


# The last batch of a 2-player deal, solved exactly


def best_margin(state: DealState, side: int) -> int:
    """The deal's final margin for ``side`` under best play by both, through the rules
    core (every order of play)."""
    if state.is_over:
        score = deal_score(state)
        return score.total[side] - score.total[1 - side]
    margins = [best_margin(apply(state, move), side) for move in legal_moves(state)]
    mover = state.rules.side_of[state.to_play]
    return max(margins) if mover == side else min(margins)


@pytest.mark.parametrize("name", ["xeri", "pisti"])
def test_the_last_batch_is_solved_exactly(name: str) -> None:
    """Against every order of play through the rules core, the solve values each move at
    the deal's final margin less what is already scored: the same gap for every move."""
    rules = make_rules(name, 2, {"bottom_card": "hidden"} if name == "pisti" else {})
    solved_some = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = new_deal(rules, seed % 2, rng)
        while not (state.stock_count == 0 and sum(h.bit_count() for h in state.hands) <= 6):
            state = apply(state, rng.choice(legal_moves(state)))
        view = observe_state(state, state.to_play)
        if view.down_count or (view.unseen.bit_count()
                               != state.hands[1 - state.to_play].bit_count()):
            continue  # face-down cards it has not seen: the solve averages over them
        solved = solve_last_batch(view)
        assert solved is not None
        side = rules.side_of[state.to_play]
        gaps = {best_margin(apply(state, move), side) - value for move, value in solved}
        assert len(gaps) == 1
        solved_some += 1
    assert solved_some >= 5


def test_a_pile_passed_by_reads_as_no_card_of_its_rank() -> None:
    """Seat 1 laid 2C on KH (laid on the first pile) when a King or a Jack would have taken it:
    seat 0 reads that it likely holds neither; a lay on an empty pile says nothing."""
    state = deal(XERI, "3D 9S 5C 7C", ["KH 4H 9C 5S 8H 8D", "2C KD 4D 6S 10H QH"])
    assert passed_ranks(view_after(state, "KH", "2C"), 1) == {parse_card("KH") >> 2, JACK}
    emptied = deal(XERI, "3D 9S 5C 7C", ["7H 9D 9C 5S 8H 8D", "KD JS 4D 6S 10H QH"])
    assert passed_ranks(view_after(emptied, "7H", "4D"), 1) == set()


def view_after(state: DealState, *names: str) -> Observation:
    """Seat 0's view after these plays, with the plays it saw."""
    seen = []
    for name in names:
        move = parse_move(state, name)
        seen.append(Play(state.to_play, move & 63, move >> 6, False))
        state = play(state, move)
    return observe_state(state, 0, plays=tuple(seen))
