"""Puzzles mined from game records: positions with one clearly best move, proven exact.

A puzzle is a position of a 2-player deal whose stock is empty: the other hand is then
exactly the cards the player has not seen, so every card is known and the exact endgame
solver (:func:`basra.bots.search.solve`) gives each legal move's true value, the points
margin to the end of the deal with best play by both. A position is a puzzle when its best
move beats every other by at least ``min_gap`` points.

In a pile game (Pişti, Xeri) the same holds once the player to move has seen the pile's
face-down cards (its side captured them, or there are none, as in Xeri): the pile's order
is in the position, piştis count as basras in the tags and the explanation.

Each puzzle is tagged by what decides it and rated for difficulty:

========== ===========================================================================
tag        when
========== ===========================================================================
basra      the best move and the runner-up lead to different basras (made or given)
majority   they lead to a different winner of the majority prize
trap       the greedy move (the most points this turn) is not the best move
last batch the stock is empty (every puzzle: the last hands of the deal)
========== ===========================================================================

Difficulty (:func:`difficulty`): 1000, plus 150 for each legal move beyond two, plus 300
when the greedy move fails, plus 250 when the expert bot fails, plus 40 for each card
still in the hands beyond the player's own, minus 10 per point of the gap beyond
``min_gap`` (at most 150), kept between 600 and 2400.

>>> import random
>>> from basra.rules import make_rules
>>> from basra.state import new_deal
>>> rng = random.Random(4)
>>> state = new_deal(make_rules("egyptian"), dealer=1, rng=rng)
>>> while state.batches or state.hands[state.to_play].bit_count() < 3:
...     state = apply(state, rng.choice(legal_moves(state)))
>>> puzzle = make_puzzle(state)
>>> puzzle.solution, puzzle.tags, puzzle.gap
('7S:2C+5H', ('last batch',), 4.0)
>>> verify_puzzle(puzzle)
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from basra.bots.expert import ExpertBot
from basra.bots.search import SOLVE_CARDS, solve
from basra.bots.simple import immediate_value
from basra.match import Match
from basra.observe import observe_state
from basra.position import PositionError, parse_position, position_text
from basra.record import replay
from basra.state import (
    DealState,
    apply,
    deal_score,
    hidden_down,
    legal_moves,
    make_move,
    move_text,
    parse_move,
)
from basra.study.analysis import move_words

__all__ = [
    "FORMAT",
    "MIN_GAP",
    "Puzzle",
    "PuzzleError",
    "difficulty",
    "dump_puzzles",
    "exact_position",
    "explain",
    "explanation_text",
    "load_puzzles",
    "make_puzzle",
    "mine_record",
    "move_words",
    "packaged_puzzles",
    "principal_line",
    "verify_puzzle",
]

FORMAT = "basra-puzzles/1"

MIN_GAP = 4.0
"""Points by which the best move must beat every other move to make a puzzle."""

TAGS = ("basra", "majority", "trap", "last batch")

class PuzzleError(ValueError):
    """A puzzle that is malformed or whose solution the exact solver does not confirm."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: the position, its unique best move and each move's exact value."""

    position: str
    """The deal state as a one-line position (:mod:`basra.position`); the player to move
    is its ``turn``."""
    solution: str
    """The best move, as move text (``7S:2H+5D``)."""
    values: dict[str, float]
    """Each legal move's exact points margin to the end of the deal, by move text."""
    carry: int = 0
    """Majority prize held over from tied deals (it raises this deal's prize)."""
    tags: tuple[str, ...] = ()
    rating: int = 1000
    line: tuple[str, ...] = ()
    """The best play to the end of the deal, from the solution on."""
    explanation: str = ""
    """Why the solution is best, in plain English (:func:`explanation_text`)."""
    explained: dict[str, Any] | None = field(default=None, compare=False)
    """Why the solution is best, as data (:func:`explain`); None in puzzles stored before
    it existed, which :meth:`why` works out again."""
    source: str = ""
    """Where it was mined: a record's name, deal and play."""
    id: str = field(default="")

    @property
    def gap(self) -> float:
        """How far the solution beats the next best move, in points."""
        ordered = sorted(self.values.values(), reverse=True)
        return ordered[0] - ordered[1]

    def state(self) -> DealState:
        """The position as a deal state."""
        return parse_position(self.position)

    def why(self) -> dict[str, Any]:
        """Why the solution is best, as data (:func:`explain`): the stored one, else
        worked out by the exact solver (a few milliseconds) and kept."""
        if self.explained is not None:
            return self.explained
        key = (self.position, self.carry)
        if key not in _EXPLAINED:
            if len(_EXPLAINED) >= 4096:
                _EXPLAINED.clear()
            _EXPLAINED[key] = explain(self.state(), self.carry)
        return _EXPLAINED[key]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        data = {
            "id": self.id, "position": self.position, "carry": self.carry,
            "seat": self.state().to_play, "solution": self.solution,
            "values": {m: round(v, 3) for m, v in self.values.items()},
            "gap": round(self.gap, 3), "tags": list(self.tags), "rating": self.rating,
            "line": list(self.line), "explanation": self.explanation, "source": self.source,
        }
        if self.explained is not None:
            data["explained"] = self.explained
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Puzzle:
        """A puzzle from :meth:`to_dict`'s values; :class:`PuzzleError` names what is bad."""
        if not isinstance(data, dict):
            raise PuzzleError(f"a puzzle must be a JSON object, not {data!r}")
        try:
            values = {str(m): float(v) for m, v in data["values"].items()}
            puzzle = cls(
                position=str(data["position"]), solution=str(data["solution"]),
                values=values, carry=int(data.get("carry", 0)),
                tags=tuple(str(t) for t in data.get("tags", ())),
                rating=int(data.get("rating", 1000)),
                line=tuple(str(m) for m in data.get("line", ())),
                explanation=str(data.get("explanation", "")),
                explained=_explained_of(data.get("explained")),
                source=str(data.get("source", "")), id=str(data.get("id", "")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise PuzzleError(f"puzzle {data.get('id', '?')!r}: bad or missing field: "
                              f"{error}") from None
        return puzzle


_EXPLAINED: dict[tuple[str, int], dict[str, Any]] = {}
"""Explanations worked out for puzzles stored without one, by (position, carry)."""


def _explained_of(data: Any) -> dict[str, Any] | None:
    """A stored explanation (:func:`explain`'s data), or None when there is none."""
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("line"), list):
        raise ValueError(f"'explained' must be an explanation object, not {data!r:.60}")
    return data


def exact_position(state: DealState) -> bool:
    """Whether every card of a position is known to the player to move: two players,
    two sides, nothing left in the stock (the other hand is exactly the unseen cards)
    and, in a pile game, no face-down card it was not shown (in the pile or captured)."""
    rules = state.rules
    return (rules.players == 2 and rules.sides == 2 and not state.batches
            and not state.is_over
            and not (state.table.pile and hidden_down(state, state.to_play)))


def _exact_values(state: DealState, carry: int) -> dict[int, float]:
    side = state.rules.side_of[state.to_play]
    return solve(state, side, carry)


def principal_line(state: DealState, carry: int = 0) -> list[int]:
    """The moves of best play by both sides from ``state`` to the end of the deal (each
    side maximises its own margin; ties go to the first legal move)."""
    line = []
    while not state.is_over:
        moves = legal_moves(state)
        if len(moves) == 1:
            best = moves[0]
        else:
            values = _exact_values(state, carry)
            best = max(moves, key=lambda m: values[m])
        line.append(best)
        state = apply(state, best)
    return line


def _play_out(state: DealState, moves: Iterable[int]) -> DealState:
    for move in moves:
        state = apply(state, move)
    return state


def difficulty(moves: int, greedy_fails: bool, expert_fails: bool, cards_left: int,
               gap: float, min_gap: float = MIN_GAP) -> int:
    """The rating of a puzzle (see the module's header).

    >>> difficulty(2, False, False, 0, MIN_GAP)
    1000
    >>> difficulty(4, True, True, 5, 6.0)
    2030
    """
    rating = (1000 + 150 * (moves - 2) + 300 * greedy_fails + 250 * expert_fails
              + 40 * max(0, cards_left) - min(150, round(10 * max(0.0, gap - min_gap))))
    return max(600, min(2400, rating))


def _side_points(state: DealState, carry: int, side: int) -> tuple[int, int]:
    total = deal_score(state, carry).total
    return total[side], total[1 - side]


def _steps(state: DealState, moves: Sequence[int], side: int) -> list[dict[str, Any]]:
    """Each move of a line: who plays it (``you`` or ``opponent``), its text, and whether
    it makes a basra (a sur in Pasur)."""
    steps = []
    for move in moves:
        mover = state.rules.side_of[state.to_play]
        after = apply(state, move)
        steps.append({"by": "you" if mover == side else "opponent", "move": move_text(move),
                      "basra": after.basras[mover] > state.basras[mover]})
        state = after
    return steps


def explain(state: DealState, carry: int = 0,
            values: dict[int, float] | None = None) -> dict[str, Any]:
    """Why a puzzle's best move is best, as data a page words in its language:

    - ``solution``, ``value`` (its exact points margin to the end of the deal),
      ``gap`` (how far it beats the next best) and ``end`` (your points and the
      opponent's at the end of the deal after best play by both);
    - ``line``: best play by both to the end of the deal, a step a move (``by``
      ``you``/``opponent``, ``move``, ``basra``);
    - ``reasons``: what decides it, against the next best move: ``more_basras`` (``n``),
      ``stops_basra``, ``wins_majority``/``gives_majority``/``stops_majority``
      (``mine``, ``theirs``: the cards each side ends with), ``trap`` (``move``:
      the move that takes the most now, ``loses``);
    - ``others``: every other move, best first: ``move``, ``value``, ``loses`` (points
      against the solution), ``reply`` (the opponent's best answer, or None when the
      deal ends) and whether that answer makes a basra (``reply_basra``), ``end``.

    Every move is in move text (``JH:6S+KD``), so the moves replay in the rules core.
    """
    if values is None:
        values = _exact_values(state, carry)
    side = state.rules.side_of[state.to_play]
    ranked = sorted(values, key=lambda m: -values[m])
    best, runner_up = ranked[0], ranked[1]
    line = [best, *principal_line(apply(state, best), carry)]
    end = _play_out(state, line)
    others = []
    ends: dict[int, DealState] = {}
    for move in ranked[1:]:
        after = apply(state, move)
        rest = principal_line(after, carry)
        ends[move] = _play_out(after, rest)
        reply = rest[0] if rest else None
        others.append({
            "move": move_text(move), "value": round(values[move], 3),
            "loses": round(values[best] - values[move], 3),
            "reply": None if reply is None else move_text(reply),
            "reply_basra": reply is not None and (apply(after, reply).basras[1 - side]
                                                  > after.basras[1 - side]),
            "end": list(_side_points(ends[move], carry, side)),
        })
    other = ends[runner_up]
    reasons: list[dict[str, Any]] = []
    if end.basras[side] > other.basras[side]:
        reasons.append({"kind": "more_basras", "n": end.basras[side] - other.basras[side]})
    if end.basras[1 - side] < other.basras[1 - side]:
        reasons.append({"kind": "stops_basra"})
    score, alt = deal_score(end, carry), deal_score(other, carry)
    if score.majority != alt.majority:
        kind = ("wins_majority" if score.majority[side] else "gives_majority"
                if score.majority[1 - side] else "stops_majority")
        reasons.append({"kind": kind, "mine": score.cards[side],
                        "theirs": score.cards[1 - side]})
    greedy = _greedy_move(state)
    if greedy != best:
        reasons.append({"kind": "trap", "move": move_text(greedy),
                        "loses": round(values[best] - values[greedy], 3)})
    return {
        "solution": move_text(best), "value": round(values[best], 3),
        "gap": round(values[best] - values[runner_up], 3),
        "end": list(_side_points(end, carry, side)),
        "line": _steps(state, line, side), "reasons": reasons, "others": others,
    }


def _points(value: float) -> str:
    number = round(abs(value))
    return f"{number} point" if number == 1 else f"{number} points"


def explanation_text(data: dict[str, Any], family: str = "basra") -> str:
    """:func:`explain`'s data in plain English, cards with suit symbols (the CLI's and the
    stored ``explanation``; the web page words the data in its own language)."""
    word = {"pasur": "sur", "pisti": "pişti"}.get(family, "basra")
    mine, theirs = data["end"]
    parts = [f"Play {move_words(data['solution'])}: with best play by both you end the deal "
             f"with {mine} points to your opponent's {theirs}, {_points(data['gap'])} "
             f"better than the next best play."]
    for reason in data["reasons"]:
        kind = reason["kind"]
        if kind == "more_basras":
            parts.append(f"It makes {reason['n']} {word} more.")
        elif kind == "stops_basra":
            parts.append(f"It keeps your opponent from a {word}.")
        elif kind == "wins_majority":
            parts.append(f"It wins the most cards ({reason['mine']} to {reason['theirs']}).")
        elif kind == "gives_majority":
            parts.append(f"It gives up the most cards ({reason['mine']} to "
                         f"{reason['theirs']}) but gains more elsewhere.")
        elif kind == "stops_majority":
            parts.append(f"It keeps your opponent from the most cards ({reason['mine']} "
                         f"to {reason['theirs']}).")
        elif kind == "trap":
            parts.append(f"The greedy {move_words(reason['move'])} takes the most now but "
                         f"loses {_points(reason['loses'])}.")
    steps = [("You: " if step["by"] == "you" else "Opponent: ") + move_words(step["move"])
             + (f" ({word}!)" if step["basra"] else "") for step in data["line"]]
    parts.append("Best play: " + "; ".join(steps) + ".")
    for other in data["others"]:
        answer = ("" if other["reply"] is None else
                  f"; your opponent answers {move_words(other['reply'])}"
                  + (f", a {word}" if other["reply_basra"] else ""))
        parts.append(f"{move_words(other['move'])} loses {_points(other['loses'])}{answer}.")
    return " ".join(parts)


def _tags(state: DealState, best: int, runner_up: int, greedy: int, carry: int) -> list[str]:
    tags = []
    end = _play_out(apply(state, best), principal_line(apply(state, best), carry))
    other = _play_out(apply(state, runner_up), principal_line(apply(state, runner_up), carry))
    if end.basras != other.basras:
        tags.append("basra")
    if deal_score(end, carry).majority != deal_score(other, carry).majority:
        tags.append("majority")
    if greedy != best:
        tags.append("trap")
    tags.append("last batch")
    return tags


def _greedy_move(state: DealState) -> int:
    view = observe_state(state, state.to_play)
    moves = list(view.legal_moves)
    return max(moves, key=lambda m: immediate_value(view, m))


def make_puzzle(state: DealState, carry: int = 0, *, min_gap: float = MIN_GAP,
                source: str = "") -> Puzzle | None:
    """The puzzle of a position, or None when it is not one (not exact, more than
    :data:`~basra.bots.search.SOLVE_CARDS` cards in the hands (Xeri's last batch from its
    third play on), a single move, or no move beats every other by
    ``min_gap`` points)."""
    if not exact_position(state) or sum(h.bit_count() for h in state.hands) > SOLVE_CARDS:
        return None
    moves = legal_moves(state)
    if len(moves) < 2:
        return None
    values = _exact_values(state, carry)
    ranked = sorted(moves, key=lambda m: -values[m])
    best, runner_up = ranked[0], ranked[1]
    gap = values[best] - values[runner_up]
    if gap < min_gap - 1e-9:
        return None
    greedy = _greedy_move(state)
    expert = ExpertBot(0).choose(observe_state(state, state.to_play))
    line = [best, *principal_line(apply(state, best), carry)]
    cards_left = sum(h.bit_count() for h in state.hands) - state.hands[state.to_play].bit_count()
    position = position_text(state)
    text_values = {move_text(m): values[m] for m in ranked}
    puzzle_id = hashlib.sha256(f"{position}|{carry}".encode()).hexdigest()[:12]
    why = explain(state, carry, values)
    return Puzzle(
        position=position, solution=move_text(best), values=text_values, carry=carry,
        tags=tuple(_tags(state, best, runner_up, greedy, carry)),
        rating=difficulty(len(moves), greedy != best, expert != best, cards_left, gap,
                          min_gap),
        line=tuple(move_text(m) for m in line),
        explanation=explanation_text(why, state.rules.family), explained=why,
        source=source, id=puzzle_id,
    )


def verify_puzzle(puzzle: Puzzle, min_gap: float | None = None) -> None:
    """Check a puzzle with the exact solver: its position is exact, every legal move's
    value is right, and the solution beats every other move by ``min_gap`` (any margin
    above zero by default). Raises :class:`PuzzleError` saying what is wrong."""
    where = f"puzzle {puzzle.id or puzzle.position!r}"
    try:
        state = puzzle.state()
    except PositionError as error:
        raise PuzzleError(f"{where}: {error}") from None
    if not exact_position(state):
        raise PuzzleError(f"{where}: not every card is known (2 players, empty stock)")
    try:
        solution = parse_move(state, puzzle.solution)
    except ValueError as error:
        raise PuzzleError(f"{where}: solution {puzzle.solution!r}: {error}") from None
    values = _exact_values(state, puzzle.carry)
    listed = {move_text(m) for m in values}
    if listed != set(puzzle.values):
        raise PuzzleError(f"{where}: the legal moves are {sorted(listed)}, the puzzle lists "
                          f"{sorted(puzzle.values)}")
    for move, value in values.items():
        if not math.isclose(value, puzzle.values[move_text(move)], abs_tol=1e-3):
            raise PuzzleError(f"{where}: {move_text(move)} is worth {value:+.3f}, the puzzle "
                              f"says {puzzle.values[move_text(move)]:+.3f}")
    others = [v for m, v in values.items() if m != solution]
    need = 1e-9 if min_gap is None else min_gap - 1e-9
    if values[solution] - max(others) < need:
        raise PuzzleError(f"{where}: {puzzle.solution} is not the unique best move "
                          f"({values[solution]:+.3f} against {max(others):+.3f})")


def _positions(match: Match) -> Iterator[tuple[int, int, DealState, int]]:
    """(deal number, play number, state, carry) before every play of a replayed match."""
    rules = match.rules
    again = Match(rules, match.seed, variant=match.variant, first_dealer=match.first_dealer,
                  auto_deal=False)
    for number, deal in enumerate(match.deals, 1):
        again.deal(deal.layout)
        for index, made in enumerate(deal.plays, 1):
            yield number, index, again.state, again.carry
            again.play(make_move(made.card, made.captured), checked=False)


def mine_record(record: dict[str, Any], name: str = "record", *,
                min_gap: float = MIN_GAP) -> list[Puzzle]:
    """Every puzzle found in a record's positions (the record is replayed and checked
    first; a bad record raises :class:`basra.record.RecordError`). Puzzles come from
    two-player deals (in a pile game, positions where the player to move has seen the
    face-down cards, or there are none)."""
    match = replay(record)
    if match.rules.players != 2 or match.rules.sides != 2:
        return []
    found = []
    for deal, play, state, carry in _positions(match):
        if not exact_position(state):
            continue
        puzzle = make_puzzle(state, carry, min_gap=min_gap,
                             source=f"{name}, deal {deal}, play {play}")
        if puzzle is not None:
            found.append(puzzle)
    return found


def dump_puzzles(puzzles: Sequence[Puzzle]) -> str:
    """A puzzle set as ``basra-puzzles/1`` JSON text."""
    return json.dumps({"format": FORMAT, "puzzles": [p.to_dict() for p in puzzles]},
                      indent=1, ensure_ascii=False) + "\n"


def load_puzzles(text: str) -> list[Puzzle]:
    """The puzzles of ``basra-puzzles/1`` JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise PuzzleError(f"not valid JSON: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PuzzleError(f"not a {FORMAT} document")
    items = data.get("puzzles")
    if not isinstance(items, list):
        raise PuzzleError("'puzzles' must be a list")
    return [Puzzle.from_dict(item) for item in items]


def packaged_puzzles() -> list[Puzzle]:
    """The puzzle set shipped with the package (mined from simulated master games)."""
    text = resources.files("basra.study").joinpath("puzzles.json").read_text(encoding="utf-8")
    return load_puzzles(text)
