"""Fair play against a real ``basra serve``, over real sockets: a rated match whose
player never comes is aborted and rates nobody, and a second such abandon earns a wait
before the next rated seek (the playban).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.support.clients import Client
from tests.support.realserver import Server, sqlite_url, until
from tests.support.seats import SeatClient

PASSWORD = "correct horse battery"
SEEK = "/ws/seek?variant=egyptian&players=2&rated=1"


async def seek(server: Server, client: Client) -> dict[str, Any]:
    """The account's rated seek: the ``paired`` message, or the refusal."""
    headers = {"Cookie": f"basra_session={client.cookie}"}
    async with connect(server.ws_base + SEEK, additional_headers=headers,
                       proxy=None) as socket:
        while True:
            message = dict(json.loads(await socket.recv()))
            if message["type"] != "waiting":
                return message


async def paired(server: Server, first: Client, second: Client
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    one, other = await asyncio.gather(seek(server, first), seek(server, second))
    assert one["type"] == other["type"] == "paired", (one, other)
    assert one["table"] == other["table"]
    return one, other


@pytest.mark.slow
def test_a_player_who_never_comes_rates_nobody_and_earns_a_playban(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "basra.db")
    with Server(url, tmp_path, "--bot-delay", "0", "--away-after", "1") as server:
        server.wait()
        nadia, karim = Client(server, "127.0.0.2"), Client(server, "127.0.0.3")
        for client, name in ((nadia, "Nadia_n"), (karim, "Karim_k")):
            assert client.post("/api/signup", {"name": name, "password": PASSWORD})[0] == 201

        async def twice_abandoned() -> dict[str, Any]:
            # Karim is paired and never comes: aborted; Nadia plays it out.
            mine, his = await paired(server, nadia, karim)
            seat = SeatClient(mine["table"], mine["seat"], mine["token"], server.ws_base)
            seat.start()
            await until(lambda: seat.state is not None
                        and seat.state["conduct"]["aborted_by"] == his["seat"],
                        "the match aborted", 30)
            await until(lambda: seat.state is not None and seat.state["result"] is not None,
                        "the match played out", 120)
            end = seat.state
            await seat.close()
            assert end is not None and end["conduct"]["unrated"] == "aborted"
            assert not end["rating_changes"] and end["result"]["record_id"] is not None
            # The first abandon in a day is forgiven; the second is not.
            mine, his = await paired(server, nadia, karim)
            seat = SeatClient(mine["table"], mine["seat"], mine["token"], server.ws_base)
            seat.playing = False
            seat.start()
            await until(lambda: seat.state is not None
                        and seat.state["conduct"]["aborted_by"] == his["seat"],
                        "the second match aborted", 30)
            await seat.close()
            return await seek(server, karim)

        refused = asyncio.run(twice_abandoned())
        assert refused["type"] == "error" and refused["code"] == "playban", refused
        assert 0 < refused["params"]["seconds"] <= 300 and refused["params"]["abandons"] == 2
        for client, name in ((nadia, "Nadia_n"), (karim, "Karim_k")):
            status, profile, _ = client.get(f"/api/users/{name}")
            assert status == 200 and profile["ratings"] == {}, profile
        assert "Traceback" not in server.log(), server.log()[-3000:]


@pytest.mark.slow
def test_a_player_who_leaves_loses_and_a_one_sided_rematch_is_refused(
        tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "basra.db")
    with Server(url, tmp_path, "--bot-delay", "0", "--away-after", "1") as server:
        server.wait()
        nadia, karim = Client(server, "127.0.0.2"), Client(server, "127.0.0.3")
        for client, name in ((nadia, "Nadia_n"), (karim, "Karim_k")):
            assert client.post("/api/signup", {"name": name, "password": PASSWORD})[0] == 201

        async def forfeited() -> tuple[dict[str, Any], list[dict[str, Any]], int]:
            mine, his = await paired(server, nadia, karim)
            stays = SeatClient(mine["table"], mine["seat"], mine["token"], server.ws_base)
            leaves = SeatClient(his["table"], his["seat"], his["token"], server.ws_base)
            stays.start()
            leaves.start()
            # Karim makes his first play, then leaves for good.
            await until(lambda: bool(leaves.round_trips), "Karim's first play", 30)
            await leaves.close()
            await until(lambda: stays.state is not None and stays.state["result"] is not None,
                        "the match played out", 120)
            end = stays.state
            assert end is not None
            stays.send({"type": "rematch"})  # Karim is not there to ask too
            await until(lambda: bool(stays.errors), "the rematch answered", 10)
            await stays.close()
            return end, stays.errors, his["seat"]

        end, errors, gone = asyncio.run(forfeited())
        assert end["conduct"]["forfeits"] == [gone] and end["conduct"]["unrated"] is None
        changes = {change["seat"]: change for change in end["rating_changes"]}
        assert changes[gone]["after"] < changes[gone]["before"]  # his loss, whatever the score
        assert changes[1 - gone]["after"] > changes[1 - gone]["before"]
        assert [error["code"] for error in errors] == ["seek_again"]
        assert "Traceback" not in server.log(), server.log()[-3000:]
