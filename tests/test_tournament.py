"""Round-robin tournaments (basra.arena.tournament, ``basra tournament``) and arenas on a Ray
cluster (basra.arena.raycluster, ``--ray``): the same results as local worker processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from basra.arena.duplicate import ArenaError, run_arena
from basra.arena.tournament import bradley_terry_elo, run_tournament
from basra.rules import make_rules


def basra(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=300, env=env)


def test_a_round_robin_plays_every_pairing_on_the_same_deals() -> None:
    rules = make_rules("egyptian")
    result = run_tournament(rules, "egyptian", ["expert", "greedy", "random"], matches=6,
                            seed=3, jobs=2)
    for i in range(3):
        assert result.games[i][i] == 0
        for j in range(3):
            if i != j:
                assert result.games[i][j] == result.games[j][i] == 6
                decided = result.games[i][j] - result.undecided[i][j]
                assert result.wins[i][j] + result.wins[j][i] == decided
    # Each pairing is exactly the arena of those two bots on the same seeds.
    alone = run_arena(rules, "egyptian", ["greedy", "random"], 6, 3)
    assert [result.wins[1][2], result.wins[2][1]] == alone.wins
    assert min(result.ratings[0], result.ratings[1]) > result.ratings[2]  # random is last
    assert abs(sum(result.ratings) / 3 - 1500) < 1e-6


def test_elo_ratings_follow_the_win_odds() -> None:
    # 3 to 1 wins: odds of 3, a gap of 400 log10(3) = 191 Elo points without the prior.
    low, high = bradley_terry_elo([[0, 30], [90, 0]], [[0, 120], [120, 0]], prior=0)
    assert round(high - low) == 191
    # A clean sweep stays finite thanks to the virtual draw.
    swept = bradley_terry_elo([[0, 10], [0, 0]], [[0, 10], [10, 0]])
    assert 1500 < swept[0] < 2500


def test_a_tournament_needs_two_sides_and_distinct_bots() -> None:
    with pytest.raises(ArenaError, match="two sides"):
        run_tournament(make_rules("pasur", 3), "pasur", ["greedy", "random"], 3)
    with pytest.raises(ArenaError, match="'greedy' is named twice"):
        run_tournament(make_rules("egyptian"), "egyptian", ["greedy", "greedy"], 2)


@pytest.mark.slow
def test_the_tournament_command_prints_a_crosstable_and_json() -> None:
    bot = f"cmd:{sys.executable} examples/bot_example.py"
    result = basra("tournament", "-v", "egyptian", "-p", "4", "--bots",
                   f"greedy,random,{bot}", "-n", "2", "--seed", "5", "-j", "2", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [row["bot"] for row in data["bots"]] == ["greedy", "random", bot]
    assert data["matches_per_pairing"] == 4
    for row in data["bots"]:
        assert row["matches"] == 8
        lo, hi = row["win_rate_ci95"]
        assert 0 <= lo <= row["win_rate"] <= hi <= 1
        assert set(row["against"]) == {b["bot"] for b in data["bots"]} - {row["bot"]}
    text = basra("tournament", "--bots", "greedy,random", "-n", "2", "-j", "1")
    assert text.returncode == 0, text.stderr
    assert "rating" in text.stdout and "95% CI" in text.stdout
    for args, message in (
        (["--bots", "greedy"], "at least 2 bots, not 1"),
        (["--bots", "greedy,nobody"], "unknown bot 'nobody'"),
        (["-v", "pasur", "-p", "3", "--bots", "greedy,random"], "two sides"),
    ):
        bad = basra("tournament", *args)
        assert bad.returncode == 2
        assert bad.stderr.strip().startswith("error:") and message in bad.stderr
        assert "Traceback" not in bad.stderr


@pytest.mark.slow
def test_ray_missing_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # A ray module that cannot be imported, first on the path: as if Ray were not installed.
    (tmp_path / "ray.py").write_text("raise ImportError('no ray here')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])}
    for command in ("arena", "tournament"):
        result = basra(command, "--bots", "greedy,random", "-n", "2", "--ray", "auto", env=env)
        assert result.returncode == 2
        assert result.stderr.strip() == ("error: --ray needs Ray, which is not installed: "
                                         "pip install 'basra[ray]'")


@pytest.mark.slow
def test_an_unreachable_ray_address_is_one_line_and_exit_2() -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed")
    import socket

    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = basra("arena", "--bots", "greedy,random", "-n", "2", "--ray", f"127.0.0.1:{port}")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"error: cannot reach a Ray cluster at '127.0.0.1:{port}': Connection refused")


def _comparable(result: dict[str, Any]) -> dict[str, Any]:
    """Everything but the clock: times and the decision-time medians."""
    return {k: v for k, v in result.items() if k not in ("seconds", "median_ms")}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    import logging

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_ray_gives_the_same_results_as_local_jobs(local_ray: None) -> None:
    from basra.arena.raycluster import ray_runner

    rules = make_rules("egyptian", 4)
    bots = ["expert", "greedy"]
    local = run_arena(rules, "egyptian", bots, 8, seed=11, jobs=2)
    on_ray = run_arena(rules, "egyptian", bots, 8, seed=11, runner=ray_runner("auto"))
    assert _comparable(on_ray.to_dict()) == _comparable(local.to_dict())
    assert on_ray.deals > 0
    three = ["greedy", "random", "expert"]
    local_t = run_tournament(make_rules("egyptian"), "egyptian", three, 4, seed=2, jobs=2)
    ray_t = run_tournament(make_rules("egyptian"), "egyptian", three, 4, seed=2,
                           runner=ray_runner("auto"))
    assert _comparable(ray_t.to_dict()) == _comparable(local_t.to_dict())


@pytest.mark.parametrize("variant", ["pisti", "xeri"])
def test_a_round_robin_of_a_pile_game(variant: str) -> None:
    result = run_tournament(make_rules(variant), variant, ["greedy", "random"], matches=4,
                            seed=5, jobs=1)
    assert result.games[0][1] == result.games[1][0] == 4
    decided = 4 - result.undecided[0][1]
    assert result.wins[0][1] + result.wins[1][0] == decided
    alone = run_arena(make_rules(variant), variant, ["greedy", "random"], 4, 5)
    assert [result.wins[0][1], result.wins[1][0]] == alone.wins
