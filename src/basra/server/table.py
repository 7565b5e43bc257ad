"""One table of the web app: its configuration, seats, match and the intents it accepts.

Everything here is synchronous and does no I/O: the hub (``hub.py``) drives tables, sends
views and stores what changes. A table's state is its configuration, the seed of its
current match and the moves played, so replaying the moves rebuilds it exactly.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from basra.bots import BOT_LEVELS
from basra.cards import CARD_NAMES, card_names, parse_card
from basra.match import Match, Play
from basra.players.marks import cap_marks
from basra.players.names import computer_label, computer_name, guest_name
from basra.players.ratings import pool_key
from basra.record import Player, match_record
from basra.rules import PILE_FAMILIES, PRESETS, Rules, RulesError, make_rules, preset

from .errors import ConfigError, IntentError, JoinError, LeaveError

__all__ = [
    "MAX_NAME",
    "ConfigError",
    "IntentError",
    "JoinError",
    "SeatConfig",
    "Table",
    "TableConfig",
    "new_code",
    "new_seed",
    "token_hash",
]

MAX_NAME = 24
_CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"


def new_code() -> str:
    """A fresh table code: 8 characters that read unambiguously."""
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))


def new_seed() -> int:
    """A fresh secret deal seed (it never leaves the server while the match runs)."""
    return secrets.randbits(62)


def token_hash(token: str) -> str:
    """Tokens are stored and compared by their SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(name: object, fallback: str) -> str:
    """A display name: printable, trimmed, a few combining marks per letter at most
    (:func:`~basra.players.marks.cap_marks`), at most ``MAX_NAME`` characters."""
    if name is None:
        return fallback
    if not isinstance(name, str):
        raise ConfigError(f"name must be text, not {name!r}")
    text = cap_marks(" ".join("".join(ch for ch in name if ch.isprintable()).split()))
    return text[:MAX_NAME] or fallback


@dataclass(frozen=True)
class SeatConfig:
    """A seat as configured: a human player or a computer of some level."""

    kind: str
    level: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "level": self.level}


def _level(value: object, what: str) -> str:
    if not isinstance(value, str) or value.strip().lower() not in BOT_LEVELS:
        raise ConfigError(f"{what} {value!r} is not a level; expected one of "
                          f"{', '.join(BOT_LEVELS)}")
    return value.strip().lower()


@dataclass(frozen=True)
class TableConfig:
    """What a table plays: variant, rules, seats and the turn timer."""

    variant: str = "egyptian"
    players: int = 2
    overrides: dict[str, Any] = field(default_factory=dict)
    seats: tuple[SeatConfig, ...] = (SeatConfig("human"), SeatConfig("bot", "expert"))
    turn_seconds: int = 0
    takeover_level: str = "expert"
    rated: bool = False
    """The match's result moves the ratings of its players' accounts (tables made by
    pairing rated seeks; the preset's own rules)."""
    public: bool = False
    """The Watch page lists the table while its match is played (tables made by pairing
    seeks; see :mod:`basra.server.watching`)."""
    tournament: str | None = None
    """The tournament whose game this is (one match: no rematch; see
    :mod:`basra.server.directing`)."""
    open_stores: bool = False
    """Pile games: each side may look through its own captured cards (spec 11.8: closed
    by default, since pile games reward memory). Basra's stores are always open."""

    def rules(self) -> Rules:
        return make_rules(self.variant, self.players, self.overrides)

    @property
    def pool(self) -> str:
        """The rating pool of the table's variant and player count (``egyptian-2``)."""
        return pool_key(self.variant, self.players)

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant, "players": self.players, "rules": dict(self.overrides),
            "seats": [seat.to_dict() for seat in self.seats],
            "turn_seconds": self.turn_seconds, "takeover_level": self.takeover_level,
            "rated": self.rated, "pool": self.pool, "public": self.public,
            "tournament": self.tournament, "open_stores": self.open_stores,
        }

    @classmethod
    def parse(cls, body: dict[str, Any]) -> TableConfig:
        """A configuration from a New table request; raises :class:`ConfigError`."""
        variant = body.get("variant", "egyptian")
        if not isinstance(variant, str):
            raise ConfigError(f"variant must be text, not {variant!r}")
        try:
            found = preset(variant)
        except RulesError as error:
            raise ConfigError(str(error)) from None
        players = body.get("players", found.players[0])
        if isinstance(players, bool) or not isinstance(players, int):
            raise ConfigError(f"players must be a number, not {players!r}")
        overrides = body.get("rules") or {}
        if not isinstance(overrides, dict):
            raise ConfigError(f"rules must be an object of house rules, not {overrides!r}")
        try:
            rules = make_rules(found.name, players, overrides)
        except RulesError as error:
            raise ConfigError(str(error)) from None
        seats = _parse_seats(body.get("seats"), rules.players)
        turn_seconds = body.get("turn_seconds") or 0
        if (isinstance(turn_seconds, bool) or not isinstance(turn_seconds, int)
                or not (turn_seconds == 0 or 5 <= turn_seconds <= 600)):
            raise ConfigError(
                f"turn_seconds {turn_seconds!r} is not 0 (no timer) or 5 to 600 seconds")
        takeover = _level(body.get("takeover_level", "expert"), "takeover_level")
        open_stores = body.get("open_stores", False)
        if not isinstance(open_stores, bool):
            raise ConfigError(f"open_stores must be true or false, not {open_stores!r}")
        if open_stores and rules.family not in PILE_FAMILIES:
            raise ConfigError(f"open_stores is for pile games; {found.name}'s captured "
                              "cards are always open to their own side")
        return cls(found.name, rules.players, dict(overrides), seats, turn_seconds, takeover,
                   open_stores=open_stores)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableConfig:
        """A stored configuration (as :meth:`to_dict` wrote it)."""
        return cls(
            data["variant"], data["players"], dict(data["rules"]),
            tuple(SeatConfig(s["kind"], s.get("level")) for s in data["seats"]),
            data["turn_seconds"], data["takeover_level"], bool(data.get("rated", False)),
            bool(data.get("public", False)), data.get("tournament"),
            bool(data.get("open_stores", False)),
        )


def _parse_seats(value: object, players: int) -> tuple[SeatConfig, ...]:
    if value is None:
        return (SeatConfig("human"),) + (SeatConfig("bot", "expert"),) * (players - 1)
    if not isinstance(value, list) or len(value) != players:
        raise ConfigError(f"seats must list {players} seats, one per player, not {value!r}")
    seats = []
    for index, seat in enumerate(value):
        if not isinstance(seat, dict) or seat.get("kind") not in ("human", "bot"):
            raise ConfigError(
                f"seat {index + 1} is {seat!r}; expected {{\"kind\": \"human\"}} or "
                "{\"kind\": \"bot\", \"level\": \"expert\"}")
        if seat["kind"] == "human":
            seats.append(SeatConfig("human"))
        else:
            seats.append(SeatConfig("bot", _level(seat.get("level", "expert"),
                                                  f"seat {index + 1} level")))
    return tuple(seats)


class Table:
    """A table: seats, the current match and its moves."""

    def __init__(self, code: str, config: TableConfig, seed: int, match_number: int = 1
                 ) -> None:
        self.code = code
        self.config = config
        self.rules = config.rules()
        self.seed = seed
        self.match_number = match_number
        self.names: list[str | None] = [
            None if seat.kind == "human" else computer_name(index)
            for index, seat in enumerate(config.seats)
        ]
        self.token_hashes: dict[int, str] = {}
        self.accounts: list[tuple[int, str] | None] = [None] * self.rules.players
        """The account (id, name) of each seat taken by a logged-in player."""
        self.bots: set[int] = set()
        """The seats held by bot accounts (kept by the hub; marked BOT in every view)."""
        self.ratings: list[int | None] = [None] * self.rules.players
        """Each account's display rating in the table's pool (kept by the hub)."""
        self.rating_changes: list[dict[str, int]] | None = None
        """How the current match moved its accounts' ratings, once it is rated."""
        self.chat_consent: set[int] = set()
        """Seats whose players agree to free-text chat."""
        self.away: set[int] = set()
        """Human seats the computer plays for (timeout or long disconnection)."""
        self.connections: list[int] = [0] * self.rules.players
        """Open connections per seat (kept by the hub)."""
        self.deadline_ms: int | None = None
        """When the seat to play runs out of time (kept by the hub)."""
        self.paused: str | None = None
        """Why the table takes no plays now (``"storage"``), or None (kept by the hub)."""
        self.opened = False
        """Whether anyone has connected to the table yet (kept by the hub)."""
        self.match: Match | None = None
        self.moves: list[int] = []
        self.record_ids: list[int] = []
        """The stored records of this table's finished matches."""
        self.last_record_id: int | None = None
        self.load_seconds: tuple[float, float, float] | None = None
        """How long loading it from the database took (claim, read, rebuild), if it was."""
        self.played: set[int] = set()
        """Human seats that made a play of their own in the current match."""
        self.forfeits: list[int] = []
        """Seats that forfeited the current rated match, the first to go first."""
        self.aborted_by: int | None = None
        """The seat whose absence before its first play aborted the rated match."""
        self.unrated: str | None = None
        """Why the current match of a rated table counts for nobody: ``aborted`` or
        ``same_pair`` (see :mod:`basra.players.conduct`); None while it counts."""
        self.rematch_asks: set[int] = set()
        """Human seats that asked for a rematch of a finished rated match."""
        self.resigned: list[int] = []
        """Human seats that resigned the current match, the first to go first: the
        computer plays each on (see :meth:`resign`)."""
        self.aborted: int | None = None
        """The human seat that aborted the current match before its first play (it
        ended there for everyone, see :meth:`abort`), or None."""

    # -- seats -------------------------------------------------------------------------

    @property
    def plays_unattended(self) -> bool:
        """Whether the match plays on with nobody connected (a tournament's game: its
        turn timer runs and its computers play, so that an absent player's game ends)."""
        return self.config.tournament is not None

    @property
    def status(self) -> str:
        if self.match is None:
            return "waiting"
        return "finished" if self.match.is_over or self.aborted is not None else "playing"

    @property
    def seq(self) -> int:
        """Plays of the current match: every intent quotes it."""
        return len(self.moves)

    def free_seats(self) -> list[int]:
        return [seat for seat, name in enumerate(self.names) if name is None]

    def is_human(self, seat: int) -> bool:
        return self.config.seats[seat].kind == "human"

    def join(self, name: object, seat: object = None,
             account: tuple[int, str] | None = None) -> tuple[int, str]:
        """Take a human seat (the first free one by default): (seat, token). A
        logged-in player's ``account`` (id, name) holds the seat."""
        free = self.free_seats()
        if seat is None:
            if not free:
                raise JoinError(f"table {self.code} has no free seat", "no_free_seat")
            chosen = free[0]
        else:
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise JoinError(f"seat must be a number, not {seat!r}", "bad_seat")
            if not 0 <= seat < self.rules.players:
                raise JoinError(f"seat {seat} is not a seat of this table: expected 0 to "
                                f"{self.rules.players - 1}", "bad_seat")
            if not self.is_human(seat):
                raise JoinError(f"seat {seat} is played by the computer", "computer_seat")
            if seat not in free:
                raise JoinError(f"seat {seat} is taken")
            chosen = seat
        try:
            display = clean_name(name, guest_name(chosen))
        except ConfigError as error:
            raise JoinError(str(error), "bad_name") from None
        token = secrets.token_urlsafe(18)
        self.take_seat(chosen, display, token_hash(token), account)
        return chosen, token

    def take_seat(self, seat: int, name: str, hashed: str,
                  account: tuple[int, str] | None = None) -> None:
        self.names[seat] = name
        self.token_hashes[seat] = hashed
        self.accounts[seat] = account

    def leave_seat(self, seat: int) -> None:
        """Free a seat taken by :meth:`join` (its write to the database failed)."""
        self.names[seat] = None
        self.token_hashes.pop(seat, None)
        self.accounts[seat] = None

    def human_seats(self) -> list[int]:
        return [seat for seat in range(self.rules.players) if self.is_human(seat)]

    @property
    def free_text(self) -> bool:
        """Free-text chat is on: every human seat's player has agreed to it."""
        humans = self.human_seats()
        return bool(humans) and all(seat in self.chat_consent for seat in humans)

    def seat_of_token(self, token: str) -> int | None:
        hashed = token_hash(token)
        for seat, stored in self.token_hashes.items():
            if secrets.compare_digest(stored, hashed):
                return seat
        return None

    def ready(self) -> bool:
        """Every human seat is taken and no match has started yet."""
        return self.match is None and not self.free_seats()

    def start(self) -> None:
        """Deal the first deal of the current match."""
        self.match = Match(self.rules, seed=self.seed, variant=self.config.variant)
        self.match.resigned = list(dict.fromkeys(self.rules.side_of[s] for s in self.resigned))

    def restore(self, moves: list[int], movers: list[int | None] | None = None) -> None:
        """Rebuild the current match from its stored moves (and who made each: the
        human seat that played it itself, or None)."""
        if self.ready():
            self.start()
        movers = movers or []
        for index, move in enumerate(moves):
            self.apply(move, movers[index] if index < len(movers) else None)
        self._end_if_resigned()

    # -- play --------------------------------------------------------------------------

    def to_play(self) -> int | None:
        """The seat to play, or None when the match is not running."""
        if self.match is None or self.status != "playing":
            return None
        return self.match.state.to_play

    def computer_plays(self, seat: int) -> bool:
        """Whether the computer chooses this seat's moves now."""
        return not self.is_human(seat) or seat in self.away

    def level_for(self, seat: int) -> str:
        """The level that plays ``seat`` for the computer: its own, else the table's
        takeover level."""
        level = self.config.seats[seat].level
        return level if level is not None else self.config.takeover_level

    def resolve_play(self, seat: int, seq: int, card_text: str,
                     captured: list[str] | None) -> int:
        """The move an intent asks for; raises :class:`IntentError` and changes nothing."""
        match = self.match
        if match is None:
            raise IntentError("waiting", "the match has not started: seats are still free")
        if self.status == "finished":
            raise IntentError("match_over", "the match is over")
        if seat in self.resigned:
            raise LeaveError("resigned", "you resigned this match: the computer plays your "
                             "seat to its end")
        if seq != self.seq:
            raise IntentError("stale", f"seq {seq} is not the current one ({self.seq})")
        to_play = match.state.to_play
        if seat != to_play:
            raise IntentError("not_your_turn",
                              f"it is seat {to_play}'s turn, not seat {seat}'s")
        try:
            card = parse_card(card_text)
            mask = 0
            for name in captured or ():
                mask |= 1 << parse_card(name)
        except ValueError as error:
            raise IntentError("bad_message", str(error)) from None
        if not match.state.hands[seat] >> card & 1:
            raise IntentError("illegal", f"{CARD_NAMES[card]} is not in your hand")
        options = [move for move in match.legal_moves() if move & 63 == card]
        if self.rules.family in PILE_FAMILIES and len(options) == 1:
            return options[0]  # a move is a card: what it takes follows (spec 9.4.1)
        if captured is None:
            if len(options) == 1:
                return options[0]
            if not options:
                raise IntentError("illegal", f"{CARD_NAMES[card]} cannot be played now")
            choices = "; ".join(" ".join(card_names(m >> 6)) or "nothing" for m in options)
            raise IntentError("ambiguous",
                              f"{CARD_NAMES[card]} can take several sets ({choices}): "
                              "say which in captured")
        for move in options:
            if move >> 6 == mask:
                return move
        taken = " ".join(captured) or "nothing"
        raise IntentError("illegal",
                          f"{CARD_NAMES[card]} cannot take {taken}: not a legal capture")

    def apply(self, move: int, by_seat: int | None = None) -> Play:
        """Play a (legal) move for the seat to play; ``by_seat`` is the human seat that
        made it itself (None: the computer chose it)."""
        if self.match is None:
            raise IntentError("waiting", "the match has not started")
        made = self.match.play(move)
        self.moves.append(move)
        if by_seat is not None:
            self.played.add(by_seat)
        return made

    # -- conduct in rated play ---------------------------------------------------------

    def leave(self, seat: int) -> str | None:
        """A human seat of a running rated match is gone past the grace period: it
        ``abort``-s the match (no play of its own yet: unrated for everyone) or
        ``forfeit``-s it (its side ranks last); None when nothing is at stake (a casual
        or unrated match, a seat that forfeited already, or, in a match of two sides,
        a side whose opponents forfeited first). See :mod:`basra.players.conduct`."""
        if (not self.config.rated or self.status != "playing" or not self.is_human(seat)
                or self.unrated is not None or seat in self.resigned):
            return None
        if seat not in self.played:
            self.unrated = "aborted"
            self.aborted_by = seat
            return "abort"
        side_of = self.rules.side_of
        if seat in self.forfeits or any(side_of[s] == side_of[seat] for s in self.forfeits):
            return None
        if self.rules.sides == 2 and (self.forfeits or self.resigned):
            return None
        self.forfeits.append(seat)
        return "forfeit"

    def forfeited_sides(self) -> list[int]:
        """The sides that forfeited or resigned, in the order they went (forfeits
        first)."""
        return list(dict.fromkeys(self.rules.side_of[seat]
                                  for seat in [*self.forfeits, *self.resigned]))

    def conduct(self) -> dict[str, Any] | None:
        """The current match's conduct as stored (``basra_tables.conduct``), or None when
        nothing happened."""
        if (not self.forfeits and self.unrated is None and not self.resigned
                and self.aborted is None):
            return None
        return {"match": self.match_number, "forfeits": list(self.forfeits),
                "aborted_by": self.aborted_by, "unrated": self.unrated,
                "resigned": list(self.resigned), "aborted": self.aborted}

    def load_conduct(self, stored: dict[str, Any] | None) -> None:
        """Take the stored conduct back (that of an earlier match is ignored)."""
        if not stored or stored.get("match") != self.match_number:
            return
        self.forfeits = [int(seat) for seat in stored.get("forfeits") or []]
        aborted = stored.get("aborted_by")
        self.aborted_by = None if aborted is None else int(aborted)
        unrated = stored.get("unrated")
        self.unrated = None if unrated is None else str(unrated)
        self.resigned = [int(seat) for seat in stored.get("resigned") or []]
        aborted = stored.get("aborted")
        self.aborted = None if aborted is None else int(aborted)
        self.away.update(self.resigned)  # the computer plays a resigned seat to the end
        if self.match is not None:
            self.match.resigned = list(dict.fromkeys(self.rules.side_of[s]
                                                     for s in self.resigned))
            self._end_if_resigned()

    # -- resigning and aborting --------------------------------------------------------

    def _running_seat(self, seat: int, what: str) -> None:
        """Raise :class:`IntentError` unless ``seat`` is a human seat of a running match."""
        if self.match is None:
            raise IntentError("waiting", "the match has not started: seats are still free")
        if self.status == "finished":
            raise IntentError("match_over", "the match is over")
        if not self.is_human(seat):
            raise IntentError("not_seated", f"only a player's seat can {what}")
        if seat in self.resigned:
            raise LeaveError("resigned", "you resigned this match already")

    def check_resign(self, seat: int) -> dict[str, Any]:
        """The conduct to store once ``seat`` has resigned (:meth:`resign`); raises
        :class:`IntentError` and changes nothing."""
        self._running_seat(seat, "resign")
        conduct = self.conduct() or {"match": self.match_number, "forfeits": [],
                                     "aborted_by": None, "unrated": None, "aborted": None}
        return {**conduct, "resigned": [*self.resigned, seat]}

    def resign(self, seat: int) -> None:
        """The player of ``seat`` resigns: its side can no longer win (at a rated table
        it ranks last, as a forfeit does) and the computer plays the seat on. The match
        ends at once, at the totals reached, when one side is left in play, or when only
        the computer is left to play (see :meth:`basra.match.Match.resign`)."""
        self.check_resign(seat)
        assert self.match is not None
        self.resigned.append(seat)
        self.away.add(seat)
        side = self.rules.side_of[seat]
        if side not in self.match.resigned:
            self.match.resign(side)
        self._end_if_resigned()

    def _end_if_resigned(self) -> None:
        """End a running match that someone resigned when no person is left to play it."""
        match = self.match
        if match is None or match.is_over or not self.resigned:
            return
        in_play = match.sides_in_play()
        people = [seat for seat in self.human_seats()
                  if self.rules.side_of[seat] in in_play and seat not in self.resigned]
        if len(in_play) <= 1 or not people:
            match.stop()

    def check_abort(self, seat: int) -> dict[str, Any]:
        """The conduct to store once ``seat`` has aborted (:meth:`abort`); raises
        :class:`IntentError` (``abort_too_late`` after the seat's first play) and changes
        nothing."""
        self._running_seat(seat, "abort")
        if seat in self.played:
            raise LeaveError("abort_too_late", "you have made a play in this match: it "
                             "can no longer be aborted (resign instead)")
        conduct = self.conduct() or {"match": self.match_number, "forfeits": [],
                                     "aborted_by": None, "unrated": None, "resigned": []}
        if self.config.rated:
            conduct = {**conduct, "unrated": "aborted", "aborted_by": seat}
        return {**conduct, "aborted": seat}

    def abort(self, seat: int) -> None:
        """The player of ``seat`` aborts the match before their first play: it ends
        there for everyone, with no result and no record (unrated at a rated table); a
        rematch or a new game may follow."""
        self.check_abort(seat)
        self.aborted = seat
        if self.config.rated:
            self.unrated = "aborted"
            self.aborted_by = seat

    def record(self) -> dict[str, Any]:
        """The current match as a ``basra-record/1`` document."""
        if self.match is None:
            raise IntentError("waiting", "the match has not started")
        players = [
            Player(name or guest_name(seat), "human") if self.is_human(seat)
            else Player(computer_label(seat, self.level_for(seat)), "bot")
            for seat, name in enumerate(self.names)
        ]
        return match_record(self.match, players)

    def rematch(self, seed: int) -> None:
        """A new match at the same table and seats."""
        if self.match is None or self.status != "finished":
            raise IntentError("not_over", "the match is not over yet")
        self.seed = seed
        self.match_number += 1
        self.moves = []
        self.away.clear()
        self.rating_changes = None
        self.played = set()
        self.forfeits = []
        self.aborted_by = None
        self.unrated = None
        self.rematch_asks = set()
        self.resigned = []
        self.aborted = None
        self.start()


def variants_listing() -> list[dict[str, Any]]:
    """The presets, as the New table form lists them (``pile``: a pile game)."""
    return [
        {"name": p.name, "description": p.description, "players": list(p.players),
         "partnership_players": list(p.partnership_players),
         "rules": p.rules_for().to_dict(),
         "pile": p.rules.family in PILE_FAMILIES}
        for p in PRESETS.values()
    ]
