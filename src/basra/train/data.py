"""Training positions: what a seat saw, its legal moves and what each move was worth.

Two sources, one format (:class:`Positions`):

- **the master's search** (:func:`search_positions`): matches in which every seat plays
  the best move of the master's flat determinized search (``samples`` deals a move, no
  pruning, deal margins only; one move in ``explore`` at random, so the positions are
  varied), each decision stored with every legal move's searched value;
- **self-play** (:func:`selfplay_positions`): deals the network plays against itself
  (sampling its policy), each decision stored with the deal margin the move's side got
  in the end, for the move played alone.

A position is its observation tensor (:mod:`basra.neural.tensor`), the features of up to
``MAX_MOVES`` legal moves (:func:`basra.neural.network.move_features`), a mask of the real
ones and their value targets (NaN where a move has none).

The master's belief (:mod:`basra.neural.belief`) learns from rows of its own
(:class:`Beliefs`, :func:`belief_positions`): matches of the same search, where each
unseen card of a decision is a row, labelled with whether the other seat held it (the
one place the hidden hands are read: training).
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from basra.bots.master import SearchSettings
from basra.fast.core import observation_search
from basra.match import Match
from basra.neural.belief import CARD_FEATURES, belief_inputs
from basra.neural.network import MOVE_FEATURES, Network, move_features
from basra.neural.tensor import encode_observation, observation_size
from basra.observe import Observation, observe
from basra.rules import Rules

__all__ = ["MAX_MOVES", "Beliefs", "Positions", "belief_positions", "search_positions",
           "selfplay_positions"]

Rows = TypeVar("Rows")

MAX_MOVES = 16
"""The most legal moves of a position kept (the first ones, in ``legal_moves`` order)."""


@dataclass
class Positions:
    """Decisions for training, one row each."""

    observations: npt.NDArray[np.float16]
    moves: npt.NDArray[np.float16]
    """Each legal move's features (``[rows, MAX_MOVES, MOVE_FEATURES]``)."""
    mask: npt.NDArray[np.bool_]
    values: npt.NDArray[np.float32]
    """Each move's value in points (NaN: no target for that move)."""

    def __len__(self) -> int:
        return len(self.observations)

    @classmethod
    def join(cls, parts: list[Positions]) -> Positions:
        return cls(np.concatenate([p.observations for p in parts]),
                   np.concatenate([p.moves for p in parts]),
                   np.concatenate([p.mask for p in parts]),
                   np.concatenate([p.values for p in parts]))

    def save(self, path: Path) -> None:
        np.savez_compressed(path, observations=self.observations, moves=self.moves,
                            mask=self.mask, values=self.values)

    @classmethod
    def load(cls, path: Path) -> Positions:
        with np.load(path) as data:
            return cls(data["observations"], data["moves"], data["mask"], data["values"])


@dataclass
class Beliefs:
    """Rows for the belief (:mod:`basra.neural.belief`), one per unseen card of a
    decision: its features, whether the other seat held it, and the chance it would
    have if every unseen card were alike (the other hand's size / the unseen cards)."""

    features: npt.NDArray[np.float32]
    held: npt.NDArray[np.bool_]
    chance: npt.NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.features)

    @classmethod
    def join(cls, parts: list[Beliefs]) -> Beliefs:
        if not parts:
            return cls(np.zeros((0, CARD_FEATURES), np.float32), np.zeros(0, np.bool_),
                       np.zeros(0, np.float32))
        return cls(np.concatenate([p.features for p in parts]),
                   np.concatenate([p.held for p in parts]),
                   np.concatenate([p.chance for p in parts]))

    def save(self, path: Path) -> None:
        np.savez_compressed(path, features=self.features, held=self.held,
                            chance=self.chance)

    @classmethod
    def load(cls, path: Path) -> Beliefs:
        with np.load(path) as data:
            return cls(data["features"], data["held"], data["chance"])


class _Builder:
    """Rows appended one decision at a time."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.rows: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32],
                              list[float]]] = []

    def add(self, view: Observation, values: list[float]) -> None:
        self.rows.append((encode_observation(view), move_features(view)[:MAX_MOVES],
                          values[:MAX_MOVES]))

    def build(self) -> Positions:
        count = len(self.rows)
        out = Positions(np.zeros((count, self.size), np.float16),
                        np.zeros((count, MAX_MOVES, MOVE_FEATURES), np.float16),
                        np.zeros((count, MAX_MOVES), np.bool_),
                        np.full((count, MAX_MOVES), np.nan, np.float32))
        for row, (tensor, features, values) in enumerate(self.rows):
            n = len(features)
            out.observations[row] = tensor
            out.moves[row, :n] = features
            out.mask[row, :n] = True
            out.values[row, :n] = values
        return out


def _searched_decisions(rules: Rules, variant: str, seed: int, samples: int,
                        explore: float) -> Iterator[tuple[Match, Observation, list[float]]]:
    """One match of the master's flat search against itself: each decision of more than
    one move (the match, the view, every move's searched value) before it is played."""
    rng = random.Random(seed)
    policy = SearchSettings().rollout_policy(rules)
    match = Match(rules, seed, variant=variant)
    while not match.is_over and len(match.deals) < 40:
        view = observe(match, match.state.to_play)
        moves = view.legal_moves
        if len(moves) == 1:
            match.play(moves[0])
            continue
        stats = observation_search(view, 0.0, rng.getrandbits(32), samples, policy=policy,
                                   prune=False)
        values = [s / w for s, w in zip(stats.sums, stats.weights, strict=True)]
        yield match, view, values
        best = max(range(len(moves)), key=values.__getitem__)
        match.play(moves[rng.randrange(len(moves))] if rng.random() < explore
                   else moves[best])


def _search_match(rules: Rules, variant: str, seed: int, samples: int,
                  explore: float) -> Positions:
    """One match of the master's flat search against itself, every decision kept."""
    rows = _Builder(observation_size(rules))
    for _match, view, values in _searched_decisions(rules, variant, seed, samples, explore):
        rows.add(view, values)
    return rows.build()


def _belief_match(rules: Rules, variant: str, seed: int, samples: int,
                  explore: float) -> Beliefs:
    """One match of the master's flat search against itself: at each decision after the
    other seat's first play of a batch, every unseen card's features and whether that
    seat held it."""
    parts: list[Beliefs] = []
    for match, view, _values in _searched_decisions(rules, variant, seed, samples,
                                                    explore):
        other = 1 - view.seat
        readable = belief_inputs(view)
        if readable is None or not view.hand_counts[other]:
            continue
        unseen, features = readable
        hand = match.state.hands[other]
        parts.append(Beliefs(features,
                             np.array([hand >> card & 1 for card in unseen], np.bool_),
                             np.full(len(unseen), view.hand_counts[other] / len(unseen),
                                     np.float32)))
    return Beliefs.join(parts)


def _selfplay_deals(rules: Rules, variant: str, seed: int, deals: int,
                    network: Network, temperature: float) -> Positions:
    """``deals`` deals the network plays against itself, sampling its policy."""
    rng = np.random.default_rng(seed)
    rows = _Builder(observation_size(rules))
    done = 0
    while done < deals:
        match = Match(rules, seed * 1000 + done, variant=variant)
        deal = match.deals[-1]
        mine: list[tuple[Observation, int, int]] = []
        while deal.score is None:
            view = observe(match, match.state.to_play)
            moves = view.legal_moves
            if len(moves) == 1:
                match.play(moves[0])
                continue
            logits, _ = network.evaluate(view)
            chances = np.exp((logits - logits.max()) / temperature)
            pick = int(rng.choice(len(moves), p=chances / chances.sum()))
            mine.append((view, pick, view.side))
            match.play(moves[pick])
        total = deal.score.total
        for view, pick, side in mine:
            values = [float("nan")] * len(view.legal_moves)
            others = [points for s, points in enumerate(total) if s != side]
            values[pick] = total[side] - sum(others) / len(others)
            rows.add(view, values)
        done += 1
    return rows.build()


def _run(tasks: list[tuple[Callable[[], Rows], int]], jobs: int,
         progress: Callable[[int], None]) -> list[Rows]:
    """The tasks' positions, in task order; ``progress`` gets each task's units (matches,
    deals) as it ends."""
    parts: list[Rows] = []
    if jobs <= 1:
        for task, units in tasks:
            parts.append(task())
            progress(units)
    else:
        # forkserver: the training process runs JAX's threads, which a fork would copy
        # mid-flight
        context = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            for part, (_, units) in zip(pool.map(_call, [t for t, _ in tasks]), tasks,
                                        strict=True):
                parts.append(part)
                progress(units)
    return parts


def _call(task: Callable[[], Rows]) -> Rows:
    return task()


def _chunks(total: int, size: int) -> Iterator[int]:
    while total > 0:
        yield min(size, total)
        total -= size


def search_positions(rules: Rules, variant: str, matches: int, samples: int, seed: int,
                     *, explore: float = 0.1, jobs: int = 1,
                     progress: Callable[[int], None] = lambda matches: None) -> Positions:
    """The decisions of ``matches`` matches of the master's search (see the module);
    ``progress`` is told of each match played."""
    tasks: list[tuple[Callable[[], Positions], int]] = [
        (partial(_search_match, rules, variant, seed * 100_003 + k, samples, explore), 1)
        for k in range(matches)]
    return Positions.join(_run(tasks, jobs, progress))


def selfplay_positions(rules: Rules, variant: str, deals: int, network: Network,
                       seed: int, *, temperature: float = 1.0, jobs: int = 1,
                       progress: Callable[[int], None] = lambda deals: None) -> Positions:
    """The decisions of ``deals`` deals of self-play (see the module); ``progress`` is
    told of the deals played."""
    tasks: list[tuple[Callable[[], Positions], int]] = [
        (partial(_selfplay_deals, rules, variant, seed * 100_003 + k, count, network,
                 temperature), count)
        for k, count in enumerate(_chunks(deals, 20))]
    return Positions.join(_run(tasks, jobs, progress))


def belief_positions(rules: Rules, variant: str, matches: int, samples: int, seed: int,
                     *, explore: float = 0.1, jobs: int = 1,
                     progress: Callable[[int], None] = lambda matches: None) -> Beliefs:
    """The belief's rows from ``matches`` matches of the master's search (two players):
    see :class:`Beliefs`; ``progress`` is told of each match played."""
    tasks: list[tuple[Callable[[], Beliefs], int]] = [
        (partial(_belief_match, rules, variant, seed * 100_003 + k, samples, explore), 1)
        for k in range(matches)]
    return Beliefs.join(_run(tasks, jobs, progress))
