"""Pasur and the house rules that came with it, through the server: a Pasur table is made,
played to its end by the computer over real WebSockets, and its record downloaded and
replayed; every state says what the page needs (the family, the clubs prize, the surs
that cancelled, the seats that play a deal, how a split leftover was shared out); a seat
that sits out a deciding deal is never waited for, by a person or by the computer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from basra.cards import CARD_NAMES
from basra.match import DealHistory, Match
from basra.record import loads, replay
from basra.rules import make_rules
from basra.server.views import deal_score_view
from basra.state import DealScore, Layout

Web = Any
State = dict[str, Any]

TIED_RULES = {"tie_deal": "tied", "target": 10}
"""Three Pasur players to 10, the deciding deal played by the tied players only."""


def play_first_legal(match: Match) -> Match:
    """Plays the match as the tests' clients do (each seat its first legal move) until it
    ends or a deciding deal between tied players is due."""
    while not match.is_over and match.playing is None:
        match.play(match.legal_moves()[0])
    return match


def tied_seed(tries: int = 500) -> int:
    """A seed whose three-player Pasur match, each seat playing its first legal move, comes
    to a deciding deal that seat 0 sits out."""
    rules = make_rules("pasur", 3, TIED_RULES)
    for seed in range(tries):
        match = play_first_legal(Match(rules, seed=seed, variant="pasur"))
        if match.playing is not None and 0 not in match.playing:
            return seed
    raise AssertionError(f"no seed below {tries} comes to a deciding deal without seat 0")


def check_deal_score(score: State, rules: dict[str, Any]) -> None:
    """A Pasur deal score adds up: the clubs prize to one side, surs after cancelling."""
    assert len(score["clubs"]) == len(score["total"])
    assert sorted(score["clubs"])[-1] in (0, rules["clubs_points"])
    assert score["clubs"].count(rules["clubs_points"]) <= 1
    cancelled = score["basras_cancelled"]
    for side, made in enumerate(score["basras"]):
        assert 0 <= cancelled[side] <= made
        assert score["basra_points"][side] == (made - cancelled[side]) * rules["basra_points"]
        parts = ("card_points", "basra_points", "majority", "clubs")
        assert score["total"][side] == sum(score[part][side] for part in parts)


def test_a_pasur_table_is_played_to_its_end_by_the_computer_and_replays(web: Web) -> None:
    created = web.new_table(variant="pasur", players=2, seats=[
        {"kind": "bot", "level": "expert"}, {"kind": "bot", "level": "greedy"}])
    assert created["seat"] is None  # nobody to seat: the table is watched
    code = created["code"]
    info = web.info(code)
    assert info["variant"] == "pasur" and info["family"] == "pasur"
    assert info["rules"]["family"] == "pasur" and info["rules"]["clubs_points"] == 7
    watcher = web.connect(code)
    end = watcher.wait_for(lambda state: state["result"] is not None
                           and state["result"]["record_id"] is not None, seconds=120)
    assert end["table"]["family"] == "pasur"
    rules = end["table"]["rules"]
    assert max(end["result"]["totals"]) >= end["target"] >= 62

    # Every deal's score has the clubs prize (7 to the side with most clubs: with two
    # sides, one always has 7 or more) and the surs that cancelled.
    scores = end["deal_scores"]
    assert scores and [score["deal"] for score in scores] == list(range(1, len(scores) + 1))
    for score in scores:
        check_deal_score(score, rules)
        assert sorted(score["clubs"]) == [0, 7]
        assert score["seats"] == [0, 1]
        assert score["majority"] == [0, 0]  # Pasur has no prize for most cards
    assert [sum(side) for side in zip(*(s["total"] for s in scores), strict=True)] \
        == end["result"]["totals"]
    # Some state on the way said whose deal it was and which seats played it.
    playing = [state for state in watcher.received
               if state["type"] == "state" and state["deal"] is not None]
    assert playing and all(state["deal"]["seats"] in ([0, 1], [1, 0]) for state in playing)
    assert all(isinstance(state["deal"]["buried"], list) for state in playing)

    # The record downloads, and the core replays it to the same result.
    record_id = end["result"]["record_id"]
    response = web.http.get(f"/api/records/{record_id}?download=1")
    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith("attachment")
    record = loads(response.text)
    assert record["variant"] == "pasur" and record["rules"]["family"] == "pasur"
    match = replay(record)
    assert match.is_over and match.rules.family == "pasur"
    assert match.totals == end["result"]["totals"] and match.winner == end["result"]["winner"]
    for history, score in zip(match.deals, scores, strict=True):
        assert history.score is not None and list(history.score.clubs) == score["clubs"]
    assert [deal["score"]["clubs"] for deal in record["deals"]] == [s["clubs"] for s in scores]

    # The replay page's frames show the same scores and say "pasur" in their rules.
    frames = web.ok(web.http.get(f"/api/records/{record_id}/frames"))
    assert frames["record"]["rules"]["family"] == "pasur"
    shown = [frame["deal_score"] for frame in frames["frames"] if frame["deal_score"]]
    assert shown == scores
    assert all(frame["seats"] == [0, 1] or frame["seats"] == [1, 0]
               for frame in frames["frames"])


def test_a_seat_that_sits_out_the_deciding_deal_is_never_waited_for(
        start_web: Callable[..., Web]) -> None:
    """Three Pasur players, the deciding deal between seats 1 and 2: seat 0 is sent no
    cards and no turn, and when the tied players leave, the computer plays the deal for
    them to the end of the match without ever waiting for seat 0 (who stays to watch)."""
    seed = tied_seed()
    web = start_web(away_after=0.2)
    created = web.new_table(variant="pasur", players=3, rules=TIED_RULES,
                            seats=[{"kind": "human"}] * 3)
    code = created["code"]
    web.hub.tables[code].seed = seed
    tokens = [created["token"], web.join(code)["token"], web.join(code)["token"]]
    clients = [web.connect(code, token, f"seat {seat}") for seat, token in enumerate(tokens)]

    # Everyone plays their first legal move until the deciding deal is dealt.
    while True:
        web.settle(clients)
        state = clients[0].state
        assert state is not None and state["result"] is None
        if state["deal"]["number"] > 2 or len(state["deal"]["seats"]) < 3:
            break
        mover = next(c for c in clients if c.my_turn())
        sent = mover.state["seq"] if mover.state else -1
        mover.play()
        mover.wait_for(lambda s, sent=sent: s["seq"] > sent)
    deal = state["deal"]
    assert sorted(deal["seats"]) == [1, 2]
    assert deal["hand"] == [] and deal["hand_counts"][0] == 0 and state["legal"] == []
    assert deal["to_play"] in (1, 2)
    tied = state["totals"][1] == state["totals"][2] >= 10 > state["totals"][0]
    assert tied, state["totals"]

    # The tied players leave; seat 0 watches the computer finish for them.
    for client in clients[1:]:
        client.socket.close()
    end = clients[0].wait_for(lambda s: s["result"] is not None
                              and s["result"]["record_id"] is not None, seconds=60)
    for message in clients[0].received:
        if message["type"] != "state" or message["deal"] is None:
            continue
        if 0 not in message["deal"]["seats"]:
            assert message["deal"]["to_play"] != 0 and message["legal"] == []
            assert message["deal"]["hand"] == [] and message["deadline"] is None
    seats = {seat["seat"]: seat for seat in end["table"]["seats"]}
    assert seats[1]["away"] and seats[2]["away"] and not seats[0]["away"]
    deciding = [s for s in end["deal_scores"] if s["seats"] != [0, 1, 2]]
    assert deciding and all(sorted(s["seats"]) == [1, 2] for s in deciding)
    for score in deciding:
        assert score["cards"][0] == score["total"][0] == score["clubs"][0] == 0

    # The record keeps who played the deciding deal, and replays.
    record = web.ok(web.http.get(f"/api/records/{end['result']['record_id']}"))
    for score in deciding:
        assert sorted(record["deals"][score["deal"] - 1]["seats"]) == [1, 2]
    assert replay(record).totals == end["result"]["totals"]


def test_a_split_leftover_is_sent_card_by_card_even_when_nobody_captured() -> None:
    """Under ``leftover = split`` the score says which side got each card; a deal nobody
    captured in (``leftover_seat`` -1) is described, not crashed on."""
    rules = make_rules("pasur", 2, {"leftover": "split"})
    match = Match(rules, seed=4, variant="pasur")
    while len(match.deals) == 1:
        match.play(match.legal_moves()[0])
    history = match.deals[0]
    view = deal_score_view(rules, 1, history)
    if history.leftover:
        left = view["leftover"]
        assert left["seat"] == history.leftover_seat
        assert len(left["cards"]) == len(left["sides"]) == history.leftover.bit_count()
        assert left["sides"] == [side for _, side in history.shares]

    layout = Layout(0, (1, 2, 3, 4), ((5, 6, 7, 8), (9, 10, 11, 12)), tuple(range(13, 52)))
    nobody = DealHistory(layout, leftover_seat=-1, leftover=0b11110,
                         shares=((1, 1), (2, 0), (3, 1), (4, 0)),
                         score=DealScore((2, 2), (0, 0), (0, 0), (0, 0), (0, 0), (7, 0), 0, 0,
                                         (7, 0)))
    view = deal_score_view(rules, 3, nobody)
    assert view["leftover"] == {"seat": -1, "cards": [CARD_NAMES[c] for c in (1, 2, 3, 4)],
                                "sides": [1, 0, 1, 0]}
    assert view["clubs"] == [7, 0] and view["basras_cancelled"] == [0, 0]
    assert view["seats"] == [0, 1] and view["deal"] == 3


def test_a_basra_table_sends_no_clubs_and_no_cancelling(web: Web) -> None:
    """The clubs prize and the cancelled surs are in a deal's score only under rules that
    have them."""
    rules = make_rules("egyptian", 2)
    match = Match(rules, seed=1)
    while len(match.deals) == 1:
        match.play(match.legal_moves()[0])
    view = deal_score_view(rules, 1, match.deals[0])
    assert "clubs" not in view and "basras_cancelled" not in view
    created = web.new_table(rules={"family": "pasur", "seven_diamonds": "plain"})
    info = web.info(created["code"])
    assert info["variant"] == "egyptian" and info["family"] == "pasur"
