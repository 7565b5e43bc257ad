"""Measure how many tables of computer players the web server carries over real WebSockets.

Usage (from the repository root, with the project installed):

    python -m benchmarks.capacity                          # 200 tables, 500 ms think, 60 s
    python -m benchmarks.capacity --tables 400 --think-ms 250 --seconds 30
    python -m benchmarks.capacity --client-procs 2 --out /tmp/capacity.json
    python -m benchmarks.capacity --servers 2 --tables 1000 --think-ms 2000
    python -m benchmarks.capacity --servers 3 --tables 1000 --think-ms 2000 --kill-every 20

The script starts the real server (``python -m basra serve``) on a free port with a fresh
SQLite file and no computer delay, creates ``--tables`` two-player tables whose seats are
both human, takes every seat over HTTP and opens one WebSocket per seat. Its own computer
players (greedy: the legal entry that captures the most cards) then play every table at
once: when a seat's state says it is to play, it waits a think time (``--think-ms`` times
a uniform 0.5 to 1.5, so tables do not move in lockstep) and sends a ``play``. The round
trip is the time from that send to the next ``state`` on the same socket with a larger
``seq``. Finished matches are rematched (by seat 0), so the load stays constant. Before
the clock starts, each table plays a random share of a match at once (the pre-roll;
``--no-preroll`` skips it), so that matches end, and records are stored, at an even rate
rather than all together.

Moves sent during the ``--warmup`` seconds are not measured; those sent during the next
``--seconds`` are. The figures are printed, and the run is appended to ``--out`` (JSON)
with the command line, the date and the machine. The target: a 99th-percentile round trip
under 100 ms at 200 tables or more, with no ``error`` message.

**Many servers** (``--servers N``): the script starts a throwaway PostgreSQL cluster, a
Redis and N servers sharing them (``--redis``), behind nginx with the project's
configuration (``deploy/nginx``), all from Debian's packages on loopback ports
(``tests/support/services.py``); every request and socket goes through nginx. With
``--kill-every S`` it kills a random server (``kill -9``) every S seconds of the
measured window and starts it again; the clients reconnect through nginx. Matches then
never end (``target=10000``), and at the end every play any client saw confirmed is
looked up in the database: the figures say how many are missing or different (the
target is none), and how long each kill's tables took to come back (from the kill to
the first state on each reconnected socket; the target is under 5 s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.sharedctypes import Synchronized, SynchronizedArray
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from websockets.exceptions import ConnectionClosed

from basra.cards import parse_card
from benchmarks.harness import (
    Server,
    cpu_model,
    cpu_seconds,
    err,
    free_port,
    httpx,
    machine_busy,
    percentile,
    process_tree,
    raise_open_files,
    save,
    stamp,
    usable_cores,
)
from tests.support import services
from tests.support.seats import SeatClient, TableLog

TARGET_TABLES = 200
TARGET_P99_MS = 100.0
CONNECT_AT_ONCE = 50
"""WebSocket handshakes in flight at a time while the tables connect."""
MATCH_PLAYS = 96
"""Plays of a typical two-player match (two deals): the pre-roll draws a phase below it."""
PREROLL_SECONDS = 300.0
"""Longest wait for every table to play its pre-roll."""
DRAIN_SECONDS = 5.0
"""How long round trips sent before the end of the window may take to come back."""
LAG_TICK = 0.05
"""Period of the client's event-loop lag probe, in seconds."""


@dataclass(frozen=True)
class Ticket:
    """One seat to drive: its table, seat number and token."""

    code: str
    seat: int
    token: str
    master: bool = False
    """A table where this seat plays against the master (the server's computer)."""


@dataclass(frozen=True)
class Settings:
    """What each client process needs to know (picklable)."""

    base_url: str
    think_ms: float
    warmup: float
    seconds: float
    compression: bool
    preroll: bool
    seed: int
    reconnect: bool = False
    """Reconnect a socket that closes (runs that kill servers)."""


# -- the server ------------------------------------------------------------------------


SERVE_OPTIONS = ["--bot-delay", "0", "--away-after", "3600",
                 # One client process plays every table: lift the per-address limits.
                 "--create-limit", "100000/minute", "--join-limit", "100000/minute",
                 "--socket-limit", "100000/minute", "--sockets-per-address", "100000"]


@dataclass
class Site:
    """The servers under test, and what else runs for them."""

    base_url: str
    servers: list[Server]
    helpers: list[int] = field(default_factory=list)
    """Processes of the set-up whose CPU counts too (PostgreSQL, Redis, nginx)."""
    database: str = ""
    restart: Callable[[int], Server] | None = None
    """Start server ``i`` again (after a kill) on its port."""

    def pids(self) -> list[int]:
        return [server.pid for server in self.servers] + self.helpers


@contextlib.contextmanager
def running_server(folder: Path, extra: Sequence[str] = ()) -> Iterator[Site]:
    """The real server on a free port with a fresh SQLite database; stopped on the way
    out."""
    port = free_port()
    command = [sys.executable, "-m", "basra", "serve", "--port", str(port),
               "--db", f"sqlite:///{folder / 'bench.db'}", *SERVE_OPTIONS, *extra]
    with Server(port, command, folder / "server.log", "basra-capacity-server-{pid}.log"
                ) as server:
        asyncio.run(server.ready("/", 30))
        yield Site(server.base, [server])


@contextlib.contextmanager
def running_site(folder: Path, count: int, extra: Sequence[str] = ()) -> Iterator[Site]:
    """PostgreSQL, Redis, ``count`` servers sharing them and nginx in front; all stopped
    on the way out."""
    missing = services.missing_programs()
    binaries = services.server_binaries()
    if missing or binaries is None:
        raise SystemExit(f"--servers needs {', '.join(missing or ['PostgreSQL'])}: "
                         "sh tests/system-packages.sh installs them")
    postgres = services.Postgres(binaries)
    try:
        database = postgres.start()
        with services.Redis(folder / "redis") as redis, contextlib.ExitStack() as stack:
            ports = [free_port() for _ in range(count)]

            def start(index: int) -> Server:
                command = [sys.executable, "-m", "basra", "serve", "--port",
                           str(ports[index]), "--db", database, "--redis", redis.url,
                           "--server-id", f"s{index}", *SERVE_OPTIONS, *extra]
                return Server(ports[index], command, folder / f"server-{index}.log",
                              f"basra-capacity-server-{index}-{{pid}}.log")

            servers = [stack.enter_context(start(i)) for i in range(count)]
            for server in servers:
                asyncio.run(server.ready("/readyz", 60))
            balancer = stack.enter_context(services.Balancer(folder / "nginx", ports))
            site = Site(balancer.base, servers, database=database)

            def restart(index: int) -> Server:
                server = stack.enter_context(start(index))
                site.servers[index] = server
                return server

            site.restart = restart
            site.helpers = [redis.process.pid, balancer.process.pid]
            pg_pid = Path(postgres.data / "postmaster.pid").read_text().split()[0]
            site.helpers.append(int(pg_pid))
            yield site
    finally:
        postgres.remove()


def create_tables(base_url: str, count: int, endless: bool = False
                  ) -> list[tuple[Ticket, Ticket]]:
    """``count`` two-player tables, both seats human and taken: one ticket per seat
    (matches that never end with ``endless``)."""
    body: dict[str, Any] = {"variant": "egyptian", "players": 2,
                            "seats": [{"kind": "human"}, {"kind": "human"}]}
    if endless:
        body["rules"] = {"target": 10000}
    tables = []
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for number in range(count):
            first = _post(client, "/api/tables", {**body, "name": f"bench{number}a"})
            code = first.code
            second = _post(client, f"/api/tables/{code}/join", {"name": f"bench{number}b"},
                           code=code)
            tables.append((first, second))
    return tables


def create_master_tables(base_url: str, count: int) -> list[Ticket]:
    """``count`` two-player tables of one human seat (the benchmark's) against the
    master, which the server plays in its worker pool."""
    body = {"variant": "egyptian", "players": 2,
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "master"}]}
    with httpx.Client(base_url=base_url, timeout=30) as client:
        return [_post(client, "/api/tables", {**body, "name": f"human{number}"}, master=True)
                for number in range(count)]


def _post(client: httpx.Client, path: str, body: dict[str, Any], master: bool = False,
          code: str | None = None) -> Ticket:
    """Create a table, or join table ``code``: the seat's ticket (a join's answer holds
    no code)."""
    answer = client.post(path, json=body)
    answer.raise_for_status()
    found = answer.json()
    return Ticket(code or found["code"], found["seat"], found["token"], master)


# -- the computer players (in the client processes) ------------------------------------


@dataclass
class ClientRun:
    """One client process's shared clock, switches and figures."""

    settings: Settings
    progress: SynchronizedArray[int]
    slot: int
    rng: random.Random
    started: asyncio.Event = field(default_factory=asyncio.Event)
    preroll: dict[str, int] = field(default_factory=dict)
    """Plays each table still makes at once, before the clock starts."""
    prerolled: asyncio.Event = field(default_factory=asyncio.Event)
    stopping: bool = False
    measure_from: float = math.inf
    measure_to: float = math.inf
    round_trips: list[float] = field(default_factory=list)
    master_round_trips: list[float] = field(default_factory=list)
    """Round trips of the human seats at tables against the master."""
    notices: Counter[str] = field(default_factory=Counter)
    """Notices the server sent (``master_busy``: the expert played for a busy master)."""
    final_round_trips: list[float] = field(default_factory=list)
    """Round trips of the plays that ended a match (the server stores its record)."""
    errors: Counter[str] = field(default_factory=Counter)
    unanswered: int = 0
    disconnects: int = 0
    comebacks: list[tuple[float, float]] = field(default_factory=list)
    """(closed, first state again) of each socket that closed and reconnected
    (time.monotonic)."""
    retries: Counter[str] = field(default_factory=Counter)
    """Why reconnections failed (and were tried again)."""
    handshakes: list[tuple[float, float]] = field(default_factory=list)
    """Of each successful reconnection: (seconds its socket took to open, seconds from
    then to the first state)."""
    lost_sockets: list[float] = field(default_factory=list)
    """When each socket closed that was still not back when the run stopped."""
    logs: dict[str, TableLog] = field(default_factory=dict)
    """Each table's confirmed plays seen by its clients (runs that kill servers)."""
    loop_lags: list[float] = field(default_factory=list)
    cpu_window: list[float] = field(default_factory=list)

    def think_seconds(self) -> float:
        return self.settings.think_ms / 1000 * self.rng.uniform(0.5, 1.5)

    def measured(self, at: float) -> bool:
        """Whether ``at`` (time.monotonic) falls in the measured window."""
        return self.measure_from <= at < self.measure_to

    def table_log(self, code: str) -> TableLog:
        """The log of table ``code``'s confirmed plays, shared by its seats."""
        return self.logs.setdefault(code, TableLog(code, []))

    def confirmed(self) -> dict[str, dict[int, str]]:
        """Each table's confirmed plays: seq -> the card played."""
        return {code: {seq: last["card"] for seq, last in log.confirmed.items()
                       if last is not None}
                for code, log in self.logs.items()}

    def take_preroll(self, code: str) -> bool:
        """Whether the table still has a pre-roll play to make now (and count it)."""
        left = self.preroll.get(code, 0)
        if left <= 0:
            return False
        self.preroll[code] = left - 1
        if left == 1 and not any(self.preroll.values()):
            self.prerolled.set()
        return True


class Seat(SeatClient):
    """One seat's socket (``tests/support/seats.py``): plays greedily after a think time,
    asks for a rematch when a match ends (seat 0), times the round trips of the measured
    window and reconnects in runs that kill servers."""

    def __init__(self, ticket: Ticket, run: ClientRun) -> None:
        url = run.settings.base_url.replace("http://", "ws://", 1)
        super().__init__(ticket.code, ticket.seat, ticket.token, url,
                         log=run.table_log(ticket.code) if run.settings.reconnect else None,
                         compression="deflate" if run.settings.compression else None,
                         open_timeout=60)
        self.ticket = ticket
        self.client = run
        self.rematched = 0

    async def keep_playing(self) -> None:
        """Read the socket until the run stops (reconnecting in runs that kill
        servers)."""
        while True:
            try:
                await self.read()
                return
            except ConnectionClosed:
                if self.client.stopping:
                    return
                self.client.disconnects += 1
                if not self.client.settings.reconnect:
                    return
            closed = time.monotonic()
            self.pending = None  # its answer may never come: not measured
            self.planned = None
            if not await self.reconnect():
                self.client.lost_sockets.append(closed)
                return
            self.client.comebacks.append((closed, time.monotonic()))

    def done_reading(self) -> bool:
        return self.client.stopping and self.pending is None

    async def reconnect(self) -> bool:
        """Open the seat's socket again (through the balancer) and read its first
        state, waiting between tries as the browser does (``TableSocket`` in
        ``api.js``: 0.5 s, doubled after each failure up to 10 s, with jitter)."""
        delay = 0.5
        while not self.client.stopping:
            await asyncio.sleep(delay * random.uniform(0.75, 1.25))
            try:
                started = time.monotonic()
                await self.open()
                opened = time.monotonic()
                assert self.socket is not None
                self.receive(json.loads(await asyncio.wait_for(self.socket.recv(), 10)))
                self.client.handshakes.append((opened - started, time.monotonic() - opened))
                return True
            except Exception as error:  # any failure: try again later
                self.client.retries[_why(error)] += 1
                delay = min(delay * 2, 10.0)
        return False

    def on_notice(self, message: dict[str, Any]) -> None:
        if self.client.measured(time.monotonic()):
            self.client.notices[str(message.get("code"))] += 1

    def on_error(self, message: dict[str, Any]) -> None:
        self.client.errors[str(message.get("code"))] += 1
        self.planned = None  # not made: play again at the next state
        self.pending = None

    def answered(self, sent_at: float, now: float, state: dict[str, Any]) -> None:
        if not self.client.measured(sent_at):
            return
        if self.ticket.master:
            self.client.master_round_trips.append((now - sent_at) * 1000)
        else:
            self.client.round_trips.append((now - sent_at) * 1000)
            if state["result"] is not None:
                self.client.final_round_trips.append((now - sent_at) * 1000)
        self.client.progress[self.client.slot] += 1

    def consider(self, state: dict[str, Any], first_think: float | None = None) -> None:
        """Plan this seat's next intent, if the state asks for one: in the pre-roll, a
        play at once; once the clock runs, a play after a think time (``first_think``
        for the first), or a rematch."""
        run = self.client
        if run.stopping or not (run.started.is_set() or run.preroll.get(self.code)):
            return
        match_number = state["table"]["match_number"]
        if state["result"] is not None:
            if self.seat == 0 and self.rematched != match_number:
                self.rematched = match_number
                self.send({"type": "rematch"})
            return
        if not self.wants_to_play(state):
            return
        if run.started.is_set():
            think = run.think_seconds() if first_think is None else first_think
        elif run.take_preroll(self.code):
            think = 0.0
        else:
            return
        self.plan(state, think)

    def play(self, state: dict[str, Any]) -> None:
        if not self.client.stopping:
            super().play(state)

    def choose(self, legal: list[dict[str, Any]]) -> dict[str, Any]:
        """The first legal entry that captures the most cards."""
        return max(legal, key=lambda entry: len(entry["captured"]))


async def _probe_lag(run: ClientRun) -> None:
    """Record how late a periodic timer fires: the client's own event-loop delay."""
    while not run.stopping:
        before = time.monotonic()
        await asyncio.sleep(LAG_TICK)
        late = time.monotonic() - before - LAG_TICK
        if run.measure_from <= before < run.measure_to:
            run.loop_lags.append(late * 1000)


async def _client_main(tickets: Sequence[Ticket], settings: Settings,
                       progress: SynchronizedArray[int], slot: int, ready: Any,
                       go: EventType, start_at: Synchronized[float]) -> dict[str, Any]:
    run = ClientRun(settings, progress, slot, random.Random(settings.seed + slot))
    seats = [Seat(ticket, run) for ticket in tickets]
    limit = asyncio.Semaphore(CONNECT_AT_ONCE)
    try:
        await asyncio.gather(*(seat.open(limit) for seat in seats))
    except Exception as error:
        ready.put((slot, f"could not connect: {error!r}"))
        raise
    if settings.preroll:
        # Tables that all start together would also end their matches together: each
        # first plays a random share of a match at once, unmeasured.
        run.preroll = {ticket.code: run.rng.randrange(MATCH_PLAYS) for ticket in tickets
                       if not ticket.master}  # (the master's moves take their time)
    if not any(run.preroll.values()):
        run.prerolled.set()
    readers = [asyncio.create_task(seat.keep_playing()) for seat in seats]
    for seat in seats:
        if seat.state is not None:
            seat.consider(seat.state)
    try:
        await asyncio.wait_for(run.prerolled.wait(), PREROLL_SECONDS)
    except TimeoutError:
        ready.put((slot, f"the pre-roll did not finish in {PREROLL_SECONDS:g} s"))
        raise
    ready.put((slot, None))
    await asyncio.to_thread(go.wait)
    begin = start_at.value  # a time.monotonic() instant, as every time here
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, begin - time.monotonic()))
    run.measure_from = begin + settings.warmup
    run.measure_to = run.measure_from + settings.seconds
    loop.call_at(loop.time() + (run.measure_from - time.monotonic()),
                 lambda: run.cpu_window.append(time.process_time()))
    loop.call_at(loop.time() + (run.measure_to - time.monotonic()),
                 lambda: run.cpu_window.append(time.process_time()))
    run.started.set()
    lag = asyncio.create_task(_probe_lag(run))
    spread = 2 * settings.think_ms / 1000
    for seat in seats:
        if seat.state is not None:
            seat.consider(seat.state, first_think=run.rng.uniform(0, spread))
    await asyncio.sleep(max(0.0, run.measure_to - time.monotonic()))
    run.stopping = True
    deadline = time.monotonic() + DRAIN_SECONDS
    while any(seat.pending is not None for seat in seats) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    run.unanswered = sum(1 for seat in seats
                         if seat.pending is not None and run.measured(seat.pending[1]))
    await asyncio.gather(*(seat.socket.close() for seat in seats if seat.socket is not None),
                         return_exceptions=True)
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, lag, return_exceptions=True)
    cpu = run.cpu_window[1] - run.cpu_window[0] if len(run.cpu_window) == 2 else math.nan
    return {"round_trips": run.round_trips, "final_round_trips": run.final_round_trips,
            "master_round_trips": run.master_round_trips, "notices": dict(run.notices),
            "errors": dict(run.errors), "comebacks": run.comebacks,
            "lost_sockets": run.lost_sockets, "retries": dict(run.retries),
            "handshakes": run.handshakes,
            "confirmed": run.confirmed(),
            "unanswered": run.unanswered, "disconnects": run.disconnects,
            "loop_lags": run.loop_lags, "cpu_seconds": cpu}


def client_process(tickets: Sequence[Ticket], settings: Settings,
                   progress: SynchronizedArray[int], slot: int, ready: Any, go: EventType,
                   start_at: Synchronized[float], results: Any) -> None:
    """One client process: drives its seats and puts its figures on ``results``."""
    runner: Callable[..., Any] = asyncio.run
    with contextlib.suppress(ImportError):
        import uvloop

        runner = uvloop.run
    try:
        figures = runner(_client_main(tickets, settings, progress, slot, ready, go, start_at))
    except BaseException as error:
        results.put((slot, {"failed": repr(error)}))
        raise
    results.put((slot, figures))


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Run the whole benchmark once; the figures."""
    raise_open_files()
    context = multiprocessing.get_context("spawn")
    killing = args.kill_every is not None
    extra = ([] if args.master_workers is None
             else ["--master-workers", str(args.master_workers)])
    with (contextlib.nullcontext(str(args.logs)) if args.logs
          else tempfile.TemporaryDirectory(prefix="basra-capacity-")) as folder, \
            (running_site(Path(folder), args.servers, extra) if args.servers
             else running_server(Path(folder), extra)) as site:
        base_url = site.base_url
        err.print(f"{len(site.servers)} server(s) at {base_url}; creating {args.tables} "
                  "tables")
        tables = create_tables(base_url, args.tables, endless=killing)
        masters = create_master_tables(base_url, args.master_tables)
        settings = Settings(base_url, args.think_ms, args.warmup, args.seconds,
                            not args.no_compression, not args.no_preroll and not killing,
                            args.seed, reconnect=killing)
        groups: list[list[Ticket]] = [[] for _ in range(args.client_procs)]
        for number, pair in enumerate(tables):
            groups[number % args.client_procs].extend(pair)
        for number, ticket in enumerate(masters):
            groups[number % args.client_procs].append(ticket)
        progress: SynchronizedArray[int] = context.Array("q", args.client_procs, lock=False)
        start_at: Synchronized[float] = context.Value("d", 0.0, lock=False)
        ready = context.Queue()
        results = context.Queue()
        go = context.Event()
        workers = [
            context.Process(target=client_process, daemon=True,
                            args=(group, settings, progress, slot, ready, go, start_at,
                                  results))
            for slot, group in enumerate(groups)
        ]
        for worker in workers:
            worker.start()
        try:
            for _ in workers:
                slot, problem = ready.get(timeout=300)
                if problem:
                    raise RuntimeError(f"client process {slot}: {problem}")
            err.print(f"{2 * args.tables + args.master_tables} sockets open in "
                      f"{args.client_procs} client "
                      f"process(es){'' if args.no_preroll else ', pre-roll played'}; playing")
            start_at.value = time.monotonic() + 0.5
            go.set()
            measure_from = start_at.value + args.warmup
            measure_to = measure_from + args.seconds
            server_cpu, machine, kills = _watch(args, measure_from, measure_to, progress,
                                                site)
            figures: dict[int, dict[str, Any]] = {}
            for _ in workers:
                slot, found = results.get(timeout=DRAIN_SECONDS + 120)
                if "failed" in found:
                    raise RuntimeError(f"client process {slot} failed: {found['failed']}")
                figures[slot] = found
        finally:
            for worker in workers:
                worker.join(timeout=10)
                if worker.is_alive():
                    worker.kill()
        lost = _lost_plays(site.database, figures) if killing else None
    return _summary(args, figures, server_cpu, machine, kills, lost)


def _lost_plays(database: str, figures: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Every confirmed play the clients saw, looked up in the database."""
    from sqlalchemy import select
    from sqlalchemy.ext.asyncio import create_async_engine

    from basra.store.schema import moves_table

    seen: dict[str, dict[int, str]] = {}
    for found in figures.values():
        for code, plays in found["confirmed"].items():
            seen.setdefault(code, {}).update({int(seq): card for seq, card in plays.items()})

    async def read() -> dict[str, dict[int, int]]:
        engine = create_async_engine(database)
        stored: dict[str, dict[int, int]] = {}
        try:
            async with engine.connect() as conn:
                rows = await conn.execute(select(moves_table.c.code, moves_table.c.idx,
                                                 moves_table.c.move))
                for row in rows:
                    stored.setdefault(row.code, {})[row.idx] = row.move
        finally:
            await engine.dispose()
        return stored

    stored = asyncio.run(read())
    missing = different = 0
    for code, plays in seen.items():
        for seq, card in plays.items():
            move = stored.get(code, {}).get(seq - 1)
            if move is None:
                missing += 1
            elif move & 63 != parse_card(card):
                different += 1
    return {"checked": sum(len(p) for p in seen.values()), "missing": missing,
            "different": different}


def _watch(args: argparse.Namespace, measure_from: float, measure_to: float,
           progress: SynchronizedArray[int], site: Site
           ) -> tuple[float, float, list[float]]:
    """Show progress (killing a server every ``--kill-every`` seconds); the servers' CPU
    seconds (with PostgreSQL, Redis and nginx), the machine's busy share in the window,
    and when each kill was (time.monotonic)."""
    import random as chance

    kills: list[float] = []
    next_kill = measure_from + (args.kill_every or math.inf)

    seen: dict[int, float] = {}
    """CPU seconds of every process of the set-up, at its latest look."""

    def look(pids: list[int]) -> None:
        for top in pids:
            for pid in process_tree(top):
                with contextlib.suppress(OSError, ValueError):
                    seen[pid] = cpu_seconds(pid)

    def cpu() -> float:
        look(site.pids())
        return sum(seen.values())
    columns = (TextColumn("{task.description}"), BarColumn(),
               TextColumn("{task.fields[moves]} moves"), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        warm = bar.add_task("warm-up  ", total=args.warmup, moves=0)
        while (now := time.monotonic()) < measure_from:
            bar.update(warm, completed=args.warmup - (measure_from - now))
            time.sleep(min(0.25, max(0.0, measure_from - now)))
        bar.update(warm, completed=args.warmup)
        cpu_before = cpu()
        busy_before, total_before = machine_busy()
        task = bar.add_task("measuring", total=args.seconds, moves=0)
        while (now := time.monotonic()) < measure_to:
            bar.update(task, completed=args.seconds - (measure_to - now),
                       moves=sum(progress[:]))
            if now >= next_kill and site.restart is not None:
                index = chance.randrange(len(site.servers))
                look([site.servers[index].pid])  # its CPU time so far still counts
                kills.append(time.monotonic())
                site.servers[index].kill()
                site.restart(index)
                next_kill += args.kill_every
                err.print(f"killed server {index} (kill {len(kills)})")
            time.sleep(min(0.25, max(0.0, measure_to - now)))
        cpu_after = cpu()
        busy_after, total_before_end = machine_busy()
        bar.update(task, completed=args.seconds, moves=sum(progress[:]))
    total = total_before_end - total_before
    machine = (busy_after - busy_before) / total if total else math.nan
    return max(0.0, cpu_after - cpu_before), machine, kills


def _spread(values: list[float]) -> dict[str, float]:
    """p50, p90 and max of some values."""
    ordered = sorted(values)
    return {"p50": round(percentile(ordered, 50), 2), "p90": round(percentile(ordered, 90), 2),
            "max": round(ordered[-1], 2) if ordered else math.nan}


def _why(error: Exception) -> str:
    """A failed reconnection's reason, in a few words."""
    if isinstance(error, ConnectionClosed):
        received = error.rcvd
        return f"closed {received.code}" if received is not None else "closed"
    status = getattr(getattr(error, "response", None), "status_code", None)
    return f"{type(error).__name__} {status}" if status else type(error).__name__


def _recovery(kills: list[float], comebacks: list[tuple[float, float]],
              lost: list[float]) -> list[float | None]:
    """For each kill, seconds until the last socket it closed had a state again (None
    when one of them never did before the run stopped; 0 when it closed none: a server
    restarted by the kill before gets sockets again only as they reconnect)."""
    found: list[float | None] = []
    for number, kill in enumerate(kills):
        until = kills[number + 1] if number + 1 < len(kills) else math.inf
        backs = [back - kill for closed, back in comebacks if kill <= closed < until]
        never = any(kill <= closed < until for closed in lost)
        found.append(None if never else round(max(backs), 2) if backs else 0.0)
    return found


def _summary(args: argparse.Namespace, figures: dict[int, dict[str, Any]],
             server_cpu: float, machine: float, kills: list[float],
             lost: dict[str, Any] | None) -> dict[str, Any]:
    round_trips = sorted(rt for found in figures.values() for rt in found["round_trips"])
    finals = sorted(rt for found in figures.values() for rt in found["final_round_trips"])
    lags = sorted(lag for found in figures.values() for lag in found["loop_lags"])
    errors: Counter[str] = Counter()
    for found in figures.values():
        errors.update(found["errors"])
    cores = os.cpu_count() or 1
    client_cpu = sum(found["cpu_seconds"] for found in figures.values())
    p99 = percentile(round_trips, 99)
    passed = (args.tables >= TARGET_TABLES and p99 < TARGET_P99_MS
              and not errors and bool(round_trips))
    masters = sorted(rt for found in figures.values() for rt in found["master_round_trips"])
    notices: Counter[str] = Counter()
    for found in figures.values():
        notices.update(found["notices"])
    if args.master_tables and not args.tables:
        passed = (percentile(masters, 99) < TARGET_P99_MS and not errors
                  and not notices["master_busy"] and bool(masters))
    comebacks = [tuple(pair) for found in figures.values() for pair in found["comebacks"]]
    never = [closed for found in figures.values() for closed in found["lost_sockets"]]
    recovery = _recovery(kills, comebacks, never)
    back = [r for r in recovery if r is not None]
    failover = None
    if args.kill_every is not None:
        failover = {"kills": len(kills), "recovery_s": recovery,
                    "recovery_max_s": (max(back, default=math.nan) if len(back) == len(kills)
                                       else None),
                    "sockets_never_back": len(never),
                    "reconnections_failed": dict(sum(
                        (Counter(found["retries"]) for found in figures.values()),
                        Counter())),
                    "reconnect_seconds": _spread([back - closed for closed, back
                                                  in comebacks]),
                    "socket_open_seconds": _spread([opened for found in figures.values()
                                                    for opened, _ in found["handshakes"]]),
                    "first_state_seconds": _spread([first for found in figures.values()
                                                    for _, first in found["handshakes"]]),
                    "confirmed_plays": lost}
        passed = (bool(kills) and len(back) == len(kills) and max(back) < 5
                  and lost is not None and lost["missing"] == lost["different"] == 0)
    return {
        **stamp("capacity"),
        "machine": {"cores": cores, "usable_cores": usable_cores(), "cpu": cpu_model(),
                    "python": platform.python_version()},
        "servers": args.servers or 1,
        "set_up": (f"{args.servers} server(s), PostgreSQL, Redis, nginx" if args.servers
                   else "1 server, SQLite"),
        "failover": failover,
        "tables": args.tables,
        "master_tables": args.master_tables,
        "connections": 2 * args.tables + args.master_tables,
        "master_workers": args.master_workers,
        "master_human_round_trip_ms": {
            "count": len(masters),
            **{name: round(percentile(masters, share), 2)
               for name, share in (("p50", 50), ("p99", 99), ("max", 100))}},
        "master_moves_by_the_expert": notices["master_busy"],
        "think_ms": args.think_ms,
        "warmup_s": args.warmup,
        "seconds": args.seconds,
        "client_procs": args.client_procs,
        "compression": not args.no_compression,
        "preroll": not args.no_preroll,
        "moves_measured": len(round_trips),
        "moves_per_second": round(len(round_trips) / args.seconds, 1),
        "round_trip_ms": {name: round(percentile(round_trips, share), 2)
                          for name, share in (("p50", 50), ("p90", 90), ("p99", 99),
                                              ("max", 100))},
        "match_end_round_trip_ms": {"count": len(finals),
                                    "p50": round(percentile(finals, 50), 2),
                                    "max": round(percentile(finals, 100), 2)},
        "errors": sum(errors.values()),
        "error_codes": dict(errors),
        "unanswered": sum(found["unanswered"] for found in figures.values()),
        "disconnects": sum(found["disconnects"] for found in figures.values()),
        "server_cpu_percent": round(100 * server_cpu / args.seconds, 1),
        "server_cpu_ms_per_move": (round(1000 * server_cpu / len(round_trips), 3)
                                   if round_trips else None),
        "client_cpu_percent": round(100 * client_cpu / args.seconds, 1),
        "machine_busy_percent": round(100 * machine, 1),
        "other_cpu_percent": round(max(0.0, 100 * (machine * cores - (server_cpu + client_cpu)
                                                   / args.seconds)), 1),
        "client_loop_lag_ms": {"p99": round(percentile(lags, 99), 2),
                               "max": round(percentile(lags, 100), 2)},
        "target": ("every kill's tables back within 5 s, no confirmed play lost"
                   if args.kill_every is not None else
                   f"p99 < {TARGET_P99_MS:g} ms for the human seats at the master's tables, "
                   "the master never too busy (the expert never plays for it)"
                   if args.master_tables and not args.tables else
                   f"p99 < {TARGET_P99_MS:g} ms at >= {TARGET_TABLES} tables, no errors"),
        "passed": passed,
    }


def report(result: dict[str, Any]) -> None:
    rt = result["round_trip_ms"]
    lag = result["client_loop_lag_ms"]
    finals = result["match_end_round_trip_ms"]
    masters = result["master_human_round_trip_ms"]
    lines = [
        f"set-up            {result['set_up']}",
        f"tables            {result['tables']} ({result['connections']} WebSockets, "
        f"{result['client_procs']} client process(es), "
        f"compression {'on' if result['compression'] else 'off'})",
        f"think time        {result['think_ms']:g} ms (x 0.5-1.5)",
        f"moves measured    {result['moves_measured']} in {result['seconds']:g} s: "
        f"{result['moves_per_second']:.1f} moves/s",
        f"round trip (ms)   p50 {rt['p50']:.1f}  p90 {rt['p90']:.1f}  p99 {rt['p99']:.1f}  "
        f"max {rt['max']:.1f}",
        f"match-end plays   {finals['count']}: round trip p50 {finals['p50']:.1f} ms, "
        f"max {finals['max']:.1f} ms",
        f"errors received   {result['errors']}"
        + (f" {result['error_codes']}" if result["errors"] else "")
        + f"; unanswered {result['unanswered']}; disconnects {result['disconnects']}",
        f"CPU               server {result['server_cpu_percent']:.0f}% of a core, clients "
        f"{result['client_cpu_percent']:.0f}%, other processes "
        f"{result['other_cpu_percent']:.0f}% (machine {result['machine_busy_percent']:.0f}% "
        f"busy of {result['machine']['cores']} cores, {result['machine']['usable_cores']} usable)",
        f"server CPU/move   {result['server_cpu_ms_per_move']} ms (every server process, user "
        "and system, over the moves measured)",
        f"client loop lag   p99 {lag['p99']:.1f} ms, max {lag['max']:.1f} ms",
        *([] if not result["master_tables"] else [
            f"master tables     {result['master_tables']} (one human seat each; "
            f"{result['master_workers'] or 'default'} master worker(s)): human round trip "
            f"p50 {masters['p50']:.1f}  p99 {masters['p99']:.1f}  max {masters['max']:.1f} ms"
            f" over {masters['count']} plays; master moves played by the expert (master "
            f"busy): {result['master_moves_by_the_expert']}"]),
        *([] if result["failover"] is None else [
            f"kills             {result['failover']['kills']}; tables back after "
            f"{result['failover']['recovery_s']} s (max "
            f"{result['failover']['recovery_max_s']} s; None: not all back by the end; "
            f"{result['failover']['sockets_never_back']} sockets never back)",
            f"reconnections     socket open {result['failover']['socket_open_seconds']} s, "
            f"then first state {result['failover']['first_state_seconds']} s",
            f"reconnections     {result['failover']['reconnect_seconds']} s after the "
            f"close; failed tries {result['failover']['reconnections_failed']}",
            f"confirmed plays   {result['failover']['confirmed_plays']}"]),
        f"{'PASS' if result['passed'] else 'FAIL'}              {result['target']}",
    ]
    print("\n".join(lines), flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=TARGET_TABLES,
                        help=f"Tables played at once (default {TARGET_TABLES}).")
    parser.add_argument("--think-ms", type=float, default=500,
                        help="Mean think time before each play, ms (default 500).")
    parser.add_argument("--seconds", type=float, default=60,
                        help="Measured time, seconds (default 60).")
    parser.add_argument("--warmup", type=float, default=5,
                        help="Unmeasured time first, seconds (default 5).")
    parser.add_argument("--client-procs", type=int, default=1,
                        help="Client processes the tables are split across (default 1).")
    parser.add_argument("--no-compression", action="store_true",
                        help="Do not offer permessage-deflate (browsers do offer it).")
    parser.add_argument("--no-preroll", action="store_true",
                        help="Start every table at its first play (matches then end in step).")
    parser.add_argument("--seed", type=int, default=0, help="Seed of the think times.")
    parser.add_argument("--logs", type=Path, default=None, metavar="DIR",
                        help="Keep the servers' logs (and databases) in DIR.")
    parser.add_argument("--servers", type=int, default=0,
                        help="Servers behind nginx, sharing PostgreSQL and Redis (default "
                             "0: one server alone, on SQLite).")
    parser.add_argument("--kill-every", type=float, default=None, metavar="SECONDS",
                        help="Kill a random server this often, and start it again "
                             "(needs --servers).")
    parser.add_argument("--master-tables", type=int, default=0,
                        help="Tables more, each of one human seat against the master "
                             "(default 0).")
    parser.add_argument("--master-workers", type=int, default=None,
                        help="The servers' master worker processes (default: theirs, every "
                             "core but one).")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/capacity.json"),
                        help="JSON file the run is appended to.")
    args = parser.parse_args(argv)
    if (args.tables < 0 or args.master_tables < 0 or args.tables + args.master_tables < 1
            or args.client_procs < 1 or args.seconds <= 0 or args.warmup < 0):
        parser.error("--tables or --master-tables must be positive (neither below 0), "
                     "--client-procs positive, --seconds above 0")
    if args.master_workers is not None and args.master_workers < 1:
        parser.error(f"--master-workers {args.master_workers}: expected 1 or more")
    if args.servers < 0 or (args.kill_every is not None
                            and (args.servers < 2 or args.kill_every <= 0)):
        parser.error("--kill-every needs --servers 2 or more, and a positive period")
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    result = measure(args)
    report(result)
    save(result, args.out)


if __name__ == "__main__":
    main()
