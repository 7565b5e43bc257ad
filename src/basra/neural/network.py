"""The learned evaluator's network, played in numpy: no training library is needed.

One network per rule family (Pişti and Xeri share one: :data:`NETWORKS`). It reads a
seat's observation tensor (:mod:`basra.neural.tensor`) and, for each legal move, the
move's features, and gives two heads. A move's features (:data:`MOVE_FEATURES` values)
are the rules' facts of it, as the position after it shows them::

    offset  size  what
    0       52    the card played (1)
    52      52    the cards it captures (1 each)
    104     52    the floor (the pile) after it
    156     1     the points of the cards it takes / 10
    157     1     the cards it takes / 10
    158     1     the points of the bonus it makes (basra, sur, pişti) / 10

and the network::

    trunk   h1 = relu(obs · W_obs + move · W_move + b1)     (HIDDEN[0] units)
            h2 = relu(h1 · W2 + b2)                          (HIDDEN[1] units)
    policy  logit = h2 · w_policy + b_policy                 (one per legal move)
    value   value = (h2 · w_value + b_value) · value_scale   (the move's expected
                                                              deal margin, in points)

The state's part of the first layer is computed once for all its moves. The weights ship
in the package (``weights/<name>.npz``, float32) and are read the first time a network is
asked for (:func:`load_network`). The training code (:mod:`basra.train`) writes the same
file from its own parameters, with the same names.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from basra.observe import Observation
from basra.rules import PILE_FAMILIES, Rules
from basra.state import capture_table

from .tensor import card_bits, encode_observation, observation_size

__all__ = [
    "HIDDEN",
    "MOVE_FEATURES",
    "NETWORKS",
    "PARAMETER_NAMES",
    "Network",
    "WeightsError",
    "load_network",
    "move_features",
    "weights_name",
]

MOVE_FEATURES = 159
"""The features of a move (see the module)."""
HIDDEN = (256, 128)
"""The units of the trunk's two layers."""
PARAMETER_NAMES = ("w_obs", "w_move", "b1", "w2", "b2", "w_policy", "b_policy",
                   "w_value", "b_value")
"""The arrays of a network, in a weights file under these names."""
NETWORKS = ("basra", "pasur", "pile")
"""The shipped networks: ``basra`` for Basra's presets, ``pasur`` for Pasur, ``pile`` for
Pişti and Xeri (:func:`weights_name`)."""

Array = npt.NDArray[np.float32]


class WeightsError(ValueError):
    """A weights file that is missing, unreadable or of the wrong shape."""


def weights_name(rules: Rules) -> str:
    """The shipped network that plays under ``rules``: one per family (the pile games
    share one)."""
    if rules.family in PILE_FAMILIES:
        return "pile"
    return "pasur" if rules.family == "pasur" else "basra"


def move_features(view: Observation) -> Array:
    """The features of each legal move of a seat's view, one row each (see the module)."""
    rules = view.rules
    table = capture_table(rules)
    floor = view.floor
    lone = len(view.pile) <= 1  # a pile game's bonus (a pişti) needs a pile of one card
    out = np.zeros((len(view.legal_moves), MOVE_FEATURES), dtype=np.float32)
    for row, move in enumerate(view.legal_moves):
        card, captured = move & 63, move >> 6
        out[row, card] = 1.0
        out[row, 52:104] = card_bits(captured)
        out[row, 104:156] = card_bits(floor & ~captured if captured else floor | 1 << card)
        if captured:
            taken = captured | 1 << card
            out[row, 156] = rules.card_points_of(taken) / 10
            out[row, 157] = taken.bit_count() / 10
            out[row, 158] = table.bonus_points(floor, card, captured) * lone / 10
    return out


@dataclass(frozen=True)
class Network:
    """A network's arrays (:data:`PARAMETER_NAMES`) and the scale of its value head."""

    arrays: dict[str, Array]
    value_scale: float

    @property
    def observation_size(self) -> int:
        return int(self.arrays["w_obs"].shape[0])

    @classmethod
    def from_file(cls, path: Path) -> Network:
        """The network saved at ``path`` (an ``.npz`` of :data:`PARAMETER_NAMES` and
        ``value_scale``)."""
        try:
            with np.load(path) as data:
                arrays = {name: np.asarray(data[name], dtype=np.float32)
                          for name in PARAMETER_NAMES}
                scale = float(data["value_scale"])
        except (OSError, KeyError, ValueError) as error:
            raise WeightsError(f"cannot read the network in {path}: {error}") from error
        network = cls(arrays, scale)
        network.check()
        return network

    def save(self, path: Path) -> None:
        """Write the network to ``path`` (``.npz``)."""
        data: dict[str, Any] = {**self.arrays, "value_scale": np.float32(self.value_scale)}
        np.savez(path, **data)

    def check(self) -> None:
        """Raise :class:`WeightsError` unless the arrays fit together."""
        a = self.arrays
        size = a["w_obs"].shape[0]
        shapes = {"w_obs": (size, HIDDEN[0]), "w_move": (MOVE_FEATURES, HIDDEN[0]),
                  "b1": (HIDDEN[0],), "w2": HIDDEN, "b2": (HIDDEN[1],),
                  "w_policy": (HIDDEN[1],), "b_policy": (), "w_value": (HIDDEN[1],),
                  "b_value": ()}
        for name, shape in shapes.items():
            if a[name].shape != shape:
                raise WeightsError(f"array {name} has shape {a[name].shape}, "
                                   f"expected {shape}")

    def heads(self, observation: Array, moves: Array) -> tuple[Array, Array]:
        """The policy logits and values (points) of ``moves`` (rows of
        :func:`move_features`) in the position whose tensor is ``observation``."""
        a = self.arrays
        state = observation @ a["w_obs"] + a["b1"]
        h1 = np.maximum(moves @ a["w_move"] + state, 0.0)
        h2 = np.maximum(h1 @ a["w2"] + a["b2"], 0.0)
        logits = h2 @ a["w_policy"] + a["b_policy"]
        values = (h2 @ a["w_value"] + a["b_value"]) * np.float32(self.value_scale)
        return logits, values

    def evaluate(self, view: Observation) -> tuple[Array, Array]:
        """:meth:`heads` of every legal move of a seat's view, in ``legal_moves`` order."""
        if observation_size(view.rules) != self.observation_size:
            raise WeightsError(f"this network reads {self.observation_size} values; "
                               f"{view.rules.family} positions have "
                               f"{observation_size(view.rules)}")
        return self.heads(encode_observation(view), move_features(view))


def weights_path(name: str) -> Path:
    """Where the shipped network ``name`` lies."""
    return Path(str(resources.files("basra.neural") / "weights" / f"{name}.npz"))


@cache
def load_network(name: str) -> Network:
    """The shipped network ``name`` (:data:`NETWORKS`), read once."""
    if name not in NETWORKS:
        raise WeightsError(f"no shipped network {name!r}; the networks are: "
                           f"{', '.join(NETWORKS)}")
    return Network.from_file(weights_path(name))
