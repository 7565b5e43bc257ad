"""Round-robin tournaments: every pair of bots plays a duplicate arena, and the results
make a crosstable with Wilson intervals and an Elo-style rating per bot.

A game of two sides is needed (2 players, or 4 in partnerships, where a bot plays both
seats of its side). Every pairing plays the same seeds, each in every seat rotation
(:mod:`basra.arena.duplicate`), and all pairings' matches go to one pool of workers (or one Ray
cluster), so a tournament takes the time of its matches, not of its slowest pairing.

Ratings are the Bradley–Terry model fitted by maximum likelihood (Hunter's MM
iterations), shown on the Elo scale: a 400-point gap means 10 to 1 odds, and the mean
rating is 1500. A match undecided at ``max_deals`` counts half a win to each bot, and
every pairing starts from one virtual drawn match (half a win each way), so that a bot
that won or lost everything still gets a finite rating.

>>> from basra.rules import make_rules
>>> result = run_tournament(make_rules("egyptian"), "egyptian", ["greedy", "random"],
...                         matches=4, seed=1)
>>> result.games[0][1], result.wins[0][1] + result.wins[1][0]
(4, 4)
>>> result.ratings[0] > 1500 > result.ratings[1]
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from basra.arena.duplicate import (
    ArenaError,
    MatchOutcome,
    MatchTask,
    Runner,
    arena_tasks,
    play_tasks,
    wilson_interval,
)
from basra.rules import Rules

__all__ = ["TournamentResult", "bradley_terry_elo", "run_tournament"]


@dataclass(frozen=True)
class TournamentResult:
    """Pairwise results, ``[i][j]`` for bot i against bot j (the diagonal is 0)."""

    bots: list[str]
    wins: list[list[int]]
    """Matches bot i won against bot j."""
    games: list[list[int]]
    """Matches between bots i and j."""
    undecided: list[list[int]]
    """Matches between i and j stopped undecided at ``max_deals``."""
    points: list[list[float]]
    """Bot i's mean points per deal against bot j."""
    ratings: list[float]
    seconds: float

    def score(self, i: int, j: int) -> float:
        """Bot i's share of the matches against j: wins, and half of the undecided."""
        games = self.games[i][j]
        return (self.wins[i][j] + self.undecided[i][j] / 2) / games if games else 0.0

    def total(self, i: int) -> tuple[int, int]:
        """Bot i's (wins, matches) over the tournament."""
        return sum(self.wins[i]), sum(self.games[i])

    def to_dict(self) -> dict[str, Any]:
        n = len(self.bots)
        rows = []
        for i, bot in enumerate(self.bots):
            wins, games = self.total(i)
            lo, hi = wilson_interval(wins, games)
            rows.append({
                "bot": bot, "wins": wins, "matches": games,
                "win_rate": round(wins / games, 4) if games else 0.0,
                "win_rate_ci95": [round(lo, 4), round(hi, 4)],
                "rating": round(self.ratings[i], 1),
                "against": {
                    self.bots[j]: {
                        "wins": self.wins[i][j], "matches": self.games[i][j],
                        "undecided": self.undecided[i][j],
                        "win_rate_ci95": [round(x, 4) for x in wilson_interval(
                            self.wins[i][j], self.games[i][j])],
                        "points_per_deal": round(self.points[i][j], 3),
                    } for j in range(n) if j != i},
            })
        return {"bots": rows, "seconds": round(self.seconds, 3)}


def bradley_terry_elo(scores: Sequence[Sequence[float]], games: Sequence[Sequence[float]],
                      prior: float = 1.0, iterations: int = 1000) -> list[float]:
    """Elo-scale ratings (mean 1500) from pairwise scores (wins, half the draws) and
    match counts, with ``prior`` virtual drawn matches added to every pairing.

    >>> [round(r) for r in bradley_terry_elo([[0, 9], [1, 0]], [[0, 10], [10, 0]])]
    [1660, 1340]
    """
    n = len(scores)
    won = [[scores[i][j] + prior / 2 if i != j else 0.0 for j in range(n)] for i in range(n)]
    played = [[games[i][j] + prior if i != j else 0.0 for j in range(n)] for i in range(n)]
    strength = [1.0] * n
    for _ in range(iterations):
        new = []
        for i in range(n):
            denominator = sum(played[i][j] / (strength[i] + strength[j])
                              for j in range(n) if j != i and played[i][j])
            new.append(sum(won[i]) / denominator if denominator else strength[i])
        mean_log = sum(math.log(s) for s in new) / n
        new = [s / math.exp(mean_log) for s in new]
        change = max(abs(a - b) for a, b in zip(new, strength, strict=True))
        strength = new
        if change < 1e-12:
            break
    return [1500 + 400 * math.log10(s) for s in strength]


def run_tournament(rules: Rules, variant: str, bots: Sequence[str], matches: int,
                   seed: int = 0, *, jobs: int = 1, think_ms: int = 1000,
                   max_deals: int = 1000, progress: Callable[[], None] | None = None,
                   runner: Runner | None = None) -> TournamentResult:
    """Every pair of ``bots`` plays ``matches`` duplicate matches (rounded up to a whole
    number of seat rotations) on seeds ``seed``, ``seed + 1``, ...; see
    :func:`basra.arena.run_arena` for ``jobs``, ``think_ms``, ``max_deals``, ``progress``
    and ``runner``."""
    if rules.sides != 2:
        raise ArenaError(f"a tournament needs a game of two sides (2 players, or 4 in "
                         f"partnerships), not {rules.players} players each on their own")
    names = list(bots)
    if len(names) < 2:
        raise ArenaError(f"a tournament needs at least 2 bots, not {len(names)}")
    if len(set(names)) != len(names):
        repeated = next(name for name in names if names.count(name) > 1)
        raise ArenaError(f"bot {repeated!r} is named twice: each bot plays once")
    if jobs < 1:
        raise ArenaError(f"jobs must be at least 1, not {jobs}")
    tasks: list[MatchTask] = []
    pairing: list[tuple[int, int]] = []
    for i, j in combinations(range(len(names)), 2):
        for task in arena_tasks(rules, variant, [names[i], names[j]], matches, seed,
                                think_ms=think_ms, workers=1 if jobs > 1 or runner else None,
                                max_deals=max_deals):
            tasks.append(task)
            pairing.append((i, j))
    outcomes: list[MatchOutcome | None] = [None] * len(tasks)

    def done(index: int, outcome: MatchOutcome) -> None:
        outcomes[index] = outcome
        if progress is not None:
            progress()

    started = time.perf_counter()
    if runner is None:
        play_tasks(tasks, jobs, done)
    else:
        runner(tasks, done)
    seconds = time.perf_counter() - started
    n = len(names)
    wins = [[0] * n for _ in range(n)]
    games = [[0] * n for _ in range(n)]
    undecided = [[0] * n for _ in range(n)]
    points = [[0.0] * n for _ in range(n)]
    deals = [[0] * n for _ in range(n)]
    for (i, j), outcome in zip(pairing, outcomes, strict=True):
        assert outcome is not None
        entry = [i, j]
        for a, b in ((0, 1), (1, 0)):
            me, other = entry[a], entry[b]
            side = rules.side_of[outcome.owners.index(a)]
            games[me][other] += 1
            wins[me][other] += outcome.winner == side
            undecided[me][other] += outcome.winner is None
            points[me][other] += outcome.points[side]
            deals[me][other] += outcome.deals
    for i in range(n):
        for j in range(n):
            points[i][j] = points[i][j] / deals[i][j] if deals[i][j] else 0.0
    scores = [[wins[i][j] + undecided[i][j] / 2 for j in range(n)] for i in range(n)]
    ratings = bradley_terry_elo(scores, games)
    return TournamentResult(names, wins, games, undecided, points, ratings, seconds)
