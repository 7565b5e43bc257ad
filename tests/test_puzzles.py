"""Puzzles: mined from records, unique best move by the exact solver, tags and ratings."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from basra.bots.search import solve
from basra.bots.simple import GreedyBot, immediate_value
from basra.match import Match
from basra.observe import observe, observe_state
from basra.position import parse_position
from basra.record import Player, match_record
from basra.rules import make_rules
from basra.state import apply, deal_score, legal_moves, move_text, new_deal, parse_move
from basra.study.puzzles import (
    MIN_GAP,
    TAGS,
    Puzzle,
    PuzzleError,
    difficulty,
    dump_puzzles,
    explanation_text,
    load_puzzles,
    make_puzzle,
    mine_record,
    packaged_puzzles,
    principal_line,
    verify_puzzle,
)


def basra(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=300)


def _greedy_record(seed: int, variant: str = "egyptian", players: int = 2) -> dict[str, object]:
    rules = make_rules(variant, players)
    match = Match(rules, seed, variant=variant)
    bots = [GreedyBot(seed * 10 + seat) for seat in range(players)]
    while not match.is_over:
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
    return match_record(match, [Player(f"p{s}") for s in range(players)])


def _check_unique_best(puzzle: Puzzle, gap: float) -> None:
    """The solver's own ranking of the puzzle's position, computed here."""
    state = parse_position(puzzle.position)
    assert not state.batches and state.rules.players == 2
    values = solve(state, state.rules.side_of[state.to_play], puzzle.carry)
    solution = parse_move(state, puzzle.solution)
    others = [v for m, v in values.items() if m != solution]
    assert values[solution] - max(others) >= gap - 1e-9, puzzle.id


def test_the_shipped_set_has_300_puzzles_each_with_a_unique_best_move() -> None:
    puzzles = packaged_puzzles()
    assert len(puzzles) >= 300
    assert len({p.id for p in puzzles}) == len(puzzles)
    assert len({(p.position, p.carry) for p in puzzles}) == len(puzzles)
    for puzzle in puzzles:
        _check_unique_best(puzzle, MIN_GAP)
        verify_puzzle(puzzle, MIN_GAP)
        assert set(puzzle.tags) <= set(TAGS) and "last batch" in puzzle.tags
        assert 600 <= puzzle.rating <= 2400
        assert puzzle.line[0] == puzzle.solution and puzzle.explanation
        assert "master" in puzzle.source
    tags = {tag for p in puzzles for tag in p.tags}
    assert {"basra", "majority", "trap"} <= tags


def test_mined_puzzles_are_verified_and_come_from_exact_positions() -> None:
    found = []
    for seed in range(6):
        found += mine_record(_greedy_record(seed), f"seed {seed}")
    assert found
    for puzzle in found:
        _check_unique_best(puzzle, MIN_GAP)
        assert puzzle.gap >= MIN_GAP
        assert puzzle.source.startswith("seed ")


def test_no_puzzles_where_hidden_cards_matter() -> None:
    assert mine_record(_greedy_record(1, "egyptian", 4), "four players") == []
    rng = random.Random(3)
    state = new_deal(make_rules("egyptian"), dealer=0, rng=rng)
    assert state.batches and make_puzzle(state, min_gap=0.5) is None


def test_a_wrong_solution_or_value_is_refused() -> None:
    puzzle = packaged_puzzles()[0]
    runner_up = sorted(puzzle.values, key=lambda m: -puzzle.values[m])[1]
    with pytest.raises(PuzzleError, match="not the unique best move"):
        verify_puzzle(dataclasses.replace(puzzle, solution=runner_up))
    values = dict(puzzle.values)
    values[runner_up] += 1.0
    with pytest.raises(PuzzleError, match=f"{runner_up} is worth"):
        verify_puzzle(dataclasses.replace(puzzle, values=values))
    with pytest.raises(PuzzleError, match="legal moves"):
        verify_puzzle(dataclasses.replace(puzzle, values={puzzle.solution: 1.0, "QS": 0.0}))


def test_tags_say_what_decides_the_puzzle() -> None:
    for puzzle in packaged_puzzles()[:120]:
        state = parse_position(puzzle.position)
        best = parse_move(state, puzzle.solution)
        greedy_fails = "trap" in puzzle.tags
        view = observe_state(state, state.to_play)
        greedy = max(view.legal_moves, key=lambda m: immediate_value(view, m))
        assert greedy_fails == (greedy != best)
        assert principal_line(state, puzzle.carry)[0] == best


def test_puzzle_json_round_trips() -> None:
    puzzles = packaged_puzzles()[:5]
    again = load_puzzles(dump_puzzles(puzzles))
    assert [p.to_dict() for p in again] == [p.to_dict() for p in puzzles]
    with pytest.raises(PuzzleError):
        load_puzzles('{"format": "something-else"}')


def test_difficulty_grows_with_choices_and_traps() -> None:
    easy = difficulty(2, False, False, 1, MIN_GAP + 10)
    assert easy < difficulty(4, False, False, 1, MIN_GAP + 10)
    assert easy < difficulty(2, True, False, 1, MIN_GAP + 10)
    assert difficulty(2, True, False, 1, MIN_GAP) < difficulty(2, True, True, 1, MIN_GAP)


def test_the_line_plays_the_deal_out() -> None:
    puzzle = packaged_puzzles()[-1]
    state = parse_position(puzzle.position)
    for text in puzzle.line:
        move = parse_move(state, text)
        assert move in legal_moves(state)
        state = apply(state, move)
    assert state.is_over
    assert move_text(parse_move(parse_position(puzzle.position), puzzle.line[0])) == \
        puzzle.solution


@pytest.mark.slow
def test_puzzles_command_mines_and_verifies(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    for seed in range(3):
        (records / f"m{seed}.json").write_text(json.dumps(_greedy_record(seed)),
                                               encoding="utf-8")
    (records / "junk.json").write_text("not json", encoding="utf-8")
    out = tmp_path / "set.json"
    result = basra("puzzles", "--from", str(records), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "Skipped 1 file" in result.stdout
    mined = load_puzzles(out.read_text(encoding="utf-8"))
    assert mined and all(p.source.startswith("m") for p in mined)
    checked = basra("puzzles", "--set", str(out), "--json")
    assert checked.returncode == 0, checked.stderr
    assert len(json.loads(checked.stdout)) == len(mined)
    bad = json.loads(out.read_text(encoding="utf-8"))
    first = bad["puzzles"][0]
    first["solution"] = sorted(first["values"], key=lambda m: first["values"][m])[0]
    out.write_text(json.dumps(bad), encoding="utf-8")
    refused = basra("puzzles", "--set", str(out))
    assert refused.returncode == 2 and "not the unique best move" in refused.stderr
    missing = basra("puzzles", "--from", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "nowhere" in missing.stderr


def test_every_shipped_puzzle_explains_itself_in_moves_that_replay_legally() -> None:
    """The explanation's data: best play by both to the end of the deal from the
    solution, each other move with its loss and the opponent's answer, all legal in the
    rules core; the stored English names cards with suit symbols, never as codes."""
    for puzzle in packaged_puzzles():
        why = puzzle.why()
        state = puzzle.state()
        side = state.rules.side_of[state.to_play]
        assert why["solution"] == puzzle.solution and why["value"] == pytest.approx(
            puzzle.values[puzzle.solution], abs=1e-3)
        assert why["gap"] == pytest.approx(puzzle.gap, abs=1e-3)
        line = state
        for step in why["line"]:
            move = parse_move(line, step["move"])  # raises on an illegal move
            mover = line.rules.side_of[line.to_play]
            assert step["by"] == ("you" if mover == side else "opponent")
            after = apply(line, move)
            assert step["basra"] == (after.basras[mover] > line.basras[mover])
            line = after
        assert line.is_over and [s["move"] for s in why["line"]] == list(puzzle.line)
        total = deal_score(line, puzzle.carry).total
        assert why["end"] == [total[side], total[1 - side]]
        assert why["end"][0] - why["end"][1] == pytest.approx(why["value"], abs=1e-3)
        others = {o["move"]: o for o in why["others"]}
        assert set(others) == set(puzzle.values) - {puzzle.solution}
        for text, other in others.items():
            after = apply(state, parse_move(state, text))
            assert other["loses"] == pytest.approx(
                puzzle.values[puzzle.solution] - puzzle.values[text], abs=1e-3)
            assert other["loses"] >= MIN_GAP - 1e-6
            if other["reply"] is None:
                assert after.is_over
            else:
                parse_move(after, other["reply"])
        kinds = {r["kind"] for r in why["reasons"]}
        assert kinds <= {"more_basras", "stops_basra", "wins_majority", "gives_majority",
                         "stops_majority", "trap"}
        assert ("trap" in kinds) == ("trap" in puzzle.tags)
        assert puzzle.explanation == explanation_text(why, state.rules.family)
        assert re.search(r"[♠♥♦♣]", puzzle.explanation)
        assert not re.search(r"\b(?:10|[2-9AJQK])[SHDC]\b", puzzle.explanation), puzzle.id


def test_a_stored_explanation_round_trips_and_a_bad_one_is_refused() -> None:
    puzzle = packaged_puzzles()[0]
    assert puzzle.explained is None and "explained" not in puzzle.to_dict()
    with_data = dataclasses.replace(puzzle, explained=puzzle.why())
    again = Puzzle.from_dict(json.loads(json.dumps(with_data.to_dict())))
    assert again.explained == puzzle.why() and again.why() is again.explained
    broken = {**with_data.to_dict(), "explained": "JH:6S+KD wins"}
    with pytest.raises(PuzzleError, match="explained"):
        Puzzle.from_dict(broken)
