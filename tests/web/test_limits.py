"""Limits one client cannot step around (``docs/web-protocol.md``, "Limits"): analyses per
address and account, a bounded analysis queue, a cap on one analysis's decisions; seeks
that count as new tables and as sockets; hints per seat and address; chat per seat,
whichever socket it comes from; combining marks capped in chat and names; and puzzle
answers that count only for a solution never shown."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect
from websockets.asyncio.client import connect

from basra.bots.simple import GreedyBot
from basra.match import Match
from basra.observe import observe
from basra.players.marks import MAX_MARKS
from basra.record import Player, dumps, match_record
from basra.rules import make_rules
from basra.server.seeking import SeekSettings
from basra.store import Store
from basra.study.puzzles import packaged_puzzles
from tests.support.realserver import Server, sqlite_url


@pytest.fixture(autouse=True)
def quick_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    """A few milliseconds a decision: the tests check the limits, not the strength."""
    monkeypatch.setenv("BASRA_ANALYSIS_THINK_MS", "3")
    monkeypatch.setenv("BASRA_HINT_MS", "20")


def finished_record(seed: int) -> dict[str, Any]:
    """A whole match of two greedy computers, as a record."""
    rules = make_rules("egyptian")
    match = Match(rules, seed, variant="egyptian")
    bots = [GreedyBot(seed * 10 + seat) for seat in range(rules.players)]
    while not match.is_over:
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
    return match_record(match, [Player(f"p{seat}", "bot") for seat in range(2)])


async def _save(store: Store, count: int) -> list[int]:
    ids = []
    for seed in range(count):
        record = finished_record(seed + 1)
        ids.append(await store.records.save(f"REC{seed}", 1, record, dumps(record)))
    return ids


def stored_records(web: Any, count: int) -> list[int]:
    """``count`` finished matches stored in the app's database: their record ids."""
    ids: list[int] = web.http.portal.call(_save, web.app.state.store, count)
    return ids


def wait_analysed(web: Any, record_id: int, seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = web.ok(web.http.get(f"/api/records/{record_id}/analysis"))
        if answer["status"] == "done":
            return dict(answer["analysis"])
        assert answer["status"] == "running", answer
        time.sleep(0.2)
    raise AssertionError(f"record {record_id} was not analysed in {seconds} s")


def until_message(client: Any, kind: str, seconds: float = 10) -> dict[str, Any]:
    """Read a seek socket's messages until one of ``kind`` comes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        message: dict[str, Any] = client.receive()
        if message["type"] == kind:
            return message
    raise AssertionError(f"{client} got no {kind!r} message in {seconds} s")


# -- analyses ----------------------------------------------------------------------------

def test_the_analysis_queue_refuses_a_burst_with_a_wait(
        start_web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASRA_ANALYSIS_QUEUE", "2")
    web = start_web()
    ids = stored_records(web, 4)
    answers = [web.http.post(f"/api/records/{record_id}/analysis") for record_id in ids]
    assert [a.status_code for a in answers] == [202, 202, 503, 503]
    for refused in answers[2:]:
        body = refused.json()
        assert body["code"] == "analysis_queue_full"
        assert int(refused.headers["Retry-After"]) == body["params"]["seconds"] > 0
    # asking again for one already running is no new analysis: not refused
    assert web.http.post(f"/api/records/{ids[0]}/analysis").status_code == 202
    assert web.ok(web.http.get(f"/api/records/{ids[2]}/analysis"))["status"] == "none"
    wait_analysed(web, ids[0])
    wait_analysed(web, ids[1])
    assert web.http.post(f"/api/records/{ids[2]}/analysis").status_code == 202
    wait_analysed(web, ids[2])


def test_analyses_are_limited_per_address_and_per_account(start_web: Any) -> None:
    web = start_web(rate_limits={"analysis": "3/hour", "analysis_account": "1/day"})
    ids = stored_records(web, 4)
    assert web.http.post(f"/api/records/{ids[0]}/analysis").status_code == 202
    session = web.account("Analyst")
    web.http.cookies.set("basra_session", session)
    assert web.http.post(f"/api/records/{ids[1]}/analysis").status_code == 202
    # the account's own limit: one a day, whichever address it asks from
    over = web.http.post(f"/api/records/{ids[2]}/analysis")
    assert over.status_code == 429 and over.json()["code"] == "analysis_limit"
    assert int(over.headers["Retry-After"]) == over.json()["params"]["seconds"] > 3600
    web.http.cookies.clear()
    # the address's limit: three an hour, guests and accounts alike
    over = web.http.post(f"/api/records/{ids[3]}/analysis")
    assert over.status_code == 429 and over.json()["code"] == "analysis_limit"
    assert 0 < int(over.headers["Retry-After"]) <= 3600
    assert "at most 3 per 1 hour" in over.json()["message"]
    for record_id in ids[2:]:  # nothing was started for a refused request
        assert web.ok(web.http.get(f"/api/records/{record_id}/analysis"))["status"] == "none"
    wait_analysed(web, ids[0])
    wait_analysed(web, ids[1])


def test_a_long_match_has_only_some_decisions_analysed_and_says_so(
        start_web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASRA_ANALYSIS_MAX_DECISIONS", "12")
    web = start_web()
    [record_id] = stored_records(web, 1)
    assert web.http.post(f"/api/records/{record_id}/analysis").status_code == 202
    document = wait_analysed(web, record_id)
    sampled = document["sampled"]
    assert sampled["analysed"] == 12 == len(document["decisions"])
    assert sampled["decisions"] > 12
    assert sum(p["decisions"] for p in document["players"]) == 12
    deals = {d["deal"] for d in document["decisions"]}
    assert len(deals) > 1  # spread through the match, not its first moves only
    page = web.http.get(f"/replay/{record_id}")
    assert page.status_code == 200 and 'id="analysis-sampled"' in page.text


@pytest.mark.slow
def test_a_real_server_refuses_an_analysis_burst_with_retry_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = sqlite_url(tmp_path / "burst.db")

    async def prepare() -> list[int]:
        store = Store(url)
        await store.open()
        try:
            return await _save(store, 5)
        finally:
            await store.close()

    ids = asyncio.run(prepare())
    monkeypatch.setenv("BASRA_ANALYSIS_QUEUE", "2")
    # long enough a think per decision that no analysis ends while the burst is sent
    monkeypatch.setenv("BASRA_ANALYSIS_THINK_MS", "5000")
    with Server(url, tmp_path, "--bot-delay", "0", apart=True) as server:
        server.wait("/")

        def post(record_id: int) -> tuple[int, str | None, dict[str, Any]]:
            request = urllib.request.Request(
                f"{server.base}/api/records/{record_id}/analysis", data=b"", method="POST")
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    return (answer.status, answer.headers.get("Retry-After"),
                            json.loads(answer.read()))
            except urllib.error.HTTPError as refused:
                return (refused.code, refused.headers.get("Retry-After"),
                        json.loads(refused.read()))

        with ThreadPoolExecutor(5) as pool:
            answers = list(pool.map(post, ids))
        statuses = sorted(status for status, _, _ in answers)
        assert statuses == [202, 202, 503, 503, 503], answers
        for status, retry_after, body in answers:
            if status == 503:
                assert body["code"] == "analysis_queue_full"
                assert retry_after is not None
                assert int(retry_after) == body["params"]["seconds"]
    assert "Traceback" not in server.errors()


# -- seeks count as tables and sockets ---------------------------------------------------

def test_seeks_count_against_the_table_creation_limit(start_web: Any) -> None:
    web = start_web(rate_limits={"create": "3/minute"})
    first, second = web.seek(label="first"), web.seek(label="second")
    for seeker in (first, second):  # paired onto one table: two seeks, two counted
        until_message(seeker, "paired")
    assert web.http.post("/api/quick", json={}).status_code == 200
    refused = web.http.post("/api/quick", json={})
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    # and past the limit, a seek is refused too: it would make a table
    tables = len(web.hub.tables)
    with web.http.websocket_connect("/ws/seek") as socket:
        error = socket.receive_json()
        assert error["type"] == "error" and error["code"] == "rate_limited"
        assert error["params"]["seconds"] > 0
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4429
    assert len(web.hub.tables) == tables and not web.app.state.seeking.mine


def test_seek_sockets_count_against_the_sockets_of_an_address(start_web: Any) -> None:
    web = start_web(address_connections=3, seeking=SeekSettings(pair_every=3600))
    code = web.quick()["code"]
    seekers = [web.seek(label=f"seek {n}") for n in range(3)]
    for seeker in seekers:
        assert seeker.receive()["type"] == "waiting"
    with web.http.websocket_connect("/ws/seek") as socket:
        error = socket.receive_json()
        assert error["code"] == "too_many_connections"
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4429
    with web.http.websocket_connect(f"/ws/{code}") as socket:  # a table's socket too
        assert socket.receive_json()["code"] == "too_many_connections"
    assert len(web.app.state.seeking.mine) == 3
    seekers[0].socket.close()
    deadline = time.monotonic() + 5
    while len(web.app.state.seeking.mine) > 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    watcher = web.connect(code)  # a socket is free again
    assert watcher.state is not None and watcher.state["table"]["code"] == code


@pytest.mark.slow
def test_a_real_server_counts_seeks_as_new_tables(tmp_path: Path) -> None:
    """The issue's burst: quick games up to the limit, then guest seeks made more."""
    with Server(sqlite_url(tmp_path / "seeks.db"), tmp_path, "--bot-delay", "0",
                "--create-limit", "4/minute", apart=True) as server:
        server.wait("/")

        def quick() -> int:
            request = urllib.request.Request(server.base + "/api/quick", data=b"{}",
                                             method="POST",
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    return int(answer.status)
            except urllib.error.HTTPError as refused:
                return int(refused.code)

        assert [quick() for _ in range(5)] == [200, 200, 200, 200, 429]

        async def seek() -> dict[str, Any]:
            async with connect(f"{server.ws_base}/ws/seek", open_timeout=5) as socket:
                first: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 5))
                return first

        async def burst() -> list[dict[str, Any]]:
            return list(await asyncio.gather(*(seek() for _ in range(12))))

        answers = asyncio.run(burst())
        assert all(a["type"] == "error" and a["code"] == "rate_limited" for a in answers)
    assert "Traceback" not in server.errors()


# -- hints -------------------------------------------------------------------------------

class CountingPool(ThreadPoolExecutor):
    """A pool that counts the work handed to it."""

    def __init__(self) -> None:
        super().__init__(2)
        self.submitted = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.submitted += 1
        return super().submit(*args, **kwargs)


def test_hints_asked_at_once_are_computed_once(web: Any) -> None:
    pool = CountingPool()
    web.app.state.analyses.executor = pool
    quick = web.quick("Amira")
    code, token = quick["code"], quick["token"]
    client = web.connect(code, token)
    client.wait_for(lambda state: client.my_turn())
    with ThreadPoolExecutor(10) as asking:
        answers = list(asking.map(
            lambda _n: web.http.get(f"/api/tables/{code}/hint?token={token}"), range(10)))
    assert [a.status_code for a in answers] == [200] * 10
    assert len({json.dumps(a.json(), sort_keys=True) for a in answers}) == 1
    assert pool.submitted == 1
    pool.shutdown()


def test_hints_are_limited_per_seat_and_per_address(start_web: Any) -> None:
    web = start_web(rate_limits={"hint_seat": "2/minute", "hint": "5/minute"})
    quick = web.quick("Amira")
    code, token = quick["code"], quick["token"]
    client = web.connect(code, token)
    url = f"/api/tables/{code}/hint?token={token}"
    for _turn in range(2):  # one hint a turn, two turns
        client.wait_for(lambda state: client.my_turn())
        assert web.http.get(url).status_code == 200
        client.play()
        client.wait_for(lambda state: not client.my_turn())
    client.wait_for(lambda state: client.my_turn())
    over = web.http.get(url)
    assert over.status_code == 429 and over.json()["code"] == "hint_limit"
    assert int(over.headers["Retry-After"]) == over.json()["params"]["seconds"] > 0
    # the address's own limit (5 a minute), counted for every ask: 3 so far
    assert web.http.get(url).status_code == 429  # the seat's limit still (4)
    over = web.http.get(f"/api/tables/{code}/hint")  # (5) not seated: refused as such
    assert over.status_code == 403
    over = web.http.get(url)  # (6) the address's limit
    assert over.status_code == 429 and over.json()["code"] == "hint_limit"
    assert "at most 5 per 1 minute" in over.json()["message"]


# -- chat --------------------------------------------------------------------------------

def chats(client: Any) -> list[dict[str, Any]]:
    return [m for m in client.sync() if m["type"] == "chat"]


def test_the_chat_limit_is_a_seats_not_a_sockets(web: Any) -> None:
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], name="Amira")
    code = created["code"]
    joined = web.join(code, name="Bashir")
    first = web.connect(code, created["token"], "Amira's phone")
    second = web.connect(code, created["token"], "Amira's laptop")
    bashir = web.connect(code, joined["token"], "Bashir")
    web.settle([first, second, bashir])
    for _ in range(3):
        first.send({"type": "chat", "phrase": "good_luck"})
    assert len(chats(first)) == 3  # (handled before the next are sent)
    for _ in range(3):
        second.send({"type": "chat", "phrase": "thanks"})
    errors = [m for m in second.sync() if m["type"] == "error"]
    assert [m["code"] for m in errors] == ["chat_limit"]
    assert len(chats(bashir)) == 5
    bashir.send({"type": "chat", "phrase": "oops"})  # another seat has its own count
    assert [m["phrase"] for m in chats(first)][-1:] == ["oops"]


def test_watchers_at_one_address_share_a_chat_limit(web: Any) -> None:
    code = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}])["code"]
    one, two = web.connect(code, label="watcher 1"), web.connect(code, label="watcher 2")
    for _ in range(5):
        one.send({"type": "chat", "phrase": "good_game"})
    assert len(chats(one)) == 5  # (handled before the next is sent)
    two.send({"type": "chat", "phrase": "oops"})
    assert [m["code"] for m in two.sync() if m["type"] == "error"] == ["chat_limit"]
    assert chats(one) == []


# -- combining marks ---------------------------------------------------------------------

ZALGO = "a" + "\u0301" * 199


def test_a_letter_with_199_marks_keeps_a_few_in_chat_and_names(web: Any) -> None:
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "bot", "level": "greedy"}],
                            name="Z" + "\u0308" * 50 + "ara")
    code = created["code"]
    amira = web.connect(code, created["token"])
    assert amira.state["table"]["seats"][0]["name"] == "Z" + "\u0308" * MAX_MARKS + "ara"
    amira.send({"type": "chat_consent", "allow": True})
    amira.next_state()
    amira.send({"type": "chat", "text": f"hi {ZALGO} there"})
    [said] = chats(amira)
    assert said["text"] == "hi \u00e1" + "\u0301" * MAX_MARKS + " there"
    # a seek's name is cleaned the same way
    seeker = web.seek("name=" + "B" + "%CC%88" * 40)
    until_message(seeker, "waiting")
    [seek] = web.app.state.seeking.mine.values()
    assert seek.name == "B" + "\u0308" * MAX_MARKS


# -- puzzle answers ----------------------------------------------------------------------

def _solution(puzzle_id: str) -> str:
    return next(p for p in packaged_puzzles() if p.id == puzzle_id).solution


def _wrong(puzzle: dict[str, Any]) -> str:
    solution = _solution(puzzle["id"])
    return str(next(m["move"] for m in puzzle["moves"] if m["move"] != solution))


def test_a_solution_shown_to_a_guest_does_not_rate_an_account_at_that_address(
        web: Any) -> None:
    puzzle = web.ok(web.http.get("/api/puzzles/next"))["puzzle"]
    url = f"/api/puzzles/{puzzle['id']}/answer"
    shown = web.ok(web.http.post(url, json={"move": _wrong(puzzle)}))  # as a guest
    assert shown["solution"] == _solution(puzzle["id"])
    web.http.cookies.set("basra_session", web.account("Farmer"))
    right = web.ok(web.http.post(url, json={"move": shown["solution"]}))
    assert right["correct"] is True
    assert right["rating"] == {"before": 1000, "after": 1000, "counted": False,
                               "unrated": "solution_shown_here"}
    mine = web.ok(web.http.get("/api/puzzles/rating"))
    assert (mine["rating"], mine["solved"], mine["attempts"]) == (1000, 0, 0)
    # another puzzle, never shown here, counts
    other = web.ok(web.http.get(f"/api/puzzles/next?skip={puzzle['id']}"))["puzzle"]
    counted = web.ok(web.http.post(f"/api/puzzles/{other['id']}/answer",
                                   json={"move": _solution(other["id"])}))
    assert counted["rating"]["counted"] is True and counted["rating"]["unrated"] is None
    assert counted["rating"]["after"] > 1000
    # the reveal is stored as a keyed hash, never the address
    rows = web.http.portal.call(_reveals, web.app.state.store)
    assert rows and all("testclient" not in who for who in rows)
    assert any(who.startswith("address:") for who in rows)


async def _reveals(store: Store) -> list[str]:
    from sqlalchemy import select

    from basra.store.schema import puzzle_reveals_table

    async with store.engine.connect() as conn:
        return [row[0] for row in (await conn.execute(
            select(puzzle_reveals_table.c.shown_to))).all()]


def test_a_solution_shown_to_an_account_never_rates_it_later(start_web: Any) -> None:
    web = start_web()
    session = web.account("Solver")
    web.http.cookies.set("basra_session", session)
    puzzle = web.ok(web.http.get("/api/puzzles/next"))["puzzle"]
    url = f"/api/puzzles/{puzzle['id']}/answer"
    wrong = web.ok(web.http.post(url, json={"move": _wrong(puzzle)}))
    assert wrong["rating"]["counted"] is True and wrong["rating"]["after"] < 1000
    again = web.ok(web.http.post(url, json={"move": wrong["solution"]}))
    assert again["rating"]["counted"] is False
    assert again["rating"]["unrated"] == "solution_shown"
    assert again["rating"]["after"] == wrong["rating"]["after"]


def test_an_address_reveal_lasts_a_day_and_an_accounts_for_good(
        web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from basra.store import reveals

    puzzle = web.ok(web.http.get("/api/puzzles/next"))["puzzle"]
    url = f"/api/puzzles/{puzzle['id']}/answer"
    web.ok(web.http.post(url, json={"move": _wrong(puzzle)}))  # a guest sees it
    later = reveals.now_ms() + reveals.ADDRESS_DAY_MS + 1000
    monkeypatch.setattr(reveals, "now_ms", lambda: later)
    web.http.cookies.set("basra_session", web.account("Patient"))
    right = web.ok(web.http.post(url, json={"move": _solution(puzzle["id"])}))
    assert right["rating"]["counted"] is True and right["rating"]["unrated"] is None
