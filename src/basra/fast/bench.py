"""Measure the engine's random-playout speed on one core."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import NamedTuple

from basra.rules import Rules
from basra.state import apply, deal_score, legal_moves, new_deal, random_playout

__all__ = ["BenchResult", "FastBench", "bench_fast", "bench_playouts", "bench_steps"]


class BenchResult(NamedTuple):
    deals: int
    plays: int
    seconds: float

    @property
    def deals_per_second(self) -> float:
        return self.deals / self.seconds

    @property
    def plays_per_second(self) -> float:
        return self.plays / self.seconds


def _run(rules: Rules, seconds: float, seed: int,
         finish: Callable[[random.Random, int], None],
         progress: Callable[[float], None] | None) -> BenchResult:
    rng = random.Random(seed)
    deals = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(50):
            finish(rng, deals % rules.players)
            deals += 1
        elapsed = time.perf_counter() - start
        if progress is not None:
            progress(min(elapsed, seconds))
    return BenchResult(deals, deals * (52 - rules.floor_size), elapsed)


def bench_playouts(rules: Rules, seconds: float, seed: int = 0,
                   progress: Callable[[float], None] | None = None) -> BenchResult:
    """Whole random deals (deal, uniformly random legal moves, score) by the fast path."""

    def one_deal(rng: random.Random, dealer: int) -> None:
        deal_score(random_playout(new_deal(rules, dealer, rng), rng))

    return _run(rules, seconds, seed, one_deal, progress)


def bench_steps(rules: Rules, seconds: float, seed: int = 0,
                progress: Callable[[float], None] | None = None) -> BenchResult:
    """The same deals played one step at a time with :func:`legal_moves` and :func:`apply`."""

    def one_deal(rng: random.Random, dealer: int) -> None:
        state = new_deal(rules, dealer, rng)
        while not state.is_over:
            moves = legal_moves(state)
            state = apply(state, moves[int(rng.random() * len(moves))])
        deal_score(state)

    return _run(rules, seconds, seed, one_deal, progress)


class FastBench(NamedTuple):
    """The compiled path's random deals, and how long its first call took (compiling, or
    loading the compiled code from numba's cache)."""

    result: BenchResult
    first_call_seconds: float


def bench_fast(rules: Rules, seconds: float, seed: int = 0,
               progress: Callable[[float], None] | None = None) -> FastBench | None:
    """Whole random deals (deal, uniformly random moves, score) by the compiled path on
    one core; None when it is not available (see :func:`basra.fast.unavailable_reason`).

    The deals are dealt and played inside compiled code with its own random numbers: the
    same rules as :func:`bench_playouts`, not the same deals."""
    from basra import fast

    if not fast.available():
        return None
    from basra.fast import core

    start = time.perf_counter()
    core.compile_kernels()
    fast_rules = core.fast_rules(rules)
    core.random_deals(fast_rules, 1, seed)
    first_call = time.perf_counter() - start
    deals = 0
    chunk = 500
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        core.random_deals(fast_rules, chunk, seed + deals)
        deals += chunk
        elapsed = time.perf_counter() - start
        if elapsed < seconds / 20:
            chunk *= 2
        if progress is not None:
            progress(min(elapsed, seconds))
    return FastBench(BenchResult(deals, deals * (52 - rules.floor_size), elapsed), first_call)
