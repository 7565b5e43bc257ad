"""What a tournament plays, and when the server's schedule holds one.

A :class:`TournamentSpec` is checked here once, whoever asks for the tournament: an
account (``POST /api/tournaments``, :func:`parse_spec`) or the operator's schedule
(``basra serve --tournaments FILE``, :func:`load_schedule`). A bad value raises
:class:`SpecError` naming the field.

The schedule is a TOML file of ``[[tournament]]`` tables, each a spec plus when it
recurs::

    [[tournament]]
    name = "Hourly Egyptian arena"
    kind = "arena"
    variant = "egyptian"
    minutes = 30
    every = 60          # minutes between two starts
    offset = 0          # minutes past each multiple of `every` (from 00:00 UTC)
    announce = 30       # minutes before its start it is listed and open to join
    computers = ["expert"]

    [[tournament]]
    name = "Daily Pasur Swiss"
    kind = "swiss"
    variant = "pasur"
    rounds = 5
    every = 1440
    offset = 1200       # at 20:00 UTC

Nothing here does I/O but :func:`load_schedule`'s read of the file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from basra.bots.base import BOT_LEVELS
from basra.rules import RulesError, make_rules, preset

__all__ = [
    "KINDS",
    "MAX_COMPUTERS",
    "MAX_MINUTES",
    "MAX_ROUNDS",
    "MAX_STARTS_IN",
    "MIN_MINUTES",
    "ScheduleError",
    "ScheduledTournament",
    "SpecError",
    "TournamentSpec",
    "load_schedule",
    "parse_spec",
]

KINDS = ("arena", "swiss")
MIN_MINUTES, MAX_MINUTES = 5, 720
"""An arena's length, in minutes."""
MAX_ROUNDS = 20
"""A Swiss event's most rounds."""
MAX_STARTS_IN = 7 * 24 * 3600
"""The latest start, in seconds from now: a week."""
MAX_COMPUTERS = 16
"""Computer entrants one tournament may have."""
DEFAULT_TURN_SECONDS = 30
MAX_NAME = 80


class SpecError(ValueError):
    """A tournament's field with a bad value: ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class ScheduleError(ValueError):
    """A schedule file that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class TournamentSpec:
    """What a tournament plays."""

    kind: str
    variant: str
    players: int
    rated: bool
    turn_seconds: int
    minutes: int | None
    """An arena's length (None for a Swiss event)."""
    rounds: int | None
    """A Swiss event's rounds (None for an arena)."""
    computers: tuple[str, ...]
    """The levels of the computer entrants, one entrant each (a team of two computers in
    a partnership preset)."""
    allow_bots: bool
    name: str
    starts_in: int
    """Seconds from its creation to its start."""

    @property
    def sides(self) -> int:
        """Entrants per game: the sides of the preset's game (a team is one entrant)."""
        return make_rules(self.variant, self.players).sides

    @property
    def teams(self) -> bool:
        """Whether its entrants are teams of two (a partnership preset)."""
        return self.sides != self.players


def _whole(body: Mapping[str, Any], field: str, low: int, high: int,
           default: int | None = None) -> int:
    value = body.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SpecError(field, f"{field} must be a whole number from {low} to {high}, "
                               f"not {value!r}")
    return value


def _flag(body: Mapping[str, Any], field: str, default: bool) -> bool:
    value = body.get(field, default)
    if not isinstance(value, bool):
        raise SpecError(field, f"{field} must be true or false, not {value!r}")
    return value


_OWN_SPELLING = {"pisti": "Pişti"}
"""Presets whose name in a tournament's default name is written in the game's own
letters."""


def parse_spec(body: Mapping[str, Any]) -> TournamentSpec:
    """A tournament's spec from a request (or a schedule entry); raises
    :class:`SpecError` naming the first bad field.

    >>> parse_spec({"kind": "swiss", "variant": "pasur", "rounds": 3}).name
    'Pasur Swiss'
    >>> parse_spec({"kind": "arena", "minutes": 3})
    Traceback (most recent call last):
    ...
    basra.players.events.SpecError: minutes must be a whole number from 5 to 720, not 3
    """
    kind = body.get("kind")
    if kind not in KINDS:
        raise SpecError("kind", f"kind must be arena or swiss, not {kind!r}")
    variant = body.get("variant", "egyptian")
    try:
        if not isinstance(variant, str):
            raise RulesError(f"variant must be a preset's name, not {variant!r}")
        found = preset(variant)
    except RulesError as error:
        raise SpecError("variant", str(error)) from None
    players = body.get("players", found.players[0])
    if isinstance(players, bool) or players not in found.players:
        raise SpecError("players", f"{found.name} is played by "
                                   f"{' or '.join(map(str, found.players))} players, "
                                   f"not {players!r}")
    rated = _flag(body, "rated", False)
    minutes = _whole(body, "minutes", MIN_MINUTES, MAX_MINUTES) if kind == "arena" else None
    rounds = _whole(body, "rounds", 1, MAX_ROUNDS) if kind == "swiss" else None
    turn_seconds = _whole(body, "turn_seconds", 5, 600, DEFAULT_TURN_SECONDS)
    starts_in = _whole(body, "starts_in", 0, MAX_STARTS_IN, 60)
    computers = body.get("computers", [])
    if (not isinstance(computers, list) or len(computers) > MAX_COMPUTERS
            or any(level not in BOT_LEVELS for level in computers)):
        raise SpecError("computers", f"computers must be a list of at most {MAX_COMPUTERS} "
                                     f"levels ({', '.join(BOT_LEVELS)}), not {computers!r}")
    allow_bots = _flag(body, "allow_bots", False)
    shown = _OWN_SPELLING.get(found.name) or found.name.replace("-", " ").capitalize()
    default_name = f"{shown} {kind.capitalize()}"
    name = body.get("name") or default_name
    if not isinstance(name, str) or len(name.strip()) > MAX_NAME or not name.isprintable():
        raise SpecError("name", f"name must be text of at most {MAX_NAME} characters, "
                                f"not {name!r}")
    return TournamentSpec(kind, found.name, players, rated, turn_seconds, minutes, rounds,
                          tuple(computers), allow_bots, name.strip(), starts_in)


@dataclass(frozen=True)
class ScheduledTournament:
    """One line of the operator's schedule: a spec that recurs every ``every`` minutes,
    at ``offset`` minutes past each multiple of it, listed ``announce`` minutes before."""

    spec: TournamentSpec
    every: int
    offset: int
    announce: int

    def next_start(self, now_ms: int) -> int:
        """The start (Unix ms) of the next occurrence not yet begun.

        >>> spec = parse_spec({"kind": "arena", "minutes": 30})
        >>> ScheduledTournament(spec, 60, 15, 30).next_start(3_600_000)  # 01:00 UTC
        4500000
        """
        period, shift = self.every * 60_000, self.offset * 60_000
        passed = (now_ms - shift) // period
        start = shift + passed * period
        return start if start >= now_ms else start + period

    def key(self, start_ms: int) -> str:
        """The key that makes each occurrence once, however many servers read it."""
        return f"{self.spec.name[:120]}@{start_ms}"


def load_schedule(path: str | Path) -> tuple[ScheduledTournament, ...]:
    """The schedule in a TOML file; raises :class:`ScheduleError` for a file that
    cannot be read or an entry with a bad value (naming the entry and the field)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ScheduleError(f"{path}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ScheduleError(f"{path}: not TOML: {error}") from None
    entries = data.get("tournament", [])
    if not isinstance(entries, list):
        raise ScheduleError(f"{path}: [[tournament]] entries expected")
    schedule = []
    for number, entry in enumerate(entries, start=1):
        where = f"{path}: tournament {number}"
        try:
            spec = parse_spec({**entry, "starts_in": 0})
            every = _whole(entry, "every", 5, 7 * 24 * 60)
            offset = _whole(entry, "offset", 0, every - 1, 0)
            announce = _whole(entry, "announce", 0, every, min(every, 60))
        except SpecError as error:
            raise ScheduleError(f"{where}: {error}") from None
        schedule.append(ScheduledTournament(spec, every, offset, announce))
    names = [item.spec.name for item in schedule]
    for name in names:
        if names.count(name) > 1:
            raise ScheduleError(f"{path}: two tournaments are named {name!r}: each "
                                "needs its own name")
    return tuple(schedule)
