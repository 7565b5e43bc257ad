"""Player ratings per pool: Plackett–Luce skill estimates shown on an Elo-like scale.

A *pool* is a preset played by a number of players; each pool has its own ratings, since
being good at two-player Egyptian says little about three-player Pasur. Pools are keyed
``"{variant}-{players}"``; at four players a preset with partnerships (``egyptian-4``, and
the pile games' ``pisti-4`` and ``xeri-4``) is a pool of two teams of two, one without
(``classic-4``) a free-for-all. Rated tables play the preset's own rules, without house
rules.

Skill is estimated with the Plackett–Luce model of the ``openskill`` library (Weng & Lin's
Bayesian approximation, like TrueSkill): each player has a mean ``mu`` and an uncertainty
``sigma``; a match result is the final ranking of its sides, best first, ties shared::

    pool          sides              a result (ranks, 0 = best)
    egyptian-2    [A] [B]            A won: [0, 1]
    pasur-3       [A] [B] [C]        B won, A and C tied on points: [1, 0, 1]
    pisti-2       [A] [B]            B won: [1, 0]
    egyptian-4    [A, C] [B, D]      seats 0 & 2 won: [0, 1]
    classic-4     [A] [B] [C] [D]    by final totals, the winner first

**The display number** is ``mu`` on an Elo-like scale::

    display = round(1500 + ELO_PER_MU * (mu - 25))      ELO_PER_MU = 400 / (ln 10 * sqrt 2 * beta)

Between two players whose ``sigma`` has settled, the model's chance that A beats B is
``1 / (1 + exp(-(mu_A - mu_B) / (sqrt 2 * beta)))`` and Elo's is
``1 / (1 + 10 ** (-(elo_A - elo_B) / 400))``; with ``ELO_PER_MU`` (about 29.5) the two
agree, so 400 display points mean 10 to 1 odds, as in chess. A new player (``mu`` 25)
shows 1500 and is *provisional* until they have played :data:`PROVISIONAL_GAMES` rated
games or their ``sigma`` has fallen to :data:`PROVISIONAL_SIGMA`.

The computer levels are rated players too, with fixed ratings (:data:`COMPUTER_RATINGS`,
measured by ``benchmarks/calibrate_ratings.py``): they are the anchors of the scale, and
:func:`rate_match` never changes them.

>>> winner, loser = rate("egyptian-2", [[new_rating()], [new_rating()]], [0, 1])
>>> new_rating().display, winner[0].display, loser[0].display
(1500, 1578, 1422)
>>> winner[0].games, winner[0].provisional
(1, True)
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from basra.rules import PRESETS, RulesError, preset

__all__ = [
    "BETA",
    "COMPUTER_PREFIX",
    "COMPUTER_RATINGS",
    "COMPUTER_SIGMA",
    "ELO_PER_MU",
    "INITIAL_MU",
    "INITIAL_SIGMA",
    "NEW_DISPLAY",
    "PROVISIONAL_GAMES",
    "PROVISIONAL_SIGMA",
    "RATED_POOLS",
    "MatchResultError",
    "Pool",
    "Rating",
    "RatingUpdate",
    "UnknownPoolError",
    "computer_key",
    "computer_level",
    "computer_rating",
    "new_rating",
    "parse_pool",
    "pool_key",
    "ranks_from_totals",
    "rate",
    "rate_match",
]

INITIAL_MU = 25.0
"""``mu`` of a new player (openskill's default)."""
INITIAL_SIGMA = 25.0 / 3
"""``sigma`` of a new player (openskill's default)."""
BETA = 25.0 / 6
"""The spread of one match's performance around a player's skill (openskill's default)."""
TAU = 25.0 / 300
"""Added (in quadrature) to ``sigma`` before every update, so ratings keep moving."""
ELO_PER_MU = 400 / (math.log(10) * math.sqrt(2) * BETA)
"""Display points per unit of ``mu``: about 29.48 (see the module's docstring)."""
NEW_DISPLAY = 1500
"""The display number of a player with ``mu`` = :data:`INITIAL_MU`."""
PROVISIONAL_GAMES = 10
"""A rating is provisional until this many rated games in its pool ..."""
PROVISIONAL_SIGMA = 5.0
"""... or until its ``sigma`` is at most this (a new player's is 8.33; ten two-player
games bring it to about 5.3)."""

COMPUTER_PREFIX = "computer:"
"""Player keys of the computer levels: ``computer:random`` ... ``computer:master``."""
COMPUTER_SIGMA = 2.0
"""``sigma`` of the computer levels' fixed ratings (about what 100 games leave)."""
COMPUTER_RATINGS: dict[str, int] = {
    "random": 1213,
    "greedy": 1573,
    "neural": 1698,
    "expert": 1725,
    "master": 1836,
}
"""Display rating of each computer level, the same in every pool. Measured in the
``egyptian-2`` pool by::

    python benchmarks/calibrate_ratings.py --master-results benchmarks/results/strength.json

600 duplicate matches between every two of random, greedy and expert, and the master's
saved arenas at 1000 ms a move (20 matches each against expert and greedy), fed through
:func:`rate` from new ratings (docs/strength.md). The master's search needs time: played
at a few milliseconds a move (``--think-ms 20``) it rates below the expert. The neural
level came later: it is placed 27 below the expert, as that calibration run with it
(2026-11-29: 600 matches against each other level) rates it (1647 against the
expert's 1674, the others moving by about as much), so that the other levels' figures
stay as players know them."""

_MODEL = PlackettLuce(mu=INITIAL_MU, sigma=INITIAL_SIGMA, beta=BETA, tau=TAU)


class UnknownPoolError(ValueError):
    """A pool key or a variant and player count that is not a rated pool."""


class MatchResultError(ValueError):
    """A match result that does not fit its pool: sides, ranks or players."""


@dataclass(frozen=True)
class Pool:
    """A rated pool: a preset played by a number of players.

    >>> parse_pool("egyptian-4")
    Pool(variant='egyptian', players=4, partnership=True)
    >>> parse_pool("classic-4").side_sizes
    (1, 1, 1, 1)
    """

    variant: str
    players: int
    partnership: bool

    @property
    def key(self) -> str:
        """The pool's key, ``"{variant}-{players}"``."""
        return f"{self.variant}-{self.players}"

    @property
    def side_sizes(self) -> tuple[int, ...]:
        """Players in each side of a match: two of two in partnerships, else one each."""
        return (2, 2) if self.partnership else (1,) * self.players


def _pool(variant: str, players: int) -> Pool:
    try:
        found = preset(variant)
    except RulesError as error:
        raise UnknownPoolError(str(error)) from None
    if isinstance(players, bool) or not isinstance(players, int) or players not in found.players:
        allowed = " or ".join(str(n) for n in found.players)
        raise UnknownPoolError(
            f"variant {found.name!r} is played by {allowed} players, not {players!r}")
    return Pool(found.name, players, players in found.partnership_players)


def pool_key(variant: str, players: int) -> str:
    """The key of the pool of a variant (any of its names) and a player count.

    >>> pool_key("egyptian", 2), pool_key("Pasoor", 3), pool_key("three-player", 3)
    ('egyptian-2', 'pasur-3', 'three-player-3')
    >>> pool_key("jawaker", 4)
    Traceback (most recent call last):
    ...
    basra.players.ratings.UnknownPoolError: variant 'jawaker' is played by 2 players, not 4
    """
    return _pool(variant, players).key


def parse_pool(key: str) -> Pool:
    """The pool of a key (as :func:`pool_key` writes it).

    >>> parse_pool("pasur-3")
    Pool(variant='pasur', players=3, partnership=False)
    >>> parse_pool("egyptian-5")
    Traceback (most recent call last):
    ...
    basra.players.ratings.UnknownPoolError: variant 'egyptian' is played by 2 or 3 or 4 players, ...
    """
    variant, dash, count = key.rpartition("-") if isinstance(key, str) else ("", "", "")
    if not dash or not count.isdigit() or len(count) > 1:
        raise UnknownPoolError(f"bad pool key {key!r}: expected VARIANT-PLAYERS, e.g. egyptian-2")
    found = _pool(variant, int(count))
    if found.key != key:
        raise UnknownPoolError(f"bad pool key {key!r}: the pool is written {found.key!r}")
    return found


RATED_POOLS: tuple[str, ...] = tuple(
    pool_key(name, players) for name, found in PRESETS.items() for players in found.players
)
"""Every rated pool: each preset at each of its player counts."""


@dataclass(frozen=True)
class Rating:
    """One player's rating in one pool: skill mean, uncertainty, rated games played.

    >>> Rating(30.0, 4.0, 25)
    Rating(mu=30.0, sigma=4.0, games=25)
    >>> Rating(30.0, 4.0, 25).display, Rating(30.0, 4.0, 25).provisional
    (1647, False)
    """

    mu: float
    sigma: float
    games: int = 0

    def __post_init__(self) -> None:
        for name in ("mu", "sigma"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not math.isfinite(value):
                raise ValueError(f"rating {name} must be a finite number, not {value!r}")
        if self.sigma <= 0:
            raise ValueError(f"rating sigma must be above 0, not {self.sigma!r}")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 0:
            raise ValueError(f"rating games must be a whole number 0 or more, not {self.games!r}")

    @property
    def display(self) -> int:
        """The rating as shown: ``round(1500 + ELO_PER_MU * (mu - 25))``."""
        return round(NEW_DISPLAY + ELO_PER_MU * (self.mu - INITIAL_MU))

    @property
    def provisional(self) -> bool:
        """Too few games and too much uncertainty yet for the number to mean much."""
        return self.games < PROVISIONAL_GAMES and self.sigma > PROVISIONAL_SIGMA

    @classmethod
    def from_display(cls, display: float, sigma: float = INITIAL_SIGMA,
                     games: int = 0) -> Rating:
        """The rating that shows ``display`` (the inverse of :attr:`display`).

        >>> Rating.from_display(1795, 2.0).display
        1795
        """
        return cls(INITIAL_MU + (display - NEW_DISPLAY) / ELO_PER_MU, sigma, games)


def new_rating() -> Rating:
    """The rating of a player new to a pool: 1500, provisional.

    >>> new_rating()
    Rating(mu=25.0, sigma=8.333333333333334, games=0)
    """
    return Rating(INITIAL_MU, INITIAL_SIGMA, 0)


def computer_key(level: str) -> str:
    """The player key of a computer level.

    >>> computer_key("expert")
    'computer:expert'
    """
    if level not in COMPUTER_RATINGS:
        raise ValueError(f"unknown computer level {level!r}; the levels are: "
                         f"{', '.join(COMPUTER_RATINGS)}")
    return COMPUTER_PREFIX + level


def computer_level(player: str) -> str | None:
    """The computer level a player key names, or None for any other player.

    >>> computer_level("computer:master"), computer_level("user:42")
    ('master', None)
    """
    if player.startswith(COMPUTER_PREFIX) and player[len(COMPUTER_PREFIX):] in COMPUTER_RATINGS:
        return player[len(COMPUTER_PREFIX):]
    return None


def computer_rating(level: str, pool: str) -> Rating:
    """The fixed rating of a computer level in a pool.

    >>> computer_rating("expert", "egyptian-2").display
    1725
    >>> computer_rating("expert", "egyptian-2").provisional
    False
    """
    parse_pool(pool)
    computer_key(level)
    return Rating.from_display(COMPUTER_RATINGS[level], COMPUTER_SIGMA)


def _check_result(pool: Pool, sizes: Sequence[int], ranks: Sequence[int]) -> None:
    if tuple(sizes) != pool.side_sizes:
        want = " and ".join(str(n) for n in pool.side_sizes)
        raise MatchResultError(
            f"pool {pool.key} is played by sides of {want} players, "
            f"not {' and '.join(str(n) for n in sizes) or 'none'}")
    if len(ranks) != len(sizes):
        raise MatchResultError(f"a {pool.key} result needs one rank per side ({len(sizes)}), "
                               f"not {len(ranks)}: {list(ranks)!r}")
    for rank in ranks:
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
            raise MatchResultError(f"ranks must be whole numbers 0 or more, not {list(ranks)!r}")
    if len(set(ranks)) == 1:
        raise MatchResultError(f"ranks {list(ranks)!r} rank every side the same: "
                               "a match that nobody won is not rated")


def rate(pool: str, sides: Sequence[Sequence[Rating]], ranks: Sequence[int]) -> list[list[Rating]]:
    """New ratings after a match: ``sides`` as the pool seats them, ``ranks`` their final
    places (0 best; equal ranks share a place). Every rating gets one more game.

    >>> a, b, c = rate("pasur-3", [[new_rating()]] * 3, [1, 0, 1])
    >>> a[0].display, b[0].display, c[0].display
    (1458, 1585, 1458)
    >>> rate("egyptian-4", [[new_rating()], [new_rating()]], [0, 1])
    Traceback (most recent call last):
    ...
    basra.players.ratings.MatchResultError: pool egyptian-4 is played by sides of 2 and 2 ...
    """
    found = parse_pool(pool)
    _check_result(found, [len(side) for side in sides], ranks)
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma) for r in side] for side in sides]
    updated: list[list[PlackettLuceRating]] = _MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [
        [Rating(new.mu, new.sigma, old.games + 1) for old, new in zip(side, team, strict=True)]
        for side, team in zip(sides, updated, strict=True)
    ]


def ranks_from_totals(totals: Sequence[int], winner: int) -> list[int]:
    """Places of the sides of a finished match: the winner first, then the others by their
    final totals, equal totals sharing a place (standard competition ranking).

    >>> ranks_from_totals([95, 104, 95], winner=1)
    [1, 0, 1]
    >>> ranks_from_totals([40, 51, 60, 12], winner=2)
    [2, 1, 0, 3]
    """
    if not 0 <= winner < len(totals):
        raise MatchResultError(f"winner {winner!r} is not a side of totals {list(totals)!r}")
    return [
        0 if side == winner else
        1 + sum(total > totals[side] for other, total in enumerate(totals) if other != winner)
        for side in range(len(totals))
    ]


@dataclass(frozen=True)
class RatingUpdate:
    """One player's rating before and after one rated match: a history row.

    Store a match's updates with the match, in one transaction, once per ``match_id``:
    computing them again from the same ``before`` ratings gives the same ``after``.
    """

    match_id: str
    pool: str
    player: str
    """The caller's opaque key of the player."""
    before: Rating
    after: Rating

    @property
    def change(self) -> int:
        """How much the display number moved."""
        return self.after.display - self.before.display


def rate_match(match_id: str, pool: str, sides: Sequence[Sequence[str]], ranks: Sequence[int],
               ratings: Mapping[str, Rating], fixed: Collection[str] = ()
               ) -> list[RatingUpdate]:
    """The rating updates of one finished match, for every player but the computer levels
    and the ``fixed`` players.

    ``sides`` holds player keys as the pool seats them (a partnership's seats 0 & 2, then 1
    & 3); ``ratings`` each player's rating before the match (a player missing from it is
    new). The computer levels (:func:`computer_key`) play with their fixed ratings, which
    do not change, so they have no update; one level may hold several seats. Nothing is
    stored here: the caller saves the updates and the new ratings, once per ``match_id``.
    The ``fixed`` players play at their rating in ``ratings`` (new without one) and get no
    update either: the people a bot account plays, whose ratings a bot never moves (see
    ``docs/api.md``, "Bot accounts").

    >>> [(u.player, u.change) for u in rate_match("m2", "egyptian-2", [["ann"], ["bot"]],
    ...                                            [0, 1], {}, fixed={"ann"})]
    [('bot', -78)]
    >>> updates = rate_match("m1", "egyptian-4", [["ann", "computer:greedy"],
    ...                      ["bob", "computer:expert"]], [1, 0], {})
    >>> [(u.player, u.before.display, u.after.display, u.change) for u in updates]
    [('ann', 1500, 1438, -62), ('bob', 1500, 1562, 62)]
    """
    found = parse_pool(pool)
    _check_result(found, [len(side) for side in sides], ranks)
    seen: set[str] = set()
    for side in sides:
        for player in side:
            if not isinstance(player, str) or not player:
                raise MatchResultError(f"player keys must be non-empty text, not {player!r}")
            if player in seen and computer_level(player) is None:
                raise MatchResultError(f"player {player!r} holds two seats in match {match_id!r}")
            seen.add(player)
    before = [[_before(player, found.key, ratings) for player in side] for side in sides]
    after = rate(found.key, before, ranks)
    updates = []
    for keys, olds, news in zip(sides, before, after, strict=True):
        for player, old, new in zip(keys, olds, news, strict=True):
            if computer_level(player) is None and player not in fixed:
                updates.append(RatingUpdate(match_id, found.key, player, old, new))
    return updates


def _before(player: str, pool: str, ratings: Mapping[str, Rating]) -> Rating:
    level = computer_level(player)
    if level is not None:
        return computer_rating(level, pool)
    return ratings.get(player) or new_rating()

