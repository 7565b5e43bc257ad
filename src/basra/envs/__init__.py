"""Basra, Pasur and the pile games (Pişti, Xeri) for reinforcement-learning and
game-theory libraries.

- :func:`pettingzoo_env`: a PettingZoo AEC environment (``basra[envs]``);
- ``gymnasium.make("basra/Basra-v0", variant=..., opponent=...)``: one seat against the
  project's bots, registered when this package is imported (``basra[envs]``);
- ``import basra.envs.openspiel``: the game ``basra`` for ``pyspiel.load_game``
  (``basra[openspiel]``).

All three share one action space and one observation tensor (:mod:`basra.envs.game`,
docs/envs.md); the pile games have a space of 52 actions and a tensor of their own. The
rules core never imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

try:
    import numpy  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on what is installed
    raise ImportError("basra.envs needs numpy: pip install 'basra[envs]' (PettingZoo, "
                      "Gymnasium) or 'basra[openspiel]'") from error

if TYPE_CHECKING:
    from .aec import BasraAECEnv

__all__ = ["GYM_ID", "pettingzoo_env"]

GYM_ID = "basra/Basra-v0"
"""The Gymnasium id of :class:`basra.envs.single_agent.BasraEnv`."""


def pettingzoo_env(variant: str = "egyptian", players: int | None = None,
                   **options: Any) -> BasraAECEnv:
    """The PettingZoo AEC environment of a preset and player count; ``options`` as
    :class:`basra.envs.aec.BasraAECEnv` takes them (``rules``, ``reward``, ...)."""
    try:
        from .aec import BasraAECEnv
    except ImportError as error:
        raise ImportError("pettingzoo_env needs PettingZoo: pip install 'basra[envs]'"
                          ) from error
    return BasraAECEnv(variant, players, **options)


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:  # basra[openspiel] alone: no Gymnasium to register with
        return
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="basra.envs.single_agent:BasraEnv")


_register_gymnasium()
