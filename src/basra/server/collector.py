"""When the server's Python collects cyclic garbage.

CPython's cyclic collector runs by allocation counts. A server holding a thousand tables
makes a great many allocations, so the collector ran a few times a second, and now and
then a *full* collection walked every object of the process: 100 to 400 ms during which
no socket of that server was served. Those pauses made the slowest 1% of round trips
(``benchmarks/capacity.py``: p99 105 ms with them at 1,000 tables on two servers, 44 ms
with the collector off, and 8% less CPU).

So ``basra serve`` (and only it: tests and embedding programs keep Python's defaults)
runs :class:`Collector`:

- once the process has started (imports, migrations), what is alive is collected once
  and frozen (:func:`gc.freeze`): it lives as long as the process and is never walked
  again;
- young objects are collected every :data:`YOUNG` allocations (most garbage cycles are
  young: a task, a future, an exception with its traceback);
- full collections come only every :data:`FULL_EVERY` seconds, on a timer. What they find
  is what left memory meanwhile (a finished table and its sockets), so memory grows by at
  most that much between two.

``/healthz`` reports how many full collections ran and how long the last one took.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from typing import Any

__all__ = ["FULL_EVERY", "YOUNG", "Collector"]

YOUNG = 20_000
"""Allocations (less deallocations) between two collections of the youngest objects."""
MIDDLE = 20
"""Young collections between two collections of the middle generation."""
NEVER = 1_000_000_000
"""A count of middle collections never reached: no full collection but the timer's."""
FULL_EVERY = 600.0
"""Seconds between two full collections."""


class Collector:
    """The server's garbage-collection policy (see the module's description)."""

    def __init__(self, full_every: float = FULL_EVERY) -> None:
        self.full_every = full_every
        self.full_collections = 0
        self.last_full_ms: float | None = None
        self.frozen = 0
        self._previous: tuple[int, int, int] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Freeze what is alive now and take over the timing (in the running loop)."""
        if self._previous is not None:
            return
        gc.collect()
        gc.freeze()
        self.frozen = gc.get_freeze_count()
        self._previous = gc.get_threshold()
        gc.set_threshold(YOUNG, MIDDLE, NEVER)
        self._task = asyncio.create_task(self._full_collections(), name="basra-collector")

    async def stop(self) -> None:
        """Give Python its own timing back."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._previous is not None:
            gc.set_threshold(*self._previous)
            gc.unfreeze()
            self._previous = None

    def collect(self) -> None:
        """One full collection now, timed."""
        started = time.perf_counter()
        gc.collect()
        self.last_full_ms = round(1000 * (time.perf_counter() - started), 1)
        self.full_collections += 1

    async def _full_collections(self) -> None:
        while True:
            await asyncio.sleep(self.full_every)
            self.collect()

    def health(self) -> dict[str, Any]:
        return {"frozen_objects": self.frozen, "full_every_s": self.full_every,
                "full_collections": self.full_collections,
                "last_full_ms": self.last_full_ms}
