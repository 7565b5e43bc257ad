"""Tables in progress survive a server restart: seats, tokens and the exact position."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from basra.record import replay
from basra.server import create_app


def own_moves(ws: Any, count: int, first: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play ``count`` of our own moves (the first legal one each time), then return the
    state when it is our turn again (nothing moves until we play) or the match is over."""
    played = 0
    while True:
        message, first = (first, None) if first is not None else (ws.receive_json(), None)
        if message["type"] != "state":
            continue
        if (played == count and message["legal"]) or message["result"] is not None:
            return message
        if message["legal"]:
            move = message["legal"][0]
            ws.send_text(json.dumps({"type": "play", "seq": message["seq"],
                                     "card": move["card"], "captured": move["captured"]}))
            played += 1


def test_a_quick_game_goes_on_after_a_restart(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/restart.db"
    with TestClient(create_app(url, bot_delay=0)) as client:
        quick = client.post("/api/quick", json={"name": "Amira"}).json()
        with client.websocket_connect(f"/ws/{quick['code']}?token={quick['token']}") as ws:
            before = own_moves(ws, 14)
    assert before["seq"] >= 14 and before["result"] is None

    with TestClient(create_app(url, bot_delay=0)) as client:
        info = client.get(f"/api/tables/{quick['code']}").json()
        assert info["status"] == "playing"
        assert info["seats"][0]["name"] == "Amira"
        with client.websocket_connect(f"/ws/{quick['code']}?token={quick['token']}") as ws:
            after = ws.receive_json()
            # The same position, to the card; only who is connected may differ.
            for key in ("seq", "deal", "legal", "last_play", "totals", "deal_scores", "you"):
                assert after[key] == before[key], key
            end = own_moves(ws, 10_000, first=after)
        record = client.get(f"/api/records/{end['result']['record_id']}").json()
    assert replay(record).totals == end["result"]["totals"]
    assert sum(len(deal["plays"]) for deal in record["deals"]) == end["seq"]


@pytest.mark.slow
def test_a_waiting_table_keeps_its_seats_and_tokens(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/waiting.db"
    body = {"players": 2, "seats": [{"kind": "human"}, {"kind": "human"}], "name": "Omar"}
    with TestClient(create_app(url, bot_delay=0)) as client:
        created = client.post("/api/tables", json=body).json()
    code = created["code"]
    with TestClient(create_app(url, bot_delay=0)) as client:
        assert client.get(f"/api/tables/{code}").json()["status"] == "waiting"
        joined = client.post(f"/api/tables/{code}/join", json={"name": "Huda"}).json()
        assert joined["seat"] == 1
        with client.websocket_connect(f"/ws/{code}?token={created['token']}") as ws:
            state = ws.receive_json()
            assert state["you"]["seat"] == 0
            assert state["table"]["status"] == "playing"
            assert [s["name"] for s in state["table"]["seats"]] == ["Omar", "Huda"]
            assert len(state["deal"]["hand"]) == 4


def test_the_computer_resumes_its_turn_after_a_restart(tmp_path: Any) -> None:
    """Stopped while the computer was to play, the server plays its move on restart."""
    url = f"sqlite:///{tmp_path}/bot.db"
    with TestClient(create_app(url, bot_delay=3600)) as client:  # the bot never gets to play
        quick = client.post("/api/quick").json()
        with client.websocket_connect(f"/ws/{quick['code']}?token={quick['token']}") as ws:
            state = ws.receive_json()
            if state["deal"]["to_play"] == 0:
                move = state["legal"][0]
                ws.send_text(json.dumps({"type": "play", "seq": state["seq"],
                                         "card": move["card"], "captured": move["captured"]}))
                state = ws.receive_json()
    assert state["deal"]["to_play"] == 1
    waiting_at = state["seq"]
    with TestClient(create_app(url, bot_delay=0)) as client, \
            client.websocket_connect(f"/ws/{quick['code']}?token={quick['token']}") as ws:
        state = ws.receive_json()
        while state["seq"] == waiting_at:
            state = ws.receive_json()
        assert state["seq"] == waiting_at + 1
        assert state["last_play"]["seat"] == 1
