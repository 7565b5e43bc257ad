"""What every computer player is: the :class:`Bot` protocol, the built-in levels' names and
the error for a name that is none of them."""

from __future__ import annotations

from typing import Protocol

from basra.observe import Observation
from basra.rules import PILE_FAMILIES

BOT_LEVELS = ("random", "greedy", "expert", "master")
"""The built-in levels, weakest first."""


class UnknownBotError(ValueError):
    """A bot name that is not known."""


class UnsupportedGameError(ValueError):
    """A game that a bot level does not play yet (the pile family: random, greedy and
    expert play it, the master not yet)."""


def refuse_pile_games(observation: Observation, level: str) -> None:
    """Raise :class:`UnsupportedGameError` when ``observation`` is of a pile game."""
    family = observation.rules.family
    if family in PILE_FAMILIES:
        raise UnsupportedGameError(
            f"the {level} bot does not play the pile game {family} yet: use random, greedy "
            "or expert")


class Bot(Protocol):
    """A computer player."""

    name: str

    def choose(self, observation: Observation) -> int:
        """One of ``observation.legal_moves``."""
        ...
