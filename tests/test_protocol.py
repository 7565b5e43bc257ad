"""External bots over ``basra-bot/1``, with real subprocesses: the example bot, and bots
that crash, hang, answer garbage or illegal moves, or try to see what they may not."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from basra.bots import Bot, GreedyBot, UnknownBotError, close_bot, make_bot
from basra.bots.protocol import MAX_RESTARTS, ExternalBot, read_move
from basra.cards import CARD_NAMES, iter_cards, parse_card
from basra.match import Match
from basra.observe import Observation, observe
from basra.position import rules_text
from basra.record import loads, replay
from basra.rules import PRESETS, Rules, make_rules
from basra.state import (
    AmbiguousMoveError,
    DealState,
    IllegalMoveError,
    InvalidMoveError,
    hidden_down,
    make_move,
    move_text,
    parse_move,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "bot_example.py"
PYTHON = shlex.quote(sys.executable)

# Every test bot starts with this: it logs its pid and each line it receives to LOG, if set.
PRELUDE = """\
import json, os, sys, time
LOG = os.environ.get("BOT_LOG")
def log(text):
    if LOG:
        with open(LOG, "a") as file:
            file.write(f"{os.getpid()} {text}\\n")
def requests():
    for line in sys.stdin:
        log(line.strip())
        message = json.loads(line)
        if message["type"] == "move":
            yield message["observation"]
        elif message["type"] == "quit":
            return
def answer(move):
    print(json.dumps({"move": move}), flush=True)
"""


def bot_command(tmp_path: Path, name: str, body: str) -> str:
    """Write a bot script (PRELUDE + body) and return the command that runs it."""
    path = tmp_path / f"{name}.py"
    path.write_text(PRELUDE + textwrap.dedent(body), encoding="utf-8")
    return f"{PYTHON} {shlex.quote(str(path))}"


class Decision:
    def __init__(self, seat: int, move: int, errors: list[str]) -> None:
        self.seat, self.move, self.errors = seat, move, errors


def play_match(match: Match, bots: dict[int, Bot], errors: list[str],
               before: Callable[[Match, int], None] | None = None) -> list[Decision]:
    """Play the match to the end; each decision with the messages it produced."""
    decisions = []
    try:
        while not match.is_over:
            seat = match.state.to_play
            if before is not None:
                before(match, seat)
            view = observe(match, seat)
            count = len(errors)
            move = bots[seat].choose(view)
            assert move in view.legal_moves
            decisions.append(Decision(seat, move, errors[count:]))
            match.play(move)
    finally:
        for bot in bots.values():
            close_bot(bot)
    return decisions


def external(command: str, errors: list[str], **options: Any) -> ExternalBot:
    return ExternalBot(command, seed=1, on_error=errors.append, **options)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def logged_pids(log: Path) -> list[int]:
    pids: list[int] = []
    for line in log.read_text().splitlines():
        pid = int(line.split(" ", 1)[0])
        if pid not in pids:
            pids.append(pid)
    return pids


def check_fallbacks(decisions: list[Decision], bot_name: str) -> list[str]:
    """Every lost decision has one message, naming the bot and the greedy move played."""
    messages = []
    for decision in decisions:
        if decision.errors:
            assert len(decision.errors) == 1
            message = decision.errors[0]
            assert message.startswith(f"bot {bot_name}: ")
            assert f"; greedy fallback plays {move_text(decision.move)}" in message
            messages.append(message)
    return messages


# The move text a bot answers


def test_read_move_judges_against_the_legal_moves_only() -> None:
    seven_hearts, nine_spades = parse_card("7H"), parse_card("9S")
    legal = [make_move(seven_hearts, 1 << parse_card("3C") | 1 << parse_card("4H")),
             make_move(seven_hearts, 1 << parse_card("7S")), make_move(nine_spades)]
    assert read_move("7h:4H+3c", legal) == legal[0]
    assert read_move(" 7H:7S ", legal) == legal[1]
    assert read_move("9S", legal) == read_move("9S:", legal) == legal[2]
    with pytest.raises(AmbiguousMoveError, match="7H:3C\\+4H, 7H:7S"):
        read_move("7H", legal)
    with pytest.raises(IllegalMoveError, match="7H cannot capture 3C 7S"):
        read_move("7H:7S+3C", legal)
    with pytest.raises(IllegalMoveError, match="KD is not a card you can play"):
        read_move("KD", legal)
    with pytest.raises(IllegalMoveError, match="7H must capture"):
        read_move("7H:", legal)
    with pytest.raises(InvalidMoveError, match="bad move 'XX'"):
        read_move("XX", legal)


def protocol_games() -> list[Rules]:
    """Every preset and player count, and house rules that change which moves exist."""
    # The bot protocol does not carry the pile games yet (issue 41): a pile game's capture
    # is named by the cards a seat sees, which the protocol's move reading does not know.
    games = [make_rules(name, players) for name, found in PRESETS.items()
             for players in found.players if found.rules.family != "pisti"]
    games += [make_rules("egyptian", 2, {"optional_capture": True}),
              make_rules("classic", 3, {"optional_capture": True, "sums": False}),
              make_rules("lebanese", 4, {"optional_capture": True})]
    return games


def random_views(rules: Rules, seed: int, deals: int = 2) -> list[tuple[DealState, Observation]]:
    """The observation of the seat to play at every play of the first deals of a match."""
    match = Match(rules, seed)
    rng = random.Random(seed)
    views = []
    while not match.is_over and len(match.deals) <= deals:
        view = observe(match, match.state.to_play)
        views.append((match.state, view))
        match.play(rng.choice(view.legal_moves))
    return views


@pytest.mark.parametrize("rules", protocol_games(), ids=rules_text)
def test_legal_moves_are_written_bare_for_a_trail_and_in_full_for_a_capture(
    rules: Rules
) -> None:
    captures = trails = 0
    for seed in range(3):
        for _, view in random_views(rules, seed):
            texts = view.to_dict()["legal_moves"]
            assert len(set(texts)) == len(texts) == len(view.legal_moves) > 0
            for move, text in zip(view.legal_moves, texts, strict=True):
                card, captured = move & 63, move >> 6
                if captured:  # always in full, even a card's only capture
                    captures += 1
                    assert text == CARD_NAMES[card] + ":" + "+".join(
                        CARD_NAMES[c] for c in iter_cards(captured))
                    head, _, tail = text.partition(":")
                    assert head == CARD_NAMES[card]
                    assert sum(1 << parse_card(c) for c in tail.split("+")) == captured
                else:  # never with a colon or captured cards
                    trails += 1
                    assert text == CARD_NAMES[card] and ":" not in text
                assert read_move(text, view.legal_moves) == move
    assert captures > 20 and trails > 20


@pytest.mark.parametrize("rules", protocol_games(), ids=rules_text)
def test_what_a_bare_card_and_an_explicit_trail_mean(rules: Rules) -> None:
    """docs/protocol.md, "Reading an answer", for every card of every hand at every play:
    read_move (the bot's answer) and parse_move (typed text) agree with the table."""
    seen_ambiguous = seen_only_capture = 0
    for seed in range(3):
        for state, view in random_views(rules, seed):
            legal = view.legal_moves
            for card in iter_cards(view.hand):
                name = CARD_NAMES[card]
                choices = [m for m in legal if m & 63 == card]
                captures = [m for m in choices if m >> 6]
                can_trail = card in legal
                assert can_trail == (rules.optional_capture or not captures)
                bare: int | type[ValueError]
                trail: int | type[ValueError]
                if can_trail:
                    bare = trail = card
                elif len(captures) == 1:
                    bare, trail = captures[0], IllegalMoveError
                    seen_only_capture += 1
                else:
                    bare, trail = AmbiguousMoveError, IllegalMoveError
                    seen_ambiguous += 1
                for text, expected in ((name, bare), (name.lower(), bare), (f"{name}:", trail),
                                       (f"{name}:-", trail), (f" {name} : ", trail)):
                    for read in (partial(read_move, text, legal), partial(parse_move, state, text)):
                        if isinstance(expected, int):
                            assert read() == expected
                        else:
                            with pytest.raises(expected):
                                read()
                if not can_trail and len(captures) == 1:
                    with pytest.raises(IllegalMoveError, match=f"{name} must capture"):
                        read_move(f"{name}:", legal)
    if rules.optional_capture:
        assert seen_only_capture == seen_ambiguous == 0
    else:
        assert seen_only_capture > 0


def test_optional_capture_a_bare_card_lays_it_down() -> None:
    seven, three, four = parse_card("7H"), parse_card("3C"), parse_card("4H")
    capture = make_move(seven, 1 << three | 1 << four)
    # optional_capture: 7H may capture or be laid down; both are listed.
    legal = [capture, make_move(seven), make_move(parse_card("9S"))]
    assert [move_text(m) for m in legal] == ["7H:3C+4H", "7H", "9S"]
    assert read_move("7H", legal) == read_move("7H:", legal) == read_move("7H:-", legal) == seven
    assert read_move("7H:4H+3C", legal) == read_move("7h:3c 4h", legal) == capture
    with pytest.raises(IllegalMoveError, match="7H cannot capture 3C"):
        read_move("7H:3C", legal)
    # Capture compulsory: 7H must capture, and has one way: bare 7H is that capture.
    legal = [capture, make_move(parse_card("9S"))]
    assert read_move("7H", legal) == read_move("7H:3C+4H", legal) == capture
    with pytest.raises(IllegalMoveError, match="7H must capture"):
        read_move("7H:", legal)
    with pytest.raises(IllegalMoveError, match="7H must capture"):
        read_move("7H:-", legal)


def test_a_bot_answering_bare_cards_under_optional_capture_only_lays_down(
    tmp_path: Path
) -> None:
    command = bot_command(tmp_path, "layer", """\
        for view in requests():
            answer(view["legal_moves"][0].split(":")[0])
    """)
    errors: list[str] = []
    match = Match(make_rules("egyptian", 2, {"optional_capture": True}), 4)
    decisions = play_match(match, {0: external(command, errors), 1: GreedyBot(1)}, errors)
    assert match.is_over and errors == []
    mine = [d.move for d in decisions if d.seat == 0]
    assert len(mine) > 20 and all(move >> 6 == 0 for move in mine)


def test_the_example_move_message_is_a_real_observation() -> None:
    """docs/protocol.md's move example: egyptian, seed 269, its plays played again."""
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]
    hello = next(e for e in examples if e.get("type") == "hello")
    shown = next(e for e in examples if e.get("type") == "move")["observation"]
    rules = make_rules("egyptian")
    assert hello["rules"] == rules.to_dict()
    match = Match(rules, 269)
    for entry in shown["plays"]:
        captured = sum(1 << parse_card(c) for c in entry["captured"])
        assert match.play(make_move(parse_card(entry["card"]), captured)).basra == entry["basra"]
    real = observe(match, shown["seat"]).to_dict()
    assert real["rules"] == hello["rules"]
    del real["rules"], shown["rules"]
    assert real == shown
    assert shown["buried"] and shown["batch"] == 2


# Good bots


def test_the_example_bot_plays_whole_matches_legally() -> None:
    for variant, players, seed in (("egyptian", 2, 5), ("lebanese", 4, 6)):
        errors: list[str] = []
        match = Match(make_rules(variant, players), seed)
        bots: dict[int, Bot] = {
            seat: external(f"{PYTHON} {shlex.quote(str(EXAMPLE))}", errors)
            if seat % 2 == 0 else GreedyBot(seat) for seat in range(players)
        }
        decisions = play_match(match, bots, errors)
        assert match.is_over and match.winner is not None
        assert errors == []
        assert sum(d.seat % 2 == 0 for d in decisions) > 20


def test_a_bare_card_is_its_only_move(tmp_path: Path) -> None:
    command = bot_command(tmp_path, "bare", """\
        for view in requests():
            moves = view["legal_moves"]
            cards = [move.split(":")[0] for move in moves]
            alone = [card for card in cards if cards.count(card) == 1]
            answer(alone[0] if alone else moves[0])
    """)
    errors: list[str] = []
    match = Match(make_rules("egyptian"), 3)
    play_match(match, {0: external(command, errors), 1: GreedyBot(1)}, errors)
    assert match.is_over and errors == []


def test_make_bot_reads_cmd_specs() -> None:
    bot = make_bot(f"cmd:{PYTHON} {shlex.quote(str(EXAMPLE))}", 1)
    assert isinstance(bot, ExternalBot) and bot.name.startswith("cmd:")
    assert bot.pid is None  # started lazily
    with pytest.raises(UnknownBotError, match="No closing quotation"):
        make_bot('cmd:python "my bot.py')


# Bad bots: each lost decision is one message and a greedy move; the match goes on


def test_a_crashing_bot_is_restarted_then_replaced(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "crash.log"
    monkeypatch.setenv("BOT_LOG", str(log))
    command = bot_command(tmp_path, "crash", """\
        for number, view in enumerate(requests(), 1):
            if number == 3:
                sys.exit(3)
            answer(view["legal_moves"][0])
    """)
    errors: list[str] = []
    bot = external(command, errors)
    match = Match(make_rules("egyptian"), 11)
    decisions = play_match(match, {0: bot, 1: GreedyBot(1)}, errors)
    assert match.is_over
    messages = check_fallbacks(decisions, bot.name)
    assert len(messages) == MAX_RESTARTS + 1 == 4
    assert all("exited with code 3" in m for m in messages)
    assert "giving up on the bot after 3 restarts" in messages[-1]
    assert not any("giving up" in m for m in messages[:-1])
    assert bot.restarts == MAX_RESTARTS and bot.given_up
    # Each of the four processes answered its first two requests: restarting works.
    pids = logged_pids(log)
    assert len(pids) == 4 and not any(alive(pid) for pid in pids)
    answered = [d for d in decisions if d.seat == 0][:12]
    assert [bool(d.errors) for d in answered] == [False, False, True] * 4


@pytest.mark.slow
def test_a_hanging_bot_times_out_and_is_killed(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "hang.log"
    monkeypatch.setenv("BOT_LOG", str(log))
    command = bot_command(tmp_path, "hang", """\
        for number, view in enumerate(requests(), 1):
            if number == 2:
                sys.stdout.write('{"move": ')  # half a line, then nothing
                sys.stdout.flush()
                time.sleep(60)
            answer(view["legal_moves"][0])
    """)
    errors: list[str] = []
    bot = external(command, errors, timeout=0.5)
    match = Match(make_rules("egyptian"), 12)
    started = time.perf_counter()
    decisions = play_match(match, {0: bot, 1: GreedyBot(1)}, errors)
    elapsed = time.perf_counter() - started
    assert match.is_over
    messages = check_fallbacks(decisions, bot.name)
    assert len(messages) == 4
    assert all("no answer within 0.5 s" in m and "stopped it" in m for m in messages)
    assert "giving up" in messages[-1]
    assert elapsed < 4 * 0.5 + 3
    pids = logged_pids(log)
    assert len(pids) == 4 and not any(alive(pid) for pid in pids)


def test_a_bot_answering_garbage_keeps_its_seat(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "garbage.log"
    monkeypatch.setenv("BOT_LOG", str(log))
    command = bot_command(tmp_path, "garbage", """\
        junk = ['thinking...', '', '{"mov": "7H"}', '[1, 2]', '{"move": 7}']
        for number, view in enumerate(requests()):
            if number < len(junk):
                print(junk[number], flush=True)
            else:
                answer(view["legal_moves"][0])
    """)
    errors: list[str] = []
    bot = external(command, errors)
    match = Match(make_rules("egyptian"), 13)
    decisions = play_match(match, {0: bot, 1: GreedyBot(1)}, errors)
    assert match.is_over
    messages = check_fallbacks(decisions, bot.name)
    assert len(messages) == 5
    assert "answered 'thinking...', which is not JSON" in messages[0]
    assert "answered an empty line" in messages[1]
    assert 'has no "move"' in messages[2] and 'has no "move"' in messages[3]
    assert '"move" must be a string' in messages[4]
    assert len(logged_pids(log)) == 1 and bot.restarts == 0


def test_a_bot_answering_illegal_moves_loses_those_moves(tmp_path: Path) -> None:
    command = bot_command(tmp_path, "illegal", """\
        for number, view in enumerate(requests()):
            hand = view["hand"]
            if number == 0:
                answer(next(c for c in ["AS", "AH", "AD", "AC", "2S"] if c not in hand))
            elif number == 1:
                answer("ZZ")
            elif number == 2:  # a card of its hand, capturing a card not on the floor
                absent = ["KS", "KH", "KD", "KC", "QS", "QH"]
                answer(hand[0] + ":" + next(c for c in absent
                                            if c not in view["floor"] + hand))
            else:
                answer(view["legal_moves"][-1])
    """)
    errors: list[str] = []
    bot = external(command, errors)
    match = Match(make_rules("egyptian"), 14)
    decisions = play_match(match, {0: bot, 1: GreedyBot(1)}, errors)
    assert match.is_over
    messages = check_fallbacks(decisions, bot.name)
    assert len(messages) == 3
    assert "is not a card you can play" in messages[0] and "(legal: " in messages[0]
    assert "bad move 'ZZ'" in messages[1]
    assert "cannot capture" in messages[2]


def test_a_command_that_cannot_start_falls_back_for_the_match(tmp_path: Path) -> None:
    errors: list[str] = []
    bot = external(str(tmp_path / "no-such-bot"), errors)
    match = Match(make_rules("egyptian"), 15)
    play_match(match, {0: bot, 1: GreedyBot(1)}, errors)
    assert match.is_over and len(errors) == 1
    assert "could not start" in errors[0] and "giving up on the bot" in errors[0]


def test_default_messages_go_to_stderr(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    command = bot_command(tmp_path, "junk", """\
        for view in requests():
            print("junk", flush=True)
    """)
    bot = ExternalBot(command)
    match = Match(make_rules("egyptian"), 16)
    view = observe(match, match.state.to_play)
    with bot:
        move = bot.choose(view)
    assert capsys.readouterr().err == (
        f"basra: bot {bot.name}: answered 'junk', which is not JSON; "
        f"greedy fallback plays {move_text(move)}\n"
    )


# Hidden information and clean-up


CARD_WORD = re.compile(r"^(?:[AJQK]|10|[2-9])[SHDC]$")


def named_cards(value: Any) -> set[int]:
    """Every card that a JSON value names, as a string of its own or in a move text."""
    if isinstance(value, dict):
        return set().union(*(named_cards(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(named_cards(v) for v in value))
    if isinstance(value, str):
        words = re.split(r"[:+]", value)
        return {parse_card(word) for word in words if CARD_WORD.match(word)}
    return set()


def test_a_bot_only_ever_receives_its_own_seats_view(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "spy.log"
    monkeypatch.setenv("BOT_LOG", str(log))
    command = bot_command(tmp_path, "spy", """\
        for view in requests():
            answer(view["legal_moves"][-1])
    """)
    errors: list[str] = []
    rules = make_rules("lebanese", 4)
    match = Match(rules, 17)
    expected: list[tuple[dict[str, Any], int]] = []

    def remember(match: Match, seat: int) -> None:
        if seat == 1:
            view = observe(match, seat)
            # Seen: its own cards, the floor, the captures and the buried cards.
            expected.append((json.loads(json.dumps(view.to_dict())), view.seen | view.buried))

    bots: dict[int, Bot] = {seat: GreedyBot(seat) for seat in range(4)}
    bots[1] = external(command, errors)
    play_match(match, bots, errors, before=remember)
    assert match.is_over and errors == []
    lines = [json.loads(line.split(" ", 1)[1]) for line in log.read_text().splitlines()]
    hello, *requests, quit_ = lines
    assert hello["type"] == "hello" and hello["protocol"] == "basra-bot/1"
    assert hello["seat"] == 1 and hello["rules"] == rules.to_dict()
    assert isinstance(hello["seed"], int)
    assert quit_ == {"type": "quit"}
    assert len(requests) == len(expected) > 20
    for request, (view, seen) in zip(requests, expected, strict=True):
        assert request == {"type": "move", "observation": view}
        observation = dict(request["observation"])
        del observation["rules"]  # names cards by rule (bury, card_points), not by sight
        for card in named_cards(observation):
            assert seen >> card & 1, f"the bot was told of {card}, which it has not seen"


def test_the_bot_seed_does_not_reveal_the_match_seed(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    command = bot_command(tmp_path, "seed", """\
        for view in requests():
            answer(view["legal_moves"][0])
    """)
    match = Match(make_rules("egyptian"), 18)
    seeds = set()
    for run in range(2):
        log = tmp_path / f"seed-{run}.log"
        monkeypatch.setenv("BOT_LOG", str(log))
        with ExternalBot(command, seed=180) as bot:
            bot.choose(observe(match, match.state.to_play))
        seeds.add(json.loads(log.read_text().splitlines()[0].split(" ", 1)[1])["seed"])
    assert len(seeds) == 2 and not seeds & {18, 180}


@pytest.mark.slow
def test_close_leaves_no_process_running(tmp_path: Path) -> None:
    command = bot_command(tmp_path, "stubborn", """\
        first = sys.stdin.readline() and sys.stdin.readline()
        answer(json.loads(first)["observation"]["legal_moves"][0])
        time.sleep(60)  # ignores quit and the end of its input
    """)
    match = Match(make_rules("egyptian"), 19)
    view = observe(match, match.state.to_play)
    polite = ExternalBot(f"{PYTHON} {shlex.quote(str(EXAMPLE))}")
    stubborn = ExternalBot(command)
    for bot in (polite, stubborn):
        assert bot.choose(view) in view.legal_moves
        pid = bot.pid
        assert pid is not None and alive(pid)
        started = time.perf_counter()
        bot.close()
        assert not alive(pid) and bot.pid is None
        assert time.perf_counter() - started < 3
        bot.close()  # twice is harmless


# Through the real command


def basra(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


def test_simulate_with_the_example_bot_writes_valid_records(tmp_path: Path) -> None:
    spec = f"cmd:{PYTHON} examples/bot_example.py"
    result = basra("simulate", "--bots", f"{spec},greedy", "-n", "2", "--seed", "4",
                   "--records", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "basra: bot" not in result.stderr
    for seed in (4, 5):
        record = loads((tmp_path / f"match-{seed}.json").read_text(encoding="utf-8"))
        assert record["players"][0]["name"] == spec
        assert replay(record).is_over


def test_simulate_goes_on_when_a_bot_crashes(tmp_path: Path) -> None:
    command = bot_command(tmp_path, "crash", """\
        for number, view in enumerate(requests(), 1):
            if number == 2:
                raise SystemExit(7)
            answer(view["legal_moves"][0])
    """)
    result = basra("simulate", "--bots", f"cmd:{command},greedy", "-n", "1", "--seed", "9",
                   "--records", str(tmp_path / "out"), "--json")
    assert result.returncode == 0, result.stderr
    assert f"basra: bot cmd:{command}: exited with code 7; greedy fallback plays " \
        in result.stderr
    assert "giving up on the bot after 3 restarts" in result.stderr
    assert json.loads(result.stdout)["matches"] == 1
    replay(loads((tmp_path / "out" / "match-9.json").read_text(encoding="utf-8")))


def test_arena_plays_a_cmd_bot_in_worker_processes(tmp_path: Path) -> None:
    spec = f"cmd:{PYTHON} examples/bot_example.py"
    result = basra("arena", "--bots", f"{spec},greedy", "-n", "2", "--jobs", "2",
                   "--records", str(tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    assert "basra: bot" not in result.stderr
    assert json.loads(result.stdout)["bots"] == [spec, "greedy"]
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == 2
    for path in records:
        assert replay(loads(path.read_text(encoding="utf-8"))).is_over


# The pile games: the observation carries the pile, its face-down cards hidden


def test_an_external_bot_plays_a_pisti_deal_and_never_sees_a_hidden_pile_card(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0 is a program that plays its first legal move and logs every observation it
    is sent; each must be exactly the seat's own view, with a ``??`` for every face-down
    card it has not been shown and none of those cards named anywhere."""
    log = tmp_path / "pile.log"
    monkeypatch.setenv("BOT_LOG", str(log))
    command = bot_command(tmp_path, "piler", """\
        for observation in requests():
            answer(observation["legal_moves"][0])
        """)
    match = Match(make_rules("pisti"), seed=11, variant="pisti")
    errors: list[str] = []
    sent: list[tuple[dict[str, Any], int, int]] = []

    def remember(match: Match, seat: int) -> None:
        if seat == 0:
            hidden = hidden_down(match.state, 0)
            sent.append((observe(match, 0).to_dict(), hidden,
                         (hidden & match.state.floor).bit_count()))

    bots: dict[int, Bot] = {0: external(command, errors), 1: GreedyBot(2)}
    try:
        while len(match.deals) == 1 and match.deals[0].score is None:
            seat = match.state.to_play
            remember(match, seat)
            view = observe(match, seat)
            move = bots[seat].choose(view)
            assert move in view.legal_moves
            match.play(move)
    finally:
        for bot in bots.values():
            close_bot(bot)
    assert errors == []
    received = [json.loads(line.split(" ", 1)[1]) for line in
                log.read_text(encoding="utf-8").splitlines() if '"type": "move"' in line]
    assert [message["observation"] for message in received] == [view for view, *_ in sent]
    hidden_seen = 0
    for view, hidden, in_pile in sent:
        text = json.dumps({k: v for k, v in view.items() if k != "rules"})  # names 2C, 10D
        assert view["pile"].count("??") == view["down_count"] == in_pile
        for card in iter_cards(hidden):
            assert f'"{CARD_NAMES[card]}"' not in text
        hidden_seen += bool(hidden)
    assert hidden_seen  # the face-down cards were hidden from it for a while at least
    assert len(sent) == 24 and match.deals[0].score is not None
