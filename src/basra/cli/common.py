"""What the commands of ``basra`` share: the group, user errors, rules options, consoles,
and how cards, players and tables look in the terminal."""

from __future__ import annotations

import math
import sys
import tomllib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from basra.arena.duplicate import ArenaError
from basra.bots import BOT_LEVELS, UnknownBotError, bot_label
from basra.cards import InvalidCardError, card_symbol, iter_cards, suit_of
from basra.players.names import computer_label, computer_name
from basra.position import PositionError
from basra.record import RecordError
from basra.rules import PILE_FAMILIES, Rules, RulesError, make_rules, preset
from basra.state import IllegalMoveError, LayoutError

__all__ = [
    "USER_ERRORS",
    "Decorator",
    "Group",
    "Number",
    "UserError",
    "card_markup",
    "cards_markup",
    "cli",
    "computer_level",
    "err",
    "out",
    "parse_bots",
    "plural",
    "print_table",
    "progress_bar",
    "read_text",
    "resolve_rules",
    "rules_options",
    "score_table",
    "seat_label",
    "seat_short_name",
    "side_name",
]

USER_ERRORS: tuple[type[Exception], ...] = (
    RulesError, InvalidCardError, RecordError, PositionError, UnknownBotError, LayoutError,
    IllegalMoveError, ArenaError,
)

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


class UserError(click.ClickException):
    """A mistake in what the user asked: one line ``error: ...`` on stderr, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        message = " ".join(self.message.split("\n"))
        err.print(f"[bold red]error:[/] {escape(message)}", markup=True, soft_wrap=True)


def _option_name(param: click.Parameter | None) -> str:
    """How a message names an option or argument: its long form, ``--players``."""
    if param is None:
        return "a value"
    if isinstance(param, click.Option) and param.opts:
        return max(param.opts, key=len)
    return (param.metavar or param.name or "a value").upper()


def _one_line(error: click.UsageError) -> str:
    """Click's usage error as one line, without the usage block and the help hint."""
    if isinstance(error, click.BadParameter) and not isinstance(error, click.MissingParameter):
        message = f"{_option_name(error.param)}: {error.message}"
    else:
        message = error.format_message()
    message = " ".join(message.split()).rstrip(".")
    return message[:1].lower() + message[1:]


class Group(click.Group):
    """Turns Click's usage errors and the rules core's input errors into one line and exit
    code 2, and Ctrl-C into exit code 130 without a traceback."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:
            raise UserError(_one_line(error)) from None

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as error:
            raise UserError(f"{_one_line(error)}; the commands are: "
                            f"{', '.join(self.list_commands(ctx))}") from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:
            raise UserError(_one_line(error)) from None
        except USER_ERRORS as error:
            raise UserError(str(error)) from None
        except OSError as error:
            where = f": {error.filename}" if error.filename else ""
            raise UserError(f"{error.strerror or error}{where}") from None
        except KeyboardInterrupt:
            err.print("Interrupted.")
            raise click.exceptions.Exit(130) from None


if TYPE_CHECKING:  # generic in newer Click only
    _ParamType = click.ParamType[Any, Any]
else:
    _ParamType = click.ParamType


class Number(_ParamType):
    """A whole number (or any number, ``whole=False``) within bounds; anything else is one
    line that names the option, the value and what was expected."""

    def __init__(self, low: float | None = None, high: float | None = None, *,
                 whole: bool = True) -> None:
        self.low, self.high, self.whole = low, high, whole
        self.name = "integer" if whole else "number"

    def expected(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        if self.low is not None and self.high is not None:
            return f"{kind} from {self.low:g} to {self.high:g}"
        if self.low is not None:
            return f"{kind} of at least {self.low:g}"
        if self.high is not None:
            return f"{kind} of at most {self.high:g}"
        return kind

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        shown = str(value).strip()
        try:
            number: float = int(shown) if self.whole else float(shown)
        except ValueError:
            number = math.nan
            shown = repr(value)
        if not math.isfinite(number) or (self.low is not None and number < self.low) or (
                self.high is not None and number > self.high):
            raise UserError(f"{_option_name(param)} must be {self.expected()}, not {shown}")
        return number


def read_text(path: Path, what: str) -> str:
    """The text of a file the user named; a file that cannot be read is one line naming it
    as ``what`` ("rules file", "record file")."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{what} {path}: a directory, not a file") from None
    except UnicodeDecodeError:
        raise UserError(f"{what} {path}: not a text file") from None
    except OSError as error:
        raise UserError(f"{what} {path}: {error.strerror or error}") from None


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
            click.option("--players", "-p", type=Number(2, 4),
                         help="Number of players (the preset's first count by default)."),
            click.option("--rule", "rule_items", multiple=True, metavar="NAME=VALUE",
                         help="Change one rule option (repeatable), e.g. --rule basra_points=5."),
            click.option("--rules", "rules_file", type=click.Path(path_type=Path), metavar="FILE",
                         help="TOML file of rule options (may name `variant` and `players`)."),
        ]
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def _rules_file_values(path: Path) -> dict[str, Any]:
    """The options a TOML rules file sets; a file that is not one is one line naming it."""
    text = read_text(path, "rules file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"rules file {path}: not valid TOML: {error}") from None
    except ValueError:  # not wrapped by tomllib: int() refused an integer over the limit
        raise UserError(f"rules file {path}: not valid TOML: an integer of more "
                        f"than {sys.get_int_max_str_digits()} digits") from None


def resolve_rules(variant: str | None, players: int | None, rule_items: Sequence[str],
                  rules_file: Path | None) -> tuple[str, Rules]:
    """The preset's name and the rules chosen by the options of ``rules_options``.

    The command line wins over the rules file; a bad value that comes from the file is
    reported with the file's name.
    """
    from_file: dict[str, Any] = {}
    variant_from_file = players_from_file = False
    if rules_file is not None:
        from_file = _rules_file_values(rules_file)
        file_variant = from_file.pop("variant", None)
        if variant is None and file_variant is not None:
            variant, variant_from_file = str(file_variant), True
        file_players = from_file.pop("players", None)
        if players is None and file_players is not None:
            if not isinstance(file_players, int) or isinstance(file_players, bool):
                raise UserError(f"rules file {rules_file}: players must be a whole number "
                                f"from 2 to 4, not {file_players!r}")
            players, players_from_file = file_players, True
    from_command: dict[str, str] = {}
    for item in rule_items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UserError(f"bad --rule {item!r}: expected NAME=VALUE, e.g. basra_points=5")
        from_command[name.strip()] = value.strip()

    def in_file(error: RulesError) -> UserError:
        return UserError(f"rules file {rules_file}: {error}")

    try:
        found = preset(variant or "egyptian")
    except RulesError as error:
        raise in_file(error) if variant_from_file else error from None
    try:
        found.rules_for(players)
    except RulesError as error:
        raise in_file(error) if players_from_file else error from None
    if from_file:
        try:
            make_rules(found.name, players, from_file)
        except RulesError as error:
            raise in_file(error) from None
    return found.name, make_rules(found.name, players, from_file | from_command)


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


# How the terminal shows cards, players and tables


def card_markup(card: int) -> str:
    """A card as Rich markup: its suit symbol, hearts and diamonds in red.

    >>> card_markup(38), card_markup(44)
    ('[red]10♦[/]', 'Q♠')
    """
    text = card_symbol(card)
    return f"[red]{text}[/]" if suit_of(card) in (1, 2) else text


def cards_markup(cards: int | Iterable[int]) -> str:
    """Cards as Rich markup: a mask lowest first, or a list in its order; ``-`` for none.

    >>> cards_markup(1 << 26 | 1 << 0)
    'A♠ [red]7♦[/]'
    """
    if isinstance(cards, int):
        cards = iter_cards(cards)
    return " ".join(card_markup(card) for card in cards) or "-"


def computer_level(spec: str) -> str:
    """The level shown beside a computer player's name (``program`` for ``cmd:``)."""
    return "program" if spec.startswith("cmd:") else spec


def seat_label(seat: int, name: str, kind: str) -> str:
    """How the terminal names a record's player: a computer recorded by its level gets
    the seat's first name beside it, anyone else the recorded name.

    >>> seat_label(1, "greedy", "bot"), seat_label(0, "Mona", "human")
    ('Layla (greedy)', 'Mona')
    """
    if kind == "bot" and (name in BOT_LEVELS or name.startswith("cmd:")):
        return computer_label(seat, computer_level(name))
    return name


def seat_short_name(seat: int, name: str, kind: str) -> str:
    """A player's name where space is short (columns, score lines): without the level.

    >>> seat_short_name(1, "greedy", "bot"), seat_short_name(2, "Nadia (expert)", "bot")
    ('Layla', 'Nadia (expert)')
    """
    if kind == "bot" and (name in BOT_LEVELS or name.startswith("cmd:")):
        return computer_name(seat)
    return name


def side_name(rules: Rules, side: int, names: Sequence[str] | None = None) -> str:
    """How the output names a side: one seat, or a partnership of two; by the players'
    names when given, else by seat number.

    >>> from basra.rules import make_rules
    >>> side_name(make_rules("egyptian", 4), 1), side_name(make_rules("egyptian", 2), 1)
    ('seats 1 & 3', 'seat 1')
    >>> side_name(make_rules("egyptian", 4), 0, ["you", "Layla", "Nadia", "Sami"])
    'you & Nadia'
    """
    if names is not None:
        return " & ".join(names[s] for s in range(rules.players) if rules.side_of[s] == side)
    if rules.partnership:
        return f"seats {side} & {side + 2}"
    return f"seat {side}"


def print_table(table: Table, title: str) -> None:
    """A table under its title. The title is a line of its own, so it is never wrapped to
    the table's width (piped output is 80 columns wide)."""
    out.print(f"[bold]{escape(title)}[/]", soft_wrap=True)
    out.print(table)


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


def score_table(rules: Rules, score: dict[str, Any],
                names: Sequence[str] | None = None, variant: str = "") -> Table:
    """A deal's score, side by side, as the record and the match give it; the columns are
    the sides (by the players' names when given)."""
    table = Table()
    table.add_column("")
    for side in range(rules.sides):
        table.add_column(escape(side_name(rules, side, names)), justify="right")
    word = bonus_word(rules, variant)
    rows = [("cards", "cards"), ("card_points", "card points"), ("basras", f"{word}s"),
            ("basra_points", f"{word} points" + (" (after cancelling)"
                                                   if rules.basra_cancel else ""))]
    if rules.majority_points or any(score["majority"]):
        rows.append(("majority", "majority"))
    if score.get("clubs"):
        rows.append(("clubs", "clubs"))
    for key, label in (*rows, ("total", "deal total")):
        table.add_row(label, *(str(v) for v in score[key]))
        if key == "basras" and score.get("pistis"):
            table.add_row("  with a Jack on a Jack",
                          *(str(jack) for _, jack in score["pistis"]))
    return table


def bonus_word(rules: Rules, variant: str = "") -> str:
    """What the rules call their bonus capture: basra, sur in Pasur, pişti in the pile
    games (xeri under the ``xeri`` preset)."""
    if rules.family in PILE_FAMILIES:
        return "xeri" if variant == "xeri" else "pişti"
    return "sur" if rules.family == "pasur" else "basra"


def game_title(rules: Rules, variant: str = "") -> str:
    """The game's name as a title: Basra, Pasur, Pişti or Xeri."""
    if rules.family in PILE_FAMILIES:
        return "Xeri" if variant == "xeri" else "Pişti"
    return rules.family.capitalize()


def load_master_search() -> None:
    """Compile the master's search, or load numba's cache of it, before play starts, with
    a line on stderr: the first time after an install takes a minute or two, later ones
    under a second (without the compiled path, nothing to do)."""
    from basra import fast

    if not fast.available():
        return
    from basra.fast import core

    with err.status("Loading the master's search (the first time after an install compiles "
                    "it: a minute or two)"):
        core.compile_kernels()
