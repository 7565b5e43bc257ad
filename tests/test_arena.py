"""The arena: duplicate seating, statistics, determinism across jobs, records, the command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from basra.arena.duplicate import (
    ArenaError,
    ArenaResult,
    arena_tasks,
    play_arena_match,
    record_name,
    run_arena,
    wilson_interval,
)
from basra.bots import UnknownBotError
from basra.record import loads, replay
from basra.rules import make_rules

EGYPTIAN = make_rules("egyptian")
PARTNERS = make_rules("egyptian", 4)
THREE = make_rules("three-player")


def basra(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=120)


def comparable(result: ArenaResult) -> dict[str, object]:
    """Everything but the clock."""
    data = result.to_dict()
    del data["median_ms"], data["seconds"]
    return data


# The duplicate scheme


def test_each_seed_is_played_in_every_rotation() -> None:
    tasks = arena_tasks(THREE, "three-player", ["greedy", "random", "expert"], 4, 10)
    assert [(t.seed, t.rotation) for t in tasks] == [
        (10, 0), (10, 1), (10, 2), (11, 0), (11, 1), (11, 2),
    ]
    by_rotation = {t.rotation: t.bots for t in tasks if t.seed == 10}
    # the bot of entry i sits at seat (i + r) % players
    assert by_rotation[0] == ("greedy", "random", "expert")
    assert by_rotation[1] == ("expert", "greedy", "random")
    assert by_rotation[2] == ("random", "expert", "greedy")
    for task in tasks:
        for entry in range(3):
            assert task.owners[(entry + task.rotation) % 3] == entry


def test_matches_round_up_to_a_multiple_of_the_players() -> None:
    assert len(arena_tasks(EGYPTIAN, "egyptian", ["greedy", "random"], 1, 0)) == 2
    assert len(arena_tasks(EGYPTIAN, "egyptian", ["greedy", "random"], 6, 0)) == 6
    assert len(arena_tasks(PARTNERS, "egyptian", ["greedy", "random"], 5, 0)) == 8
    result = run_arena(THREE, "three-player", ["greedy", "random", "random"], 4, seed=3)
    assert (result.matches, result.matches_played, result.seeds) == (4, 6, 2)


def test_one_bot_per_side_keeps_partners_together_in_every_rotation() -> None:
    for task in arena_tasks(PARTNERS, "egyptian", ["greedy", "random"], 4, 0):
        for seat in range(4):
            assert PARTNERS.side_of[seat] == (task.owners[seat] + task.rotation) % 2
            assert task.bots[seat] == ["greedy", "random"][task.owners[seat]]


def test_rotations_of_a_seed_play_the_same_deals() -> None:
    tasks = [t._replace(keep_record=True)
             for t in arena_tasks(THREE, "three-player", ["greedy", "random", "random"], 3, 5)]
    records = [loads(play_arena_match(t).record or "") for t in tasks]
    first = [{key: r["deals"][0][key] for key in ("dealer", "floor", "hands")} for r in records]
    assert first[0] == first[1] == first[2]
    assert [r["players"][0]["name"] for r in records] == ["greedy", "random", "random"]
    assert [r["players"][1]["name"] for r in records] == ["random", "greedy", "random"]
    other = arena_tasks(THREE, "three-player", ["greedy", "random", "random"], 3, 6)[0]
    record = loads(play_arena_match(other._replace(keep_record=True)).record or "")
    assert record["deals"][0]["hands"] != first[0]["hands"]


# Statistics


@pytest.mark.parametrize(("wins", "trials", "expected"), [
    (8, 10, (0.4902, 0.9433)),
    (5, 10, (0.2366, 0.7634)),
    (0, 10, (0.0, 0.2775)),
    (10, 10, (0.7225, 1.0)),
    (1, 1, (0.2065, 1.0)),
    (50, 100, (0.4038, 0.5962)),
])
def test_wilson_interval_known_values(wins: int, trials: int,
                                      expected: tuple[float, float]) -> None:
    lo, hi = wilson_interval(wins, trials)
    assert (round(lo, 4), round(hi, 4)) == expected


def test_wilson_interval_edge_cases() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_result_adds_up() -> None:
    result = run_arena(EGYPTIAN, "egyptian", ["greedy", "random"], 10, seed=4)
    assert result.unfinished == 0
    assert sum(result.wins) == result.matches_played == 10
    assert result.win_rate == [w / 10 for w in result.wins]
    for rate, (lo, hi) in zip(result.win_rate, result.win_rate_ci95, strict=True):
        assert lo <= rate <= hi
    assert result.deals > 0 and all(p > 0 for p in result.points_per_deal)
    assert all(m >= 0 for m in result.median_ms)


def test_partnership_entries_share_their_side() -> None:
    per_seat = run_arena(PARTNERS, "egyptian", ["greedy", "random", "greedy", "random"], 8,
                         seed=2)
    assert per_seat.wins[0] == per_seat.wins[2] and per_seat.wins[1] == per_seat.wins[3]
    assert per_seat.wins[0] + per_seat.wins[1] == per_seat.matches_played - per_seat.unfinished
    assert per_seat.points_per_deal[0] == per_seat.points_per_deal[2]
    assert per_seat.basras_per_deal[1] == per_seat.basras_per_deal[3]
    per_side = run_arena(PARTNERS, "egyptian", ["greedy", "random"], 8, seed=2)
    assert per_side.bots == ["greedy", "random"]
    # the same seats hold the same kinds of bot, seeded the same: the same matches
    assert per_side.wins == per_seat.wins[:2]
    assert per_side.points_per_deal == per_seat.points_per_deal[:2]
    assert per_side.wins[0] > per_side.wins[1]


def test_max_deals_stops_matches_as_lost_by_everyone() -> None:
    result = run_arena(EGYPTIAN, "egyptian", ["random", "random"], 2, seed=0, max_deals=1)
    assert result.unfinished == 2 and result.wins == [0, 0]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ArenaError, match="one per seat"):
        run_arena(EGYPTIAN, "egyptian", ["greedy"], 2)
    with pytest.raises(ArenaError, match="one per side"):
        run_arena(PARTNERS, "egyptian", ["greedy", "random", "greedy"], 2)
    with pytest.raises(UnknownBotError, match="'clever'"):
        run_arena(EGYPTIAN, "egyptian", ["greedy", "clever"], 2)
    with pytest.raises(ArenaError, match="jobs"):
        run_arena(EGYPTIAN, "egyptian", ["greedy", "random"], 2, jobs=0)


# Determinism, strength, records


def test_same_results_in_one_process_or_in_a_pool() -> None:
    alone = run_arena(THREE, "three-player", ["greedy", "random", "random"], 6, seed=8, jobs=1)
    ticks: list[int] = []
    pooled = run_arena(THREE, "three-player", ["greedy", "random", "random"], 6, seed=8, jobs=2,
                       progress=lambda: ticks.append(1))
    assert comparable(alone) == comparable(pooled)
    assert len(ticks) == 6


@pytest.mark.slow
def test_a_master_of_fixed_samples_plays_the_same_in_one_process_or_in_a_pool() -> None:
    """--master-samples: the master's play depends on the seeds alone, not on the time
    it is given or how busy the machine is."""
    alone = run_arena(EGYPTIAN, "egyptian", ["master", "greedy"], 2, seed=5, jobs=1,
                      samples=12, think_ms=1)
    pooled = run_arena(EGYPTIAN, "egyptian", ["master", "greedy"], 2, seed=5, jobs=2,
                       samples=12, think_ms=5000)
    assert comparable(alone) == comparable(pooled)


def test_greedy_clearly_beats_random() -> None:
    result = run_arena(EGYPTIAN, "egyptian", ["greedy", "random"], 40, seed=100)
    assert result.win_rate[0] > 0.7
    assert result.win_rate_ci95[0][0] > 0.5
    assert result.points_per_deal[0] > result.points_per_deal[1]


def test_records_are_written_valid_and_never_overwritten(tmp_path: Path) -> None:
    result = run_arena(EGYPTIAN, "egyptian", ["greedy", "random"], 4, seed=3, jobs=2,
                       records_dir=tmp_path / "out")
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted(record_name(s, r) for s in (3, 4) for r in (0, 1))
    wins = [0, 0]
    for name in names:
        record = loads((tmp_path / "out" / name).read_text(encoding="utf-8"))
        match = replay(record)
        players = [p["name"] for p in record["players"]]
        rotation = int(name.rsplit("-r", 1)[1].removesuffix(".json"))
        assert players == (["greedy", "random"] if rotation == 0 else ["random", "greedy"])
        assert match.winner is not None
        wins[["greedy", "random"].index(players[match.winner])] += 1
    assert wins == result.wins
    with pytest.raises(ArenaError, match="never overwritten"):
        run_arena(EGYPTIAN, "egyptian", ["greedy", "random"], 2, seed=4,
                  records_dir=tmp_path / "out")


# The command


def test_arena_command_json_shape() -> None:
    done = basra("arena", "--variant", "egyptian", "--players", "2", "--bots", "greedy,random",
                 "--matches", "5", "--seed", "1", "--jobs", "2", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {"bots", "matches", "win_rate", "win_rate_ci95", "points_per_deal"} <= set(data)
    assert data["bots"] == ["greedy", "random"]
    assert data["matches"] == 5 and data["matches_played"] == 6
    assert len(data["win_rate"]) == len(data["points_per_deal"]) == 2
    assert all(len(ci) == 2 and ci[0] <= rate <= ci[1]
               for rate, ci in zip(data["win_rate"], data["win_rate_ci95"], strict=True))
    alone = basra("arena", "--bots", "greedy,random", "-n", "5", "--seed", "1", "-j", "1",
                  "--json")
    assert json.loads(alone.stdout)["win_rate"] == data["win_rate"]


def test_arena_command_table_and_records(tmp_path: Path) -> None:
    done = basra("arena", "-p", "4", "--bots", "greedy,random", "-n", "4", "--records",
                 str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "greedy" in done.stdout and "win rate" in done.stdout
    assert "matches" in done.stderr  # the progress bar
    assert len(list(tmp_path.glob("arena-*-r*.json"))) == 4
    again = basra("arena", "-p", "4", "--bots", "greedy,random", "-n", "4", "--records",
                  str(tmp_path))
    assert again.returncode == 2
    assert "never overwritten" in again.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "greedy"], "one bot per seat (2)"),
    (["--bots", "greedy,random,greedy"], "one bot per seat (2)"),
    (["-p", "4", "--bots", "greedy,random,greedy"], "one per side (2)"),
    (["--bots", "greedy,clever"], "unknown bot 'clever'"),
    (["--bots", "greedy,random", "--jobs", "0"], "--jobs must be at least 1"),
    (["--bots", "greedy,random", "--matches", "0"], "--matches must be at least 1"),
    (["--bots", "master,random", "--master-samples", "0"], "--master-samples"),
])
def test_arena_command_mistakes_are_one_line(args: list[str], message: str) -> None:
    done = basra("arena", *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
