"""The master: a search player with a time budget per move (300 ms by default).

Perfect-information Monte Carlo: it samples the cards it has not seen into the other
hands and the stock (consistently with everything observed), plays every legal move on
the same sample, finishes the deal with a rollout policy for all seats (two players:
greedy play that keeps its Jacks and sweeping 7♦ for a richer floor while the stock
lasts; more: the expert's play), and keeps the mean points margin of each move (with
more than two sides, what the deal adds to its lead over the best other side of the
match), 50 points more or less when the sampled deal ends the match won or lost. A move
clearly worse than the best (three standard errors behind) stops getting samples, so the
close ones get more. A seat whose plays of the match so far are all the expert's or all
greedy (:mod:`basra.bots.reading`) plays so in the rollouts, and its plays of the batch
say what it may hold; with two players, once the other seat is read, a search tree
below each move plans the master's later moves of the deal against that seat's replies.

With numba (a dependency of the package) it searches in compiled code
(:mod:`basra.fast`) on one process: tens of thousands of rollouts a second. Where numba
cannot be imported (or ``BASRA_NO_FAST=1``), it falls back to the pure-Python search of
the reference core on ``workers`` processes (both cores by default). When every hidden
card is known (two players, stock empty: the other hand is exactly the unseen cards; in a
pile game, no face-down card hidden from it) and at most
:data:`~basra.bots.search.SOLVE_CARDS` cards are left in the hands, it solves the rest of
the deal exactly, against the read seat's style where the other seat is read (its best
replies otherwise).

In the pile games (Pişti, Xeri) the sampler also deals the face-down cards the seat was
not shown (in the pile, or captured by the other side) and keeps the cards every seat
saw at the stock's bottom there (:func:`basra.observe.hidden_places`); the rollouts play
greedy for piles (:data:`PILE_POLICY`) and no seat's style is read.
:class:`SearchSettings` also plays the master as it was before the compiled search, for
the benchmarks that measure against it.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

from basra import fast
from basra.neural.belief import belief_odds
from basra.observe import Observation, observe_state
from basra.rules import PILE_FAMILIES, Rules
from basra.state import DealState

from .reading import StyleReader, style_moves
from .search import (
    SOLVE_CARDS,
    Policy,
    all_known,
    deal_margin,
    greedy_playout,
    sample_state,
    solve,
)

__all__ = ["DEFAULT_THINK_MS", "MANY_PLAYERS_POLICY", "PILE_POLICY", "READ_TREE_PLAYERS",
           "ROLLOUT_POLICIES", "ROLLOUT_POLICY", "MasterBot", "MoveEstimate",
           "SearchSettings", "search_moves", "uses_tree"]

DEFAULT_THINK_MS = 300
"""The master's time budget per move."""
ROLLOUT_POLICY = 3
"""The compiled search's rollout policy with two players: 3, greedy keeping its sweepers
for a richer floor while the stock lasts (see :func:`basra.fast.kernels.policy_move`).
With more, :data:`MANY_PLAYERS_POLICY`."""
MANY_PLAYERS_POLICY = 4
"""The rollout policy with more than two players: 4, the expert's play. With other seats
to model beside the next one, the rollouts must play them as players do."""
PILE_POLICY = 5
"""The rollout policy in the pile games (Pişti, Xeri), whatever the number of players: 5,
greedy for piles (takes when it can, does not feed a pişti, keeps its Jacks while the
stock lasts: :func:`basra.fast.kernels.pile_value`)."""
ROLLOUT_POLICIES = (1, 3, 4, 5)
"""The rollout policies the compiled search plays (:func:`basra.fast.kernels.policy_move`):
1 greedy, 3 greedy keeping its sweepers, 4 the expert's play, 5 greedy for piles (the
pile games alone)."""
READ_TREE_PLAYERS = (2,)
"""The numbers of players the master searches with the tree once another seat's style
is read (:func:`uses_tree`; flat sampling before, and with more players)."""
MATCH_BONUS = 50.0
"""Points a sample is worth more (less) when its deal ends the match won (lost): near the
target the master plays for the match, not only for the deal's margin."""


class MoveEstimate(NamedTuple):
    """A move's estimated points margin to the end of the deal, and on how many samples."""

    move: int
    value: float
    samples: int


def search_moves(observation: Observation, seconds: float, seed: int,
                 samples: int | None = None) -> list[tuple[float, int]]:
    """Sampled margins of every legal move: (sum, samples) each.

    Samples until ``seconds`` pass, or exactly ``samples`` times when that is given (for
    reproducible results, whatever the machine's speed).
    """
    rng = random.Random(seed)
    moves = observation.legal_moves
    sums = [0.0] * len(moves)
    counts = [0] * len(moves)
    side = observation.side
    carry = observation.carry
    from basra.state import apply

    deadline = time.perf_counter() + seconds
    done = 0
    while True:
        sample = sample_state(observation, rng)
        for i, move in enumerate(moves):
            final = greedy_playout(apply(sample, move), rng)
            sums[i] += deal_margin(final, side, carry)
            counts[i] += 1
        done += 1
        if done == samples or (samples is None and time.perf_counter() >= deadline):
            break
    return list(zip(sums, counts, strict=True))


@dataclass(frozen=True)
class SearchSettings:
    """How the master searches: the defaults are the master's play. The master before
    the compiled search is ``SearchSettings(policy=1, prune=False, match_bonus=0.0,
    read_styles=False, compiled=False)`` at 1000 ms a move on two workers
    (``benchmarks/master_versions.py --old-master``)."""

    policy: int | None = None
    """The compiled search's rollout policy (:func:`basra.fast.kernels.policy_move`): 1
    greedy, 3 greedy keeping its sweepers, 4 the expert's play; None: by the rules
    (:meth:`rollout_policy`)."""
    prune: bool = True
    """Whether the compiled search stops sampling moves clearly worse than the best."""
    match_bonus: float = MATCH_BONUS
    """Points a sampled deal that ends the match is worth more (won) or less (lost)."""
    read_styles: bool = True
    """Read the other seats' style from their plays of the match
    (:class:`basra.bots.reading.StyleReader`): a seat that plays as the expert or
    greedily plays so in the compiled search's rollouts (and, two players, in its tree:
    :func:`uses_tree`), its plays of the batch weigh the samples, and the exact solve of
    a deal's last batch meets it with its style's moves."""
    belief: bool = True
    """Weigh the flat search's sampled deals by the learned belief over the other seat's
    hand (two-player Basra: :mod:`basra.neural.belief`): a card its plays of the batch
    passed over when it would have taken more is likelier elsewhere."""
    compiled: bool = True
    """Search in compiled code when numba is there; False: the reference core's search
    (:func:`search_moves`: greedy rollouts, deal margins, no pruning), as the master
    searched before the compiled path."""

    def __post_init__(self) -> None:
        if self.policy not in (None, *ROLLOUT_POLICIES):
            raise ValueError(f"rollout policy {self.policy!r} is not one of "
                             f"{', '.join(map(str, ROLLOUT_POLICIES))} (or None: by the rules)")

    def rollout_policy(self, rules: Rules) -> int:
        """The rollout policy searched with under ``rules``: the one set, else
        :data:`ROLLOUT_POLICY` for two players and :data:`MANY_PLAYERS_POLICY` for more;
        in the pile games :data:`PILE_POLICY` (or greedy, 1, if set: the others do not
        play them)."""
        if rules.family in PILE_FAMILIES:
            return 1 if self.policy == 1 else PILE_POLICY
        if self.policy == PILE_POLICY:
            raise ValueError(f"rollout policy {PILE_POLICY} plays the pile games alone, "
                             f"not {rules.family}")
        if self.policy is not None:
            return self.policy
        return ROLLOUT_POLICY if rules.players == 2 else MANY_PLAYERS_POLICY


def uses_tree(rules: Rules, styles: tuple[int | None, ...]) -> bool:
    """Whether the master searches with the tree under ``rules``, given the styles read:
    once another seat is read, with :data:`READ_TREE_PLAYERS` players."""
    return rules.players in READ_TREE_PLAYERS and any(s is not None for s in styles)


def _search(observation: Observation, seconds: float, seed: int, samples: int | None,
            settings: SearchSettings = SearchSettings(),
            styles: tuple[int | None, ...] = ()) -> list[tuple[float, float, int]]:
    """One worker's search, (sum, weight, samples) per move: compiled when it can be,
    else the reference core's (every sample weighs 1). ``styles``: each seat's style
    read from its plays, or None."""
    if settings.compiled and fast.available():
        from basra.fast.core import observation_search, observation_tree_search

        policy = settings.rollout_policy(observation.rules)
        if uses_tree(observation.rules, styles):
            stats = observation_tree_search(observation, seconds, seed, samples,
                                            policy=policy,
                                            match_bonus=settings.match_bonus,
                                            styles=styles)
        else:
            belief = belief_odds(observation) if settings.belief else None
            stats = observation_search(observation, seconds, seed, samples,
                                       policy=policy, prune=settings.prune,
                                       match_bonus=settings.match_bonus, styles=styles,
                                       belief=belief)
        return list(zip(stats.sums, stats.weights, stats.visits, strict=True))
    return [(total, float(count), count)
            for total, count in search_moves(observation, seconds, seed, samples)]


def _ignore_interrupts() -> None:
    """Run in each worker: Ctrl-C is for the process that owns the pool, which stops its
    workers, so a worker never dies of it with a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pool_context() -> multiprocessing.context.BaseContext:
    """Fork server processes where there are, started with Ctrl-C ignored: the workers it
    forks then ignore it from their first instruction, before ``_ignore_interrupts`` runs.
    Not fork: the caller may run threads (a progress bar)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    if threading.current_thread() is threading.main_thread():
        from multiprocessing import forkserver

        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            forkserver.ensure_running()
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler if previous is None
                          else previous)
    return multiprocessing.get_context("forkserver")


def _style_play(style: int, seat: int, observation: Observation, node: DealState
                ) -> list[int]:
    """The moves ``seat``, read as playing ``style``, would play at ``node`` of the deal
    ``observation`` sees, from its own view of it."""
    view = observe_state(node, seat, totals=observation.totals, target=observation.target,
                         carry=observation.carry, deal_number=observation.deal_number)
    return style_moves(style, view)


def _known_play(observation: Observation, styles: tuple[int | None, ...]
               ) -> dict[int, Policy]:
    """The other seats read so far, each as the play :func:`solve` meets it with."""
    return {seat: partial(_style_play, style, seat, observation)
            for seat, style in enumerate(styles)
            if style is not None and seat != observation.seat}


class MasterBot:
    """Searches each move for ``think_ms`` milliseconds on ``workers`` processes (one by
    default with the compiled path, both cores without it)."""

    name = "master"

    def __init__(self, seed: int | None = None, *, think_ms: int = DEFAULT_THINK_MS,
                 workers: int | None = None, samples: int | None = None,
                 settings: SearchSettings = SearchSettings()) -> None:
        self.rng = random.Random(seed)
        self.think_ms = think_ms
        self.samples = samples
        """A fixed number of samples per worker instead of the time budget (reproducible)."""
        self.settings = settings
        """How it searches."""
        compiled = settings.compiled and fast.available()
        default = 1 if compiled else min(2, os.cpu_count() or 1)
        self.workers = max(1, workers if workers is not None else default)
        self._pool: Executor | None = None
        self.reader = StyleReader()
        """What the other seats' plays say of their style."""

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _styles(self, observation: Observation) -> tuple[int | None, ...]:
        """Each seat's style as read so far (none when the settings do not read)."""
        if not self.settings.read_styles or observation.rules.family in PILE_FAMILIES:
            return ()
        return self.reader.styles(len(observation.hand_counts))

    def estimates(self, observation: Observation) -> list[MoveEstimate]:
        """Every legal move's expected points margin to the end of the deal, best first."""
        moves = observation.legal_moves
        self._read(observation)
        styles = self._styles(observation)
        settings = self.settings
        if all_known(observation) and sum(observation.hand_counts) <= SOLVE_CARDS:
            sample = sample_state(observation, self.rng)  # the only consistent deal
            policies = _known_play(observation, styles)
            exact = solve(sample, observation.side, observation.carry, policies)
            ranked = [MoveEstimate(m, exact[m], 1) for m in moves]
        else:
            # Room for the hand-over to worker processes, or for the rest of the move.
            margin = 0.05 if self.workers > 1 else 0.015
            seconds = max(0.005, self.think_ms / 1000 - margin)
            seeds = [self.rng.getrandbits(32) for _ in range(self.workers)]
            if self.workers == 1:
                results = [_search(observation, seconds, seeds[0], self.samples,
                                   settings, styles)]
            else:
                if self._pool is None:
                    self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                                     mp_context=_pool_context(),
                                                     initializer=_ignore_interrupts)
                futures = [self._pool.submit(_search, observation, seconds, s, self.samples,
                                             settings, styles) for s in seeds]
                results = [f.result() for f in futures]
            ranked = []
            for i, move in enumerate(moves):
                total = sum(r[i][0] for r in results)
                weight = sum(r[i][1] for r in results)
                count = sum(r[i][2] for r in results)
                ranked.append(MoveEstimate(move, total / weight if weight > 0 else 0.0,
                                           count))
        return sorted(ranked, key=lambda e: -e.value)

    def _read(self, observation: Observation) -> None:
        """Read the other seats' plays (not in the pile games: the styles read are the
        levels' play of the other families)."""
        if observation.rules.family not in PILE_FAMILIES:
            self.reader.observe(observation)

    def choose(self, observation: Observation) -> int:
        moves = observation.legal_moves
        if len(moves) == 1:
            self._read(observation)
            return moves[0]
        ranked = self.estimates(observation)
        best = ranked[0].value
        choices = [e.move for e in ranked if e.value >= best - 1e-9]
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)
