"""Rate limits per client address, on the well-kept ``limits`` library.

Each kind of request (``create``: a new table; ``join``: taking a seat) has its own
limits, such as ``"20/minute;200/hour"``. Counts live in memory by default; a
``storage`` URI such as ``redis://localhost:6379`` shares them between server processes.
Counting is asynchronous (the library's asyncio strategies): a server never stops
serving its sockets while Redis answers.

>>> import asyncio
>>> limiter = RateLimits({"create": "2/minute"})
>>> async def three() -> list[str | None]:
...     return [await limiter.hit("create", "10.0.0.1") for _ in range(3)]
>>> for answer in asyncio.run(three()):
...     print(answer)
None
None
too many new tables from 10.0.0.1: at most 2 per 1 minute
>>> print(asyncio.run(limiter.hit("create", "10.0.0.2")))
None
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from limits import RateLimitItem

__all__ = ["ACCOUNT_LIMITS", "DEFAULT_LIMITS", "STUDY_LIMITS", "TOKEN_LIMITS", "RateLimited",
           "RateLimits", "parse_limits"]

log = logging.getLogger("basra.server")

DEFAULT_LIMITS = {"create": "20/minute;300/day", "join": "60/minute", "socket": "240/minute"}
"""Per client address: new tables (quick games included), seats taken, and table sockets
opened.

(The ``limits`` library is imported on first use: the ``basra`` command shows these
defaults without loading it.)"""

ACCOUNT_LIMITS = {"signup": "10/minute;100/day", "login": "20/minute;300/hour"}
"""Per client address: sign-ups, and log-in attempts (right or wrong). ``create_app``'s
``rate_limits`` may set other rates under these names."""

STUDY_LIMITS = {"analysis": "10/hour;30/day", "analysis_account": "20/day",
                "hint": "30/minute", "hint_seat": "10/minute"}
"""Analyses asked for (``analysis``: per client address; ``analysis_account``: per
account, wherever it asks from) and hints (``hint``: per client address; ``hint_seat``:
per seat, counted at the server that owns the table). ``create_app`` adds them to its
``rate_limits`` unless those set them."""

TOKEN_LIMITS = {"token": "20/second;2400/minute"}
"""Per personal access token (``token:ID``), wherever it is used from: every request
that carries it. ``create_app`` adds it to its ``rate_limits`` unless those set it."""

_WHAT = {"token": "requests", "create": "new tables", "join": "seats taken",
         "socket": "table sockets opened", "analysis": "analyses",
         "analysis_account": "analyses", "hint": "hints", "hint_seat": "hints"}


class RateLimited(Exception):
    """A request over its limit; ``retry_after`` is in whole seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def parse_limits(text: str) -> list[RateLimitItem]:
    """``"20/minute;300/day"`` as limit items; ``ValueError`` names a bad text."""
    from limits import parse_many

    try:
        items = parse_many(text)
    except ValueError:
        items = []
    if not items:
        raise ValueError(f"bad rate limit {text!r}; expected e.g. 20/minute or "
                         "20/minute;300/day")
    return list(items)


def async_storage(storage: str) -> str:
    """The ``limits`` URI of a storage's asyncio variant: ``memory://`` ->
    ``async+memory://``, ``redis://HOST`` -> ``async+redis://HOST``.

    >>> async_storage("redis://localhost:6379/0")
    'async+redis://localhost:6379/0'
    """
    return storage if storage.startswith("async+") else f"async+{storage}"


class RateLimits:
    """Counts requests per kind and client address, refusing those over a limit."""

    def __init__(self, limits: Mapping[str, str] = DEFAULT_LIMITS,
                 storage: str = "memory://") -> None:
        from limits.aio.strategies import MovingWindowRateLimiter
        from limits.storage import storage_from_string

        self.limits = {kind: parse_limits(text) for kind, text in limits.items()}
        uri = async_storage(storage)
        options: dict[str, Any] = {}
        if uri.startswith(("async+redis://", "async+rediss://")):
            from .cluster import redis_pool

            options = {"implementation": "redispy",
                       "connection_pool": redis_pool(uri.removeprefix("async+"))}
        self._limiter = MovingWindowRateLimiter(storage_from_string(uri, **options))
        self._locks: dict[str, asyncio.Lock] = {}
        self.storage_errors = 0
        """Counts that failed because the storage did (those requests went on)."""
        self.on_refused: Callable[[str], None] | None = None
        """Called with the kind of each request refused (the server's metrics)."""

    async def hit(self, kind: str, address: str) -> str | None:
        """Count one request; the reason it is refused, or None when it may go on."""
        try:
            await self.check(kind, address)
        except RateLimited as refused:
            return str(refused)
        return None

    async def check(self, kind: str, address: str) -> None:
        """Count one request, or raise :class:`RateLimited` (counting nothing). When the
        storage fails (Redis is unreachable), the request goes on uncounted, and the
        failure is logged: the limits guard against abuse, and must not take the site
        down with them."""
        try:
            await self._count(kind, address)
        except RateLimited:
            raise
        except Exception as error:
            self.storage_errors += 1
            if self.storage_errors == 1 or self.storage_errors % 1000 == 0:
                log.error("rate limits cannot be counted (%s failures so far): %s",
                          self.storage_errors, error)

    async def _count(self, kind: str, address: str) -> None:
        items = self.limits.get(kind, [])
        if len(items) == 1:  # one limit: counted, or refused, in one step
            if not await self._limiter.hit(items[0], kind, address):
                await self._refuse(kind, address, items[0])
            return
        # several limits: tested, then counted, with no other request of this kind in
        # between (else a burst would pass the tests together before any is counted)
        async with self._locks.setdefault(kind, asyncio.Lock()):
            for item in items:
                if not await self._limiter.test(item, kind, address):
                    await self._refuse(kind, address, item)
            for item in items:
                await self._limiter.hit(item, kind, address)

    async def _refuse(self, kind: str, address: str, item: RateLimitItem) -> None:
        if self.on_refused is not None:
            self.on_refused(kind)
        reset = (await self._limiter.get_window_stats(item, kind, address)).reset_time
        raise RateLimited(
            f"too many {_WHAT.get(kind, kind)} from {address}: at most "
            f"{item.amount} per {item.multiples} {item.GRANULARITY.name}",
            max(1, math.ceil(reset - time.time())))
