"""``basra train``: train the learned evaluator's network (needs ``basra[train]``)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import click

from basra.cli.common import Number, UserError, cli, err, out, progress_bar
from basra.rules import make_rules

TRAIN_VARIANTS = ("egyptian", "pasur", "pisti")
"""The presets the shipped networks are trained on, one a family
(:data:`basra.neural.network.NETWORKS`)."""


@cli.command()
@click.option("--variant", type=click.Choice(TRAIN_VARIANTS), default="egyptian",
              show_default=True,
              help="The preset whose games it learns from: egyptian for Basra's network "
                   "(every Basra preset), pasur for Pasur's, pisti for the pile games'.")
@click.option("--out", "folder", type=click.Path(file_okay=False, path_type=Path),
              required=True,
              help="The run's folder: its checkpoints, and network.npz at the end. A rerun "
                   "with the same settings goes on from the last checkpoint.")
@click.option("--seed", type=Number(0), default=1, show_default=True,
              help="Seed of everything drawn: the same settings give the same weights.")
@click.option("--matches", type=Number(1), default=1000, show_default=True,
              help="Matches of the master's search to learn from.")
@click.option("--samples", type=Number(1), default=800, show_default=True,
              help="Sampled deals of the master's search a move.")
@click.option("--epochs", type=Number(1), default=12, show_default=True,
              help="Passes over the search positions.")
@click.option("--rounds", type=Number(0), default=2, show_default=True,
              help="Rounds of self-play after the imitation.")
@click.option("--deals", type=Number(1), default=3000, show_default=True,
              help="Deals of self-play a round.")
@click.option("--belief-matches", type=Number(0), default=1600, show_default=True,
              help="Matches of the master's search the master's belief learns from "
                   "(two-player Basra; 0: no belief).")
@click.option("--jobs", "-j", type=Number(1), default=2, show_default=True,
              help="Processes that play the matches and deals.")
@click.option("--ship", is_flag=True,
              help="Also write the network into the package's weights (for a checkout).")
def train(variant: str, folder: Path, seed: int, matches: int, samples: int, epochs: int,
          rounds: int, deals: int, belief_matches: int, jobs: int, ship: bool) -> None:
    """Train the network of the neural level (imitate the master's search, then improve
    by self-play) and the master's belief over the hidden cards (docs/neural.md)."""
    try:
        from basra.train.pipeline import BeliefConfig, TrainConfig, train_belief
        from basra.train.pipeline import train as run_training
    except ImportError as error:
        raise UserError(f"training needs JAX and Optax: pip install 'basra[train]' "
                        f"({error})") from None
    from basra.neural.belief import belief_path
    from basra.neural.network import weights_name, weights_path

    config = TrainConfig(variant=variant, seed=seed, matches=matches, samples=samples,
                         epochs=epochs, rounds=rounds, deals=deals, jobs=jobs)
    started = time.perf_counter()
    with progress_bar() as progress:

        class Bars:
            def task(self, description: str, total: int) -> Callable[[int], None]:
                bar = progress.add_task(description, total=total)
                return lambda done: progress.advance(bar, done)

            def line(self, text: str) -> None:
                progress.console.print(text)

        run_training(config, folder, Bars())
        belief = None
        if belief_matches:
            belief = train_belief(BeliefConfig(variant=variant, seed=seed,
                                               matches=belief_matches, jobs=jobs),
                                  folder, Bars())
    result = folder / "network.npz"
    out.print(f"network: {result} ({time.perf_counter() - started:.0f} s)")
    if belief is not None:
        out.print(f"belief: {folder / 'belief.npz'}")
    if ship:
        target = weights_path(weights_name(make_rules(variant)))
        shutil.copyfile(result, target)
        err.print(f"shipped as {target}")
        if belief is not None:
            shutil.copyfile(folder / "belief.npz", belief_path())
            err.print(f"shipped as {belief_path()}")
