"""Records (spec/RECORD.md): what match_record writes, and what replay accepts and rejects.

The format checks below read a record the way an outside program would: they rebuild the
floor, the piles, the batches and the scores from the record's own lists and compare them
with what it states, using the rule text of spec/RULES.md rather than the engine.
"""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basra.bots import make_bot
from basra.cards import CardSet, card_name, parse_card
from basra.match import Match
from basra.observe import observe
from basra.record import FORMAT, Player, RecordError, dumps, loads, match_record, replay
from basra.rules import PRESETS, Rules, make_rules, option_names
from basra.state import make_move

# Records do not hold the pile games yet (issue 41): they are refused, see test_pisti.py.
GAMES = [(name, players) for name, found in PRESETS.items() for players in found.players
         if found.rules.family != "pisti"]
GAME_IDS = [f"{name}/{players}" for name, players in GAMES]

CARD_TEXT = re.compile(r"(A|[2-9]|10|J|Q|K)[SHDC]")
SCORE_KEYS = {"cards", "basras", "majority", "card_points", "basra_points", "total",
              "carry_in", "carry_out"}
MAX_DEALS = 12
"""Play stops here: under tie_rule = raise a match need not end."""


def seat_players(count: int) -> list[Player]:
    return [Player(f"player {seat}", "human" if seat == 0 else "bot") for seat in range(count)]


def play(match: Match, plays: int | None = None, bots: tuple[str, ...] = ("random",),
         bot_seed: int = 0) -> Match:
    """Let bots play ``plays`` more plays (all, if None) or until the match ends."""
    seated = [make_bot(bots[seat % len(bots)], bot_seed + seat)
              for seat in range(match.rules.players)]
    done = 0
    while not match.is_over and (plays is None or done < plays):
        if plays is None and len(match.deals) > MAX_DEALS:
            break
        seat = match.state.to_play
        match.play(seated[seat].choose(observe(match, seat)))
        done += 1
    return match


def whole_match(variant: str = "egyptian", players: int = 2, seed: int = 3) -> Match:
    return play(Match(make_rules(variant, players), seed, variant=variant),
                bots=("greedy", "random"), bot_seed=seed)


@pytest.fixture(scope="module")
def finished() -> Match:
    """A finished two-player match of several deals."""
    for seed in range(100):
        match = whole_match(seed=seed)
        leftovers = [deal.leftover for deal in match.deals]
        if match.is_over and len(match.deals) >= 3 and all(leftovers[:2]):
            return match
    raise AssertionError("no seed gives a long enough match")


@pytest.fixture()
def record(finished: Match) -> dict[str, Any]:
    return json.loads(dumps(match_record(finished, seat_players(2))))


# What a record says, checked against its own lists


def names(values: list[str]) -> set[str]:
    assert isinstance(values, list)
    for value in values:
        assert isinstance(value, str) and CARD_TEXT.fullmatch(value), value
    assert len(set(values)) == len(values), values
    return set(values)


def points(rules: Rules, card: str) -> int:
    table = dict(rules.card_points)
    return table.get(card, table.get(card[:-1], 0))


def buried(rules: Rules, card: str) -> bool:
    return card in rules.bury or card[:-1] in rules.bury


def check_record(record: dict[str, Any], match: Match) -> None:
    """Everything RECORD.md asks of a record, rebuilt from the record's own lists."""
    rules = match.rules
    n, sides, size = rules.players, rules.sides, rules.hand_size
    keys = {"format", "variant", "rules", "players", "deals"}
    keys |= {"seed"} if match.seed is not None else set()
    keys |= {"result"} if match.is_over else set()
    assert set(record) == keys
    assert record["format"] == FORMAT == "basra-record/1"
    assert record["variant"] == match.variant
    assert list(record["rules"]) == option_names()
    assert Rules.from_dict(record["rules"]) == rules
    assert len(record["players"]) == n
    for player in record["players"]:
        assert set(player) == {"name", "kind"} and player["kind"] in ("human", "bot")
    assert record.get("seed") == match.seed
    side_of = [seat % sides for seat in range(n)]
    carry, totals = 0, [0] * sides
    for index, deal in enumerate(record["deals"]):
        finished = index < len(record["deals"]) - 1 or not match.deal_in_progress
        keys = {"dealer", "floor", "hands", "stock", "buried", "plays"}
        assert set(deal) == keys | ({"leftover", "score"} if finished else set())
        dealer = deal["dealer"]
        assert dealer == (match.first_dealer + index) % n
        first = (dealer + 1) % n
        floor = names(deal["floor"])
        assert len(deal["floor"]) == rules.floor_size
        assert not any(buried(rules, card) for card in floor)
        assert len(deal["hands"]) == n and all(len(hand) == size for hand in deal["hands"])
        hands = [names(hand) for hand in deal["hands"]]
        stock = deal["stock"]
        assert len(stock) == 52 - rules.floor_size - n * size
        everything = [*deal["floor"], *(c for hand in deal["hands"] for c in hand), *stock]
        assert len(names(everything)) == 52
        # Each burial in order (a card buried twice is listed twice): bury cards, all of
        # which went back into the stock.
        assert isinstance(deal["buried"], list)
        assert all(CARD_TEXT.fullmatch(card) and buried(rules, card) and card in stock
                   for card in deal["buried"])

        # Batch r of the stock gives hand_size consecutive cards to each seat in turn,
        # starting with the seat that plays first; the plays show who held what.
        batches = [hands]
        for start in range(0, len(stock), n * size):
            batch: list[set[str]] = [set() for _ in range(n)]
            for i in range(n):
                batch[(first + i) % n] = set(stock[start + i * size:start + (i + 1) * size])
            batches.append(batch)
        played: list[list[set[str]]] = [[set() for _ in range(n)] for _ in batches]

        table = set(floor)
        piles: list[set[str]] = [set() for _ in range(sides)]
        basras = [0] * sides
        last = -1
        for number, entry in enumerate(deal["plays"]):
            assert set(entry) == {"seat", "card", "captured", "basra"}
            seat, card = entry["seat"], entry["card"]
            assert seat == (first + number) % n
            assert CARD_TEXT.fullmatch(card)
            played[number // (n * size)][seat].add(card)
            captured = names(entry["captured"])
            assert captured <= table
            assert isinstance(entry["basra"], bool)
            if captured:
                table -= captured
                piles[side_of[seat]] |= captured | {card}
                last = seat
            else:
                table.add(card)
                assert not entry["basra"]
            basras[side_of[seat]] += entry["basra"]
        for dealt, shown in zip(batches, played, strict=True):
            assert all(cards <= held for cards, held in zip(shown, dealt, strict=True))
        if not finished:
            continue

        assert len(deal["plays"]) == 52 - rules.floor_size
        assert played == batches
        if last >= 0 and table:
            leftover = deal["leftover"]
            assert set(leftover) == {"seat", "cards"}
            assert leftover["seat"] == last and names(leftover["cards"]) == table
            piles[side_of[last]] |= table
        else:
            assert deal["leftover"] is None

        score = deal["score"]
        keys = SCORE_KEYS | ({"clubs"} if rules.clubs_points else set())
        assert set(score) == keys
        for key in keys - {"carry_in", "carry_out"}:
            assert len(score[key]) == sides and all(isinstance(v, int) for v in score[key])
        cards = [len(pile) for pile in piles]
        assert score["cards"] == cards
        assert score["basras"] == basras
        assert score["card_points"] == [sum(points(rules, c) for c in pile) for pile in piles]
        if rules.basra_cancel:  # each side scores its basras beyond the fewest made
            assert score["basra_points"] == [(b - min(basras)) * rules.basra_points
                                             for b in basras]
        else:
            assert score["basra_points"] == [b * rules.basra_points for b in basras]
        extra = [0] * sides
        if rules.clubs_points:
            clubs = [sum(c.endswith("C") for c in pile) for pile in piles]
            top = [s for s in range(sides) if all(clubs[s] > clubs[o] for o in range(sides)
                                                  if o != s)]
            assert score["clubs"] == [rules.clubs_points if [s] == top else 0
                                      for s in range(sides)]
            extra = score["clubs"]
        assert score["carry_in"] == carry
        prize = rules.majority_points + carry
        leaders = [s for s in range(sides) if all(cards[s] > cards[o] for o in range(sides)
                                                  if o != s)]
        assert score["majority"] == [prize if [s] == leaders else 0 for s in range(sides)]
        tied_carry = prize if not leaders and rules.majority_tie == "carry" else 0
        assert score["carry_out"] == tied_carry
        assert score["total"] == [
            score["card_points"][s] + score["basra_points"][s] + score["majority"][s] + extra[s]
            for s in range(sides)
        ]
        carry = score["carry_out"]
        totals = [t + s for t, s in zip(totals, score["total"], strict=True)]
    if match.is_over:
        result = record["result"]
        assert set(result) == {"totals", "winner", "target"}
        assert result["totals"] == totals
        assert result["target"] == match.target
        winner = result["winner"]
        assert totals[winner] >= result["target"]
        others = [t for side, t in enumerate(totals) if side != winner]
        if rules.tie_rule == "highest":
            assert all(totals[winner] > t for t in others)
        else:
            assert all(t < result["target"] for t in others)


# The format


def test_record_of_a_finished_match(finished: Match, record: dict[str, Any]) -> None:
    check_record(record, finished)
    assert record["variant"] == "egyptian"
    assert record["players"] == [{"name": "player 0", "kind": "human"},
                                 {"name": "player 1", "kind": "bot"}]
    assert record["result"]["winner"] == finished.winner
    assert record["result"]["totals"] == finished.totals
    assert replay(record).totals == finished.totals


def test_record_is_json_with_canonical_card_text(record: dict[str, Any]) -> None:
    text = dumps(record)
    assert text.endswith("\n")
    assert loads(text) == record
    words = set(re.findall(r'"([^"]*)"', text))
    cards = {word for word in words if CARD_TEXT.fullmatch(word)}
    assert len(cards) == 52  # every card, each in its one canonical form
    deal = record["deals"][0]
    for entry in [*deal["floor"], *deal["stock"], *(c for p in deal["plays"] for c in
                                                   [p["card"], *p["captured"]])]:
        assert CARD_TEXT.fullmatch(entry) and card_name(parse_card(entry)) == entry


def test_seed_is_optional() -> None:
    match = play(Match(make_rules("egyptian"), None), plays=10)
    record = match_record(match, seat_players(2))
    assert "seed" not in record
    check_record(record, match)
    assert replay(record).seed is None


def test_seed_deals_the_same_deals(record: dict[str, Any]) -> None:
    # RECORD.md: dealing the match again with this seed and variant gives the same deals.
    rules = Rules.from_dict(record["rules"])
    again = Match(rules, record["seed"], variant=record["variant"])
    for deal in record["deals"]:
        layout = again.deals[-1].layout
        assert layout.dealer == deal["dealer"]
        assert [card_name(c) for c in layout.floor] == deal["floor"]
        assert [[card_name(c) for c in hand] for hand in layout.hands] == deal["hands"]
        assert [card_name(c) for c in layout.stock] == deal["stock"]
        assert [card_name(c) for c in layout.buried] == deal["buried"]
        for entry in deal["plays"]:
            captured = CardSet.parse(entry["captured"]).mask
            again.play(make_move(parse_card(entry["card"]), captured))
    assert again.is_over and again.totals == record["result"]["totals"]


def test_players_must_match_the_seats(finished: Match) -> None:
    with pytest.raises(ValueError, match="3 players named for 2 seats"):
        match_record(finished, seat_players(3))


def test_partnership_scores_are_per_side() -> None:
    match = whole_match("egyptian", 4, seed=1)
    record = match_record(match, seat_players(4))
    check_record(record, match)
    assert len(record["players"]) == 4 and len(record["deals"][0]["hands"]) == 4
    assert all(len(deal["score"]["total"]) == 2 for deal in record["deals"])
    assert len(record["result"]["totals"]) == 2


@pytest.mark.parametrize(("name", "players"), GAMES, ids=GAME_IDS)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stop=st.none() | st.integers(0, 250))
def test_every_preset_writes_the_format(
    name: str, players: int, seed: int, stop: int | None
) -> None:
    match = play(Match(make_rules(name, players), seed, variant=name), stop,
                 bots=("greedy", "random", "random"), bot_seed=seed)
    record = match_record(match, seat_players(players))
    check_record(record, match)
    assert ("result" in record) == match.is_over
    replayed = replay(loads(dumps(record)))
    assert match_record(replayed, seat_players(players)) == record


# Unfinished matches


@pytest.mark.parametrize(("name", "players"), GAMES, ids=GAME_IDS)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stop=st.integers(0, 150), more=st.integers(1, 40))
def test_unfinished_record_replays(
    name: str, players: int, seed: int, stop: int, more: int
) -> None:
    match = play(Match(make_rules(name, players), seed, variant=name), stop, bot_seed=seed)
    if match.is_over:  # a short match: stop inside its last deal instead
        match = play(Match(make_rules(name, players), seed, variant=name),
                     sum(len(deal.plays) for deal in match.deals) - 1, bot_seed=seed)
    assert not match.is_over
    record = match_record(match, seat_players(players))
    check_record(record, match)
    assert "result" not in record
    last = record["deals"][-1]
    assert "score" not in last and "leftover" not in last
    replayed = replay(loads(dumps(record)))
    assert not replayed.is_over
    assert replayed.state == match.state
    assert (replayed.totals, replayed.carry, replayed.target) == (
        match.totals, match.carry, match.target)
    assert match_record(replayed, seat_players(players)) == record

    # The replayed match goes on exactly as the original does, to the end of the deal
    # (where the original deals the next one itself and the replay waits for a layout).
    rng = random.Random(seed)
    number = len(match.deals)
    for _ in range(more):
        if not replayed.deal_in_progress:
            assert replayed.deals[-1].score == match.deals[number - 1].score
            assert replayed.totals == match.totals
            break
        move = rng.choice(match.legal_moves())
        assert replayed.legal_moves() == match.legal_moves()
        assert replayed.play(move) == match.play(move)
        if replayed.deal_in_progress:
            assert replayed.state == match.state


def test_record_stopped_mid_deal() -> None:
    match = play(Match(make_rules("lebanese", 3), 21, variant="lebanese"), plays=60)
    record = match_record(match, seat_players(3))
    assert len(record["deals"]) == 2 and len(record["deals"][1]["plays"]) == 12
    assert "score" in record["deals"][0] and "score" not in record["deals"][1]
    assert "result" not in record
    assert replay(record).state == match.state


def test_record_between_deals_has_the_next_deal_with_no_plays() -> None:
    match = play(Match(make_rules("egyptian"), 4), plays=48)
    record = match_record(match, seat_players(2))
    assert len(record["deals"]) == 2 and record["deals"][1]["plays"] == []
    check_record(record, match)
    replayed = replay(record)
    assert replayed.state == match.state and replayed.totals == match.totals


# Broken records


def reject(record: dict[str, Any], *parts: str) -> str:
    """Replay must raise RecordError whose message holds every part; the message."""
    with pytest.raises(RecordError) as caught:
        replay(record)
    message = str(caught.value)
    for part in parts:
        assert part in message, message
    return message


def play_entry(record: dict[str, Any], deal: int, play: int) -> dict[str, Any]:
    return record["deals"][deal - 1]["plays"][play - 1]


def test_record_error_is_a_value_error() -> None:
    assert issubclass(RecordError, ValueError)


def test_card_not_in_the_hand(record: dict[str, Any]) -> None:
    entry = play_entry(record, 2, 5)
    entry["card"] = record["deals"][1]["stock"][-1]
    entry["captured"] = []
    reject(record, "deal 2, play 5: ", entry["card"], "is not in the hand")


def test_card_of_another_hand(record: dict[str, Any]) -> None:
    deal = record["deals"][0]
    seat = deal["plays"][0]["seat"]
    deal["plays"][0]["card"] = deal["hands"][(seat + 1) % 2][0]
    deal["plays"][0]["captured"] = []
    reject(record, "deal 1, play 1: ", "is not in the hand")


def first_capture(record: dict[str, Any], deal: int) -> int:
    plays = record["deals"][deal - 1]["plays"]
    return next(i for i, entry in enumerate(plays, 1) if entry["captured"])


def test_wrong_capture_set(record: dict[str, Any]) -> None:
    number = first_capture(record, 2)
    entry = play_entry(record, 2, number)
    entry["captured"] = [record["deals"][1]["stock"][-1]]
    reject(record, f"deal 2, play {number}: ", f"{entry['card']} cannot capture")


def test_capture_left_out(record: dict[str, Any]) -> None:
    number = first_capture(record, 2)
    entry = play_entry(record, 2, number)
    entry["captured"] = []
    reject(record, f"deal 2, play {number}: ", f"{entry['card']} must capture")


def test_capture_of_part_of_the_floor(record: dict[str, Any]) -> None:
    plays = record["deals"][1]["plays"]
    number = next(i for i, e in enumerate(plays, 1) if len(e["captured"]) >= 2)
    entry = plays[number - 1]
    entry["captured"] = entry["captured"][1:]
    reject(record, f"deal 2, play {number}: ", "cannot capture")


def test_wrong_basra_flag(record: dict[str, Any]) -> None:
    entry = play_entry(record, 2, 5)
    entry["basra"] = not entry["basra"]
    says = "a basra" if entry["basra"] else "no basra"
    reject(record, "deal 2, play 5: ", f"the record says {says}")


def test_play_by_the_wrong_seat(record: dict[str, Any]) -> None:
    entry = play_entry(record, 2, 5)
    turn = entry["seat"]
    entry["seat"] = 1 - turn
    reject(record, "deal 2, play 5: ", f"seat {1 - turn} played", f"seat {turn}'s turn")


@pytest.mark.parametrize("key", sorted(SCORE_KEYS))
def test_tampered_score(record: dict[str, Any], key: str) -> None:
    score = record["deals"][1]["score"]
    if isinstance(score[key], list):
        score[key][0] += 1
    else:
        score[key] += 1
    reject(record, "deal 2: ", f"score {key}")


def test_missing_score(record: dict[str, Any]) -> None:
    del record["deals"][0]["score"]
    reject(record, "deal 1: ", "score")


def test_wrong_leftover_seat(record: dict[str, Any]) -> None:
    leftover = record["deals"][1]["leftover"]
    leftover["seat"] = 1 - leftover["seat"]
    reject(record, "deal 2: ", "leftover should be seat")


def test_wrong_leftover_cards(record: dict[str, Any]) -> None:
    leftover = record["deals"][1]["leftover"]
    leftover["cards"] = leftover["cards"][1:] or [record["deals"][1]["stock"][0]]
    reject(record, "deal 2: ", "leftover")


def test_leftover_null_when_cards_were_left(record: dict[str, Any]) -> None:
    record["deals"][0]["leftover"] = None
    reject(record, "deal 1: ", "leftover is null")


def test_leftover_missing(record: dict[str, Any]) -> None:
    del record["deals"][0]["leftover"]
    reject(record, "deal 1: ", "missing 'leftover'")


def test_leftover_when_none_was_left() -> None:
    for seed in range(200):
        match = whole_match(seed=seed)
        empty = [i for i, deal in enumerate(match.deals) if not deal.leftover]
        if empty:
            break
    else:
        raise AssertionError("no deal ended with an empty floor")
    record = match_record(match, seat_players(2))
    assert record["deals"][empty[0]]["leftover"] is None
    replay(copy.deepcopy(record))
    record["deals"][empty[0]]["leftover"] = {"seat": 0, "cards": ["AS"]}
    reject(record, f"deal {empty[0] + 1}: ", "leftover should be null")


@pytest.mark.parametrize(("key", "change"), [
    ("totals", lambda t: [t[0] + 1, *t[1:]]),
    ("winner", lambda w: 1 - w),
    ("target", lambda t: t + 10),
])
def test_wrong_result(record: dict[str, Any], key: str, change: Any) -> None:
    record["result"][key] = change(record["result"][key])
    reject(record, "result: ", key)


def test_result_missing_from_a_finished_match(record: dict[str, Any]) -> None:
    del record["result"]
    reject(record, "the match is over but the record has no result")


def test_result_on_an_unfinished_match(record: dict[str, Any]) -> None:
    record["deals"][-1]["plays"] = record["deals"][-1]["plays"][:7]
    del record["deals"][-1]["leftover"], record["deals"][-1]["score"]
    reject(record, "result: the record has a result but the match is not over")
    del record["result"]
    assert not replay(record).is_over


def test_deal_after_the_match_is_over(record: dict[str, Any]) -> None:
    record["deals"].append(copy.deepcopy(record["deals"][0]))
    reject(record, f"deal {len(record['deals'])}: the match was already over")


def test_unfinished_deal_before_the_last(record: dict[str, Any]) -> None:
    record["deals"][0]["plays"].pop()
    reject(record, "deal 1: the deal is unfinished (47 plays)")


def test_play_after_every_card_is_played(record: dict[str, Any]) -> None:
    plays = record["deals"][0]["plays"]
    plays.append(copy.deepcopy(plays[-1]))
    reject(record, "deal 1, play 49: every card of the deal has been played already")


def test_duplicated_card_in_a_layout(record: dict[str, Any]) -> None:
    deal = record["deals"][1]
    deal["stock"][-1] = deal["hands"][0][0]
    reject(record, "deal 2: ", f"card {deal['hands'][0][0]} is dealt twice")


def test_duplicated_card_in_a_hand(record: dict[str, Any]) -> None:
    deal = record["deals"][0]
    deal["hands"][1][2] = deal["hands"][1][1]
    reject(record, "deal 1: ", "dealt twice")


def test_bury_card_on_the_initial_floor(record: dict[str, Any]) -> None:
    deal = record["deals"][1]
    jack = next(card for card in deal["stock"] if card.startswith("J"))
    at = deal["stock"].index(jack)
    deal["stock"][at], deal["floor"][0] = deal["floor"][0], jack
    reject(record, "deal 2: ", f"the initial floor holds {jack}, which must be buried")


@pytest.fixture(scope="module")
def with_burials() -> Match:
    """A finished match whose first deal buried a card and another deal buried none."""
    for seed in range(200):
        match = whole_match(seed=seed)
        if match.deals[0].layout.buried and not all(d.layout.buried for d in match.deals):
            return match
    raise AssertionError("no seed buries a card in the first deal")


def test_the_buried_cards_are_written_and_read_back(with_burials: Match) -> None:
    record = json.loads(dumps(match_record(with_burials, seat_players(2))))
    check_record(record, with_burials)
    for deal, history in zip(record["deals"], with_burials.deals, strict=True):
        assert deal["buried"] == [card_name(c) for c in history.layout.buried]
    assert record["deals"][0]["buried"] and [] in [d["buried"] for d in record["deals"]]
    again = replay(record)
    assert [d.layout for d in again.deals] == [d.layout for d in with_burials.deals]
    assert observe(again, 0).buried == observe(with_burials, 0).buried


@pytest.mark.parametrize("missing", ["absent", "null"])
def test_a_record_without_buried_cards_still_replays(with_burials: Match, missing: str) -> None:
    record = json.loads(dumps(match_record(with_burials, seat_players(2))))
    for deal in record["deals"]:
        if missing == "absent":
            del deal["buried"]
        else:
            deal["buried"] = None
    again = replay(record)  # a record written before the field existed: unknown, none
    assert again.totals == with_burials.totals and again.winner == with_burials.winner
    assert all(deal.layout.buried == () for deal in again.deals)
    assert [d.layout._replace(buried=()) for d in with_burials.deals] == [
        d.layout for d in again.deals]


def test_buried_cards_that_cannot_be_right(with_burials: Match) -> None:
    def fresh() -> dict[str, Any]:
        return json.loads(dumps(match_record(with_burials, seat_players(2))))

    record = fresh()
    record["deals"][0]["buried"] = "JS"
    reject(record, "deal 1 buried: expected a list of cards, not 'JS'")
    record = fresh()
    record["deals"][0]["buried"] = ["JZ"]
    reject(record, "deal 1 buried: ", "'JZ'")
    record = fresh()
    plain = next(card for card in record["deals"][0]["stock"] if card[0] in "23456")
    record["deals"][0]["buried"] = [plain]
    reject(record, f"deal 1: {plain} is listed as buried, but these rules bury J 7D")
    record = fresh()
    deal = record["deals"][0]
    jack = next(card for card in deal["stock"] if card[0] == "J")
    at = deal["stock"].index(jack)
    deal["stock"][at], deal["hands"][0][0] = deal["hands"][0][0], jack
    deal["buried"] = [jack]
    reject(record, f"deal 1: {jack} is listed as buried, but it is not in the stock")
    # Any bury card in the stock could have come up: the place of a burial is random.
    record = fresh()
    record["deals"][0]["buried"] = [card for card in record["deals"][0]["stock"]
                                    if card[0] == "J"]
    assert replay(record).deals[0].layout.buried


def test_wrong_dealer(record: dict[str, Any]) -> None:
    deal = record["deals"][1]
    deal["dealer"] = 1 - deal["dealer"]
    reject(record, "deal 2: ", "the dealer of this deal is seat")


def test_layout_of_the_wrong_size(record: dict[str, Any]) -> None:
    record["deals"][0]["floor"].append(record["deals"][0]["stock"].pop())
    reject(record, "deal 1: ", "the floor has 5 cards, expected 4")


def test_bad_card_text(record: dict[str, Any]) -> None:
    play_entry(record, 1, 3)["card"] = "11S"
    reject(record, "deal 1, play 3: ", "'11S'")


def test_captured_card_listed_twice(record: dict[str, Any]) -> None:
    number = first_capture(record, 1)
    entry = play_entry(record, 1, number)
    entry["captured"] = [*entry["captured"], entry["captured"][0]]
    reject(record, f"deal 1, play {number}: ", "listed twice")


def test_play_field_of_the_wrong_type(record: dict[str, Any]) -> None:
    play_entry(record, 2, 1)["basra"] = "no"
    reject(record, "deal 2, play 1: ", "'basra' must be bool")
    play_entry(record, 2, 1)["basra"] = False
    del play_entry(record, 2, 1)["seat"]
    reject(record, "deal 2, play 1: ", "missing 'seat'")


def test_bad_json() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        loads('{"format": "basra-record/1",')
    with pytest.raises(RecordError, match="must be a JSON object"):
        loads("[1, 2]")


@pytest.mark.parametrize("value", ["basra-record/2", "pgn", None])
def test_wrong_format_string(record: dict[str, Any], value: str | None) -> None:
    record["format"] = value
    reject(record, "format must be 'basra-record/1'", repr(value))


def test_missing_format(record: dict[str, Any]) -> None:
    del record["format"]
    reject(record, "format must be 'basra-record/1'")


def test_unknown_rule_option(record: dict[str, Any]) -> None:
    record["rules"]["jokers"] = 2
    reject(record, "rules: ", "unknown rule option 'jokers'")


def test_bad_rule_value(record: dict[str, Any]) -> None:
    record["rules"]["seven_diamonds"] = "explode"
    reject(record, "rules: ", "seven_diamonds", "'explode'")


def test_rules_change_what_the_plays_mean(record: dict[str, Any]) -> None:
    # The record's own rules are authoritative: other card points give other scores.
    record["rules"]["card_points"]["J"] = 2
    reject(record, "deal 1: ", "score card_points")


def test_players_must_fit_the_rules(record: dict[str, Any]) -> None:
    record["players"].append({"name": "extra", "kind": "bot"})
    reject(record, "players: 3 listed for 2 seats")


def test_record_without_deals(record: dict[str, Any]) -> None:
    record["deals"] = []
    reject(record, "the record has no deals")


def test_bad_seed(record: dict[str, Any]) -> None:
    record["seed"] = "abc"
    reject(record, "seed must be a whole number")
