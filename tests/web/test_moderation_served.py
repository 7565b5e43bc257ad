"""Moderation against a real ``basra serve``, over real sockets: the operator makes a
moderator with ``basra admin``, a player's report reaches the moderation queue with the
table's chat, and a mute silences the player at the table until it is lifted.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.support.clients import Client
from tests.support.realserver import Server, sqlite_url

PASSWORD = "correct horse battery"


async def chat_lines(socket: ClientConnection, seconds: float = 1.0) -> list[dict[str, Any]]:
    """The chat messages (and errors) the socket receives within ``seconds``."""
    found = []
    try:
        async with asyncio.timeout(seconds):
            while True:
                message = json.loads(await socket.recv())
                if message["type"] in ("chat", "error"):
                    found.append(message)
    except TimeoutError:
        pass
    return found


@pytest.mark.slow
def test_a_report_reaches_the_moderator_and_a_mute_silences_the_player(
        tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "basra.db")
    with Server(url, tmp_path, "--bot-delay", "0") as server:
        server.wait()
        amira, bashir, mona = (Client(server, f"127.0.0.{n}") for n in (2, 3, 4))
        for client, name in ((amira, "Amira"), (bashir, "Bashir"), (mona, "Mona")):
            assert client.post("/api/signup", {"name": name, "password": PASSWORD})[0] == 201
        granted = subprocess.run(
            [sys.executable, "-m", "basra", "admin", "grant-moderator", "mona", "--db", url],
            capture_output=True, text=True, timeout=120)
        assert granted.returncode == 0, granted.stderr
        assert "Mona is now a moderator" in granted.stdout
        status, made, _ = amira.post("/api/tables", {"seats": [{"kind": "human"},
                                                               {"kind": "human"}]})
        assert status == 200, made
        code = made["code"]
        status, joined, _ = bashir.post(f"/api/tables/{code}/join", {})
        assert status == 200, joined

        async def at_the_table() -> None:
            base = f"{server.ws_base}/ws/{code}?token="
            async with connect(base + made["token"]) as a, \
                    connect(base + joined["token"]) as b:
                await b.send(json.dumps({"type": "chat", "phrase": "good_luck"}))
                assert [m.get("phrase") for m in await chat_lines(a)] == ["good_luck"]
                assert [m.get("phrase") for m in await chat_lines(b)] == ["good_luck"]
                status, _, _ = await asyncio.to_thread(amira.post, "/api/reports", {
                    "table": code, "seat": 1, "reason": "abuse", "text": "rude"})
                assert status == 201
                status, queue, _ = await asyncio.to_thread(mona.get, "/api/mod")
                assert status == 200, queue
                [report] = queue["reports"]
                assert (report["reporter"], report["target"]) == ("Amira", "Bashir")
                assert [line.get("phrase") for line in report["chat"]] == ["good_luck"]
                status, muted, _ = await asyncio.to_thread(
                    mona.post, "/api/mod/actions", {"action": "mute", "name": "Bashir",
                                                    "minutes": 60, "reason": "insults",
                                                    "report": report["id"]})
                assert status == 200, muted
                await b.send(json.dumps({"type": "chat", "phrase": "oops"}))
                [refused] = await chat_lines(b)
                assert refused["code"] == "muted" and refused["params"]["reason"] == "insults"
                assert await chat_lines(a) == []
                status, standing, _ = await asyncio.to_thread(bashir.get, "/api/me/standing")
                assert [s["kind"] for s in standing["sanctions"]] == ["mute"]
                status, lifted, _ = await asyncio.to_thread(
                    mona.post, "/api/mod/actions", {"action": "lift_mute", "name": "Bashir",
                                                    "reason": "served"})
                assert status == 200, lifted
                await b.send(json.dumps({"type": "chat", "phrase": "thanks"}))
                assert [m.get("phrase") for m in await chat_lines(a)] == ["thanks"]

        asyncio.run(at_the_table())
        status, queue, _ = mona.get("/api/mod")
        assert queue["reports"] == []  # the mute settled the report
        assert [(e["action"], e["target"]) for e in queue["audit"]] == [
            ("lift_mute", "Bashir"), ("settle_report", "Bashir"), ("mute", "Bashir"),
            ("grant_moderator", "Mona")]
        assert "Traceback" not in server.log(), server.log()[-3000:]
