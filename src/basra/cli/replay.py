"""``basra replay``: a basra-record/1 file checked against the rules, deal by deal."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.markup import escape

from basra.cards import parse_card
from basra.cli.common import (
    UserError,
    bonus_word,
    card_markup,
    cards_markup,
    cli,
    out,
    print_table,
    read_text,
    score_table,
    seat_label,
    seat_short_name,
    side_name,
)
from basra.record import RecordError, loads, replay
from basra.rules import PILE_FAMILIES


@cli.command(name="replay")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print each deal's score and the result.")
def replay_command(file: Path, as_json: bool) -> None:
    """Check a basra-record/1 file against the rules and show it deal by deal."""
    text = read_text(file, "record file")
    try:
        record = loads(text)
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
    players = [(p["name"], p.get("kind", "bot")) for p in record["players"]]
    labels = [seat_label(seat, name, kind) for seat, (name, kind) in enumerate(players)]
    short = [seat_short_name(seat, name, kind) for seat, (name, kind) in enumerate(players)]
    out.print(f"[bold]{escape(str(file))}[/]: a valid {escape(match.variant)} record, "
              f"{rules.players} players" + (" in partnerships" if rules.partnership else ""),
              soft_wrap=True)
    for seat, label in enumerate(labels):
        out.print(f"  seat {seat}: {escape(label)}")
    word = bonus_word(rules, match.variant)
    pile = rules.family in PILE_FAMILIES
    running = [0] * rules.sides
    for number, deal in enumerate(deals, 1):
        plays = deal["plays"]
        out.print()
        floor = cards_markup([parse_card(c) for c in deal["floor"]])
        if pile:
            down = len(deal["floor_down"])
            floor = f"pile {floor} (bottom to top" + (f", {down} face down)" if down else ")")
            if deal.get("bottom_card"):
                floor += f", bottom card {card_markup(parse_card(deal['bottom_card']))}"
        else:
            floor = f"floor {floor}"
        out.print(f"[bold]Deal {number}[/] (dealer: {escape(short[deal['dealer']])}), "
                  f"{floor}, {len(plays)} plays")
        for play in plays:
            if play["basra"]:
                taken = cards_markup([parse_card(c) for c in play["captured"]])
                points = f" ({play['pisti']} points)" if pile else ""
                out.print(f"  {word} by {escape(short[play['seat']])}: "
                          f"{card_markup(parse_card(play['card']))} takes {taken}{points}")
        if "score" in deal:
            score = deal["score"]
            for side, points in enumerate(score["total"]):
                running[side] += points
            print_table(score_table(rules, score, short, match.variant),
                        f"Deal {number} score")
            out.print("Match totals: " + " · ".join(
                f"{escape(side_name(rules, s, short))} {t}" for s, t in enumerate(running)))
        else:
            out.print("  (unfinished)")
    result = record.get("result")
    out.print()
    if result:
        winner = result["winner"]
        out.print(f"[bold green]Winner: {escape(side_name(rules, winner, short))}[/] with "
                  f"{result['totals'][winner]} points (target {result['target']}).")
    else:
        out.print("The match is unfinished.")
