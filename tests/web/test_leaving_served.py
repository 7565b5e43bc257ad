"""Leaving a table against a real ``basra serve``, over real sockets: resigning (casual and
rated: a loss, stored in the record), aborting before one's first play (refused after
it), bad frames refused with nothing changed, and a table of computers that pauses while
nobody is connected and goes on when a watcher comes back.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.support.clients import Client
from tests.support.realserver import Server, sqlite_url

PASSWORD = "correct horse battery"
State = dict[str, Any]


class Socket:
    """A table socket that keeps every message and the latest state."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.state: State | None = None
        self.messages: list[State] = []

    async def send(self, message: Any) -> None:
        await self.socket.send(message if isinstance(message, str) else json.dumps(message))

    async def next(self, seconds: float = 15.0) -> State:
        message: State = json.loads(await asyncio.wait_for(self.socket.recv(), seconds))
        self.messages.append(message)
        if message["type"] == "state":
            self.state = message
        return message

    async def until(self, wanted: Any, seconds: float = 30.0) -> State:
        """Read until a message is ``wanted`` (the current state counts)."""
        if self.state is not None and wanted(self.state):
            return self.state
        deadline = time.monotonic() + seconds
        while True:
            message = await self.next(max(0.1, deadline - time.monotonic()))
            if wanted(message):
                return message

    async def error(self) -> State:
        return await self.until(lambda m: m["type"] == "error", 10)

    async def sync(self) -> None:
        """Read everything sent before a pong."""
        await self.send({"type": "ping"})
        await self.until(lambda m: m["type"] == "pong", 10)


async def opened(server: Server, code: str, token: str | None = None) -> tuple[Any, Socket]:
    url = f"{server.ws_base}/ws/{code}" + (f"?token={token}" if token else "")
    context = connect(url, proxy=None)
    socket = Socket(await context.__aenter__())
    await socket.until(lambda m: m["type"] == "state", 10)
    return context, socket


def my_turn(state: State) -> bool:
    return (state["type"] == "state" and state["result"] is None and state["deal"] is not None
            and state["deal"]["to_play"] == state["you"]["seat"] and bool(state["legal"]))


async def play_once(socket: Socket, *others: Socket) -> None:
    """Wait for the seat's turn (``others`` play theirs meanwhile) and make its first
    legal play (confirmed)."""
    while True:
        await socket.sync()
        if socket.state is not None and my_turn(socket.state):
            break
        for other in others:
            await other.sync()
            if other.state is not None and my_turn(other.state):
                await play_once(other)
        await asyncio.sleep(0.05)
    state = socket.state
    move = state["legal"][0]
    await socket.send({"type": "play", "seq": state["seq"], "card": move["card"],
                       "captured": move["captured"]})
    await socket.until(lambda m: m["type"] == "state" and m["seq"] > state["seq"])


@pytest.mark.slow
def test_resign_and_abort_at_casual_tables(tmp_path: Path) -> None:
    with Server(sqlite_url(tmp_path / "basra.db"), tmp_path, "--bot-delay", "0") as server:
        server.wait()
        http = Client(server)

        async def scenario() -> None:
            # A quick game: abort before the first play ends it for everyone, no record.
            quick = http.post("/api/quick", {"name": "Amira"})[1]
            context, me = await opened(server, quick["code"], quick["token"])
            watcher_context, watcher = await opened(server, quick["code"])
            await me.send({"type": "abort"})
            ended = await me.until(lambda m: m["type"] == "state" and m["aborted"] == 0)
            assert ended["table"]["status"] == "finished" and ended["result"] is None
            seen = await watcher.until(lambda m: m["type"] == "notice")
            assert seen["code"] == "aborted" and seen["seat"] == 0
            await me.send({"type": "abort"})  # twice: the match is over
            assert (await me.error())["code"] == "match_over"
            await me.send({"type": "rematch"})  # a rematch may follow an abort
            again = await me.until(lambda m: m["type"] == "state"
                                   and m["table"]["match_number"] == 2)
            assert again["aborted"] is None and again["table"]["status"] == "playing"

            # Bad frames change nothing.
            await me.sync()
            before = me.state
            for bad in ('{"type": "resign", "seat": 1}x', '{"type": "surrender"}', "[]"):
                await me.send(bad)
                assert (await me.error())["code"] == "bad_message"
            await watcher.send({"type": "resign"})
            assert (await watcher.error())["code"] == "not_seated"
            await watcher.send({"type": "abort"})
            assert (await watcher.error())["code"] == "not_seated"

            # After a play of its own, abort is refused with its code; resign ends it.
            await play_once(me)
            await me.sync()
            await me.send({"type": "abort"})
            refused = await me.error()
            assert refused["code"] == "abort_too_late", refused
            await me.sync()
            assert me.state is not None and me.state["aborted"] is None
            assert me.state["table"]["status"] == "playing"
            assert before is not None and me.state["seq"] > before["seq"]
            await me.send({"type": "resign"})
            end = await me.until(lambda m: m["type"] == "state" and m["result"] is not None
                                 and m["result"]["record_id"] is not None)
            assert end["resigned"] == [0] and end["result"]["resigned"] == [0]
            assert end["result"]["winner"] == 1  # the side that resigned lost
            await me.send({"type": "resign"})
            assert (await me.error())["code"] == "match_over"
            status, record, _ = http.get(f"/api/records/{end['result']['record_id']}")
            assert status == 200 and record["result"]["resigned"] == [0], record
            assert record["result"]["winner"] == 1
            await watcher_context.__aexit__(None, None, None)
            await context.__aexit__(None, None, None)

        asyncio.run(scenario())
        assert "Traceback" not in server.log(), server.log()[-3000:]


async def seek(server: Server, client: Client) -> State:
    headers = {"Cookie": f"basra_session={client.cookie}"}
    async with connect(server.ws_base + "/ws/seek?variant=egyptian&players=2&rated=1",
                       additional_headers=headers, proxy=None) as socket:
        while True:
            message: State = json.loads(await socket.recv())
            if message["type"] != "waiting":
                return message


@pytest.mark.slow
def test_resigning_a_rated_game_is_a_loss_and_aborting_rates_nobody(tmp_path: Path) -> None:
    with Server(sqlite_url(tmp_path / "basra.db"), tmp_path, "--bot-delay", "0") as server:
        server.wait()
        nadia, karim = Client(server, "127.0.0.2"), Client(server, "127.0.0.3")
        for client, name in ((nadia, "Nadia_n"), (karim, "Karim_k")):
            assert client.post("/api/signup", {"name": name, "password": PASSWORD})[0] == 201

        async def scenario() -> tuple[State, State, int]:
            # Karim aborts before his first play: unrated, no record.
            mine, his = await asyncio.gather(seek(server, nadia), seek(server, karim))
            assert mine["type"] == his["type"] == "paired", (mine, his)
            contexts = []
            for found in (mine, his):
                contexts.append(await opened(server, found["table"], found["token"]))
            (_, stays), (_, leaves) = contexts
            await leaves.send({"type": "abort"})
            aborted = await stays.until(lambda m: m["type"] == "state"
                                        and m["aborted"] == his["seat"])
            for context, _socket in contexts:
                await context.__aexit__(None, None, None)
            # A new pairing: Karim plays once, then resigns.
            mine, his = await asyncio.gather(seek(server, nadia), seek(server, karim))
            assert mine["type"] == his["type"] == "paired", (mine, his)
            contexts = []
            for found in (mine, his):
                contexts.append(await opened(server, found["table"], found["token"]))
            (_, stays), (_, leaves) = contexts
            await play_once(leaves, stays)
            await leaves.send({"type": "resign"})
            end = await stays.until(lambda m: m["type"] == "state" and m["result"] is not None
                                    and m.get("rating_changes"), 30)
            for context, _socket in contexts:
                await context.__aexit__(None, None, None)
            return aborted, end, his["seat"]

        aborted, end, gone = asyncio.run(scenario())
        assert aborted["conduct"]["unrated"] == "aborted" and aborted["result"] is None
        assert end["resigned"] == [gone] and end["conduct"]["unrated"] is None
        changes = {change["seat"]: change for change in end["rating_changes"]}
        assert changes[gone]["after"] < changes[gone]["before"]  # his loss
        assert changes[1 - gone]["after"] > changes[1 - gone]["before"]
        status, record, _ = nadia.get(f"/api/records/{end['result']['record_id']}")
        assert status == 200 and record["result"]["resigned"] == [gone]
        status, profile, _ = karim.get("/api/users/Karim_k")
        assert status == 200 and profile["ratings"], profile
        assert "Traceback" not in server.log(), server.log()[-3000:]


@pytest.mark.slow
def test_a_table_of_computers_pauses_while_nobody_watches_and_resumes(tmp_path: Path) -> None:
    with Server(sqlite_url(tmp_path / "basra.db"), tmp_path, "--bot-delay", "0.05") as server:
        server.wait()
        http = Client(server)
        body = {"variant": "egyptian", "players": 4,
                "seats": [{"kind": "bot", "level": "expert"}] * 4}
        status, created, _ = http.post("/api/tables", body)
        assert status == 200, created
        code = created["code"]

        async def scenario() -> tuple[int, int, State, list[State]]:
            context, watcher = await opened(server, code)
            await watcher.until(lambda m: m["type"] == "state" and m["seq"] >= 5)
            await context.__aexit__(None, None, None)
            await asyncio.sleep(0.5)
            left_at = http.get(f"/api/tables/{code}")[1]
            await asyncio.sleep(6)  # nobody is here: play waits
            still = http.get(f"/api/tables/{code}")[1]
            context, back = await opened(server, code)
            first = back.state
            assert first is not None
            resumed = await back.until(lambda m: m["type"] == "notice"
                                       and m["code"] == "play_resumed", 10)
            await back.until(lambda m: m["type"] == "state" and m["seq"] >= first["seq"] + 4)
            await context.__aexit__(None, None, None)
            return left_at["match_number"], still["match_number"], first, [resumed]

        _, _, first, notices = asyncio.run(scenario())
        assert notices[0]["params"]["seconds"] >= 5
        assert first["table"]["status"] == "playing"
        assert "Traceback" not in server.log(), server.log()[-3000:]
