"""The master at a server that compiles its search at start-up."""

import asyncio
import functools
import subprocess
import sys
import time

import pytest

from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules
from basra.server.computer import Choice, ComputerPlayers


def test_the_expert_plays_for_the_master_until_its_first_worker_is_ready() -> None:
    match = Match(make_rules("egyptian"), seed=3)
    observation = observe(match, match.state.to_play)

    async def main() -> tuple[Choice, bool, Choice]:
        # A worker that takes three seconds to start stands for a first compile.
        players = ComputerPlayers(master_ms=100, master_workers=1,
                                  warm_up=functools.partial(time.sleep, 3.0))
        try:
            players.warm()
            first = await players.choose(("t", 0), "master", observation)
            ready_then = players.master_ready
            while not players.master_ready:
                await asyncio.sleep(0.05)
            second = await players.choose(("t", 0), "master", observation)
            return first, ready_then, second
        finally:
            players.close()

    first, ready_then, second = asyncio.run(main())
    assert (first.level, first.note) == ("expert", "master_warming")
    assert not ready_then
    assert (second.level, second.note) == ("master", None)
    assert {first.move, second.move} <= set(observation.legal_moves)


def test_a_server_that_does_not_warm_its_master_reports_it_ready() -> None:
    players = ComputerPlayers(master_workers=1)
    assert players.master_ready
    players.close()


WORKER_OF_A_SERVER = """
import functools, os, time
from basra.server.computer import ComputerPlayers

players = ComputerPlayers(master_workers=1, warm_up=functools.partial(time.sleep, 0.0))
print(players._master_pool().submit(os.getpid).result(), flush=True)
time.sleep(120)
"""


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_master_worker_leaves_when_its_server_is_killed() -> None:
    server = subprocess.Popen([sys.executable, "-c", WORKER_OF_A_SERVER],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        assert running(worker)
    finally:
        server.kill()
        server.wait()
    deadline = time.monotonic() + 10
    while running(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running(worker), "the master's worker outlived its server"
