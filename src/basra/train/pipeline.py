"""The whole training of a network, from nothing to a weights file, in stages that each
leave a checkpoint in the run's folder (a rerun with the same settings goes on from the
last one):

1. ``search.npz``: positions of the master's search (:func:`basra.train.data.search_positions`);
2. ``imitation.npz``: the network fitted to them for ``epochs`` passes (5% held out to
   measure: the value head's error in points, how often the policy plays a move the
   search rates best);
3. ``round-K.npz``: ``rounds`` rounds of self-play, each ``deals`` deals of the network
   against itself (:func:`basra.train.data.selfplay_positions`), fitted together with as
   many search positions drawn afresh;
4. ``network.npz``: the last of them, the file the package ships
   (``src/basra/neural/weights/``).

Then, for two-player Basra (:func:`basra.neural.belief.applies`), the master's belief
(:func:`train_belief`): ``beliefs.npz`` and ``beliefs-held.npz``, the rows of
``belief_matches`` matches of the master's search and of a tenth as many more held out
to measure (:func:`basra.train.data.belief_positions`), and ``belief.npz``, the belief
fitted to them (the file the package ships beside the networks).

Everything is drawn from ``seed``: the same settings give the same weights.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

import jax
import numpy as np
import optax  # type: ignore[import-untyped]

from basra.neural.belief import Belief, applies
from basra.neural.network import Network
from basra.neural.tensor import observation_size
from basra.rules import make_rules

from .belief import even_loss, fit_belief, measure_belief, to_belief
from .data import Beliefs, Positions, belief_positions, search_positions, selfplay_positions
from .model import (
    VALUE_SCALE,
    Params,
    batch_of,
    from_network,
    heads,
    init_params,
    make_step,
    to_network,
)

__all__ = ["BELIEF_EPOCHS", "BELIEF_SAMPLES", "SELFPLAY_TEMPERATURE", "BeliefConfig",
           "Reporter", "TrainConfig", "train", "train_belief"]

SELFPLAY_TEMPERATURE = 0.5
"""The temperature self-play samples the policy at (its logits divided by it): sharper
than the policy, so the deals' margins say what its moves are worth when it plays well,
with some variety."""


BELIEF_SAMPLES = 300
"""Sampled deals a move of the search whose matches the belief learns from."""
BELIEF_EPOCHS = 4
"""Passes of the belief's fit over its rows."""


class Reporter(Protocol):
    """Where the stages report: a progress bar per stage, and lines of results."""

    def task(self, description: str, total: int) -> Callable[[int], None]:
        """A progress bar; the callable advances it."""
        ...

    def line(self, text: str) -> None:
        """One line of results."""
        ...


@dataclass(frozen=True)
class TrainConfig:
    """The settings of a training run (``basra train --help`` says each)."""

    variant: str = "egyptian"
    seed: int = 1
    matches: int = 1000
    samples: int = 800
    epochs: int = 12
    rounds: int = 2
    deals: int = 3000
    selfplay_epochs: int = 3
    batch: int = 256
    learning_rate: float = 1e-3
    jobs: int = 2

    def data_key(self) -> dict[str, object]:
        """The settings the search positions depend on."""
        return {"variant": self.variant, "seed": self.seed, "matches": self.matches,
                "samples": self.samples}


@dataclass(frozen=True)
class BeliefConfig:
    """The settings of the belief's training (``basra train --belief-matches``)."""

    variant: str = "egyptian"
    seed: int = 1
    matches: int = 1600
    jobs: int = 2


def _fit(params: Params, positions: Positions, epochs: int, config: TrainConfig,
         rng: np.random.Generator, report: Callable[[int], None]) -> Params:
    """``epochs`` passes of Adam (cosine-decayed rate) over ``positions``."""
    rows = len(positions)
    steps_per_epoch = max(1, rows // config.batch)
    schedule = optax.cosine_decay_schedule(config.learning_rate,
                                           max(1, epochs * steps_per_epoch), alpha=0.05)
    optimizer = optax.adamw(schedule, weight_decay=1e-4)
    state = optimizer.init(params)
    step = make_step(optimizer)
    moves = max(1, int(positions.mask.sum(axis=1).max()))
    for _ in range(epochs):
        order = rng.permutation(rows)
        for k in range(steps_per_epoch):
            chosen = order[k * config.batch:(k + 1) * config.batch]
            params, state, _ = step(params, state, batch_of(positions, chosen, moves))
        report(1)
    return params


def _measure(params: Params, positions: Positions) -> tuple[float, float]:
    """On held-out search positions: the value head's mean absolute error (points) and
    the share of positions where the policy's move is one the search rates best."""
    moves = max(1, int(positions.mask.sum(axis=1).max()))
    errors: list[float] = []
    agree = 0
    for start in range(0, len(positions), 1024):
        rows = np.arange(start, min(start + 1024, len(positions)))
        observations, features, mask, targets = batch_of(positions, rows, moves)
        logits, values = heads(params, observations, features)
        logits_np = np.where(np.asarray(mask), np.asarray(logits), -np.inf)
        values_np = np.asarray(values) * VALUE_SCALE
        targets_np = np.asarray(targets)
        known = np.asarray(mask) & ~np.isnan(targets_np)
        errors.extend(np.abs(values_np - targets_np)[known].tolist())
        best = np.where(known, targets_np, -np.inf).max(axis=1)
        picked = np.take_along_axis(targets_np, logits_np.argmax(axis=1)[:, None], 1)[:, 0]
        agree += int(np.sum(picked >= best - 1e-6))
    return float(np.mean(errors)), agree / max(1, len(positions))


def _split(positions: Positions, rng: np.random.Generator) -> tuple[Positions, Positions]:
    order = rng.permutation(len(positions))
    held = max(1, len(positions) // 20)

    def take(rows: np.ndarray[tuple[int], np.dtype[np.int64]]) -> Positions:
        return Positions(positions.observations[rows], positions.moves[rows],
                         positions.mask[rows], positions.values[rows])

    return take(order[held:]), take(order[:held])


def train(config: TrainConfig, folder: Path, reporter: Reporter) -> Network:
    """Run (or go on with) the training in ``folder``; the final network."""
    folder.mkdir(parents=True, exist_ok=True)
    settings = folder / "config.json"
    fresh = not settings.exists() or json.loads(settings.read_text()) != asdict(config)
    if fresh:
        for stale in folder.glob("*.npz"):
            if stale.name != "search.npz":
                stale.unlink()
    data_key = folder / "search-key.json"
    if data_key.exists() and json.loads(data_key.read_text()) != config.data_key():
        (folder / "search.npz").unlink(missing_ok=True)
    settings.write_text(json.dumps(asdict(config), indent=2) + "\n")
    rules = make_rules(config.variant)

    search_file = folder / "search.npz"
    if search_file.exists():
        positions = Positions.load(search_file)
        reporter.line(f"search positions: {len(positions):,} (from {search_file})")
    else:
        positions = search_positions(
            rules, config.variant, config.matches, config.samples, config.seed,
            jobs=config.jobs,
            progress=reporter.task("master's search: matches", config.matches))
        positions.save(search_file)
        data_key.write_text(json.dumps(config.data_key()) + "\n")
        reporter.line(f"search positions: {len(positions):,}")

    rng = np.random.default_rng(config.seed)
    fit_rows, held = _split(positions, rng)
    imitation_file = folder / "imitation.npz"
    if imitation_file.exists():
        params = from_network(Network.from_file(imitation_file))
    else:
        params = init_params(jax.random.PRNGKey(config.seed),
                             observation_size(rules))
        params = _fit(params, fit_rows, config.epochs, config, rng,
                      reporter.task("imitation epochs", config.epochs))
        to_network(params).save(imitation_file)
    error, agree = _measure(params, held)
    reporter.line(f"imitation: value error {error:.2f} points, plays the search's best "
                  f"move {agree:.1%} (held-out positions: {len(held):,})")

    for round_number in range(1, config.rounds + 1):
        round_file = folder / f"round-{round_number}.npz"
        if round_file.exists():
            params = from_network(Network.from_file(round_file))
            continue
        own = selfplay_positions(
            rules, config.variant, config.deals, to_network(params),
            config.seed * 1000 + round_number, temperature=SELFPLAY_TEMPERATURE,
            jobs=config.jobs,
            progress=reporter.task(f"self-play round {round_number}: deals", config.deals))
        drawn = rng.choice(len(fit_rows), size=min(len(fit_rows), len(own)), replace=False)
        mixed = Positions.join([own, Positions(fit_rows.observations[drawn],
                                               fit_rows.moves[drawn], fit_rows.mask[drawn],
                                               fit_rows.values[drawn])])
        params = _fit(params, mixed, config.selfplay_epochs, config, rng,
                      reporter.task(f"self-play round {round_number}: epochs",
                                    config.selfplay_epochs))
        to_network(params).save(round_file)
        error, agree = _measure(params, held)
        reporter.line(f"round {round_number}: {len(own):,} self-play positions; value "
                      f"error {error:.2f} points, plays the search's best move {agree:.1%}")

    network = to_network(params)
    network.save(folder / "network.npz")
    return network


def _belief_rows(config: BeliefConfig, path: Path, matches: int, seed: int,
                 reporter: Reporter, label: str) -> Beliefs:
    if path.exists():
        return Beliefs.load(path)
    rows = belief_positions(make_rules(config.variant, 2), config.variant, matches,
                            BELIEF_SAMPLES, seed, jobs=config.jobs,
                            progress=reporter.task(label, matches))
    rows.save(path)
    return rows


def train_belief(config: BeliefConfig, folder: Path, reporter: Reporter) -> Belief | None:
    """Train (or go on with) the master's belief in ``folder``; None where it does not
    apply (the variant is not of Basra's family)."""
    if not applies(make_rules(config.variant, 2)):
        reporter.line(f"belief: none for {config.variant} (two-player Basra alone)")
        return None
    folder.mkdir(parents=True, exist_ok=True)
    key_file = folder / "belief-config.json"
    if not key_file.exists() or json.loads(key_file.read_text()) != asdict(config):
        for stale in ("beliefs.npz", "beliefs-held.npz", "belief.npz"):
            (folder / stale).unlink(missing_ok=True)
    key_file.write_text(json.dumps(asdict(config), indent=2) + "\n")
    rows = _belief_rows(config, folder / "beliefs.npz", config.matches, config.seed,
                        reporter, "belief: matches")
    held = _belief_rows(config, folder / "beliefs-held.npz", max(1, config.matches // 10),
                        config.seed + 7919, reporter, "belief: held-out matches")
    result = folder / "belief.npz"
    if result.exists():
        belief = Belief.from_file(result)
    else:
        params = fit_belief(rows, BELIEF_EPOCHS, config.seed,
                            progress=reporter.task("belief: epochs", BELIEF_EPOCHS))
        belief = to_belief(params)
        belief.save(result)
    params = {name: jax.numpy.asarray(value) for name, value in belief.arrays.items()}
    reporter.line(f"belief: cross-entropy {measure_belief(params, held):.4f} against "
                  f"{even_loss(held):.4f} for even chances ({len(rows):,} rows, "
                  f"{len(held):,} held out)")
    return belief
