"""The belief (:mod:`basra.neural.belief`) in JAX: its loss and its fit.

A row is an unseen card of a decision (:class:`basra.train.data.Beliefs`). The model's
logit is added to the log-odds of the row's even chance (the other hand's size over the
unseen cards) and fitted by binary cross-entropy to whether the other seat held the
card, so that it learns only what the plays say beyond the count; the search needs no
more, the count being the same in every deal it samples.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax  # type: ignore[import-untyped]

from basra.neural.belief import BELIEF_HIDDEN, CARD_FEATURES, Belief

from .data import Beliefs

__all__ = ["BeliefParams", "belief_loss", "fit_belief", "init_belief", "to_belief"]

BeliefParams = dict[str, jax.Array]


def init_belief(key: jax.Array) -> BeliefParams:
    """Fresh parameters (He-initialised hidden layer, a small output)."""
    first, second = jax.random.split(key)
    return {"w1": jax.random.normal(first, (CARD_FEATURES, BELIEF_HIDDEN))
            * np.sqrt(2 / CARD_FEATURES),
            "b1": jnp.zeros(BELIEF_HIDDEN),
            "w2": jax.random.normal(second, (BELIEF_HIDDEN,)) * 0.01,
            "b2": jnp.zeros(())}


def _logits(params: BeliefParams, features: jax.Array) -> jax.Array:
    hidden = jax.nn.relu(features @ params["w1"] + params["b1"])
    return hidden @ params["w2"] + params["b2"]


def _even_odds(chance: jax.Array) -> jax.Array:
    return jnp.log(chance) - jnp.log1p(-jnp.minimum(chance, 1 - 1e-6))


def belief_loss(params: BeliefParams, features: jax.Array, held: jax.Array,
                chance: jax.Array) -> jax.Array:
    """The mean binary cross-entropy of the rows (see the module)."""
    logits = _logits(params, features) + _even_odds(chance)
    return jnp.mean(optax.sigmoid_binary_cross_entropy(logits, held))


def even_loss(rows: Beliefs) -> float:
    """The cross-entropy of the even chance alone (the belief that reads nothing)."""
    chance = jnp.asarray(rows.chance)
    return float(jnp.mean(optax.sigmoid_binary_cross_entropy(
        _even_odds(chance), jnp.asarray(rows.held, jnp.float32))))


def measure_belief(params: BeliefParams, rows: Beliefs) -> float:
    """The belief's cross-entropy on ``rows``."""
    return float(belief_loss(params, jnp.asarray(rows.features),
                             jnp.asarray(rows.held, jnp.float32), jnp.asarray(rows.chance)))


def fit_belief(rows: Beliefs, epochs: int, seed: int, batch_size: int = 1024,
               learning_rate: float = 3e-3,
               progress: Callable[[int], None] = lambda epochs: None) -> BeliefParams:
    """Fit a fresh belief to ``rows`` (Adam, cosine decay) for ``epochs`` epochs."""
    params = init_belief(jax.random.PRNGKey(seed))
    batches = max(1, len(rows) // batch_size)
    optimizer = optax.adam(optax.cosine_decay_schedule(learning_rate, epochs * batches))
    state = optimizer.init(params)

    @jax.jit
    def step(params: BeliefParams, state: optax.OptState, features: jax.Array,
             held: jax.Array, chance: jax.Array) -> tuple[BeliefParams, optax.OptState]:
        grads = jax.grad(belief_loss)(params, features, held, chance)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    rng = np.random.default_rng(seed)
    held = rows.held.astype(np.float32)
    for _ in range(epochs):
        order = rng.permutation(len(rows))
        for b in range(batches):
            pick = order[b * batch_size:(b + 1) * batch_size]
            params, state = step(params, state, rows.features[pick], held[pick],
                                 rows.chance[pick])
        progress(1)
    return params


def to_belief(params: BeliefParams) -> Belief:
    """The numpy belief of these parameters."""
    return Belief({name: np.asarray(value, np.float32) for name, value in params.items()})
