"""``basra variants``: the rule presets, or every option of one."""

from __future__ import annotations

import json

import click
from rich.table import Table

from basra.cli.common import cli, out, print_table
from basra.rules import (
    PILE_FAMILIES,
    PILE_OPTIONS,
    PILE_UNUSED_OPTIONS,
    PRESETS,
    Preset,
    Rules,
    option_names,
    preset,
)


def _or(counts: list[int]) -> str:
    words = [str(n) for n in counts]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def players_text(found: Preset, between: str = " ") -> str:
    """The player counts of a preset, and which of them play in partnerships.

    >>> players_text(preset("iraqi")), players_text(preset("jawaker"))
    ('2, 3 or 4 (4 in partnerships)', '2')
    """
    teams = [n for n in found.players if n in found.partnership_players]
    return _or(list(found.players)) + (f"{between}({_or(teams)} in partnerships)"
                                       if teams else "")


def _option_value(rules: Rules, name: str) -> str:
    value = getattr(rules, name)
    if name == "bury":
        return " ".join(value) or "none"
    if name == "card_points":
        return " ".join(f"{spec} {points}" for spec, points in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _summary_text(rules: Rules, name: str = "") -> str:
    """A preset's rules in one short paragraph, as the variants table shows them."""
    points = f"points {_option_value(rules, 'card_points')}"
    end = f"to {rules.target}{' (rises on a tie)' if rules.tie_rule == 'raise' else ''}"
    if rules.family == "pisti":
        redeal = "" if rules.pile_redeal == "none" else f", redeal {rules.pile_redeal}"
        return (f"one pile: its top card's rank or a Jack takes it all; hand "
                f"{rules.hand_size}; pile {rules.floor_size} ({rules.pile_down} down{redeal}); "
                f"{'xeri' if name == 'xeri' else 'pişti'} {rules.pisti_points}, Jack on Jack "
                f"{rules.jack_pisti_points}; "
                f"majority {rules.majority_points}; {points}; {end}")
    if rules.family == "pasur":
        redeal = ", redeal on 2 J, 3 Q or 3 K" if rules.floor_redeal else ""
        cancel = ", surs cancel" if rules.basra_cancel else ""
        return (f"sums to 11, K and Q in pairs, Jack takes numerals and Jacks; hand "
                f"{rules.hand_size}; bury {' '.join(rules.bury) or 'none'}{redeal}; sur "
                f"{rules.basra_points} pts{cancel}; clubs {rules.clubs_points}; {points}; {end}")
    return (
        f"hand {rules.hand_size}; bury {' '.join(rules.bury) or 'none'}; "
        f"7♦ {rules.seven_diamonds}; basra {rules.basra} {rules.basra_points} pts, "
        f"Jack {rules.jack_basra}; majority {rules.majority_points}"
        f"{' (ties carry)' if rules.majority_tie == 'carry' else ''}; {points}; {end}"
    )


@cli.command()
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the presets as JSON.")
@click.option("--markdown", "as_markdown", is_flag=True,
              help="Print the options and presets tables of docs/rules.md (Markdown).")
def variants(name: str | None, as_json: bool, as_markdown: bool) -> None:
    """List the rule presets, or every option of one preset."""
    if as_markdown:
        from basra.study.rulebook import markdown

        click.echo(markdown(), nl=False)
        return
    chosen = [preset(name)] if name else list(PRESETS.values())
    if as_json:
        click.echo(json.dumps(
            {p.name: {"description": p.description, "players": list(p.players),
                      "partnership_players": list(p.partnership_players),
                      "rules": p.rules_for().to_dict()} for p in chosen}, indent=2))
        return
    if name:
        found = chosen[0]
        rules = found.rules_for()
        table = Table()
        table.add_column("option")
        table.add_column("value")
        table.add_row("players", players_text(found))
        teams = [n for n in found.players if n in found.partnership_players]
        table.add_row("partnership", f"with {_or(teams)} players" if teams else "no")
        pile = rules.family in PILE_FAMILIES
        unused = PILE_UNUSED_OPTIONS if pile else PILE_OPTIONS
        for option in option_names():
            if option not in ("players", "partnership", *unused):
                table.add_row(option, _option_value(rules, option))
        print_table(table, f"{found.name}: {found.description}")
        if pile:
            out.print(f"Not used by the pile games: {', '.join(unused)}.", soft_wrap=True)
        return
    table = Table()
    table.add_column("variant", no_wrap=True)
    table.add_column("players", no_wrap=True)
    table.add_column("rules")
    for found in chosen:
        rules = found.rules_for()
        summary = _summary_text(rules, found.name)
        table.add_row(found.name, players_text(found, "\n"), summary)
    print_table(table, "Variants (basra variants NAME shows every option)")
