"""Move-by-move analysis of a match: every decision judged from the deciding seat's view.

Each play of a record where the player had a choice is evaluated from that seat's
:class:`~basra.observe.Observation` only, as the master bot would at that moment: the
cards it had not seen are sampled into the other hands and the stock, every legal move is
played on the same samples and the deal finished with greedy play, and each move's mean
points margin to the end of the deal is its value. When every card is known (two players,
empty stock) the exact endgame solver gives the true values instead. The analysis never
looks at hidden cards: it is given observations, never states.

The ``neural`` engine (:data:`ENGINES`) judges with the learned network instead of the
sampled search: a move's value is the network's value head
(:meth:`basra.bots.neural.NeuralBot.estimates`), computed at once, in the calling process,
with no standard error and no basra-risk notes (they need sampled deals). Where every card
is known the exact solver judges, whatever the engine.

A move's *loss* is the best move's value minus the played move's, in points of margin
(the side's points minus the mean of the other sides'). Labels, by loss:

=========== =================
label       loss (points)
=========== =================
best        below 0.5
good        0.5 to below 2
inaccuracy  2 to below 5
mistake     5 to below 10
blunder     10 or more
=========== =================

A sampled loss is uncertain: the label is that of the loss less one standard error of its
estimate (the spread of the paired differences over the samples), so that noise is not
called a blunder, and a loss measured with more noise gets the milder label (a loss of
8.4 with an error of 3.5 is an inaccuracy, one of 8.0 with an error of 0.5 a mistake).
Exact losses are labelled as they are. :data:`LEGEND` says so in a line.

A seat's accuracy is the mean over its decisions of ``100 * exp(-loss / 8)``: 100 for best
play, 88 for a loss of 1 point, 29 for a blunder of 10. The full format is described in
``docs/analysis.md``.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, NamedTuple

from basra.bots.search import all_known, deal_margin, greedy_playout, sample_state, solve
from basra.cards import card_symbol, parse_card
from basra.match import Match
from basra.observe import Observation, observe
from basra.record import replay
from basra.state import (
    DealState,
    apply,
    capture_table,
    legal_moves,
    make_move,
    move_captured,
    move_card,
    move_text,
)

__all__ = [
    "ACCURACY_SCALE",
    "DEFAULT_THINK_MS",
    "ENGINES",
    "FORMAT",
    "LABELS",
    "LEGEND",
    "THRESHOLDS",
    "Decision",
    "Evaluation",
    "MoveValue",
    "accuracy",
    "analysis_document",
    "analyze_match",
    "analyze_record",
    "bonus_word",
    "check_engine",
    "decision_points",
    "evaluate",
    "label_for",
    "move_words",
    "note_facts",
    "note_text",
    "notes_for",
    "record_digest",
    "spread",
]

FORMAT = "basra-analysis/1"

DEFAULT_THINK_MS = 200
"""The default search budget per decision, in milliseconds."""

ENGINES = ("master", "neural")
"""What judges the moves: the master's sampled search (the default) or the learned
network's value head."""

LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")

THRESHOLDS = (0.5, 2.0, 5.0, 10.0)
"""The smallest loss (points) of each label after ``best``: good, inaccuracy, mistake,
blunder."""

LEGEND = ("A play is labelled by the points it loses against the best play, less one "
          "standard error of the estimate, so a loss measured with more noise (sampled, "
          "not exact) gets the milder label: good from 0.5 points, inaccuracy from 2, "
          "mistake from 5, blunder from 10.")
"""How plays are labelled, in a line (``basra analyze`` prints it under its tables)."""

ACCURACY_SCALE = 8.0
"""Points of loss that bring a move's accuracy down to 100/e (37)."""

RISK_NOTE = 0.1
"""The least chance of a basra left to the next player that a note names."""


class MoveValue(NamedTuple):
    """One legal move's evaluation."""

    move: int
    value: float
    """Expected points margin of the deciding side to the end of the deal."""
    basra_risk: float
    """The chance that the next player (an opponent) can make a basra right after it."""
    loss_error: float = 0.0
    """The standard error of this move's loss against the best move, over the samples
    (0 when exact)."""


class Evaluation(NamedTuple):
    """Every legal move of a decision, best first."""

    moves: tuple[MoveValue, ...]
    samples: int
    """Sampled deals the values are means over (1 when exact, 0 by the network)."""
    exact: bool
    """Whether every card was known and the values are the exact solver's."""


def _basra_threat(state: DealState, side: int) -> bool:
    """Whether the seat to play in ``state``, of another side than ``side``, holds a move
    that makes a basra now."""
    if state.is_over:
        return False
    seat = state.to_play
    other = state.rules.side_of[seat]
    if other == side:
        return False
    before = state.basras[other]
    return any(apply(state, move).basras[other] > before for move in legal_moves(state))


def check_engine(engine: str) -> str:
    """``engine`` if it is one of :data:`ENGINES`, else a :class:`ValueError` naming it.

    >>> check_engine("neural")
    'neural'
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown analysis engine {engine!r}; the engines are: "
                         f"{', '.join(ENGINES)}")
    return engine


def evaluate(observation: Observation, *, seconds: float = DEFAULT_THINK_MS / 1000,
             samples: int | None = None, seed: int = 0,
             engine: str = "master") -> Evaluation:
    """Evaluate every legal move of the seat to play from its observation.

    Samples for ``seconds``, or exactly ``samples`` deals when given (reproducible); with
    the ``neural`` engine, asks the network instead; when every card is known, solves
    exactly.
    """
    check_engine(engine)
    moves = observation.legal_moves
    if not moves:
        raise ValueError(f"seat {observation.seat} has no move to play in this observation")
    rng = random.Random(seed)
    side = observation.side
    carry = observation.carry
    if all_known(observation):
        state = sample_state(observation, rng)  # the only deal consistent with it
        exact = solve(state, side, carry)
        ranked = [MoveValue(m, exact[m], float(_basra_threat(apply(state, m), side)))
                  for m in moves]
        return Evaluation(tuple(sorted(ranked, key=lambda v: -v.value)), 1, True)
    if engine == "neural":
        return _network_evaluation(observation)
    values: list[list[float]] = [[] for _ in moves]
    threats = [0] * len(moves)
    deadline = time.perf_counter() + seconds
    done = 0
    while True:
        sample = sample_state(observation, rng)
        for i, move in enumerate(moves):
            after = apply(sample, move)
            threats[i] += _basra_threat(after, side)
            values[i].append(deal_margin(greedy_playout(after, rng), side, carry))
        done += 1
        if done == samples or (samples is None and time.perf_counter() >= deadline):
            break
    means = [sum(v) / done for v in values]
    top = max(range(len(moves)), key=lambda i: means[i])
    ranked = [MoveValue(m, means[i], threats[i] / done, _loss_error(values[top], values[i]))
              for i, m in enumerate(moves)]
    return Evaluation(tuple(sorted(ranked, key=lambda v: -v.value)), done, False)


def _network_evaluation(observation: Observation) -> Evaluation:
    """Every legal move valued by the shipped network's value head, best first."""
    from basra.bots.neural import NeuralBot

    estimates = NeuralBot().estimates(observation)
    return Evaluation(tuple(MoveValue(e.move, e.value, 0.0) for e in estimates), 0, False)


def _loss_error(best: list[float], other: list[float]) -> float:
    """The standard error of the mean of ``best - other`` (paired samples)."""
    n = len(best)
    if n < 2:
        return 0.0
    differences = [b - o for b, o in zip(best, other, strict=True)]
    mean = sum(differences) / n
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1)
    return math.sqrt(variance / n)


def label_for(loss: float) -> str:
    """The label of a move that loses ``loss`` points against the best.

    >>> [label_for(x) for x in (0.0, 1.0, 3.0, 7.5, 12.0)]
    ['best', 'good', 'inaccuracy', 'mistake', 'blunder']
    """
    for label, limit in zip(LABELS, THRESHOLDS, strict=False):
        if loss < limit:
            return label
    return LABELS[-1]


def accuracy(losses: Sequence[float]) -> float | None:
    """A seat's accuracy (0 to 100) over its decisions' losses; None without decisions.

    >>> accuracy([0.0, 0.0]), round(accuracy([10.0]) or 0, 1), accuracy([])
    (100.0, 28.7, None)
    """
    if not losses:
        return None
    return 100 * sum(math.exp(-max(0.0, loss) / ACCURACY_SCALE) for loss in losses) / len(losses)


def note_facts(observation: Observation, evaluation: Evaluation, played: int
               ) -> list[dict[str, Any]]:
    """What a decision did wrong, as facts a page can word in its language: ``missed_basra``
    (``move``), ``left_capture`` (``move``, ``cards``, ``points``) and ``basra_risk``
    (``chance``); only for an inaccuracy or worse."""
    rules = observation.rules
    by_move = {v.move: v for v in evaluation.moves}
    best = evaluation.moves[0]
    mine = by_move[played]
    # Notes only for a clear loss: an inaccuracy or worse, less one standard error.
    if best.move == played or best.value - mine.value - mine.loss_error < THRESHOLDS[1]:
        return []
    facts: list[dict[str, Any]] = []
    table = capture_table(rules)
    best_taken, played_taken = move_captured(best.move), move_captured(played)
    best_points = rules.card_points_of(best_taken | 1 << move_card(best.move)) \
        if best_taken else 0
    played_points = rules.card_points_of(played_taken | 1 << move_card(played)) \
        if played_taken else 0
    # a pile game's pişti takes a pile of one card (face-down cards count, unseen)
    bonus_floor = observation.floor if not table.pile or len(observation.pile) == 1 else 0
    makes_basra = bool(best_taken) and table.is_basra(bonus_floor, move_card(best.move),
                                                      best_taken)
    played_basra = bool(played_taken) and table.is_basra(bonus_floor, move_card(played),
                                                         played_taken)
    if makes_basra and not played_basra:
        facts.append({"kind": "missed_basra", "move": move_text(best.move)})
    elif best_taken and (best_taken.bit_count() > played_taken.bit_count()
                         or best_points > played_points):
        facts.append({"kind": "left_capture", "move": move_text(best.move),
                      "cards": best_taken.bit_count() + 1, "points": best_points})
    if mine.basra_risk >= RISK_NOTE and mine.basra_risk >= best.basra_risk + 0.05:
        facts.append({"kind": "basra_risk", "chance": round(mine.basra_risk, 3)})
    return facts


def note_text(fact: dict[str, Any], word: str = "basra") -> str:
    """A fact of :func:`note_facts` in plain English.

    >>> note_text({"kind": "basra_risk", "chance": 0.3})
    'leaves a basra to the next player: 30% likely'
    """
    kind = fact["kind"]
    if kind == "missed_basra":
        return f"misses a {word}: {move_words(fact['move'])}"
    if kind == "left_capture":
        points = "1 point" if fact["points"] == 1 else f"{fact['points']} points"
        return (f"misses a capture: {move_words(fact['move'])} "
                f"({fact['cards']} cards, {points})")
    return f"leaves a {word} to the next player: {round(100 * fact['chance'])}% likely"


def _card_words(text: str) -> str:
    return " ".join(card_symbol(parse_card(c)) for c in text.split("+"))


def move_words(text: str) -> str:
    """A move in words, its cards with suit symbols as every command shows them.

    >>> move_words("JH:6S+KD"), move_words("7D")
    ('J♥ takes 6♠ K♦', '7♦ to the floor')
    """
    card, _, taken = text.partition(":")
    if taken:
        return f"{_card_words(card)} takes {_card_words(taken)}"
    return f"{_card_words(card)} to the floor"


def bonus_word(family: str, variant: str = "") -> str:
    """What a family calls its bonus capture in the notes: basra, sur in Pasur, pişti in
    the pile games (xeri under the ``xeri`` preset).

    >>> bonus_word("pisti", "xeri"), bonus_word("pasur")
    ('xeri', 'sur')
    """
    if family == "pisti":
        return "xeri" if variant == "xeri" else "pişti"
    return "sur" if family == "pasur" else "basra"


def notes_for(observation: Observation, evaluation: Evaluation, played: int) -> list[str]:
    """:func:`note_facts` in plain English (:func:`bonus_word` for basra)."""
    word = bonus_word(observation.rules.family)
    return [note_text(fact, word) for fact in note_facts(observation, evaluation, played)]


class Decision(NamedTuple):
    """One analysed decision of a match."""

    deal: int
    """1 for the first deal."""
    play: int
    """1 for the deal's first play."""
    seat: int
    played: int
    evaluation: Evaluation
    notes: tuple[str, ...]
    facts: tuple[dict[str, Any], ...] = ()
    """The notes as facts (:func:`note_facts`)."""

    @property
    def best(self) -> int:
        return self.evaluation.moves[0].move

    @property
    def value(self) -> float:
        """The played move's value."""
        return next(v.value for v in self.evaluation.moves if v.move == self.played)

    @property
    def loss(self) -> float:
        return max(0.0, self.evaluation.moves[0].value - self.value)

    @property
    def loss_error(self) -> float:
        """The standard error of :attr:`loss` (0 when exact)."""
        return next(v.loss_error for v in self.evaluation.moves if v.move == self.played)

    @property
    def label(self) -> str:
        """The label of the loss less one standard error (a sampled loss is only called a
        mistake when the samples show it clearly)."""
        if self.played == self.best:
            return "best"
        return label_for(max(0.0, self.loss - self.loss_error))


def decision_points(match: Match, seats: Sequence[int] | None = None
                    ) -> Iterator[tuple[int, int, Observation, int]]:
    """(deal, play, observation, played move) for every play of a replayed match where the
    player had a choice of moves, seen from the player's seat only."""
    again = Match(match.rules, match.seed, variant=match.variant,
                  first_dealer=match.first_dealer, auto_deal=False)
    for number, deal in enumerate(match.deals, 1):
        again.deal(deal.layout)
        for index, made in enumerate(deal.plays, 1):
            move = make_move(made.card, made.captured)
            if (seats is None or made.seat in seats) and len(again.legal_moves()) > 1:
                view = observe(again, made.seat)
                yield number, index, view, _as_seen(view, move)
            again.play(move, checked=False)


def _as_seen(view: Observation, move: int) -> int:
    """A move as the seat that made it names it: in a pile game a capture takes the pile
    it sees, without the face-down cards it was not shown."""
    if view.pile and move_captured(move):
        return make_move(move_card(move), view.floor)
    return move


def _evaluate_job(observation: Observation, seconds: float, samples: int | None,
                  seed: int, played: int, engine: str = "master"
                  ) -> tuple[Evaluation, list[dict[str, Any]]]:
    evaluation = evaluate(observation, seconds=seconds, samples=samples, seed=seed,
                          engine=engine)
    return evaluation, note_facts(observation, evaluation, played)


def spread(total: int, most: int | None) -> list[int]:
    """The indexes of ``most`` of ``total`` decisions, spread evenly from the first
    (all of them when there are no more than ``most``).

    >>> spread(10, 4), spread(3, 4)
    ([0, 2, 5, 7], [0, 1, 2])
    """
    if most is None or total <= most:
        return list(range(total))
    return [i * total // most for i in range(max(1, most))]


def analyze_match(match: Match, *, seats: Sequence[int] | None = None,
                  think_ms: int = DEFAULT_THINK_MS, samples: int | None = None,
                  seed: int = 0, jobs: int = 1,
                  progress: Callable[[int, int], None] | None = None,
                  max_decisions: int | None = None,
                  engine: str = "master") -> list[Decision]:
    """Analyse every decision of a replayed match (of ``seats``, all by default), on
    ``jobs`` processes; ``progress(done, total)`` is called as decisions finish. With
    ``max_decisions``, a longer match has only that many of its decisions analysed,
    spread evenly through it (see :func:`spread`). ``engine`` judges the moves
    (:data:`ENGINES`); the ``neural`` one needs no workers and ignores ``jobs``."""
    check_engine(engine)
    points = list(decision_points(match, seats))
    points = [points[i] for i in spread(len(points), max_decisions)]
    total = len(points)
    seconds = max(0.001, think_ms / 1000)
    seeds = [seed * 1_000_003 + deal * 1009 + play for deal, play, _, _ in points]
    results: list[tuple[Evaluation, list[dict[str, Any]]] | None] = [None] * total
    if progress is not None:
        progress(0, total)
    if jobs <= 1 or total <= 1 or engine == "neural":
        for i, (_, _, view, move) in enumerate(points):
            results[i] = _evaluate_job(view, seconds, samples, seeds[i], move, engine)
            if progress is not None:
                progress(i + 1, total)
    else:
        from basra.bots.master import _ignore_interrupts, _pool_context

        with ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context(),
                                 initializer=_ignore_interrupts) as pool:
            futures: dict[Future[tuple[Evaluation, list[dict[str, Any]]]], int] = {
                pool.submit(_evaluate_job, view, seconds, samples, seeds[i], move): i
                for i, (_, _, view, move) in enumerate(points)
            }
            from concurrent.futures import as_completed

            for done, future in enumerate(as_completed(futures), 1):
                results[futures[future]] = future.result()
                if progress is not None:
                    progress(done, total)
    decisions = []
    for (deal, play, view, move), result in zip(points, results, strict=True):
        assert result is not None
        evaluation, facts = result
        word = bonus_word(view.rules.family, match.variant)
        decisions.append(Decision(deal, play, view.seat, move, evaluation,
                                  tuple(note_text(f, word) for f in facts), tuple(facts)))
    return decisions


def analyze_record(record: dict[str, Any], **options: Any) -> list[Decision]:
    """Replay a record (checked: a bad one raises :class:`basra.record.RecordError`) and
    analyse it; the options are :func:`analyze_match`'s."""
    return analyze_match(replay(record), **options)


def record_digest(record: dict[str, Any]) -> str:
    """The SHA-256 of a record's canonical JSON (sorted keys, no spaces): what links an
    analysis to the record it analyses."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _seat_summary(seat: int, name: str, decisions: Sequence[Decision]) -> dict[str, Any]:
    mine = [d for d in decisions if d.seat == seat]
    counts = {label: sum(d.label == label for d in mine) for label in LABELS}
    score = accuracy([d.loss for d in mine])
    return {
        "seat": seat, "name": name, "decisions": len(mine),
        "accuracy": None if score is None else round(score, 1),
        "mean_loss": round(sum(d.loss for d in mine) / len(mine), 3) if mine else None,
        "labels": counts,
    }


def _eval_for_first_side(rules_sides: int, side: int, value: float) -> float | None:
    """A deciding side's value seen from side 0 (two sides only: the margin changes sign)."""
    if rules_sides != 2:
        return None
    return value if side == 0 else -value


def analysis_document(record: dict[str, Any], decisions: Sequence[Decision], *,
                      think_ms: int = DEFAULT_THINK_MS, samples: int | None = None,
                      seed: int = 0, source: str | None = None,
                      seconds: float | None = None,
                      decisions_in_match: int | None = None,
                      engine: str = "master") -> dict[str, Any]:
    """The ``basra-analysis/1`` document of a record's analysis (see docs/analysis.md);
    ``decisions_in_match``, when more than were analysed, is said in ``sampled``;
    ``engine`` is the one that judged the moves."""
    from basra.rules import Rules

    rules = Rules.from_dict(record["rules"])
    players = record["players"]
    seats_seen = sorted({d.seat for d in decisions}) or list(range(rules.players))
    link: dict[str, Any] = {"sha256": record_digest(record), "variant": record.get("variant")}
    if source is not None:
        link["source"] = source
    if "seed" in record:
        link["seed"] = record["seed"]
    document: dict[str, Any] = {
        "format": FORMAT,
        "record": link,
        "settings": {
            "engine": check_engine(engine),
            "think_ms": think_ms, "samples": samples, "seed": seed,
            "thresholds": dict(zip(LABELS[1:], THRESHOLDS, strict=True)),
            "accuracy_scale": ACCURACY_SCALE,
        },
        "players": [_seat_summary(seat, str(players[seat]["name"]), decisions)
                    for seat in seats_seen],
        "decisions": [],
    }
    if seconds is not None:
        document["settings"]["seconds"] = round(seconds, 2)
    if decisions_in_match is not None and decisions_in_match > len(decisions):
        document["sampled"] = {"decisions": decisions_in_match, "analysed": len(decisions)}
    for d in decisions:
        side = rules.side_of[d.seat]
        best = d.evaluation.moves[0]
        document["decisions"].append({
            "deal": d.deal, "play": d.play, "seat": d.seat,
            "played": move_text(d.played), "best": move_text(best.move),
            "value": round(d.value, 3), "best_value": round(best.value, 3),
            "loss": round(d.loss, 3), "loss_error": round(d.loss_error, 3),
            "label": d.label,
            "eval": _round(_eval_for_first_side(rules.sides, side, d.value)),
            "exact": d.evaluation.exact, "samples": d.evaluation.samples,
            "notes": list(d.notes), "facts": list(d.facts),
            "moves": [{"move": move_text(v.move), "value": round(v.value, 3),
                       "basra_risk": round(v.basra_risk, 3)} for v in d.evaluation.moves],
        })
    return document


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
