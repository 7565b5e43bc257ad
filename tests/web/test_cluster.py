"""Many servers, one site: real ``basra serve`` processes sharing PostgreSQL and Redis,
behind a real nginx (``deploy/nginx``).

- Two players of one table on different servers play a whole match; its owner is killed
  (``kill -9``) in the middle of a deal; the other server takes the table over within
  5 seconds and the match goes on to its end. The stored record replays exactly, and
  holds every play any client saw confirmed, once.
- An owner frozen past its lease (SIGSTOP) that wakes up and tries to store a play
  cannot: another server owns the table by then (its epoch is newer), and no play is
  applied twice.
- The lobby list, chat and watching work across servers; a bad token is refused by any.
- The Watch list is the same on every server: each server's live tables, with every
  server's watchers counted; a match over leaves it everywhere.
- A tournament made through one server and joined through both is directed by the
  holder of the director's lease; that server killed in the middle of a round, the other
  takes the lease over and the event goes on to its end, every game paired and counted
  once, a game nobody is connected to included.
- A server stopped with SIGTERM while 12 tables play through nginx exits within its bound;
  its sockets get 1012 and come back through nginx to the other server, which takes the
  tables over: no error, no confirmed play lost.
- A rolling restart (SIGTERM, start again, the next server) keeps two players' match
  going to its end, with only 1012 closes and reconnects.

Needs PostgreSQL (the session's throwaway server, ``tests/conftest.py``), Redis and nginx
(``sh tests/system-packages.sh`` installs them).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from basra.record import replay
from tests.support import services, tournaments
from tests.support.realserver import Server, until
from tests.support.seats import SeatClient

POSTGRES = os.environ.get("BASRA_TEST_POSTGRES_URL", "")

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES or bool(services.missing_programs()),
                       reason="many servers need PostgreSQL, redis-server and nginx "
                              "(sh tests/system-packages.sh installs them)"),
]

State = dict[str, Any]
WAIT = 10.0


@dataclass
class Site:
    """Servers sharing one database and one Redis, behind a balancer."""

    database: str
    redis: services.Redis
    servers: list[Server]
    balancer: services.Balancer
    folder: Path

    def server(self, index: int) -> Server:
        return self.servers[index]


@contextlib.contextmanager
def site(folder: Path, count: int = 2, *options: str) -> Iterator[Site]:
    database = services.fresh_database(POSTGRES)
    with services.Redis(folder / "redis") as redis:
        servers = [Server(database, folder, "--redis", redis.url, "--server-id", f"s{i}",
                          "--bot-delay", "0", "--away-after", "60", *options)
                   for i in range(count)]
        try:
            for server in servers:
                server.wait("/readyz")
            with services.Balancer(folder / "nginx",
                                   [server.port for server in servers]) as balancer:
                yield Site(database, redis, servers, balancer, folder)
        finally:
            for server in servers:
                if server.process.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(server.process.pid, signal.SIGCONT)
                server.kill()


@dataclass
class Seat:
    """One player's socket: every state it was sent, in order."""

    seat: int | None
    socket: ClientConnection
    states: list[State] = field(default_factory=list)
    others: list[State] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None

    @property
    def state(self) -> State:
        return self.states[-1]

    async def read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for text in self.socket:
                message = json.loads(text)
                if message["type"] == "state":
                    self.states.append(message)
                else:
                    self.others.append(message)

    def my_turn(self) -> bool:
        state = self.states[-1] if self.states else None
        return (state is not None and state["result"] is None and state["deal"] is not None
                and state["deal"]["to_play"] == self.seat and bool(state["legal"])
                and state["paused"] is None)

    async def play(self) -> State:
        """Play the first legal move of the latest state."""
        state = self.state
        move = state["legal"][0]
        await self.socket.send(json.dumps({"type": "play", "seq": state["seq"],
                                           "card": move["card"],
                                           "captured": move["captured"]}))
        return state


async def open_seat(ws_base: str, code: str, token: str | None, seat: int | None) -> Seat:
    url = f"{ws_base}/ws/{code}" + (f"?token={token}" if token else "")
    socket = await connect(url, open_timeout=WAIT)
    opened = Seat(seat, socket)
    opened.reader = asyncio.create_task(opened.read())
    await until(lambda: bool(opened.states), f"the first state at {url}")
    return opened



async def two_human_table(base: str, join_base: str, rules: State | None = None
                          ) -> tuple[str, list[str]]:
    body = {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Amira",
            "rules": rules or {}}
    async with httpx.AsyncClient(timeout=WAIT) as client:
        created = (await client.post(f"{base}/api/tables", json=body)).json()
        code = created["code"]
        joined = await client.post(f"{join_base}/api/tables/{code}/join",
                                   json={"name": "Omar"})
        assert joined.status_code == 200, joined.text
    return code, [created["token"], joined.json()["token"]]


async def play_until(seats: list[Seat], done: Any, seconds: float = 60) -> None:
    """Whoever is to play plays, until ``done()``."""
    started = time.monotonic()
    sent: set[tuple[int | None, int]] = set()
    while not done():
        if time.monotonic() - started > seconds:
            raise AssertionError(f"the game did not get there within {seconds} s")
        for seat in seats:
            if done():
                return
            if seat.my_turn() and (seat.seat, seat.state["seq"]) not in sent:
                sent.add((seat.seat, seat.state["seq"]))
                with contextlib.suppress(ConnectionClosed):
                    await seat.play()
        await asyncio.sleep(0.005)


def confirmed(seats: list[Seat]) -> dict[int, Any]:
    """seq -> the last play at that seq, as any client saw it (fails on a conflict)."""
    seen: dict[int, Any] = {}
    for seat in seats:
        for state in seat.states:
            if state["seq"] in seen:
                assert seen[state["seq"]] == state["last_play"], state["seq"]
            seen[state["seq"]] = state["last_play"]
    return seen


def in_order(seat: Seat) -> None:
    seqs = [state["seq"] for state in seat.states]
    assert seqs == sorted(seqs), f"seat {seat.seat} got states out of order: {seqs}"


async def close(*seats: Seat) -> None:
    for seat in seats:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(seat.socket.close(), 5)
        if seat.reader is not None:
            seat.reader.cancel()


def replay_with_cli(record: State, folder: Path) -> str:
    path = folder / "record.json"
    path.write_text(json.dumps(record))
    done = subprocess.run([sys.executable, "-m", "basra", "replay", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


async def health(base: str) -> State:
    async with httpx.AsyncClient(timeout=WAIT) as client:
        answer: State = (await client.get(f"{base}/healthz")).json()
        return answer


# -- the tests ---------------------------------------------------------------------------


def test_the_owner_killed_mid_deal_loses_nothing_and_the_match_ends(tmp_path: Path) -> None:
    async def scenario(place: Site) -> None:
        first, second = place.servers
        code, tokens = await two_human_table(first.base, second.base)
        amira = await open_seat(first.ws_base, code, tokens[0], 0)   # at the owner
        omar = await open_seat(second.ws_base, code, tokens[1], 1)   # relayed
        assert (await health(first.base))["cluster"]["relayed_sockets"] == 0
        assert (await health(second.base))["cluster"]["relayed_sockets"] == 1
        # Play into the first deal, past its first hand.
        await play_until([amira, omar], lambda: amira.state["seq"] >= 11)
        await until(lambda: omar.state["seq"] == amira.state["seq"], "omar catches up")
        before = amira.state["seq"]
        assert amira.state["deal"]["number"] == 1 and amira.state["result"] is None
        killed = time.monotonic()
        first.kill()
        # Omar's server takes the table over and tells him within 5 s.
        await until(lambda: len(omar.states) > 0 and omar.states[-1]["seq"] >= before
                    and omar.states[-1]["table"]["seats"][0]["connected"] is False,
                    "omar hears that the table goes on", seconds=5)
        taken = time.monotonic() - killed
        assert taken < 5
        # Amira reconnects through the balancer, and both play to the end.
        amira_back = await open_seat(place.balancer.ws_base, code, tokens[0], 0)
        assert amira_back.state["seq"] == omar.state["seq"]
        await play_until([amira_back, omar], lambda: omar.state["result"] is not None,
                         seconds=120)
        result = omar.state["result"]
        seen = confirmed([amira, omar, amira_back])
        for seat in (amira, omar, amira_back):
            in_order(seat)
        async with httpx.AsyncClient(timeout=WAIT) as client:
            record = (await client.get(
                f"{place.balancer.base}/api/records/{result['record_id']}")).json()
            listed = (await client.get(f"{second.base}/api/records")).json()
        assert [(r["id"], r["match_number"]) for r in listed if r["code"] == code] == [
            (result["record_id"], 1)]  # the match's record, written once
        plays = [play for deal in record["deals"] for play in deal["plays"]]
        assert len(plays) == omar.state["seq"]
        # Every confirmed play is in the record, at its place, once.
        for seq, last in seen.items():
            if seq and last is not None:
                assert plays[seq - 1]["card"] == last["card"], seq
        assert replay(record).totals == result["totals"]
        replay_with_cli(record, tmp_path)
        assert (await health(second.base))["cluster"]["takeovers"] == 1
        await close(amira, omar, amira_back)

    with site(tmp_path) as place:
        asyncio.run(scenario(place))


def test_an_owner_that_wakes_after_its_lease_cannot_play_twice(tmp_path: Path) -> None:
    async def scenario(place: Site) -> None:
        first, second = place.servers
        code, tokens = await two_human_table(first.base, second.base)
        amira = await open_seat(first.ws_base, code, tokens[0], 0)
        omar = await open_seat(second.ws_base, code, tokens[1], 1)
        await play_until([amira, omar], lambda: amira.state["seq"] >= 3 and amira.my_turn())
        stale = amira.state
        os.kill(first.process.pid, signal.SIGSTOP)   # frozen, its sockets still open
        # Frozen past its lease: the second server takes the table over.
        await until(lambda: omar.states[-1]["table"]["seats"][0]["connected"] is False,
                    "the second server takes over", seconds=15)
        # Amira comes back on the second server and makes her play there.
        amira_there = await open_seat(second.ws_base, code, tokens[0], 0)
        assert amira_there.state["seq"] == stale["seq"]
        await amira_there.play()
        await until(lambda: omar.state["seq"] == stale["seq"] + 1, "the play is confirmed")
        # Her old socket (on the frozen server) sends a play for the same turn, then the
        # old owner wakes up and handles it with its stale table.
        await amira.play()
        os.kill(first.process.pid, signal.SIGCONT)
        await until(lambda: any(m.get("type") == "error" for m in amira.others)
                    or amira.state["seq"] > stale["seq"],
                    "the old socket is told", seconds=10)
        await asyncio.sleep(1.5)
        await play_until([amira_there, omar], lambda: omar.state["seq"] >= stale["seq"] + 4
                         and omar.my_turn())
        await close(amira, omar, amira_there)
        # The stored moves: one per confirmed seq, no play made twice.
        async with httpx.AsyncClient(timeout=WAIT) as client:
            info = (await client.get(f"{second.base}/api/tables/{code}")).json()
        assert info["status"] == "playing"
        moves = await stored_moves(place.database, code)
        assert len(moves) == omar.state["seq"]
        seen = confirmed([omar, amira_there])
        assert seen[stale["seq"] + 1]["card"] == amira_there.states[0]["legal"][0]["card"]

    with site(tmp_path) as place:
        asyncio.run(scenario(place))


def test_lobby_chat_and_watching_work_across_servers(tmp_path: Path) -> None:
    async def scenario(place: Site) -> None:
        first, second = place.servers
        body = {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Amira"}
        async with httpx.AsyncClient(timeout=WAIT) as client:
            created = (await client.post(f"{first.base}/api/tables", json=body)).json()
            code = created["code"]
            listed = (await client.get(f"{second.base}/api/tables")).json()
            assert code in [t["code"] for t in listed]
            described = (await client.get(f"{second.base}/api/tables/{code}")).json()
            assert described["seats"][0]["name"] == "Amira"
            missing = await client.get(f"{second.base}/api/tables/nosuchtable")
            assert missing.status_code == 404
            joined = (await client.post(f"{second.base}/api/tables/{code}/join",
                                        json={"name": "Omar"})).json()
            full = await client.post(f"{second.base}/api/tables/{code}/join", json={})
            assert full.status_code == 409, full.text
            listed = (await client.get(f"{second.base}/api/tables")).json()
            assert code not in [t["code"] for t in listed]
        amira = await open_seat(first.ws_base, code, created["token"], 0)
        omar = await open_seat(second.ws_base, code, joined["token"], 1)
        watcher = await open_seat(second.ws_base, code, None, None)
        await amira.socket.send(json.dumps({"type": "chat", "phrase": "good_luck"}))
        await until(lambda: any(m["type"] == "chat" for m in omar.others), "omar hears")
        await until(lambda: any(m["type"] == "chat" for m in watcher.others),
                    "the watcher hears")
        said = next(m for m in omar.others if m["type"] == "chat")
        assert said["from"] == {"seat": 0, "name": "Amira"} and said["phrase"] == "good_luck"
        await play_until([amira, omar], lambda: omar.state["seq"] >= 4)
        await until(lambda: watcher.state["seq"] == omar.state["seq"], "the watcher sees")
        for seat in (amira, omar, watcher):
            in_order(seat)
        # Each socket gets its own seat's view only.
        assert omar.state["you"]["seat"] == 1 and watcher.state["you"]["seat"] is None
        assert watcher.state["deal"]["hand"] == []
        # A token of no seat is refused by a relaying server too.
        socket = await connect(f"{second.ws_base}/ws/{code}?token=nonsense")
        refused = json.loads(await socket.recv())
        assert refused["code"] == "unknown_token"
        await close(amira, omar, watcher)

    with site(tmp_path) as place:
        asyncio.run(scenario(place))


COMPUTERS = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "random"}]


async def watch_list(base: str) -> list[State]:
    async with httpx.AsyncClient(timeout=WAIT) as client:
        response = await client.get(f"{base}/api/watch")
        assert response.status_code == 200, response.text
        entries: list[State] = response.json()
        return entries


async def listed_as(base: str, wanted: Any, what: str, seconds: float = WAIT) -> list[State]:
    """The Watch list of ``base`` once ``wanted(entries)`` (a list is reused for up to
    a second, and computers play on meanwhile)."""
    started = time.monotonic()
    while True:
        entries = await watch_list(base)
        if wanted(entries):
            return entries
        if time.monotonic() - started > seconds:
            raise AssertionError(f"{what}: the Watch list at {base} is {entries}")
        await asyncio.sleep(0.2)


def test_the_watch_list_shows_every_servers_live_tables(tmp_path: Path) -> None:
    """Each server lists its own live tables and asks the owners of the others: the list
    is the same on every server, watchers of every server counted, and a match over
    leaves it on every server."""
    async def scenario(place: Site) -> None:
        first, second = place.servers
        async with httpx.AsyncClient(timeout=WAIT) as client:
            short = (await client.post(f"{first.base}/api/tables", json={
                "seats": COMPUTERS, "rules": {"target": 11}})).json()["code"]
            long = (await client.post(f"{second.base}/api/tables", json={
                "seats": COMPUTERS, "rules": {"target": 10000}})).json()["code"]
        # Watched, the computers play: the long match has two watchers, one at its owner
        # and one relayed by the other server; the short one waits for its watcher.
        long_watchers = [await open_seat(second.ws_base, long, None, None),
                         await open_seat(first.ws_base, long, None, None)]
        await until(lambda: all(w.state["seq"] > 0 for w in long_watchers), "play starts")

        def both(entries: list[State]) -> bool:
            found = {entry["code"]: entry["watchers"] for entry in entries}
            return found.get(short) == 0 and found.get(long) == 2

        for server in (first, second):
            entries = await listed_as(server.base, both, "both tables, their watchers")
            # the most watched first
            assert [entry["code"] for entry in entries] == [long, short]
            for entry in entries:
                assert entry["url"] == f"/t/{entry['code']}" and entry["rated"] is False
                assert [(seat["kind"], seat["level"]) for seat in entry["seats"]] == [
                    ("bot", "greedy"), ("bot", "random")]
                assert all(seat["name"] for seat in entry["seats"])
            assert entries[0]["deal"] >= 1 and entries[0]["target"] == 10000
            assert entries[1]["target"] == 11
        # Watched, the short match is played to its end: it leaves the list on both
        # servers; the other stays.
        short_watcher = await open_seat(first.ws_base, short, None, None)
        await until(lambda: short_watcher.state["result"] is not None,
                    "the short match ends", seconds=60)
        for server in (first, second):
            await listed_as(server.base,
                            lambda entries: [e["code"] for e in entries] == [long],
                            "the finished table leaves the list")
        assert long_watchers[0].state["result"] is None
        await close(short_watcher, *long_watchers)

    with site(tmp_path) as place:
        asyncio.run(scenario(place))


def test_a_table_moves_to_the_server_its_players_are_at(tmp_path: Path) -> None:
    """Made on one server, played through another: the table is handed over to the
    players' server (no more relaying), and play goes on with nothing lost."""
    async def scenario(place: Site) -> None:
        first, second = place.servers
        code, tokens = await two_human_table(first.base, first.base)
        amira = await open_seat(second.ws_base, code, tokens[0], 0)
        omar = await open_seat(second.ws_base, code, tokens[1], 1)
        await play_until([amira, omar], lambda: omar.state["seq"] >= 3)
        started = time.monotonic()
        while (await health(second.base))["cluster"]["relayed_sockets"]:
            assert time.monotonic() - started < WAIT, "the table was not handed over"
            await asyncio.sleep(0.1)
        assert (await health(first.base))["cluster"]["handovers"] == 1
        assert (await health(first.base))["tables"] == 0
        # Stop on Omar's turn: then no play of Amira's can be on its way.
        await play_until([amira, omar], lambda: omar.state["seq"] >= 12 and omar.my_turn())
        seen = confirmed([amira, omar])
        moves = await stored_moves(place.database, code)
        assert len(moves) == omar.state["seq"] == max(seen)
        for seat in (amira, omar):
            in_order(seat)
        await close(amira, omar)

    with site(tmp_path) as place:
        asyncio.run(scenario(place))


def test_seeks_on_different_servers_are_paired(tmp_path: Path) -> None:
    async def seek(ws_base: str, name: str) -> State:
        async with connect(f"{ws_base}/ws/seek?variant=egyptian&players=2&name={name}",
                           open_timeout=WAIT) as socket:
            while True:
                message = json.loads(await asyncio.wait_for(socket.recv(), 15))
                if message["type"] != "waiting":
                    return dict(message)

    async def scenario(place: Site) -> None:
        first, second = place.servers
        amira, omar = await asyncio.gather(seek(first.ws_base, "Amira"),
                                           seek(second.ws_base, "Omar"))
        assert amira["type"] == omar["type"] == "paired", (amira, omar)
        assert amira["table"] == omar["table"] and {amira["seat"], omar["seat"]} == {0, 1}
        # Each token holds its seat, whichever server the socket reaches.
        seats = [await open_seat(place.balancer.ws_base, amira["table"], amira["token"],
                                 amira["seat"]),
                 await open_seat(second.ws_base, omar["table"], omar["token"], omar["seat"])]
        names = {s["name"] for s in seats[0].state["table"]["seats"]}
        assert names == {"Amira", "Omar"}
        await close(*seats)

    with site(tmp_path) as place:
        asyncio.run(scenario(place))


async def stored_moves(url: str, code: str) -> list[int]:
    from sqlalchemy import select
    from sqlalchemy.ext.asyncio import create_async_engine

    from basra.store.schema import moves_table

    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(select(moves_table.c.idx, moves_table.c.move)
                                      .where(moves_table.c.code == code)
                                      .order_by(moves_table.c.idx))
            found = rows.all()
    finally:
        await engine.dispose()
    assert [idx for idx, _ in found] == list(range(len(found)))
    return [move for _, move in found]



def test_a_lease_is_taken_from_a_server_that_stopped_listening(tmp_path: Path) -> None:
    """One script takes a free lease, keeps a live holder's, and takes a dead holder's
    (nobody listens on its inbox any more) at once, naming it."""
    from basra.server.cluster import Lease, RedisCluster

    async def nothing(_op: str, _args: dict[str, Any]) -> None:
        return None

    async def scenario(url: str) -> None:
        first, second = RedisCluster(url, "a"), RedisCluster(url, "b")
        for cluster in (first, second):
            await cluster.start(nothing, lambda _message: None)
        try:
            assert await first.acquire("t1") == Lease(None)
            assert await first.acquire("t1") == Lease(None)  # its own: kept
            assert await second.acquire("t1") == Lease(first.server_id)  # alive: refused
            await first.stop()  # as a killed server: its inbox has no listener any more
            assert await second.acquire("t1") == Lease(None, first.server_id)
            assert await second.acquire("t1") == Lease(None)
            assert (await second.owners(["t1"]))["t1"] == second.server_id
        finally:
            await first.stop()
            await second.stop()

    with services.Redis(tmp_path / "redis") as redis:
        asyncio.run(scenario(redis.url))


# -- a tournament shared by two servers ----------------------------------------------------

TOURNAMENT = {"kind": "swiss", "rounds": 2, "variant": "egyptian", "players": 2,
              "rated": True, "starts_in": 5, "turn_seconds": 60,
              "computers": ["expert", "greedy"]}
"""Two accounts and two computers, two rounds: rated by the computers above two new
accounts, round 1 pairs each account with a computer."""


async def director_lease(place: Site) -> str | None:
    """The id of the server that holds the tournament director's lease, if any."""
    from redis.asyncio import Redis

    from basra.server.cluster import _lease_key
    from basra.server.directing import DIRECTOR

    client = Redis.from_url(place.redis.url)
    try:
        held = await client.get(_lease_key(DIRECTOR))
    finally:
        await client.aclose()
    return held.decode() if isinstance(held, bytes) else held


async def server_ids(place: Site) -> dict[str, Server]:
    """Each server by its id in the cluster."""
    return {(await health(server.base))["cluster"]["server"]: server
            for server in place.servers}


def test_two_servers_share_a_tournament_and_its_director_fails_over(
        tmp_path: Path) -> None:
    """A Swiss event made through one server and joined through both is directed by one
    of them; killed in the middle of round 1, the other takes the director's lease and
    the event goes on to its end: every game paired once and counted once."""
    async def scenario(place: Site) -> None:
        first, second = place.servers
        amal = await tournaments.sign_up(first.base, "Amal")
        basil = await tournaments.sign_up(second.base, "Basil")
        tid = await tournaments.create(first.base, amal, **TOURNAMENT)
        await tournaments.join(first.base, tid, amal)
        await tournaments.join(second.base, tid, basil)
        for server in (first, second):  # the same event, seen from either server
            shown = await tournaments.view(server.base, tid)
            assert {"Amal", "Basil"} <= {line["name"] for line in shown["standings"]}
        await tournaments.view_until(
            place.balancer.base, tid, lambda v: v["status"] == "started"
            and sum(g["table"] is not None for g in v["games"]) == 2, "round 1 paired")
        ids = await server_ids(place)
        held = await director_lease(place)
        assert held in ids, f"the director's lease is held by {held!r}, not by {set(ids)}"
        director = ids[held]
        other = next(server for server in place.servers if server is not director)
        hers = await tournaments.game_of(other.base, tid, amal)
        his = await tournaments.game_of(director.base, tid, basil)
        assert hers is not None and his is not None and hers["table"] != his["table"]
        # Basil plays at the director's server and holds his turn; Amal plays her game to
        # its end through the other server.
        holder = tournaments.Player(his, director.ws_base, plays=3).start()
        await until(holder.waiting, "Basil's game waits for his fourth play", 60)
        await tournaments.play_through(hers, other.ws_base, "Amal's round 1 game")
        await tournaments.view_until(
            other.base, tid, lambda v: any(g["table"] == hers["table"]
                                           and g["result"] is not None for g in v["games"]),
            "Amal's result counted")
        director.kill()
        await until(lambda: holder.closed is not None, "Basil's socket closes with its server")
        ids.pop(held)
        # The other server takes the director's lease within a few ticks.
        started = time.monotonic()
        while (now_held := await director_lease(place)) not in ids:
            assert time.monotonic() - started < 20, f"the lease is still {now_held!r}"
            await asyncio.sleep(0.2)
        # Basil comes back through the balancer, to his game where he left it.
        back = tournaments.Player(his, place.balancer.ws_base).start()
        await until(lambda: back.first is not None, "Basil's table after the failover", 30)
        assert back.first is not None and holder.state is not None
        assert back.first["seq"] == holder.state["seq"], "the table lost or made a play"
        await tournaments.until_state(back, back.over, "Basil's round 1 game", 120)
        await back.close()
        # Round 2, directed by the other server, played through it and the balancer.
        played = await asyncio.gather(
            tournaments.follow(other.base, other.ws_base, tid, amal, done=(hers["table"],)),
            tournaments.follow(place.balancer.base, place.balancer.ws_base, tid, basil,
                               done=(his["table"],)))
        assert all(len(tables) == 1 for tables in played), played
        finished = await tournaments.view_until(
            other.base, tid, lambda v: v["status"] == "finished", "the end of the event")
        tournaments.check_counted_once(finished, 2, 2)
        assert len(await tournaments.records(other.base, tid)) == 4
        for account in (amal, basil):
            history = await tournaments.rating_history(other.base, account.name)
            assert len(history) == 2, (account.name, history)
        assert "Traceback" not in other.log(), other.log()[-3000:]

    with site(tmp_path) as place:
        asyncio.run(scenario(place))


def test_a_tournament_game_nobody_is_at_ends_after_its_servers_death(
        tmp_path: Path) -> None:
    """The director's server dies while it owns a tournament game nobody is connected to
    any more (Basil made a play, then his socket went with the server): the other server,
    directing now, takes the game over; Basil's turn runs out, he forfeits, the computer
    plays his seat to the end, and the event ends without him (absent: not paired)."""
    async def scenario(place: Site) -> None:
        first, second = place.servers
        amal = await tournaments.sign_up(first.base, "Amal")
        basil = await tournaments.sign_up(second.base, "Basil")
        turn = 10
        tid = await tournaments.create(first.base, amal,
                                       **{**TOURNAMENT, "turn_seconds": turn})
        await tournaments.join(first.base, tid, amal)
        await tournaments.join(second.base, tid, basil)
        await tournaments.view_until(
            place.balancer.base, tid, lambda v: v["status"] == "started"
            and sum(g["table"] is not None for g in v["games"]) == 2, "round 1 paired")
        ids = await server_ids(place)
        held = await director_lease(place)
        assert held in ids, f"the director's lease is held by {held!r}, not by {set(ids)}"
        director = ids.pop(held)
        other = next(server for server in place.servers if server is not director)
        his = await tournaments.game_of(other.base, tid, basil)
        assert his is not None
        holder = tournaments.Player(his, director.ws_base, plays=1).start()
        await until(holder.waiting, "Basil's game waits for his second play", 30)
        director.kill()  # (within Basil's turn: his game is in progress)
        assert not holder.over()
        await holder.close()
        amal_plays = asyncio.create_task(tournaments.follow(
            place.balancer.base, place.balancer.ws_base, tid, amal, seconds=180))
        ended = await tournaments.view_until(
            other.base, tid, lambda v: any(g["table"] == his["table"]
                                           and g["result"] is not None for g in v["games"]),
            f"Basil's game at table {his['table']}, owned by the killed director's server "
            "and with nobody connected, is taken over and ends", seconds=turn + 60)
        line = next(s for s in ended["standings"] if s["name"] == "Basil")
        assert line["results"][0] == 0, f"Basil forfeited: he ranks last ({line})"
        hers = await amal_plays
        finished = await tournaments.view_until(
            other.base, tid, lambda v: v["status"] == "finished", "the end of the event")
        # Round 2 pairs the three others (one of them has a bye); all counted once.
        by_name = {s["name"]: s for s in finished["standings"]}
        assert by_name["Basil"]["paused"], f"Basil is absent: he is paused ({line})"
        assert by_name["Basil"]["results"] == [0, None], by_name["Basil"]
        games = [g for g in finished["games"] if not g["bye"]]
        byes = [g for g in finished["games"] if g["bye"]]
        assert len(games) == 3 and len(byes) == 1, finished["games"]
        assert all(g["result"] is not None for g in games), games
        assert hers == [g["table"] for g in reversed(games) if "Amal" in g["players"]]
        assert sum(s["score"] for s in finished["standings"]) == 2 * (len(games) + 1)
        assert len(await tournaments.records(other.base, tid)) == 3
        assert len(await tournaments.rating_history(other.base, "Basil")) == 1  # forfeited
        assert len(await tournaments.rating_history(other.base, "Amal")) == len(hers)

    with site(tmp_path) as place:
        asyncio.run(scenario(place))


# -- rolling restarts --------------------------------------------------------------------


@dataclass
class Player:
    """One player at a table through the balancer: plays the first legal move at each of
    its turns and, when its socket closes, opens it again (through the balancer, at
    whichever server answers) at once."""

    seat: int
    url: str
    pace: float = 0.15
    """Seconds a player thinks before each play (a match lasts half a minute)."""
    states: list[State] = field(default_factory=list)
    errors: list[State] = field(default_factory=list)
    closes: list[int] = field(default_factory=list)
    """The close code of each socket that closed under the player."""
    task: asyncio.Task[None] | None = None

    @property
    def state(self) -> State:
        return self.states[-1]

    def over(self) -> bool:
        return bool(self.states) and self.state["result"] is not None

    async def run(self) -> None:
        while not self.over():
            try:
                async with connect(self.url, open_timeout=WAIT) as socket:
                    await self.play(socket)
                    if self.over():
                        return
                self.closes.append(socket.close_code if socket.close_code else 1006)
            except ConnectionClosed as lost:
                self.closes.append(lost.rcvd.code if lost.rcvd is not None else 1006)
            await asyncio.sleep(0.05)

    async def play(self, socket: ClientConnection) -> None:
        played: set[int] = set()
        async for text in socket:
            message = json.loads(text)
            if message["type"] == "error":
                self.errors.append(message)
            if message["type"] != "state":
                continue
            self.states.append(message)
            if message["result"] is not None:
                return
            deal = message["deal"]
            if (deal is not None and deal["to_play"] == self.seat and message["legal"]
                    and message["paused"] is None and message["seq"] not in played):
                played.add(message["seq"])
                await asyncio.sleep(self.pace)
                move = message["legal"][0]
                await socket.send(json.dumps({"type": "play", "seq": message["seq"],
                                              "card": move["card"],
                                              "captured": move["captured"]}))


async def restart(place: Site, index: int) -> float:
    """SIGTERM server ``index``, wait for it to exit, start it again on its port; the
    seconds it took to exit."""
    old = place.servers[index]
    old.process.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    await asyncio.to_thread(old.process.wait, 20)
    took = time.monotonic() - sent
    new = Server(place.database, place.folder, *old.command[old.command.index("--db") + 2:],
                 port=old.port)
    place.servers[index] = new
    await new.ready()
    return took


def test_a_rolling_restart_keeps_a_match_going_to_its_end(tmp_path: Path) -> None:
    async def scenario(place: Site) -> None:
        balancer = place.balancer
        code, tokens = await two_human_table(balancer.base, balancer.base)
        players = [Player(seat, f"{balancer.ws_base}/ws/{code}?token={token}")
                   for seat, token in enumerate(tokens)]
        for player in players:
            player.task = asyncio.create_task(player.run())
        seq = 0
        for index in (0, 1):  # every server, one after the other, 10 plays apart
            seq += 10
            await until(lambda at=seq: all(p.states and p.state["seq"] >= at
                                           for p in players), f"play reaches seq {seq}")
            assert all(player.state["result"] is None for player in players), \
                f"the match ended before server {index} restarted"
            took = await restart(place, index)
            assert took <= 5.5, f"server {index} took {took:.1f} s to stop"
            seq = max(player.state["seq"] for player in players)
        await asyncio.wait_for(asyncio.gather(*(p.task for p in players if p.task)), 180)
        result = players[0].state["result"]
        assert players[1].state["result"] == result
        for player in players:
            assert player.errors == [], player.errors[:3]
            assert set(player.closes) <= {1012}, player.closes
            seqs = [state["seq"] for state in player.states]
            assert seqs == sorted(seqs), f"seat {player.seat}: states out of order"
        assert any(player.closes for player in players), "no socket was at a restarted server"
        seen: dict[int, Any] = {}
        for player in players:
            for state in player.states:
                assert seen.setdefault(state["seq"], state["last_play"]) == \
                    state["last_play"], state["seq"]
        async with httpx.AsyncClient(timeout=WAIT) as client:
            record = (await client.get(
                f"{balancer.base}/api/records/{result['record_id']}")).json()
        plays = [play for deal in record["deals"] for play in deal["plays"]]
        assert len(plays) == players[0].state["seq"]
        for at, last in seen.items():
            if at and last is not None:
                assert plays[at - 1]["card"] == last["card"], at
        assert replay(record).totals == result["totals"]

    with site(tmp_path, 2, "--shutdown-seconds", "5") as place:
        asyncio.run(scenario(place))


class ReturningSeat(SeatClient):
    """A seat (``tests/support/seats.py``) that opens its socket again, through the
    balancer, whenever it closes; ``closes`` keeps each close code."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.closes: list[int] = []

    async def run(self) -> None:
        while self.playing:
            self.socket = None
            self.planned = self.pending = None  # a play lost with its socket is made again
            await super().run()
            if not self.playing:
                return
            assert self.closed is not None
            self.closes.append(self.closed)
            await asyncio.sleep(0.05)


def test_sigterm_under_load_hands_the_tables_over_and_loses_no_confirmed_play(
        tmp_path: Path) -> None:
    from tests.support.seats import two_human_tables
    from tests.web.test_durability import LIFTED, lost_moves
    from tests.web.test_durability import stored_moves as all_stored_moves

    async def scenario(place: Site) -> None:
        balancer = place.balancer
        logs = await two_human_tables(balancer.base, 12)
        seats = [ReturningSeat.at(log, seat, balancer.ws_base, pace=0.01).start()
                 for log in logs for seat in (0, 1)]
        await until(lambda: all(log.top >= 4 for log in logs), "every table playing")
        loaded = [(await health(server.base))["tables"] for server in place.servers]
        stopping = place.servers[loaded.index(max(loaded))]
        stopping.process.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        await asyncio.to_thread(stopping.process.wait, 20)
        assert time.monotonic() - sent <= 5.5
        before = {log.code: log.top for log in logs}
        await until(lambda: all(log.top >= before[log.code] + 6 for log in logs),
                    "every table goes on at the other server", seconds=30)
        for seat in seats:
            seat.playing = False
        await asyncio.gather(*(seat.close() for seat in seats))
        assert any(seat.closes for seat in seats), "no socket was at the stopped server"
        assert {code for seat in seats for code in seat.closes} <= {1012}, \
            sorted({(seat.code, tuple(seat.closes)) for seat in seats})[:5]
        assert not any(seat.errors for seat in seats), \
            [seat.errors[:2] for seat in seats if seat.errors]
        assert not any(log.conflicts for log in logs), [log.conflicts for log in logs]
        stored = await all_stored_moves(place.database, [log.code for log in logs])
        assert lost_moves(logs, stored) == []

    with site(tmp_path, 2, "--shutdown-seconds", "5", *LIFTED) as place:
        asyncio.run(scenario(place))
