"""Training the learned evaluator (issue 42): the numpy player computes what the training
framework computes, a tiny training run gives a network that plays, the same seed gives
the same weights, and a rerun goes on from its checkpoints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from click.testing import CliRunner, Result

from basra.bots.neural import NeuralBot
from basra.cli import cli
from basra.match import Match
from basra.neural.belief import Belief
from basra.neural.network import MOVE_FEATURES, Network, move_features
from basra.neural.tensor import (
    OBSERVATION_SIZE,
    PILE_OBSERVATION_SIZE,
    encode_observation,
)
from basra.observe import observe
from basra.rules import make_rules
from basra.train.data import MAX_MOVES, search_positions, selfplay_positions
from basra.train.model import VALUE_SCALE, heads, init_params, to_network

TINY = ("--matches", "1", "--samples", "10", "--epochs", "1", "--rounds", "1",
        "--deals", "4", "--belief-matches", "2", "--jobs", "1")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("size", [OBSERVATION_SIZE, PILE_OBSERVATION_SIZE])
def test_numpy_inference_matches_jax(size: int) -> None:
    params = init_params(jax.random.PRNGKey(7), size)
    rng = np.random.default_rng(3)
    observations = rng.random((5, size), dtype=np.float32)
    moves = (rng.random((5, 4, MOVE_FEATURES)) < 0.1).astype(np.float32)
    logits, values = heads(params, observations, moves)
    network = to_network(params)
    for row in range(5):
        np_logits, np_values = network.heads(observations[row], moves[row])
        np.testing.assert_allclose(np_logits, np.asarray(logits[row]), rtol=1e-4,
                                   atol=1e-5)
        np.testing.assert_allclose(np_values, np.asarray(values[row]) * VALUE_SCALE,
                                   rtol=1e-4, atol=1e-4)


def test_network_reads_a_real_position_as_jax_does() -> None:
    match = Match(make_rules("egyptian"), 4)
    view = observe(match, match.state.to_play)
    params = init_params(jax.random.PRNGKey(1), OBSERVATION_SIZE)
    logits, values = heads(params, encode_observation(view)[None],
                           move_features(view)[None])
    np_logits, np_values = to_network(params).evaluate(view)
    np.testing.assert_allclose(np_logits, np.asarray(logits[0]), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np_values, np.asarray(values[0]) * VALUE_SCALE, rtol=1e-4,
                               atol=1e-4)


def test_search_positions_hold_every_legal_move_and_its_value() -> None:
    rules = make_rules("egyptian")
    positions = search_positions(rules, "egyptian", 1, 10, 5)
    assert len(positions) > 20
    assert positions.observations.shape == (len(positions), OBSERVATION_SIZE)
    assert positions.moves.shape == (len(positions), MAX_MOVES, MOVE_FEATURES)
    counts = positions.mask.sum(axis=1)
    assert counts.min() >= 2  # a forced move teaches nothing: it is not kept
    # every real move has its searched value, padding has none; one card each
    assert not np.isnan(positions.values[positions.mask]).any()
    assert np.isnan(positions.values[~positions.mask]).all()
    assert (positions.moves[positions.mask][:, :52].sum(axis=1) == 1).all()
    again = search_positions(rules, "egyptian", 1, 10, 5)
    np.testing.assert_array_equal(positions.values, again.values)


def test_selfplay_positions_value_the_move_played_alone() -> None:
    rules = make_rules("pisti")
    network = to_network(init_params(jax.random.PRNGKey(2), PILE_OBSERVATION_SIZE))
    positions = selfplay_positions(rules, "pisti", 2, network, 9)
    known = ~np.isnan(positions.values)
    assert (known.sum(axis=1) == 1).all()
    assert (positions.mask | ~known).all()
    # a deal's margins of the two sides cancel: each decision holds its side's margin
    assert np.abs(positions.values[known]).max() > 0


def test_tiny_training_run_gives_a_network_that_plays(tmp_path: Path) -> None:
    result = run("train", "--out", str(tmp_path / "run"), *TINY)
    assert result.exit_code == 0, result.output
    network = Network.from_file(tmp_path / "run" / "network.npz")
    for name in ("search.npz", "imitation.npz", "round-1.npz", "config.json",
                 "beliefs.npz", "beliefs-held.npz"):
        assert (tmp_path / "run" / name).exists()
    assert "belief: cross-entropy" in result.output
    Belief.from_file(tmp_path / "run" / "belief.npz")
    rules = make_rules("egyptian")
    match = Match(rules, 2)
    bot = NeuralBot(1, network=network)
    while not match.is_over and len(match.deals) < 2:
        view = observe(match, match.state.to_play)
        move = bot.choose(view)
        assert move in view.legal_moves
        match.play(move)


def test_same_seed_same_weights_and_a_rerun_goes_on(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert run("train", "--out", str(first), "--seed", "3", *TINY).exit_code == 0
    assert run("train", "--out", str(second), "--seed", "3", *TINY).exit_code == 0
    a = Network.from_file(first / "network.npz")
    b = Network.from_file(second / "network.npz")
    for name, array in a.arrays.items():
        np.testing.assert_array_equal(array, b.arrays[name])
    belief_a = Belief.from_file(first / "belief.npz")
    belief_b = Belief.from_file(second / "belief.npz")
    for name, array in belief_a.arrays.items():
        np.testing.assert_array_equal(array, belief_b.arrays[name])
    stamp = (first / "search.npz").stat().st_mtime_ns
    again = run("train", "--out", str(first), "--seed", "3", *TINY)
    assert again.exit_code == 0
    assert "from " in again.output  # the search positions were read, not searched again
    assert (first / "search.npz").stat().st_mtime_ns == stamp


def test_a_file_for_out_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "taken"
    path.write_text("x")
    done = subprocess.run([sys.executable, "-m", "basra", "train", "--out", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f"--out: Directory '{path}' is a file" in done.stderr
    assert "Traceback" not in done.stderr


def test_without_the_train_extra_it_says_what_to_install(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['jax'] = None; sys.modules['optax'] = None\n"
            "from basra.cli import main\n"
            f"main(['train', '--out', {str(tmp_path / 'run')!r}])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "training needs JAX and Optax: pip install 'basra[train]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()
