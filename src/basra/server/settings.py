"""How a server's tables are run: the ``basra serve`` options in one object."""

from __future__ import annotations

from dataclasses import dataclass

from basra.players.conduct import PlaybanRule

__all__ = ["CHAT_KEPT", "CHAT_LIMIT", "HubSettings"]

CHAT_LIMIT = (5, 10.0)
"""Chat messages a connection may send, per so many seconds."""
CHAT_KEPT = 50
"""The latest chat lines a table keeps in memory, for the reports made at it."""


@dataclass
class HubSettings:
    """How a server's tables are run (``basra serve`` options)."""

    bot_delay: float = 0.8
    """Seconds a computer player waits before it plays, so people can follow."""
    away_after: float = 30.0
    """Seconds a seat may have no connection before the computer plays for it."""
    master_ms: int = 300
    """Thinking time of the master per move."""
    master_workers: int | None = None
    """Worker processes of the master (every core but one by default)."""
    warm_master: bool = False
    """Compile the master's search at start-up, in the background (``basra serve``);
    the expert plays the master's moves until it is ready. Off: the first master move
    compiles it (tests, which rarely need it)."""
    unopened_after: float = 120.0
    """A table nobody connected to within this many seconds expires."""
    idle_after: float = 300.0
    """A table with no connection for this many seconds leaves memory."""
    finished_after: float = 60.0
    """A table whose match is over, with no connection for this many seconds, leaves
    memory (its records stay in the database; it is loaded again if someone comes)."""
    sweep_every: float = 5.0
    """Seconds between two looks for tables to expire or put away."""
    max_tables: int = 10_000
    """Most tables in memory; beyond it new tables are refused (503)."""
    seat_connections: int = 4
    """Most sockets per seat; one more closes the oldest."""
    address_connections: int = 64
    """Most sockets per client address."""
    puzzle_floor: int = 1600  # basra.store.analysis.PUZZLE_RATING_FLOOR
    """Puzzles mined from a match join the public set at once only when it was rated and
    every human player was rated at least this much; others wait for a moderator."""
    same_pair_limit: int = 3
    """Most rated results between the same two accounts in one pool within
    ``conduct_window`` seconds; a match past it is unrated and flagged for moderators
    (0: no limit)."""
    conduct_window: float = 24 * 3600.0
    """Seconds over which abandons (playban) and same-pair results are counted."""
    playban_base: float = 300.0
    """The wait before the next rated seek that a second abandon within
    ``conduct_window`` earns; doubled for each further one (0: no playbans)."""
    playban_cap: float = 24 * 3600.0
    """The longest playban wait, in seconds."""
    abandon_flag_at: int = 3
    """Abandons within ``conduct_window`` at which an account is flagged for moderators
    (0: never)."""

    def playban(self) -> PlaybanRule:
        """The playban rule these settings give (:mod:`basra.players.conduct`)."""
        return PlaybanRule(window=self.conduct_window, base=self.playban_base,
                           cap=self.playban_cap)
