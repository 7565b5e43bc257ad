"""basra: the reference implementation of the card game Basra.

The rules core (``cards``, ``rules``, ``captures``, ``state``, ``match``, ``observe``,
``record``, ``position``) uses only the standard library.

>>> import basra
>>> match = basra.Match(basra.make_rules("egyptian"), seed=1)
>>> len(match.legal_moves()) > 0
True
"""

from .cards import CardSet, card_name, parse_card, parse_cards
from .match import Match, Play
from .observe import Observation, observe
from .record import dumps, loads, match_record, replay
from .rules import PRESETS, Rules, make_rules
from .state import DealState, apply, legal_moves, move_text, parse_move, play

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "CardSet",
    "DealState",
    "Match",
    "Observation",
    "Play",
    "Rules",
    "__version__",
    "apply",
    "card_name",
    "dumps",
    "legal_moves",
    "loads",
    "make_rules",
    "match_record",
    "move_text",
    "observe",
    "parse_card",
    "parse_cards",
    "parse_move",
    "play",
    "replay",
]
