"""Time ``Matchmaker.pair`` with 1,000 waiting seeks; print the median of several runs.

Usage (from the repository root, with the project installed):

    python benchmarks/matchmaking.py
    python benchmarks/matchmaking.py --seeks 5000 --runs 9

Three fills are timed, each built afresh before every run (building is not timed):

- ``mixed``: every rated pool, rated and casual (a tenth guests), ratings around 1500
  (standard deviation 300), waits of 0 to 90 seconds;
- ``one pool``: every seek in ``egyptian-2``, rated, the same ratings and waits;
- ``one partnership pool``: every seek in ``egyptian-4`` (four seats, balanced teams);
- ``partnerships, all old``: the same, every seek waiting over a minute (no range limits,
  so every seek is a candidate for every table: the slowest case).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from basra.players.matchmaking import Matchmaker, Seek
from basra.players.ratings import RATED_POOLS, parse_pool

NOW = 1_000_000.0


def fill(count: int, seed: int, pools: list[str]) -> list[Seek]:
    rng = random.Random(seed)
    seeks = []
    for index in range(count):
        pool = parse_pool(rng.choice(pools))
        guest = rng.random() < 0.1
        seeks.append(Seek(
            f"s{index}", f"p{index}", f"Player {index}", round(rng.gauss(1500, 300)),
            pool.variant, pool.players, rated=not guest and rng.random() < 0.7,
            created_at=NOW - rng.uniform(0, 90), guest=guest,
            computer_fill=rng.random() < 0.3,
        ))
    return seeks


def time_pair(seeks: list[Seek], runs: int) -> tuple[float, int]:
    """Median seconds of ``pair`` over ``runs`` fresh pools, and the tables it made."""
    times = []
    tables = 0
    for _ in range(runs):
        pool = Matchmaker()
        for seek in seeks:
            pool.add(seek)
        started = time.perf_counter()
        tables = len(pool.pair(NOW))
        times.append(time.perf_counter() - started)
    return statistics.median(times), tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeks", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    def one_group(pool: str, older: float = 0.0) -> list[Seek]:
        """Every seek rated, nobody a guest, in one pool."""
        return [Seek(s.id, s.player, s.name, s.rating, s.variant, s.players, True,
                     s.created_at - older) for s in fill(args.seeks, args.seed, [pool])]

    fills: dict[str, Callable[[], list[Seek]]] = {
        "mixed": lambda: fill(args.seeks, args.seed, list(RATED_POOLS)),
        "one pool": lambda: one_group("egyptian-2"),
        "one partnership pool": lambda: one_group("egyptian-4"),
        "partnerships, all old": lambda: one_group("egyptian-4", older=100.0),
    }
    for name, make in fills.items():
        seeks = make()
        median, tables = time_pair(seeks, args.runs)
        print(f"{name:22} {len(seeks)} seeks: pair() median {median * 1000:.1f} ms over "
              f"{args.runs} runs, {tables} tables", flush=True)


if __name__ == "__main__":
    main()
