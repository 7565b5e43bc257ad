"""A real ``basra serve`` keeps every confirmed move and survives abuse
(``docs/web-protocol.md``: "Confirmed plays", "Limits", "Health").

Every test starts ``python -m basra serve`` subprocesses on free ports and talks to them
over real sockets (httpx, websockets):

- killed with SIGKILL under load, then restarted on the same database, the server has
  every move any client saw confirmed, and play goes on (SQLite, and PostgreSQL when
  ``BASRA_TEST_POSTGRES_URL`` names one);
- a disk that fills pauses the tables visibly (``paused``, ``storage_down``, 503 from
  ``/healthz``, ``/readyz`` and new tables) and loses nothing once it frees (root only: it
  mounts a small tmpfs);
- a read-only database stops ``basra serve`` at once with one line and exit code 2;
- a flood of new tables and of sockets from one address is refused while another table
  keeps playing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import create_async_engine
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from basra.cards import CARD_NAMES, card_names
from basra.store import database_url
from basra.store.schema import moves_table, records_table, seats_table, tables_table
from tests.support.realserver import (
    Server,
    fill_under,
    free_port,
    serve_command,
    small_tmpfs,
    sqlite_url,
    until,
)
from tests.support.seats import (
    LONG_MATCH,
    SeatClient,
    State,
    TableLog,
    close_all,
    turn_of,
    two_human_tables,
)
from tests.support.stores import BACKENDS, POSTGRES_URL

pytestmark = pytest.mark.slow

DATABASES = BACKENDS

LIFTED = ["--create-limit", "100000/minute", "--join-limit", "100000/minute",
          "--socket-limit", "100000/minute",
          "--sockets-per-address", "100000"]
"""Options that lift the per-address limits: every test client is 127.0.0.1."""

WAIT_SECONDS = 10.0


# -- the server --------------------------------------------------------------------------


def start(url: str, folder: Path, *options: str) -> Server:
    """A server on ``url`` with no computer delay; not waited for."""
    return Server(url, folder, "--bot-delay", "0", *options)


@contextlib.asynccontextmanager
async def serving(url: str, folder: Path, *options: str) -> AsyncIterator[Server]:
    """A ready server, killed on the way out."""
    server = start(url, folder, *options)
    try:
        await server.ready()
        yield server
    finally:
        server.kill()



# -- the clients -------------------------------------------------------------------------


class Player(SeatClient):
    """A seat (``tests/support/seats.py``) that also checks what it is shown: no hidden
    card, only its own hand; it keeps the hands it was shown and counts paused states."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.leaks: list[str] = []
        self.hands: dict[tuple[int, int], frozenset[str]] = {}
        """(deal, seq) -> the hand this seat was shown."""
        self.paused_states = 0

    def on_state(self, state: State) -> None:
        self.leaks += hidden_info_leaks(state, self.seat)
        if state["deal"] is not None:
            self.hands[state["deal"]["number"], state["seq"]] = frozenset(state["deal"]["hand"])
        if state["paused"] is not None:
            self.paused_states += 1
        super().on_state(state)

    def in_flight(self) -> bool:
        """Whether the play of the latest state's turn was sent and is not answered."""
        return (self.state is not None and self.pending is not None
                and self.pending[0] == turn_of(self.state))


def hidden_info_leaks(state: State, seat: int | None) -> list[str]:
    """What in a state shows more than ``seat`` may see (empty when nothing does)."""
    leaks = []
    text = json.dumps(state)
    if '"hands"' in text or '"stock"' in text or '"seed"' in text:
        leaks.append(f"a field that holds hidden cards: {text[:200]}")
    if state["you"]["seat"] != seat:
        leaks.append(f"a state for seat {state['you']['seat']} sent to seat {seat}")
    deal = state["deal"]
    if deal is not None and seat is not None and len(deal["hand"]) != deal["hand_counts"][seat]:
        leaks.append(f"a hand of {len(deal['hand'])} cards for seat {seat}, which holds "
                     f"{deal['hand_counts'][seat]}")
    return leaks


async def new_tables(base: str, count: int, rules: State | None = None) -> list[TableLog]:
    """``count`` two-player tables of two humans, both seats taken."""
    return await two_human_tables(base, count, rules or LONG_MATCH)


def seat_players(logs: list[TableLog], ws_base: str, pace: float = 0.0) -> list[Player]:
    return [Player.at(log, seat, ws_base, pace=pace, open_timeout=10).start()
            for log in logs for seat in (0, 1)]


# -- what the database holds -------------------------------------------------------------


async def stored_moves(url: str, codes: list[str]) -> dict[str, list[int]]:
    """The stored moves of match 1 of each table, in order."""
    engine = create_async_engine(database_url(url))
    found: dict[str, list[int]] = {code: [] for code in codes}
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                select(moves_table.c.code, moves_table.c.idx, moves_table.c.move)
                .where(moves_table.c.code.in_(codes), moves_table.c.match_number == 1)
                .order_by(moves_table.c.code, moves_table.c.idx))
            for code, idx, move in rows.all():
                assert idx == len(found[code]), f"{code}: move {idx} stored after a gap"
                found[code].append(move)
    finally:
        await engine.dispose()
    return found


async def delete_rows(url: str, codes: list[str]) -> None:
    """Delete every stored row of these tables (the PostgreSQL database is shared)."""
    engine = create_async_engine(database_url(url))
    try:
        async with engine.begin() as conn:
            for table in (moves_table, seats_table, tables_table, records_table):
                await conn.execute(delete(table).where(table.c.code.in_(codes)))
    finally:
        await engine.dispose()


def play_of(move: int) -> tuple[str, list[str]]:
    return CARD_NAMES[move & 63], sorted(card_names(move >> 6))


def lost_moves(logs: list[TableLog], stored: dict[str, list[int]]) -> list[str]:
    """Every confirmed play the database does not hold as confirmed: missing, or another
    move at its place."""
    lost = []
    for log in logs:
        moves = stored[log.code]
        for seq, last in sorted(log.confirmed.items()):
            if seq == 0:
                continue
            if seq > len(moves):
                lost.append(f"{log.code}: play {seq} confirmed, {len(moves)} stored")
                continue
            assert last is not None, f"{log.code}: seq {seq} confirmed with no last_play"
            if play_of(moves[seq - 1]) != (last["card"], sorted(last["captured"])):
                lost.append(f"{log.code}: play {seq} confirmed as {last}, stored as "
                            f"{play_of(moves[seq - 1])}")
    return lost


# -- kill -9 under load ------------------------------------------------------------------


@pytest.mark.parametrize("database", DATABASES)
def test_kill_9_under_load_loses_no_confirmed_move(database: str, tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "kill.db") if database == "sqlite" else POSTGRES_URL
    assert url is not None
    codes: list[str] = []

    async def scenario() -> None:
        server = start(url, tmp_path, *LIFTED)
        try:
            await server.ready()
            logs = await new_tables(server.base, 20)
            codes.extend(log.code for log in logs)
            players = seat_players(logs, server.ws_base)
            await until(lambda: all(log.top >= 2 for log in logs), "every table playing")
            await asyncio.sleep(3)
            server.kill()
            await asyncio.wait_for(asyncio.gather(*(p.task for p in players if p.task)), 10)
        finally:
            server.kill()
        assert all(player.closed is not None for player in players)
        assert not any(player.errors for player in players), \
            [p.errors[:3] for p in players if p.errors]
        before = {log.code: log.top for log in logs}
        assert sum(before.values()) >= 20 * 3, before

        async with serving(url, tmp_path, *LIFTED) as again:
            stored = await stored_moves(url, codes)
            lost = lost_moves(logs, stored)
            assert lost == [], f"{len(lost)} confirmed moves lost: {lost[:5]}"
            players = seat_players(logs, again.ws_base)
            await until(lambda: all(p.first is not None for p in players),
                        "every seat gets a state after the restart")
            for player in players:
                assert player.first is not None
                assert player.first["seq"] >= before[player.code], \
                    (player.code, player.first["seq"], before[player.code])
            await until(lambda: all(log.top >= before[log.code] + 4 for log in logs),
                        "play goes on at every table after the restart")
            await close_all(players)
            assert lost_moves(logs, await stored_moves(url, codes)) == []
        assert not any(log.conflicts for log in logs), [log.conflicts for log in logs]

    try:
        asyncio.run(scenario())
    finally:
        if database == "postgresql" and codes:
            asyncio.run(delete_rows(url, codes))


# -- a full disk -------------------------------------------------------------------------


def test_a_full_disk_pauses_the_tables_and_loses_nothing(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk", "8m") as disk:
        url = sqlite_url(disk / "full.db")

        async def scenario() -> None:
            async with serving(url, tmp_path) as server, \
                    httpx.AsyncClient(base_url=server.base, timeout=10) as http:
                logs = await new_tables(server.base, 3)
                players = seat_players(logs, server.ws_base, pace=0.02)
                await until(lambda: all(log.top >= 6 for log in logs), "the tables play")

                assert fill_under(disk / "full.db", disk / "filler") > 0
                await until(lambda: all(p.state is not None and p.state["paused"] == "storage"
                                        for p in players),
                            "every seat is told that the table is paused", 5)
                paused_at = {log.code: log.top for log in logs}
                for path in ("/healthz", "/readyz"):
                    answer = await http.get(path)
                    assert answer.status_code == 503, (path, answer.text)
                    storage = answer.json()["storage"]
                    assert storage["ok"] is False and "full" in storage["error"], storage
                assert (await http.get("/healthz")).json()["status"] == "failing"
                refused = await http.post("/api/tables", json={})
                assert refused.status_code == 503, refused.text
                assert "storage" in refused.json()["message"]
                assert (await http.post("/api/quick", json={})).status_code == 503

                # A play sent while paused is refused. (One sent just before, still being
                # written, is made once writes commit; its socket answers nothing meanwhile,
                # so the refused play goes on a second socket of the seat to play.)
                in_flight = {p.code: p.state["seq"] for p in players
                             if p.state is not None and p.my_turn() and p.in_flight()}
                mover = next(p for p in players if p.my_turn())
                assert mover.log is not None
                other = Player.at(mover.log, mover.seat, server.ws_base, open_timeout=10).start()
                other.playing = False
                await until(lambda: other.first is not None, "a second socket's state")
                assert other.first is not None and other.first["paused"] == "storage"
                other.send_play(other.first)
                await until(lambda: bool(other.errors), "an answer to the play")
                assert other.errors[0]["code"] == "storage_down", other.errors
                await other.close()
                await asyncio.sleep(0.3)
                assert {log.code: log.top for log in logs} == paused_at

                (disk / "filler").unlink()
                await until(lambda: all(p.state is not None and p.state["paused"] is None
                                        for p in players),
                            "every seat is told that play goes on", 5)
                assert (await http.get("/readyz")).status_code == 200
                assert (await http.get("/healthz")).json()["status"] == "ok"
                await until(lambda: all(log.top >= paused_at[log.code] + 4 for log in logs),
                            "play resumes at every table")
                for code, seq in in_flight.items():  # the play in flight was made
                    log = next(log for log in logs if log.code == code)
                    assert log.confirmed[seq + 1] is not None
                server.kill()
                await asyncio.wait_for(asyncio.gather(*(p.task for p in players if p.task)), 10)
            confirmed = {log.code: log.top for log in logs}  # before the restart plays on
            unexpected = [e for p in players for e in p.errors if e["code"] != "storage_down"]
            assert unexpected == []
            assert not any(log.conflicts for log in logs)

            async with serving(url, tmp_path) as again:
                lost = lost_moves(logs, await stored_moves(url, [log.code for log in logs]))
                assert lost == [], f"{len(lost)} confirmed moves lost: {lost[:5]}"
                players = seat_players(logs, again.ws_base)
                await until(lambda: all(p.first is not None for p in players),
                            "every seat gets a state after the restart")
                assert all(p.first is not None and p.first["seq"] >= confirmed[p.code]
                           and p.first["paused"] is None for p in players), [
                    (p.first and p.first["seq"], confirmed[p.code],
                     p.first and p.first["paused"]) for p in players]
                await close_all(players)

        asyncio.run(scenario())


# -- a read-only database ----------------------------------------------------------------


def test_a_read_only_database_stops_serve_at_once(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "ro", "8m") as folder:
        db = folder / "basra.db"

        async def first_run() -> None:
            async with serving(sqlite_url(db), tmp_path) as server:
                await new_tables(server.base, 1)
                server.stop()
                assert server.process.returncode == 0, server.log()

        asyncio.run(first_run())
        assert db.exists()
        remounted = subprocess.run(["mount", "-o", "remount,ro", str(folder)],
                                   capture_output=True, text=True)
        assert remounted.returncode == 0, remounted.stderr
        started = time.monotonic()
        result = subprocess.run(serve_command(free_port(), sqlite_url(db), "--bot-delay", "0"),
                                capture_output=True, text=True, timeout=30)
        took = time.monotonic() - started
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert took < 10, f"took {took:.1f} s"
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("error:"), lines
    assert str(db) in lines[0] and "cannot write" in lines[0], lines
    assert "Traceback" not in result.stderr


# -- a flood from one address ------------------------------------------------------------


async def open_socket(url: str, until_done: asyncio.Event) -> tuple[str, int | None]:
    """Open a socket and read it until the server closes it or ``until_done`` is set:
    (the first error code, or "open" when it was still open; the close code)."""
    first_error = "open"
    try:
        async with connect(url, open_timeout=20) as ws:
            closing = asyncio.ensure_future(until_done.wait())
            try:
                while True:
                    reading = asyncio.ensure_future(ws.recv())
                    done, _ = await asyncio.wait({reading, closing},
                                                 return_when=asyncio.FIRST_COMPLETED)
                    if reading not in done:
                        reading.cancel()
                        return first_error, None
                    message = json.loads(reading.result())
                    if message["type"] == "error" and first_error == "open":
                        first_error = message["code"]
                    elif message["type"] == "state":
                        assert not hidden_info_leaks(message, 0)
            finally:
                closing.cancel()
    except ConnectionClosed as closed:
        return first_error, closed.rcvd.code if closed.rcvd is not None else 1006
    except InvalidStatus as refused:  # over --socket-limit: refused before the handshake
        return "refused", refused.response.status_code


def test_a_flood_is_refused_and_other_tables_keep_playing(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "flood.db")

    async def scenario() -> None:
        async with serving(url, tmp_path) as server:
            (bystander,) = await new_tables(server.base, 1)
            players = seat_players([bystander], server.ws_base, pace=0.01)
            await until(lambda: bystander.top >= 5, "the bystander table plays")

            limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
            async with httpx.AsyncClient(base_url=server.base, timeout=30,
                                         limits=limits) as http:
                started = time.monotonic()
                answers = await asyncio.gather(*(http.post("/api/quick", json={})
                                                 for _ in range(500)))
                flooded = time.monotonic()
            statuses = Counter(answer.status_code for answer in answers)
            assert set(statuses) <= {200, 429}, statuses
            assert statuses[200] <= 20, statuses
            for answer in answers:
                if answer.status_code == 429:
                    assert int(answer.headers["Retry-After"]) >= 1
            quick = next(a.json() for a in answers if a.status_code == 200)

            done = asyncio.Event()
            seat_url = f"{server.ws_base}/ws/{quick['code']}?token={quick['token']}"
            sockets = [asyncio.ensure_future(open_socket(seat_url, done)) for _ in range(300)]
            await until(lambda: sum(not s.done() for s in sockets) <= 4,
                        "the flood's sockets are refused or replaced", 20)
            done.set()
            ends = await asyncio.gather(*sockets)
            socket_flooded = time.monotonic()
            kinds = Counter(first for first, _ in ends)
            assert set(kinds) <= {"too_many_connections", "replaced", "open", "refused"}, kinds
            assert kinds["open"] <= 4, kinds
            assert kinds["refused"] >= 300 - 240, kinds  # --socket-limit 240/minute
            for first, code in ends:
                expected = {"too_many_connections": 4429, "replaced": 1013, "open": None,
                            "refused": 403}
                assert code == expected[first], (first, code)

            top = bystander.top
            await until(lambda: bystander.top >= top + 5, "the bystander plays after")
            await close_all(players)
        assert bystander.confirmed_between(started, flooded) >= 1, "none during the flood"
        assert bystander.confirmed_between(flooded, socket_flooded) >= 1, \
            "none during the socket flood"
        assert all(p.errors == [] and p.leaks == [] for p in players), \
            [(p.errors, p.leaks) for p in players]
        assert all(p.closed == 1000 for p in players), [p.closed for p in players]
        assert not bystander.conflicts
        first, second = players
        shared = set(first.hands) & set(second.hands)
        assert shared, "the two seats saw no common state"
        assert all(not first.hands[key] & second.hands[key] for key in shared), \
            "the two seats were shown a common card"

    asyncio.run(scenario())
