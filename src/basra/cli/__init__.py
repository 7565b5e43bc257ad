"""The ``basra`` command: play, simulate, arena, tournament, replay, analyze, puzzles,
capture, variants, bench, serve, admin, export, backup, restore, bot, train.

``common`` holds what the commands share (the group, user errors, the rules options);
each other module holds one command, which registers itself on the group when imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

# Each command module registers its command on ``cli`` when imported.
from basra.cli import (  # noqa: F401
    admin,
    analyze,
    arena,
    backup,
    bench,
    bot,
    capture,
    export,
    play,
    puzzles,
    replay,
    serve,
    simulate,
    tournament,
    train,
    variants,
)
from basra.cli.common import cli

__all__ = ["cli", "main"]


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Entry point of the ``basra`` console script."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="basra")
    raise SystemExit(0)
