"""``basra bench``: random-playout speed of the engine on one core."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click

from basra.cli.common import cli, out, progress_bar, resolve_rules, rules_options


@cli.command()
@rules_options()
@click.option("--seconds", "-s", type=click.FloatRange(min=0.1), default=5.0, show_default=True,
              help="How long to measure each figure.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bench(variant: str | None, players: int | None, rule_items: Sequence[str],
          rules_file: Path | None, seconds: float, seed: int, as_json: bool) -> None:
    """Measure random-playout speed of the engine on one core.

    Plays whole random deals (deal, uniformly random legal moves, score) for SECONDS with
    the fast playout path, then for SECONDS one step at a time (legal_moves + apply).
    """
    from basra.bench import bench_playouts, bench_steps

    name, rules = resolve_rules(variant, players, rule_items, rules_file)
    with progress_bar() as progress:
        task = progress.add_task("playouts", total=seconds)
        fast = bench_playouts(rules, seconds, seed,
                              lambda done: progress.update(task, completed=done))
        task = progress.add_task("steps", total=seconds)
        steps = bench_steps(rules, seconds, seed,
                            lambda done: progress.update(task, completed=done))
    figures = {
        "variant": name,
        "players": rules.players,
        "deals_per_second": round(fast.deals_per_second, 1),
        "plays_per_second": round(fast.plays_per_second, 1),
        "step_deals_per_second": round(steps.deals_per_second, 1),
        "step_plays_per_second": round(steps.plays_per_second, 1),
    }
    if as_json:
        click.echo(json.dumps(figures))
        return
    out.print(f"{name}, {rules.players} players, one core:")
    out.print(f"  random playouts:   {fast.deals_per_second:9,.0f} deals/s "
              f"{fast.plays_per_second:11,.0f} plays/s")
    out.print(f"  step by step:      {steps.deals_per_second:9,.0f} deals/s "
              f"{steps.plays_per_second:11,.0f} plays/s")
