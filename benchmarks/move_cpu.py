"""Measure the server's own CPU per move, without sockets; print the median of several runs.

Usage (from the repository root, with the project installed):

    python benchmarks/move_cpu.py
    python benchmarks/move_cpu.py --tables 400 --rounds 40 --runs 5
    python benchmarks/move_cpu.py --profile          # where the time goes (cProfile)

Each run starts a :class:`~basra.server.hub.Hub` on a fresh SQLite file, seats two people
at ``--tables`` tables and opens a connection for each seat, exactly as the WebSocket
route does, but with no socket behind it: the test reads each connection's outbox. Then,
``--rounds`` times, every seat to play sends the first legal play as the text a client
would send, all tables at once (so the writer commits them in batches, as under load),
and the messages queued for the sockets are taken away. The figure is the process's CPU
time per move: parsing the intent, the table's rules, the commit to SQLite (group commit)
and building and encoding every seat's view. What ``benchmarks/capacity.py`` measures
besides (its ``server CPU/move``) is the socket stack: uvicorn, the WebSocket frames and
their compression, the event loop's reads and writes.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

from basra.server.cluster import Cluster
from basra.server.connections import Connection
from basra.server.hub import Hub
from basra.server.settings import HubSettings
from basra.server.table import SeatConfig, TableConfig
from basra.server.views import state_message
from basra.store import Store


async def one_run(folder: Path, tables: int, rounds: int,
                  profile: cProfile.Profile | None) -> tuple[int, float]:
    """(moves played, CPU seconds they took)."""
    store = Store(f"sqlite:///{folder / 'bench.db'}")
    await store.open()
    hub = Hub(store, HubSettings(bot_delay=0, away_after=3600), Cluster())
    await hub.start()
    seats: list[tuple[str, int, Connection]] = []
    try:
        for _ in range(tables):
            config = TableConfig("egyptian", 2, {}, (SeatConfig("human"), SeatConfig("human")))
            table, seated = await hub.seat_players(config, [("Amira", None), ("Omar", None)])
            for seat, token in seated:
                address = f"10.{len(seats) // 60000}.{len(seats) // 250 % 240}.{len(seats) % 250}"
                seats.append((table.code, seat, await hub.open_socket(table.code, token,
                                                                      address)))
        _empty(seats)
        moves = 0
        began = time.process_time()
        if profile is not None:
            profile.enable()
        for _ in range(rounds):
            plays = []
            for code, seat, connection in seats:
                table = hub.tables[code]
                if table.match is None or table.match.is_over or table.match.state.to_play != seat:
                    continue
                state = state_message(table, seat)
                legal = state["legal"][0]
                plays.append(hub.receive(connection, json.dumps(
                    {"type": "play", "seq": state["seq"], "card": legal["card"],
                     "captured": legal["captured"]})))
            await asyncio.gather(*plays)
            moves += len(plays)
            _empty(seats)
        if profile is not None:
            profile.disable()
        return moves, time.process_time() - began
    finally:
        await hub.stop()
        await store.close()


def _empty(seats: list[tuple[str, int, Connection]]) -> None:
    for _, _, connection in seats:
        while not connection.outbox.empty():
            connection.outbox.get_nowait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100, help="Tables played at once.")
    parser.add_argument("--rounds", type=int, default=40,
                        help="Plays of every seat to play (a 2-player match has 48 a deal).")
    parser.add_argument("--runs", type=int, default=5, help="Runs; the median is printed.")
    parser.add_argument("--profile", action="store_true",
                        help="One run under cProfile; print the 30 costliest functions.")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.rounds < 1 or args.runs < 1:
        parser.error("--tables, --rounds and --runs must be at least 1")
    profile = cProfile.Profile() if args.profile else None
    per_move = []
    for run in range(1 if profile else args.runs):
        with tempfile.TemporaryDirectory(prefix="basra-move-cpu-") as folder:
            moves, cpu = asyncio.run(one_run(Path(folder), args.tables, args.rounds, profile))
        per_move.append(1000 * cpu / moves)
        print(f"run {run + 1}: {moves} moves, {per_move[-1]:.3f} ms of CPU a move",
              file=sys.stderr)
    print(f"server CPU per move, without sockets: median {statistics.median(per_move):.3f} ms "
          f"over {len(per_move)} run(s) of {args.tables} tables")
    if profile is not None:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
