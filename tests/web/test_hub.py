"""The hub under abuse and failure: storage that fails and recovers, tables that expire,
leave memory and come back, rate limits, socket caps, health reports, tables that cannot
be restored, and computer players that never hold up other tables.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select
from sqlalchemy.exc import OperationalError
from starlette.websockets import WebSocketDisconnect

from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules
from basra.server import computer as computer_module
from basra.server import create_app
from basra.server.computer import ComputerPlayers
from basra.store import Store, writer
from basra.store.schema import moves_table, tables_table

Web = Any


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not come true in time")
        time.sleep(0.02)


def stored_moves(web: Web, code: str) -> list[int]:
    store = web.app.state.store

    async def read() -> list[int]:
        async with store.engine.connect() as conn:
            rows = await conn.execute(select(moves_table.c.move).where(
                moves_table.c.code == code).order_by(moves_table.c.idx))
            return list(rows.scalars())

    result: list[int] = web.http.portal.call(read)
    return result


# Storage that fails and comes back


@pytest.fixture()
def failing_writes(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """Set ``["fail"]`` to make every transaction fail as a full disk does."""
    switch = {"fail": False}
    real_apply = writer._apply

    def apply(conn: Any, changes: list[Any], touch: Any = ()) -> None:
        if switch["fail"]:
            raise OperationalError("INSERT", {}, sqlite3.OperationalError(
                "database or disk is full"))
        real_apply(conn, changes, touch)

    monkeypatch.setattr(writer, "_apply", apply)
    monkeypatch.setattr(writer, "RETRY_MOST", 0.05)
    return switch


def test_while_storage_fails_no_play_is_confirmed_and_every_seat_is_told(
        start_web: Callable[..., Web], failing_writes: dict[str, bool]) -> None:
    web = start_web()
    code, token0, token1 = web.two_humans()
    seats = [web.connect(code, token0, "seat 0"), web.connect(code, token1, "seat 1")]
    watcher = web.connect(code, None, "watcher")
    web.settle([*seats, watcher])
    mover = next(s for s in seats if s.my_turn())
    other = next(s for s in seats if s is not mover)
    seq = mover.state["seq"]

    failing_writes["fail"] = True
    mover.play()  # in flight when the disk fills: kept, made once writes work again
    for client in [*seats, watcher]:
        paused = client.wait_for(lambda s: s["paused"] == "storage")
        assert paused["seq"] == seq  # not confirmed to anyone
    health = web.http.get("/healthz")
    assert health.status_code == 503 and health.json()["status"] == "failing"
    assert health.json()["storage"]["error"] == "database or disk is full"
    assert web.http.get("/readyz").status_code == 503
    refused = web.http.post("/api/quick", json={})
    assert refused.status_code == 503 and "storage" in refused.json()["message"]
    other.send({"type": "play", "seq": seq, "card": "7D"})
    other.expect_error("storage_down")
    assert web.hub.tables[code].seq == seq and stored_moves(web, code) == []

    failing_writes["fail"] = False
    for client in [*seats, watcher]:
        resumed = client.wait_for(lambda s: s["paused"] is None and s["seq"] == seq + 1)
        assert resumed["last_play"]["seat"] == mover.seat
    assert len(stored_moves(web, code)) == seq + 1
    assert web.http.get("/readyz").status_code == 200
    assert web.http.get("/healthz").json()["status"] == "ok"
    web.settle(seats)
    nxt = next(s for s in seats if s.my_turn())
    nxt.play()
    nxt.wait_for(lambda s: s["seq"] == seq + 2)  # play goes on


def test_the_computer_waits_while_storage_fails(start_web: Callable[..., Web],
                                                failing_writes: dict[str, bool]) -> None:
    web = start_web(bot_delay=0.05)
    quick = web.quick()
    seat = web.connect(quick["code"], quick["token"])
    web.settle([seat])
    failing_writes["fail"] = True
    if seat.my_turn():
        seat.play()
    state = seat.wait_for(lambda s: s["paused"] == "storage")
    time.sleep(0.3)
    table = web.hub.tables[quick["code"]]
    assert table.seq <= state["seq"] + 1 and table.seq == len(stored_moves(web, quick["code"]))
    failing_writes["fail"] = False
    seat.wait_for(lambda s: s["paused"] is None)
    start = table.seq
    web.play_to_end([seat], plays=2)  # two plays of ours: the computer plays in between
    assert table.seq >= start + 3


# Tables in memory: expiry, idleness, dormancy


def test_a_table_nobody_opens_expires_and_the_computer_never_plays_it(
        start_web: Callable[..., Web]) -> None:
    web = start_web(unopened_after=0.3, sweep_every=0.05)
    quick = web.quick()
    code = quick["code"]
    wait_until(lambda: code not in web.hub.tables)
    assert stored_moves(web, code) == []  # nobody came: nothing was played for them
    gone = web.http.get(f"/api/tables/{code}")
    assert gone.status_code == 410 and "expired" in gone.json()["message"]
    with web.http.websocket_connect(f"/ws/{code}?token={quick['token']}") as socket:
        assert json.loads(socket.receive_text())["code"] == "expired"
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_text()
        assert closed.value.code == 4410
    joined = web.http.post(f"/api/tables/{code}/join", json={})
    assert joined.status_code == 410


def test_an_idle_table_leaves_memory_and_comes_back_exactly(
        start_web: Callable[..., Web]) -> None:
    web = start_web(idle_after=0.3, sweep_every=0.05)
    code, token0, token1 = web.two_humans()
    with web.connection(code, token0) as first, web.connection(code, token1) as second:
        web.play_to_end([first, second], plays=6)
        before = first.state
    wait_until(lambda: code not in web.hub.tables)
    assert web.info(code)["status"] == "playing"  # loaded again on demand
    after = web.fresh_state(code, token0)
    for key in ("seq", "deal", "legal", "last_play", "totals"):
        assert after[key] == before[key], key


def test_a_finished_table_leaves_memory_sooner_and_its_replay_stays(
        start_web: Callable[..., Web]) -> None:
    web = start_web(bot_delay=0, idle_after=3600, finished_after=0.3, sweep_every=0.05)
    quick = web.quick()
    playing = web.two_humans()
    with web.connection(quick["code"], quick["token"]) as seat:
        end = web.play_to_end([seat])
    with web.connection(playing[0], playing[1]) as other:
        other.wait_for(lambda state: state["table"]["status"] == "playing")
    wait_until(lambda: quick["code"] not in web.hub.tables)
    assert playing[0] in web.hub.tables  # a match in play stays for its idle time
    record_id = end["result"]["record_id"]
    assert web.http.get(f"/api/records/{record_id}/frames").status_code == 200
    info = web.info(quick["code"])  # loaded again on demand, still finished
    assert info["status"] == "finished" and info["records"] == [record_id]


def test_the_computer_plays_only_while_someone_is_at_the_table(
        start_web: Callable[..., Web]) -> None:
    web = start_web(away_after=0.05)
    code, _token0, _token1 = web.two_humans()
    time.sleep(0.5)  # both seats away, nobody connected: nothing moves
    assert web.hub.tables[code].seq == 0
    watcher = web.connect(code)
    watcher.wait_for(lambda s: s["seq"] >= 4)  # someone watches: the computer plays on


# Limits


def test_new_tables_and_joins_are_rate_limited_per_address(
        start_web: Callable[..., Web]) -> None:
    web = start_web(rate_limits={"create": "3/minute", "join": "2/minute"})
    for _ in range(3):
        web.quick()
    refused = web.http.post("/api/quick", json={})
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert ("too many new tables from testclient: at most 3 per 1 minute"
            in refused.json()["message"])
    assert web.http.post("/api/tables", json={}).status_code == 429
    assert len(web.hub.tables) == 3
    other = start_web(rate_limits={"create": "5/minute", "join": "2/minute"})
    created = other.new_table(players=4, seats=[{"kind": "human"}] * 4)
    other.join(created["code"])
    other.join(created["code"])
    over = other.http.post(f"/api/tables/{created['code']}/join", json={})
    assert over.status_code == 429 and "seats taken" in over.json()["message"]
    assert other.info(created["code"])["seats"][3]["taken"] is False


def test_sockets_are_capped_per_address_and_per_seat(start_web: Callable[..., Web]) -> None:
    web = start_web(address_connections=4, seat_connections=2)
    quick = web.quick()
    code, token = quick["code"], quick["token"]
    oldest = web.connect(code, token, "oldest")
    web.connect(code, token, "second")
    web.connect(code, token, "third")  # the seat's third socket closes the oldest
    message = oldest.receive()
    while message["type"] == "state":
        message = oldest.receive()
    assert message["type"] == "error" and message["code"] == "replaced"
    wait_until(lambda: web.hub.tables[code].connections[0] == 2)
    web.connect(code, None, "watcher")
    web.connect(code, None, "watcher 2")
    with web.http.websocket_connect(f"/ws/{code}") as refused:
        error = json.loads(refused.receive_text())
        assert error["code"] == "too_many_connections" and "4 sockets" in error["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            refused.receive_text()
        assert closed.value.code == 4429


# Health and tables that cannot be restored


def test_a_table_that_cannot_be_restored_is_reported_loudly(
        tmp_path: Any, caplog: pytest.LogCaptureFixture) -> None:
    url = f"sqlite:///{tmp_path}/broken.db"
    with TestClient(create_app(url, bot_delay=0)) as client:
        quick = client.post("/api/quick", json={"name": "Amira"}).json()
        healthy = client.get("/healthz").json()
        assert healthy["status"] == "ok" and healthy["unrestored"] == []

    async def corrupt() -> None:  # a move no deal allows: AH taking itself
        store = Store(url)
        await store.open()
        async with store.engine.begin() as conn:
            await conn.execute(insert(moves_table).values(
                code=quick["code"], match_number=1, idx=0, move=(1 << 1) << 6 | 1))
        await store.close()

    anyio.run(corrupt)
    with TestClient(create_app(url, bot_delay=0)) as client:
        report = client.get("/healthz")
        assert report.status_code == 200 and report.json()["status"] == "degraded"
        assert [u["code"] for u in report.json()["unrestored"]] == [quick["code"]]
        assert "COULD NOT BE RESTORED" in caplog.text
        answer = client.get(f"/api/tables/{quick['code']}")
        assert answer.status_code == 503 and "could not be restored" in answer.json()["message"]
        with client.websocket_connect(f"/ws/{quick['code']}?token={quick['token']}") as ws:
            assert json.loads(ws.receive_text())["code"] == "unrestored"
        fine = client.post("/api/quick", json={})  # the rest of the server works
        assert fine.status_code == 200


def test_health_reports_storage_tables_and_connections(web: Web) -> None:
    quick = web.quick()
    web.connect(quick["code"], quick["token"])
    report = web.ok(web.http.get("/healthz"))
    assert report["status"] == "ok" and report["storage"]["ok"] is True
    assert report["tables"] == 1 and report["connections"] == 1
    assert report["storage"]["last_commit"] > time.time() - 60
    assert web.ok(web.http.get("/readyz"))["ready"] is True


def test_a_table_finished_before_its_record_was_written_gets_it_on_loading(
        tmp_path: Any) -> None:
    """Killed between the last play and its record: the record is written when the
    table is loaded again, once."""
    url = f"sqlite:///{tmp_path}/late.db"
    rules = make_rules("egyptian", 2, {"target": 1})
    with TestClient(create_app(url, bot_delay=0)) as client:
        created = client.post("/api/tables", json={
            "rules": {"target": 1},
            "seats": [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}],
        }).json()
        code = created["code"]
        seed = client.app.state.hub.tables[code].seed  # type: ignore[attr-defined]
    match = Match(rules, seed=seed, variant="egyptian")
    from basra.bots import make_bot

    bot = make_bot("greedy", 1)
    moves = []
    while not match.is_over:
        move = bot.choose(observe(match, match.state.to_play))
        match.play(move)
        moves.append(move)

    async def store_moves() -> None:
        store = Store(url)
        await store.open()
        for index, move in enumerate(moves):
            await store.tables.add_move(code, 1, index, move)
        async with store.engine.begin() as conn:
            await conn.execute(tables_table.update().where(tables_table.c.code == code)
                               .values(opened_at=1))
        await store.close()

    anyio.run(store_moves)
    with TestClient(create_app(url, bot_delay=0)) as client:
        with client.websocket_connect(f"/ws/{code}") as ws:
            state = json.loads(ws.receive_text())
            assert state["result"] is not None
            while state["result"]["record_id"] is None:
                state = json.loads(ws.receive_text())
        records = client.get("/api/records").json()
        assert [(r["code"], r["id"]) for r in records] == [(code, state["result"]["record_id"])]


# Computer players


def test_the_master_queue_falls_back_to_the_expert_with_a_note() -> None:
    match = Match(make_rules("egyptian"), seed=3)
    observation = observe(match, match.state.to_play)

    async def main() -> list[Any]:
        players = ComputerPlayers(master_ms=200, master_workers=1)
        try:
            return await asyncio.gather(*(players.choose(("t", i), "master", observation)
                                          for i in range(4)))
        finally:
            players.close()

    choices = asyncio.run(main())
    assert [c.level for c in choices] == ["master", "master", "expert", "expert"]
    assert [c.note for c in choices] == [None, None, "master_busy", "master_busy"]
    assert all(c.move in observation.legal_moves for c in choices)


def test_quick_computer_moves_give_the_event_loop_back_between_slices(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """However many tables wait for the computer, other work runs between its slices."""
    monkeypatch.setattr(computer_module, "SLICE_SECONDS", 0.0)
    match = Match(make_rules("egyptian"), seed=5)
    observation = observe(match, match.state.to_play)

    async def main() -> tuple[int, int]:
        players = ComputerPlayers()
        ticks = 0
        running = True

        async def ticker() -> None:
            nonlocal ticks
            while running:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        choices = await asyncio.gather(*(players.choose(("t", i), "expert", observation)
                                         for i in range(200)))
        running = False
        await task
        players.close()
        return ticks, len(choices)

    ticks, answered = asyncio.run(main())
    assert answered == 200
    assert ticks >= 150  # the ticker ran between the decisions, not after all of them
