"""The ``basra`` command: play, simulate, arena, replay, capture, variants, bench."""

from __future__ import annotations

import json
import os
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .arena import ArenaError, claim_record_paths, play_bot_match, side_totals
from .bots import BOT_LEVELS, Bot, UnknownBotError, bot_label, close_bot, make_bot
from .bots.master import MasterBot
from .cards import CARD_NAMES, InvalidCardError, card_long_name, cards_text, parse_card, parse_cards
from .match import DealHistory, Match, MatchOverError, Play
from .observe import observe
from .position import PositionError
from .record import Player, RecordError, dumps, loads, match_record, replay
from .rules import PRESETS, Rules, RulesError, make_rules, option_names, preset
from .server.ratelimit import DEFAULT_LIMITS as _DEFAULT_LIMITS
from .state import (
    IllegalMoveError,
    LayoutError,
    capture_table,
    move_captured,
    move_card,
)

__all__ = ["cli", "main"]

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


class _Group(click.Group):
    """Turns the rules core's input errors into one-line usage errors."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as error:
            raise UserError(str(error)) from None
        except OSError as error:
            where = f": {error.filename}" if error.filename else ""
            raise UserError(f"{error.strerror or error}{where}") from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="basra", prog_name="basra")
def cli() -> None:
    """Basra, the fishing card game: play it, simulate it, check game records.

    Every variant of the rules is a preset (see `basra variants`); house rules change
    single options with --rule NAME=VALUE or a TOML file with --rules FILE.
    """


# Rules options shared by commands


Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def _rules_options() -> Decorator:
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


def _resolve_rules(variant: str | None, players: int | None, rule_items: Sequence[str],
                   rules_file: Path | None) -> tuple[str, Rules]:
    overrides: dict[str, Any] = {}
    if rules_file is not None:
        try:
            data = tomllib.loads(rules_file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise UserError(f"rules file {rules_file}: not valid TOML: {error}") from None
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


def _parse_bots(text: str, seats: int, what: str, sides: int | None = None) -> list[str]:
    """Bot names for ``seats`` seats: one for all, one per seat, or one per side."""
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


def _side_name(rules: Rules, side: int) -> str:
    if rules.partnership:
        return f"seats {side} & {side + 2}"
    return f"seat {side}"


# variants


def _option_value(rules: Rules, name: str) -> str:
    value = getattr(rules, name)
    if name == "bury":
        return " ".join(value) or "none"
    if name == "card_points":
        return " ".join(f"{spec} {points}" for spec, points in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@cli.command()
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the presets as JSON.")
def variants(name: str | None, as_json: bool) -> None:
    """List the rule presets, or every option of one preset."""
    chosen = [preset(name)] if name else list(PRESETS.values())
    if as_json:
        click.echo(json.dumps(
            {p.name: {"description": p.description, "players": list(p.players),
                      "rules": p.rules_for().to_dict()} for p in chosen}, indent=2))
        return
    if name:
        found = chosen[0]
        rules = found.rules_for()
        table = Table(title=f"{found.name}: {found.description}", title_justify="left")
        table.add_column("option")
        table.add_column("value")
        table.add_row("players", " or ".join(map(str, found.players)))
        for option in option_names():
            if option != "players":
                table.add_row(option, _option_value(rules, option))
        out.print(table)
        return
    table = Table(title="Basra variants (basra variants NAME shows every option)",
                  title_justify="left")
    table.add_column("variant", no_wrap=True)
    table.add_column("players", no_wrap=True)
    table.add_column("rules")
    for found in chosen:
        rules = found.rules_for()
        players = ", ".join(
            f"{n} (teams)" if n in found.partnership_players else str(n) for n in found.players
        )
        summary = (
            f"hand {rules.hand_size}; bury {' '.join(rules.bury) or 'none'}; "
            f"7♦ {rules.seven_diamonds}; basra {rules.basra} {rules.basra_points} pts, "
            f"Jack {rules.jack_basra}; majority {rules.majority_points}"
            f"{' (ties carry)' if rules.majority_tie == 'carry' else ''}; "
            f"points {_option_value(rules, 'card_points')}; to {rules.target}"
            f"{' (rises on a tie)' if rules.tie_rule == 'raise' else ''}"
        )
        table.add_row(found.name, players, summary)
    out.print(table)


# capture


@cli.command()
@_rules_options()
@click.option("--floor", "floor_text", required=True, metavar="CARDS",
              help='Floor cards, e.g. "7S 4H 3C 5D" (empty string for an empty floor).')
@click.option("--card", "card_text", required=True, metavar="CARD", help="The card played.")
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
def capture(variant: str | None, players: int | None, rule_items: Sequence[str],
            rules_file: Path | None, floor_text: str, card_text: str, as_json: bool) -> None:
    """Show what a card captures from a floor under a variant's rules."""
    _, rules = _resolve_rules(variant, players, rule_items, rules_file)
    floor_cards = parse_cards(floor_text)
    card = parse_card(card_text)
    if card in floor_cards:
        raise UserError(f"card {CARD_NAMES[card]} cannot be both played and on the floor")
    floor = 0
    for c in floor_cards:
        floor |= 1 << c
    table = capture_table(rules)
    options: list[dict[str, Any]] = []
    for captured in table.options(card, floor):
        names = [CARD_NAMES[c] for c in floor_cards if captured >> c & 1]
        options.append({"captured": names, "basra": table.is_basra(floor, card, captured)})
    if as_json:
        click.echo(json.dumps({"options": options}))
        return
    name = CARD_NAMES[card]
    if not options:
        out.print(f"{name} captures nothing: it trails (stays on the floor).")
        return
    if len(options) > 1:
        out.print(f"{name} can capture in {len(options)} ways; the player chooses:")
    for option in options:
        basra = "  [bold yellow]BASRA[/]" if option["basra"] else ""
        lead = "  - " if len(options) > 1 else f"{name} captures "
        out.print(f"{lead}{' '.join(option['captured'])}{basra}")
    if rules.optional_capture:
        out.print(f"(optional_capture is on: {name} may also trail)")


# simulate


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=err, transient=False,
    )


@cli.command()
@_rules_options()
@click.option("--matches", "-n", type=click.IntRange(min=1), default=10, show_default=True,
              help="Number of matches to play.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the first match (match i uses seed + i).")
@click.option("--bots", "bots_text", default="random", show_default=True, metavar="A,B,..",
              help=f"One bot for every seat, one per seat or one per side: "
                   f"{', '.join(BOT_LEVELS)}, or cmd:COMMAND.")
@click.option("--records", "records_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write one basra-record/1 file per match into this directory.")
@click.option("--think-ms", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Time budget per move of the master bot, in milliseconds.")
@click.option("--max-deals", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Stop a match still undecided after this many deals (tie_rule=raise can "
                   "run on); it is recorded unfinished.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def simulate(variant: str | None, players: int | None, rule_items: Sequence[str],
             rules_file: Path | None, matches: int, seed: int, bots_text: str,
             records_dir: Path | None, think_ms: int, max_deals: int, as_json: bool) -> None:
    """Play complete matches between computer players and summarise them."""
    name, rules = _resolve_rules(variant, players, rule_items, rules_file)
    bot_names = _parse_bots(bots_text, rules.players, "--bots", rules.sides)
    paths: list[Path] = []
    if records_dir is not None:
        paths = claim_record_paths(records_dir, [f"match-{seed + i}.json" for i in range(matches)])
    wins = [0] * rules.sides
    points = [0] * rules.sides
    basras = [0] * rules.sides
    deals = unfinished = 0
    started = time.perf_counter()
    with _progress() as progress:
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
    table = Table(title=f"{matches} matches of {name}, {deals} deals, {seconds:.1f} s",
                  title_justify="left")
    for column in ("side", "bots", "wins", "points/deal", "basras/deal"):
        table.add_column(column)
    for side in range(rules.sides):
        seats = [s for s in range(rules.players) if rules.side_of[s] == side]
        table.add_row(
            _side_name(rules, side), ", ".join(bot_names[s] for s in seats), str(wins[side]),
            f"{points[side] / deals:.2f}", f"{basras[side] / deals:.3f}",
        )
    out.print(table)
    if unfinished:
        out.print(f"{_count(unfinished, 'match')} still undecided after {max_deals} deals "
                  "(stopped; see --max-deals).")
    if records_dir is not None:
        out.print(f"Records written to {records_dir}/", soft_wrap=True)


# arena


@cli.command()
@_rules_options()
@click.option("--bots", "bots_text", required=True, metavar="A,B[,C,D]",
              help=f"One bot per seat, or in partnerships one per side: "
                   f"{', '.join(BOT_LEVELS)}, or cmd:COMMAND.")
@click.option("--matches", "-n", type=int, default=100, show_default=True,
              help="Matches to play, rounded up to a multiple of the players (each deal "
                   "order is played once per seat rotation).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the first deal order (the next ones use seed + 1, ...).")
@click.option("--jobs", "-j", type=int, metavar="J",
              help="Worker processes (1: play in this process). [default: every core]")
@click.option("--think-ms", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Time budget per move of the master bot, in milliseconds.")
@click.option("--records", "records_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write one basra-record/1 file per match into this directory "
                   "(arena-SEED-rROTATION.json).")
@click.option("--max-deals", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Stop a match still undecided after this many deals (tie_rule=raise can "
                   "run on); it counts as lost by every bot.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def arena(variant: str | None, players: int | None, rule_items: Sequence[str],
          rules_file: Path | None, bots_text: str, matches: int, seed: int, jobs: int | None,
          think_ms: int, records_dir: Path | None, max_deals: int, as_json: bool) -> None:
    """Play duplicate matches between bots and compare them.

    Every deal order is played once per seat rotation, so each bot gets each seat's cards
    and the luck of the deal cancels. Reports each bot's match win rate with a 95%
    (Wilson) interval, its side's points and basras per deal, and its median time per move.
    """
    from .arena import ArenaError, run_arena

    name, rules = _resolve_rules(variant, players, rule_items, rules_file)
    given = [word for word in bots_text.split(",") if word.strip()]
    per_side = rules.partnership and len(given) == rules.sides
    if len(given) != rules.players and not per_side:
        sides = f" or one per side ({rules.sides})" if rules.partnership else ""
        raise UserError(f"--bots: an arena needs one bot per seat ({rules.players}){sides}, "
                        f"not {len(given)} ({bots_text!r})")
    _parse_bots(bots_text, rules.players, "--bots", rules.sides)  # checks the names
    bot_names = [bot_label(word) for word in given]
    if matches < 1:
        raise UserError(f"--matches must be at least 1, not {matches}")
    if jobs is None:
        jobs = os.cpu_count() or 1
    elif jobs < 1:
        raise UserError(f"--jobs must be at least 1, not {jobs}")
    played = -(-matches // rules.players) * rules.players
    with _progress() as progress:
        task = progress.add_task("matches", total=played)
        try:
            result = run_arena(rules, name, bot_names, matches, seed, jobs=jobs,
                               think_ms=think_ms, records_dir=records_dir, max_deals=max_deals,
                               progress=lambda: progress.advance(task))
        except ArenaError as error:
            raise UserError(str(error)) from None
    if as_json:
        summary = {"variant": name, "players": rules.players, "seed": seed, "jobs": jobs,
                   **result.to_dict()}
        if records_dir is not None:
            summary["records"] = str(records_dir)
        click.echo(json.dumps(summary))
        return
    rounded = f" ({matches} asked for)" if played != matches else ""
    table = Table(
        title=f"{played} duplicate matches{rounded} of {name}: {result.seeds} deal orders × "
              f"{rules.players} seatings, {result.deals} deals, {result.seconds:.1f} s",
        title_justify="left",
    )
    for column in ("bot", "wins", "win rate", "95% CI", "pts/deal", "basras/deal", "ms/move"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for i, bot in enumerate(result.bots):
        lo, hi = result.win_rate_ci95[i]
        table.add_row(
            bot, str(result.wins[i]), f"{result.win_rate[i]:.1%}",
            f"{lo * 100:.1f}–{hi * 100:.1f}%", f"{result.points_per_deal[i]:.2f}",
            f"{result.basras_per_deal[i]:.3f}", f"{result.median_ms[i]:.3f}",
        )
    out.print(table)
    if result.unfinished:
        out.print(f"{_count(result.unfinished, 'match')} still undecided after {max_deals} "
                  "deals (stopped, lost by every bot; see --max-deals).")
    if records_dir is not None:
        out.print(f"Records written to {records_dir}/", soft_wrap=True)


# replay


def _score_table(rules: Rules, score: dict[str, Any], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for side in range(rules.sides):
        table.add_column(_side_name(rules, side), justify="right")
    for key, label in (("cards", "cards"), ("card_points", "card points"),
                       ("basras", "basras"), ("basra_points", "basra points"),
                       ("majority", "majority"), ("total", "deal total")):
        table.add_row(label, *(str(v) for v in score[key]))
    return table


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
            out.print(_score_table(rules, score, f"Deal {number} score"))
            out.print("Match totals: " + ", ".join(
                f"{_side_name(rules, s)} {t}" for s, t in enumerate(running)))
        else:
            out.print("  (unfinished)")
    result = record.get("result")
    out.print()
    if result:
        out.print(f"[bold green]Winner: {_side_name(rules, result['winner'])}[/] with "
                  f"{result['totals'][result['winner']]} points (target {result['target']}).")
    else:
        out.print("The match is unfinished.")


# bench


@cli.command()
@_rules_options()
@click.option("--seconds", "-s", type=click.FloatRange(min=0.1), default=5.0, show_default=True,
              help="How long to measure each figure.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bench(variant: str | None, players: int | None, rule_items: Sequence[str],
          rules_file: Path | None, seconds: float, seed: int, as_json: bool) -> None:
    """Measure random-playout speed of the engine on one core.

    Plays whole random deals (deal, uniformly random legal moves, score) for SECONDS with
    the fast playout path, then for SECONDS one step at a time (legal_moves + apply).
    """
    from .bench import bench_playouts, bench_steps

    name, rules = _resolve_rules(variant, players, rule_items, rules_file)
    with _progress() as progress:
        task = progress.add_task("playouts", total=seconds)
        fast = bench_playouts(rules, seconds, seed,
                              lambda done: progress.update(task, completed=done))
        task = progress.add_task("steps", total=seconds)
        steps = bench_steps(rules, seconds, seed,
                            lambda done: progress.update(task, completed=done))
    figures = {
        "variant": name,
        "players": rules.players,
        "deals_per_second": round(fast.deals_per_second, 1),
        "plays_per_second": round(fast.plays_per_second, 1),
        "step_deals_per_second": round(steps.deals_per_second, 1),
        "step_plays_per_second": round(steps.plays_per_second, 1),
    }
    if as_json:
        click.echo(json.dumps(figures))
        return
    out.print(f"{name}, {rules.players} players, one core:")
    out.print(f"  random playouts:   {fast.deals_per_second:9,.0f} deals/s "
              f"{fast.plays_per_second:11,.0f} plays/s")
    out.print(f"  step by step:      {steps.deals_per_second:9,.0f} deals/s "
              f"{steps.plays_per_second:11,.0f} plays/s")


# play


def _default_record_path() -> Path:
    from platformdirs import user_data_path

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return user_data_path("basra") / "records" / f"match-{stamp}.json"


class _TerminalGame:
    """One human seat against computer players, in the terminal."""

    def __init__(self, match: Match, human: int, bots: dict[int, Bot], names: list[str],
                 record_path: Path, hints: MasterBot | None = None) -> None:
        self.hints = hints
        self.match = match
        self.rules = match.rules
        self.human = human
        self.bots = bots
        self.names = names
        self.record_path = record_path

    def seat_name(self, seat: int) -> str:
        return "you" if seat == self.human else f"seat {seat} ({self.names[seat]})"

    def save(self) -> Path:
        record = match_record(self.match, [
            Player(name, "human" if seat == self.human else "bot")
            for seat, name in enumerate(self.names)
        ])
        path = self.record_path
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path = path.with_name(f"{path.stem}-{int(time.time() * 1000)}{path.suffix}")
        with path.open("x", encoding="utf-8") as file:
            file.write(dumps(record))
        return path

    def show_table(self) -> None:
        match, rules = self.match, self.rules
        state = match.state
        view = observe(match, self.human)
        out.print()
        out.rule(f"Deal {len(match.deals)} · {match.variant}")
        others = ", ".join(
            f"{self.seat_name(s)}: {_count(view.hand_counts[s], 'card')}"
            for s in range(rules.players) if s != self.human
        )
        out.print(f"Others: {others} · stock: {_count(view.stock_count, 'card')}")
        scores = ", ".join(
            f"{'your side' if s == view.side else _side_name(rules, s)} {match.totals[s]}"
            f" (+{_count(view.pile_counts[s], 'card')}, "
            f"{_count(view.basras[s], 'basra')} this deal)"
            for s in range(rules.sides)
        )
        out.print(f"Scores: {scores} · target {match.target}")
        out.print(f"[bold]Floor:[/] {cards_text(state.floor) if state.floor else '(empty)'}")
        hand = " ".join(f"[bold]{i}[/]) {CARD_NAMES[c]}" for i, c in
                        enumerate(_cards(view.hand), 1))
        out.print(f"[bold]Your hand:[/] {hand}")

    def show_hints(self) -> None:
        assert self.hints is not None
        view = observe(self.match, self.human)
        if len(view.legal_moves) < 2:
            return
        estimates = self.hints.estimates(view)
        out.print("[bold]Hints[/] (the master's expected points margin to the end of the deal):")
        table = Table()
        table.add_column("move")
        table.add_column("margin", justify="right")
        for estimate in estimates:
            captured = move_captured(estimate.move)
            text = CARD_NAMES[move_card(estimate.move)]
            text += f" takes {cards_text(captured)}" if captured else " (trail)"
            table.add_row(text, f"{estimate.value:+.1f}")
        out.print(table)

    def ask_move(self) -> int:
        view = observe(self.match, self.human)
        hand = _cards(view.hand)
        while True:
            answer = out.input("Your play (number or card, ? for help): ").strip()
            if answer in ("?", "help", "h"):
                out.print("Type the number of a card in your hand (1, 2, ...) or its name "
                          "(7H, 10D, QS). 'quit' saves the match and leaves.")
                continue
            if answer.lower() in ("quit", "q", "exit"):
                raise KeyboardInterrupt
            card: int | None = None
            if answer.isdigit() and 1 <= int(answer) <= len(hand):
                card = hand[int(answer) - 1]
            else:
                try:
                    card = parse_card(answer)
                except InvalidCardError:
                    out.print(f"[red]{answer!r} is not a card in your hand.[/] "
                              f"Choose 1 to {len(hand)} or a card name.")
                    continue
                if card not in hand:
                    out.print(f"[red]{CARD_NAMES[card]} is not in your hand.[/]")
                    continue
            choices = [m for m in view.legal_moves if move_card(m) == card]
            if len(choices) == 1:
                return choices[0]
            return self.ask_capture(card, choices)

    def ask_capture(self, card: int, choices: list[int]) -> int:
        out.print(f"{CARD_NAMES[card]} can be played in {len(choices)} ways:")
        for i, move in enumerate(choices, 1):
            captured = move_captured(move)
            text = f"capture {cards_text(captured)}" if captured else "trail (capture nothing)"
            out.print(f"  [bold]{i}[/]) {text}")
        while True:
            answer = out.input(f"Which one (1-{len(choices)})? ").strip()
            if answer.isdigit() and 1 <= int(answer) <= len(choices):
                return choices[int(answer) - 1]
            out.print(f"[red]Choose a number from 1 to {len(choices)}.[/]")

    def describe(self, play: Play) -> None:
        who = self.seat_name(play.seat)
        verb = "play" if play.seat == self.human else "plays"
        card = f"{CARD_NAMES[play.card]} ({card_long_name(play.card)})"
        if play.captured:
            line = f"{who.capitalize()} {verb} {card} and capture{'s' if verb == 'plays' else ''}"
            line += f" {cards_text(play.captured)}"
            if play.basra:
                line += "  [bold yellow]BASRA![/]"
        else:
            line = f"{who.capitalize()} {verb} {card} to the floor."
        out.print(line)

    def show_deal_end(self, history: DealHistory, number: int) -> None:
        assert history.score is not None
        if history.leftover:
            out.print(f"The floor ({cards_text(history.leftover)}) goes to "
                      f"{self.seat_name(history.leftover_seat)}, the last to capture.")
        score = history.score._asdict()
        out.print(_score_table(self.rules, score, f"Deal {number} score"))
        if score["carry_out"]:
            out.print(f"Majority tied: {score['carry_out']} points carry to the next deal.")
        out.print("Match totals: " + ", ".join(
            f"{_side_name(self.rules, s)} {t}" for s, t in enumerate(self.match.totals)))

    def run(self) -> None:
        match = self.match
        shown_deal = 0
        while not match.is_over:
            deal_number = len(match.deals)
            if deal_number != shown_deal:
                shown_deal = deal_number
                out.print(f"\n[bold]Deal {deal_number}[/]: seat {match.state.dealer} deals.")
            seat = match.state.to_play
            if seat == self.human:
                self.show_table()
                if self.hints is not None:
                    self.show_hints()
                move = self.ask_move()
            else:
                move = self.bots[seat].choose(observe(match, seat))
            history = match.deals[-1]
            play = match.play(move)
            self.describe(play)
            if history.score is not None:
                self.show_deal_end(history, deal_number)
        assert match.winner is not None
        mine = self.rules.side_of[self.human]
        if match.winner == mine:
            out.print(f"\n[bold green]You win {match.totals[mine]} to "
                      f"{max(t for s, t in enumerate(match.totals) if s != mine)}![/]")
        else:
            out.print(f"\n[bold]{_side_name(self.rules, match.winner).capitalize()} wins "
                      f"with {match.totals[match.winner]} points.[/]")


def _count(number: int, noun: str) -> str:
    plural = "es" if noun.endswith("ch") else "s"
    return f"{number} {noun}{'' if number == 1 else plural}"


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


@cli.command()
@_rules_options()
@click.option("--seat", type=int, default=0, show_default=True,
              help="Your seat (0 plays first in the first deal unless seat 0 deals).")
@click.option("--opponents", default="greedy", show_default=True, metavar="BOT[,BOT..]",
              help=f"Computer players: {', '.join(BOT_LEVELS)} or cmd:COMMAND "
                   "(one for all, or one per other seat).")
@click.option("--think-ms", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Time budget per move of the master bot (and of hints), in milliseconds.")
@click.option("--hints", is_flag=True,
              help="Before each of your moves, show the master's estimate for every move.")
@click.option("--name", default="you", show_default=True, help="Your name in the record.")
@click.option("--seed", type=int, help="Seed for the deal (random by default).")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to save the game record [default: the user data directory].")
def play(variant: str | None, players: int | None, rule_items: Sequence[str],
         rules_file: Path | None, seat: int, opponents: str, think_ms: int, hints: bool,
         name: str, seed: int | None, record_path: Path | None) -> None:
    """Play a full match in the terminal against computer players.

    The record is saved when the match ends, or when you stop with Ctrl-C, 'quit' or
    the end of input.
    """
    variant_name, rules = _resolve_rules(variant, players, rule_items, rules_file)
    if not 0 <= seat < rules.players:
        raise UserError(f"--seat must be a seat from 0 to {rules.players - 1}, not {seat}")
    others = [s for s in range(rules.players) if s != seat]
    bot_names = _parse_bots(opponents, len(others), "--opponents")
    if seed is None:
        seed = int.from_bytes(__import__("os").urandom(4), "big")
    match = Match(rules, seed, variant=variant_name)
    bots = {s: make_bot(b, seed * 10 + s, think_ms=think_ms)
            for s, b in zip(others, bot_names, strict=True)}
    names = [name if s == seat else bots[s].name for s in range(rules.players)]
    adviser = MasterBot(seed * 10 + seat, think_ms=think_ms) if hints else None
    game = _TerminalGame(match, seat, bots, names, record_path or _default_record_path(),
                         adviser)
    out.print(f"[bold]Basra[/] · {variant_name} · {rules.players} players"
              + (" in partnerships (seats 0 & 2 against 1 & 3)" if rules.partnership else "")
              + f" · first to {rules.target} · you are seat {seat}")
    code = 0
    try:
        game.run()
    except (KeyboardInterrupt, EOFError) as stop:
        out.print("\nMatch stopped before the end.")
        code = 130 if isinstance(stop, KeyboardInterrupt) else 0
    except MatchOverError:
        pass
    finally:
        for bot in [*bots.values(), *([adviser] if adviser else [])]:
            close_bot(bot)
    path = game.save()
    finished = "" if match.is_over else "unfinished "
    out.print(f"Saved the {finished}record to {path}", soft_wrap=True)
    sys.exit(code)


# serve


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 for every network interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--db", "database", metavar="URL",
              help="Database URL: sqlite:///PATH or postgresql+asyncpg://USER:PASS@HOST/DB "
                   "[default: basra.db in the user data directory].")
@click.option("--bot-delay", type=click.FloatRange(min=0), default=0.8, show_default=True,
              help="Seconds a computer player waits before it plays, so people can follow.")
@click.option("--away-after", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="Seconds without a connection before the computer plays for a seat.")
@click.option("--master-ms", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Thinking time of the master level per move, in milliseconds.")
@click.option("--allow-origin", "allow_origins", metavar="ORIGIN", multiple=True,
              help="Another site whose pages may create and join tables and open table "
                   "sockets here, e.g. https://basra.example (repeatable); the server's own "
                   "pages always may.")
@click.option("--create-limit", default=_DEFAULT_LIMITS["create"], show_default=True,
              metavar="RATES", help="New tables (quick games too) per client address, e.g. "
                                    "20/minute;300/day.")
@click.option("--join-limit", default=_DEFAULT_LIMITS["join"], show_default=True,
              metavar="RATES", help="Seats taken per client address.")
@click.option("--sockets-per-address", type=click.IntRange(min=1), default=64,
              show_default=True, help="Most table sockets open from one client address.")
@click.option("--max-tables", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Most tables in memory; new tables beyond it are refused.")
@click.option("--master-workers", type=click.IntRange(min=1), default=None,
              help="Processes the master thinks in [default: every core but one].")
def serve(host: str, port: int, database: str | None, bot_delay: float, away_after: float,
          master_ms: int, allow_origins: tuple[str, ...], create_limit: str, join_limit: str,
          sockets_per_address: int, max_tables: int, master_workers: int | None) -> None:
    """Start the web app: play Basra in the browser with friends and computer players."""
    import asyncio
    import importlib.util
    import socket

    import uvicorn

    from .server import create_app
    from .server.ratelimit import parse_limits
    from .server.security import WebSocketHandshakeProtocol, parse_origin
    from .store import StorageError, Store, database_url, default_database_url

    try:
        url = database_url(database) if database else default_database_url()
    except ValueError as error:
        raise UserError(str(error)) from None
    try:
        origins = [parse_origin(origin) for origin in allow_origins]
    except ValueError as error:
        raise UserError(f"--allow-origin: {error}") from None
    for option, rates in (("--create-limit", create_limit), ("--join-limit", join_limit)):
        try:
            parse_limits(rates)
        except ValueError as error:
            raise UserError(f"{option}: {error}") from None
    if url.startswith("postgresql") and importlib.util.find_spec("asyncpg") is None:
        raise UserError("PostgreSQL storage needs the asyncpg driver: "
                        "pip install 'basra[postgres]'")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise UserError(f"cannot listen on {host}:{port}: {error.strerror or error}; "
                        "choose another --port or --host") from None

    async def check_storage() -> None:
        store = Store(url)
        await store.open()  # migrates, and checks that a write commits
        await store.close()

    try:
        asyncio.run(check_storage())
    except StorageError as error:
        raise UserError(str(error)) from None
    app = create_app(url, bot_delay=bot_delay, away_after=away_after, master_ms=master_ms,
                     allow_origins=origins,
                     rate_limits={"create": create_limit, "join": join_limit},
                     address_connections=sockets_per_address, max_tables=max_tables,
                     master_workers=master_workers)
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    out.print(f"[bold]Basra[/] is served at [bold cyan]http://{shown}:{port}/[/] "
              "(open it in a browser; Ctrl-C stops)", soft_wrap=True)
    out.print(f"Storage: {_hide_password(url)}", soft_wrap=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=65536,
                ws=WebSocketHandshakeProtocol)


def _hide_password(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Entry point of the ``basra`` console script."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="basra")
    raise SystemExit(0)
