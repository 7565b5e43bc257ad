"""Bots by name: the built-in levels and ``cmd:COMMAND`` for a program that speaks the bot
protocol."""

from __future__ import annotations

from .base import BOT_LEVELS, Bot, UnknownBotError
from .simple import GreedyBot, RandomBot


def make_bot(spec: str, seed: int | None = None, *, think_ms: int = 300,
             workers: int | None = None, samples: int | None = None) -> Bot:
    """A bot by name: a level (``random``, ``greedy``, ``expert``, ``neural``, ``master``)
    or ``cmd:COMMAND``, an external program speaking the bot protocol.

    ``think_ms`` is the master's time budget per move; ``workers`` how many processes it
    searches with (both cores by default); ``samples`` a fixed number of samples per
    worker instead of the time budget, for reproducible play.
    """
    text = spec.strip()
    if text.lower().startswith("cmd:"):
        from .protocol import ExternalBot

        command = text[4:].strip()
        if not command:
            raise UnknownBotError("cmd: needs a command, e.g. cmd:\"python my_bot.py\"")
        return ExternalBot(command, seed=seed)
    name = text.lower()
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed)
    if name == "expert":
        from .expert import ExpertBot

        return ExpertBot(seed)
    if name == "neural":
        from .neural import NeuralBot

        return NeuralBot(seed)
    if name == "master":
        from .master import MasterBot

        return MasterBot(seed, think_ms=think_ms, workers=workers, samples=samples)
    raise UnknownBotError(
        f"unknown bot {spec!r}; the bots are: {', '.join(BOT_LEVELS)}, or cmd:COMMAND"
    )


def bot_label(spec: str) -> str:
    """A short name for a bot spec, as records and tables show it."""
    text = spec.strip()
    return text if text.lower().startswith("cmd:") else text.lower()


def close_bot(bot: Bot) -> None:
    """Release what a bot holds (a subprocess, worker processes), if anything."""
    close = getattr(bot, "close", None)
    if callable(close):
        close()
