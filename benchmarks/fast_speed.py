"""Random deals a second on one core: basra's compiled path and reference core against
OpenSpiel's C++ card games (hearts, spades) driven from Python, in the same run.

Every game is played by the same loop: from a new deal, take a uniformly random legal
action (or chance outcome) until the deal ends, then read the result. OpenSpiel's loop
runs in Python over its C++ states (``pip install open_spiel``); basra's reference core
runs the same loop over :func:`basra.state.legal_moves` and :func:`basra.state.apply`;
basra's compiled path runs the whole deal in compiled code (what search uses). It also
times the compiled path's first call in a fresh process with an empty numba cache
(compiling) and in a second fresh process (loading the cache)::

    python benchmarks/fast_speed.py --seconds 3 --runs 3 --out benchmarks/results/fast_speed.json

Each figure is the median of RUNS measurements of SECONDS each, in this process's CPU time
by default (``--clock cpu``): one core's work, even when other work shares the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def timed(play_deals: Callable[[int], None], seconds: float, chunk: int,
          clock: Callable[[], float]) -> float:
    """Deals a second: play chunks of deals until ``seconds`` pass on ``clock``."""
    deals = 0
    start = clock()
    while True:
        play_deals(chunk)
        deals += chunk
        elapsed = clock() - start
        if elapsed >= seconds:
            return deals / elapsed


def openspiel_loop(name: str, seed: int) -> Callable[[int], None]:
    import pyspiel

    game = pyspiel.load_game(name)
    rng = random.Random(seed)

    def play(deals: int) -> None:
        for _ in range(deals):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    action = outcomes[int(rng.random() * len(outcomes))][0]
                else:
                    actions = state.legal_actions()
                    action = actions[int(rng.random() * len(actions))]
                state.apply_action(action)
            state.returns()

    return play


def reference_loop(variant: str, players: int, seed: int) -> Callable[[int], None]:
    from basra.rules import make_rules
    from basra.state import apply, deal_score, legal_moves, new_deal

    rules = make_rules(variant, players)
    rng = random.Random(seed)
    count = [0]

    def play(deals: int) -> None:
        for _ in range(deals):
            state = new_deal(rules, count[0] % players, rng)
            count[0] += 1
            while not state.is_over:
                moves = legal_moves(state)
                state = apply(state, moves[int(rng.random() * len(moves))])
            deal_score(state)

    return play


def compiled_loop(variant: str, players: int, seed: int) -> Callable[[int], None]:
    from basra.fast import core
    from basra.rules import make_rules

    fast = core.fast_rules(make_rules(variant, players))
    core.random_deals(fast, 1, seed)
    count = [seed]

    def play(deals: int) -> None:
        count[0] += 1
        core.random_deals(fast, deals, count[0])

    return play


_FIRST_CALL = """
import time
start = time.perf_counter()
from basra.fast import core
core.compile_kernels()
print(time.perf_counter() - start)
"""


def first_call_seconds() -> tuple[float, float]:
    """(compiling in a fresh process with an empty cache, loading it in a second one)."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        times = []
        for _ in range(2):
            done = subprocess.run([sys.executable, "-c", _FIRST_CALL], env=env, check=True,
                                  capture_output=True, text=True)
            times.append(float(done.stdout.strip()))
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="length of each measurement (default 3)")
    parser.add_argument("--runs", type=int, default=3,
                        help="measurements per game; each figure is their median (default 3)")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--no-compile-times", action="store_true",
                        help="skip timing the compiled path's first call in fresh processes")
    parser.add_argument("--clock", choices=CLOCKS, default="cpu",
                        help="cpu: this process's CPU time, one core's work even when other "
                             "work shares the cores (default); wall: elapsed time")
    args = parser.parse_args()
    if args.seconds <= 0:
        parser.error(f"--seconds must be more than 0, not {args.seconds}")
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    loops: dict[str, tuple[Callable[[int], None], int]] = {}
    try:
        loops["openspiel hearts (C++, Python loop)"] = (openspiel_loop("hearts", 1), 10)
        loops["openspiel spades (C++, Python loop)"] = (openspiel_loop("spades", 1), 10)
    except ImportError:
        print("open_spiel is not installed (pip install open_spiel): skipping it",
              file=sys.stderr)
    loops["basra egyptian/2 reference (Python loop)"] = (reference_loop("egyptian", 2, 1), 50)
    loops["basra egyptian/2 compiled"] = (compiled_loop("egyptian", 2, 1), 5000)
    loops["basra egyptian/4 compiled"] = (compiled_loop("egyptian", 4, 1), 5000)
    loops["basra pasur/2 compiled"] = (compiled_loop("pasur", 2, 1), 5000)
    loops["basra pisti/2 compiled"] = (compiled_loop("pisti", 2, 1), 20000)
    loops["basra xeri/2 compiled"] = (compiled_loop("xeri", 2, 1), 20000)
    loops["basra pisti/2 reference (Python loop)"] = (reference_loop("pisti", 2, 1), 50)
    figures: dict[str, Any] = {"seconds": args.seconds, "runs": args.runs, "clock": args.clock,
                               "deals_per_second": {}}
    for label, (play, chunk) in loops.items():
        rates = [timed(play, args.seconds, chunk, CLOCKS[args.clock]) for _ in range(args.runs)]
        median = statistics.median(rates)
        figures["deals_per_second"][label] = round(median, 1)
        print(f"{label:44} {median:>12,.0f} deals/s  (runs: "
              f"{', '.join(f'{r:,.0f}' for r in rates)})")
    rates = figures["deals_per_second"]
    compiled = rates["basra egyptian/2 compiled"]
    for game in ("hearts", "spades"):
        label = f"openspiel {game} (C++, Python loop)"
        if label in rates:
            ratio = compiled / rates[label]
            figures[f"compiled_vs_{game}"] = round(ratio, 1)
            print(f"compiled egyptian/2 vs openspiel {game}: {ratio:,.0f}x")
    if "basra pisti/2 compiled" in rates:
        ratio = rates["basra pisti/2 compiled"] / compiled
        figures["compiled_pisti_vs_egyptian"] = round(ratio, 2)
        print(f"compiled pisti/2 vs egyptian/2: {ratio:,.1f}x")
    if not args.no_compile_times:
        compiling, loading = first_call_seconds()
        figures["first_call_compile_seconds"] = round(compiling, 2)
        figures["second_start_seconds"] = round(loading, 2)
        print(f"first call: {compiling:.1f} s compiling (empty cache), {loading:.2f} s on a "
              "second start (cached)")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
