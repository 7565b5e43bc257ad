"""Calibrate the computer levels' ratings: play every level against every other, rate them.

Usage (from the repository root, with the project installed):

    python benchmarks/calibrate_ratings.py --master-results benchmarks/results/strength.json
    python benchmarks/calibrate_ratings.py --think-ms 20      # play the master too
    python benchmarks/calibrate_ratings.py --matches 100 --master-matches 10   # quicker

Every two levels play a duplicate arena in the ``egyptian-2`` pool (each seed once per seat
rotation, so both get the same cards; ``basra.arena.duplicate``), the master with ``--think-ms`` per
move and fewer matches. The master searches against the clock, and a short budget makes
it much weaker than the master a server plays (1000 ms a move): with ``--master-results``
its games are not played but read from a saved arena of the master at full strength
(``benchmarks/strength.py``'s results: its two-player Egyptian pairings).

Then the results go through ``basra.players.ratings.rate`` the way a server would rate them: all
four levels start as new players and every match updates the two who played it, in
shuffled order, ``--passes`` times over (so where they end does not depend on where they
started). A level's figure is the mean of its display rating over the last pass, averaged
over ``--runs`` independent shuffles. The Elo differences implied by the win rates are
printed beside them as a check. The figures printed last are ``COMPUTER_RATINGS`` as
``basra/players/ratings.py`` records them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from basra.arena.duplicate import MatchOutcome, arena_tasks, play_arena_match
from basra.bots import BOT_LEVELS
from basra.players.ratings import Rating, new_rating, rate
from basra.rules import make_rules

POOL = "egyptian-2"


def play(levels: tuple[str, str], matches: int, seed: int, think_ms: int,
         executor: ProcessPoolExecutor) -> list[MatchOutcome]:
    """The outcomes of a duplicate arena between two levels (entry 0 and entry 1)."""
    tasks = arena_tasks(make_rules("egyptian", 2), "egyptian", list(levels), matches, seed,
                        think_ms=think_ms, workers=1)
    return list(executor.map(play_arena_match, tasks))


def saved_results(path: Path) -> list[tuple[str, str, int, int, int]]:
    """The master's two-player Egyptian arenas in a ``benchmarks/strength.py`` results file:
    (master, opponent, master's wins, opponent's wins, think ms) each."""
    found = []
    for entry in json.loads(path.read_text(encoding="utf-8")).values():
        bots = entry["bots"]
        if (entry["variant"], entry["players"]) == ("egyptian", 2) and bots[0] == "master" \
                and bots[1] in BOT_LEVELS:
            found.append((bots[0], bots[1], entry["wins"][0], entry["wins"][1],
                          entry["think_ms"]))
    return found


def feed(results: list[tuple[str, str, int]], passes: int, seed: int) -> dict[str, float]:
    """Rate ``(level A, level B, winner 0 or 1)`` results from new ratings, ``passes`` times in
    shuffled order; each level's mean display rating over the last pass."""
    ratings: dict[str, Rating] = {level: new_rating() for level in BOT_LEVELS}
    rng = random.Random(seed)
    order = list(results)
    seen: dict[str, list[int]] = {}
    for _ in range(passes):
        rng.shuffle(order)
        seen = {level: [] for level in BOT_LEVELS}
        for a, b, winner in order:
            (new_a,), (new_b,) = rate(POOL, [[ratings[a]], [ratings[b]]],
                                      [0, 1] if winner == 0 else [1, 0])
            ratings[a], ratings[b] = new_a, new_b
            for level in (a, b):
                seen[level].append(ratings[level].display)
    return {level: statistics.fmean(values) for level, values in seen.items() if values}


def feed_runs(results: list[tuple[str, str, int]], passes: int, runs: int,
              seed: int) -> dict[str, float]:
    """The mean of :func:`feed` over ``runs`` shuffles (one shuffle moves a level by ±25)."""
    found = [feed(results, passes, seed + run) for run in range(runs)]
    return {level: statistics.fmean(f[level] for f in found) for level in found[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=600,
                        help="Matches between two levels without the master (default 600).")
    parser.add_argument("--master-matches", type=int, default=40,
                        help="Matches of the master against each other level (default 40).")
    parser.add_argument("--think-ms", type=int, default=20,
                        help="The master's time per move in milliseconds (default 20).")
    parser.add_argument("--passes", type=int, default=20,
                        help="Times the results are rated over (default 20).")
    parser.add_argument("--master-results", type=Path,
                        help="Take the master's games from this strength.py results file "
                             "instead of playing them.")
    parser.add_argument("--runs", type=int, default=8,
                        help="Independent shuffles whose figures are averaged (default 8).")
    parser.add_argument("--jobs", type=int, default=2, help="Worker processes (default 2).")
    parser.add_argument("--seed", type=int, default=5000)
    args = parser.parse_args()

    results: list[tuple[str, str, int]] = []
    win_rates: dict[tuple[str, str], float] = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as executor:
        for index, levels in enumerate(itertools.combinations(BOT_LEVELS, 2)):
            stronger, weaker = levels[1], levels[0]
            if "master" in levels and args.master_results is not None:
                continue
            matches = args.master_matches if "master" in levels else args.matches
            started = time.perf_counter()
            outcomes = play((stronger, weaker), matches, args.seed + 10_000 * index,
                            args.think_ms, executor)
            wins = [0, 0]
            for outcome in outcomes:
                if outcome.winner is None:
                    continue
                entry = outcome.owners[outcome.winner]  # two players: the side is the seat
                wins[entry] += 1
                results.append((stronger, weaker, entry))
            played = sum(wins)
            win_rates[stronger, weaker] = wins[0] / played if played else 0.5
            print(f"{stronger} - {weaker}: {wins[0]}-{wins[1]} of {len(outcomes)} matches "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)

    if args.master_results is not None:
        for master, other, won, lost, think_ms in saved_results(args.master_results):
            results += [(master, other, 0)] * won + [(master, other, 1)] * lost
            win_rates[master, other] = won / (won + lost)
            print(f"{master} - {other}: {won}-{lost} (saved, {think_ms} ms a move)")

    means = feed_runs(results, args.passes, args.runs, args.seed)
    print(f"\nratings in {POOL} after {args.passes} passes over {len(results)} matches "
          f"(mean of {args.runs} shuffles):")
    for level in BOT_LEVELS:
        print(f"  {level:7} {means[level]:7.1f}")
    print("\nElo differences implied by the win rates (400 * log10(p / (1 - p))):")
    for (stronger, weaker), p in win_rates.items():
        clipped = min(max(p, 0.5 / 1000), 1 - 0.5 / 1000)
        implied = 400 * math.log10(clipped / (1 - clipped))
        rated = means[stronger] - means[weaker]
        print(f"  {stronger} - {weaker}: won {p:.1%}, Elo {implied:+.0f}, rated {rated:+.0f}")
    print("\nCOMPUTER_RATINGS = {"
          + ", ".join(f'"{level}": {round(means[level])}' for level in BOT_LEVELS) + "}")


if __name__ == "__main__":
    main()
