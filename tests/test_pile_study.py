"""Analysis and puzzles of the pile games (Pişti, Xeri): move values from the seat's own
view (exact in a 2-player last batch once no face-down card is hidden from it), and
last-batch puzzles that the exact solver proves."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from basra.bots.search import SOLVE_CARDS, all_known, solve
from basra.bots.simple import GreedyBot
from basra.match import Match
from basra.observe import observe
from basra.position import parse_position
from basra.record import Player, match_record, replay
from basra.rules import make_rules
from basra.server.analysis_api import puzzle_view
from basra.state import hidden_down, parse_move
from basra.study.analysis import analyze_match, decision_points, evaluate, notes_for
from basra.study.puzzles import (
    exact_position,
    explanation_text,
    load_puzzles,
    make_puzzle,
    mine_record,
    verify_puzzle,
)


def greedy_record(seed: int, variant: str) -> dict[str, object]:
    match = Match(make_rules(variant, 2), seed, variant=variant)
    bots = [GreedyBot(seed * 10 + seat) for seat in range(2)]
    while not match.is_over:
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
    return match_record(match, [Player(f"p{s}") for s in range(2)])


def basra(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("variant", ["pisti", "xeri"])
def test_every_pile_decision_is_judged_from_the_seats_view(variant: str) -> None:
    """Each decision's played move is one of the seat's legal moves as it names them
    (without the face-down cards it was not shown); the last batch, once nothing is
    hidden, is valued exactly and agrees with the solver on the true deal."""
    match = replay(greedy_record(3, variant))
    exact = sampled = 0
    for number, (_, _, view, played) in enumerate(decision_points(match)):
        assert played in view.legal_moves
        if all_known(view):
            result = evaluate(view, samples=5, seed=1)
            assert result.exact and result.samples == 1
            exact += 1
        elif number % 25 == 0:
            result = evaluate(view, samples=5, seed=1)
            assert not result.exact and {v.move for v in result.moves} == set(
                view.legal_moves)
            sampled += 1
        if exact >= 3 and sampled >= 3:
            break
    assert exact >= 3 and sampled >= 3


def test_a_last_batch_with_a_hidden_kitty_is_not_called_exact() -> None:
    """Pişti's face-down cards, captured by the other side out of the seat's sight, keep
    the last batch from being exact for that seat (it does not know which unseen cards
    are in the other hand), and the position makes no puzzle for it."""
    match = replay(greedy_record(4, "pisti"))
    again = Match(match.rules, match.seed, variant=match.variant, auto_deal=False)
    seen_hidden = seen_known = 0
    for deal in match.deals:
        again.deal(deal.layout)
        for made in deal.plays:
            state = again.state
            if not state.batches:
                view = observe(again, state.to_play)
                hidden = hidden_down(state, state.to_play)
                assert all_known(view) == (not hidden)
                assert exact_position(state) == (not hidden)
                seen_hidden += bool(hidden)
                seen_known += not hidden
            again.play(made.card | made.captured << 6, checked=False)
    assert seen_hidden and seen_known


def test_the_analysis_of_a_pile_match_names_piştis() -> None:
    match = replay(greedy_record(2, "pisti"))
    decisions = analyze_match(match, samples=4, seed=1, seats=(0,), max_decisions=30)
    assert decisions and all(d.played in {v.move for v in d.evaluation.moves}
                             for d in decisions)
    assert any(d.evaluation.exact for d in decisions) or len(decisions) == 30
    for decision in decisions:
        for note in decision.notes:
            assert "basra" not in note
    view = next(v for _, _, v, _ in decision_points(match))
    assert notes_for(view, evaluate(view, samples=2), view.legal_moves[0]) is not None


def test_analyze_command_judges_a_pile_record(tmp_path: Path) -> None:
    path = tmp_path / "pisti.json"
    path.write_text(json.dumps(greedy_record(5, "pisti")), encoding="utf-8")
    result = basra("analyze", str(path), "--samples", "3", "--seat", "0", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    decisions = document["decisions"]
    assert decisions and any(d["exact"] for d in decisions)
    assert all(d["seat"] == 0 for d in decisions)


@pytest.mark.parametrize("variant", ["pisti", "xeri"])
def test_pile_puzzles_are_proven_by_the_solver(variant: str) -> None:
    found = []
    for seed in range(8):
        found += mine_record(greedy_record(seed, variant), f"{variant} seed {seed}")
        if len(found) >= 3:
            break
    assert found
    for puzzle in found:
        verify_puzzle(puzzle, 4.0)
        state = parse_position(puzzle.position)
        assert state.rules.family == "pisti" and not state.batches
        assert not hidden_down(state, state.to_play)
        assert sum(h.bit_count() for h in state.hands) <= SOLVE_CARDS
        values = solve(state, state.rules.side_of[state.to_play], puzzle.carry)
        assert max(values, key=values.__getitem__) == parse_move(state, puzzle.solution)
        assert "basra" not in puzzle.explanation and "last batch" in puzzle.tags
        view = puzzle_view(puzzle)
        assert view["family"] == "pisti" and view["preset"] == variant
        assert len(view["pile"]) == len(state.laid)
        again = make_puzzle(state, puzzle.carry)
        assert again is not None and again.solution == puzzle.solution
    assert explanation_text(found[0].why(), "pisti").startswith("Play ")


def test_puzzles_command_mines_pile_records(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    for seed in range(4):
        (records / f"x{seed}.json").write_text(json.dumps(greedy_record(seed, "xeri")),
                                               encoding="utf-8")
    out = tmp_path / "xeri-set.json"
    result = basra("puzzles", "--from", str(records), "--out", str(out))
    assert result.returncode == 0, result.stderr
    mined = load_puzzles(out.read_text(encoding="utf-8"))
    assert mined and all(p.position.startswith("xeri/2") for p in mined)
    checked = basra("puzzles", "--set", str(out), "--json")
    assert checked.returncode == 0, checked.stderr
