"""The server's computer players: who thinks where, and in what order.

Two rules keep computer moves from starving the tables of people:

- **Quick levels** (random, greedy, neural, expert) think on the event loop, but one at a time,
  from a first-come first-served queue, and the queue gives the loop back after every
  :data:`SLICE_SECONDS` of thinking: every socket is served between two slices, however
  many tables wait for the computer.
- **The master** thinks in a pool of worker processes sized to the machine (one core is
  left to the event loop), first come first served; each worker loads the compiled
  search (:mod:`basra.fast`) when it starts. When the queue would keep a table
  waiting more than :data:`MASTER_QUEUE_TURNS` master moves' time, the expert plays that
  move instead and the table is told (``Choice.note``).

A server started with ``warm_master`` compiles the master's search at start-up, in the
first worker, while it serves (on a fresh install numba's compile takes a minute or two;
later starts load its cache in under a second). Until that worker is ready the expert
plays the master's moves and the table is told (``Choice.note`` ``master_warming``).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import NamedTuple

from basra.bots import Bot, close_bot, make_bot
from basra.observe import Observation

__all__ = ["MASTER_QUEUE_TURNS", "NOTICES", "SLICE_SECONDS", "Choice", "ComputerPlayers",
           "stop_pool", "watch_server"]

log = logging.getLogger("basra.server")

SLICE_SECONDS = 0.004
"""Thinking done on the event loop before it serves sockets again."""
MASTER_QUEUE_TURNS = 2
"""A master move waits for at most this many master moves per worker before the
expert plays it instead."""


MASTER_BUSY = "master_busy"
"""The note of a move the expert played because the master's queue was full."""
MASTER_WARMING = "master_warming"
"""The note of a move the expert played because the master's search was still loading."""
NOTICES = (MASTER_BUSY, MASTER_WARMING)
"""The notes a table is told with a computer move (``Choice.note``): the pages show each
as the catalogs' ``notice_<note>``."""


class Choice(NamedTuple):
    """A computer move, the level that chose it, and a note for the table (or None)."""

    move: int
    level: str
    note: str | None = None


def _master_move(observation: Observation, think_ms: int) -> int:
    """A master decision, in a worker process."""
    bot = make_bot("master", think_ms=think_ms, workers=1)
    try:
        return bot.choose(observation)
    finally:
        close_bot(bot)


def _warm_master() -> None:
    """Run in each master worker as it starts: load the compiled search (numba's cache)
    before the first move rather than during it."""
    from basra import fast

    if fast.available():
        from basra.fast import core

        core.compile_kernels()


POOL_STOP_SECONDS = 5.0
"""How long stopping a pool waits for its terminated workers and its manager thread."""


def stop_pool(pool: Executor) -> None:
    """Stop a pool of worker processes now: queued work is cancelled, and a worker still
    busy (a long analysis) is terminated rather than waited for. The pool's manager
    thread is then waited for (briefly): left running, it could close its wake-up pipe
    while the interpreter's exit writes to it, a traceback at every shutdown under load."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        if process.is_alive():
            process.terminate()
    for process in workers:
        process.join(POOL_STOP_SECONDS)
    if manager is not None:
        manager.join(POOL_STOP_SECONDS)


SERVER_WATCH_SECONDS = 1.0
"""How often a master worker looks whether its server is still running."""


def watch_server(server: int) -> None:
    """Run in a worker process as it starts: leave once the server process ``server`` is
    gone (a server killed with SIGKILL cannot stop its workers, which would otherwise wait
    for work for ever). The analysis and hint workers start with it too."""
    threading.Thread(target=_leave_with, args=(server,), daemon=True,
                     name="basra-server-watch").start()


def _start_worker(server: int, warm_up: Callable[[], None]) -> None:
    """Run in each master worker as it starts: :func:`watch_server`, then ``warm_up``."""
    watch_server(server)
    warm_up()


def _leave_with(server: int) -> None:
    while True:
        time.sleep(SERVER_WATCH_SECONDS)
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # alive, as another user (its number taken again)
            pass


def _ready() -> None:
    """A task that makes a master worker start (and so load the search) before any move."""


def default_master_workers() -> int:
    """Worker processes for the master: every core but one (at least one)."""
    return max(1, (os.cpu_count() or 2) - 1)


class ComputerPlayers:
    """Chooses the computer's moves for every table of a server."""

    def __init__(self, master_ms: int = 300, master_workers: int | None = None, *,
                 warm_up: Callable[[], None] = _warm_master) -> None:
        self.master_ms = master_ms
        self.master_workers = master_workers or default_master_workers()
        self._warm_up = warm_up
        """What each master worker runs as it starts (loads the compiled search)."""
        self._warming: Future[None] | None = None
        """The first worker's start-up, while the server compiles the search at start."""
        self._bots: dict[tuple[Hashable, str], Bot] = {}
        self._queue: asyncio.Queue[tuple[Bot, Observation, asyncio.Future[int]]] | None = None
        self._thinker: asyncio.Task[None] | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._master_waiting = 0
        self.on_waited: Callable[[str, float], None] | None = None
        """Called with ``"master"`` and the seconds each master move waited and took
        (the server's metrics)."""
        """Master moves submitted and not yet answered."""

    @property
    def master_queue(self) -> int:
        return self._master_waiting

    def warm(self) -> None:
        """Start the master's first worker now, so that it compiles the search (or loads
        numba's cache) in the background; until it is ready the expert plays for the
        master (:meth:`choose`)."""
        if self._warming is None:
            self._warming = self._master_pool().submit(_ready)

    @property
    def master_ready(self) -> bool:
        """Whether the master can play now (False only while :meth:`warm`'s worker starts)."""
        return self._warming is None or self._warming.done()

    async def choose(self, key: Hashable, level: str, observation: Observation) -> Choice:
        """A move for the seat ``key`` (any hashable naming the table and seat)."""
        if level == "master" and not self.master_ready:
            move = await self._quick(key, "expert", observation)
            return Choice(move, "expert", MASTER_WARMING)
        if level == "master":
            if self._master_waiting < self.master_workers * MASTER_QUEUE_TURNS:
                return Choice(await self._master(observation), "master")
            log.info("master queue full (%d waiting): the expert plays", self._master_waiting)
            move = await self._quick(key, "expert", observation)
            return Choice(move, "expert", MASTER_BUSY)
        return Choice(await self._quick(key, level, observation), level)

    def forget(self, key: Hashable) -> None:
        """Drop the bots kept for a seat (its table has left memory)."""
        for found in [k for k in self._bots if k[0] == key]:
            close_bot(self._bots.pop(found))

    def close(self) -> None:
        if self._thinker is not None:
            self._thinker.cancel()
            self._thinker = None
        for bot in self._bots.values():
            close_bot(bot)
        self._bots.clear()
        if self._pool is not None:
            stop_pool(self._pool)
            self._pool = None

    # -- quick levels ----------------------------------------------------------------------

    async def _quick(self, key: Hashable, level: str, observation: Observation) -> int:
        bot = self._bots.get((key, level))
        if bot is None:
            bot = self._bots[(key, level)] = make_bot(level)
        if self._queue is None:
            self._queue = asyncio.Queue()
        if self._thinker is None or self._thinker.done():
            self._thinker = asyncio.create_task(self._think(self._queue),
                                                name="basra-computer")
        answer: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((bot, observation, answer))
        return await answer

    @staticmethod
    async def _think(queue: asyncio.Queue[tuple[Bot, Observation, asyncio.Future[int]]]
                     ) -> None:
        """Answer queued decisions one at a time, giving the loop back every slice."""
        slice_start = time.perf_counter()
        while True:
            bot, observation, answer = await queue.get()
            if answer.done():  # the table stopped waiting
                continue
            try:
                answer.set_result(bot.choose(observation))
            except Exception as error:
                answer.set_exception(error)
            if time.perf_counter() - slice_start >= SLICE_SECONDS:
                await asyncio.sleep(0)
                slice_start = time.perf_counter()

    # -- the master ----------------------------------------------------------------------

    def _master_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.master_workers,
                mp_context=multiprocessing.get_context("forkserver"),
                initializer=_start_worker, initargs=(os.getpid(), self._warm_up))
        return self._pool

    async def _master(self, observation: Observation) -> int:
        pool = self._master_pool()
        self._master_waiting += 1
        began = time.monotonic()
        try:
            return await asyncio.get_running_loop().run_in_executor(
                pool, _master_move, observation, self.master_ms)
        finally:
            self._master_waiting -= 1
            if self.on_waited is not None:
                self.on_waited("master", time.monotonic() - began)
