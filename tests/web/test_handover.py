"""A stopping server of a shared cluster hands its tables over (``server/relay.py``,
"leaving", and ``RedisCluster.stop``): two hubs in one process, sharing a real Redis and
PostgreSQL, with the race of a relayed play and the stop made to happen every time.

- A play relayed to the owner while its table is busy (a play being stored), when the
  owner stops: the play is made and confirmed at once (not after the 5 s call timeout,
  not refused with ``server_error``); the relaying server takes the table and play goes
  on there, every play stored once.
- Once stopped, the owner is found gone at once: a call to it fails with
  :class:`ServerGone` instead of waiting for an answer.
- A stopping server (``RedisCluster.stop``) first stops listening, so that a new call
  fails at once, and then answers the call it was handling, rather than dropping it and
  leaving its caller to time out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from basra.server.cluster import CALL_TIMEOUT, RedisCluster, ServerGone
from basra.server.connections import Connection, RemoteTable
from basra.server.hub import Hub
from basra.server.messages import Intent
from basra.server.settings import HubSettings
from basra.server.table import SeatConfig, TableConfig
from basra.server.views import state_message
from basra.store import Store
from tests.support import services
from tests.support.realserver import until
from tests.web.test_durability import stored_moves

POSTGRES = os.environ.get("BASRA_TEST_POSTGRES_URL", "")

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(bool(services.missing_programs()),
                       reason="a shared cluster needs redis-server "
                              "(sh tests/system-packages.sh installs it)"),
]


@contextlib.asynccontextmanager
async def hub_at(database: str, redis: str, name: str) -> AsyncIterator[Hub]:
    """A started hub of the shared cluster, stopped on leaving (unless the test stopped
    it)."""
    store = Store(database)
    await store.open()
    hub = Hub(store, HubSettings(bot_delay=0, away_after=60), RedisCluster(redis, name))
    await hub.start()
    try:
        yield hub
    finally:
        if not hub.relay.leaving:
            await hub.stop()
        await store.close()


def states(connection: Connection) -> list[dict[str, Any]]:
    """The messages sent to a socket since the last look, decoded."""
    sent = []
    while not connection.outbox.empty():
        text = connection.outbox.get_nowait()
        if text is not None:
            sent.append(json.loads(text) if isinstance(text, str) else text)
    return sent


def a_play(hub: Hub, code: str, seat: int) -> str:
    """The first legal play of ``seat`` at a table ``hub`` owns, as its socket sends it."""
    state = state_message(hub.tables[code], seat)
    move = state["legal"][0]
    return json.dumps({"type": "play", "seq": state["seq"], "card": move["card"],
                       "captured": move["captured"]})


def test_a_stopping_server_answers_the_call_it_is_handling_and_no_later_one(
        tmp_path: Path) -> None:
    async def scenario(redis: str) -> None:
        handling = asyncio.Event()
        done = asyncio.Event()

        async def slowly(op: str, args: dict[str, Any]) -> Any:
            handling.set()
            await done.wait()
            return {"value": op}

        async def never(op: str, args: dict[str, Any]) -> Any:
            raise AssertionError(f"the caller was called: {op}")

        stopping_server, caller = RedisCluster(redis, "stopping"), RedisCluster(redis, "caller")
        await stopping_server.start(slowly, lambda message: None)
        await caller.start(never, lambda message: None)
        try:
            gone = stopping_server.server_id
            first = asyncio.create_task(caller.call(gone, "describe", {}))
            await asyncio.wait_for(handling.wait(), CALL_TIMEOUT)
            stopping = asyncio.create_task(stopping_server.stop())
            while await caller.listening([gone]):
                await asyncio.sleep(0.01)
            sent = time.monotonic()
            with pytest.raises(ServerGone):
                await caller.call(gone, "join", {})
            assert time.monotonic() - sent < 1
            done.set()
            assert await asyncio.wait_for(first, CALL_TIMEOUT / 2) == {"value": "describe"}
            await stopping
        finally:
            await stopping_server.stop()
            await caller.stop()

    with services.Redis(tmp_path / "redis") as redis:
        asyncio.run(scenario(redis.url))


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="a shared cluster needs PostgreSQL")
def test_a_play_relayed_to_a_stopping_owner_is_made_and_the_table_goes_on(
        tmp_path: Path) -> None:
    database = services.fresh_database(POSTGRES)

    async def scenario(redis: str) -> None:
        async with hub_at(database, redis, "owner") as owner, \
                hub_at(database, redis, "relay") as relay:
            config = TableConfig("egyptian", 2, {}, (SeatConfig("human"),
                                                     SeatConfig("human")))
            table, seated = await owner.seat_players(config, [("Amira", None),
                                                              ("Omar", None)])
            code = table.code
            sockets = [await relay.open_socket(code, token) for _seat, token in seated]
            assert all(isinstance(s.table, RemoteTable) for s in sockets)
            to_play = table.to_play()
            assert to_play is not None
            play = a_play(owner, code, to_play)
            seq = table.seq
            # The owner is busy at the table (a play being stored) when the relayed play
            # reaches it, and when it is told to stop.
            arrived = asyncio.Event()
            act = owner.act

            async def noted(connection: Connection, intent: Intent) -> None:
                arrived.set()
                await act(connection, intent)

            owner.act = noted  # type: ignore[method-assign]
            busy = owner.play.locks[code]
            await busy.acquire()
            sent = time.monotonic()
            relayed = asyncio.create_task(relay.receive(sockets[to_play], play))
            await asyncio.wait_for(arrived.wait(), CALL_TIMEOUT)
            stopping = asyncio.create_task(owner.stop())
            await until(lambda: owner.relay.leaving, "the owner starts leaving")
            busy.release()
            await relayed
            took = time.monotonic() - sent
            assert took < CALL_TIMEOUT / 2, f"the relayed play took {took:.1f} s"
            await stopping
            told = states(sockets[to_play])
            assert not [m for m in told if m.get("type") == "error"], told
            assert any(m.get("type") == "state" and m["seq"] == seq + 1 for m in told), told
            # Stopped, the owner is gone at once; the relay owns the table now.
            with pytest.raises(ServerGone):
                await relay.cluster.call(owner.cluster.server_id, "describe",
                                         {"code": code}, timeout=CALL_TIMEOUT)
            await until(lambda: code in relay.tables, "the relaying server takes the table")
            assert all(s.table is relay.tables[code] for s in sockets)
            after = relay.tables[code]
            assert after.seq == seq + 1
            nxt = after.to_play()
            assert nxt is not None
            await relay.receive(sockets[nxt], a_play(relay, code, nxt))
            assert after.seq == seq + 2
            told = [m for s in sockets for m in states(s)]
            assert not [m for m in told if m.get("type") == "error"], told
            stored = await stored_moves(database, [code])
            assert len(stored[code]) == seq + 2

    with services.Redis(tmp_path / "redis") as redis:
        asyncio.run(scenario(redis.url))
