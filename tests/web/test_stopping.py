"""A server stopped with SIGTERM (``docs/operations.md``, "Restarts"): it makes no new
tables, closes its sockets with 1012 ("service restart", which the page reconnects on
quietly), keeps every play it confirmed, and exits within ``--shutdown-seconds``; started
again on the same database, play goes on where it stopped.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from basra.server import create_app
from tests.support.realserver import Server, sqlite_url, until
from tests.support.seats import close_all, seat_clients, two_human_tables
from tests.web.test_durability import LIFTED, lost_moves, stored_moves

TABLES = 16
BOUND = 5
"""``--shutdown-seconds`` of the test's server."""


@pytest.mark.slow
def test_sigterm_under_load_loses_no_confirmed_play_and_asks_for_a_reconnect(
        tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "stop.db")

    async def scenario() -> None:
        with Server(url, tmp_path, "--bot-delay", "0", "--shutdown-seconds", str(BOUND),
                    *LIFTED) as server:
            await server.ready()
            logs = await two_human_tables(server.base, TABLES)
            clients = seat_clients(logs, server.ws_base, pace=0.005)
            await until(lambda: all(log.top >= 4 for log in logs), "every table playing")
            server.process.send_signal(signal.SIGTERM)
            sent = time.monotonic()
            status = await asyncio.to_thread(server.process.wait, BOUND + 5)
            took = time.monotonic() - sent
            await asyncio.wait_for(
                asyncio.gather(*(client.task for client in clients if client.task)), 10)
            output = server.log()
        # uvicorn's way, once stopped: the signal again, with its default action.
        assert status == -signal.SIGTERM, output[-3000:]
        assert took <= BOUND + 0.5, f"exited {took:.2f} s after SIGTERM"
        assert "Traceback" not in output, output[-3000:]
        assert {client.closed for client in clients} == {1012}, \
            sorted({(client.code, client.closed) for client in clients})[:5]
        assert not any(client.errors for client in clients), \
            [client.errors[:2] for client in clients if client.errors]
        before = {log.code: log.top for log in logs}

        stored = await stored_moves(url, [log.code for log in logs])
        assert lost_moves(logs, stored) == []
        with Server(url, tmp_path, "--bot-delay", "0", *LIFTED) as again:
            await again.ready()
            clients = seat_clients(logs, again.ws_base)
            await until(lambda: all(log.top >= before[log.code] + 4 for log in logs),
                        "play goes on after the restart")
            await close_all(clients)
        assert lost_moves(logs, await stored_moves(url, [log.code for log in logs])) == []
        assert not any(log.conflicts for log in logs), [log.conflicts for log in logs]

    asyncio.run(scenario())


def test_a_stopping_server_makes_no_tables_and_is_not_ready(tmp_path: Path) -> None:
    app = create_app(sqlite_url(tmp_path / "drain.db"), bot_delay=0)
    with TestClient(app) as client:
        assert client.get("/readyz").json()["ready"] is True
        app.state.hub.drain()
        ready = client.get("/readyz")
        assert (ready.status_code, ready.json()["ready"], ready.json()["stopping"]) == \
            (503, False, True)
        refused = client.post("/api/quick", json={"name": "Amira"})
        assert refused.status_code == 503
        assert refused.json()["code"] == "server_busy"
        assert "restarting" in refused.json()["message"]
