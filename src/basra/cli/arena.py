"""``basra arena``: duplicate matches between bots, compared with confidence intervals."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import click
from rich.table import Table

from basra.arena.duplicate import ArenaError, Runner, run_arena
from basra.bots import BOT_LEVELS, bot_label
from basra.cli.common import (
    Number,
    UserError,
    bonus_word,
    cli,
    out,
    parse_bots,
    plural,
    print_table,
    progress_bar,
    resolve_rules,
    rules_options,
)


def cluster_runner(address: str | None, jobs: int | None) -> Runner | None:
    """The Ray runner of ``--ray ADDRESS`` (None without it); a one-line error, exit 2,
    when Ray is not installed. Ray is imported only here, only when asked for."""
    if address is None:
        return None
    if not address.strip():
        raise UserError("--ray needs an address: auto, HOST:PORT or local")
    from basra.arena.raycluster import ClusterError, RayMissingError, ray_runner

    try:
        return ray_runner(address.strip(), num_cpus=jobs)
    except (RayMissingError, ClusterError) as error:
        raise UserError(str(error)) from None


@cli.command()
@rules_options()
@click.option("--bots", "bots_text", required=True, metavar="A,B[,C,D]",
              help=f"One bot per seat, or in partnerships one per side: "
                   f"{', '.join(BOT_LEVELS)}, or cmd:COMMAND.")
@click.option("--matches", "-n", type=Number(), default=100, show_default=True,
              help="Matches to play, rounded up to a multiple of the players (each deal "
                   "order is played once per seat rotation).")
@click.option("--seed", type=Number(), default=0, show_default=True,
              help="Seed of the first deal order (the next ones use seed + 1, ...).")
@click.option("--jobs", "-j", type=Number(), metavar="J",
              help="Worker processes (1: play in this process). [default: every core]")
@click.option("--think-ms", type=Number(1), default=300, show_default=True,
              help="Time budget per move of the master bot, in milliseconds.")
@click.option("--records", "records_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write one basra-record/1 file per match into this directory "
                   "(arena-SEED-rROTATION.json).")
@click.option("--max-deals", type=Number(1), default=1000, show_default=True,
              help="Stop a match still undecided after this many deals (tie_rule=raise can "
                   "run on); it counts as lost by every bot.")
@click.option("--ray", "ray_address", metavar="ADDRESS",
              help="Play the matches on a Ray cluster (needs basra[ray]): auto for the one "
                   "running on this machine, HOST:PORT, or local for a private instance.")
@click.option("--master-samples", type=Number(1), default=None, metavar="N",
              help="The master searches N samples a move instead of --think-ms: the same "
                   "play on any machine, however busy.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def arena(variant: str | None, players: int | None, rule_items: Sequence[str],
          rules_file: Path | None, bots_text: str, matches: int, seed: int, jobs: int | None,
          think_ms: int, records_dir: Path | None, max_deals: int, ray_address: str | None,
          master_samples: int | None, as_json: bool) -> None:
    """Play duplicate matches between bots and compare them.

    Every deal order is played once per seat rotation, so each bot gets each seat's cards
    and the luck of the deal cancels. Reports each bot's match win rate with a 95%
    (Wilson) interval, its side's points and basras per deal, and its median time per move.
    """
    name, rules = resolve_rules(variant, players, rule_items, rules_file)
    given = [word for word in bots_text.split(",") if word.strip()]
    per_side = rules.partnership and len(given) == rules.sides
    if len(given) != rules.players and not per_side:
        sides = f" or one per side ({rules.sides})" if rules.partnership else ""
        raise UserError(f"--bots: an arena needs one bot per seat ({rules.players}){sides}, "
                        f"not {len(given)} ({bots_text!r})")
    parse_bots(bots_text, rules.players, "--bots", rules.sides)  # checks the names
    bot_names = [bot_label(word) for word in given]
    if matches < 1:
        raise UserError(f"--matches must be at least 1, not {matches}")
    if jobs is None:
        jobs = os.cpu_count() or 1
    elif jobs < 1:
        raise UserError(f"--jobs must be at least 1, not {jobs}")
    runner = cluster_runner(ray_address, jobs)
    played = -(-matches // rules.players) * rules.players
    with progress_bar() as progress:
        task = progress.add_task("matches", total=played)
        try:
            result = run_arena(rules, name, bot_names, matches, seed, jobs=jobs,
                               think_ms=think_ms, records_dir=records_dir, max_deals=max_deals,
                               progress=lambda: progress.advance(task), runner=runner,
                               samples=master_samples)
        except (ArenaError, RuntimeError) as error:
            raise UserError(str(error)) from None
    if as_json:
        summary = {"variant": name, "players": rules.players, "seed": seed, "jobs": jobs,
                   **({"master_samples": master_samples} if master_samples else {}),
                   **({"ray": ray_address} if ray_address else {}), **result.to_dict()}
        if records_dir is not None:
            summary["records"] = str(records_dir)
        click.echo(json.dumps(summary))
        return
    rounded = f" ({matches} asked for)" if played != matches else ""
    table = Table()
    for column in ("bot", "wins", "win rate", "95% CI", "pts/deal",
                   f"{bonus_word(rules, name)}s/deal", "ms/move"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for i, bot in enumerate(result.bots):
        lo, hi = result.win_rate_ci95[i]
        table.add_row(
            bot, str(result.wins[i]), f"{result.win_rate[i]:.1%}",
            f"{lo * 100:.1f}–{hi * 100:.1f}%", f"{result.points_per_deal[i]:.2f}",
            f"{result.basras_per_deal[i]:.3f}", f"{result.median_ms[i]:.3f}",
        )
    print_table(table, f"{played} duplicate matches{rounded} of {name}: {result.seeds} deal "
                       f"orders × {rules.players} seatings, {result.deals} deals, "
                       f"{result.seconds:.1f} s")
    if result.unfinished:
        out.print(f"{plural(result.unfinished, 'match')} still undecided after {max_deals} "
                  "deals (stopped, lost by every bot; see --max-deals).")
    if records_dir is not None:
        out.print(f"Records written to {records_dir}/", soft_wrap=True)
