"""Records of the pile games, Pişti and Xeri (spec/RULES.md 11.6, docs/record.md): what
``match_record`` writes, and what ``replay`` accepts and rejects.

As in test_record.py, the format checks rebuild the pile, the piştis and the scores from
the record's own lists with the rule text, not with the engine.
"""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basra.bots import make_bot
from basra.match import Match
from basra.observe import observe
from basra.record import Player, RecordError, dumps, loads, match_record, pile_orders, replay
from basra.rules import Rules, make_rules

PILE_GAMES = [("pisti", 2), ("pisti", 3), ("pisti", 4), ("xeri", 2), ("xeri", 4)]
GAME_IDS = [f"{name}/{players}" for name, players in PILE_GAMES]
DEAL_KEYS = {"dealer", "floor", "floor_down", "bottom_card", "turned", "hands", "stock",
             "plays"}


def seat_players(count: int) -> list[Player]:
    return [Player(f"player {seat}", "human" if seat == 0 else "bot") for seat in range(count)]


def play(match: Match, plays: int | None = None, bot_seed: int = 0) -> Match:
    """Greedy and random bots in turn play ``plays`` more plays (all, if None)."""
    bots = [make_bot("greedy" if seat % 2 else "random", bot_seed + seat)
            for seat in range(match.rules.players)]
    done = 0
    while not match.is_over and (plays is None or done < plays):
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
        done += 1
    return match


def rank(card: str) -> str:
    return card[:-1]


def points(rules: Rules, card: str) -> int:
    table = dict(rules.card_points)
    return table.get(card, table.get(rank(card), 0))


def check_pile_record(record: dict[str, Any], rules: Rules) -> None:
    """Everything 11.6 asks of a pile game's record, rebuilt from its own lists: the pile
    bottom to top, each capture the whole pile in order, each pişti's points, the
    leftover as it lay, and the score's ``pistis``."""
    sides = rules.sides
    side_of = [seat % sides for seat in range(rules.players)]
    for deal in record["deals"]:
        finished = "score" in deal
        assert set(deal) == DEAL_KEYS | ({"leftover", "score"} if finished else set())
        pile = list(deal["floor"])
        assert len(pile) == rules.floor_size and rank(pile[-1]) != "J"
        # Face down: the cards under the top, but the Jacks turned up (9.3.4, 9.3.5).
        assert deal["floor_down"] == ([c for c in pile[:-1] if c not in deal["turned"]]
                                      if rules.pile_down else [])
        if rules.bottom_card == "shown":
            assert deal["bottom_card"] in deal["stock"] and rank(deal["bottom_card"]) != "J"
        else:
            assert deal["bottom_card"] is None
        stores: list[list[str]] = [[] for _ in range(sides)]
        pistis = [[0, 0] for _ in range(sides)]
        last = -1
        plays = deal["plays"]
        for number, entry in enumerate(plays):
            assert set(entry) == {"seat", "card", "captured", "basra", "pisti"}
            card, side = entry["card"], side_of[entry["seat"]]
            takes = bool(pile) and (rank(card) == "J" or rank(card) == rank(pile[-1]))
            if not takes:
                assert entry["captured"] == [] and entry["pisti"] == 0
                pile.append(card)
                continue
            assert entry["captured"] == pile
            is_last = finished and number == len(plays) - 1
            bonus = 0
            double = rank(card) == rank(pile[0]) == "J"
            if len(pile) == 1 and (rules.last_play_pisti or not is_last):
                if rank(card) == rank(pile[0]):
                    bonus = rules.jack_pisti_points if double else rules.pisti_points
                elif rank(card) == "J" and rules.jack_pisti == "lone":
                    bonus = rules.pisti_points
            assert entry["pisti"] == bonus and entry["basra"] == (bonus > 0)
            if bonus:
                pistis[side][double] += 1
            stores[side] += [*pile, card]
            pile, last = [], entry["seat"]
        if not finished:
            continue
        if pile:
            assert deal["leftover"] == {"seat": last, "cards": pile}
            stores[side_of[last]] += pile
        else:
            assert deal["leftover"] is None
        score = deal["score"]
        assert score["pistis"] == pistis
        assert score["basras"] == [plain + jack for plain, jack in pistis]
        assert score["basra_points"] == [plain * rules.pisti_points
                                         + jack * rules.jack_pisti_points
                                         for plain, jack in pistis]
        assert score["cards"] == [len(store) for store in stores]
        assert score["card_points"] == [sum(points(rules, c) for c in s) for s in stores]
        assert sum(score["card_points"]) == (13 if rules.pile_down else 22)


@cache
def finished(name: str, players: int, seed: int) -> Match:
    return play(Match(make_rules(name, players), seed, variant=name), bot_seed=seed)


# Round trips


@pytest.mark.parametrize(("name", "players"), PILE_GAMES, ids=GAME_IDS)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_whole_pile_match_round_trips(name: str, players: int, seed: int) -> None:
    match = play(Match(make_rules(name, players), seed, variant=name), bot_seed=seed)
    record = json.loads(dumps(match_record(match, seat_players(players))))
    check_pile_record(record, match.rules)
    assert record["result"]["totals"] == match.totals
    replayed = replay(loads(dumps(record)))
    assert replayed.totals == match.totals and replayed.winner == match.winner
    assert match_record(replayed, seat_players(players)) == record


@pytest.mark.parametrize("overrides", [
    {"centre_jack": "to_stock"}, {"bottom_card": "hidden", "kitty_view": "capturer"},
    {"jack_pisti": "lone", "last_play_pisti": True, "pisti_points": 5}])
def test_house_variations_round_trip(overrides: dict[str, Any]) -> None:
    rules = make_rules("pisti", 2, overrides)
    for seed in range(6):
        match = play(Match(rules, seed, variant="pisti"), bot_seed=seed)
        record = json.loads(dumps(match_record(match, seat_players(2))))
        check_pile_record(record, rules)
        assert match_record(replay(record), seat_players(2)) == record


def test_to_stock_records_the_jacks_sent_under_the_stock() -> None:
    rules = make_rules("pisti", 2, {"centre_jack": "to_stock"})
    for seed in range(60):
        record = match_record(Match(rules, seed, variant="pisti"), seat_players(2))
        deal = record["deals"][0]
        if deal["turned"]:
            assert deal["stock"][-len(deal["turned"]):] == deal["turned"]
            assert deal["stock"][-len(deal["turned"]) - 1] == deal["bottom_card"]
            assert match_record(replay(record), seat_players(2)) == record
            broken = copy.deepcopy(record)
            broken["deals"][0]["turned"] = []
            rejected(broken, "only Jacks sent under the stock may lie below the bottom card")
            return
    raise AssertionError("no seed turns a Jack up")


@pytest.mark.parametrize(("name", "players"), PILE_GAMES, ids=GAME_IDS)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stop=st.integers(0, 120))
def test_an_unfinished_pile_match_round_trips(name: str, players: int, seed: int,
                                              stop: int) -> None:
    match = play(Match(make_rules(name, players), seed, variant=name), stop, bot_seed=seed)
    record = json.loads(dumps(match_record(match, seat_players(players))))
    check_pile_record(record, match.rules)
    replayed = replay(record)
    assert match_record(replayed, seat_players(players)) == record


def test_pile_orders_follow_the_plays() -> None:
    match = finished("xeri", 2, 1)
    deal = match.deals[0]
    orders = pile_orders(deal.layout, deal.plays)
    assert orders[0] == deal.layout.floor and len(orders) == len(deal.plays) + 1
    for before, after, made in zip(orders, orders[1:], deal.plays, strict=False):
        assert after == (() if made.captured else (*before, made.card))


# Tampered records


def pile_record(name: str = "pisti", players: int = 2) -> dict[str, Any]:
    for seed in range(40):
        match = finished(name, players, seed)
        record = loads(dumps(match_record(match, seat_players(players))))
        plays = record["deals"][0]["plays"]
        if any(p["pisti"] for p in plays):
            return record
    raise AssertionError("no seed gives a pişti in the first deal")


def first(record: dict[str, Any], test: Any) -> tuple[int, dict[str, Any]]:
    """The first play of deal 1 that passes ``test``, with its number counted from 1."""
    return next((number, entry) for number, entry
                in enumerate(record["deals"][0]["plays"], 1) if test(entry))


def rejected(record: dict[str, Any], match: str) -> RecordError:
    with pytest.raises(RecordError, match=match) as caught:
        replay(record)
    return caught.value


def test_a_wrong_pile_order_is_rejected() -> None:
    record = pile_record()
    floor = record["deals"][0]["floor"]
    floor[0], floor[1] = floor[1], floor[0]
    number, _ = first(record, lambda p: p["captured"])
    error = rejected(record, rf"^deal 1, play {number}: captured lists .*, but the pile lay "
                             r".* \(bottom to top\)")
    assert (error.deal, error.play) == (1, number)


def test_a_capture_listed_out_of_order_is_rejected() -> None:
    record = pile_record()
    number, entry = first(record, lambda p: len(p["captured"]) > 1)
    entry["captured"].reverse()
    rejected(record, rf"^deal 1, play {number}: captured lists .*, but the pile lay")


def test_a_swapped_top_card_breaks_the_first_play_that_reads_it() -> None:
    record = pile_record("xeri")
    floor = record["deals"][0]["floor"]
    floor[-1], floor[-2] = floor[-2], floor[-1]
    rejected(record, r"^deal 1(, play \d+)?: .*(pile|top)")


@pytest.mark.parametrize(("given_", "says"), [
    (0, "no pişti, the rules give one of 10 points"),
    (20, "a pişti of 20 points, the rules give one of 10 points")])
def test_wrong_pisti_points_are_rejected(given_: int, says: str) -> None:
    record = pile_record()
    number, entry = first(record, lambda p: p["pisti"] == 10)
    entry["pisti"] = given_
    rejected(record, rf"^deal 1, play {number}: the record says {says}$")


def test_a_pisti_where_there_is_none_is_rejected() -> None:
    record = pile_record()
    number, entry = first(record, lambda p: p["captured"] and not p["pisti"])
    entry["pisti"] = 10
    rejected(record, rf"^deal 1, play {number}: the record says a pişti of 10 points, the "
                     "rules give none$")


def test_the_score_pistis_are_checked() -> None:
    record = pile_record()
    score = record["deals"][0]["score"]
    right = copy.deepcopy(score["pistis"])
    score["pistis"][0][1] += 1
    rejected(record, rf"^deal 1: score pistis is .*, the plays give {re_list(right)}$")
    del score["pistis"]
    rejected(record, r"^deal 1: score pistis is None, the plays give")


def re_list(value: Any) -> str:
    return json.dumps(value).replace("[", r"\[").replace("]", r"\]").replace('"', "'")


def test_a_leftover_out_of_order_is_rejected() -> None:
    for seed in range(40):
        record = json.loads(dumps(match_record(finished("pisti", 2, seed), seat_players(2))))
        deal = next((d for d in record["deals"]
                     if d["leftover"] and len(d["leftover"]["cards"]) > 1), None)
        if deal is not None:
            deal["leftover"]["cards"].reverse()
            rejected(record, r"the leftover lists .*, but the pile lay .* \(bottom to top\)")
            return
    raise AssertionError("no seed leaves two cards on the pile")


def test_a_play_may_give_its_pisti_without_basra() -> None:
    record = pile_record()
    for deal in record["deals"]:
        for entry in deal["plays"]:
            del entry["basra"]
    assert replay(record).is_over
    number, entry = first(record, lambda p: p["pisti"])
    entry["pisti"] = 0
    rejected(record, rf"^deal 1, play {number}: the record says no pişti, the rules give one")


def test_missing_or_bad_pile_fields_are_named() -> None:
    record = pile_record()
    deal = record["deals"][0]
    broken = copy.deepcopy(record)
    del broken["deals"][0]["plays"][0]["pisti"]
    rejected(broken, r"^deal 1, play 1: missing 'pisti'$")
    broken = copy.deepcopy(record)
    del broken["deals"][0]["floor_down"]
    rejected(broken, r"^deal 1: missing 'floor_down'$")
    broken = copy.deepcopy(record)
    broken["deals"][0]["floor_down"] = deal["floor"][1:]
    rejected(broken, r"^deal 1: floor_down must list at most 3 cards of the pile below its "
                     "top card$")
    broken = copy.deepcopy(record)
    broken["deals"][0]["bottom_card"] = None
    rejected(broken, r"^deal 1: bottom_card=shown, but the layout has no bottom card$")
    broken = copy.deepcopy(record)
    broken["deals"][0]["bottom_card"] = "ZZ"
    rejected(broken, r"^deal 1 bottom_card: .*'ZZ'")


def test_pile_fields_in_a_basra_record_are_rejected() -> None:
    match = Match(make_rules("egyptian"), 3)
    record = match_record(match, seat_players(2))
    record["deals"][0]["floor_down"] = []
    rejected(record, r"^deal 1: 'floor_down' belongs to the pile games, not to the basra "
                     "family$")


def test_a_random_match_replays_after_a_json_round_trip() -> None:
    rules = make_rules("xeri", 4)
    match = Match(rules, 11, variant="xeri")
    rng = random.Random(11)
    while not match.is_over:
        match.play(rng.choice(match.legal_moves()))
    record = json.loads(dumps(match_record(match, seat_players(4))))
    check_pile_record(record, rules)
    assert replay(record).totals == match.totals
