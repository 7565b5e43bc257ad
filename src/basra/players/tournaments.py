"""Tournaments: Swiss pairings and tie-breaks, arena pairings and streaks, points by rank.

Nothing here does I/O or reads the clock: the caller (the tournament director) passes the
entrants, the finished rounds or the players waiting now, and stores what comes back.
An *entrant* is one player, or, in a partnership preset, one team of two (teams are
paired as players are in a two-player game).

**Points** are the same in Swiss events and arenas: a game's entrants score by their rank,
2 for the first, 0 for the last, evenly between; tied entrants share the places they
cover. A two-player game is 2 for a win, 1 for a draw, 0 for a loss::

    entrants   1st   2nd   3rd       ranks (0, 0)      ranks (0, 0, 2)   ranks (0, 1, 1)
    2          2     0               1, 1 (a draw)     -                 -
    3          2     1     0         -                 1.5, 1.5, 0       2, 0.5, 0.5

A Swiss **bye** is worth a win: :data:`BYE_POINTS`, 2.

**Swiss pairing** (:func:`pair_swiss`) follows the FIDE Dutch system where it applies to a
game without colours. Entrants are ordered by score, then rating, then name. If the count
is odd, the bye goes to the lowest in that order who has not had one and without whom the
others can still be paired (never twice to one entrant; if every entrant has had one, the
count is treated as if no one had). The rest are paired by a maximum-weight matching
(``networkx.max_weight_matching``, largest cardinality first) whose weights encode, in
strict order of priority:

1. never the same pair twice (the edge is absent; only when no pairing avoids a repeat
   is one allowed, as few as possible, costing more than all below);
2. pair within a score group: a pair's score difference costs its square, so a group
   with an odd count floats one entrant to the next group down rather than two, or one
   two groups down;
3. floats as low as possible: a float costs the higher score, so a group that can pair
   within itself does, and a lower group's entrants float instead;
4. the Dutch order: in a score group of ``m`` the ``k``-th meets the ``k + m // 2``-th
   (top half against bottom half); a shift from that costs twice its square, plus one
   if the partner is nearer than the Dutch one (a transposition within the bottom half
   comes before an exchange between the halves, as in the Dutch system); an entrant
   floating down meets the nearest in the order (the lowest of a group meets the
   highest of the group below; two floating meet the two highest in order).

Each entrant is joined only to candidates near it in the order (its neighbours, its
Dutch partner's neighbours); if that matching leaves someone out, the neighbourhoods
widen until the whole graph is tried. Three-player games are made of threes in the same
order: each table takes the highest entrant left and the next two who have met neither
it nor each other (if that fails, each seat takes the first who has met the fewest), the
byes (one or two) going to the lowest as above.

**Tie-breaks** (:func:`swiss_standings`), after the score, in this order:

- *Buchholz*: the sum of the final scores of every opponent met in every game. A bye
  counts as opponents (one in a two-player game, two in a three-player game) whose score
  is the entrant's own, so a bye neither helps nor hurts it (FIDE's virtual opponent,
  simplified).
- *Sonneborn-Berger*: the sum of the final scores of the opponents finished ahead of,
  and half the scores of those tied with; a bye adds nothing.

then rating and name, so that the order is total. In a two-player Swiss these are the
classical definitions (on the 2/1/0 scale).

**Arena** (:func:`pair_arena`, :func:`arena_points`): players are paired as soon as they
finish a game; each wave pairs the players waiting now, ordered by arena score, rating
and key, each with the nearest waiting players in that order, skipping those it played
in its last game. Two who just played each other wait for someone else, unless they are
the only two unpaused players in the arena (the caller passes that count). Paused
players are never paired. Points per game are the points by rank above; after two wins
in a row a player is *on fire* and every game scores double (4 a win, 2 a draw) until a
game that is not a win (which still scores double), as on lichess. In a three-player
game a win is finishing first alone.

>>> alice, bob = Entrant("a", "Alice", 1600), Entrant("b", "Bob", 1500)
>>> carol = Entrant("c", "Carol", 1400)
>>> pair_swiss([alice, bob, carol], [])
SwissPairing(tables=(('a', 'b'),), byes=('c',))
>>> first = SwissRound((Game(("a", "b"), (1, 0)),), byes=("c",))
>>> pair_swiss([alice, bob, carol], [first])  # c had the bye; a and b have met
SwissPairing(tables=(('b', 'c'),), byes=('a',))
>>> arena_points([2, 2, 2, 1, 2])
(2, 2, 4, 2, 2)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx  # type: ignore[import-untyped]

__all__ = [
    "BYE_POINTS",
    "DRAW_POINTS",
    "FIRE_AFTER",
    "WIN_POINTS",
    "ArenaPlayer",
    "Entrant",
    "Game",
    "GameResultError",
    "Standing",
    "SwissPairing",
    "SwissRound",
    "arena_points",
    "on_fire",
    "pair_arena",
    "pair_swiss",
    "rank_points",
    "swiss_standings",
]

WIN_POINTS = 2
"""Points for finishing first alone (a two-player game's win)."""
DRAW_POINTS = 1
"""Points for a two-player draw."""
BYE_POINTS = WIN_POINTS
"""Points for a Swiss bye: a win's."""
FIRE_AFTER = 2
"""Wins in a row after which an arena player's games score double."""
NEAR = 6
"""Neighbours in the order each Swiss entrant is joined to at first (widened if needed)."""

Points = float
"""Points in halves: 2, 1.5, 1, 0.5 or 0 a game (exact as floats)."""


class GameResultError(ValueError):
    """A game's ranks that do not fit its entrants."""


@dataclass(frozen=True)
class Entrant:
    """One entrant: a player, or a team of two in a partnership preset.

    ``key`` is opaque (an account, a computer level's name, a team's key); ``rating`` is
    the display rating in the tournament's pool (for a team, its members' mean).
    """

    key: str
    name: str
    rating: int


@dataclass(frozen=True)
class Game:
    """A finished game: its entrants and each one's rank (0 first; ties share the best).

    >>> Game(("a", "b"), (0, 0)).points()  # a draw
    (1.0, 1.0)
    """

    entrants: tuple[str, ...]
    ranks: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.entrants) != len(self.ranks) or len(set(self.entrants)) != len(
            self.entrants
        ):
            raise GameResultError(f"game {self.entrants!r}: ranks {self.ranks!r} do not fit")
        rank_points(self.ranks)

    def points(self) -> tuple[Points, ...]:
        """Each entrant's points, in the order of :attr:`entrants`."""
        return rank_points(self.ranks)


@dataclass(frozen=True)
class SwissRound:
    """A finished Swiss round: its games and who had a bye."""

    games: tuple[Game, ...]
    byes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SwissPairing:
    """The next Swiss round: tables in order (the highest first), and the byes."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...]


@dataclass(frozen=True)
class Standing:
    """One line of a Swiss event's standings."""

    rank: int
    key: str
    name: str
    score: Points
    buchholz: Points
    sonneborn_berger: Points
    games: int
    byes: int


@dataclass(frozen=True)
class ArenaPlayer:
    """An arena player, for a wave of pairing: its standing and its last game's opponents."""

    key: str
    rating: int
    score: Points
    last_opponents: frozenset[str] = frozenset()
    paused: bool = False


def rank_points(ranks: Sequence[int]) -> tuple[Points, ...]:
    """Points by rank for one game: 2 for the first, 0 for the last; ties share.

    >>> rank_points((1, 0)), rank_points((0, 0)), rank_points((2, 0, 1)), rank_points((0, 0, 2))
    ((0.0, 2.0), (1.0, 1.0), (0.0, 2.0, 1.0), (1.5, 1.5, 0.0))
    """
    count = len(ranks)
    if count < 2:
        raise GameResultError(f"ranks {tuple(ranks)!r}: a game has two entrants or more")
    ordered = sorted(ranks)
    if any(ordered[place] != ordered.index(ordered[place]) for place in range(count)):
        raise GameResultError(f"ranks {tuple(ranks)!r}: ties share the best rank (0, 0, 2)")
    per_place = [WIN_POINTS * (count - 1 - place) / (count - 1) for place in range(count)]
    points = []
    for rank in ranks:
        tied = ranks.count(rank)
        points.append(sum(per_place[rank : rank + tied]) / tied)
    return tuple(points)


# Swiss ---------------------------------------------------------------------------------


def _history(
    rounds: Sequence[SwissRound],
) -> tuple[dict[str, Points], set[frozenset[str]], dict[str, int]]:
    """Scores, the pairs that have met, and each entrant's count of byes."""
    score: dict[str, Points] = defaultdict(float)
    met: set[frozenset[str]] = set()
    byes: dict[str, int] = defaultdict(int)
    for played in rounds:
        for game in played.games:
            for key, points in zip(game.entrants, game.points(), strict=True):
                score[key] += points
            for first in game.entrants:
                for second in game.entrants:
                    if first < second:
                        met.add(frozenset((first, second)))
        for key in played.byes:
            score[key] += BYE_POINTS
            byes[key] += 1
    return score, met, byes


def pair_swiss(
    entrants: Iterable[Entrant],
    rounds: Sequence[SwissRound],
    players: int = 2,
    apart: Iterable[frozenset[str]] = (),
) -> SwissPairing:
    """Pair the next round of a Swiss event (see the module's docstring).

    ``entrants`` are those still in the event; ``rounds`` every finished round (they may
    name entrants who withdrew). ``players`` is the entrants per game, 2 or 3 (teams
    count as one). ``apart`` are pairs kept apart as if they had met (one blocked the
    other). When no pairing avoids every repeat, repeats are allowed: as few as
    possible for two, the fewest at each seat for three.

    >>> a, b, c, d = (Entrant(k, k, 1500) for k in "abcd")
    >>> pair_swiss([a, b, c, d], [], apart=[frozenset("ac")]).tables
    (('a', 'd'), ('b', 'c'))
    """
    if players not in (2, 3):
        raise ValueError(f"players {players!r}: Swiss games have 2 or 3 entrants")
    score, met, byes = _history(rounds)
    met |= set(apart)
    order = sorted(entrants, key=lambda e: (-score[e.key], -e.rating, e.name, e.key))
    keys = [entrant.key for entrant in order]
    bye_count = len(keys) % players
    eligible = [key for key in reversed(keys) if byes[key] == 0]
    if len(eligible) < bye_count:
        eligible = list(reversed(keys))
    pair = _pair_two if players == 2 else _pair_three
    for repeat in (False, True):
        for bye_keys in _bye_choices(eligible, bye_count):
            rest = [key for key in keys if key not in bye_keys]
            tables = pair(rest, score, met, repeat)
            if tables is not None:
                return SwissPairing(tuple(tables), tuple(k for k in keys if k in bye_keys))
    raise AssertionError("pairing without the repeat rule always succeeds")


def _bye_choices(eligible: Sequence[str], count: int) -> Iterable[tuple[str, ...]]:
    """The byes to try, lowest first: ``eligible`` is ordered from the lowest."""
    if count == 0:
        yield ()
    elif count == 1:
        yield from ((key,) for key in eligible)
    else:
        for second in range(1, len(eligible)):
            for first in range(second):
                yield (eligible[first], eligible[second])


def _pair_two(
    keys: Sequence[str], score: Mapping[str, Points], met: set[frozenset[str]], repeat: bool
) -> list[tuple[str, ...]] | None:
    """The Dutch pairing of ``keys`` (ordered), or None if no perfect pairing exists.

    Pairs that have met are left out, or with ``repeat`` cost more than all else.
    """
    count = len(keys)
    if count == 0:
        return []
    doubled = [round(2 * score[key]) for key in keys]
    start: dict[int, int] = {}
    size: dict[int, int] = defaultdict(int)
    for index, value in enumerate(doubled):
        start.setdefault(value, index)
        size[value] += 1
    order_unit = 1
    float_unit = order_unit * (2 * count**3 + 1)
    score_unit = float_unit * (count * (doubled[0] + 1) + 1)
    repeat_unit = score_unit * (count * (doubled[0] - doubled[-1] + 1) ** 2 + 1)
    top = repeat_unit * (count + 1)

    def weight(first: int, second: int) -> int:
        high, low = doubled[first], doubled[second]
        if high == low:
            shift = second - first - size[high] // 2
            cost = (2 * shift * shift + (shift < 0)) * order_unit
        else:
            cost = (high - low) ** 2 * score_unit + high * float_unit
            cost += (second - first) ** 2 * order_unit
        if frozenset((keys[first], keys[second])) in met:
            cost += repeat_unit
        return top - cost

    near = NEAR
    while True:
        graph = nx.Graph()
        graph.add_nodes_from(range(count))
        for first in range(count):
            group = doubled[first]
            half = size[group] // 2
            partner = first + half if first - start[group] < half else first - half
            candidates = set(range(first + 1, min(count, first + near + 1)))
            candidates.update(range(max(0, partner - near), min(count, partner + near + 1)))
            for second in candidates:
                if second > first and (
                    repeat or frozenset((keys[first], keys[second])) not in met
                ):
                    graph.add_edge(first, second, weight=weight(first, second))
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) == count:
            return [(keys[min(pair)], keys[max(pair)]) for pair in sorted(matching, key=min)]
        if near >= count:
            return None
        near *= 4


def _pair_three(
    keys: Sequence[str], score: Mapping[str, Points], met: set[frozenset[str]], repeat: bool
) -> list[tuple[str, ...]] | None:
    """Threes in order, each seat taking the first who has met none seated (with
    ``repeat``, the first who has met the fewest); None if some table cannot be made."""
    del score  # the order already holds it
    left = list(keys)
    tables: list[tuple[str, ...]] = []
    while left:
        table = [left.pop(0)]
        for _ in range(2):
            if not left:
                return None
            repeats = [
                sum(frozenset((key, seated)) in met for seated in table) for key in left
            ]
            fewest = min(repeats)
            if fewest and not repeat:
                return None
            table.append(left.pop(repeats.index(fewest)))
        tables.append(tuple(table))
    return tables


def swiss_standings(entrants: Iterable[Entrant], rounds: Sequence[SwissRound]) -> list[Standing]:
    """The standings: score, Buchholz, Sonneborn-Berger, rating, name (the docstring's rules).

    ``entrants`` are all who entered, withdrawn ones included.
    """
    entrants = list(entrants)
    score, _met, byes = _history(rounds)
    buchholz: dict[str, Points] = defaultdict(float)
    berger: dict[str, Points] = defaultdict(float)
    games: dict[str, int] = defaultdict(int)
    size = 2
    for played in rounds:
        for game in played.games:
            size = len(game.entrants)
            for key, rank in zip(game.entrants, game.ranks, strict=True):
                games[key] += 1
                for other, other_rank in zip(game.entrants, game.ranks, strict=True):
                    if other == key:
                        continue
                    buchholz[key] += score[other]
                    if rank < other_rank:
                        berger[key] += score[other]
                    elif rank == other_rank:
                        berger[key] += score[other] / 2
    for key, count in byes.items():
        buchholz[key] += count * (size - 1) * score[key]
    order = sorted(
        entrants,
        key=lambda e: (-score[e.key], -buchholz[e.key], -berger[e.key], -e.rating, e.name),
    )
    return [
        Standing(
            rank, e.key, e.name, score[e.key], buchholz[e.key], berger[e.key], games[e.key],
            byes[e.key],
        )
        for rank, e in enumerate(order, start=1)
    ]


# Arena ---------------------------------------------------------------------------------


def arena_points(base: Sequence[Points]) -> tuple[Points, ...]:
    """Each arena game's points, from its points by rank, in the order played.

    After :data:`FIRE_AFTER` wins in a row every game scores double until one that is not
    a win (which still scores double).

    >>> arena_points([2, 2, 2, 2, 0, 2])
    (2, 2, 4, 4, 0, 2)
    >>> arena_points([2, 2, 1, 2, 2, 2])
    (2, 2, 2, 2, 2, 4)
    """
    scored = []
    wins = 0
    for points in base:
        scored.append(points * 2 if wins >= FIRE_AFTER else points)
        wins = wins + 1 if points == WIN_POINTS else 0
    return tuple(scored)


def on_fire(base: Sequence[Points]) -> bool:
    """Whether the next arena game scores double (the flame shown beside the name).

    >>> on_fire([0, 2, 2]), on_fire([2, 2, 1])
    (True, False)
    """
    return len(base) >= FIRE_AFTER and all(p == WIN_POINTS for p in base[-FIRE_AFTER:])


LOOK_AHEAD = 8
"""Waiting arena players looked past, below a player, for one it may meet."""


def pair_arena(
    waiting: Iterable[ArenaPlayer], players: int = 2, active: int | None = None
) -> list[tuple[str, ...]]:
    """Pair one arena wave: tables of ``players`` entrants from those waiting now.

    Waiting players are taken by score, rating and key; each table takes the highest
    left and the next who played none of its members in their last game (looking at most
    :data:`LOOK_AHEAD` players down). ``active`` is the number of unpaused players in
    the arena: when it equals ``players``, last games' opponents may meet again. Those
    left over wait for the next wave.

    >>> wave = [ArenaPlayer("a", 1500, 6.0, frozenset({"b"})), ArenaPlayer("b", 1600, 4.0),
    ...         ArenaPlayer("c", 1400, 4.0), ArenaPlayer("d", 1500, 0.0, paused=True)]
    >>> pair_arena(wave)
    [('a', 'c')]
    """
    ready = sorted(
        (p for p in waiting if not p.paused), key=lambda p: (-p.score, -p.rating, p.key)
    )
    rematch = active is not None and active <= players
    last = {p.key: p.last_opponents for p in ready}
    taken: set[str] = set()
    tables: list[tuple[str, ...]] = []
    for index, player in enumerate(ready):
        if player.key in taken:
            continue
        table = [player.key]
        looked = 0
        for other in ready[index + 1 :]:
            if len(table) == players or looked > LOOK_AHEAD:
                break
            if other.key in taken:
                continue
            looked += 1
            if rematch or all(
                other.key not in last[seated] and seated not in last[other.key]
                for seated in table
            ):
                table.append(other.key)
        if len(table) == players:
            tables.append(tuple(table))
            taken.update(table)
    return tables
