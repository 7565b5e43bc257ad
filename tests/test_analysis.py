"""Move-by-move analysis: labels, the known blunder, exact last batches, hidden cards."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from basra.bots.search import solve
from basra.bots.simple import GreedyBot
from basra.match import Match
from basra.observe import observe
from basra.record import Player, match_record, replay
from basra.rules import make_rules
from basra.state import apply, move_captured, move_text
from basra.study.analysis import (
    FORMAT,
    LABELS,
    THRESHOLDS,
    accuracy,
    analysis_document,
    analyze_match,
    analyze_record,
    decision_points,
    evaluate,
    label_for,
    note_text,
    record_digest,
)


def basra(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=300)


def _players(n: int) -> list[Player]:
    return [Player(f"p{seat}", "bot") for seat in range(n)]


def _greedy_match(variant: str, seed: int, plays: int | None = None) -> Match:
    """A match of greedy players, stopped after ``plays`` plays (or played out)."""
    rules = make_rules(variant)
    match = Match(rules, seed, variant=variant)
    bots = [GreedyBot(seed * 10 + seat) for seat in range(rules.players)]
    done = 0
    while not match.is_over and (plays is None or done < plays):
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
        done += 1
    return match


def _blunder_record() -> tuple[dict[str, Any], int, int, int, int]:
    """A record whose last play throws away a basra: greedy play until a seat could make
    a basra, then that seat trails a card instead. (record, deal, play, seat, basra move)"""
    for seed in range(200):
        rules = make_rules("egyptian")
        match = Match(rules, seed, variant="egyptian")
        bots = [GreedyBot(seed * 10 + seat) for seat in range(rules.players)]
        while match.state.batches:  # a basra that counts: not in the last batch
            state = match.state
            seat = state.to_play
            side = rules.side_of[seat]
            moves = match.legal_moves()
            basras = [m for m in moves if apply(state, m).basras[side] > state.basras[side]]
            trails = [m for m in moves if not move_captured(m)]
            if basras and trails:
                match.play(trails[0])
                deal, play = len(match.deals), len(match.deals[-1].plays)
                return match_record(match, _players(2)), deal, play, seat, basras[0]
            match.play(bots[seat].choose(observe(match, seat)))
    raise AssertionError("no seed gave a basra to throw away")


def test_labels_follow_the_documented_thresholds() -> None:
    assert [label_for(t - 0.01) for t in THRESHOLDS] == list(LABELS[:-1])
    assert [label_for(t) for t in THRESHOLDS] == list(LABELS[1:])
    assert label_for(0.0) == "best" and label_for(100.0) == "blunder"


def test_accuracy_is_100_for_best_play_and_falls_with_loss() -> None:
    assert accuracy([0.0, 0.0, 0.0]) == 100.0
    assert accuracy([]) is None
    one, five, ten = (accuracy([x]) or 0 for x in (1.0, 5.0, 10.0))
    assert 100 > one > five > ten > 0


def test_the_known_blunder_is_flagged() -> None:
    record, deal, play, seat, _ = _blunder_record()
    decisions = analyze_record(record, seats=[seat], samples=40, seed=1)
    blunder = next(d for d in decisions if (d.deal, d.play) == (deal, play))
    assert blunder.label == "blunder", (blunder.loss, blunder.loss_error)
    assert blunder.loss >= THRESHOLDS[-1]
    assert move_captured(blunder.best) and blunder.evaluation.moves[0].value > blunder.value
    assert any(note.startswith("misses a basra") for note in blunder.notes), blunder.notes
    # the seat's other decisions (greedy moves) are not all blunders
    assert any(d.label != "blunder" for d in decisions if d is not blunder)


def test_last_batch_values_are_the_exact_solvers() -> None:
    match = _greedy_match("egyptian", 11)
    assert match.is_over
    checked = 0
    replayed = Match(match.rules, match.seed, variant=match.variant,
                     first_dealer=match.first_dealer, auto_deal=False)
    states = {}
    for number, deal in enumerate(match.deals, 1):
        replayed.deal(deal.layout)
        for index, made in enumerate(deal.plays, 1):
            states[number, index] = (replayed.state, replayed.carry)
            replayed.play(made.card | made.captured << 6)
    for d in analyze_match(match, samples=3, seed=2):
        state, carry = states[d.deal, d.play]
        if state.batches:
            assert not d.evaluation.exact
            continue
        exact = solve(state, match.rules.side_of[d.seat], carry)
        assert d.evaluation.exact and d.evaluation.samples == 1
        assert {v.move: v.value for v in d.evaluation.moves} == pytest.approx(exact)
        best = max(exact.values())
        assert d.loss == pytest.approx(best - exact[d.played])
        checked += 1
    assert checked >= 6 * len(match.deals) - 6


def _hide_differently(record: dict[str, Any], seed: int) -> dict[str, Any]:
    """The same record with seat 1's unplayed cards and the stock shuffled together:
    seat 0 saw the same things, the hidden cards are different."""
    other = json.loads(json.dumps(record))
    deal = other["deals"][0]
    played = {p["card"] for p in deal["plays"] if p["seat"] == 1}
    buried = set(deal["buried"])
    free = [c for c in deal["hands"][1] if c not in played]
    stock_free = [c for c in deal["stock"] if c not in buried]
    pool = free + stock_free
    random.Random(seed).shuffle(pool)
    new_hand, new_stock = iter(pool[:len(free)]), iter(pool[len(free):])
    deal["hands"][1] = [c if c in played else next(new_hand) for c in deal["hands"][1]]
    deal["stock"] = [c if c in buried else next(new_stock) for c in deal["stock"]]
    return other


def test_analysis_never_reads_hidden_cards() -> None:
    match = _greedy_match("egyptian", 5, plays=6)  # within the first batch
    record = match_record(match, _players(2))
    other = _hide_differently(record, 3)
    assert other["deals"][0]["hands"][1] != record["deals"][0]["hands"][1]
    assert record_digest(other) != record_digest(record)
    replay(other)  # still a valid record
    first = analyze_record(record, seats=[0], samples=8, seed=4)
    second = analyze_record(other, seats=[0], samples=8, seed=4)
    assert len(first) >= 2
    assert [(d.deal, d.play, d.played, d.evaluation, d.notes) for d in first] == [
        (d.deal, d.play, d.played, d.evaluation, d.notes) for d in second]
    # while the other seat, whose own cards changed, is analysed differently
    mine = analyze_record(record, seats=[1], samples=8, seed=4)
    theirs = analyze_record(other, seats=[1], samples=8, seed=4)
    assert [d.evaluation for d in mine] != [d.evaluation for d in theirs]


def test_decisions_are_observations_of_the_deciding_seat() -> None:
    match = _greedy_match("egyptian", 8, plays=30)
    for _, _, view, move in decision_points(match):
        assert view.to_play == view.seat and move in view.legal_moves
        assert len(view.legal_moves) > 1


def test_evaluation_samples_exactly_when_asked() -> None:
    match = _greedy_match("egyptian", 9, plays=3)
    view = observe(match, match.state.to_play)
    one = evaluate(view, samples=12, seed=7)
    assert one.samples == 12 and not one.exact
    assert one == evaluate(view, samples=12, seed=7)
    assert [v.value for v in one.moves] == sorted((v.value for v in one.moves), reverse=True)
    assert all(0.0 <= v.basra_risk <= 1.0 for v in one.moves)


def test_the_document_links_the_record_and_sums_up_each_player() -> None:
    match = _greedy_match("egyptian", 12, plays=20)
    record = match_record(match, _players(2))
    decisions = analyze_match(replay(record), samples=4, seed=0, jobs=2)
    document = json.loads(json.dumps(analysis_document(record, decisions, samples=4)))
    assert document["format"] == FORMAT
    assert document["record"]["sha256"] == record_digest(record)
    assert [p["seat"] for p in document["players"]] == [0, 1]
    assert sum(p["decisions"] for p in document["players"]) == len(decisions)
    for entry in document["decisions"]:
        assert entry["label"] in LABELS
        assert entry["moves"][0]["move"] == entry["best"]
        assert entry["played"] in {m["move"] for m in entry["moves"]}
        assert entry["eval"] == pytest.approx(entry["value"] * (1 if entry["seat"] == 0 else -1))
    single = analyze_match(replay(record), samples=4, seed=0, jobs=1)
    assert [d.evaluation for d in single] == [d.evaluation for d in decisions]
    assert decisions[0].played == next(
        d.played for d in single if (d.deal, d.play) == (decisions[0].deal, decisions[0].play))
    assert move_text(decisions[0].best) == document["decisions"][0]["best"]


@pytest.mark.slow
def test_analyze_command_json_and_errors(tmp_path: Path) -> None:
    record, deal, play, seat, _ = _blunder_record()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = basra("analyze", str(path), "--seat", str(seat), "--samples", "30", "--json",
                   "--jobs", "1")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["format"] == FORMAT and document["record"]["source"] == "match.json"
    flagged = next(d for d in document["decisions"] if (d["deal"], d["play"]) == (deal, play))
    assert flagged["label"] == "blunder"
    table = basra("analyze", str(path), "--seat", str(seat), "--samples", "30")
    assert table.returncode == 0 and "blunder" in table.stdout and "accuracy" in table.stdout
    bad_seat = basra("analyze", str(path), "--seat", "3")
    assert bad_seat.returncode == 2 and "--seat" in bad_seat.stderr
    assert "Traceback" not in bad_seat.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "basra-record/1"}', encoding="utf-8")
    result = basra("analyze", str(broken))
    assert result.returncode == 2 and "broken.json" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


RAW_CARD = re.compile(r"(?<![\w♠♥♦♣])(?:10|[2-9AJQK])[SHDC](?![\w♠♥♦♣])")
"""A card written as a code (``JH``, ``10D``) where people read suit symbols."""


def test_analyze_command_names_cards_with_suit_symbols_and_says_how_it_labels(
        tmp_path: Path) -> None:
    record, _, _, seat, _ = _blunder_record()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = basra("analyze", str(path), "--seat", str(seat), "--samples", "12", "--jobs",
                   "1", "--all")
    assert result.returncode == 0, result.stderr
    assert re.search(r"(?:10|[2-9AJQK])[♠♥♦♣]", result.stdout), result.stdout
    assert not RAW_CARD.search(result.stdout), RAW_CARD.findall(result.stdout)
    assert "misses a basra" in result.stdout
    flat = " ".join(result.stdout.split())
    assert "less one standard error of the estimate" in flat
    assert "gets the milder label" in flat
    assert "standard error" in " ".join(basra("analyze", "--help").stdout.split())


def test_notes_say_a_missed_capture_and_name_cards_with_suit_symbols() -> None:
    fact = {"kind": "left_capture", "move": "JH:2D+4H", "cards": 3, "points": 1}
    assert note_text(fact) == "misses a capture: J♥ takes 2♦ 4♥ (3 cards, 1 point)"
