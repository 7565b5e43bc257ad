"""``basra replay``: a basra-record/1 file checked against the rules, deal by deal."""

from __future__ import annotations

import json
from pathlib import Path

import click

from basra.cli.common import UserError, cli, out, score_table, side_name
from basra.record import RecordError, loads, replay


@cli.command(name="replay")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print each deal's score and the result.")
def replay_command(file: Path, as_json: bool) -> None:
    """Check a basra-record/1 file against the rules and show it deal by deal."""
    try:
        record = loads(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise UserError(f"{file}: not a text file") from None
    try:
        match = replay(record)
    except RecordError as error:
        raise UserError(f"{file}: {error}") from None
    rules = match.rules
    deals = record["deals"]
    if as_json:
        click.echo(json.dumps({
            "valid": True,
            "variant": match.variant,
            "deals": [{"dealer": d["dealer"], "plays": len(d["plays"]),
                       "score": d.get("score")} for d in deals],
            "totals": list(match.totals),
            "result": record.get("result"),
        }))
        return
    names = [p["name"] for p in record["players"]]
    out.print(f"[bold]{file}[/]: a valid {match.variant} record, {rules.players} players: "
              + ", ".join(f"seat {i} {n}" for i, n in enumerate(names)))
    running = [0] * rules.sides
    for number, deal in enumerate(deals, 1):
        plays = deal["plays"]
        out.print()
        out.print(f"[bold]Deal {number}[/] (dealer seat {deal['dealer']}), floor "
                  f"{' '.join(deal['floor'])}, {len(plays)} plays")
        for play in plays:
            if play["basra"]:
                out.print(f"  basra: seat {play['seat']} {play['card']} takes "
                          f"{' '.join(play['captured'])}")
        if "score" in deal:
            score = deal["score"]
            for side, points in enumerate(score["total"]):
                running[side] += points
            out.print(score_table(rules, score, f"Deal {number} score"))
            out.print("Match totals: " + ", ".join(
                f"{side_name(rules, s)} {t}" for s, t in enumerate(running)))
        else:
            out.print("  (unfinished)")
    result = record.get("result")
    out.print()
    if result:
        out.print(f"[bold green]Winner: {side_name(rules, result['winner'])}[/] with "
                  f"{result['totals'][result['winner']]} points (target {result['target']}).")
    else:
        out.print("The match is unfinished.")
