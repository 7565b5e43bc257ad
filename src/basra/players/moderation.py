"""The rules of moderation that need no storage: report reasons, moderators' actions, how
long a sanction lasts, and the texts players and moderators write.

>>> duration_seconds("30m"), duration_seconds("2h"), duration_seconds("7d")
(1800, 7200, 604800)
>>> duration_seconds("forever") is None
True
>>> clean_text("  spam\\u0007 and\\n more  ", 100, "reason")
'spam and more'
"""

from __future__ import annotations

import re

__all__ = [
    "ACTIONS",
    "LONGEST_SANCTION",
    "REASON_LENGTH",
    "REPORT_REASONS",
    "REPORT_TEXT_LENGTH",
    "SANCTIONS_OF",
    "ModerationInputError",
    "clean_text",
    "duration_seconds",
]

REPORT_REASONS = ("cheating", "abuse", "bad_name", "other")
"""Why a player reports another: cheating or rating manipulation, abuse in chat, a bad
name, something else (said in the report's text)."""

REPORT_TEXT_LENGTH = 500
"""Longest text of a report, in characters."""

REASON_LENGTH = 500
"""Longest reason a moderator gives for an action, in characters."""

LONGEST_SANCTION = 10 * 365 * 86400
"""Longest timed sanction, in seconds (longer ones are for good)."""

ACTIONS = ("mute", "ban", "lift_mute", "lift_ban", "reset_rating", "rename", "close",
           "dismiss_report", "settle_report", "dismiss_flag", "settle_flag",
           "accept_puzzle", "reject_puzzle")
"""What a moderator can do: to an account (mute, ban from rated play, lift either, reset a
rating pool, rename, close), to a report or a flag (dismiss, or mark as acted on), to a
mined puzzle waiting for a moderator (accept into the public set, reject)."""

SANCTIONS_OF = {"mute": "mute", "ban": "rated_ban", "close": "closed",
                "lift_mute": "mute", "lift_ban": "rated_ban"}
"""The sanction (``basra_sanctions.kind``) each action gives or lifts."""

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"(\d{1,9})\s*([smhdw])")


class ModerationInputError(ValueError):
    """A duration, reason or text that moderation does not take; the message says why."""


def duration_seconds(text: str) -> int | None:
    """How long a sanction lasts: ``30m``, ``12h``, ``7d``, ``2w`` (seconds), or None for
    ``forever``. Raises :class:`ModerationInputError` for anything else."""
    value = text.strip().lower()
    if value in ("forever", "permanent", "for good"):
        return None
    found = _DURATION.fullmatch(value)
    if found is None:
        raise ModerationInputError(f"bad duration {text!r}; expected a number and a unit "
                                   "(30m, 12h, 7d, 2w) or forever")
    seconds = int(found[1]) * _UNITS[found[2]]
    if not 0 < seconds <= LONGEST_SANCTION:
        raise ModerationInputError(f"bad duration {text!r}; from 1 s to 10 years, or "
                                   "forever")
    return seconds


def clean_text(text: object, most: int, what: str, required: bool = True) -> str:
    """A text a person wrote, printable and on one line, at most ``most`` characters.
    Raises :class:`ModerationInputError` naming ``what`` when it is not text, too long,
    or empty while ``required``."""
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise ModerationInputError(f"{what} must be text, not {text!r:.40}")
    cleaned = " ".join("".join(ch for ch in text if ch.isprintable() or ch.isspace()).split())
    if len(cleaned) > most:
        raise ModerationInputError(f"{what} has {len(cleaned)} characters; at most {most}")
    if required and not cleaned:
        raise ModerationInputError(f"give a {what}")
    return cleaned
