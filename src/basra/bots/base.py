"""What every computer player is: the :class:`Bot` protocol, the built-in levels' names and
the error for a name that is none of them."""

from __future__ import annotations

from typing import Protocol

from basra.observe import Observation

BOT_LEVELS = ("random", "greedy", "neural", "expert", "master")
"""The built-in levels, weakest first."""


class UnknownBotError(ValueError):
    """A bot name that is not known."""


class Bot(Protocol):
    """A computer player."""

    name: str

    def choose(self, observation: Observation) -> int:
        """One of ``observation.legal_moves``."""
        ...
