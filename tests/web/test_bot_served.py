"""Bot accounts against a real ``basra serve`` (``docs/api.md``, "Bot accounts"): a bot
account made through the API, ``basra bot connect`` running ``examples/bot_example.py``,
a person challenging it and playing over the table socket, the bot killed mid-match and
started again, the record exported (``GET /api/games/user/{name}``) and checked by
``basra replay``; a rated game changes only the
bots' list; a revoked token stops the bridge.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from websockets.asyncio.client import connect

from tests.support.realserver import Server, sqlite_url

PASSWORD = "correct horse battery"
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = f"cmd:{sys.executable} {ROOT / 'examples' / 'bot_example.py'}"
State = dict[str, Any]

pytestmark = pytest.mark.slow


class Bridge:
    """``basra bot connect`` as a child process, its output in a file."""

    def __init__(self, folder: Path, server: Server, token: str, *options: str) -> None:
        self.log_path = folder / f"bridge-{time.monotonic_ns()}.log"
        command = [sys.executable, "-m", "basra", "bot", "connect", "--server", server.base,
                   "--token", token, *options, EXAMPLE]
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, cwd=ROOT,
                                            env={**os.environ, "COLUMNS": "200"})

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    async def wait_for(self, text: str, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.log():
            if self.process.poll() is not None and text not in self.log():
                raise AssertionError(f"the bridge exited ({self.process.returncode}) "
                                     f"before {text!r}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the bridge did not log {text!r}:\n{self.log()}")
            await asyncio.sleep(0.05)

    def stop(self, sig: int = signal.SIGINT) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


async def account(http: httpx.AsyncClient, name: str) -> str:
    """A new account: its session cookie."""
    answer = await http.post("/api/signup", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    session = answer.cookies["basra_session"]
    http.cookies.clear()
    return str(session)


async def bot_account(http: httpx.AsyncClient, name: str) -> tuple[str, int]:
    """A bot account made through the API: its token (scope bot) and the token's id."""
    session = await account(http, name)
    made = await http.post("/api/tokens", headers={"cookie": f"basra_session={session}"},
                           json={"description": "bridge", "scopes": ["bot"]})
    assert made.status_code == 201, made.text
    token = made.json()["token"]
    upgraded = await http.post("/api/bot/account/upgrade",
                               headers={"authorization": f"Bearer {token}"})
    assert upgraded.json() == {"name": name, "bot": True}, upgraded.text
    return str(token), int(made.json()["id"])


async def challenge(http: httpx.AsyncClient, session: str, bot: str, rated: bool
                    ) -> tuple[str, str]:
    """Challenge the bot and wait for it to accept: (table code, the seat's token)."""
    headers = {"cookie": f"basra_session={session}"}
    made = await http.post(f"/api/challenge/{bot}", headers=headers, json={
        "variant": "egyptian", "players": 2, "rated": rated, "turn_seconds": 0})
    assert made.status_code == 201, made.text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        inbox = (await http.get("/api/notifications", headers=headers)).json()
        for found in inbox["notifications"]:
            if (found["kind"] == "challenge_accepted"
                    and found["payload"]["challenge"]["id"] == made.json()["id"]):
                return str(found["payload"]["table"]), str(found["payload"]["token"])
        await asyncio.sleep(0.1)
    raise AssertionError("the bot did not accept the challenge")


async def play(server: Server, code: str, token: str, plays: int | None = None) -> State:
    """The person plays their first legal move at each turn, over the table socket, until
    the match ends (or ``plays`` plays are made): the last state."""
    made = 0
    async with connect(f"{server.ws_base}/ws/{code}?token={token}", proxy=None) as socket:
        while True:
            state: State = json.loads(await asyncio.wait_for(socket.recv(), 60))
            if state["type"] != "state":
                continue
            if state["result"] is not None or (plays is not None and made >= plays):
                return state
            mine = (state["deal"] is not None and state["legal"]
                    and state["deal"]["to_play"] == state["you"]["seat"])
            if mine:
                move = state["legal"][0]
                await socket.send(json.dumps({"type": "play", "seq": state["seq"],
                                              "card": move["card"],
                                              "captured": move["captured"]}))
                made += 1


def test_a_bot_plays_a_person_through_the_bridge_and_survives_a_restart(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        with Server(sqlite_url(tmp_path / "b.db"), tmp_path, "--away-after", "60") as server:
            await server.ready()
            async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
                token, _ = await bot_account(http, "Robo")
                person = await account(http, "Noura")
                bridge = Bridge(tmp_path, server, token, "--accept", "casual")
                try:
                    await bridge.wait_for("connected")
                    code, seat_token = await challenge(http, person, "Robo", rated=False)
                    await bridge.wait_for(f"game {code} started")
                    await play(server, code, seat_token, plays=6)  # well into the match
                    assert bridge.stop(signal.SIGKILL) == -signal.SIGKILL  # dropped
                    again = Bridge(tmp_path, server, token, "--accept", "casual")
                    try:
                        await again.wait_for(f"game {code} started")  # resumed
                        final = await play(server, code, seat_token)
                        await again.wait_for(f"game {code} ")
                        await again.wait_for(" against Noura")
                    finally:
                        assert again.stop() == 0, again.log()
                    assert "stopped" in again.log()
                finally:
                    bridge.stop()
                assert final["result"]["record_id"] is not None
                exported = await http.get("/api/games/user/Robo")  # the open data's ndjson
                assert exported.status_code == 200
                [line] = exported.text.splitlines()
                document = json.loads(line)
                assert [p["name"] for p in document["players"]].count("Robo") == 1
                assert document["result"]["totals"] == final["result"]["totals"]
                path = tmp_path / "match.json"
                path.write_text(line)
                replayed = subprocess.run([sys.executable, "-m", "basra", "replay", str(path)],
                                          capture_output=True, text=True, cwd=ROOT)
                assert replayed.returncode == 0, replayed.stderr
                # the bot's page and the table mark it a bot
                assert (await http.get("/api/users/Robo")).json()["bot"] is True
                seats = (await http.get(f"/api/tables/{code}")).json()["seats"]
                assert [s["bot"] for s in seats if s["account"] == "Robo"] == [True]

    asyncio.run(scenario())


def test_a_rated_bot_game_changes_only_the_bots_list_and_revoking_stops_it(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        with Server(sqlite_url(tmp_path / "r.db"), tmp_path) as server:
            await server.ready()
            async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
                token, token_id = await bot_account(http, "Ranked")
                owner = await _owner_session(http, "Ranked")
                person = await account(http, "Omar")
                bridge = Bridge(tmp_path, server, token, "--accept", "rated",
                                "--variants", "egyptian")
                try:
                    await bridge.wait_for("connected")
                    casual = await http.post("/api/challenge/Ranked", json={
                        "variant": "egyptian", "players": 2, "rated": False},
                        headers={"cookie": f"basra_session={person}"})
                    assert casual.status_code == 201
                    await bridge.wait_for("declined casual egyptian from Omar (rated)")
                    code, seat_token = await challenge(http, person, "Ranked", rated=True)
                    final = await play(server, code, seat_token)
                    assert [c["seat"] for c in final["rating_changes"]] == [
                        1 - final["you"]["seat"]]
                    people = (await http.get("/api/leaderboard?pool=egyptian-2")).json()
                    assert {"Ranked", "Omar"}.isdisjoint(p["name"] for p in people["players"])
                    bots = (await http.get("/api/leaderboard?bots=1")).json()
                    assert [p["name"] for p in bots["pools"]["egyptian-2"]] == ["Ranked"]
                    assert (await http.get("/api/users/Omar")).json()["ratings"] == {}
                    revoked = await http.delete(f"/api/tokens/{token_id}",
                                                headers={"cookie": f"basra_session={owner}"})
                    assert revoked.status_code == 200
                    code = await asyncio.to_thread(bridge.process.wait, 30)
                    assert code == 2, bridge.log()
                    assert "bad_token" in bridge.log()
                finally:
                    bridge.stop()

    asyncio.run(scenario())


async def _owner_session(http: httpx.AsyncClient, name: str) -> str:
    """A new session of an account (its owner logs in to revoke a token)."""
    answer = await http.post("/api/login", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    session = answer.cookies["basra_session"]
    http.cookies.clear()
    return str(session)
