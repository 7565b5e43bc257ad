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
              help="How long to measure in all: a third for each of the three measurements.")
@click.option("--seed", type=Number(), default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bench(variant: str | None, players: int | None, rule_items: Sequence[str],
          rules_file: Path | None, seconds: float, seed: int, as_json: bool) -> None:
    """Measure random-playout speed of the engine on one core.

    Three measurements share SECONDS: whole random deals (deal, uniformly random legal
    moves, score) with the reference core's playout path, the same deals one step at a
    time (legal_moves + apply), then random deals by the compiled path that search uses
    (numba's; the reference core's figures are the pure-Python fallback).
    """
    from basra import fast as compiled
    from basra.fast.bench import bench_fast, bench_playouts, bench_steps

    name, rules = resolve_rules(variant, players, rule_items, rules_file)
    third = seconds / 3
    err.print(f"Measuring for {seconds:g} s: {third:g} s of random playouts, {third:g} s "
              f"step by step, then {third:g} s of compiled playouts.", soft_wrap=True)
    with progress_bar() as progress:
        task = progress.add_task("playouts", total=third)
        fast = bench_playouts(rules, third, seed,
                              lambda done: progress.update(task, completed=done))
        task = progress.add_task("steps", total=third)
        steps = bench_steps(rules, third, seed,
                            lambda done: progress.update(task, completed=done))
        task = progress.add_task("compiled", total=third)
        native = bench_fast(rules, third, seed,
                            lambda done: progress.update(task, completed=done))
    figures = {
        "variant": name,
        "players": rules.players,
        "deals_per_second": round(fast.deals_per_second, 1),
        "plays_per_second": round(fast.plays_per_second, 1),
        "step_deals_per_second": round(steps.deals_per_second, 1),
        "step_plays_per_second": round(steps.plays_per_second, 1),
        "fast_deals_per_second": (round(native.result.deals_per_second, 1)
                                  if native else None),
        "fast_plays_per_second": (round(native.result.plays_per_second, 1)
                                  if native else None),
        "fast_first_call_seconds": round(native.first_call_seconds, 3) if native else None,
    }
    if as_json:
        click.echo(json.dumps(figures))
        return
    out.print(f"{name}, {rules.players} players, one core:")
    out.print(f"  random playouts:   {fast.deals_per_second:9,.0f} deals/s "
              f"{fast.plays_per_second:11,.0f} plays/s")
    out.print(f"  step by step:      {steps.deals_per_second:9,.0f} deals/s "
              f"{steps.plays_per_second:11,.0f} plays/s")
    if native is None:
        out.print(f"  compiled path:     not available: {compiled.unavailable_reason()}",
                  markup=False)
    else:
        result = native.result
        out.print(f"  compiled path:     {result.deals_per_second:9,.0f} deals/s "
                  f"{result.plays_per_second:11,.0f} plays/s (first call "
                  f"{native.first_call_seconds:.2f} s: compiling, or loading the cache)")
