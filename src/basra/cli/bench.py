"""``basra bench``: random-playout speed of the engine on one core."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click

from basra.cli.common import (
    Number,
    cli,
    err,
    out,
    progress_bar,
    resolve_rules,
    rules_options,
)


@cli.command()
@rules_options()
@click.option("--seconds", "-s", type=Number(0.1, whole=False), default=10.0, show_default=True,
              help="How long to measure in all: half for each of the two measurements.")
@click.option("--seed", type=Number(), default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bench(variant: str | None, players: int | None, rule_items: Sequence[str],
          rules_file: Path | None, seconds: float, seed: int, as_json: bool) -> None:
    """Measure random-playout speed of the engine on one core.

    Two measurements share SECONDS: whole random deals (deal, uniformly random legal
    moves, score) with the fast playout path for the first half, then the same deals
    one step at a time (legal_moves + apply) for the second.
    """
    from basra.bench import bench_playouts, bench_steps

    name, rules = resolve_rules(variant, players, rule_items, rules_file)
    half = seconds / 2
    err.print(f"Measuring for {seconds:g} s: {half:g} s of random playouts, then {half:g} s "
              "step by step.", soft_wrap=True)
    with progress_bar() as progress:
        task = progress.add_task("playouts", total=half)
        fast = bench_playouts(rules, half, seed,
                              lambda done: progress.update(task, completed=done))
        task = progress.add_task("steps", total=half)
        steps = bench_steps(rules, half, seed,
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
