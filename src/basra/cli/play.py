"""``basra play``: a full match in the terminal against computer players."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import click
from rich.table import Table

from basra.bots import BOT_LEVELS, Bot, close_bot, make_bot
from basra.bots.master import MasterBot
from basra.cards import CARD_NAMES, InvalidCardError, card_long_name, cards_text, parse_card
from basra.cli.common import (
    UserError,
    cli,
    out,
    parse_bots,
    plural,
    resolve_rules,
    rules_options,
    score_table,
    side_name,
)
from basra.match import DealHistory, Match, MatchOverError, Play
from basra.observe import observe
from basra.record import Player, dumps, match_record
from basra.state import move_captured, move_card


def _default_record_path() -> Path:
    from platformdirs import user_data_path

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return user_data_path("basra") / "records" / f"match-{stamp}.json"


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


class TerminalGame:
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
            f"{self.seat_name(s)}: {plural(view.hand_counts[s], 'card')}"
            for s in range(rules.players) if s != self.human
        )
        out.print(f"Others: {others} · stock: {plural(view.stock_count, 'card')}")
        scores = ", ".join(
            f"{'your side' if s == view.side else side_name(rules, s)} {match.totals[s]}"
            f" (+{plural(view.pile_counts[s], 'card')}, "
            f"{plural(view.basras[s], 'basra')} this deal)"
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
        out.print(score_table(self.rules, score, f"Deal {number} score"))
        if score["carry_out"]:
            out.print(f"Majority tied: {score['carry_out']} points carry to the next deal.")
        out.print("Match totals: " + ", ".join(
            f"{side_name(self.rules, s)} {t}" for s, t in enumerate(self.match.totals)))

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
            out.print(f"\n[bold]{side_name(self.rules, match.winner).capitalize()} wins "
                      f"with {match.totals[match.winner]} points.[/]")


@cli.command()
@rules_options()
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
    variant_name, rules = resolve_rules(variant, players, rule_items, rules_file)
    if not 0 <= seat < rules.players:
        raise UserError(f"--seat must be a seat from 0 to {rules.players - 1}, not {seat}")
    others = [s for s in range(rules.players) if s != seat]
    bot_names = parse_bots(opponents, len(others), "--opponents")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    match = Match(rules, seed, variant=variant_name)
    bots = {s: make_bot(b, seed * 10 + s, think_ms=think_ms)
            for s, b in zip(others, bot_names, strict=True)}
    names = [name if s == seat else bots[s].name for s in range(rules.players)]
    adviser = MasterBot(seed * 10 + seat, think_ms=think_ms) if hints else None
    game = TerminalGame(match, seat, bots, names, record_path or _default_record_path(),
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
