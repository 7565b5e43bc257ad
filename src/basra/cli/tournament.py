"""``basra tournament``: a round robin of bots, a crosstable with Wilson intervals and an
Elo-style rating per bot."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import click
from rich.table import Table

from basra.arena.duplicate import ArenaError, wilson_interval
from basra.arena.tournament import run_tournament
from basra.bots import BOT_LEVELS, bot_label
from basra.cli.arena import cluster_runner
from basra.cli.common import (
    Number,
    UserError,
    cli,
    out,
    parse_bots,
    plural,
    print_table,
    progress_bar,
    resolve_rules,
    rules_options,
)


@cli.command()
@rules_options()
@click.option("--bots", "bots_text", required=True, metavar="A,B[,C...]",
              help=f"Two or more bots, each playing every other: {', '.join(BOT_LEVELS)}, "
                   "or cmd:COMMAND.")
@click.option("--matches", "-n", type=Number(), default=20, show_default=True,
              help="Matches per pairing, rounded up to a multiple of the players.")
@click.option("--seed", type=Number(), default=0, show_default=True,
              help="Seed of the first deal order (the next ones use seed + 1, ...); every "
                   "pairing plays the same deals.")
@click.option("--jobs", "-j", type=Number(), metavar="J",
              help="Worker processes (1: play in this process). [default: every core]")
@click.option("--think-ms", type=Number(1), default=1000, show_default=True,
              help="Time budget per move of the master bot, in milliseconds.")
@click.option("--max-deals", type=Number(1), default=1000, show_default=True,
              help="Stop a match still undecided after this many deals (half a win each).")
@click.option("--ray", "ray_address", metavar="ADDRESS",
              help="Play the matches on a Ray cluster (needs basra[ray]): auto, HOST:PORT, "
                   "or local for a private instance.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def tournament(variant: str | None, players: int | None, rule_items: Sequence[str],
               rules_file: Path | None, bots_text: str, matches: int, seed: int,
               jobs: int | None, think_ms: int, max_deals: int, ray_address: str | None,
               as_json: bool) -> None:
    """Play a round robin of duplicate matches between bots and rate them.

    Every pair of bots plays the same deals from every seat. Prints a crosstable (each
    bot's wins against each other bot, with a 95% Wilson interval), each bot's total and
    an Elo-style rating (Bradley-Terry, mean 1500). Needs a game of two sides: 2 players,
    or 4 in partnerships (a bot plays both seats of its side).
    """
    name, rules = resolve_rules(variant, players, rule_items, rules_file)
    given = [word for word in bots_text.split(",") if word.strip()]
    if len(given) < 2:
        raise UserError(f"--bots: a tournament needs at least 2 bots, not {len(given)} "
                        f"({bots_text!r})")
    parse_bots(bots_text, len(given), "--bots")  # checks the names
    bot_names = [bot_label(word) for word in given]
    if matches < 1:
        raise UserError(f"--matches must be at least 1, not {matches}")
    if jobs is None:
        jobs = os.cpu_count() or 1
    elif jobs < 1:
        raise UserError(f"--jobs must be at least 1, not {jobs}")
    if rules.sides != 2:
        raise UserError(f"a tournament needs a game of two sides (2 players, or 4 in "
                        f"partnerships), not {rules.players} players each on their own")
    runner = cluster_runner(ray_address, jobs)
    per_pair = -(-matches // rules.players) * rules.players
    pairs = len(bot_names) * (len(bot_names) - 1) // 2
    with progress_bar() as progress:
        task = progress.add_task("matches", total=per_pair * pairs)
        try:
            result = run_tournament(rules, name, bot_names, matches, seed, jobs=jobs,
                                    think_ms=think_ms, max_deals=max_deals,
                                    progress=lambda: progress.advance(task), runner=runner)
        except (ArenaError, RuntimeError) as error:
            raise UserError(str(error)) from None
    if as_json:
        click.echo(json.dumps({"variant": name, "players": rules.players, "seed": seed,
                               "matches_per_pairing": per_pair, **result.to_dict()}))
        return
    n = len(bot_names)
    order = sorted(range(n), key=lambda i: -result.ratings[i])
    table = Table()
    table.add_column("#", justify="right")
    table.add_column("bot", justify="left")
    for rank in range(1, n + 1):
        table.add_column(str(rank), justify="right")
    for column in ("wins", "win rate", "95% CI", "rating"):
        table.add_column(column, justify="right")
    for rank, i in enumerate(order, 1):
        cells = ["·" if i == j else f"{result.wins[i][j]}/{result.games[i][j]}"
                 for j in order]
        wins, games = result.total(i)
        lo, hi = wilson_interval(wins, games)
        table.add_row(str(rank), bot_names[i], *cells, f"{wins}/{games}",
                      f"{wins / games:.1%}", f"{lo * 100:.1f}–{hi * 100:.1f}%",
                      f"{result.ratings[i]:.0f}")
    print_table(table, f"Round robin of {name}: {pairs} pairings × {per_pair} duplicate "
                       f"matches, {result.seconds:.1f} s")
    out.print("A cell is the row's wins against the column's bot; the rating is Elo-style "
              "(Bradley-Terry, mean 1500). --json has every pairing's interval.",
              soft_wrap=True)
    undecided = sum(map(sum, result.undecided)) // 2
    if undecided:
        out.print(f"{plural(undecided, 'match')} undecided after {max_deals} deals (half a "
                  "win each; see --max-deals).")

