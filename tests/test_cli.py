"""The ``basra`` command, run as a real subprocess: exit codes, JSON shapes, messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from basra.record import loads, replay


def basra(*args: str, stdin: str = "", env: dict[str, str] | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "basra", *args], input=stdin, capture_output=True, text=True,
        timeout=timeout, env=env,
    )


def test_help_lists_every_command() -> None:
    result = basra("--help")
    assert result.returncode == 0
    for command in ("variants", "capture", "simulate", "arena", "tournament", "replay", "play",
                    "bench"):
        assert command in result.stdout


def test_variants_lists_every_preset() -> None:
    result = basra("variants")
    assert result.returncode == 0
    for name in ("jawaker", "egyptian", "lebanese", "iraqi", "six-card", "three-player",
                 "classic"):
        assert name in result.stdout


def test_variants_json_holds_complete_rules() -> None:
    result = basra("variants", "--json")
    data = json.loads(result.stdout)
    assert data["iraqi"]["rules"]["card_points"]["10D"] == 6
    assert data["three-player"]["players"] == [3]
    assert data["jawaker"]["rules"]["target"] == 121


def test_variants_of_one_preset_shows_each_option() -> None:
    result = basra("variants", "lebanese")
    assert result.returncode == 0
    assert "seven_diamonds" in result.stdout and "plain" in result.stdout


def test_capture_json_matches_the_issue_example() -> None:
    result = basra("capture", "--variant", "egyptian", "--floor", "7S 4H 3C 5D", "--card", "7H",
                   "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "options": [{"captured": ["7S", "4H", "3C"], "basra": False}]
    }


@pytest.mark.slow
def test_capture_under_pasur_has_the_same_shape() -> None:
    result = basra("capture", "--variant", "pasur", "--floor", "7S 5D 2C KH", "--card", "4H",
                   "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"options": [
        {"captured": ["5D", "2C"], "basra": False}, {"captured": ["7S"], "basra": False}]}
    sur = json.loads(basra("capture", "-v", "pasur", "--floor", "KH", "--card", "KS",
                           "--json").stdout)
    assert sur == {"options": [{"captured": ["KH"], "basra": True}]}
    jack = json.loads(basra("capture", "-v", "pasur", "--floor", "3S QH", "--card", "JS",
                            "--json").stdout)
    assert jack == {"options": [{"captured": ["3S"], "basra": False}]}
    assert "2 ways" in basra("capture", "-v", "pasur", "--floor", "7S 5D 2C",
                             "--card", "4H").stdout


@pytest.mark.slow
def test_pasur_simulates_records_replays_and_benches(tmp_path: Path) -> None:
    result = basra("simulate", "-v", "pasur", "-p", "3", "-n", "3", "--bots",
                   "expert,greedy,random", "--records", str(tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["unfinished"] == 0
    files = sorted(tmp_path.iterdir())
    assert len(files) == 3
    shown = basra("replay", str(files[0]))
    assert shown.returncode == 0, shown.stderr
    assert "clubs" in shown.stdout and "sur" in shown.stdout
    assert loads(files[0].read_text(encoding="utf-8"))["variant"] == "pasur"
    bench = basra("bench", "-v", "pasur", "--seconds", "1", "--json")
    assert bench.returncode == 0, bench.stderr
    assert json.loads(bench.stdout)["deals_per_second"] > 0
    variants = basra("variants")
    assert "pasur" in variants.stdout and "sums to 11" in variants.stdout


def test_capture_offers_each_equally_large_set() -> None:
    result = basra("capture", "--floor", "5S 2H 2D 3C 4S", "--card", "7H", "--json")
    options = json.loads(result.stdout)["options"]
    assert sorted(sorted(o["captured"]) for o in options) == [
        ["2D", "3C", "4S", "5S"], ["2H", "3C", "4S", "5S"],
    ]


def test_capture_clearing_the_floor_is_a_basra() -> None:
    result = basra("capture", "--floor", "9S 2H 7C 4C 5D", "--card", "9H", "--json")
    assert json.loads(result.stdout) == {
        "options": [{"captured": ["9S", "2H", "7C", "4C", "5D"], "basra": True}]
    }


def test_capture_trail_is_an_empty_list() -> None:
    result = basra("capture", "--floor", "KS 9H", "--card", "QH", "--json")
    assert json.loads(result.stdout) == {"options": []}
    assert "trails" in basra("capture", "--floor", "KS 9H", "--card", "QH").stdout


def test_capture_follows_the_variant_seven_of_diamonds_rule() -> None:
    floor = ["--floor", "8S 9H KC"]
    sweep = json.loads(basra("capture", "-v", "jawaker", *floor, "--card", "7D", "--json").stdout)
    plain = json.loads(basra("capture", "-v", "lebanese", *floor, "--card", "7D", "--json").stdout)
    assert sweep == {"options": [{"captured": ["8S", "9H", "KC"], "basra": False}]}
    assert plain == {"options": []}


def test_capture_with_house_rule_override() -> None:
    result = basra("capture", "--rule", "sums=false", "--floor", "4H 3C", "--card", "7H", "--json")
    assert json.loads(result.stdout) == {"options": []}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["capture", "--floor", "7S 4X", "--card", "7H"], "'4X'"),
        (["capture", "--floor", "7S", "--card", "ZZ"], "'ZZ'"),
        (["capture", "--floor", "7S", "--card", "7S"], "both played and on the floor"),
        (["capture", "--variant", "nope", "--floor", "7S", "--card", "7H"], "egyptian"),
        (["capture", "--rule", "colour=red", "--floor", "7S", "--card", "7H"], "'colour'"),
        (["capture", "--rule", "basra_points=many", "--floor", "7S", "--card", "7H"], "'many'"),
        (["capture", "--rule", "oops", "--floor", "7S", "--card", "7H"], "NAME=VALUE"),
        (["simulate", "-v", "six-card", "-p", "3"], "2 or 4 players, not 3"),
        (["simulate", "--rule", "hand_size=5"], "does not divide"),
        (["simulate", "--bots", "random,smart"], "'smart'"),
        (["simulate", "-p", "3", "--bots", "random,greedy"], "one per seat (3)"),
        (["play", "--seat", "5"], "--seat"),
    ],
)
def test_user_errors_print_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = basra(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_command_is_a_usage_error() -> None:
    result = basra("fly")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_rules_file(tmp_path: Path) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text('variant = "iraqi"\nbasra_points = 7\nbury = ["J"]\n', encoding="utf-8")
    result = basra("simulate", "--rules", str(rules), "-n", "2", "--json",
                   "--records", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    record = loads((tmp_path / "out" / "match-0.json").read_text(encoding="utf-8"))
    assert record["variant"] == "iraqi"
    assert record["rules"]["basra_points"] == 7
    assert record["rules"]["bury"] == ["J"]
    assert record["rules"]["card_points"]["10D"] == 6


def test_bad_rules_file_is_a_user_error(tmp_path: Path) -> None:
    rules = tmp_path / "bad.toml"
    rules.write_text("basra_points = \n", encoding="utf-8")
    result = basra("simulate", "--rules", str(rules))
    assert result.returncode == 2
    assert "not valid TOML" in result.stderr
    missing = basra("simulate", "--rules", str(tmp_path / "none.toml"))
    assert missing.returncode == 2
    assert "none.toml" in missing.stderr


def test_simulate_writes_valid_records_and_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "records"
    result = basra("simulate", "--variant", "egyptian", "--players", "4", "--matches", "3",
                   "--seed", "11", "--bots", "greedy,random", "--records", str(out), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["matches"] == 3
    assert sum(summary["wins"]) == 3
    assert len(summary["wins"]) == 2  # partnerships: two sides
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["match-11.json", "match-12.json", "match-13.json"]
    for file in files:
        record = loads(file.read_text(encoding="utf-8"))
        match = replay(record)
        assert match.is_over
        assert [p["name"] for p in record["players"]] == ["greedy", "random"] * 2


@pytest.mark.slow
def test_simulate_is_reproducible_and_never_overwrites(tmp_path: Path) -> None:
    first = basra("simulate", "-n", "2", "--seed", "5", "--records", str(tmp_path / "a"))
    second = basra("simulate", "-n", "2", "--seed", "5", "--records", str(tmp_path / "b"))
    assert first.returncode == second.returncode == 0
    for name in ("match-5.json", "match-6.json"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    again = basra("simulate", "-n", "2", "--seed", "5", "--records", str(tmp_path / "a"))
    assert again.returncode == 2
    assert "never overwritten" in again.stderr


@pytest.mark.slow
def test_replay_json_gives_each_deal_score_and_the_result(tmp_path: Path) -> None:
    basra("simulate", "-v", "three-player", "-n", "1", "--seed", "3", "--records", str(tmp_path))
    result = basra("replay", str(tmp_path / "match-3.json"), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    record = json.loads((tmp_path / "match-3.json").read_text())
    assert [d["score"] for d in data["deals"]] == [d["score"] for d in record["deals"]]
    assert data["result"] == record["result"]
    totals = [sum(d["score"]["total"][s] for d in data["deals"]) for s in range(3)]
    assert totals == data["result"]["totals"]
    shown = basra("replay", str(tmp_path / "match-3.json"))
    assert "Deal 1" in shown.stdout and "Winner" in shown.stdout


def test_replay_rejects_a_broken_record(tmp_path: Path) -> None:
    basra("simulate", "-n", "1", "--seed", "8", "--records", str(tmp_path))
    path = tmp_path / "match-8.json"
    record = json.loads(path.read_text())
    play = record["deals"][0]["plays"][2]
    play["basra"] = not play["basra"]
    path.write_text(json.dumps(record))
    result = basra("replay", str(path))
    assert result.returncode == 2
    assert "deal 1, play 3" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"format": "chess-pgn"}'])
def test_replay_rejects_malformed_files(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = basra("replay", str(path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_replay_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = basra("replay", str(tmp_path / "nothing.json"))
    assert result.returncode == 2


@pytest.mark.slow
def test_bench_json_shape() -> None:
    result = basra("bench", "--seconds", "0.2", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["deals_per_second"] > 0
    # Every deal plays all 48 cards that are not on the initial floor.
    assert figures["plays_per_second"] == pytest.approx(figures["deals_per_second"] * 48, rel=1e-3)
    assert figures["step_deals_per_second"] > 0
    # numba is a dependency: the compiled path is measured wherever the package installs.
    assert figures["fast_deals_per_second"] > 0
    assert figures["fast_plays_per_second"] == pytest.approx(
        figures["fast_deals_per_second"] * 48, rel=1e-3)
    assert figures["fast_first_call_seconds"] > 0


def test_bench_without_the_compiled_path_says_so() -> None:
    no_fast = {**os.environ, "BASRA_NO_FAST": "1"}
    result = basra("bench", "--seconds", "0.3", env=no_fast)
    assert result.returncode == 0, result.stderr
    assert "compiled path:     not available: turned off by BASRA_NO_FAST" in result.stdout
    json_result = basra("bench", "--seconds", "0.3", "--json", env=no_fast)
    assert json.loads(json_result.stdout)["fast_deals_per_second"] is None


def test_without_numba_the_advice_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from basra import fast

    find_spec = importlib.util.find_spec
    monkeypatch.delenv("BASRA_NO_FAST", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name == "numba" else find_spec(name, *args))
    assert not fast.available()
    assert fast.unavailable_reason() == "numba is not installed (pip install 'numba>=0.60')"


def test_play_a_full_match_from_standard_input(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    # Always the first card in hand, and the first capture choice when asked.
    result = basra("play", "--seed", "4", "--record", str(path), stdin="1\n" * 3000)
    assert result.returncode == 0, result.stderr
    assert "Floor:" in result.stdout and "Your hand:" in result.stdout
    assert "Deal 1 score" in result.stdout
    assert "Saved the record" in result.stdout
    record = loads(path.read_text(encoding="utf-8"))
    match = replay(record)
    assert match.is_over
    assert record["players"][0] == {"name": "you", "kind": "human"}
    assert record["players"][1] == {"name": "greedy", "kind": "bot"}


def _scripted_game(seed: int) -> tuple[str, list[int], bool]:
    """Answers for `basra play --seed SEED` (jawaker) that always play the first card in
    hand and take the second option whenever a capture choice is asked, with the moves
    they make, found by playing the same match with the engine and the same bots."""
    from basra.bots import make_bot
    from basra.match import Match
    from basra.observe import observe
    from basra.rules import make_rules

    match = Match(make_rules("jawaker"), seed, variant="jawaker")
    bot = make_bot("greedy", seed * 10 + 1)
    answers: list[str] = []
    mine: list[int] = []
    asked = False
    while not match.is_over:
        seat = match.state.to_play
        if seat == 1:
            match.play(bot.choose(observe(match, 1)))
            continue
        moves = match.legal_moves()
        card = min(m & 63 for m in moves)
        choices = [m for m in moves if m & 63 == card]
        answers.append("1")
        if len(choices) > 1:
            answers.append("2")
            asked = True
        move = choices[1] if len(choices) > 1 else choices[0]
        mine.append(move)
        match.play(move)
    return "".join(a + "\n" for a in answers), mine, asked


def test_play_asks_which_capture_when_there_is_a_choice(tmp_path: Path) -> None:
    seed = next(s for s in range(500) if _scripted_game(s)[2])
    stdin, expected, _ = _scripted_game(seed)
    path = tmp_path / "game.json"
    result = basra("play", "--seed", str(seed), "--variant", "jawaker", "--record", str(path),
                   stdin=stdin)
    assert result.returncode == 0, result.stderr
    assert "can be played in 2 ways" in result.stdout or "can be played in" in result.stdout
    assert "Which one" in result.stdout
    record = loads(path.read_text(encoding="utf-8"))
    assert replay(record).is_over
    from basra.cards import parse_card

    played = [
        parse_card(p["card"]) | sum(1 << parse_card(c) for c in p["captured"]) << 6
        for d in record["deals"] for p in d["plays"] if p["seat"] == 0
    ]
    assert played == expected


def test_play_end_of_input_saves_the_unfinished_record(tmp_path: Path) -> None:
    path = tmp_path / "stopped.json"
    result = basra("play", "--seed", "5", "--record", str(path), stdin="1\n2\nxx\n9S\n")
    assert result.returncode == 0
    assert "is not a card in your hand" in result.stdout
    assert "unfinished record" in result.stdout
    record = loads(path.read_text(encoding="utf-8"))
    assert "result" not in record
    match = replay(record)
    assert not match.is_over
    assert sum(1 for p in record["deals"][0]["plays"] if p["seat"] == 0) == 2


def test_play_quit_command_saves_and_leaves(tmp_path: Path) -> None:
    path = tmp_path / "quit.json"
    result = basra("play", "--seed", "6", "--players", "3", "--opponents", "random",
                   "--record", str(path), stdin="quit\n")
    assert result.returncode == 0  # quitting on purpose is a normal exit; Ctrl-C is 130
    assert result.stderr == ""
    assert "unfinished record" in result.stdout
    record = loads(path.read_text(encoding="utf-8"))
    assert len(record["players"]) == 3
    replay(record)


def test_simulate_stops_undecided_matches_at_max_deals(tmp_path: Path) -> None:
    # Under tie_rule=raise with a tiny target rising one step at a time, several sides
    # pass it almost every deal.
    result = basra("simulate", "-v", "three-player", "--rule", "target=1", "--rule",
                   "target_step=1", "--rule", "target_raise=step", "-n", "2", "--max-deals",
                   "3", "--bots", "greedy",
                   "--records", str(tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["unfinished"] == 2  # deterministic: seeds 0 and 1
    for file in tmp_path.iterdir():
        record = loads(file.read_text(encoding="utf-8"))
        match = replay(record)
        if "result" not in record:
            assert not match.is_over
            assert len([d for d in record["deals"] if "score" in d]) == 3


def test_play_ctrl_c_saves_the_unfinished_record(tmp_path: Path) -> None:
    import os
    import select
    import signal

    path = tmp_path / "interrupted.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "basra", "play", "--seed", "9", "--record", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    seen = b""
    deadline = time.monotonic() + 60
    while b"Your play" not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            seen += os.read(process.stdout.fileno(), 4096)
    assert b"Your play" in seen, "the game asked for a move"
    process.send_signal(signal.SIGINT)
    output, errors = process.communicate(timeout=60)
    assert process.returncode == 130
    assert b"Traceback" not in errors
    assert b"unfinished record" in seen + output
    record = loads(path.read_text(encoding="utf-8"))
    assert "result" not in record
    assert not replay(record).is_over


@pytest.mark.slow
def test_play_with_hints_against_the_expert(tmp_path: Path) -> None:
    path = tmp_path / "hinted.json"
    result = basra("play", "--seed", "12", "--opponents", "expert", "--hints", "--think-ms",
                   "30", "--record", str(path), stdin="1\n" * 3000)
    assert result.returncode == 0, result.stderr
    assert "Hints" in result.stdout and "margin" in result.stdout
    record = loads(path.read_text(encoding="utf-8"))
    assert record["players"][1] == {"name": "expert", "kind": "bot"}
    assert replay(record).is_over


@pytest.mark.slow
def test_simulate_and_arena_accept_every_level(tmp_path: Path) -> None:
    result = basra("simulate", "-n", "1", "--bots", "expert,master", "--think-ms", "20",
                   "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["bots"] == ["expert", "master"]
    arena = basra("arena", "--bots", "master,expert", "-n", "2", "--think-ms", "20",
                  "--jobs", "2", "--json")
    assert arena.returncode == 0, arena.stderr
    data = json.loads(arena.stdout)
    assert data["bots"] == ["master", "expert"] and data["matches"] == 2
    assert all(0 <= lo <= rate <= hi <= 1 for rate, (lo, hi) in
               zip(data["win_rate"], data["win_rate_ci95"], strict=True))


def test_play_against_an_external_bot(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parent.parent / "examples" / "bot_example.py"
    spec = f"cmd:{sys.executable} {example}"
    path = tmp_path / "external.json"
    result = basra("play", "--seed", "14", "--opponents", spec, "--record", str(path),
                   stdin="1\n" * 3000)
    assert result.returncode == 0, result.stderr
    assert "fallback" not in result.stderr  # the example bot never needed one
    record = loads(path.read_text(encoding="utf-8"))
    assert record["players"][1] == {"name": spec, "kind": "bot"}
    assert replay(record).is_over


def test_out_of_range_rule_is_one_line_naming_the_option_and_exit_2() -> None:
    result = basra("simulate", "--rule", "target=1000000000")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "option target must be 1 to 10000, not 1000000000" in lines[0]


def test_rules_file_with_a_huge_value_is_one_short_line_and_exit_2(tmp_path: Path) -> None:
    rules = tmp_path / "huge.toml"
    rules.write_text(f'card_points = "J:{"9" * 4000}"\nbasra_points = 5\n', encoding="utf-8")
    result = basra("simulate", "--rules", str(rules))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 200
    assert "option card_points[J] must be 0 to 100, not 9999…(4000 digits)" in lines[0]


def test_rules_file_with_an_overlong_integer_is_one_line_and_exit_2(tmp_path: Path) -> None:
    rules = tmp_path / "long.toml"
    rules.write_text(f"target = {'9' * 5000}\n", encoding="utf-8")
    result = basra("simulate", "--rules", str(rules))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 200
    assert "long.toml: not valid TOML: an integer of more than 4300 digits" in lines[0]


def test_rules_file_that_is_not_text_is_one_line_and_exit_2(tmp_path: Path) -> None:
    rules = tmp_path / "binary.toml"
    rules.write_bytes(b"target = \xff\xfe\n")
    result = basra("simulate", "--rules", str(rules))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [f"error: rules file {rules}: not a text file"]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["simulate", "-p", "5"], "error: --players must be a whole number from 2 to 4, not 5"),
        (["replay", "/nonexistent.json"], "error: record file /nonexistent.json: no such file"),
        (["bench", "--seconds", "0"], "error: --seconds must be a number of at least 0.1, not 0"),
        (["simulate", "--rules", "/nonexistent.toml"],
         "error: rules file /nonexistent.toml: no such file"),
        (["simulate", "--seed", "abc"], "error: --seed must be a whole number, not 'abc'"),
        (["play", "--think-ms", "0"],
         "error: --think-ms must be a whole number of at least 1, not 0"),
        (["capture", "--card", "7H"], "error: missing option '--floor'"),
        (["fly"], "error: no such command 'fly'; the commands are: admin, analyze, arena, "
                  "backup, bench, bot, capture, export, play, puzzles, replay, restore, "
                  "serve, simulate, tournament, train, variants"),
        (["bot", "connect", "--server", "localhost:1", "--token", "t", "greedy"],
         "error: --server 'localhost:1' is not a URL: expected http://HOST[:PORT] or "
         "https://HOST"),
        (["bot", "connect", "--server", "http://127.0.0.1:9", "--token", "t", "nobot"],
         "error: unknown bot 'nobot'; the bots are: random, greedy, neural, expert, master, or "
         "cmd:COMMAND"),
    ],
)
def test_usage_mistakes_are_one_line_without_the_usage_block(args: list[str],
                                                             line: str) -> None:
    result = basra(*args)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [line]
    assert result.stdout == ""


@pytest.mark.slow
def test_bad_values_in_a_rules_file_name_the_file(tmp_path: Path) -> None:
    cases = {
        'basra_points = "x"\n': "option basra_points must be a whole number, not 'x'",
        'variant = "nope"\n': "unknown variant 'nope'",
        'variant = "six-card"\nplayers = 3\n': "variant 'six-card' is played by 2 or 4",
        "colour = 1\n": "unknown rule option 'colour'",
        "players = true\n": "players must be a whole number from 2 to 4, not True",
    }
    for number, (content, message) in enumerate(cases.items()):
        rules = tmp_path / f"house-{number}.toml"
        rules.write_text(content, encoding="utf-8")
        result = basra("simulate", "--rules", str(rules))
        assert result.returncode == 2
        [line] = result.stderr.splitlines()
        assert line.startswith(f"error: rules file {rules}: {message}"), line
    directory = basra("simulate", "--rules", str(tmp_path))
    assert directory.stderr.splitlines() == [
        f"error: rules file {tmp_path}: a directory, not a file"]


def test_the_command_line_is_not_blamed_on_the_rules_file(tmp_path: Path) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text("basra_points = 5\n", encoding="utf-8")
    result = basra("simulate", "--rules", str(rules), "--rule", "target=0")
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: option target must be") and "house.toml" not in line


@pytest.mark.slow
def test_variants_say_which_player_counts_are_partnerships() -> None:
    shown = basra("variants", "iraqi").stdout
    assert "players          │ 2, 3 or 4 (4 in partnerships)" in shown
    assert "partnership      │ with 4 players" in shown
    assert "│ no " not in shown.split("partnership", 1)[1].splitlines()[0]
    assert "2 or 4 (4 in partnerships)" in basra("variants", "six-card").stdout
    assert "(4 in partnerships)" not in basra("variants", "classic").stdout
    data = json.loads(basra("variants", "--json").stdout)
    assert data["iraqi"]["partnership_players"] == [4]
    assert data["classic"]["partnership_players"] == []


def test_replay_names_the_players(tmp_path: Path) -> None:
    basra("simulate", "-p", "4", "-n", "1", "--seed", "2", "--bots", "greedy,random",
          "--records", str(tmp_path))
    path = tmp_path / "match-2.json"
    shown = basra("replay", str(path)).stdout
    lines = shown.splitlines()
    assert lines[1:5] == ["  seat 0: Karim (greedy)", "  seat 1: Layla (random)",
                          "  seat 2: Nadia (greedy)", "  seat 3: Sami (random)"]
    assert "dealer: " in shown and "Karim & Nadia" in shown and "Layla & Sami" in shown
    assert "seat 0 greedy" not in shown and "seats 0 & 2" not in shown
    # The record itself keeps the levels as names.
    record = loads(path.read_text(encoding="utf-8"))
    assert [p["name"] for p in record["players"]] == ["greedy", "random"] * 2


def test_play_names_the_opponents_and_shows_suits(tmp_path: Path) -> None:
    path = tmp_path / "named.json"
    result = basra("play", "-v", "egyptian", "-p", "4", "--seat", "1", "--name", "[red]Mona",
                   "--opponents", "expert,random,greedy", "--seed", "7", "--record",
                   str(path), stdin="1\n1\nquit\n")
    assert result.returncode == 0, result.stderr
    shown = result.stdout
    assert "You are seat 1 ([red]Mona), partnered with Sami (greedy)." in shown
    assert "Against you: Karim (expert) and Nadia (random)." in shown
    assert "Scores: Karim & Nadia 0 · [red]Mona & Sami 0 · first to 101" in shown
    assert "♠" in shown or "♣" in shown
    record = loads(path.read_text(encoding="utf-8"))
    assert record["players"][1] == {"name": "[red]Mona", "kind": "human"}
    assert [p["name"] for p in record["players"]] == ["expert", "[red]Mona", "random", "greedy"]


def test_capture_shows_suit_symbols() -> None:
    result = basra("capture", "--floor", "7S 4H 3C 5D", "--card", "7h")
    assert result.stdout == "7♥ captures 7♠ 4♥ 3♣\n"


@pytest.mark.slow
def test_bench_splits_its_seconds_between_the_three_measurements() -> None:
    started = time.monotonic()
    result = basra("bench", "--seconds", "3", "--json")
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert ("Measuring for 3 s: 1 s of random playouts, 1 s step by step, then 1 s of "
            "compiled playouts.") in " ".join(result.stderr.split())
    # The compiled path's first call (compiling on a fresh machine) is not measured time.
    first_call = json.loads(result.stdout)["fast_first_call_seconds"] or 0
    assert elapsed - first_call < 7, "about 3 s in all, not 3 s per measurement (9 s)"
    help_text = basra("bench", "--help").stdout
    assert "a third for each of the three measurements" in " ".join(help_text.split())


def test_command_line_start_up_loads_no_web_framework() -> None:
    code = ("import sys, basra.cli; print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'fastapi', 'starlette', 'sqlalchemy', 'uvicorn', 'alembic', 'pydantic'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "[]", result.stderr


@pytest.mark.slow
def test_ctrl_c_in_other_commands_exits_130_quietly(tmp_path: Path) -> None:
    import signal

    process = subprocess.Popen(
        [sys.executable, "-m", "basra", "simulate", "-n", "100000", "--bots", "random",
         "--records", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "match-1.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # until it is playing
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "Traceback" not in errors and "Aborted" not in errors
    assert errors.strip().splitlines()[-1] == "Interrupted."
