"""The seek pool: players waiting for a game, and the tables that can be made of them.

A :class:`Seek` asks for a game of one pool (a variant and a player count, see
:mod:`basra.players.ratings`), rated or casual. :meth:`Matchmaker.pair` makes tables of the seeks
that fit together; the server calls it every second or so and opens a table for each
:class:`Pairing` it returns. Nothing here does I/O or reads the clock: the caller passes
``now`` (seconds, on the clock of ``Seek.created_at``).

**Who may sit together.** Seeks pair only with seeks of the same pool and the same rated
flag, never with another seek of the same player, and never with a player either one
avoids (``Seek.avoids``: the accounts a player blocked or was blocked by). Each seek has
a rating range that widens while it waits; a table forms only if every member's rating
is within every other member's range::

    waited     0-5 s   5-10 s   10-15 s   ...   55-60 s   60 s and more
    range      ±100    ±150     ±200      ...   ±650      unlimited

    range = BASE_RANGE + RANGE_STEP * (waited // STEP_SECONDS), unlimited after UNLIMITED_AFTER

**One address.** Seeks from the same network address (``Seek.address``) are kept apart
while others wait: a seek takes a table of seeks from other addresses if one fits; for
two players it otherwise waits while any seek from another address waits in its group,
and only then sits with one from its own address; for three or four it then takes the
closest table it can. The computer fills a table rather than a seek from the asker's
address (:meth:`Matchmaker.expand_with_computer`).

**Who goes first.** Seeks are served oldest first: each in turn gets the closest table it
can have (the nearest rating for two players; for three or four, the smallest spread of
ratings among the :data:`NEAREST` compatible seeks closest to it, then the longest
waiting). A seek is seated at most once; when a player is seated, their other seeks (in
other pools) leave the pool too.

**Seats.** Members sit in the order they started waiting, except in partnerships (four
players in a preset with partners): there the two teams, seats 0 & 2 and 1 & 3, are the
split of the four with the closest rating sums; the longest-waiting seek sits at seat 0.

**The computer.** A player tired of waiting may fill the empty seats with computer players
(:meth:`Matchmaker.expand_with_computer`); waiting seeks that said they would share a table
with the computer (``computer_fill``) and fit may join them.

>>> pool = Matchmaker()
>>> pool.add(Seek("s1", "ann", "Ann", 1520, "egyptian", 2, rated=True, created_at=0.0))
>>> pool.add(Seek("s2", "bob", "Bob", 1700, "egyptian", 2, rated=True, created_at=1.0))
>>> pool.pair(now=2.0)  # 180 apart: out of range for now
[]
>>> [p.names for p in pool.pair(now=11.0)]  # after 10 s both ranges are ±200
[('Ann', 'Bob')]
>>> len(pool)
0
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from basra.players.ratings import parse_pool, pool_key

__all__ = [
    "BASE_RANGE",
    "NEAREST",
    "RANGE_STEP",
    "STEP_SECONDS",
    "UNLIMITED_AFTER",
    "GuestRatedSeekError",
    "Matchmaker",
    "Pairing",
    "Seek",
    "SeekError",
    "UnknownSeekError",
    "balanced_teams",
    "rating_range",
    "same_address",
]

BASE_RANGE = 100
"""Rating points either side of a seek's own rating, at first."""
RANGE_STEP = 50
"""Added to the range every :data:`STEP_SECONDS` of waiting."""
STEP_SECONDS = 5.0
UNLIMITED_AFTER = 60.0
"""After this many seconds a seek takes any rating."""
NEAREST = 12
"""Compatible seeks considered around each seek for a three- or four-player table."""


class SeekError(ValueError):
    """A seek that cannot join the pool."""


class GuestRatedSeekError(SeekError):
    """A guest asked for a rated game: guests play casual games only."""


class UnknownSeekError(KeyError):
    """No waiting seek has this id (never added, cancelled or already seated)."""


def rating_range(waited: float) -> float:
    """How far from its rating a seek that has waited ``waited`` seconds takes players.

    >>> rating_range(0), rating_range(4.9), rating_range(5), rating_range(59.9), rating_range(60)
    (100, 100, 150, 650, inf)
    """
    if waited >= UNLIMITED_AFTER:
        return math.inf
    return BASE_RANGE + RANGE_STEP * int(max(0.0, waited) // STEP_SECONDS)


@dataclass(frozen=True)
class Seek:
    """A player waiting for a game of one pool.

    >>> Seek("s9", "guest:7", "Guest 7", 1500, "pasur", 3, rated=True, created_at=0.0,
    ...      guest=True)
    Traceback (most recent call last):
    ...
    basra.players.matchmaking.GuestRatedSeekError: seek 's9': guests play casual games only, ...
    """

    id: str
    player: str
    """The player's opaque key (a player may wait in several pools at once)."""
    name: str
    """The name shown to the others."""
    rating: int
    """The player's display rating in this pool (:attr:`basra.players.ratings.Rating.display`)."""
    variant: str
    players: int
    rated: bool
    created_at: float
    """When the seek started waiting, in seconds."""
    guest: bool = False
    computer_fill: bool = False
    """The player will share a table with computer players, when another waiting player
    asks for them (:meth:`Matchmaker.expand_with_computer`)."""
    avoids: frozenset[str] = frozenset()
    """The players (their keys) this player is never seated with."""
    address: str = ""
    """The network address the seek came from (empty: unknown); see "One address" in
    the module's docstring."""
    pool: str = field(init=False, repr=False, compare=False)
    """The pool's key, ``"{variant}-{players}"``."""

    def __post_init__(self) -> None:
        for name in ("id", "player"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise SeekError(f"seek {name} must be non-empty text, not {value!r}")
        if not isinstance(self.address, str):
            raise SeekError(f"seek {self.id!r}: address must be text, not {self.address!r}")
        for name in ("rated", "guest", "computer_fill"):
            if not isinstance(getattr(self, name), bool):
                raise SeekError(f"seek {self.id!r}: {name} must be true or false, "
                                f"not {getattr(self, name)!r}")
        if isinstance(self.rating, bool) or not isinstance(self.rating, int):
            raise SeekError(f"seek {self.id!r}: rating must be a whole number, "
                            f"not {self.rating!r}")
        if isinstance(self.created_at, bool) or not isinstance(self.created_at, int | float) \
                or not math.isfinite(self.created_at):
            raise SeekError(f"seek {self.id!r}: created_at must be a finite number of seconds, "
                            f"not {self.created_at!r}")
        if not isinstance(self.avoids, frozenset):
            raise SeekError(f"seek {self.id!r}: avoids must be a frozenset of player keys")
        if self.guest and self.rated:
            raise GuestRatedSeekError(
                f"seek {self.id!r}: guests play casual games only, not rated")
        try:
            key = pool_key(self.variant, self.players)
        except ValueError as error:
            raise SeekError(f"seek {self.id!r}: {error}") from None
        object.__setattr__(self, "pool", key)

    def waited(self, now: float) -> float:
        """Seconds this seek has waited at ``now`` (0 before it was made)."""
        return max(0.0, now - self.created_at)

    def range(self, now: float) -> float:
        """Its rating range at ``now``: :func:`rating_range` of its wait."""
        return rating_range(self.waited(now))


@dataclass(frozen=True)
class Pairing:
    """The seeks seated at one new table, in seat order; None is a computer's seat."""

    pool: str
    rated: bool
    seats: tuple[Seek | None, ...]

    @property
    def seeks(self) -> tuple[Seek, ...]:
        """The players' seeks, in seat order."""
        return tuple(seek for seek in self.seats if seek is not None)

    @property
    def names(self) -> tuple[str | None, ...]:
        """The name at each seat (None for a computer)."""
        return tuple(None if seek is None else seek.name for seek in self.seats)

    @property
    def partnership(self) -> bool:
        """Seats 0 & 2 and 1 & 3 play as teams."""
        return parse_pool(self.pool).partnership


def _may_meet(a: Seek, b: Seek) -> bool:
    """Whether two seeks may sit at one table: two players who avoid neither other.

    >>> ann = Seek("s1", "ann", "Ann", 1500, "egyptian", 2, False, 0.0, avoids=frozenset({"bob"}))
    >>> bob = Seek("s2", "bob", "Bob", 1500, "egyptian", 2, False, 0.0)
    >>> _may_meet(ann, bob), _may_meet(bob, bob)
    (False, False)
    """
    return a.player != b.player and a.player not in b.avoids and b.player not in a.avoids


def same_address(a: Seek, b: Seek) -> bool:
    """Whether two seeks came from one known network address.

    >>> same_address(Seek("s1", "ann", "Ann", 1500, "egyptian", 2, False, 0.0, address="10.0.0.7"),
    ...              Seek("s2", "bob", "Bob", 1500, "egyptian", 2, False, 0.0, address="10.0.0.7"))
    True
    """
    return bool(a.address) and a.address == b.address


def _apart(seeks: Sequence[Seek]) -> bool:
    """No two of the seeks share an address."""
    return not any(same_address(a, b) for a, b in itertools.combinations(seeks, 2))


def _compatible(a: Seek, b: Seek, now: float) -> bool:
    return _may_meet(a, b) and abs(a.rating - b.rating) <= min(a.range(now), b.range(now))


def _all_compatible(seeks: Sequence[Seek], now: float) -> bool:
    return all(_compatible(a, b, now) for a, b in itertools.combinations(seeks, 2))


def _by_age(seeks: Iterable[Seek]) -> list[Seek]:
    return sorted(seeks, key=lambda s: (s.created_at, s.id))


def balanced_teams(seeks: Sequence[Seek]) -> tuple[Seek, Seek, Seek, Seek]:
    """Four seeks in seat order for a partnership game: the split into two teams whose
    rating sums differ least (ties: the first found, oldest seek first), the oldest seek
    at seat 0 with its partner at seat 2, the older opponent at seat 1.

    >>> four = [Seek(f"s{r}", f"p{r}", f"P{r}", r, "egyptian", 4, True, float(i))
    ...         for i, r in enumerate((1500, 1510, 1900, 1880))]
    >>> [s.rating for s in balanced_teams(four)]
    [1500, 1510, 1900, 1880]
    """
    if len(seeks) != 4:
        raise ValueError(f"a partnership table seats 4, not {len(seeks)}")
    first, *others = _by_age(seeks)
    best: tuple[int, Seek, Seek, Seek] | None = None
    for partner in others:
        opponents = [s for s in others if s is not partner]
        gap = abs(first.rating + partner.rating - sum(s.rating for s in opponents))
        if best is None or gap < best[0]:
            best = (gap, partner, opponents[0], opponents[1])
    assert best is not None
    _, partner, left, right = best
    return first, left, partner, right


class Matchmaker:
    """The pool of waiting seeks. Not thread-safe: one caller (the server's loop) uses it."""

    def __init__(self) -> None:
        self._seeks: dict[str, Seek] = {}
        self._groups: dict[tuple[str, bool], dict[str, Seek]] = {}
        """Waiting seeks by (pool, rated), by id."""
        self._holders: dict[tuple[str, bool, str], str] = {}
        """The id of the seek of each (pool, rated, player)."""

    def __len__(self) -> int:
        return len(self._seeks)

    def __contains__(self, seek_id: object) -> bool:
        return seek_id in self._seeks

    @property
    def seeks(self) -> list[Seek]:
        """Every waiting seek, oldest first."""
        return _by_age(self._seeks.values())

    def get(self, seek_id: str) -> Seek:
        """The waiting seek of this id; :class:`UnknownSeekError` if there is none."""
        try:
            return self._seeks[seek_id]
        except KeyError:
            raise UnknownSeekError(f"no waiting seek {seek_id!r}") from None

    def add(self, seek: Seek) -> None:
        """Put a seek in the pool. Refuses a taken id, and a second seek of one player for
        the same pool and rated flag."""
        if seek.id in self._seeks:
            raise SeekError(f"seek {seek.id!r} is already waiting")
        holder = (seek.pool, seek.rated, seek.player)
        if holder in self._holders:
            kind = "rated" if seek.rated else "casual"
            raise SeekError(f"player {seek.player!r} already waits for a {kind} {seek.pool} "
                            f"game (seek {self._holders[holder]!r})")
        self._seeks[seek.id] = seek
        self._groups.setdefault((seek.pool, seek.rated), {})[seek.id] = seek
        self._holders[holder] = seek.id

    def cancel(self, seek_id: str) -> bool:
        """Take a seek out of the pool; False if it was not waiting (already seated,
        cancelled, or never added)."""
        seek = self._seeks.pop(seek_id, None)
        if seek is None:
            return False
        del self._holders[seek.pool, seek.rated, seek.player]
        group = self._groups[seek.pool, seek.rated]
        del group[seek_id]
        if not group:
            del self._groups[seek.pool, seek.rated]
        return True

    def waiting_for(self, seek_id: str, now: float) -> float:
        """Seconds the seek has waited at ``now``.

        >>> pool = Matchmaker()
        >>> pool.add(Seek("s1", "ann", "Ann", 1500, "egyptian", 2, False, created_at=10.0))
        >>> pool.waiting_for("s1", now=42.5)
        32.5
        """
        return self.get(seek_id).waited(now)

    def pair(self, now: float) -> list[Pairing]:
        """Make every table the waiting seeks allow at ``now``, and take their seeks (and
        their players' other seeks) out of the pool.

        Groups are served in the order of their oldest seek; within a group, seeks are
        served oldest first (see the module's docstring).
        """
        groups = sorted(self._groups.items(),
                        key=lambda item: min((s.created_at, s.id) for s in item[1].values()))
        seated: set[str] = set()
        pairings: list[Pairing] = []
        for (pool, rated), group in groups:
            pairings.extend(self._pair_group(pool, rated, list(group.values()), now, seated))
        for pairing in pairings:
            for seek in pairing.seeks:
                self.cancel(seek.id)
        for seek in [s for s in self._seeks.values() if s.player in seated]:
            self.cancel(seek.id)
        return pairings

    def _pair_group(self, pool: str, rated: bool, group: list[Seek], now: float,
                    seated: set[str]) -> list[Pairing]:
        found = parse_pool(pool)
        size = found.players
        if len(group) < size:
            return []
        members = sorted(group, key=lambda s: (s.rating, s.created_at, s.id))
        ratings = [s.rating for s in members]
        ranges = [s.range(now) for s in members]
        position = {s.id: index for index, s in enumerate(members)}
        free = list(range(len(members)))  # indices into members (rating order) not yet seated
        pairings = []
        for seek in _by_age(group):
            if len(free) < size:
                break
            me = position[seek.id]
            at = bisect_left(free, me)
            if at == len(free) or free[at] != me or seek.player in seated:
                continue
            near = self._nearest(members, ratings, ranges, free, at, NEAREST, seated)
            if len(near) < size - 1:
                continue
            picked = _pick(members, ratings, ranges, me, near, size - 1, apart=True)
            if picked is None and (size > 2 or not any(
                    not same_address(seek, members[j]) and _may_meet(seek, members[j])
                    and members[j].player not in seated for j in free if j != me)):
                # Nobody from another address waits (two players), or the table cannot be
                # made of seeks from different addresses (more): one address may share it.
                picked = _pick(members, ratings, ranges, me, near, size - 1, apart=False)
            if picked is None:
                continue
            table = [seek, *(members[j] for j in picked)]
            for j in (me, *picked):
                del free[bisect_left(free, j)]
            seated.update(s.player for s in table)
            seats: tuple[Seek, ...] = (
                balanced_teams(table) if found.partnership else tuple(_by_age(table)))
            pairings.append(Pairing(pool, rated, seats))
        return pairings

    @staticmethod
    def _nearest(members: list[Seek], ratings: list[int], ranges: list[float],
                 free: list[int], at: int, limit: int, seated: set[str]) -> list[int]:
        """Up to ``limit`` free seeks compatible with ``members[free[at]]``, nearest rating
        first (at equal distance, the older)."""
        me = free[at]
        rating, reach, seeker = ratings[me], ranges[me], members[me]
        low, high = at - 1, at + 1
        near: list[int] = []
        while len(near) < limit and (low >= 0 or high < len(free)):
            below = rating - ratings[free[low]] if low >= 0 else math.inf
            above = ratings[free[high]] - rating if high < len(free) else math.inf
            take_low = below < above or (
                below == above and members[free[low]].created_at <= members[free[high]].created_at)
            distance = min(below, above)
            if distance > reach:  # the nearer side: every seek further on is out of range
                break
            if take_low:
                j = free[low]
                low -= 1
            else:
                j = free[high]
                high += 1
            other = members[j]
            if distance <= ranges[j] and _may_meet(other, seeker) \
                    and other.player not in seated:
                near.append(j)
        return near

    def expand_with_computer(self, seek_id: str, now: float) -> Pairing:
        """A table for this seek now, its empty seats filled with computer players (None).

        Waiting seeks of the same pool and rated flag that accept the computer
        (``computer_fill``) and fit (every rating within every range) take seats too, the
        closest ratings first. The asker sits at seat 0, the others by waiting time. Their
        seeks, and their players' other seeks, leave the pool.

        >>> pool = Matchmaker()
        >>> pool.add(Seek("s1", "ann", "Ann", 1500, "egyptian", 4, False, created_at=0.0))
        >>> pool.add(Seek("s2", "bob", "Bob", 1550, "egyptian", 4, False, created_at=5.0,
        ...               computer_fill=True))
        >>> pool.expand_with_computer("s1", now=30.0).names
        ('Ann', 'Bob', None, None)
        """
        seek = self.get(seek_id)
        size = parse_pool(seek.pool).players
        others = [s for s in self._groups[seek.pool, seek.rated].values()
                  if s.computer_fill and s.id != seek.id and _compatible(seek, s, now)
                  and not same_address(seek, s)]
        others.sort(key=lambda s: (abs(s.rating - seek.rating), s.created_at, s.id))
        others = others[:NEAREST]
        joining: tuple[Seek, ...] = ()
        for count in range(min(size - 1, len(others)), 0, -1):
            fits = [c for c in itertools.combinations(others, count)
                    if _all_compatible(c, now) and _apart(c)]
            if fits:
                joining = min(fits, key=lambda c: (
                    _spread((seek, *c)), sum(s.created_at for s in c)))
                break
        seats: list[Seek | None] = [seek, *_by_age(joining)]
        seats += [None] * (size - len(seats))
        players = {s.player for s in seats if s is not None}
        for waiting in [s for s in self._seeks.values() if s.player in players]:
            self.cancel(waiting.id)
        return Pairing(seek.pool, seek.rated, tuple(seats))


def _pick(members: list[Seek], ratings: list[int], ranges: list[float], me: int,
          near: list[int], count: int, apart: bool) -> tuple[int, ...] | None:
    """The ``count`` seeks of ``near`` (nearest rating first) to seat with ``me``: for two
    players the nearest, else :func:`_closest_group`; with ``apart``, only seeks whose
    addresses differ from each other's and from ``me``'s."""
    if apart:
        near = [j for j in near if not same_address(members[me], members[j])]
    if len(near) < count:
        return None
    if count == 1:
        return (near[0],)
    return _closest_group(members, ratings, ranges, me, near, count, apart)


def _spread(seeks: Sequence[Seek]) -> int:
    ratings = [s.rating for s in seeks]
    return max(ratings) - min(ratings)


def _closest_group(members: list[Seek], ratings: list[int], ranges: list[float], me: int,
                   near: list[int], count: int, apart: bool = False) -> tuple[int, ...] | None:
    """The ``count`` seeks of ``near`` that with ``me`` are all within each other's ranges
    and have the smallest spread of ratings (then the longest waits); None if none fit.
    With ``apart``, no two of them share an address.

    A depth-first search over ``near`` in rating order, which stops a branch as soon as its
    spread is beyond the best found (every later seek is higher rated)."""
    candidates = sorted(near, key=lambda j: (ratings[j], members[j].created_at))
    size = len(candidates)
    fits = [[_may_meet(members[a], members[b])
             and abs(ratings[a] - ratings[b]) <= min(ranges[a], ranges[b])
             and not (apart and same_address(members[a], members[b]))
             for b in candidates] for a in candidates]
    best: tuple[int, float] | None = None
    best_group: tuple[int, ...] | None = None
    chosen: list[int] = []

    def search(start: int, low: int, high: int, started: float) -> None:
        nonlocal best, best_group
        if len(chosen) == count:
            score = (high - low, started)
            if best is None or score < best:
                best, best_group = score, tuple(candidates[t] for t in chosen)
            return
        for t in range(start, size - (count - len(chosen)) + 1):
            rating = ratings[candidates[t]]
            spread = max(high, rating) - min(low, rating)
            if best is not None and spread > best[0]:
                if rating >= high:
                    break  # every later seek rates as high or higher: no better spread
                continue
            if all(fits[t][u] for u in chosen):
                chosen.append(t)
                search(t + 1, min(low, rating), max(high, rating),
                       started + members[candidates[t]].created_at)
                chosen.pop()

    search(0, ratings[me], ratings[me], 0.0)
    return best_group
