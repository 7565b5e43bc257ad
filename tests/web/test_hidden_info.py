"""No message ever carries a card its recipient may not see.

Whole matches are played over real WebSocket connections (the in-process test client):
every seat of all-human tables in lockstep, and a quick game against the computer, each
with a watcher. Afterwards the finished record rebuilds the true position after every
play, and every message each connection received is checked against the position of its
``seq``: no card from another hand or from the stock may appear in it.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from basra.cards import CARD_NAMES, parse_card
from basra.match import Match
from basra.rules import make_rules
from basra.server import create_app
from basra.state import DealState

STATE_KEYS = {"type", "seq", "you", "table", "deal", "legal", "last_play", "totals", "target",
              "carry", "deal_scores", "result", "deadline", "paused", "rated", "chat",
              "resigned", "aborted", "can_abort"}
"""Every state's keys (a finished match at a rated table adds ``rating_changes``)."""
DEAL_KEYS = {"number", "dealer", "to_play", "hand", "floor", "hand_counts", "stock_count",
             "pile_counts", "basras", "last_capturer", "pile", "last_captures", "seats",
             "buried"}
CARD_SET = set(CARD_NAMES)


def cards_in(value: Any) -> set[str]:
    """Every card name anywhere in a JSON value (as a string or inside move text)."""
    found: set[str] = set()
    if isinstance(value, str):
        for part in value.replace(":", " ").replace("+", " ").split():
            if part in CARD_SET:
                found.add(part)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item)
    return found


def names(mask: int) -> set[str]:
    return {CARD_NAMES[c] for c in range(52) if mask >> c & 1}


def positions(record: dict[str, Any]) -> list[tuple[int, DealState]]:
    """(deal number, state) after each play of the match: index = seq."""
    rules = make_rules(record["variant"], record["rules"]["players"], record["rules"])
    match = Match(rules, seed=record["seed"], variant=record["variant"])
    states = [(1, match.state)]
    for deal in record["deals"]:
        for play in deal["plays"]:
            move = parse_card(play["card"])
            for card in play["captured"]:
                move |= 1 << (6 + parse_card(card))
            match.play(move)
            states.append((len(match.deals), match.state))
    return states


def buried_cards(record: dict[str, Any]) -> dict[int, list[str]]:
    """The cards each deal buried (deal number -> cards): seen face up by everyone, though
    they lie in the stock."""
    return {number: deal.get("buried") or []
            for number, deal in enumerate(record["deals"], start=1)}


def check_messages(messages: list[dict[str, Any]], seat: int | None,
                   states: list[tuple[int, DealState]],
                   buried: dict[int, list[str]] | None = None) -> int:
    """Check every message of one connection; returns how many states were checked.

    ``buried`` (from the record) are the only stock cards a message may name, in its
    deal's ``buried``."""
    checked = 0
    for message in messages:
        text = json.dumps(message)
        assert "seed" not in text and "token" not in text and "stock\"" not in text
        if message["type"] != "state" or message["deal"] is None:
            continue
        assert set(message) - {"rating_changes"} == STATE_KEYS
        assert set(message["deal"]) == DEAL_KEYS
        number, state = states[message["seq"]]
        assert message["deal"]["number"] == number
        hidden = names(state.stock_mask())
        for other, hand in enumerate(state.hands):
            if other != seat:
                hidden |= names(hand)
        # The rules name cards (card points, burying) but are no card's whereabouts.
        table = {key: value for key, value in message["table"].items() if key != "rules"}
        if buried is not None:
            # The record lists each burial, a card buried twice twice; the state, the cards.
            assert sorted(message["deal"]["buried"]) == sorted(set(buried[number]))
        seen = {key: value for key, value in message["deal"].items() if key != "buried"}
        current = {key: message[key] for key in ("legal", "you")} | {"table": table,
                                                                     "deal": seen}
        if message["last_play"] and message["last_play"]["deal"] == number:
            current["last_play"] = message["last_play"]
        leaked = cards_in(current) & hidden
        assert not leaked, f"seat {seat} was sent hidden cards {leaked} at seq {message['seq']}"
        own = names(state.hands[seat]) if seat is not None else set()
        assert set(message["deal"]["hand"]) == own
        check_piles(message["deal"], seat, state)
        if seat is None or state.to_play != seat or state.is_over:
            assert message["legal"] == []
        checked += 1
    return checked


def check_piles(deal: dict[str, Any], seat: int | None, state: DealState) -> None:
    """Captured piles lie face down: a seat is sent its own side's pile and no card of
    another side's pile but those of that side's last capture (made face up); a watcher
    is sent no pile."""
    side_of = state.rules.side_of
    mine = None if seat is None else side_of[seat]
    if mine is None:
        assert deal["pile"] is None, "a watcher was sent a pile"
    else:
        assert deal["pile"] == sorted(deal["pile"], key=CARD_NAMES.index)
        assert set(deal["pile"]) == names(state.piles[mine])
    others = set().union(*(names(pile) for side, pile in enumerate(state.piles)
                           if side != mine))
    # The buried cards were seen when the deal began, wherever they went since.
    rest = {key: value for key, value in deal.items()
            if key not in ("last_captures", "buried")}
    leaked = cards_in(rest) & others
    assert not leaked, f"seat {seat} was sent another side's pile {leaked}"
    assert len(deal["last_captures"]) == len(state.piles)
    for side, capture in enumerate(deal["last_captures"]):
        if capture is None:
            assert side != mine or not deal["pile"]
            continue
        assert side_of[capture["seat"]] == side
        taken = {capture["card"], *capture["captured"]}
        assert capture["captured"] and taken <= names(state.piles[side])


def drive_lockstep(client: TestClient, body: dict[str, Any], seed: int
                   ) -> tuple[dict[int | None, list[dict[str, Any]]], dict[str, Any]]:
    """An all-human table, every seat driven here with random legal moves (sent as the
    page sends them), plus a watcher: each connection's messages, and the record."""
    rng = random.Random(seed)
    created = client.post("/api/tables", json=body).json()
    tokens = {created["seat"]: created["token"]}
    for _ in range(body["players"] - 1):
        joined = client.post(f"/api/tables/{created['code']}/join", json={}).json()
        tokens[joined["seat"]] = joined["token"]
    code = created["code"]
    seats = sorted(tokens)
    received: dict[int | None, list[dict[str, Any]]] = {seat: [] for seat in [*seats, None]}
    with client.websocket_connect(f"/ws/{code}") as watcher:
        sockets = {}
        for seat in seats:
            sockets[seat] = client.websocket_connect(f"/ws/{code}?token={tokens[seat]}")
            sockets[seat].__enter__()
        # Each connection gets one state on connecting, plus one per later connection.
        received[None].append(watcher.receive_json())
        for index in range(len(seats)):
            for listener in [None, *seats[: index + 1]]:
                sock = watcher if listener is None else sockets[listener]
                received[listener].append(sock.receive_json())
        latest = received[seats[0]][-1]
        while latest["result"] is None:
            to_play = latest["deal"]["to_play"]
            view = received[to_play][-1]
            move = rng.choice(view["legal"])
            sockets[to_play].send_text(json.dumps(
                {"type": "play", "seq": view["seq"], "card": move["card"],
                 "captured": move["captured"]}))
            for listener in [None, *seats]:
                sock = watcher if listener is None else sockets[listener]
                received[listener].append(sock.receive_json())
            latest = received[seats[0]][-1]
        for sock in sockets.values():
            sock.__exit__(None, None, None)
    record = client.get(f"/api/records/{latest['result']['record_id']}").json()
    return received, record


def play_lockstep(client: TestClient, body: dict[str, Any], seed: int) -> int:
    """:func:`drive_lockstep`, every message checked: the number checked."""
    received, record = drive_lockstep(client, body, seed)
    states = positions(record)
    buried = buried_cards(record)
    return sum(check_messages(msgs, seat, states, buried) for seat, msgs in received.items())


def slow(*values: Any) -> Any:
    return pytest.param(*values, marks=pytest.mark.slow)


# Egyptian and Pasur at two players are in the quick run; the other games in the full run.
@pytest.mark.parametrize(("variant", "players", "seed", "rules"), [
    ("egyptian", 2, 1, {}), slow("jawaker", 2, 2, {}), slow("egyptian", 4, 3, {}),
    slow("three-player", 3, 4, {}), slow("six-card", 2, 5, {}), slow("lebanese", 3, 6, {}),
    slow("classic", 4, 7, {}), slow("iraqi", 2, 8, {}), ("pasur", 2, 9, {}),
    slow("pasur", 4, 10, {}),
    slow("pasur", 3, 11, {"leftover": "split", "tie_deal": "tied", "target": 20}),
])
def test_no_message_of_a_whole_match_shows_a_hidden_card(
        tmp_path: Any, variant: str, players: int, seed: int, rules: dict[str, Any]) -> None:
    app = create_app(f"sqlite:///{tmp_path}/hidden.db", bot_delay=0)
    with TestClient(app) as client:
        body = {"variant": variant, "players": players, "rules": rules,
                "seats": [{"kind": "human"}] * players}
        checked = play_lockstep(client, body, seed)
    assert checked > 40 * (players + 1)


def test_quick_game_against_the_computer_hides_its_hand(tmp_path: Any) -> None:
    app = create_app(f"sqlite:///{tmp_path}/quick.db", bot_delay=0)
    with TestClient(app) as client:
        quick = client.post("/api/quick", json={"name": "Amira"}).json()
        check_a_match_against_the_computer(client, quick, random.Random(11))


def test_the_neural_level_at_a_table_hides_its_hand(tmp_path: Any) -> None:
    """The neural level (the quick game's computer is the expert) plays a whole match;
    neither the player nor a watcher is sent a card it has not seen."""
    app = create_app(f"sqlite:///{tmp_path}/level.db", bot_delay=0)
    body = {"variant": "egyptian", "players": 2,
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "neural"}]}
    with TestClient(app) as client:
        created = client.post("/api/tables", json=body).json()
        record = check_a_match_against_the_computer(client, created, random.Random(12))
    assert record["players"][1]["kind"] == "bot"


def play_against_the_computer(client: TestClient, code: str, token: str,
                              rng: random.Random) -> tuple[list[dict[str, Any]],
                                                           list[dict[str, Any]]]:
    """Play seat 0 of a table against the computer, a random legal move at a time, to the
    match's end, with a watcher: every message the seat and the watcher got."""
    mine: list[dict[str, Any]] = []
    watched: list[dict[str, Any]] = []
    with client.websocket_connect(f"/ws/{code}") as watcher, \
            client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        while True:
            message = ws.receive_json()
            mine.append(message)
            if message["result"] is not None:
                break
            if message["legal"]:
                move = rng.choice(message["legal"])
                play = {"type": "play", "seq": message["seq"], "card": move["card"]}
                if "captured" in move:
                    play["captured"] = move["captured"]
                ws.send_text(json.dumps(play))
        while True:
            message = watcher.receive_json()
            watched.append(message)
            if message["result"] is not None:
                break
    return mine, watched


def check_a_match_against_the_computer(client: TestClient, table: dict[str, Any],
                                       rng: random.Random) -> dict[str, Any]:
    """Play seat 0 of a table against the computer to the match's end, watched; check
    every message either got; the record."""
    mine, watched = play_against_the_computer(client, table["code"], table["token"], rng)
    record = client.get(f"/api/records/{mine[-1]['result']['record_id']}").json()
    states = positions(record)
    buried = buried_cards(record)
    # A match has at least one deal of 48 plays (a strong first deal can end it).
    assert check_messages(mine, 0, states, buried) >= 48
    assert check_messages(watched, None, states, buried) >= 48
    return record


def test_the_checker_catches_a_leak() -> None:
    """The check above fails when a message does carry another seat's card."""
    match = Match(make_rules("egyptian"), seed=3)
    state = match.state
    theirs = sorted(names(state.hands[1]))
    message = {key: None for key in STATE_KEYS}
    message.update(type="state", seq=0, legal=[], last_play=None, you={"seat": 0},
                   table={}, deal={key: None for key in DEAL_KEYS})
    message["deal"].update(number=1, hand=sorted(names(state.hands[0])), floor=[theirs[0]])
    with pytest.raises(AssertionError, match="hidden cards"):
        check_messages([message], 0, [(1, state)])


def test_the_checker_catches_another_sides_pile() -> None:
    """The pile check fails when a seat is sent cards of another side's pile."""
    match = Match(make_rules("egyptian"), seed=3)
    while not match.state.piles[1]:  # play until seat 1 has captured something
        match.play(max(match.legal_moves(), key=lambda move: (move >> 6).bit_count()))
    state = match.state
    deal = {key: None for key in DEAL_KEYS}
    deal.update(pile=sorted(names(state.piles[0]), key=CARD_NAMES.index),
                last_captures=[None, None], hand=[])
    check_piles(dict(deal), 0, state)
    with pytest.raises(AssertionError, match="another side's pile"):
        check_piles(deal | {"floor": sorted(names(state.piles[1]))}, 0, state)
    with pytest.raises(AssertionError, match="a watcher was sent a pile"):
        check_piles(deal, None, state)
