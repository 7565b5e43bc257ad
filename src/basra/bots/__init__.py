"""Computer players. A bot sees only an :class:`~basra.observe.Observation` and returns
one of its legal moves; it can never see other hands or the order of the stock.

Levels, weakest first: ``random``, ``greedy``, ``expert``, ``neural``, ``master``. Any program can
play too, through the bot protocol: ``cmd:COMMAND`` (see ``docs/protocol.md``).

>>> from basra.match import Match
>>> from basra.observe import observe
>>> from basra.rules import make_rules
>>> match = Match(make_rules("egyptian"), seed=2)
>>> bot = make_bot("greedy")
>>> seat = match.state.to_play
>>> bot.choose(observe(match, seat)) in match.legal_moves()
True
"""

from __future__ import annotations

from .base import BOT_LEVELS, Bot, UnknownBotError
from .levels import bot_label, close_bot, make_bot
from .simple import GreedyBot, RandomBot

__all__ = [
    "BOT_LEVELS",
    "Bot",
    "GreedyBot",
    "RandomBot",
    "UnknownBotError",
    "bot_label",
    "close_bot",
    "make_bot",
]
