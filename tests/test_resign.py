"""Resigning a match in the core (``Match.resign``, ``Match.stop``) and in the record."""

from __future__ import annotations

import random

import pytest

from basra.match import Match, MatchOverError
from basra.record import Player, RecordError, match_record, replay
from basra.rules import make_rules


def played(players: int, plays: int, seed: int = 4) -> Match:
    match = Match(make_rules("egyptian", players), seed=seed)
    rng = random.Random(seed)
    for _ in range(plays):
        match.play(rng.choice(match.legal_moves()))
    return match


def test_a_side_that_resigns_a_two_sided_match_loses_at_once_and_the_record_says_so() -> None:
    match = played(2, 30)
    totals = list(match.totals)
    match.resign(0)
    assert match.is_over and match.winner == 1 and match.totals == totals
    with pytest.raises(MatchOverError):
        match.play(0)
    record = match_record(match, [Player("Amira", "human"), Player("Layla")])
    assert record["result"]["resigned"] == [0] and record["result"]["winner"] == 1
    again = replay(record)
    assert again.winner == 1 and again.resigned == [0] and again.totals == totals


def test_with_three_sides_play_goes_on_and_a_resigned_side_cannot_win() -> None:
    for seed in range(6):
        match = played(3, 0, seed)
        match.resign(1)
        assert not match.is_over
        rng = random.Random(seed)
        while not match.is_over:
            match.play(rng.choice(match.legal_moves()))
        assert match.winner != 1
        assert replay(match_record(match, [Player("a")] * 3)).winner == match.winner


def test_a_bad_resignation_is_refused_and_a_forged_record_fails() -> None:
    match = played(3, 5)
    with pytest.raises(ValueError, match="cannot resign"):
        match.resign(7)
    match.resign(2)
    with pytest.raises(ValueError, match="cannot resign"):
        match.resign(2)
    match.stop()
    record = match_record(match, [Player("a")] * 3)
    assert record["result"]["resigned"] == [2]
    forged = {**record, "result": {**record["result"], "resigned": [2, 2]}}
    with pytest.raises(RecordError, match="resigned"):
        replay(forged)
    unresigned = {**record, "result": {k: v for k, v in record["result"].items()
                                       if k != "resigned"}}
    with pytest.raises(RecordError, match="not over"):
        replay(unresigned)
