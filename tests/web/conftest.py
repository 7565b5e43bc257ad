"""Shared fixtures of the web server's tests: an app on a fresh database, and the client
side of the table protocol (``docs/web-protocol.md``).

Helpers are handed to the tests as fixtures (``web``), so no test module imports this
file by name.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete
from starlette.websockets import WebSocketDisconnect

from basra.match import Match
from basra.rules import make_rules
from basra.server import create_app
from basra.store import Store
from basra.store.schema import moves_table, records_table, seats_table, tables_table


def postgres_url() -> str | None:
    """The test PostgreSQL database, if any: read when used, since ``tests/conftest.py``
    may set it after this file is imported (``pytest tests/web``)."""
    return os.environ.get("BASRA_TEST_POSTGRES_URL") or None


RECEIVE_SECONDS = 10.0
"""How long a test waits for a message before it fails (instead of hanging)."""

State = dict[str, Any]


class Client:
    """One WebSocket at a table, seen from the browser's side.

    ``state`` is the latest ``state`` message received; ``received`` every message.
    """

    def __init__(self, socket: Any, label: str) -> None:
        self.socket = socket
        self.label = label
        self.state: State | None = None
        self.received: list[State] = []

    def __repr__(self) -> str:
        return f"<Client {self.label}>"

    @property
    def seat(self) -> int | None:
        assert self.state is not None
        seat: int | None = self.state["you"]["seat"]
        return seat

    def send(self, message: Any) -> None:
        self.socket.send_text(message if isinstance(message, str) else json.dumps(message))

    def receive(self, seconds: float = RECEIVE_SECONDS) -> State:
        """The next message; fails after ``seconds`` rather than waiting for ever."""
        socket = self.socket

        async def next_message() -> Any:
            with anyio.fail_after(seconds):
                # The test session's own queue of what the app sent (starlette's
                # receive() has no timeout).
                return await socket._send_rx.receive()

        try:
            raw = socket.portal.call(next_message)
        except TimeoutError:
            raise AssertionError(f"{self.label} got no message in {seconds} s") from None
        if raw["type"] == "websocket.close":
            raise WebSocketDisconnect(code=raw.get("code", 1000), reason=raw.get("reason"))
        message: State = json.loads(raw["text"])
        self.received.append(message)
        if message["type"] == "state":
            self.state = message
        return message

    def next_state(self, seconds: float = RECEIVE_SECONDS) -> State:
        """The next message, which must be a state."""
        message = self.receive(seconds)
        assert message["type"] == "state", f"{self.label} expected a state, got {message}"
        return message

    def wait_for(self, wanted: Callable[[State], bool],
                 seconds: float = RECEIVE_SECONDS) -> State:
        """Read states until one is ``wanted`` (the current one counts)."""
        if self.state is not None and wanted(self.state):
            return self.state
        while True:
            state = self.next_state(seconds)
            if wanted(state):
                return state

    def sync(self) -> list[State]:
        """Ping, and return every message that came before the pong."""
        self.send({"type": "ping"})
        before: list[State] = []
        while (message := self.receive())["type"] != "pong":
            before.append(message)
        return before

    def expect_error(self, code: str) -> State:
        message = self.receive()
        assert message["type"] == "error", f"{self.label} expected {code}, got {message}"
        assert message["code"] == code, message
        assert isinstance(message["message"], str) and message["message"]
        return message

    def my_turn(self) -> bool:
        state = self.state
        return (state is not None and state["result"] is None and state["deal"] is not None
                and state["deal"]["to_play"] == state["you"]["seat"])

    def play(self, move: State | None = None, seq: int | None = None) -> None:
        """Send a play: ``move`` as a ``legal`` entry (the first one by default)."""
        assert self.state is not None
        move = move if move is not None else self.state["legal"][0]
        self.send({"type": "play", "seq": self.state["seq"] if seq is None else seq,
                   "card": move["card"], "captured": move["captured"]})


class Web:
    """What the tests do with a running app: HTTP calls and table sockets."""

    def __init__(self, client: TestClient, stack: contextlib.ExitStack) -> None:
        self.http = client
        self.stack = stack

    @staticmethod
    def find_seed(wanted: Callable[[Match], bool], variant: str = "egyptian",
                  players: int = 2, tries: int = 2000) -> int:
        """The first seed whose match, as a table deals it, is ``wanted`` at its start."""
        rules = make_rules(variant, players)
        for seed in range(tries):
            if wanted(Match(rules, seed=seed, variant=variant)):
                return seed
        raise AssertionError(f"no seed below {tries} gives the position wanted")

    @property
    def app(self) -> FastAPI:
        app = self.http.app
        assert isinstance(app, FastAPI)
        return app

    @property
    def hub(self) -> Any:
        return self.app.state.hub

    def ok(self, response: Any) -> Any:
        assert response.status_code == 200, (response.status_code, response.text)
        return response.json()

    def quick(self, name: str | None = None) -> State:
        return self.ok(self.http.post("/api/quick", json={} if name is None else {"name": name}))

    def new_table(self, **body: Any) -> State:
        return self.ok(self.http.post("/api/tables", json=body))

    def join(self, code: str, **body: Any) -> State:
        return self.ok(self.http.post(f"/api/tables/{code}/join", json=body))

    def info(self, code: str) -> State:
        return self.ok(self.http.get(f"/api/tables/{code}"))

    def two_humans(self, seed: int | None = None, **body: Any) -> tuple[str, str, str]:
        """A 2-player table of two humans, both seats taken: (code, token 0, token 1).

        With ``seed``, the match deals from that seed: the hub's table gets it after the
        first seat is taken and before the second join starts the match (a table deals
        ``Match(rules, seed=table.seed, ...)`` when its last human seat is taken).
        """
        created = self.new_table(seats=[{"kind": "human"}, {"kind": "human"}], **body)
        code = created["code"]
        if seed is not None:
            self.hub.tables[code].seed = seed
        joined = self.join(code)
        return code, created["token"], joined["token"]

    def connect(self, code: str, token: str | None = None, label: str | None = None,
                first: bool = True) -> Client:
        """Open a socket (closed at the end of the test); with ``first``, read the state
        every new connection is sent."""
        path = f"/ws/{code}" if token is None else f"/ws/{code}?token={token}"
        socket = self.stack.enter_context(self.http.websocket_connect(path))
        client = Client(socket, label or ("watcher" if token is None else f"token {token[:4]}"))
        if first:
            client.next_state()
        return client

    @contextlib.contextmanager
    def connection(self, code: str, token: str | None = None) -> Iterator[Client]:
        """A socket closed when the block ends."""
        path = f"/ws/{code}" if token is None else f"/ws/{code}?token={token}"
        with self.http.websocket_connect(path) as socket:
            client = Client(socket, "short-lived")
            client.next_state()
            yield client

    def seek(self, query: str = "", session: str | None = None,
             label: str = "seek") -> Client:
        """A seek socket (``/ws/seek?query``, closed at the end of the test), logged in
        with the session cookie's value ``session`` when given."""
        headers = {} if session is None else {"cookie": f"basra_session={session}"}
        socket = self.stack.enter_context(self.http.websocket_connect(
            f"/ws/seek?{query}", headers=headers))
        return Client(socket, label)

    def account(self, name: str, password: str = "a good long password") -> str:
        """A new account; the value of its session cookie (the test client keeps none)."""
        self.http.cookies.clear()
        response = self.http.post("/api/signup", json={"name": name, "password": password})
        assert response.status_code == 201, response.text
        token = str(response.cookies["basra_session"])
        self.http.cookies.clear()
        return token

    def fresh_state(self, code: str, token: str | None = None) -> State:
        """The state a new connection is sent now."""
        with self.connection(code, token) as client:
            assert client.state is not None
            return client.state

    def settle(self, clients: list[Client]) -> None:
        """Read everything each client has been sent so far."""
        for client in clients:
            client.sync()

    def play_to_end(self, clients: list[Client], plays: int | None = None) -> State:
        """The seats of ``clients`` play their first legal move whenever it is their
        turn (the computer plays the others) until the match ends or ``plays`` plays of
        theirs are made; the last state the first client got."""
        made = 0
        last_sent = -1
        while plays is None or made < plays:
            self.settle(clients)
            state = clients[0].state
            assert state is not None
            if state["result"] is not None:
                break
            movers = [c for c in clients if c.my_turn() and c.state
                      and c.state["seq"] > last_sent]
            if not movers:
                clients[0].next_state()  # the computer is to play
                continue
            mover = movers[0]
            assert mover.state is not None
            last_sent = mover.state["seq"]
            mover.play()
            mover.wait_for(lambda state, sent=last_sent: state["seq"] > sent)  # confirmed
            made += 1
        self.settle(clients)
        assert clients[0].state is not None
        return clients[0].state


def app_for(database: str, tmp_path: Any, **options: Any) -> FastAPI:
    """An app storing in a fresh SQLite file, or in the test PostgreSQL database."""
    url = f"sqlite:///{tmp_path}/t.db" if database == "sqlite" else postgres_url()
    assert url is not None
    return create_app(url, **{"bot_delay": 0, "master_ms": 50, **options})


@contextlib.contextmanager
def running(app: FastAPI) -> Iterator[Web]:
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        yield Web(client, stack)


@pytest.fixture()
def web_at() -> Callable[..., contextlib.AbstractContextManager[Web]]:
    """Run an app on a given database URL, in a ``with`` block (restarts: one app after
    another on the same database)."""

    def start(url: str, **options: Any) -> contextlib.AbstractContextManager[Web]:
        return running(create_app(url, **{"bot_delay": 0, "master_ms": 50, **options}))

    return start


@pytest.fixture()
def web(tmp_path: Any) -> Iterator[Web]:
    """A running app on its own SQLite file (no computer delay)."""
    with running(app_for("sqlite", tmp_path)) as web:
        yield web


@pytest.fixture()
def start_web(tmp_path: Any) -> Iterator[Callable[..., Web]]:
    """Start an app with other options (``away_after``...); ``database`` picks the store.

    Rows the apps stored in the PostgreSQL database are deleted once they have stopped,
    so runs against a shared database stay clean.
    """
    started: list[tuple[str, Web]] = []
    with contextlib.ExitStack() as stack:

        def start(database: str = "sqlite", **options: Any) -> Web:
            folder = tmp_path / f"app{len(started)}"
            folder.mkdir()
            web = stack.enter_context(running(app_for(database, folder, **options)))
            started.append((database, web))
            return web

        yield start
    codes = [code for database, web in started if database == "postgresql"
             for code in web.hub.tables]
    url = postgres_url()
    if url and codes:
        delete_rows(url, codes)


def delete_rows(url: str, codes: list[str]) -> None:
    """Delete every stored row of these tables."""

    async def clean() -> None:
        store = Store(url)
        await store.open()
        try:
            async with store.engine.begin() as conn:
                for table in (moves_table, seats_table, tables_table, records_table):
                    await conn.execute(delete(table).where(table.c.code.in_(codes)))
        finally:
            await store.close()

    anyio.run(clean)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Web, State, State]]:
    """A running app where Amira played a quick game against the computer to its end:
    (web, the answer of ``/api/quick``, the last state she got)."""
    with running(app_for("sqlite", tmp_path_factory.mktemp("finished"))) as web:
        quick = web.quick("Amira")
        end = web.play_to_end([web.connect(quick["code"], quick["token"])])
        yield web, quick, end
