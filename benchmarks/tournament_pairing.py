"""Time tournament pairing; print the median of several runs.

Usage (from the repository root, with the project installed):

    python benchmarks/tournament_pairing.py
    python benchmarks/tournament_pairing.py --quick
    python benchmarks/tournament_pairing.py --arena 10000 --swiss 1000 --rounds 7 --runs 9

Two cases, each built before it is timed (building is not timed):

- ``arena wave``: :func:`~basra.players.tournaments.pair_arena` on a wave of ``--arena``
  waiting two-player arena players, scores 0 to 40, ratings around 1500 (standard
  deviation 300), each with a last opponent among the others, a tenth paused;
- ``swiss round``: :func:`~basra.players.tournaments.pair_swiss` for the last round of a
  two-player Swiss of ``--swiss`` entrants, after the rounds before it were paired by
  the same function and played out (the better-rated player winning by the Elo
  expectation, a tenth of the games drawn).

Targets (issue 38): the arena wave under 1 s, the Swiss round under 2 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from basra.players.tournaments import (
    ArenaPlayer,
    Entrant,
    Game,
    SwissRound,
    pair_arena,
    pair_swiss,
)


def arena_wave(count: int, seed: int) -> list[ArenaPlayer]:
    rng = random.Random(seed)
    keys = [f"p{index}" for index in range(count)]
    return [
        ArenaPlayer(
            key, round(rng.gauss(1500, 300)), rng.randrange(0, 41),
            frozenset({rng.choice(keys)}) - {key}, paused=rng.random() < 0.1,
        )
        for key in keys
    ]


def swiss_history(count: int, rounds: int, seed: int) -> tuple[list[Entrant], list[SwissRound]]:
    """Entrants and ``rounds`` played rounds, each paired by :func:`pair_swiss`."""
    rng = random.Random(seed)
    entrants = [Entrant(f"p{i}", f"Player {i}", round(rng.gauss(1500, 300))) for i in range(count)]
    rating = {entrant.key: entrant.rating for entrant in entrants}
    history: list[SwissRound] = []
    for _ in range(rounds):
        pairing = pair_swiss(entrants, history)
        games = []
        for first, second in pairing.tables:
            expected = 1 / (1 + 10 ** ((rating[second] - rating[first]) / 400))
            roll = rng.random()
            if roll < 0.1:
                ranks = (0, 0)
            elif roll < 0.1 + 0.9 * expected:
                ranks = (0, 1)
            else:
                ranks = (1, 0)
            games.append(Game((first, second), ranks))
        history.append(SwissRound(tuple(games), pairing.byes))
    return entrants, history


def median_seconds(run: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arena", type=int, default=10_000, help="waiting arena players")
    parser.add_argument("--swiss", type=int, default=1_000, help="Swiss entrants")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the Swiss event")
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each case")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="smaller cases, 3 runs")
    args = parser.parse_args()
    if args.quick:
        args.arena, args.swiss, args.rounds, args.runs = 1_000, 200, 4, 3

    wave = arena_wave(args.arena, args.seed)
    seconds = median_seconds(lambda: pair_arena(wave), args.runs)
    print(f"arena wave of {args.arena:,} waiting: {len(pair_arena(wave)):,} tables, "
          f"median {seconds:.3f} s of {args.runs} runs")

    entrants, history = swiss_history(args.swiss, args.rounds - 1, args.seed)
    seconds = median_seconds(lambda: pair_swiss(entrants, history), args.runs)
    print(f"swiss round {args.rounds} of {args.swiss:,} entrants: "
          f"{len(pair_swiss(entrants, history).tables):,} tables, "
          f"median {seconds:.3f} s of {args.runs} runs")


if __name__ == "__main__":
    main()
