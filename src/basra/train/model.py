"""The network of :mod:`basra.neural.network` in JAX, its losses and its training steps.

The parameters are a dict of the arrays :data:`basra.neural.network.PARAMETER_NAMES`
names, so :func:`to_network` hands them to the numpy player as they are.

The loss of a batch of positions (:class:`basra.train.data.Positions`)::

    value   mean squared error of each move's value (in units of VALUE_SCALE points)
            against its target, over the moves that have one
    policy  cross-entropy of the policy over the legal moves against softmax(target / TAU),
            where a move without a target (self-play knows the value of the move played
            alone) takes the value head's own estimate, held fixed

so the value head learns what the master's search (or the deal's end) says a move is
worth, and the policy learns to play the moves worth the most.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax  # type: ignore[import-untyped]

from basra.neural.network import HIDDEN, MOVE_FEATURES, Network

from .data import Positions

__all__ = ["POLICY_WEIGHT", "TAU", "VALUE_SCALE", "Batch", "Params", "heads", "init_params",
           "loss", "make_step", "to_network"]

VALUE_SCALE = 10.0
"""Points per unit of the value head."""
TAU = 1.0
"""The policy's target temperature, in points: a move 1 point better is e times likelier."""
POLICY_WEIGHT = 1.0
"""The policy loss's weight beside the value loss."""

Params = dict[str, jax.Array]
Batch = tuple[jax.Array, jax.Array, jax.Array, jax.Array]
"""Observations, move features, mask and value targets (NaN: none)."""


def init_params(key: jax.Array, observation_size: int) -> Params:
    """Fresh parameters (He-initialised trunk, small heads)."""
    keys = jax.random.split(key, 4)
    first = observation_size + MOVE_FEATURES

    def dense(k: jax.Array, rows: int, cols: int, fan_in: int) -> jax.Array:
        return jax.random.normal(k, (rows, cols)) * jnp.sqrt(2.0 / fan_in)

    w1 = dense(keys[0], first, HIDDEN[0], first)
    return {
        "w_obs": w1[:observation_size], "w_move": w1[observation_size:],
        "b1": jnp.zeros(HIDDEN[0]),
        "w2": dense(keys[1], HIDDEN[0], HIDDEN[1], HIDDEN[0]), "b2": jnp.zeros(HIDDEN[1]),
        "w_policy": jax.random.normal(keys[2], (HIDDEN[1],)) * 0.01,
        "b_policy": jnp.zeros(()),
        "w_value": jax.random.normal(keys[3], (HIDDEN[1],)) * 0.01,
        "b_value": jnp.zeros(()),
    }


def heads(params: Params, observations: jax.Array, moves: jax.Array
          ) -> tuple[jax.Array, jax.Array]:
    """Policy logits and values (units of :data:`VALUE_SCALE`), ``[batch, moves]``."""
    state = observations @ params["w_obs"] + params["b1"]
    h1 = jax.nn.relu(moves @ params["w_move"] + state[:, None, :])
    h2 = jax.nn.relu(h1 @ params["w2"] + params["b2"])
    return h2 @ params["w_policy"] + params["b_policy"], h2 @ params["w_value"] + params["b_value"]


def loss(params: Params, batch: Batch) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
    """The batch's loss (see the module), and its value and policy parts."""
    observations, moves, mask, targets = batch
    logits, values = heads(params, observations, moves)
    known = mask & ~jnp.isnan(targets)
    scaled = jnp.where(known, targets / VALUE_SCALE, 0.0)
    value_loss = jnp.sum(jnp.where(known, (values - scaled) ** 2, 0.0)) / jnp.maximum(
        jnp.sum(known), 1)
    filled = jnp.where(known, targets, jax.lax.stop_gradient(values) * VALUE_SCALE)
    wanted = jax.nn.softmax(jnp.where(mask, filled / TAU, -jnp.inf), axis=-1)
    played = jax.nn.log_softmax(jnp.where(mask, logits, -jnp.inf), axis=-1)
    policy_loss = -jnp.mean(jnp.sum(jnp.where(mask, wanted * played, 0.0), axis=-1))
    return value_loss + POLICY_WEIGHT * policy_loss, (value_loss, policy_loss)


def make_step(optimizer: optax.GradientTransformation
              ) -> Callable[[Params, Any, Batch], tuple[Params, Any, jax.Array]]:
    """A compiled training step: (params, optimizer state, batch) -> the next ones and
    the batch's loss."""

    @jax.jit
    def step(params: Params, state: Any, batch: Batch) -> tuple[Params, Any, jax.Array]:
        (value, _), grads = jax.value_and_grad(loss, has_aux=True)(params, batch)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    return step


def batch_of(positions: Positions, rows: np.ndarray[Any, Any], moves: int) -> Batch:
    """The rows ``rows`` of ``positions`` as a batch, its moves cut to ``moves``."""
    return (jnp.asarray(positions.observations[rows], jnp.float32),
            jnp.asarray(positions.moves[rows, :moves], jnp.float32),
            jnp.asarray(positions.mask[rows, :moves]),
            jnp.asarray(positions.values[rows, :moves]))


def to_network(params: Params) -> Network:
    """The numpy player's network of these parameters."""
    arrays = {name: np.asarray(value, dtype=np.float32) for name, value in params.items()}
    network = Network(arrays, VALUE_SCALE)
    network.check()
    return network


def from_network(network: Network) -> Params:
    """Parameters to go on training from a saved network."""
    return {name: jnp.asarray(value) for name, value in network.arrays.items()}
