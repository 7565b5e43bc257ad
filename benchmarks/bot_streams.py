"""Measure bots playing each other through the Bot API's streams on a real server.

Usage (from the repository root, with the project installed):

    python -m benchmarks.bot_streams                      # 200 bots (100 games), 60 s
    python -m benchmarks.bot_streams --bots 100 --seconds 30 --out /tmp/bots.json

The script starts the real server (``python -m basra serve``) on a free port with a fresh
SQLite file, makes ``--bots`` accounts through the API, each with a token of scope
``bot``, upgrades each to a bot account, and pairs them by challenges: every even bot
challenges the next one, which accepts. Every bot then holds two streams, as ``basra
bot connect`` does: its event stream (``/api/stream/event``, where its ``gameStart``
comes) and its game's stream (``/api/bot/game/stream/{id}``); on each state that is its
turn it waits a think time (``--think-ms`` times a uniform 0.5 to 1.5) and POSTs the
first legal move (``/api/bot/game/{id}/move/{move}``). The round trip of a move is the
time from its POST to the line of its game stream that confirms it (a state with a
larger ``seq``). A finished game is not played again: the moves measured are those sent
during ``--seconds`` after ``--warmup``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx

from benchmarks.harness import Server, free_port, percentile, raise_open_files, save, stamp

SERVE_OPTIONS = ["--away-after", "3600", "--signup-limit", "100000/minute",
                 "--create-limit", "100000/minute", "--join-limit", "100000/minute",
                 "--socket-limit", "100000/minute", "--sockets-per-address", "100000"]
PASSWORD = "correct horse battery"


@dataclass
class Figures:
    """What the bots measured."""

    round_trips: list[float] = field(default_factory=list)
    refused: int = 0
    games_started: int = 0
    games_finished: int = 0
    measuring: bool = False


async def make_bot(http: httpx.AsyncClient, index: int) -> tuple[str, str]:
    """A bot account through the API: (name, token)."""
    name = f"bench{index:04d}"
    signed = await http.post("/api/signup", json={"name": name, "password": PASSWORD})
    if signed.status_code != 201:
        raise SystemExit(f"sign-up of {name} failed: {signed.text}")
    session = signed.cookies["basra_session"]
    http.cookies.clear()
    made = await http.post("/api/tokens", json={"description": "bench", "scopes": ["bot"]},
                           headers={"cookie": f"basra_session={session}"})
    token = str(made.json()["token"])
    upgraded = await http.post("/api/bot/account/upgrade",
                               headers={"authorization": f"Bearer {token}"})
    if upgraded.status_code != 200:
        raise SystemExit(f"upgrade of {name} failed: {upgraded.text}")
    return name, token


async def play(base: str, token: str, figures: Figures, think: float, rng: random.Random,
               started: asyncio.Event) -> None:
    """One bot: its event stream until its game starts, then the game to its end."""
    headers = {"authorization": f"Bearer {token}"}
    timeout = httpx.Timeout(30.0, read=60.0)
    async with (httpx.AsyncClient(base_url=base, headers=headers, timeout=timeout) as client,
                client.stream("GET", "/api/stream/event") as events):
        started.set()
        code = None
        async for line in events.aiter_lines():
            if line.strip():
                event = json.loads(line)
                if event["type"] == "gameStart":
                    code = event["game"]["id"]
                    break
        assert code is not None
        figures.games_started += 1
        await play_game(client, code, figures, think, rng)


async def play_game(client: httpx.AsyncClient, code: str, figures: Figures, think: float,
                    rng: random.Random) -> None:
    """Play a game's stream to its end: a move at each of the bot's turns."""
    sent: tuple[int, float, bool] | None = None  # (seq, when, measured)
    moves: set[asyncio.Task[None]] = set()

    async def send(seq: int, text: str) -> None:
        nonlocal sent
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        sent = (seq, time.perf_counter(), figures.measuring)
        answer = await client.post(f"/api/bot/game/{code}/move/{text}")
        if answer.status_code != 200:
            figures.refused += 1
            sent = None

    try:
        async with client.stream("GET", f"/api/bot/game/stream/{code}") as stream:
            async for line in stream.aiter_lines():
                if not line.strip():
                    continue
                state = json.loads(line)
                if state.get("type") != "state":
                    continue
                if sent is not None and state["seq"] > sent[0]:
                    if sent[2] and figures.measuring:
                        figures.round_trips.append(time.perf_counter() - sent[1])
                    sent = None
                if state["result"] is not None:
                    figures.games_finished += 1
                    return
                if state["observation"] is not None and sent is None and not moves:
                    task = asyncio.create_task(send(state["seq"], state["legal"][0]))
                    moves.add(task)
                    task.add_done_callback(moves.discard)
    finally:
        for task in moves:
            task.cancel()
        await asyncio.gather(*moves, return_exceptions=True)


async def run(base: str, bots: int, seconds: float, warmup: float, think: float
              ) -> dict[str, Any]:
    figures = Figures()
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        made = [await make_bot(http, i) for i in range(bots)]
        streams = [asyncio.Event() for _ in made]
        players = [asyncio.create_task(play(base, token, figures, think, random.Random(i),
                                            streams[i]))
                   for i, (_name, token) in enumerate(made)]
        for event in streams:
            await event.wait()
        for first in range(0, bots - 1, 2):
            (_, challenger), (accepter, token) = made[first], made[first + 1]
            sent = await http.post(f"/api/challenge/{accepter}",
                                   headers={"authorization": f"Bearer {challenger}"},
                                   json={"variant": "egyptian", "players": 2,
                                         "rated": False, "turn_seconds": 0})
            if sent.status_code != 201:
                raise SystemExit(f"challenge failed: {sent.text}")
            taken = await http.post(f"/api/challenge/{sent.json()['id']}/accept",
                                    headers={"authorization": f"Bearer {token}"})
            if taken.status_code != 200:
                raise SystemExit(f"accept failed: {taken.text}")
        await asyncio.sleep(warmup)
        figures.measuring = True
        await asyncio.sleep(seconds)
        figures.measuring = False
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
    trips = sorted(figures.round_trips)
    return {
        "bots": bots, "games": bots // 2, "seconds": seconds, "think_ms": think * 1000,
        "moves_measured": len(trips),
        "moves_per_second": round(len(trips) / seconds, 1),
        "p50_ms": round(1000 * percentile(trips, 50), 1) if trips else None,
        "p99_ms": round(1000 * percentile(trips, 99), 1) if trips else None,
        "max_ms": round(1000 * trips[-1], 1) if trips else None,
        "refused_moves": figures.refused, "games_started": figures.games_started,
        "games_finished": figures.games_finished,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=200, help="bot accounts (two a game)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds not measured")
    parser.add_argument("--think-ms", type=float, default=500.0,
                        help="a bot's think time per move (times 0.5 to 1.5)")
    parser.add_argument("--out", type=Path, help="append the figures to this JSON file")
    args = parser.parse_args(argv)
    raise_open_files()
    with tempfile.TemporaryDirectory(prefix="basra-bots-") as folder:
        port = free_port()
        command = [sys.executable, "-m", "basra", "serve", "--port", str(port), "--db",
                   f"sqlite:///{folder}/bots.db", *SERVE_OPTIONS]
        with Server(port, command, Path(folder) / "server.log",
                    "basra-bots-server-{pid}.log") as server:
            asyncio.run(server.ready("/", 30))
            result = asyncio.run(run(server.base, args.bots, args.seconds, args.warmup,
                                     args.think_ms / 1000))
    result = {**stamp("bot_streams"), **result}
    for key, value in result.items():
        print(f"{key:>16}: {value}")
    if args.out is not None:
        save(result, args.out)


if __name__ == "__main__":
    main()
