"""What the commands of ``basra`` share: the group, user errors, rules options, consoles."""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from basra.arena import ArenaError
from basra.bots import BOT_LEVELS, UnknownBotError, bot_label
from basra.cards import InvalidCardError
from basra.position import PositionError
from basra.record import RecordError
from basra.rules import Rules, RulesError, make_rules, preset
from basra.state import IllegalMoveError, LayoutError

__all__ = [
    "USER_ERRORS",
    "Decorator",
    "Group",
    "UserError",
    "cli",
    "err",
    "out",
    "parse_bots",
    "plural",
    "progress_bar",
    "resolve_rules",
    "rules_options",
    "score_table",
    "side_name",
]

USER_ERRORS: tuple[type[Exception], ...] = (
    RulesError, InvalidCardError, RecordError, PositionError, UnknownBotError, LayoutError,
    IllegalMoveError, ArenaError,
)

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


class UserError(click.ClickException):
    """A mistake in what the user asked: one line on stderr, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        err.print(f"[bold red]error:[/] {self.message}", markup=True, soft_wrap=True)


class Group(click.Group):
    """Turns the rules core's input errors into one-line usage errors."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as error:
            raise UserError(str(error)) from None
        except OSError as error:
            where = f": {error.filename}" if error.filename else ""
            raise UserError(f"{error.strerror or error}{where}") from None


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="basra", prog_name="basra")
def cli() -> None:
    """Basra, the fishing card game: play it, simulate it, check game records.

    Every variant of the rules is a preset (see `basra variants`); house rules change
    single options with --rule NAME=VALUE or a TOML file with --rules FILE.
    """


# Rules options shared by commands


Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def rules_options() -> Decorator:
    """The options that choose the rules: --variant, --players, --rule, --rules."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        options = [
            click.option("--variant", "-v", metavar="NAME",
                         help="Rules preset (see `basra variants`). [default: egyptian]"),
            click.option("--players", "-p", type=click.IntRange(2, 4),
                         help="Number of players (the preset's first count by default)."),
            click.option("--rule", "rule_items", multiple=True, metavar="NAME=VALUE",
                         help="Change one rule option (repeatable), e.g. --rule basra_points=5."),
            click.option("--rules", "rules_file", type=click.Path(dir_okay=False, path_type=Path),
                         help="TOML file of rule options (may name `variant` and `players`)."),
        ]
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def resolve_rules(variant: str | None, players: int | None, rule_items: Sequence[str],
                  rules_file: Path | None) -> tuple[str, Rules]:
    """The preset's name and the rules chosen by the options of ``rules_options``."""
    overrides: dict[str, Any] = {}
    if rules_file is not None:
        try:
            text = rules_file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UserError(f"rules file {rules_file}: not a text file") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise UserError(f"rules file {rules_file}: not valid TOML: {error}") from None
        except ValueError:  # not wrapped by tomllib: int() refused an integer over the limit
            raise UserError(f"rules file {rules_file}: not valid TOML: an integer of more "
                            f"than {sys.get_int_max_str_digits()} digits") from None
        file_variant = data.pop("variant", None)
        if variant is None and file_variant is not None:
            variant = str(file_variant)
        file_players = data.pop("players", None)
        if players is None and file_players is not None:
            if not isinstance(file_players, int):
                raise UserError(f"rules file {rules_file}: players must be a number")
            players = file_players
        overrides.update(data)
    for item in rule_items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UserError(f"bad --rule {item!r}: expected NAME=VALUE, e.g. basra_points=5")
        overrides[name.strip()] = value.strip()
    name = preset(variant or "egyptian").name
    return name, make_rules(name, players, overrides)


def parse_bots(text: str, seats: int, what: str, sides: int | None = None) -> list[str]:
    """Bot names for ``seats`` seats: one for all, one per seat, or one per side.

    >>> parse_bots("greedy,random", 4, "--bots", sides=2)
    ['greedy', 'random', 'greedy', 'random']
    """
    names = [bot_label(word) for word in text.split(",") if word.strip()]
    if len(names) == 1:
        names *= seats
    elif sides is not None and len(names) == sides < seats:
        names = [names[seat % sides] for seat in range(seats)]
    if len(names) != seats:
        per_side = f", one per side ({sides})" if sides and sides < seats else ""
        raise UserError(f"{what}: give one bot, one per seat ({seats}){per_side}, "
                        f"not {len(names)} ({text!r})")
    for name in names:
        if name not in BOT_LEVELS and not (name.startswith("cmd:") and name[4:].strip()):
            raise UserError(f"unknown bot {name!r}; the bots are: {', '.join(BOT_LEVELS)}, "
                            "or cmd:COMMAND for a program speaking the bot protocol")
    return names


def side_name(rules: Rules, side: int) -> str:
    """How the output names a side: one seat, or a partnership of two."""
    if rules.partnership:
        return f"seats {side} & {side + 2}"
    return f"seat {side}"


def plural(number: int, noun: str) -> str:
    """A count with its noun, e.g. ``plural(2, "match")`` is ``'2 matches'``."""
    ending = "es" if noun.endswith("ch") else "s"
    return f"{number} {noun}{'' if number == 1 else ending}"


def progress_bar() -> Progress:
    """Progress bars on stderr, so that stdout keeps only the results."""
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=err, transient=False,
    )


def score_table(rules: Rules, score: dict[str, Any], title: str) -> Table:
    """A deal's score, side by side, as the record and the match give it."""
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for side in range(rules.sides):
        table.add_column(side_name(rules, side), justify="right")
    for key, label in (("cards", "cards"), ("card_points", "card points"),
                       ("basras", "basras"), ("basra_points", "basra points"),
                       ("majority", "majority"), ("total", "deal total")):
        table.add_row(label, *(str(v) for v in score[key]))
    return table
