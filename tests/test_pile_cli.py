"""The command line for the pile games, Pişti and Xeri (issue 41): ``capture``,
``variants``, ``simulate`` and ``replay``; the terminal game is in test_terminal.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from basra.cli import cli
from basra.record import loads, replay


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def basra(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess (for exit codes and stderr)."""
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=120)


def options(*args: str) -> list[dict[str, object]]:
    result = run("capture", *args, "--json")
    assert result.exit_code == 0, result.output
    found: list[dict[str, object]] = json.loads(result.output)["options"]
    return found


# capture


def test_capture_json_takes_the_whole_pile_bottom_to_top() -> None:
    assert options("-v", "pisti", "--floor", "3D 9S 7C", "--card", "7H") == [
        {"captured": ["3D", "9S", "7C"], "basra": False, "bonus": 0}]
    assert options("-v", "pisti", "--floor", "3D 9S 7C", "--card", "JH") == [
        {"captured": ["3D", "9S", "7C"], "basra": False, "bonus": 0}]


def test_capture_json_a_card_that_does_not_match_the_top_is_laid_down() -> None:
    assert options("-v", "pisti", "--floor", "7C 9S", "--card", "7H") == []
    assert options("-v", "xeri", "--floor", "", "--card", "JH") == []


def test_capture_json_reports_a_pisti_and_its_points() -> None:
    assert options("-v", "pisti", "--floor", "7C", "--card", "7H") == [
        {"captured": ["7C"], "basra": True, "bonus": 10}]
    assert options("-v", "xeri", "--floor", "JC", "--card", "JH") == [
        {"captured": ["JC"], "basra": True, "bonus": 20}]
    assert options("-v", "pisti", "--floor", "5C", "--card", "JH") == [
        {"captured": ["5C"], "basra": False, "bonus": 0}]
    assert options("-v", "pisti", "--rule", "jack_pisti=lone", "--rule", "pisti_points=15",
                   "--floor", "5C", "--card", "JH") == [
        {"captured": ["5C"], "basra": True, "bonus": 15}]


def test_capture_text_names_the_pile_and_the_bonus() -> None:
    taken = run("capture", "-v", "pisti", "--floor", "3D 9S 7C", "--card", "7h").output
    assert taken == "7♥ captures the whole pile: 3♦ 9♠ 7♣\n"
    xeri = run("capture", "-v", "xeri", "--floor", "KS", "--card", "KH").output
    assert xeri.startswith("K♥ captures the whole pile: K♠  XERI 10\n")
    assert "as the last card of a deal it would score no xeri" in xeri
    laid = run("capture", "-v", "pisti", "--floor", "3D 9S", "--card", "7H").output
    assert laid == "7♥ captures nothing: it is laid on 9♠ and becomes the top card.\n"
    empty = run("capture", "-v", "pisti", "--floor", "", "--card", "JH").output
    assert "starts the pile" in empty


@pytest.mark.parametrize(("args", "message"), [
    (["-v", "xeri", "--floor", "7C 7S", "--card", "7S"], "both played and on the floor"),
    (["-v", "pisti", "--floor", "7C 7X", "--card", "7S"], "'7X'"),
    (["-v", "xeri", "-p", "3", "--floor", "7C", "--card", "7S"], "3"),
    (["-v", "pisti", "--rule", "sums=true", "--floor", "7C", "--card", "7S"], "sums"),
])
def test_capture_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = basra("capture", *args)
    assert result.returncode == 2, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]


# variants


def test_variants_shows_the_pile_options() -> None:
    pisti = run("variants", "pisti").output
    for option in ("pisti_points", "jack_pisti_points", "centre_jack", "bottom_card"):
        assert option in pisti
    assert "│ sums" not in pisti and "│ basra_points" not in pisti
    assert "Not used by the pile games: sums, seven_diamonds, basra," in pisti
    assert "pile_redeal" in run("variants", "xeri").output
    assert "pisti_points" not in run("variants", "lebanese").output  # the other families
    listing = json.loads(run("variants", "--json").output)
    assert listing["pisti"]["rules"]["family"] == listing["xeri"]["rules"]["family"] == "pisti"
    summary = run("variants").output
    assert "xeri 10, Jack on" in summary and "pişti 10, Jack on Jack 20" in summary


# simulate and replay


def test_simulate_writes_pile_records_that_replay(tmp_path: Path) -> None:
    result = run("simulate", "-v", "xeri", "-p", "4", "-n", "2", "--seed", "3",
                 "--bots", "greedy,random", "--records", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["variant"] == "xeri" and sum(summary["wins"]) == 2
    for name in ("match-3.json", "match-4.json"):
        record = loads((tmp_path / name).read_text(encoding="utf-8"))
        assert replay(record).is_over
        assert all("floor_down" in deal and "pistis" in deal["score"]
                   for deal in record["deals"])


def test_simulate_text_counts_pistis() -> None:
    result = run("simulate", "-v", "pisti", "-p", "3", "-n", "1", "--bots", "greedy")
    assert result.exit_code == 0, result.output
    assert "piştis/deal" in result.output and "1 matches of pisti" in result.output


def test_arena_plays_the_master_against_the_expert_in_pisti() -> None:
    result = basra("arena", "-v", "pisti", "--bots", "master,expert", "-n", "2",
                   "--master-samples", "20", "--jobs", "1", "--json")
    assert result.returncode == 0, result.stderr
    arena = json.loads(result.stdout)
    assert arena["matches_played"] == 2 and sum(arena["wins"]) <= 2


def test_simulate_plays_the_expert() -> None:
    result = run("simulate", "-v", "xeri", "-n", "1", "--seed", "3", "--bots", "expert,greedy")
    assert result.exit_code == 0, result.output
    assert "1 matches of xeri" in result.output


def test_replay_shows_the_pile_and_each_pisti(tmp_path: Path) -> None:
    run("simulate", "-v", "pisti", "-n", "1", "--seed", "2", "--bots", "greedy",
        "--records", str(tmp_path))
    path = tmp_path / "match-2.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    shown = run("replay", str(path)).output
    assert "a valid pisti record" in shown
    assert "(bottom to top, 3 face down), bottom" in shown
    assert "with a Jack on a Jack" in shown and "Winner" in shown
    made = [p for d in record["deals"] for p in d["plays"] if p["pisti"]]
    assert made and f"({made[0]['pisti']} points)" in shown
    data = json.loads(run("replay", str(path), "--json").output)
    assert data["valid"] and data["result"] == record["result"]


def test_replay_rejects_a_wrong_pisti_in_one_line(tmp_path: Path) -> None:
    run("simulate", "-v", "pisti", "-n", "1", "--seed", "2", "--bots", "greedy",
        "--records", str(tmp_path))
    path = tmp_path / "match-2.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    deal, number, entry = next((d, n, p) for d, each in enumerate(record["deals"], 1)
                               for n, p in enumerate(each["plays"], 1) if p["pisti"] == 10)
    entry["pisti"] = 30
    path.write_text(json.dumps(record), encoding="utf-8")
    result = basra("replay", str(path))
    assert result.returncode == 2
    assert result.stderr.strip() == (f"error: {path}: deal {deal}, play {number}: the record says "
                                     "a pişti of 30 points, the rules give one of 10 points")


# play: the terminal game


def play_pisti(tmp_path: Path, *args: str) -> tuple[str, dict[str, Any]]:
    """A whole match of Pişti from standard input (always the first card in hand)."""
    path = tmp_path / "game.json"
    result = subprocess.run(
        [sys.executable, "-m", "basra", "play", "--record", str(path), *args],
        input="1\n" * 600, capture_output=True, text=True, timeout=120,
        env={**os.environ, "COLUMNS": "100"})
    assert result.returncode == 0, result.stderr
    return result.stdout, loads(path.read_text(encoding="utf-8"))


def test_play_draws_the_pile_as_a_stack(tmp_path: Path) -> None:
    shown, record = play_pisti(tmp_path, "-v", "pisti", "--seed", "3")
    assert shown.startswith("Pişti · pisti · 2 players · first to 151 points\n")
    # The first pile a seat sees: three backs under the face-up top card, and its count.
    first = re.search(r"^Pile: top (\S+) · 4 cards: ## ## ## (\S+) \(bottom to top\)$",
                      shown, re.M)
    assert first and first[1] == first[2]
    assert re.search(r"^Pile: top (\S+) · 2 cards: \S+ \1 \(bottom to top\)$", shown, re.M)
    assert "Pile: (empty: the next card starts it)" in shown and "Floor:" not in shown
    # The bottom card beside the stock, announced at the deal.
    bottom = re.search(r"^The stock's bottom card, shown to all, is (\S+): it goes to ", shown,
                       re.M)
    assert bottom and f"(bottom card {bottom[1]})" in shown
    # Piştis announced with their points; captures by their count, never a choice.
    assert re.search(r"play \S+ and take the pile \(1 card\)  PIŞTI! \+10$", shown, re.M)
    assert re.search(r"takes the pile \(\d+ cards\)$", shown, re.M)
    assert "ways:" not in shown and "Which one" not in shown
    assert "piştis" in shown and "with a Jack on a Jack" in shown
    match = replay(record)
    assert match.is_over and "Saved the record" in shown


def test_play_never_shows_the_face_down_cards(tmp_path: Path) -> None:
    from basra.cards import card_symbol, parse_card

    shown, record = play_pisti(tmp_path, "-v", "pisti", "--seed", "3")
    deals = re.split(r"\n\nDeal \d+: ", shown)[1:]
    assert len(deals) == len(record["deals"])
    for deal, text in zip(record["deals"], deals, strict=True):
        before = re.split(r"takes? the pile", text, maxsplit=1)[0]  # until it is captured
        for card in deal["floor_down"]:
            symbol = card_symbol(parse_card(card))
            assert not re.search(rf"(?<![\dAJQK]){re.escape(symbol)}", before), (card, before)


def test_play_xeri_in_partnerships(tmp_path: Path) -> None:
    shown, record = play_pisti(tmp_path, "-v", "xeri", "-p", "4", "--seed", "5",
                               "--opponents", "random")
    assert shown.startswith("Xeri · xeri · 4 players in partnerships · first to 101")
    assert re.search(r"^Pile: top \S+ · 4 cards: \S+ \S+ \S+ \S+ \(bottom to top\)$",
                     shown, re.M)
    assert "##" not in shown and "bottom card" not in shown  # all face up, none shown
    assert "xeri points" in shown and "PIŞTI" not in shown
    assert replay(record).is_over


def test_play_pisti_against_the_expert(tmp_path: Path) -> None:
    shown, record = play_pisti(tmp_path, "-v", "pisti", "--seed", "4", "--opponents", "expert")
    assert "Against you: " in shown and "(expert)" in shown
    assert record["players"][1]["name"] == "expert" and replay(record).is_over


def test_play_gives_the_masters_hints_in_a_pile_game(tmp_path: Path) -> None:
    shown, record = play_pisti(tmp_path, "-v", "xeri", "--seed", "2", "--hints",
                               "--think-ms", "5")
    assert "Hints" in shown and "(laid)" in shown and "(trail)" not in shown
    assert replay(record).is_over


def test_analyze_judges_a_pile_record(tmp_path: Path) -> None:
    run("simulate", "-v", "pisti", "-n", "1", "--seed", "1", "--records", str(tmp_path))
    analyzed = basra("analyze", str(tmp_path / "match-1.json"), "--samples", "2",
                     "--seat", "1")
    assert analyzed.returncode == 0, analyzed.stderr
    assert "decisions analysed" in analyzed.stdout


# arena and tournament


@pytest.mark.parametrize(("variant", "players", "bots"), [
    ("pisti", 2, "expert,greedy"), ("xeri", 2, "greedy,expert"),
    ("pisti", 3, "expert,random,greedy"), ("xeri", 4, "expert,random"),
])
def test_arena_plays_the_pile_games(tmp_path: Path, variant: str, players: int,
                                    bots: str) -> None:
    result = run("arena", "-v", variant, "-p", str(players), "--bots", bots, "-n",
                 str(players), "--seed", "5", "-j", "1", "--records", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["variant"] == variant and summary["matches_played"] == players
    assert sum(summary["wins"]) == players and summary["deals"] >= players
    assert summary["bots"] == bots.split(",")
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == players
    for path in records:
        record = loads(path.read_text(encoding="utf-8"))
        assert record["rules"]["family"] == "pisti"
        assert replay(record).is_over


def test_arena_table_counts_pistis_and_xeris() -> None:
    result = run("arena", "-v", "xeri", "--bots", "expert,greedy", "-n", "2", "-j", "1")
    assert result.exit_code == 0, result.output
    assert "xeris/deal" in result.output and "2 duplicate matches of xeri" in result.output


def test_tournament_plays_the_pile_games() -> None:
    for variant in ("pisti", "xeri"):
        result = run("tournament", "-v", variant, "--bots", "random,greedy,expert", "-n", "2",
                     "--seed", "1", "-j", "1", "--json")
        assert result.exit_code == 0, result.output
        summary = json.loads(result.output.strip().splitlines()[-1])
        assert summary["variant"] == variant and summary["matches_per_pairing"] == 2
        rows = summary["bots"]
        assert [row["bot"] for row in rows] == ["random", "greedy", "expert"]
        assert sum(row["matches"] for row in rows) == 2 * 3 * 2


def test_tournament_plays_the_master_in_xeri() -> None:
    result = basra("tournament", "-v", "xeri", "--bots", "greedy,master", "-n", "2", "-j", "1",
                   "--think-ms", "2")
    assert result.returncode == 0, result.stderr
    assert "master" in result.stdout


# bench


def test_bench_plays_the_pile_games() -> None:
    """A pile game's deal plays every card but the first pile's four (without compiling:
    the compiled path's own speed is checked in test_fast.py)."""
    result = subprocess.run([sys.executable, "-m", "basra", "bench", "--variant", "pisti",
                             "--seconds", "0.3", "--json"], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "BASRA_NO_FAST": "1"})
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["variant"] == "pisti" and figures["deals_per_second"] > 0
    assert figures["plays_per_second"] == pytest.approx(figures["deals_per_second"] * 48,
                                                        rel=1e-3)
    assert figures["fast_deals_per_second"] is None
