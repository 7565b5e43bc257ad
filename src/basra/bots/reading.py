"""Reading the other seats' style of play from their plays of the match so far.

Once a batch of hands is played out, every card a seat held in it is known, so each of
its plays can be checked against what a known style would have played with that hand:
the expert's reasoning (rollout policy 4) or greedy play (policy 1). A seat whose plays
agree with one style nearly always, over enough plays that the style tells apart from
other moves, is taken to play it: the master's rollouts then play that seat as it plays,
and its plays of the batch in progress say what it may hold. Plays
that a style does not explain (a person's, another search player's) leave a seat
unread, and the master searches as it does against anyone.

It reads the plays every seat saw (the public record of the deal), nothing hidden. A
master kept for a whole match (``basra arena``, ``basra play``) reads every deal of it;
one made afresh for each move (the web server's worker pool) reads the finished batches
of the deal in progress only. It needs the compiled path (:mod:`basra.fast`); without
it, no seat is read.
"""

from __future__ import annotations

from basra import fast
from basra.observe import Observation

from .expert import ExpertBot
from .simple import GreedyBot

__all__ = ["LEVEL_STYLES", "MIN_AGREEMENT", "MIN_PLAYS", "STYLES", "StyleReader",
           "style_moves"]

LEVEL_STYLES = {"expert": 4, "greedy": 1}
"""The levels whose style a seat may be read as, and each one's rollout policy
(:func:`basra.fast.kernels.policy_move`): the expert's play and greedy play."""
STYLES = tuple(LEVEL_STYLES.values())
"""The styles a seat may be read as, as rollout policies."""
_LEVELS: dict[int, ExpertBot | GreedyBot] = {LEVEL_STYLES["expert"]: ExpertBot(),
                                             LEVEL_STYLES["greedy"]: GreedyBot()}
MIN_PLAYS = 8
"""The fewest plays a style tells apart from other moves before a seat is read as it:
about four batches."""
MIN_AGREEMENT = 0.95
"""The share of those plays that must be the style's (the levels' plays are all their
style's; another search player's or a person's are not)."""


def style_moves(style: int, observation: Observation) -> list[int]:
    """The moves a seat playing ``style`` (one of :data:`STYLES`) would play from
    ``observation``, its own view: the level's best valued moves, one of which it plays
    at random."""
    level = _LEVELS.get(style)
    if level is None:
        raise ValueError(f"style {style} is not one of the styles read {STYLES}")
    return level.best_moves(observation)


class StyleReader:
    """Counts, per seat and style, the plays of finished batches the style tells apart
    and how many of them it would have played."""

    def __init__(self, min_plays: int = MIN_PLAYS,
                 styles: tuple[int, ...] = STYLES) -> None:
        self.min_plays = min_plays
        """The fewest plays a style tells apart before a seat is read as it."""
        self.styles_read = styles
        """The styles (rollout policies) whose agreement with each seat's plays is
        counted and which a seat may be read as, in the order they are tried:
        :data:`STYLES` by default (the master reads no other)."""
        self._counts: dict[tuple[int, int], list[int]] = {}
        self._read: set[tuple[int, int, int]] = set()
        self._deal = 0

    def observe(self, observation: Observation) -> None:
        """Read the batches of this deal finished since the last call (once each)."""
        if not fast.available():
            return
        if observation.deal_number < self._deal:  # a new match: other players, maybe
            self._counts.clear()
            self._read.clear()
        self._deal = observation.deal_number
        from basra.fast.core import play_agreement

        for batch in range(1, observation.batch):
            key = (observation.deal_number, observation.initial_floor, batch)
            if key in self._read:
                continue
            self._read.add(key)
            for seat in observation.seats:
                if seat == observation.seat:
                    continue
                for style in self.styles_read:
                    told, agreed = play_agreement(observation, batch, seat, style)
                    counts = self._counts.setdefault((seat, style), [0, 0])
                    counts[0] += told
                    counts[1] += agreed

    def plays(self, seat: int, style: int) -> tuple[int, int]:
        """Of ``seat``'s plays read so far, how many ``style`` tells apart from other
        moves, and how many of those it would have played."""
        told, agreed = self._counts.get((seat, style), (0, 0))
        return told, agreed

    def style(self, seat: int) -> int | None:
        """The style ``seat`` plays, if its plays so far say so clearly; else None."""
        best = None
        best_share = 0.0
        for style in self.styles_read:
            told, agreed = self.plays(seat, style)
            share = agreed / told if told >= self.min_plays else 0.0
            if share >= MIN_AGREEMENT and share > best_share:
                best, best_share = style, share
        return best

    def styles(self, players: int) -> tuple[int | None, ...]:
        """:meth:`style` of every seat."""
        return tuple(self.style(seat) for seat in range(players))
