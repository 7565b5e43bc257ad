"""A seat at a real server's table, played over a real WebSocket (``docs/web-protocol.md``):
the client of the durability tests and of the capacity and reliability benchmarks.

A :class:`SeatClient` opens ``/ws/CODE?token=TOKEN``, reads every message, keeps the first
and the latest ``state``, and logs each confirmation in its table's :class:`TableLog`.
When a state says that it is the seat's turn and play is on, it plans one play for that
state: after :meth:`~SeatClient.think_seconds` it sends the entry that
:meth:`~SeatClient.choose` picks (the first legal one), unless the state has moved on
meanwhile. A play's round trip runs from its send to the first state of a later turn
(:meth:`~SeatClient.answered`). Subclasses change what they need: the capacity benchmark
thinks for a random time, plays greedily, asks for rematches and reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any, Self

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

try:
    import httpx2 as httpx  # what the test extra installs
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

State = dict[str, Any]

LONG_MATCH: State = {"target": 10000}
"""House rules under which a match outlasts a run (its ``seq`` only grows)."""

TABLES_AT_ONCE = 20
"""Tables :func:`two_human_tables` creates at a time."""


def turn_of(state: State) -> tuple[int, int]:
    """Which turn a state is at: (match number, seq)."""
    return state["table"]["match_number"], state["seq"]


class TableLog:
    """What the clients of one table saw confirmed: seq -> ``last_play`` at that seq."""

    def __init__(self, code: str, tokens: list[str]) -> None:
        self.code = code
        self.tokens = tokens
        self.confirmed: dict[int, State | None] = {}
        self.conflicts: list[str] = []
        """Each seq that two states showed with different plays."""
        self.times: list[tuple[float, int]] = []
        """(monotonic time, seq) of each newly confirmed seq."""

    def __repr__(self) -> str:
        return f"<TableLog {self.code} top {self.top}>"

    def confirm(self, state: State) -> None:
        seq = state["seq"]
        last = state["last_play"]
        if seq not in self.confirmed:
            self.confirmed[seq] = last
            self.times.append((time.monotonic(), seq))
        elif self.confirmed[seq] != last:
            self.conflicts.append(f"{self.code} seq {seq}: {self.confirmed[seq]} then {last}")

    @property
    def top(self) -> int:
        """The latest seq confirmed: the plays confirmed so far (0 before any state)."""
        return max(self.confirmed, default=0)

    def confirmed_between(self, start: float, end: float) -> int:
        """Plays newly confirmed from ``start`` to ``end`` (monotonic times)."""
        return sum(1 for at, seq in self.times if start <= at < end and seq > 0)


async def two_human_tables(base: str, count: int, rules: State | None = None
                           ) -> list[TableLog]:
    """``count`` two-player tables of two humans, both seats taken (by anonymous players),
    under ``rules`` (default :data:`LONG_MATCH`)."""
    body = {"seats": [{"kind": "human"}, {"kind": "human"}], "rules": rules or LONG_MATCH}
    limit = asyncio.Semaphore(TABLES_AT_ONCE)

    async def post(client: httpx.AsyncClient, path: str, sent: State) -> State:
        answer = await client.post(path, json=sent)
        if answer.status_code != 200:
            raise RuntimeError(f"POST {path}: {answer.status_code} {answer.text}")
        found: State = answer.json()
        return found

    async def one(client: httpx.AsyncClient) -> TableLog:
        async with limit:
            created = await post(client, "/api/tables", body)
            joined = await post(client, f"/api/tables/{created['code']}/join", {})
            return TableLog(created["code"], [created["token"], joined["token"]])

    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        return list(await asyncio.gather(*(one(client) for _ in range(count))))


class SeatClient:
    """One seat's socket: reads states and plays when it is the seat's turn.

    ``ws_base`` is the server's ``ws://HOST:PORT``; ``log`` the table's log of
    confirmations (none: not kept); ``pace`` the seconds the seat waits before each play.
    ``compression=None`` does not offer permessage-deflate (browsers do offer it).
    """

    def __init__(self, code: str, seat: int, token: str, ws_base: str, *,
                 log: TableLog | None = None, pace: float = 0.0,
                 compression: str | None = "deflate", open_timeout: float = 30.0) -> None:
        self.code = code
        self.seat = seat
        self.url = f"{ws_base}/ws/{code}?token={token}"
        self.log = log
        self.pace = pace
        self.compression = compression
        self.open_timeout = open_timeout
        self.playing = True
        """Whether the seat plays its turns (the socket is read either way)."""
        self.socket: ClientConnection | None = None
        self.first: State | None = None
        self.state: State | None = None
        """The latest state."""
        self.planned: tuple[int, int] | None = None
        """The turn a play is planned or sent for: one play per state."""
        self.pending: tuple[tuple[int, int], float] | None = None
        """The play in flight: (its turn, when it was sent, monotonic)."""
        self.round_trips: list[tuple[float, float]] = []
        """(monotonic send time, round trip in ms) of each play answered."""
        self.errors: list[State] = []
        self.closed: int | None = None
        """How the socket ended: its close code, 1006 when it was lost, -1 when it could
        not be opened or failed (None while open)."""
        self.dropped = False
        """Whether it ended in an error while the seat was playing."""
        self.task: asyncio.Task[None] | None = None

    @classmethod
    def at(cls, log: TableLog, seat: int, ws_base: str, **options: Any) -> Self:
        """The client of ``seat`` at the table of ``log``."""
        return cls(log.code, seat, log.tokens[seat], ws_base, log=log, **options)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.code} seat {self.seat}>"

    # -- the socket ----------------------------------------------------------------------

    def start(self) -> Self:
        """Open and read the socket in a task of its own (:meth:`run`)."""
        self.task = asyncio.create_task(self.run())
        return self

    async def open(self, limit: asyncio.Semaphore | None = None) -> None:
        """Open the socket (within ``limit``: handshakes in flight at a time)."""
        async with limit or contextlib.nullcontext():
            self.socket = await connect(self.url, compression=self.compression,
                                        open_timeout=self.open_timeout, max_size=2**22,
                                        proxy=None)  # (loopback: no proxy to look up)

    async def run(self) -> None:
        """Open the socket if it is not open, and read it until it closes."""
        try:
            if self.socket is None:
                await self.open()
            await self.read()
        except ConnectionClosed as lost:
            self.closed = lost.rcvd.code if lost.rcvd is not None else 1006
            self.dropped = self.playing
        except OSError:
            self.closed = -1
            self.dropped = self.playing
        else:
            self.closed = self.socket.close_code if self.socket is not None else -1
        finally:
            if self.socket is not None:
                await self.socket.close()

    async def read(self) -> None:
        """Handle each message until the socket closes (or :meth:`done_reading`)."""
        assert self.socket is not None
        async for raw in self.socket:
            self.receive(json.loads(raw))
            if self.done_reading():
                return

    def done_reading(self) -> bool:
        """Whether to stop reading now (never, here)."""
        return False

    async def close(self) -> None:
        """Stop playing, close the socket and wait for its reader."""
        self.playing = False
        if self.socket is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.socket.close(), 5)
        if self.task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.task, 5)

    def send(self, message: State) -> None:
        """Send without waiting (a socket closed under a send is seen by its reader)."""
        if self.socket is None:
            return
        sending = asyncio.ensure_future(self.socket.send(json.dumps(message)))
        sending.add_done_callback(lambda done: done.cancelled() or done.exception())

    # -- the messages --------------------------------------------------------------------

    def receive(self, message: State) -> None:
        kind = message.get("type")
        if kind == "state":
            self.on_state(message)
        elif kind == "error":
            self.on_error(message)
        elif kind == "notice":
            self.on_notice(message)

    def on_error(self, message: State) -> None:
        """An error: the play it answers was not made (``storage_down`` while the table
        is paused...): play the turn again at its next state."""
        self.errors.append(message)
        self.planned = None
        self.pending = None

    def on_notice(self, message: State) -> None:
        """A notice (ignored here)."""

    def on_state(self, state: State) -> None:
        now = time.monotonic()
        if self.first is None:
            self.first = state
        self.state = state
        if self.log is not None:
            self.log.confirm(state)
        if self.pending is not None and turn_of(state) > self.pending[0]:
            sent_at = self.pending[1]
            self.pending = None
            self.answered(sent_at, now, state)
        self.consider(state)

    def answered(self, sent_at: float, now: float, state: State) -> None:
        """A play sent at ``sent_at`` was answered by ``state`` at ``now``."""
        self.round_trips.append((sent_at, (now - sent_at) * 1000))

    # -- playing -------------------------------------------------------------------------

    def my_turn(self, state: State | None = None) -> bool:
        """Whether ``state`` (default: the latest) has this seat to play."""
        state = state if state is not None else self.state
        return (state is not None and state["result"] is None and state["deal"] is not None
                and state["deal"]["to_play"] == self.seat and bool(state["legal"]))

    def wants_to_play(self, state: State) -> bool:
        return (self.playing and state["paused"] is None and self.my_turn(state)
                and self.planned != turn_of(state))

    def consider(self, state: State) -> None:
        """Plan a play for ``state`` if it asks for one."""
        if self.wants_to_play(state):
            self.plan(state, self.think_seconds())

    def plan(self, state: State, delay: float) -> None:
        """Play ``state``'s turn in ``delay`` seconds (at once for 0)."""
        self.planned = turn_of(state)
        if delay:
            asyncio.get_running_loop().call_later(delay, self.play, state)
        else:
            self.play(state)

    def think_seconds(self) -> float:
        return self.pace

    def choose(self, legal: list[State]) -> State:
        """The entry of ``legal`` to play: the first."""
        return legal[0]

    def play(self, state: State) -> None:
        """Play ``state``'s turn, unless play stopped or the state moved on meanwhile."""
        latest = self.state
        if (not self.playing or latest is None or turn_of(latest) != turn_of(state)
                or latest["paused"] is not None):
            if self.planned == turn_of(state):
                self.planned = None  # (the turn may come back, once play resumes)
            return
        self.send_play(state)

    def send_play(self, state: State) -> None:
        """Send the play :meth:`choose` picks for ``state``."""
        entry = self.choose(state["legal"])
        self.planned = turn_of(state)
        self.pending = (turn_of(state), time.monotonic())
        self.send({"type": "play", "seq": state["seq"], "card": entry["card"],
                   "captured": entry["captured"]})


def seat_clients(logs: list[TableLog], ws_base: str, pace: float = 0.0) -> list[SeatClient]:
    """Both seats of each table, started."""
    return [SeatClient.at(log, seat, ws_base, pace=pace).start()
            for log in logs for seat in (0, 1)]


async def close_all(clients: list[SeatClient]) -> None:
    await asyncio.gather(*(client.close() for client in clients))
