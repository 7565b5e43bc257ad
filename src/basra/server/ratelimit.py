"""Rate limits per client address, on the well-kept ``limits`` library.

Each kind of request (``create``: a new table; ``join``: taking a seat) has its own
limits, such as ``"20/minute;200/hour"``. Counts live in memory by default; a
``storage`` URI such as ``redis://localhost:6379`` shares them between server processes.

>>> limiter = RateLimits({"create": "2/minute"})
>>> limiter.hit("create", "10.0.0.1"), limiter.hit("create", "10.0.0.1")
(None, None)
>>> print(limiter.hit("create", "10.0.0.1"))
too many new tables from 10.0.0.1: at most 2 per 1 minute
>>> print(limiter.hit("create", "10.0.0.2"))
None
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from limits import RateLimitItem

__all__ = ["ACCOUNT_LIMITS", "DEFAULT_LIMITS", "RateLimited", "RateLimits", "parse_limits"]

DEFAULT_LIMITS = {"create": "20/minute;300/day", "join": "60/minute", "socket": "240/minute"}
"""Per client address: new tables (quick games included), seats taken, and table sockets
opened.

(The ``limits`` library is imported on first use: the ``basra`` command shows these
defaults without loading it.)"""

ACCOUNT_LIMITS = {"signup": "10/minute;100/day", "login": "20/minute;300/hour"}
"""Per client address: sign-ups, and log-in attempts (right or wrong). ``create_app``'s
``rate_limits`` may set other rates under these names."""

_WHAT = {"create": "new tables", "join": "seats taken", "socket": "table sockets opened"}


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


class RateLimits:
    """Counts requests per kind and client address, refusing those over a limit."""

    def __init__(self, limits: Mapping[str, str] = DEFAULT_LIMITS,
                 storage: str = "memory://") -> None:
        from limits.storage import storage_from_string
        from limits.strategies import MovingWindowRateLimiter

        self.limits = {kind: parse_limits(text) for kind, text in limits.items()}
        self._limiter = MovingWindowRateLimiter(storage_from_string(storage))

    def hit(self, kind: str, address: str) -> str | None:
        """Count one request; the reason it is refused, or None when it may go on."""
        try:
            self.check(kind, address)
        except RateLimited as refused:
            return str(refused)
        return None

    def check(self, kind: str, address: str) -> None:
        """Count one request, or raise :class:`RateLimited` (counting nothing)."""
        items = self.limits.get(kind, [])
        for item in items:
            if not self._limiter.test(item, kind, address):
                reset = self._limiter.get_window_stats(item, kind, address).reset_time
                raise RateLimited(
                    f"too many {_WHAT.get(kind, kind)} from {address}: at most "
                    f"{item.amount} per {item.multiples} {item.GRANULARITY.name}",
                    max(1, math.ceil(reset - time.time())))
        for item in items:
            self._limiter.hit(item, kind, address)
