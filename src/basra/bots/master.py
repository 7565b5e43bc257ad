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
say what it may hold. :class:`SearchSettings` holds the alternatives measured against it
(docs/strength.md): other rollout policies (the expert's own play among them), inference
from the other seats' plays, information-set MCTS, the chance to win the match as a
sample's value.

With numba installed (``pip install 'basra[fast]'``) it searches in compiled code
(:mod:`basra.fast`) on one process: tens of thousands of rollouts a second. Without it,
it falls back to the pure-Python search of the reference core on ``workers`` processes
(both cores by default). When every hidden card is known (two players, stock empty: the
other hand is exactly the unseen cards) it solves the rest of the deal exactly, against
the read seat's style where the other seat is read (its best replies otherwise).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import NamedTuple

from basra import fast
from basra.observe import Observation, observe_state
from basra.rules import Rules
from basra.state import DealState

from .reading import MIN_PLAYS, StyleReader, style_moves
from .search import Policy, deal_margin, greedy_playout, sample_state, solve

__all__ = ["DEFAULT_THINK_MS", "MANY_PLAYERS_POLICY", "ROLLOUT_POLICY", "MasterBot",
           "MoveEstimate", "SearchSettings", "move_settings", "search_moves"]

DEFAULT_THINK_MS = 300
"""The master's time budget per move."""
ROLLOUT_POLICY = 3
"""The compiled search's rollout policy: 3, greedy keeping its sweepers for a richer floor
while the stock lasts (see :func:`basra.fast.kernels.policy_move`). Against the expert
over 100 duplicate matches at 8,000 samples a move it won 77 (margin 14.4 points a
deal) where greedy rollouts (policy 1) won 67 (12.7), and policy 2 (greedy less the next
player's best reply) 69 (11.5), three times slower (docs/strength.md). For two players:
with more, :data:`MANY_PLAYERS_POLICY`."""
MANY_PLAYERS_POLICY = 4
"""The rollout policy with more than two players: 4, the expert's play. With other seats
to model beside the next one, the rollouts must play them as players do: against two
experts over 150 three-player matches at 1,000 samples a move it won 83.3% where policy 3
at 5,000 won 31.3% (even: 33.3%); a master pair against an expert pair, 4-player
partnership, 75.0% of 200 (margin 15.1 points a deal) where policy 3 won 70.0% (9.9)
(docs/strength.md)."""
READ_TREE_PLAYERS = (2,)
"""The numbers of players the master searches with the tree once another seat's style
is read (:attr:`SearchSettings.read_tree`; flat sampling before, and with more players,
where it is not measured). Two players, with a flat root (:attr:`SearchSettings.flat_root`)
at 5,000 deals a move, over 400 duplicate matches: against greedy it won 87.5% where
flat sampling won 85.0% (2.3 ± 0.8 points a deal more on the same seeds), against the
expert 79.0% where it won 77.0% (1.5 ± 0.9) (docs/strength.md)."""
INFER_TAU = 0.0
"""Inference from the other seats' plays of the batch: each sample is weighted by how
likely their plays are with the hands it deals them, by a softmax of this temperature
over their moves' values as the rollout policy weighs them (the expert's for policy 4,
greedy's for 1, else greedy keeping sweepers; 0: every sample weighs the same). It pays
only when that model is the other seat's real play: sharp (0.05) with the expert's
values, it gains a point a deal against the expert and loses three against a master
(docs/strength.md). A seat whose style is read (:attr:`SearchSettings.read_styles`) is
read by its style whatever this is."""
MATCH_BONUS = 50.0
"""Points a sample is worth more (less) when its deal ends the match won (lost): near the
target the master plays for the match, not only for the deal's margin."""


WIN_CHANCE = False
"""Whether the compiled search values a sample by the chance to win the match from the
totals after its deal (two sides), rather than by the deal's margin and the bonus."""


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
    """How the master searches (the defaults are the master's play)."""

    policy: int | None = None
    """The compiled search's rollout policy (:func:`basra.fast.kernels.policy_move`): 1
    greedy, 2 greedy less the next player's best reply, 3 greedy keeping its sweepers,
    4 the expert's play (:func:`basra.fast.kernels.expert_move`, about five times slower
    a sample); None: by the rules (:meth:`rollout_policy`)."""
    infer_tau: float = INFER_TAU
    """The compiled search's inference temperature (0: none)."""
    prune: bool = True
    """Whether the compiled search stops sampling moves clearly worse than the best."""
    match_bonus: float = MATCH_BONUS
    """Points a sampled deal that ends the match is worth more (won) or less (lost)."""
    win_chance: bool = WIN_CHANCE
    """Two sides: a sampled deal is worth the chance to win the match from the totals
    after it (:func:`basra.fast.core.win_chances`) instead of its margin and bonus."""
    tree: bool = False
    """Search with information-set MCTS (:func:`basra.fast.core.observation_tree_search`)
    instead of flat determinized sampling, from the first move."""
    exploration: float = 100.0
    """The tree search's UCB width, in points: at 20 it lost six points a deal to flat
    sampling against a read seat; at 100, against a read seat, it played as flat sampling
    does against the expert and gained 2.4 points a deal against greedy (docs/strength.md)."""
    read_tree: bool | None = None
    """Search with the tree whenever another seat's style is read: that seat plays its
    style in the tree as in the rollouts, so the master's later moves of the deal are
    planned against what it does (flat sampling otherwise). None: by the rules
    (:data:`READ_TREE_PLAYERS`)."""
    flat_root: bool = True
    """With the tree: every root move is played on each sampled deal with the same
    rollout randomness, as flat sampling does, and the tree searches the later moves
    below each (:func:`basra.fast.core.observation_tree_search`'s ``flat_root``); the move
    played is then the best valued. False: the root's moves are chosen by UCB as the
    tree's other moves are, and the most visited is played."""
    batch_tree: bool = False
    """With the tree: it stops where the batch in progress ends (the rollout policies
    play on), rather than searching the later batches, whose hands no seat has seen.
    Against a read seat it played as the tree to the deal's end does (+0.5 ± 0.6 points
    a deal against greedy, +0.1 ± 0.7 against the expert, 400 matches each;
    docs/strength.md)."""
    model_unread: bool = False
    """Where the tree is used once a seat is read (:attr:`read_tree`): use it from the
    first move, a seat of no known style playing the rollout policy in the tree as in
    the rollouts (its moves not chosen by UCB, its plays not read). It gained 2.5 ± 1.6
    points a deal against the master of before, never read, and lost 1.5 ± 0.9 against
    the expert, read only later (docs/strength.md)."""
    model_unlike: bool = False
    """As :attr:`model_unread`, but only once every other seat's plays say it plays none
    of the styles read (:meth:`basra.bots.reading.StyleReader.plays_no_style`: another
    search player, a person); a level is searched as by default until it is read. Over
    400 matches against the master of before it played as the default does (−0.0 ± 1.0
    points a deal; docs/strength.md)."""
    read_styles: bool = True
    """Read the other seats' style from their plays of the match
    (:class:`basra.bots.reading.StyleReader`): a seat that plays as the expert or
    greedily plays so in the compiled search's rollouts, and its plays of the batch
    weigh the samples (:func:`basra.fast.core.observation_search`'s ``styles``)."""
    read_after: int = MIN_PLAYS
    """The fewest plays a style tells apart from other moves before a seat is read as
    playing it (:data:`basra.bots.reading.MIN_PLAYS`)."""
    style_tau: float | None = None
    """The temperature a read seat's plays of the batch are read at; None: the compiled
    search's (:data:`basra.fast.core.STYLE_TAU`)."""
    presume_style: bool = False
    """Until a seat is read, search as if it played the first style its plays so far do
    not contradict (:attr:`basra.bots.reading.StyleReader.presume`)."""
    read_solve: bool = True
    """When every card is known (the exact solve of a deal's last batch), play against
    a read seat's style: its turns are worth the mean of the moves its style would play
    (:func:`basra.bots.reading.style_moves`), not its best reply; a seat not read is
    taken to reply its best."""
    solve_rollouts: bool = False
    """Two players, a move of the batch before the last: the compiled search's rollouts
    play the deal's last batch exactly for the master and a seat not read (alpha-beta on
    the margin, a read seat playing its style), as the master plays it once the stock is
    empty, rather than by the rollout policy (:data:`basra.fast.kernels.SOLVE`)."""
    unread_policy: int | None = None
    """The rollout policy the compiled search plays the other seats of no known style
    (not read, or not yet) by; None: :meth:`rollout_policy`, as its own seat's. The
    expert's play (4), which predicts the master of before's plays better, lost 2.9 ±
    1.7 points a deal against it at 1,500 deals a move, and 2.0 ± 0.9 against greedy
    before greedy was read (docs/strength.md)."""
    compiled: bool = True
    """Search in compiled code when numba is there; False: the reference core's search
    (:func:`search_moves`: greedy rollouts, deal margins, no pruning), as the master
    searched before the compiled path."""

    def rollout_policy(self, rules: Rules) -> int:
        """The rollout policy searched with under ``rules``: the one set, else
        :data:`ROLLOUT_POLICY` for two players and :data:`MANY_PLAYERS_POLICY` for more."""
        if self.policy is not None:
            return self.policy
        return ROLLOUT_POLICY if rules.players == 2 else MANY_PLAYERS_POLICY

    def uses_tree(self, rules: Rules, styles: tuple[int | None, ...]) -> bool:
        """Whether it searches with the tree under ``rules``, given the styles read
        (:attr:`tree`, :attr:`read_tree`, :attr:`model_unread`)."""
        read_tree = self.read_tree if self.read_tree is not None else (
            rules.players in READ_TREE_PLAYERS)
        return self.tree or (read_tree and (self.model_unread or any(
            s is not None for s in styles)))


def move_settings(settings: SearchSettings, reader: StyleReader,
                  observation: Observation) -> SearchSettings:
    """How the master searches ``observation``: ``settings``, with
    :attr:`SearchSettings.model_unread` on where :attr:`SearchSettings.model_unlike` asks
    and ``reader`` says every other seat plays no style read."""
    if not (settings.model_unlike and settings.read_styles):
        return settings
    others = [s for s in observation.seats if s != observation.seat]
    if all(reader.plays_no_style(s) for s in others):
        return replace(settings, model_unread=True)
    return settings


def _solves_rollouts(settings: SearchSettings, observation: Observation) -> bool:
    """Whether the rollouts play the last batch exactly (:attr:`SearchSettings.solve_rollouts`):
    two players, the stock holding the last batch alone."""
    rules = observation.rules
    return settings.solve_rollouts and rules.players == 2 and (
        observation.stock_count == rules.players * rules.hand_size)


def _search(observation: Observation, seconds: float, seed: int, samples: int | None,
            settings: SearchSettings = SearchSettings(),
            styles: tuple[int | None, ...] = ()) -> list[tuple[float, float, int]]:
    """One worker's search, (sum, weight, samples) per move: compiled when it can be,
    else the reference core's (every sample weighs 1). ``styles``: each seat's style
    read from its plays, or None."""
    if settings.compiled and fast.available():
        from basra.fast.core import observation_search, observation_tree_search

        policy = settings.rollout_policy(observation.rules)
        if settings.uses_tree(observation.rules, styles):
            stats = observation_tree_search(observation, seconds, seed, samples,
                                            policy=policy,
                                            match_bonus=settings.match_bonus,
                                            exploration=settings.exploration,
                                            win_chance=settings.win_chance, styles=styles,
                                            flat_root=settings.flat_root,
                                            batch_only=settings.batch_tree,
                                            model_unread=settings.model_unread,
                                            style_tau=settings.style_tau,
                                            endgame=_solves_rollouts(settings, observation),
                                            unread_policy=settings.unread_policy)
            return list(zip(stats.sums, stats.weights, stats.visits, strict=True))
        stats = observation_search(observation, seconds, seed, samples,
                                   policy=policy, prune=settings.prune,
                                   match_bonus=settings.match_bonus,
                                   infer_tau=settings.infer_tau,
                                   win_chance=settings.win_chance, styles=styles,
                                   style_tau=settings.style_tau,
                                   endgame=_solves_rollouts(settings, observation),
                                   unread_policy=settings.unread_policy)
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


def _fully_known(observation: Observation) -> bool:
    return observation.rules.sides == 2 and observation.rules.players == 2 and (
        observation.stock_count == 0
    )


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
        self.reader = StyleReader(self.settings.read_after, self.settings.presume_style)
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
        if not self.settings.read_styles:
            return ()
        return self.reader.styles(len(observation.hand_counts))

    def _settings(self, observation: Observation) -> SearchSettings:
        """How it searches this move (:func:`move_settings`)."""
        return move_settings(self.settings, self.reader, observation)

    def estimates(self, observation: Observation) -> list[MoveEstimate]:
        """Every legal move's expected points margin to the end of the deal, best first."""
        moves = observation.legal_moves
        self.reader.observe(observation)
        styles = self._styles(observation)
        settings = self._settings(observation)
        if _fully_known(observation):
            sample = sample_state(observation, self.rng)  # the only consistent deal
            policies = _known_play(observation, styles) if settings.read_solve else {}
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

    def choose(self, observation: Observation) -> int:
        moves = observation.legal_moves
        if len(moves) == 1:
            self.reader.observe(observation)
            return moves[0]
        ranked = self.estimates(observation)
        if self._settings(observation).uses_tree(observation.rules,
                                                 self._styles(observation)) and (
                not _fully_known(observation)):
            # the tree search's choice is its most visited move (all alike with a flat
            # root, where the best valued is played)
            top = max(e.samples for e in ranked)
            ranked = [e for e in ranked if e.samples == top]
        best = ranked[0].value
        choices = [e.move for e in ranked if e.value >= best - 1e-9]
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)
