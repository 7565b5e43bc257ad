"""Pile games (Pişti, Xeri) at a web table: what the New table form offers, what each
connection is sent, and the replay.

Whole matches are played over real WebSocket connections (the in-process test client),
every seat of all-human tables in lockstep, and against the computer, each with a
watcher. The finished record then rebuilds the true position after every play, and every
message is checked against it: no face-down card of the first pile reaches a connection
that may not see it (spec 9.9, per ``kitty_view``), nor any card of another hand or of
the stock but the shown bottom card.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from basra.cards import CARD_NAMES, JACK
from basra.match import Match
from basra.record import Player, match_record
from basra.rules import make_rules
from basra.server import create_app
from basra.server.replay import replay_frames
from basra.server.table import ConfigError, TableConfig, variants_listing
from basra.state import DealState, hidden_down
from tests.web.test_hidden_info import (
    cards_in,
    drive_lockstep,
    names,
    play_against_the_computer,
    positions,
)

PILE_DEAL_KEYS = {"number", "dealer", "to_play", "hand", "floor", "hand_counts",
                  "stock_count", "pile_counts", "basras", "last_capturer", "pile",
                  "last_captures", "seats", "buried", "stack", "down_count", "bottom_card",
                  "jack_pistis"}


def may_not_see(state: DealState, seat: int | None) -> int:
    """The cards ``seat`` (None: a watcher) may not be sent: other hands, the stock, and
    the face-down cards it has not been shown; never a card every seat saw (the shown
    bottom card, a Jack turned up)."""
    hidden = state.stock_mask()
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden |= hand
    if seat is None:
        hidden |= 0 if state.is_over else state.down
    else:
        hidden |= hidden_down(state, seat)
    return hidden & ~state.exposed


def check_pile_messages(messages: list[dict[str, Any]], seat: int | None,
                        states: list[tuple[int, DealState]], open_stores: bool) -> int:
    """Check every state message of one connection; returns how many were checked."""
    checked = 0
    for message in messages:
        if message["type"] != "state" or message["deal"] is None:
            continue
        deal = message["deal"]
        assert set(deal) == PILE_DEAL_KEYS
        number, state = states[message["seq"]]
        assert deal["number"] == number
        forbidden = names(may_not_see(state, seat))
        table = {key: value for key, value in message["table"].items() if key != "rules"}
        current = {"legal": message["legal"], "deal": deal, "table": table}
        if message["last_play"] and message["last_play"]["deal"] == number:
            current["last_play"] = message["last_play"]
        leaked = cards_in(current) & forbidden
        assert not leaked, f"seat {seat} was sent hidden cards {leaked} at seq {message['seq']}"
        # The stack is the pile bottom to top, a face-down card it may not see as None.
        pile = list(state.laid) if state.floor else []
        hidden = names(may_not_see(state, seat))
        assert deal["stack"] == [None if CARD_NAMES[c] in hidden else CARD_NAMES[c]
                                 for c in pile]
        assert deal["down_count"] == deal["stack"].count(None)
        bottom = [c for c in range(52) if state.exposed >> c & 1 and c >> 2 != JACK]
        assert deal["bottom_card"] == (CARD_NAMES[bottom[0]] if bottom else None)
        # The stores lie closed unless the table opens them, and never to a watcher.
        if seat is None or not open_stores:
            assert deal["pile"] is None
        else:
            side = state.rules.side_of[seat]
            assert set(deal["pile"]) == names(state.piles[side]) - hidden
        checked += 1
    return checked


@pytest.mark.parametrize(("variant", "players", "seed", "rules", "open_stores"), [
    ("pisti", 2, 1, {"target": 40}, False),
    ("pisti", 4, 2, {"target": 40}, True),
    ("pisti", 4, 3, {"target": 40, "kitty_view": "capturer"}, True),
    ("pisti", 2, 4, {"target": 40, "kitty_view": "first_player"}, False),
    ("xeri", 4, 5, {"target": 40}, False),
])
def test_no_message_of_a_pile_match_shows_a_face_down_card(
        tmp_path: Any, variant: str, players: int, seed: int, rules: dict[str, Any],
        open_stores: bool) -> None:
    app = create_app(f"sqlite:///{tmp_path}/pile.db", bot_delay=0)
    with TestClient(app) as client:
        body = {"variant": variant, "players": players, "rules": rules,
                "seats": [{"kind": "human"}] * players, "open_stores": open_stores}
        received, record = drive_lockstep(client, body, seed)
    # A move is a card: what a legal move takes is the pile, taken by its top's rank or a
    # Jack, or nothing.
    for messages in received.values():
        for message in messages:
            for move in message.get("legal") or []:
                assert move["captured"] == [] or move["card"][0] == "J" or (
                    move["card"][0] == message["deal"]["stack"][-1][0]), move
    states = positions(record)
    checked = sum(check_pile_messages(messages, seat, states, open_stores)
                  for seat, messages in received.items())
    assert checked > 48 * (players + 1)
    # Some message showed a seat the face-down cards it had taken (Pişti), or none
    # existed (Xeri); the watcher never saw one before the deal's score.
    shown = [m for seat, ms in received.items() if seat is not None for m in ms
             if m["type"] == "state" and m["deal"] and m["deal"]["down_count"] == 0
             and m["deal"]["stack"]]
    assert shown
    last = received[None][-1]
    assert last["deal_scores"] and all(
        len(score["pistis"]) == len(score["total"]) for score in last["deal_scores"])
    assert last["table"]["open_stores"] is open_stores


@pytest.mark.parametrize("level", ["random", "greedy", "neural"])
def test_a_pisti_match_against_the_computer(tmp_path: Any, level: str) -> None:
    """The computer plays the pile game; the player and a watcher see no hidden card."""
    app = create_app(f"sqlite:///{tmp_path}/computer.db", bot_delay=0)
    rng = random.Random(7)
    body = {"variant": "pisti", "players": 2, "rules": {"target": 40},
            "seats": [{"kind": "human"}, {"kind": "bot", "level": level}]}
    with TestClient(app) as client:
        created = client.post("/api/tables", json=body).json()
        mine, watched = play_against_the_computer(client, created["code"],
                                                  created["token"], rng)
        record = client.get(f"/api/records/{mine[-1]['result']['record_id']}").json()
    states = positions(record)
    assert check_pile_messages(mine, 0, states, False) >= 48
    assert check_pile_messages(watched, None, states, False) >= 48
    assert record["players"][1]["kind"] == "bot"


def test_the_new_table_form_offers_the_pile_games() -> None:
    listed = {variant["name"]: variant for variant in variants_listing()}
    assert listed["pisti"]["pile"] and listed["xeri"]["pile"]
    assert not listed["egyptian"]["pile"]
    assert 2 in listed["xeri"]["players"] and 4 in listed["xeri"]["players"]
    config = TableConfig.parse({"variant": "xeri", "players": 4})
    assert [seat.level for seat in config.seats] == [None, "expert", "expert", "expert"]
    assert config.takeover_level == "expert" and not config.open_stores
    with pytest.raises(ConfigError, match="open_stores must be true or false, not 'yes'"):
        TableConfig.parse({"variant": "pisti", "open_stores": "yes"})
    with pytest.raises(ConfigError, match="open_stores is for pile games"):
        TableConfig.parse({"variant": "egyptian", "open_stores": True})
    opened = TableConfig.parse({"variant": "pisti", "open_stores": True})
    assert TableConfig.from_dict(opened.to_dict()) == opened


def test_a_pile_record_replays_with_its_stack_and_pistis() -> None:
    match = Match(make_rules("pisti", 2, {"target": 60}), seed=4, variant="pisti")
    rng = random.Random(4)
    while not match.is_over:
        match.play(rng.choice(match.legal_moves()))
    record = match_record(match, [Player("a", "human"), Player("b", "bot")])
    frames = replay_frames(record)["frames"]
    first = frames[0]
    assert len(first["stack"]) == 4 and len(first["down"]) == 3
    assert first["down"] == first["stack"][:3] and first["bottom_card"] is not None
    captures = [frame for frame in frames if frame["play"] and frame["play"]["captured"]]
    assert captures and all(frame["stack"] == [] for frame in captures)
    scored = [frame for frame in frames if frame["deal_score"]]
    assert len(scored) == len(match.deals)
    for frame in scored:
        score = frame["deal_score"]
        assert len(score["pistis"]) == 2
        assert [plain + jack for plain, jack in score["pistis"]] == score["basras"]
        made = sum(f["play"].get("pisti", 0) for f in frames
                   if f["play"] and f["deal"] == frame["deal"])
        assert made == sum(score["basra_points"])
    assert any(sum(frame["deal_score"]["basras"]) for frame in scored)


def test_a_pile_table_gives_hints_naming_only_cards_the_seat_sees(tmp_path: Any) -> None:
    app = create_app(f"sqlite:///{tmp_path}/hint.db", bot_delay=0)
    body = {"variant": "pisti", "seats": [{"kind": "human"}, {"kind": "bot",
                                                              "level": "master"}]}
    with TestClient(app) as client:
        created = client.post("/api/tables", json=body).json()
        code, token = created["code"], created["token"]
        with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
            message = ws.receive_json()
            while not message["legal"]:
                message = ws.receive_json()
            answer = client.get(f"/api/tables/{code}/hint?token={token}")
    assert answer.status_code == 200, answer.json()
    moves = answer.json()["moves"]
    assert sorted(m["card"] for m in moves) == sorted(m["card"] for m in message["legal"])
    seen = json.dumps(message)
    for move in moves:
        assert all(f'"{card}"' in seen for card in move["captured"]), move
