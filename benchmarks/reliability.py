"""Replay the attacks of issue 8 against a real server and measure what they cost.

Usage (from the repository root, with the project installed):

    python -m benchmarks.reliability                       # everything, about 3 minutes
    python -m benchmarks.reliability --kills 3 --after-seconds 10
    python -m benchmarks.reliability --json --out /tmp/reliability.json

Two parts, each against ``python -m basra serve`` on a free port with a fresh SQLite file:

**The flood** (the server's default limits). A bystander table of two humans plays
throughout at a steady pace (each seat plays ``--pace-ms`` after its turn comes); its round
trip is the time from sending a play to the ``state`` confirming it (a larger ``seq``).
After ``--before-seconds`` of quiet, another process sends ``--flood-requests`` ``POST
/api/quick`` from the same address in ``--flood-seconds`` (over keep-alive connections, at
an even rate), then the bystander plays on for ``--after-seconds`` (the server once played
every abandoned table with the computer 30 seconds after it was made: the window shows that
this is gone), then another process opens ``--sockets`` WebSockets to one seat as fast as it
can. Printed: requests accepted and refused (429, with ``Retry-After``), sockets refused
(``too_many_connections``) and closed as replaced, the bystander's round trips (p50, p99,
max) and the server's CPU in each window.

**kill -9 under load** (limits lifted). ``--kill-tables`` tables of two humans play as fast
as they can; after a random 2 to 5 seconds the server gets SIGKILL and is started again on
the same database, ``--kills`` times. Every state a client receives is a confirmation; after
each restart, the moves stored in the database are compared with every play confirmed so
far. Printed: confirmed moves lost (the target is 0), plays stored but never confirmed (in
flight at the kill), and the restart time (the process started until ``/readyz`` answers
200, the stored tables loaded).

The targets, printed next to the figures: no confirmed move lost; a bystander p99 under
100 ms during the flood. The run is appended to ``--out`` (JSON) with the command line, the
date and the machine. ``--server-cmd`` runs another server instead (a template with
``{python}``, ``{port}``, ``{db}`` and ``{extra}``, the part's own options).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import math
import multiprocessing
import os
import platform
import random
import shlex
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from sqlalchemy import create_engine, select
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from basra.cards import CARD_NAMES, card_names
from basra.store.schema import moves_table
from benchmarks.harness import (
    Server,
    cpu_model,
    cpu_seconds,
    err,
    free_port,
    httpx,
    percentile,
    raise_open_files,
    save,
    stamp,
)
from tests.support.seats import SeatClient, TableLog, seat_clients, two_human_tables

TARGET_LOST = 0
TARGET_P99_MS = 100.0
DEFAULT_SERVER = "{python} -m basra serve --port {port} --db {db} {extra}"
LIFTED = ("--create-limit 100000/minute --join-limit 100000/minute "
          "--socket-limit 100000/minute "
          "--sockets-per-address 100000 --bot-delay 0")
"""The kill part's options: one client address plays every table."""
START_SECONDS = 60.0
"""How long a server may take to answer ``/readyz``."""


# -- figures ---------------------------------------------------------------------------


def spread(values: Sequence[float]) -> dict[str, Any]:
    ordered = sorted(values)
    return {"count": len(ordered),
            **{name: round(percentile(ordered, share), 2)
               for name, share in (("p50", 50), ("p99", 99), ("max", 100))}}


# -- the server ------------------------------------------------------------------------


def start_server(template: str, db: Path, extra: str, folder: Path) -> Server:
    """``template`` (see ``--server-cmd``) on a free port, its output in a log file."""
    port = free_port()
    command = shlex.split(template.format(python=shlex.quote(sys.executable), port=port,
                                          db=f"sqlite:///{db}", extra=extra))
    return Server(port, command, folder / f"server-{port}.log", "basra-reliability-{port}.log")


@contextlib.asynccontextmanager
async def serving(template: str, db: Path, extra: str, folder: Path
                  ) -> AsyncIterator[Server]:
    with start_server(template, db, extra, folder) as server:
        await server.ready("/readyz", START_SECONDS)
        yield server


# -- the flood processes ---------------------------------------------------------------


async def _read_answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers, body


async def _flood_requests(port: int, count: int, seconds: float, connections: int
                          ) -> dict[str, Any]:
    """``count`` ``POST /api/quick`` at an even rate over ``seconds``, on keep-alive
    connections; what came back."""
    request = (f"POST /api/quick HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}").encode()
    loop = asyncio.get_running_loop()
    begin = loop.time() + 0.05
    next_index = 0
    statuses: Counter[int] = Counter()
    latencies: list[float] = []
    missing_retry_after = 0
    failures: Counter[str] = Counter()
    seats: list[dict[str, Any]] = []

    async def worker() -> None:
        nonlocal next_index, missing_retry_after
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while next_index < count:
                index = next_index
                next_index += 1
                await asyncio.sleep(max(0.0, begin + index * seconds / count - loop.time()))
                sent = time.perf_counter()
                try:
                    writer.write(request)
                    status, headers, body = await _read_answer(reader)
                except (OSError, asyncio.IncompleteReadError) as error:
                    failures[type(error).__name__] += 1
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    continue
                latencies.append((time.perf_counter() - sent) * 1000)
                statuses[status] += 1
                if status == 429 and not headers.get("retry-after", "").isdigit():
                    missing_retry_after += 1
                if status == 200:
                    seats.append(json.loads(body))
                if headers.get("connection", "").lower() == "close":
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
        finally:
            writer.close()

    started = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(connections)))
    return {"statuses": dict(statuses), "latencies": latencies, "failures": dict(failures),
            "missing_retry_after": missing_retry_after, "seats": seats,
            "seconds": time.monotonic() - started}


async def _flood_sockets(url: str, count: int, at_once: int) -> dict[str, Any]:
    """Open ``count`` sockets to one seat, ``at_once`` handshakes at a time, each kept
    open until the server closes it; how each ended."""
    limit = asyncio.Semaphore(at_once)
    ends: Counter[str] = Counter()
    close_codes: Counter[str] = Counter()
    kept: list[ClientConnection] = []
    watchers: list[asyncio.Task[None]] = []

    async def watch(ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "error":
                    ends[message["code"]] += 1
                    break
        with contextlib.suppress(Exception):
            await ws.wait_closed()
        close_codes[str(ws.close_code)] += 1

    async def one() -> None:
        async with limit:
            try:
                ws = await connect(url, open_timeout=60, compression=None)
            except InvalidStatus as refused:  # over --socket-limit: refused before upgrading
                ends[f"handshake_{refused.response.status_code}"] += 1
                return
            except Exception as error:  # a handshake that failed or timed out
                ends[f"failed: {type(error).__name__}"] += 1
                return
            try:
                first = json.loads(await asyncio.wait_for(ws.recv(), 60))
            except Exception as error:
                ends[f"failed: {type(error).__name__}"] += 1
                return
            if first["type"] == "error":
                ends[first["code"]] += 1
                with contextlib.suppress(Exception):
                    await ws.wait_closed()
                close_codes[str(ws.close_code)] += 1
                return
            kept.append(ws)
            watchers.append(asyncio.create_task(watch(ws)))

    started = time.monotonic()
    await asyncio.gather(*(one() for _ in range(count)))
    seconds = time.monotonic() - started
    await asyncio.sleep(0.5)
    still_open = sum(1 for ws in kept if ws.close_code is None)
    for ws in kept:
        with contextlib.suppress(Exception):
            await ws.close()
    await asyncio.gather(*watchers, return_exceptions=True)
    return {"ends": dict(ends), "open_at_end": still_open, "close_codes": dict(close_codes),
            "seconds": seconds}


def flood_requests(port: int, count: int, seconds: float, connections: int
                   ) -> dict[str, Any]:
    return asyncio.run(_flood_requests(port, count, seconds, connections))


def flood_sockets(url: str, count: int, at_once: int) -> dict[str, Any]:
    raise_open_files()
    return asyncio.run(_flood_sockets(url, count, at_once))


# -- part 1: the flood -----------------------------------------------------------------


@dataclass
class Windows:
    """Named time windows (monotonic) and the server's CPU seconds at their edges."""

    pid: int
    spans: dict[str, tuple[float, float]] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    _open: dict[str, tuple[float, float]] = field(default_factory=dict)

    def begin(self, name: str) -> None:
        self._open[name] = (time.monotonic(), cpu_seconds(self.pid))

    def end(self, name: str) -> None:
        start, cpu = self._open.pop(name)
        now = time.monotonic()
        self.spans[name] = (start, now)
        self.cpu[name] = round(100 * (cpu_seconds(self.pid) - cpu) / max(now - start, 1e-9), 1)


async def wait_with_progress(progress: Progress, label: str, seconds: float,
                             until: Callable[[], bool] | None = None) -> None:
    task = progress.add_task(label, total=seconds)
    started = time.monotonic()
    while (elapsed := time.monotonic() - started) < seconds:
        if until is not None and until():
            break
        progress.update(task, completed=elapsed)
        await asyncio.sleep(0.1)
    progress.update(task, completed=seconds, visible=False)


async def flood_part(args: argparse.Namespace, folder: Path, progress: Progress,
                     pool: concurrent.futures.Executor) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    async with serving(args.server_cmd, folder / "flood.db", "", folder) as server:
        (bystander,) = await two_human_tables(server.base, 1)
        seats = seat_clients([bystander], server.ws_base, args.pace_ms / 1000)
        windows = Windows(server.pid)
        await wait_with_progress(progress, "warm-up       ", 2)

        windows.begin("before")
        await wait_with_progress(progress, "before        ", args.before_seconds)
        windows.end("before")

        windows.begin("during")
        flooding = loop.run_in_executor(pool, flood_requests, server.port,
                                        args.flood_requests, args.flood_seconds,
                                        args.flood_connections)
        await wait_with_progress(progress, "POST flood    ", args.flood_seconds + 60,
                                 until=flooding.done)
        requests = await flooding
        windows.end("during")

        windows.begin("after")
        half = args.after_seconds / 2
        windows.begin("after, first half")
        await wait_with_progress(progress, "after (1st half)", half)
        windows.end("after, first half")
        windows.begin("after, second half")
        await wait_with_progress(progress, "after (2nd half)", args.after_seconds - half)
        windows.end("after, second half")
        windows.end("after")

        target = next(iter(requests["seats"]), None)
        if target is None:
            async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
                target = (await client.post("/api/quick", json={})).json()
        seat_url = f"{server.ws_base}/ws/{target['code']}?token={target['token']}"
        windows.begin("sockets")
        opening = loop.run_in_executor(pool, flood_sockets, seat_url, args.sockets,
                                       args.socket_concurrency)
        await wait_with_progress(progress, "socket flood  ", 300, until=opening.done)
        sockets = await opening
        windows.end("sockets")
        await wait_with_progress(progress, "settle        ", 2)
        for seat in seats:
            await seat.close()

    round_trips = [rt for seat in seats for rt in seat.round_trips]

    def within(name: str) -> dict[str, Any]:
        start, end = windows.spans[name]
        return spread([ms for sent, ms in round_trips if start <= sent < end])

    statuses = Counter({int(k): v for k, v in requests["statuses"].items()})
    ends = Counter(sockets["ends"])
    return {
        "requests": {
            "sent": args.flood_requests, "planned_seconds": args.flood_seconds,
            "seconds": round(requests["seconds"], 2),
            "accepted": statuses[200], "refused_429": statuses[429],
            "other_statuses": {str(k): v for k, v in statuses.items() if k not in (200, 429)},
            "failures": requests["failures"],
            "429_without_retry_after": requests["missing_retry_after"],
            "answer_ms": spread(requests["latencies"]),
        },
        "sockets": {
            "opened": args.sockets, "seconds": round(sockets["seconds"], 2),
            "refused_before_handshake": ends["handshake_403"],
            "refused": ends["too_many_connections"], "replaced": ends["replaced"],
            "open_at_end": sockets["open_at_end"],
            "other": {k: v for k, v in ends.items()
                      if k not in ("too_many_connections", "replaced", "handshake_403")},
            "close_codes": sockets["close_codes"],
        },
        "bystander_round_trip_ms": {name: within(name) for name in
                                    ("before", "during", "after", "after, first half",
                                     "after, second half", "sockets")},
        "server_cpu_percent": windows.cpu,
        "bystander_errors": error_codes(seats),
        "bystander_disconnects": sum(seat.dropped for seat in seats),
        "bystander_conflicts": len(bystander.conflicts),
    }


# -- part 2: kill -9 under load --------------------------------------------------------


def stored_moves(db: Path, codes: list[str]) -> dict[str, list[int]]:
    engine = create_engine(f"sqlite:///{db}")
    found: dict[str, list[int]] = {code: [] for code in codes}
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(moves_table.c.code, moves_table.c.move)
                .where(moves_table.c.code.in_(codes), moves_table.c.match_number == 1)
                .order_by(moves_table.c.code, moves_table.c.idx))
            for code, move in rows:
                found[code].append(move)
    finally:
        engine.dispose()
    return found


def error_codes(seats: list[SeatClient]) -> dict[str, int]:
    """How many errors of each code the seats were sent."""
    return dict(Counter(error["code"] for seat in seats for error in seat.errors))


def compare(tables: list[TableLog], stored: dict[str, list[int]]) -> tuple[int, int]:
    """(confirmed plays the database lacks or holds otherwise, plays stored but never
    confirmed)."""
    lost = 0
    unconfirmed = 0
    for table in tables:
        moves = stored[table.code]
        for seq, last in table.confirmed.items():
            if seq == 0:
                continue
            if seq > len(moves) or last is None:
                lost += 1
                continue
            move = moves[seq - 1]
            if (CARD_NAMES[move & 63], sorted(card_names(move >> 6))) != (
                    last["card"], sorted(last["captured"])):
                lost += 1
        unconfirmed += max(0, len(moves) - table.top)
    return lost, unconfirmed


async def kill_part(args: argparse.Namespace, folder: Path, progress: Progress
                    ) -> dict[str, Any]:
    rng = random.Random(args.seed)
    db = folder / "kill.db"
    rounds: list[dict[str, Any]] = []
    bar = progress.add_task("kill -9       ", total=args.kills)
    server = start_server(args.server_cmd, db, LIFTED, folder)
    try:
        await server.ready("/readyz", START_SECONDS)
        tables = await two_human_tables(server.base, args.kill_tables)
        for _ in range(args.kills):
            tops = {table.code: table.top for table in tables}
            seats = seat_clients(tables, server.ws_base)
            deadline = time.monotonic() + 60
            while not all(seat.first is not None for seat in seats):
                if time.monotonic() > deadline:
                    raise RuntimeError("the seats did not all connect in 60 s")
                await asyncio.sleep(0.01)
            # A restarted server must show at least every play confirmed before.
            regressed = sum(1 for seat in seats if seat.first is not None
                            and seat.first["seq"] < tops[seat.code])
            play_for = rng.uniform(2, 5)
            await asyncio.sleep(play_for)
            server.kill()
            await asyncio.gather(*(seat.task for seat in seats if seat.task),
                                 return_exceptions=True)
            confirmed = sum(table.top - tops[table.code] for table in tables)
            server = start_server(args.server_cmd, db, LIFTED, folder)
            restart = await server.ready("/readyz", START_SECONDS)
            lost, unconfirmed = compare(tables, stored_moves(db, [t.code for t in tables]))
            rounds.append({"killed_after_s": round(play_for, 2), "confirmed": confirmed,
                           "plays_per_second": round(confirmed / play_for, 1),
                           "lost": lost, "stored_unconfirmed": unconfirmed,
                           "restart_s": round(restart, 2), "regressed": regressed,
                           "errors": error_codes(seats)})
            progress.update(bar, advance=1)
    finally:
        server.stop()
    progress.update(bar, visible=False)
    restarts = [r["restart_s"] for r in rounds]
    return {
        "kills": args.kills, "tables": args.kill_tables,
        "confirmed": sum(r["confirmed"] for r in rounds),
        "lost": sum(r["lost"] for r in rounds),
        "stored_unconfirmed": sum(r["stored_unconfirmed"] for r in rounds),
        "regressed": sum(r["regressed"] for r in rounds),
        "conflicts": sum(len(table.conflicts) for table in tables),
        "restart_s": {"p50": round(percentile(sorted(restarts), 50), 2),
                      "max": round(max(restarts, default=math.nan), 2)},
        "rounds": rounds,
    }


# -- the run ---------------------------------------------------------------------------


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    raise_open_files()
    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    result: dict[str, Any] = {
        **stamp("reliability"),
        "machine": {"cores": os.cpu_count() or 1, "cpu": cpu_model(),
                    "python": platform.python_version(),
                    "load_average_before": [round(v, 2) for v in os.getloadavg()]},
        "server_cmd": args.server_cmd,
        "pace_ms": args.pace_ms,
    }
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="basra-reliability-") as name, \
            concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool, \
            Progress(*columns, console=err, transient=True) as progress:
        folder = Path(name)
        await asyncio.get_running_loop().run_in_executor(pool, os.getpid)  # start it now
        if not args.skip_flood:
            result["flood"] = await flood_part(args, folder, progress, pool)
        if args.kills:
            result["kill"] = await kill_part(args, folder, progress)
    result["machine"]["load_average_after"] = [round(v, 2) for v in os.getloadavg()]
    result["targets"] = targets(result)
    return result


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    if "kill" in result:
        lost = result["kill"]["lost"] + result["kill"]["regressed"]
        found.append({"name": "confirmed moves lost", "target": f"= {TARGET_LOST}",
                      "value": lost, "met": lost <= TARGET_LOST})
    if "flood" in result:
        p99 = result["flood"]["bystander_round_trip_ms"]["during"]["p99"]
        found.append({"name": "bystander p99 during the flood",
                      "target": f"< {TARGET_P99_MS:g} ms", "value": p99,
                      "met": bool(p99 < TARGET_P99_MS)})
    return found


def report(result: dict[str, Any], console: Console) -> None:
    table = Table(title="basra serve under attack")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("target")

    def ms(figures: dict[str, Any]) -> str:
        return (f"{figures['p50']:.1f} / {figures['p99']:.1f} / {figures['max']:.1f} ms "
                f"({figures['count']})")

    marks = {t["name"]: f"{t['target']}: {'[green]met[/]' if t['met'] else '[red]missed[/]'}"
             for t in result["targets"]}
    flood = result.get("flood")
    if flood is not None:
        requests = flood["requests"]
        table.add_row("POST /api/quick", f"{requests['sent']} in {requests['seconds']:.1f} s",
                      "")
        table.add_row("  accepted / 429", f"{requests['accepted']} / "
                      f"{requests['refused_429']}", "")
        if requests["other_statuses"] or requests["failures"]:
            table.add_row("  other answers", str(requests["other_statuses"])
                          + str(requests["failures"]), "")
        table.add_row("  429 without Retry-After", str(requests["429_without_retry_after"]), "")
        table.add_row("  answer p50 / p99 / max", ms(requests["answer_ms"]), "")
        sockets = flood["sockets"]
        table.add_row("sockets to one seat", f"{sockets['opened']} in "
                      f"{sockets['seconds']:.1f} s", "")
        table.add_row("  refused at the handshake (403)",
                      str(sockets.get("refused_before_handshake", 0)), "")
        table.add_row("  refused / replaced / open", f"{sockets['refused']} / "
                      f"{sockets['replaced']} / {sockets['open_at_end']}", "")
        if sockets["other"]:
            table.add_row("  other", str(sockets["other"]), "")
        table.add_row("bystander round trip", "p50 / p99 / max (plays)", "")
        cpu = flood["server_cpu_percent"]
        for name, figures in flood["bystander_round_trip_ms"].items():
            label = {"sockets": "socket flood"}.get(name, name)
            mark = marks.get("bystander p99 during the flood", "") if name == "during" else ""
            table.add_row(f"  {label} (server CPU {cpu.get(name, math.nan):.0f}%)",
                          ms(figures), mark)
        errors = flood["bystander_errors"]
        table.add_row("  errors / disconnects",
                      f"{sum(errors.values())} / {flood['bystander_disconnects']}", "")
    kill = result.get("kill")
    if kill is not None:
        table.add_row("kill -9 under load", f"{kill['kills']} x {kill['tables']} tables", "")
        table.add_row("  plays confirmed", str(kill["confirmed"]), "")
        table.add_row("  confirmed moves lost", str(kill["lost"] + kill["regressed"]),
                      marks.get("confirmed moves lost", ""))
        table.add_row("  stored, not yet confirmed", str(kill["stored_unconfirmed"]), "")
        table.add_row("  restart to /readyz p50 / max",
                      f"{kill['restart_s']['p50']:.2f} / {kill['restart_s']['max']:.2f} s", "")
    console.print(table)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--flood-requests", type=int, default=5000,
                        help="POST /api/quick sent in the flood (default 5000).")
    parser.add_argument("--flood-seconds", type=float, default=10,
                        help="Seconds the flood is spread over (default 10).")
    parser.add_argument("--flood-connections", type=int, default=100,
                        help="Keep-alive connections the flood uses (default 100).")
    parser.add_argument("--sockets", type=int, default=2000,
                        help="WebSockets opened to one seat (default 2000).")
    parser.add_argument("--socket-concurrency", type=int, default=200,
                        help="Socket handshakes in flight at once (default 200).")
    parser.add_argument("--pace-ms", type=float, default=50,
                        help="The bystander's seats play this long after their turn comes "
                             "(default 50).")
    parser.add_argument("--before-seconds", type=float, default=10,
                        help="Bystander round trips measured before the flood (default 10).")
    parser.add_argument("--after-seconds", type=float, default=60,
                        help="Bystander round trips measured after the flood (default 60).")
    parser.add_argument("--kills", type=int, default=10,
                        help="Times the server is killed under load (default 10; 0 skips).")
    parser.add_argument("--kill-tables", type=int, default=50,
                        help="Tables playing while the server is killed (default 50).")
    parser.add_argument("--skip-flood", action="store_true", help="Only the kill part.")
    parser.add_argument("--server-cmd", default=DEFAULT_SERVER, metavar="TEMPLATE",
                        help="The server command, with {python}, {port}, {db} (a SQLite URL) "
                             "and {extra} (each part's options) (default: %(default)s).")
    parser.add_argument("--seed", type=int, default=0, help="Seed of the kill times.")
    parser.add_argument("--json", action="store_true",
                        help="Print the result as JSON on stdout (the table goes to stderr).")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/reliability.json"),
                        help="JSON file the run is appended to.")
    args = parser.parse_args(argv)
    if (args.flood_requests < 1 or args.flood_seconds <= 0 or args.sockets < 1
            or args.kills < 0 or args.kill_tables < 1 or args.flood_connections < 1
            or args.socket_concurrency < 1):
        parser.error("counts must be positive and --flood-seconds above 0")
    result = asyncio.run(measure(args))
    report(result, err if args.json else Console(highlight=False))
    if args.json:
        print(json.dumps(result, indent=1))
    save(result, args.out)


if __name__ == "__main__":
    main()
