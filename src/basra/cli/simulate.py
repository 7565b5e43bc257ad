"""``basra simulate``: complete matches between computer players, summarised."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import click
from rich.table import Table

from basra.arena.duplicate import claim_record_paths, play_bot_match, side_totals
from basra.bots import BOT_LEVELS
from basra.cli.common import (
    Number,
    bonus_word,
    cli,
    out,
    parse_bots,
    plural,
    print_table,
    progress_bar,
    resolve_rules,
    rules_options,
    side_name,
)
from basra.record import Player, dumps, match_record


@cli.command()
@rules_options()
@click.option("--matches", "-n", type=Number(1), default=10, show_default=True,
              help="Number of matches to play.")
@click.option("--seed", type=Number(), default=0, show_default=True,
              help="Seed of the first match (match i uses seed + i).")
@click.option("--bots", "bots_text", default="random", show_default=True, metavar="A,B,..",
              help=f"One bot for every seat, one per seat or one per side: "
                   f"{', '.join(BOT_LEVELS)}, or cmd:COMMAND.")
@click.option("--records", "records_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write one basra-record/1 file per match into this directory.")
@click.option("--think-ms", type=Number(1), default=300, show_default=True,
              help="Time budget per move of the master bot, in milliseconds.")
@click.option("--max-deals", type=Number(1), default=1000, show_default=True,
              help="Stop a match still undecided after this many deals (tie_rule=raise can "
                   "run on); it is recorded unfinished.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def simulate(variant: str | None, players: int | None, rule_items: Sequence[str],
             rules_file: Path | None, matches: int, seed: int, bots_text: str,
             records_dir: Path | None, think_ms: int, max_deals: int, as_json: bool) -> None:
    """Play complete matches between computer players and summarise them."""
    name, rules = resolve_rules(variant, players, rule_items, rules_file)
    bot_names = parse_bots(bots_text, rules.players, "--bots", rules.sides)
    paths: list[Path] = []
    if records_dir is not None:
        paths = claim_record_paths(records_dir, [f"match-{seed + i}.json" for i in range(matches)])
    wins = [0] * rules.sides
    points = [0] * rules.sides
    basras = [0] * rules.sides
    deals = unfinished = 0
    started = time.perf_counter()
    with progress_bar() as progress:
        task = progress.add_task("matches", total=matches)
        for i in range(matches):
            match_seed = seed + i
            match, _ = play_bot_match(
                rules, name, match_seed, bot_names,
                [match_seed * 10 + seat for seat in range(rules.players)],
                think_ms=think_ms, workers=None, max_deals=max_deals)
            if match.winner is None:
                unfinished += 1
            else:
                wins[match.winner] += 1
            match_deals, match_points, match_basras = side_totals(match)
            deals += match_deals
            for side in range(rules.sides):
                points[side] += match_points[side]
                basras[side] += match_basras[side]
            if paths:
                record = match_record(match, [Player(b, "bot") for b in bot_names])
                with paths[i].open("x", encoding="utf-8") as file:
                    file.write(dumps(record))
            progress.advance(task)
    seconds = time.perf_counter() - started
    summary = {
        "variant": name,
        "players": rules.players,
        "bots": bot_names,
        "matches": matches,
        "deals": deals,
        "wins": wins,
        "unfinished": unfinished,
        "points_per_deal": [round(p / deals, 3) for p in points],
        "basras_per_deal": [round(b / deals, 3) for b in basras],
        "seconds": round(seconds, 3),
    }
    if records_dir is not None:
        summary["records"] = str(records_dir)
    if as_json:
        click.echo(json.dumps(summary))
        return
    table = Table()
    for column in ("side", "bots", "wins", "points/deal", f"{bonus_word(rules, name)}s/deal"):
        table.add_column(column)
    for side in range(rules.sides):
        seats = [s for s in range(rules.players) if rules.side_of[s] == side]
        table.add_row(
            side_name(rules, side), ", ".join(bot_names[s] for s in seats), str(wins[side]),
            f"{points[side] / deals:.2f}", f"{basras[side] / deals:.3f}",
        )
    print_table(table, f"{matches} matches of {name}, {deals} deals, {seconds:.1f} s")
    if unfinished:
        out.print(f"{plural(unfinished, 'match')} still undecided after {max_deals} deals "
                  "(stopped; see --max-deals).")
    if records_dir is not None:
        out.print(f"Records written to {records_dir}/", soft_wrap=True)
