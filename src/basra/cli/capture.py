"""``basra capture``: what a card captures from a floor under a variant's rules.

In a pile game (Pişti, Xeri) the floor is the pile, listed bottom to top: the card takes
the whole pile or is laid on it, and a capture of a lone card may be a pişti (its points
are the option's ``bonus``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from basra.captures import PileCaptures
from basra.cards import CARD_NAMES, parse_card, parse_cards
from basra.cli.common import (
    UserError,
    card_markup,
    cards_markup,
    cli,
    out,
    resolve_rules,
    rules_options,
)
from basra.rules import Rules
from basra.state import capture_table


@cli.command()
@rules_options()
@click.option("--floor", "floor_text", required=True, metavar="CARDS",
              help='Floor cards, e.g. "7S 4H 3C 5D" (empty string for an empty floor); in '
                   "a pile game the pile, bottom to top.")
@click.option("--card", "card_text", required=True, metavar="CARD", help="The card played.")
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
def capture(variant: str | None, players: int | None, rule_items: Sequence[str],
            rules_file: Path | None, floor_text: str, card_text: str, as_json: bool) -> None:
    """Show what a card captures from a floor under a variant's rules."""
    name, rules = resolve_rules(variant, players, rule_items, rules_file)
    floor_cards = parse_cards(floor_text)
    card = parse_card(card_text)
    if card in floor_cards:
        raise UserError(f"card {CARD_NAMES[card]} cannot be both played and on the floor")
    floor = 0
    for c in floor_cards:
        floor |= 1 << c
    table = capture_table(rules)
    if isinstance(table, PileCaptures):
        word = "XERI" if name == "xeri" else "PIŞTI"
        _pile_capture(rules, table, floor_cards, card, as_json, word)
        return
    options: list[dict[str, Any]] = []
    shown: list[str] = []
    for captured in table.options(card, floor):
        in_order = [c for c in floor_cards if captured >> c & 1]
        options.append({"captured": [CARD_NAMES[c] for c in in_order],
                        "basra": table.is_basra(floor, card, captured)})
        shown.append(cards_markup(in_order))
    if as_json:
        click.echo(json.dumps({"options": options}))
        return
    name = card_markup(card)
    if not options:
        out.print(f"{name} captures nothing: it trails (stays on the floor).")
        return
    if len(options) > 1:
        out.print(f"{name} can capture in {len(options)} ways; the player chooses:")
    for option, taken in zip(options, shown, strict=True):
        basra = "  [bold yellow]BASRA[/]" if option["basra"] else ""
        lead = "  - " if len(options) > 1 else f"{name} captures "
        out.print(f"{lead}{taken}{basra}")
    if rules.optional_capture:
        out.print(f"(optional_capture is on: {name} may also trail)")


def _pile_capture(rules: Rules, table: PileCaptures, pile: list[int], card: int,
                  as_json: bool, word: str) -> None:
    """``capture`` in a pile game: the whole pile or nothing, and the points of the
    pişti (``word``: how the game calls it) it makes."""
    floor = sum(1 << c for c in pile)
    taken = table.pile_capture(card, pile[-1], floor) if pile else 0
    bonus = table.bonus_points(floor, card, taken)
    options = ([{"captured": [CARD_NAMES[c] for c in pile], "basra": bonus > 0,
                 "bonus": bonus}] if taken else [])
    if as_json:
        click.echo(json.dumps({"options": options}))
        return
    name = card_markup(card)
    if not taken:
        where = "starts the pile" if not pile else f"is laid on {card_markup(pile[-1])}"
        out.print(f"{name} captures nothing: it {where} and becomes the top card.")
        return
    bonus_text = f"  [bold yellow]{word} {bonus}[/]" if bonus else ""
    out.print(f"{name} captures the whole pile: {cards_markup(pile)}{bonus_text}")
    if bonus and not rules.last_play_pisti:
        out.print(f"(as the last card of a deal it would score no {word.lower()})")

