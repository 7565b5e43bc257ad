"""Every computer level plays at a web table (the master in its worker process)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from basra.bots import BOT_LEVELS
from basra.server import create_app


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_each_level_answers_a_play(tmp_path: Any, level: str) -> None:
    app = create_app(f"sqlite:///{tmp_path}/levels.db", bot_delay=0, master_ms=30)
    body = {"seats": [{"kind": "human"}, {"kind": "bot", "level": level}]}
    with TestClient(app) as client:
        table = client.post("/api/tables", json=body).json()
        computer_plays = 0
        with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
            while computer_plays < 3:
                state = ws.receive_json()
                assert state["type"] == "state"
                last = state["last_play"]
                if last is not None and last["seat"] == 1 and state["legal"]:
                    computer_plays += 1
                if state["legal"]:
                    move = state["legal"][0]
                    ws.send_text(json.dumps({"type": "play", "seq": state["seq"],
                                             "card": move["card"],
                                             "captured": move["captured"]}))
        info = client.get(f"/api/tables/{table['code']}").json()
    assert info["seats"][1]["level"] == level
