"""The master in the pile games (Pişti, Xeri): its sampler deals the cards a seat has not
seen consistently with what it has seen (the face-down cards, the shown bottom card, the
pile's order), its compiled and pure-Python searches agree, and it plays whole matches.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from basra import fast
from basra.bots.master import (
    PILE_POLICY,
    MasterBot,
    SearchSettings,
    search_moves,
)
from basra.bots.search import SOLVE_CARDS, pile_move_value, sample_state
from basra.match import Match
from basra.observe import Observation, hidden_places, observe, observe_state
from basra.rules import make_rules
from basra.state import DealState, legal_moves, parse_move, play, start_deal
from tests.test_pisti import layout


def places(state: DealState) -> dict[int, str]:
    """Where each card of a deal lies: a hand, the pile, a side's captured cards, or the
    stock (by batch, seat and, for the stock's bottom, nothing finer)."""
    where: dict[int, str] = {}
    for card in range(52):
        bit = 1 << card
        if state.floor & bit:
            where[card] = f"pile {state.laid.index(card)}"
        for seat, hand in enumerate(state.hands):
            if hand & bit:
                where[card] = f"hand {seat}"
        for side, pile in enumerate(state.piles):
            if pile & bit:
                where[card] = f"captured {side}"
        for number, batch in enumerate(state.batches):
            for seat, hand in enumerate(batch):
                if hand & bit:
                    where[card] = f"batch {number} seat {seat}"
    return where


def view_of(sample: DealState, view: Observation) -> Observation:
    return observe_state(sample, view.seat, totals=view.totals, target=view.target,
                         carry=view.carry, deal_number=view.deal_number, plays=view.plays,
                         initial_floor=view.initial_floor)


def positions(name: str, players: int, seeds: range, overrides: dict[str, str] | None = None
              ) -> list[tuple[DealState, Observation]]:
    """Positions of random pile matches, one in three, with the view of the seat to play."""
    found = []
    for seed in seeds:
        match = Match(make_rules(name, players, overrides=overrides), seed=seed)
        rng = random.Random(seed)
        for step in range(200):
            if match.is_over or len(match.deals) > 1:
                break
            view = observe(match, match.state.to_play)
            if step % 3 == 0:
                found.append((match.state, view))
            match.play(rng.choice(view.legal_moves))
    return found


def samplers() -> list[str]:
    return ["python", "compiled"] if fast.available() else ["python"]


def sample(kind: str, view: Observation, seed: int) -> DealState:
    if kind == "python":
        return sample_state(view, random.Random(seed))
    from basra.fast.core import sample_observation

    return sample_observation(view, seed)


GAMES = [("pisti", 2, None), ("pisti", 4, None), ("xeri", 2, None),
         ("pisti", 2, {"kitty_view": "capturer"}), ("pisti", 3, {"kitty_view": "first_player"}),
         ("pisti", 2, {"centre_jack": "to_stock"})]


@pytest.mark.parametrize("kind", samplers())
@pytest.mark.parametrize(("name", "players", "overrides"), GAMES)
def test_a_sample_moves_no_card_the_seat_has_seen(kind: str, name: str, players: int,
                                                  overrides: dict[str, str] | None) -> None:
    """Every sampled deal shows the seat exactly what it sees, keeps every card it has seen
    (and the stock's shown cards) where it lies, and deals the rest among the places it
    cannot see: other hands, the stock, face-down cards it was not shown."""
    checked = hidden = 0
    for state, view in positions(name, players, range(3), overrides):
        truth = places(state)
        for seed in range(3):
            dealt = sample(kind, view, seed)
            mine = view_of(dealt, view)
            for field in ("hand", "floor", "pile", "down_count", "piles", "pile_counts",
                          "hand_counts", "stock_count", "stock_shown", "bottom_card",
                          "legal_moves", "basras", "jack_pistis", "last_capturer",
                          "down_seen"):
                assert getattr(mine, field) == getattr(view, field), field
            where = places(dealt)
            assert len(where) == 52  # every card lies somewhere, once
            assert dealt.down & view.down_seen == view.down_seen
            assert (dealt.down & ~view.down_seen).bit_count() == (
                view.down_count + sum(hidden_places(view).captured))
            assert dealt.kitty == state.kitty
            for card in range(52):
                if view.seen >> card & 1 or view.stock_shown >> card & 1:
                    assert where[card] == truth[card]
                elif dealt.down >> card & 1:
                    hidden += 1
            if name == "pisti" and view.bottom_card >= 0:
                # the shown bottom card is in the dealer's last batch, or hand, or seen
                assert where[view.bottom_card] in (
                    truth[view.bottom_card], f"hand {view.dealer}",
                    f"batch {len(dealt.batches) - 1} seat {view.dealer}")
                assert where[view.bottom_card] == truth[view.bottom_card]
            checked += 1
    assert checked > 50
    assert hidden > 0 or name == "xeri" or overrides == {"kitty_view": "first_player"}


def kitty_position(view_rules: dict[str, str] | None = None) -> tuple[DealState, Observation]:
    """Two-seat Pişti: seat 1 captured the first pile (three cards face down) with a
    Jack; seat 0, who has not seen them, is to play on an empty pile."""
    rules = make_rules("pisti", 2, overrides=view_rules)
    state = start_deal(rules, layout(rules, "3D 9S 5C 7C", ["8H KS QD 2H", "JC 4D 6S 10H"]))
    state = play(state, parse_move(state, "8H"))
    state = play(state, parse_move(state, "JC"))
    return state, observe_state(state, 0)


@pytest.mark.parametrize("kind", samplers())
def test_every_unseen_card_may_lie_in_each_hidden_place(kind: str) -> None:
    """Over many samples each card the seat has not seen turns up in each face-down place
    it was not shown (in the pile, among the other side's captures) and in the other
    hand; the cards it saw never do, nor the shown bottom card."""
    rules = make_rules("pisti", 2)
    state = start_deal(rules, layout(rules, "3D 9S 5C 7C", ["8H KS QD 2H", "JC 4D 6S 10H"]))
    first = observe_state(state, 0)
    assert hidden_places(first).pile_slots == (0, 1, 2)
    _, taken = kitty_position()
    assert hidden_places(taken).captured == (0, 3)
    for view in (first, taken):
        unseen = hidden_places(view).unseen
        assert not unseen & view.seen and not unseen >> view.bottom_card & 1
        slots: dict[str, Counter[int]] = {}
        for seed in range(2500):
            dealt = sample(kind, view, seed)
            assert dealt.batches[-1][view.dealer] >> view.bottom_card & 1
            if view is first:
                for slot in range(3):
                    slots.setdefault(f"pile {slot}", Counter())[dealt.laid[slot]] += 1
                assert dealt.laid[3] == view.pile[3]
            else:
                down = dealt.piles[1] & ~view.piles[1]
                assert down.bit_count() == 3 and down == dealt.down and dealt.kitty == 1
                slots.setdefault("captured", Counter()).update(
                    c for c in range(52) if down >> c & 1)
            slots.setdefault("hand", Counter()).update(
                c for c in range(52) if dealt.hands[1] >> c & 1)
        for name, counts in slots.items():
            assert set(counts) == {c for c in range(52) if unseen >> c & 1}, name


@pytest.mark.parametrize("kind", samplers())
def test_the_shown_bottom_card_stays_with_the_dealer(kind: str) -> None:
    """Once the last batch is dealt, the shown bottom card the dealer has not played is in
    the dealer's hand in every sample."""
    for state, view in positions("pisti", 2, range(4)):
        if view.stock_count or view.seat == view.dealer or not (
                state.hands[view.dealer] >> view.bottom_card & 1):
            continue
        assert hidden_places(view).known[view.dealer] == 1 << view.bottom_card
        for seed in range(20):
            assert sample(kind, view, seed).hands[view.dealer] >> view.bottom_card & 1


def test_the_pile_rollout_policy_takes_and_does_not_feed_a_pisti() -> None:
    rules = make_rules("pisti", 2, overrides={"bottom_card": "hidden"})
    state = start_deal(rules, layout(rules, "3D 9S 5C 7C", ["7H KS QD 2H", "JC 4D 6S 10H"]))
    state = play(state, parse_move(state, "7H"))  # seat 0 takes the pile
    # seat 1 lays on an empty pile: not the Jack, and a card whose rank is in sight
    values = {m & 63: pile_move_value(state, m) for m in legal_moves(state)}
    best = max(values, key=values.__getitem__)
    assert best >> 2 != 9  # not the Jack
    on_pile = play(state, parse_move(state, "4D"))
    takes = {m: pile_move_value(on_pile, m) for m in legal_moves(on_pile)}
    assert all(v < 0 for m, v in takes.items() if not m >> 6)


def test_the_compiled_pile_policy_values_moves_as_the_python_one() -> None:
    from basra.fast import core, kernels

    for name, players, overrides in GAMES:
        fast_rules = core.fast_rules(make_rules(name, players, overrides=overrides))
        for state, _view in positions(name, players, range(2), overrides):
            array = core.to_array(state)
            for move in legal_moves(state):
                assert kernels.pile_value(fast_rules.cfg, fast_rules.cards, array, move) == (
                    pytest.approx(pile_move_value(state, move)))


def test_compiled_and_python_searches_rank_an_obvious_pisti_first() -> None:
    from basra.fast.core import observation_search

    rules = make_rules("pisti", 2)
    state = start_deal(rules, layout(rules, "3D 9S 5C 7C", ["7H 6H KS QD", "JC 6D 2S 10H"]))
    state = plays(state, "7H", "6D")
    view = observe_state(state, 0)  # 6H takes the lone 6D: a pişti
    pisti = parse_move(state, "6H")
    compiled = observation_search(view, 0.0, 1, samples=300, policy=PILE_POLICY)
    means = [s / max(w, 1e-9) for s, w in zip(compiled.sums, compiled.weights, strict=True)]
    python = [s / n for s, n in search_moves(view, 0.0, 1, samples=150)]
    for values in (means, python):
        ranked = sorted(range(len(values)), key=lambda i: -values[i])
        assert view.legal_moves[ranked[0]] == pisti
    # the two searches order the moves alike
    order = sorted(range(3), key=lambda i: -means[i])
    assert order == sorted(range(3), key=lambda i: -python[i])


def plays(state: DealState, *names: str) -> DealState:
    for name in names:
        state = play(state, parse_move(state, name))
    return state


@pytest.mark.parametrize("compiled", [True, False] if fast.available() else [False])
@pytest.mark.parametrize(("name", "players"), [("pisti", 2), ("xeri", 2), ("pisti", 4)])
def test_the_master_plays_a_pile_deal(name: str, players: int, compiled: bool) -> None:
    """The master no longer refuses the pile games: it plays a whole deal (few samples a
    move), each move one of the legal ones, and its estimates name every legal move."""
    settings = SearchSettings(compiled=compiled)
    match = Match(make_rules(name, players), seed=5)
    bots = [MasterBot(seat, samples=4 if compiled else 2, workers=1, settings=settings)
            for seat in range(players)]
    try:
        deals = len(match.deals)
        while not match.is_over and len(match.deals) == deals:
            seat = match.state.to_play
            view = observe(match, seat)
            move = bots[seat].choose(view)
            assert move in view.legal_moves
            match.play(move)
        assert match.deals[0].score is not None
    finally:
        for bot in bots:
            bot.close()


def test_a_pile_game_uses_the_pile_rollout_policy() -> None:
    assert SearchSettings().rollout_policy(make_rules("pisti", 3)) == PILE_POLICY
    assert SearchSettings(policy=1).rollout_policy(make_rules("xeri")) == 1
    assert SearchSettings(policy=4).rollout_policy(make_rules("xeri")) == PILE_POLICY
    with pytest.raises(ValueError, match="plays the pile games alone"):
        SearchSettings(policy=PILE_POLICY).rollout_policy(make_rules("egyptian"))


def test_the_last_batch_is_solved_once_no_card_is_hidden() -> None:
    """Two players, the stock empty and the face-down cards in sight (or never there, in
    Xeri): the master's values are exact (one sample, the only deal), the best move's
    value is its true margin against the best replies."""
    from basra.bots.search import solve

    solved = searched = 0
    for state, view in positions("xeri", 2, range(4)):
        if view.stock_count or len(view.legal_moves) < 2:
            continue
        estimates = MasterBot(1, workers=1, samples=4).estimates(view)
        if sum(view.hand_counts) > SOLVE_CARDS:  # too many to solve in the budget
            assert all(e.samples > 1 for e in estimates)
            searched += 1
            continue
        assert all(e.samples == 1 for e in estimates)
        exact = solve(state, view.side, view.carry)
        assert {e.move: e.value for e in estimates} == pytest.approx(exact)
        solved += 1
    assert solved and searched
