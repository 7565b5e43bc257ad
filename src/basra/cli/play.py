"""``basra play``: a full match in the terminal against computer players."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import click
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table

from basra.bots import BOT_LEVELS, Bot, bot_label, close_bot, make_bot
from basra.bots.master import MasterBot
from basra.cards import JACK, InvalidCardError, parse_card
from basra.cli.common import (
    Number,
    UserError,
    bonus_word,
    card_markup,
    cards_markup,
    cli,
    computer_level,
    game_title,
    load_master_search,
    out,
    parse_bots,
    print_table,
    resolve_rules,
    rules_options,
    score_table,
    side_name,
)
from basra.match import DealHistory, Match, MatchOverError, Play
from basra.observe import observe
from basra.players.names import computer_label, computer_name, guest_name
from basra.record import Player, dumps, match_record, pile_orders
from basra.rules import PILE_FAMILIES
from basra.state import move_captured, move_card

WIDTH = 80
"""Every line the game writes fits this many columns, except a long floor or capture."""

NAME_WIDTH = 12
"""How much of the player's own name the score lines show."""


class QuitGame(Exception):
    """The player typed ``quit``: the match stops and its record is saved."""


def _default_record_path() -> Path:
    from platformdirs import user_data_path

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return user_data_path("basra") / "records" / f"match-{stamp}.json"


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def _and(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _short(name: str) -> str:
    return name if len(name) <= NAME_WIDTH else name[:NAME_WIDTH - 1] + "…"


PILE_BACK = "##"
"""A face-down card of the pile."""


def _shown_order(mask: int) -> list[int]:
    """The stock's shown cards as they lie, the bottom card first (the Jacks sent under the
    stock after it)."""
    return sorted(_cards(mask), key=lambda card: card >> 2 == JACK)


def pile_markup(pile: Sequence[int]) -> str:
    """A pile game's pile as a stack (markup): its top card, its count, and the cards bottom
    to top, ``##`` for each face-down card (``-1``).

    >>> pile_markup([-1, -1, 20, 26])
    'top [red]7♦[/] · 4 cards: ## ## 6♠ [red]7♦[/] (bottom to top)'
    >>> pile_markup([])
    '(empty: the next card starts it)'
    """
    if not pile:
        return "(empty: the next card starts it)"
    cards = " ".join(PILE_BACK if card < 0 else card_markup(card) for card in pile)
    count = f"{len(pile)} card{'s' if len(pile) > 1 else ''}"
    return f"top {card_markup(pile[-1])} · {count}: {cards} (bottom to top)"


class TerminalGame:
    """One human seat against computer players, in the terminal.

    ``names`` are the record's names (the player's, and each computer's level);
    ``levels`` the level shown beside each computer's first name.
    """

    def __init__(self, match: Match, human: int, bots: dict[int, Bot], names: list[str],
                 record_path: Path, hints: MasterBot | None = None,
                 levels: dict[int, str] | None = None) -> None:
        self.hints = hints
        self.match = match
        self.rules = match.rules
        self.human = human
        self.bots = bots
        self.names = names
        self.record_path = record_path
        self.pile = self.rules.family in PILE_FAMILIES
        """A pile game (Pişti, Xeri): the floor is drawn as a stack."""
        self.word = bonus_word(self.rules, match.variant)
        """What the game calls its bonus capture: basra, sur, pişti or xeri."""
        levels = levels or {seat: computer_level(names[seat]) for seat in bots}
        self.short = [
            _short(names[seat]) if seat == human else computer_name(seat)
            for seat in range(self.rules.players)
        ]
        """Names where space is short: score lines and columns."""
        self.labels = [
            self.short[seat] if seat == human else computer_label(seat, levels[seat])
            for seat in range(self.rules.players)
        ]
        """Names in sentences: a computer's first name and level, ``Layla (greedy)``."""

    def who(self, seat: int) -> str:
        """The player of ``seat`` as the subject of a sentence (markup)."""
        return "You" if seat == self.human else escape(self.labels[seat])

    def side(self, side: int) -> str:
        """A side by its players' short names (markup)."""
        return escape(side_name(self.rules, side, self.short))

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

    def show_start(self) -> None:
        rules = self.rules
        teams = " in partnerships" if rules.partnership else ""
        out.print(f"[bold]{game_title(rules, self.match.variant)}[/] · "
                  f"{escape(self.match.variant)} · "
                  f"{rules.players} players"
                  f"{teams} · first to {rules.target} points")
        me = "" if self.names[self.human] == "you" else f" ({escape(self.short[self.human])})"
        mine = self.rules.side_of[self.human]
        partners = [escape(self.labels[s]) for s in range(rules.players)
                    if s != self.human and rules.side_of[s] == mine]
        others = [escape(self.labels[s]) for s in range(rules.players)
                  if rules.side_of[s] != mine]
        team = f", partnered with {_and(partners)}" if partners else ""
        out.print(f"You are seat {self.human}{me}{team}.")
        out.print(f"Against you: {_and(others)}.")

    def show_table(self) -> None:
        match, rules = self.match, self.rules
        state = match.state
        view = observe(match, self.human)
        out.print()
        out.print(Rule(f"Deal {len(match.deals)} · {escape(match.variant)}"),
                  width=min(out.width, WIDTH))
        sides = range(rules.sides)
        scores = " · ".join(f"{self.side(s)} {match.totals[s]}" for s in sides)
        out.print(f"Scores: {scores} · first to {match.target}")
        taken = " · ".join(f"{self.side(s)} {view.pile_counts[s]}" for s in sides)
        out.print(f"Cards taken this deal: {taken}")
        basras = [f"{self.side(s)} {view.basras[s]}" for s in sides if view.basras[s]]
        if basras:
            out.print(f"{self.word.capitalize()}s this deal: {' · '.join(basras)}")
        hands = " · ".join(f"{escape(self.short[s])} {view.hand_counts[s]}"
                           for s in range(rules.players) if s != self.human)
        stock = f"stock {view.stock_count}"
        if self.pile and view.stock_shown:
            stock += f" (bottom card {cards_markup(_shown_order(view.stock_shown))})"
        out.print(f"Cards in hand: {hands} · {stock}")
        if self.pile:
            out.print(f"[bold]Pile:[/] {pile_markup(view.pile)}")
        else:
            out.print(f"[bold]Floor:[/] "
                      f"{cards_markup(state.floor) if state.floor else '(empty)'}")
        hand = "  ".join(f"[bold]{i})[/] {card_markup(c)}" for i, c in
                         enumerate(_cards(view.hand), 1))
        out.print(f"[bold]Your hand:[/] {hand}")

    def show_pile_deal(self) -> None:
        """What every seat sees of a pile game's deal: the face-down cards, the Jacks turned
        up and the stock's bottom card."""
        layout = self.match.deals[-1].layout
        down = len(layout.floor_down)
        if down:
            out.print(f"The pile is dealt with {down} cards face down under its top card.")
        if layout.turned:
            out.print(f"Turned up from the pile: {cards_markup(list(layout.turned))} "
                      f"({self.rules.centre_jack}).")
        if layout.bottom_card >= 0:
            dealer = "you" if layout.dealer == self.human else escape(self.labels[layout.dealer])
            out.print(f"The stock's bottom card, shown to all, is "
                      f"{card_markup(layout.bottom_card)}: it goes to {dealer} last.")

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
            text = card_markup(move_card(estimate.move))
            text += (f" takes {cards_markup(captured)}" if captured
                     else " (laid)" if self.pile else " (trail)")
            table.add_row(text, f"{estimate.value:+.1f}")
        out.print(table)

    def ask(self, prompt: str) -> str:
        """One answer typed at the prompt; shown again when the input is not a terminal,
        so that a transcript reads like the game."""
        answer = out.input(prompt).strip()
        if not sys.stdin.isatty():
            out.print(answer, markup=False)
        return answer

    def ask_move(self) -> int:
        view = observe(self.match, self.human)
        hand = _cards(view.hand)
        while True:
            answer = self.ask("Your play (number or card, ? for help): ")
            if answer in ("?", "help", "h"):
                out.print("Type the number of a card in your hand (1, 2, ...) or its name "
                          "(7H, 10D, QS). 'quit' saves the match and leaves.")
                continue
            if answer.lower() in ("quit", "q", "exit"):
                raise QuitGame
            card: int | None = None
            if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(hand):
                card = hand[int(answer) - 1]
            else:
                try:
                    card = parse_card(answer)
                except InvalidCardError:
                    out.print(f"[red]{escape(repr(answer))} is not a card in your hand.[/] "
                              f"Choose 1 to {len(hand)} or a card name.")
                    continue
                if card not in hand:
                    out.print(f"{card_markup(card)} is not in your hand.")
                    continue
            choices = [m for m in view.legal_moves if move_card(m) == card]
            if len(choices) == 1:
                return choices[0]
            return self.ask_capture(card, choices)

    def ask_capture(self, card: int, choices: list[int]) -> int:
        out.print(f"{card_markup(card)} can be played in {len(choices)} ways:")
        for i, move in enumerate(choices, 1):
            captured = move_captured(move)
            text = f"take {cards_markup(captured)}" if captured else "trail (take nothing)"
            out.print(f"  [bold]{i})[/] {text}")
        while True:
            answer = self.ask(f"Which one (1-{len(choices)})? ")
            if answer.lower() in ("quit", "q", "exit"):
                raise QuitGame
            if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(choices):
                return choices[int(answer) - 1]
            out.print(f"[red]Choose a number from 1 to {len(choices)}.[/]")

    def describe(self, play: Play) -> None:
        mine = play.seat == self.human
        verb, take = ("play", "take") if mine else ("plays", "takes")
        line = f"{self.who(play.seat)} {verb} {card_markup(play.card)}"
        if self.pile:  # the pile's cards by their count: some may lie face down
            if play.captured:
                count = play.captured.bit_count()
                line += f" and {take} the pile ({count} card{'s' if count > 1 else ''})"
                if play.pisti:
                    line += f"  [bold yellow]{self.word.upper()}! +{play.pisti}[/]"
            else:
                line += " onto the pile."
        elif play.captured:
            line += f" and {take} {cards_markup(play.captured)}"
            if play.basra:
                line += f"  [bold yellow]{self.word.upper()}![/]"
        else:
            line += " to the floor."
        out.print(line)

    def show_deal_end(self, history: DealHistory, number: int) -> None:
        assert history.score is not None
        if history.shares:
            given = " · ".join(f"{card_markup(card)} to {self.side(side)}"
                               for card, side in history.shares)
            out.print(f"The floor left is given out one card at a time: {given}.")
        elif history.leftover:
            to = "you" if history.leftover_seat == self.human else escape(
                self.short[history.leftover_seat])
            what, left = "floor", cards_markup(history.leftover)
            if self.pile:
                what, left = "pile", cards_markup(pile_orders(history.layout,
                                                              history.plays)[-1])
            out.print(f"The {what} ({left}) goes to {to}, the last to capture.")
        score = history.score._asdict()
        if self.pile:
            score["pistis"] = [list(counts) for counts in history.score.pistis]
        out.print()
        print_table(score_table(self.rules, score, self.short, self.match.variant),
                    f"Deal {number} score")
        if score["carry_out"]:
            out.print(f"Majority tied: {score['carry_out']} points carry to the next deal.")
        out.print("Match totals: " + " · ".join(
            f"{self.side(s)} {t}" for s, t in enumerate(self.match.totals)))

    def run(self) -> None:
        match = self.match
        shown_deal = 0
        while not match.is_over:
            deal_number = len(match.deals)
            if deal_number != shown_deal:
                shown_deal = deal_number
                dealer = match.state.dealer
                deals = "You deal" if dealer == self.human else f"{self.who(dealer)} deals"
                out.print(f"\n[bold]Deal {deal_number}[/]: {deals}.")
                if self.pile:
                    self.show_pile_deal()
                playing = match.state.seats
                if len(playing) < self.rules.players:
                    who = _and([self.who(s) for s in sorted(playing)])
                    out.print(f"A tie at the top: only {who} play this deal.")
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
            verb = "win" if self.rules.partnership else "wins"
            out.print(f"\n[bold]{self.side(match.winner)} {verb} "
                      f"with {match.totals[match.winner]} points.[/]")


@cli.command()
@rules_options()
@click.option("--seat", type=Number(), default=0, show_default=True,
              help="Your seat (0 plays first in the first deal unless seat 0 deals).")
@click.option("--opponents", default="greedy", show_default=True, metavar="BOT[,BOT..]",
              help=f"Computer players: {', '.join(BOT_LEVELS)} or cmd:COMMAND "
                   "(one for all, or one per other seat).")
@click.option("--think-ms", type=Number(1), default=300, show_default=True,
              help="Time budget per move of the master bot (and of hints), in milliseconds.")
@click.option("--hints", is_flag=True,
              help="Before each of your moves, show the master's estimate for every move.")
@click.option("--name", default="you", show_default=True,
              help="Your name in the score lines and the record.")
@click.option("--seed", type=Number(), help="Seed for the deal (random by default).")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to save the game record [default: the user data directory].")
def play(variant: str | None, players: int | None, rule_items: Sequence[str],
         rules_file: Path | None, seat: int, opponents: str, think_ms: int, hints: bool,
         name: str, seed: int | None, record_path: Path | None) -> None:
    """Play a full match in the terminal against computer players.

    The record is saved when the match ends, or when you stop: 'quit' or the end of
    input (exit code 0), or Ctrl-C (exit code 130).
    """
    variant_name, rules = resolve_rules(variant, players, rule_items, rules_file)
    if not 0 <= seat < rules.players:
        raise UserError(f"--seat must be a seat from 0 to {rules.players - 1}, not {seat}")
    if not name.strip():
        name = guest_name(seat)
    others = [s for s in range(rules.players) if s != seat]
    bot_names = parse_bots(opponents, len(others), "--opponents")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    match = Match(rules, seed, variant=variant_name)
    if hints or "master" in (bot_label(b) for b in bot_names):
        load_master_search()
    bots = {s: make_bot(b, seed * 10 + s, think_ms=think_ms)
            for s, b in zip(others, bot_names, strict=True)}
    names = [name if s == seat else bots[s].name for s in range(rules.players)]
    levels = {s: computer_level(b) for s, b in zip(others, bot_names, strict=True)}
    adviser = MasterBot(seed * 10 + seat, think_ms=think_ms) if hints else None
    game = TerminalGame(match, seat, bots, names, record_path or _default_record_path(),
                        adviser, levels)
    code = 0
    interrupt = signal.getsignal(signal.SIGINT)
    try:
        try:
            game.show_start()
            game.run()
        except (QuitGame, EOFError, KeyboardInterrupt) as stop:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C keeps the record
            out.print("\nMatch stopped before the end.")
            code = 130 if isinstance(stop, KeyboardInterrupt) else 0
        except MatchOverError:
            pass
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            for bot in [*bots.values(), *([adviser] if adviser else [])]:
                close_bot(bot)
        path = game.save()
    finally:
        signal.signal(signal.SIGINT, interrupt)
    finished = "" if match.is_over else "unfinished "
    out.print(f"Saved the {finished}record to {path}", soft_wrap=True)
    sys.exit(code)
