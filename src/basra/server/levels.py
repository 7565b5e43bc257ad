"""Which computer levels play which rule family.

A level that does not play a family yet refuses its observations with
:class:`basra.bots.base.UnsupportedGameError` (the pile family, at first, is played by the
simple levels only). The web offers each family the levels that play it, found by asking
each level for one move of a fresh deal, so a level that learns a family is offered as
soon as it plays it.

>>> family_levels("basra")
('random', 'greedy', 'expert', 'master')
>>> {"random", "greedy"} <= set(family_levels("pisti"))
True
"""

from __future__ import annotations

import dataclasses
import functools

from basra.bots import BOT_LEVELS, close_bot, make_bot
from basra.bots.base import UnsupportedGameError
from basra.match import Match
from basra.observe import observe
from basra.rules import FAMILIES, PILE_FAMILIES, PRESETS

__all__ = ["default_level", "family_levels"]


@functools.cache
def family_levels(family: str) -> tuple[str, ...]:
    """The levels, weakest first, that play ``family`` (all of them for Basra and Pasur,
    which every level was built for)."""
    if family not in FAMILIES:
        raise ValueError(f"{family!r} is not a rule family; expected one of "
                         f"{', '.join(FAMILIES)}")
    if family not in PILE_FAMILIES:
        return BOT_LEVELS
    found = next(p for p in PRESETS.values() if p.rules.family == family)
    match = Match(found.rules_for(), seed=1, variant=found.name)
    seat = match.state.to_play
    view = observe(match, seat)
    move = view.legal_moves[0]
    # One legal move: a level that plays the family answers it at once.
    only = dataclasses.replace(view, hand=1 << (move & 63), legal_moves=(move,))
    levels = []
    for level in BOT_LEVELS:
        bot = make_bot(level, seed=1, workers=1, think_ms=10)
        try:
            bot.choose(only)
        except UnsupportedGameError:
            continue
        finally:
            close_bot(bot)
        levels.append(level)
    return tuple(levels)


def default_level(family: str) -> str:
    """The level a new table seats by default: the expert, or the strongest quick level
    that plays ``family`` (never the master, who thinks in worker processes)."""
    playing = [level for level in family_levels(family) if level != "master"]
    return "expert" if "expert" in playing else playing[-1]
