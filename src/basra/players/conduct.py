"""Conduct in rated play: what leaving a rated match costs. Pure rules, no I/O.

**No rating rises through plays its owner did not make, and leaving never scores better
than playing on and losing.** A human seat of a rated match that is gone past the grace
period (no connection for the server's ``away_after`` seconds, or out of time on its
turn) has

- **aborted** the match if it had not yet made a play of its own: the match is unrated
  for everyone (the computer may finish it);
- **forfeited** it otherwise: its side is ranked last (:func:`ranks_with_forfeits`); in a
  match of two sides (two players, or two partnerships) only the first side to go
  forfeits. The computer plays the seat on, and the forfeit stands if the player returns.

Either is an *abandon* of the account. Abandons within a day earn a wait before the next
rated seek, the *playban* (:func:`playban_seconds`)::

    abandons in the last 24 h    1     2       3        4        5      ...   11 and more
    wait after the latest        0     5 min   10 min   20 min   40 min ...   24 h (cap)

    wait = min(BASE * 2 ** (abandons - 2), CAP)     from the second abandon on

>>> ranks_with_forfeits([60, 104], winner=1, forfeits=[1])
[0, 1]
>>> playban_seconds([0.0, 100.0], now=160.0)
240
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .ratings import ranks_from_totals

__all__ = [
    "PLAYBAN",
    "PlaybanRule",
    "playban_seconds",
    "ranks_with_forfeits",
    "recent",
]


@dataclass(frozen=True)
class PlaybanRule:
    """How abandons turn into waits: within ``window`` seconds, the ``free``-th abandon
    and every later one earn a wait of ``base`` seconds, doubled for each abandon beyond
    it, at most ``cap`` seconds, counted from the latest abandon. ``base`` 0: no waits."""

    window: float = 24 * 3600.0
    free: int = 1
    """Abandons within the window that cost nothing (one accident a day is forgiven)."""
    base: float = 300.0
    cap: float = 24 * 3600.0

    def wait(self, abandons: int) -> float:
        """The wait that ``abandons`` within the window earn, in seconds.

        >>> [PLAYBAN.wait(n) / 60 for n in range(1, 6)]
        [0.0, 5.0, 10.0, 20.0, 40.0]
        >>> PLAYBAN.wait(30) / 3600
        24.0
        """
        if abandons <= self.free or self.base <= 0:
            return 0.0
        doublings = abandons - self.free - 1
        if doublings >= 64:
            return self.cap
        return float(min(self.base * 2 ** doublings, self.cap))


PLAYBAN = PlaybanRule()
"""The default rule (the server's ``HubSettings`` may change it)."""


def recent(times: Sequence[float], now: float, rule: PlaybanRule = PLAYBAN) -> list[float]:
    """The abandon times (seconds) within the rule's window before ``now``, oldest first.

    >>> recent([10.0, 90_000.0, 5.0], now=90_100.0)
    [90000.0]
    """
    return sorted(t for t in times if now - rule.window < t <= now)


def playban_seconds(times: Sequence[float], now: float, rule: PlaybanRule = PLAYBAN) -> int:
    """Seconds an account whose abandons were at ``times`` must still wait at ``now``
    before a rated seek (0: it may seek now), rounded up.

    >>> playban_seconds([0.0], now=1.0)
    0
    >>> playban_seconds([0.0, 10.0, 20.0], now=20.0)
    600
    >>> playban_seconds([0.0, 10.0], now=10.0 + 300.0)
    0
    """
    kept = recent(times, now, rule)
    wait = rule.wait(len(kept))
    if not kept or wait <= 0:
        return 0
    return max(0, math.ceil(kept[-1] + wait - now))


def ranks_with_forfeits(totals: Sequence[int], winner: int, forfeits: Sequence[int]
                        ) -> list[int]:
    """Places of the sides of a finished rated match (0 best) when ``forfeits`` (sides, in
    the order they went) forfeited it: every side that stayed ranks above every side that
    forfeited, the stayers by :func:`~basra.players.ratings.ranks_from_totals` among
    themselves, the forfeiters in reverse order of going (the first to go ranks last).

    >>> ranks_with_forfeits([40, 51, 60], winner=2, forfeits=[2])
    [1, 0, 2]
    >>> ranks_with_forfeits([40, 51, 60, 12], winner=2, forfeits=[1, 3])
    [1, 3, 0, 2]
    >>> ranks_with_forfeits([95, 104, 95], winner=1, forfeits=[])
    [1, 0, 1]
    """
    base = ranks_from_totals(totals, winner)
    gone = list(dict.fromkeys(forfeits))
    for side in gone:
        if not 0 <= side < len(totals):
            raise ValueError(f"forfeit side {side!r} is not a side of totals {list(totals)!r}")
    stayed = [side for side in range(len(totals)) if side not in gone]
    ranks = [0] * len(totals)
    for side in stayed:
        ranks[side] = sum(base[other] < base[side] for other in stayed)
    for order, side in enumerate(gone):
        ranks[side] = len(stayed) + len(gone) - 1 - order
    return ranks
