"""The compiled path's Python side: rules and states to and from flat arrays.

Import it only when :func:`basra.fast.available` is true (it imports numba).

>>> import random
>>> from basra.rules import make_rules
>>> from basra.state import new_deal
>>> state = new_deal(make_rules("egyptian"), 0, random.Random(1))
>>> fast = fast_rules(state.rules)
>>> array = to_array(state)
>>> from_array(array, state.table) == state
True
>>> legal_moves(fast, array) == __import__("basra.state").state.legal_moves(state)
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from basra.observe import Observation, hidden_places
from basra.rules import PILE_FAMILIES, Rules
from basra.state import DealState, capture_table, playing_order

from . import kernels as k

__all__ = [
    "FastRules",
    "SearchStats",
    "apply",
    "batch_history",
    "compile_kernels",
    "deal_totals",
    "fast_rules",
    "from_array",
    "legal_moves",
    "observation_search",
    "observation_tree_search",
    "play_agreement",
    "random_deals",
    "sample_observation",
    "to_array",
]

STYLE_TAU = 0.001
"""The temperature a seat of known style has its plays read at: sharp, so a play its
style would not have made with a sampled hand all but rules that hand out (a slip's
chance, :data:`basra.fast.kernels.SLIP`, keeps it from nothing), and a move valued a
hair below the best counts as one the style would not make (the levels play their best
valued move, ties at random)."""
EXPLORATION = 100.0
"""The tree search's UCB width, in points (:func:`observation_tree_search`)."""

_CHOICE = {
    "basra": {"clear": 0, "lone": 1},
    "jack_basra": {"never": 0, "lone": 1, "lone_or_pair": 2},
    "majority_tie": {"none": 0, "carry": 1, "double": 2},
    "jack_pisti": {"never": 0, "lone": 1},
    "centre_jack": {"turn_next": 0, "to_stock": 1},
    "pile_redeal": {"none": 0, "pair_or_jack": 1, "top_pair_or_jack": 2},
}
_FAMILY = {"basra": 0, "pasur": 1, "pisti": k.PILE_FAMILY}


class FastRules:
    """A rules value as the kernels read it: ``cfg`` (options) and ``cards`` (per card)."""

    def __init__(self, rules: Rules) -> None:
        table = capture_table(rules)
        self.rules = rules
        self.table = table
        cfg = np.zeros(k.CFG_SIZE, np.int64)
        cfg[k.C_FAMILY] = _FAMILY[rules.family]
        cfg[k.C_PLAYERS] = rules.players
        cfg[k.C_SIDES] = rules.sides
        cfg[k.C_SUMS] = rules.sums
        cfg[k.C_OPTIONAL] = rules.optional_capture
        cfg[k.C_LATE_BASRA] = rules.last_batch_basra
        cfg[k.C_LAST_PLAY_BASRA] = rules.last_play_basra
        cfg[k.C_ORDERED] = table.ordered
        cfg[k.C_BASRA_RULE] = _CHOICE["basra"][rules.basra]
        cfg[k.C_JACK_BASRA] = _CHOICE["jack_basra"][rules.jack_basra]
        cfg[k.C_BASRA_POINTS] = rules.basra_points
        cfg[k.C_BASRA_CANCEL] = rules.basra_cancel
        cfg[k.C_MAJORITY_POINTS] = rules.majority_points
        cfg[k.C_MAJORITY_MIN] = rules.majority_min
        cfg[k.C_MAJORITY_TIE] = _CHOICE["majority_tie"][rules.majority_tie]
        cfg[k.C_CLUBS_POINTS] = rules.clubs_points
        cfg[k.C_CLUBS_MIN] = rules.clubs_min
        cfg[k.C_HAND_SIZE] = rules.hand_size
        cfg[k.C_FLOOR_SIZE] = rules.floor_size
        cfg[k.C_FLOOR_REDEAL] = rules.floor_redeal
        for seat, side in enumerate(rules.side_of):
            cfg[k.C_SIDE_OF + seat] = side
        cfg[k.C_BURY] = rules.bury_mask
        cfg[k.C_PISTI_POINTS] = rules.pisti_points
        cfg[k.C_JACK_PISTI_POINTS] = rules.jack_pisti_points
        cfg[k.C_JACK_PISTI] = _CHOICE["jack_pisti"][rules.jack_pisti]
        cfg[k.C_LAST_PLAY_PISTI] = rules.last_play_pisti
        cfg[k.C_PILE_DOWN] = rules.pile_down
        cfg[k.C_CENTRE_JACK] = _CHOICE["centre_jack"][rules.centre_jack]
        cfg[k.C_BOTTOM_SHOWN] = rules.bottom_card == "shown"
        cfg[k.C_PILE_REDEAL] = _CHOICE["pile_redeal"][rules.pile_redeal]
        cards = np.zeros((4, 52), np.int64)
        cards[k.K_KIND] = table.kinds
        cards[k.K_POINTS] = rules.points_of
        cards[k.K_SWEEPS] = table.sweeps
        cards[k.K_CLEARS] = table.clears
        self.cfg = cfg
        self.cards = cards
        self.moves = np.empty(k.MAX_MOVES, np.int64)
        self.options = np.empty(k.MAX_OPTIONS, np.int64)
        self.memo = k.new_memo()


@lru_cache(maxsize=64)
def fast_rules(rules: Rules) -> FastRules:
    """The shared :class:`FastRules` of a rules value."""
    return FastRules(rules)


def to_array(state: DealState) -> k.Array:
    """The kernels' flat form of a deal state."""
    st = np.zeros(k.STATE_SIZE, np.int64)
    st[k.S_TO_PLAY] = state.to_play
    st[k.S_FLOOR] = state.floor
    for seat, hand in enumerate(state.hands):
        st[k.S_HANDS + seat] = hand
    for side, pile in enumerate(state.piles):
        st[k.S_PILES + side] = pile
    for side, basras in enumerate(state.basras):
        st[k.S_BASRAS + side] = basras
    st[k.S_LAST] = state.last_capturer
    st[k.S_LEFTOVER] = state.leftover
    st[k.S_NEXT_BATCH] = 0
    st[k.S_BATCHES_COUNT] = len(state.batches)
    st[k.S_DEALER] = state.dealer
    for seat, following in enumerate(state.turns):
        st[k.S_TURNS + seat] = following
    st[k.S_LAID_COUNT] = len(state.laid)
    for i, card in enumerate(state.laid):
        st[k.S_LAID + i] = card
    for b, batch in enumerate(state.batches):
        for seat, hand in enumerate(batch):
            st[k.S_BATCHES + 4 * b + seat] = hand
    st[k.S_DOWN] = state.down
    st[k.S_KITTY] = state.kitty
    st[k.S_EXPOSED] = state.exposed
    for side, doubles in enumerate(state.jack_pistis):
        st[k.S_JACK_PISTIS + side] = doubles
    return st


def from_array(st: k.Array, table: object) -> DealState:
    """The deal state of a flat form (``table``: the rules' capture table)."""
    from basra.captures import CaptureTable

    assert isinstance(table, CaptureTable)
    rules = table.rules
    players, sides = rules.players, rules.sides
    values = [int(v) for v in st]
    batches = tuple(
        tuple(values[k.S_BATCHES + 4 * b:k.S_BATCHES + 4 * b + players])
        for b in range(values[k.S_NEXT_BATCH], values[k.S_BATCHES_COUNT]))
    laid = tuple(values[k.S_LAID:k.S_LAID + values[k.S_LAID_COUNT]])
    common = (
        table, values[k.S_DEALER], values[k.S_TO_PLAY], values[k.S_FLOOR],
        tuple(values[k.S_HANDS:k.S_HANDS + players]),
        tuple(values[k.S_PILES:k.S_PILES + sides]),
        tuple(values[k.S_BASRAS:k.S_BASRAS + sides]),
        values[k.S_LAST], batches, values[k.S_LEFTOVER],
        tuple(values[k.S_TURNS:k.S_TURNS + players]), laid,
    )
    if not table.pile:
        return DealState(*common)
    return DealState(*common, values[k.S_DOWN],
                     tuple(values[k.S_JACK_PISTIS:k.S_JACK_PISTIS + sides]),
                     values[k.S_KITTY], values[k.S_EXPOSED])


def legal_moves(fast: FastRules, st: k.Array) -> list[int]:
    """The legal moves of the seat to play, in :func:`basra.state.legal_moves` order."""
    n = k.legal_moves(fast.cfg, fast.cards, st, fast.moves, fast.options, fast.memo)
    return [int(m) for m in fast.moves[:n]]


def apply(fast: FastRules, st: k.Array, move: int) -> None:
    """Play a legal move on ``st`` in place."""
    k.apply(fast.cfg, fast.cards, st, move)


def deal_totals(fast: FastRules, st: k.Array, carry_in: int = 0) -> tuple[tuple[int, ...], int]:
    """A finished deal's total per side and the majority prize carried out."""
    total = np.zeros(4, np.int64)
    carry_out = k.deal_score(fast.cfg, fast.cards, st, carry_in, total)
    return tuple(int(t) for t in total[:fast.rules.sides]), int(carry_out)


def random_deals(fast: FastRules, deals: int, seed: int) -> int:
    """Deal, play at random and score ``deals`` deals in compiled code; a checksum."""
    return int(k.random_deals(fast.cfg, fast.cards, deals, seed))


def compile_kernels() -> float:
    """Compile (or load from the cache) every kernel search uses; the seconds it took."""
    from basra.rules import make_rules

    start = time.perf_counter()
    fast = fast_rules(make_rules("egyptian"))
    random_deals(fast, 1, 0)
    base = np.zeros(k.STATE_SIZE, np.int64)
    k.new_deal(fast.cfg, base, 0, np.array([1], np.uint64))
    moves = np.array(legal_moves(fast, base), np.int64)
    unseen = np.arange(0, 0, dtype=np.int64)
    history = np.zeros((1, k.HISTORY_COLUMNS), np.int64)
    history[0, k.H_SEAT] = 1
    history[0, k.H_MOVE] = moves[0]
    history[0, k.H_CONTEXT + k.X_FLOOR] = base[k.S_FLOOR]
    k.search(fast.cfg, fast.cards, base, unseen, np.zeros(4, np.int64),
             np.array([1, 0], np.int64), 0, 0, 0, moves, np.ones(len(moves), np.bool_), 1,
             np.ones(4, np.int64), np.array([1], np.uint64), np.zeros((4, len(moves))),
             np.zeros(len(moves), np.int64), np.zeros(4, np.int64), 101, 1.0, history,
             np.zeros(1, np.int64), np.ones(4, np.int64), 1.0, np.zeros((4, 52)))
    k.agreement(fast.cfg, fast.cards, history, np.array([1 << (moves[0] & 63)], np.int64),
                4, np.zeros(2, np.int64), fast.options, fast.memo)
    tree = np.empty((k.TREE_ROWS, len(moves) + 2), np.int64)
    sums = np.empty(len(moves) + 2)
    used = np.array([k.new_tree(fast.cfg, tree, sums, moves, 0)], np.int64)
    k.tree_search(fast.cfg, fast.cards, base, unseen, np.zeros(4, np.int64),
                  np.array([1, 0], np.int64), 0, 0, 1, np.ones(4, np.int64),
                  np.array([1], np.uint64), tree,
                  sums, used, np.zeros(4, np.int64), 101, 1.0, EXPLORATION,
                  np.zeros(4, np.int64), history, np.zeros(1, np.int64),
                  np.ones(4, np.int64), 1.0, np.zeros(2))
    return time.perf_counter() - start


class SearchStats(NamedTuple):
    """Per candidate move: the weighted sums of its sampled values and of their squares,
    the sum of the samples' weights (each 1 where no seat's plays are read), and how many
    samples it got. A move's estimate is ``sums[i] / weights[i]``. ``nodes``: how many
    nodes the tree search's tree holds (0 for flat sampling). ``dealt``: how many deals
    the tree search dealt, those its reading turned down included (0 for flat
    sampling)."""

    sums: list[float]
    squares: list[float]
    weights: list[float]
    visits: list[int]
    nodes: int = 0
    dealt: int = 0


def observation_search(observation: Observation, seconds: float, seed: int,
                       samples: int | None = None, policy: int = 1,
                       prune: bool = True, match_bonus: float = 0.0,
                       styles: Sequence[int | None] = (),
                       belief: k.FloatArray | None = None) -> SearchStats:
    """Determinized search of an observation's legal moves in compiled code.

    Each sample deals the unseen cards at random (keeping every count the seat knows),
    plays every still-active move on it and finishes the deal with the rollout
    ``policy`` (1 greedy, 3 greedy keeping its sweepers, 4 the expert's play). Searches
    until ``seconds`` pass, or exactly ``samples`` samples when that is given
    (reproducible). With ``prune``, a move whose mean value is clearly below the best
    one's (by more than three standard errors of the difference, after 24 samples) is
    dropped, and the samples go to the others. ``match_bonus``: points added to a
    sample's value when the deal ends the match with this side ahead, taken off when it
    ends behind (a match-aware objective near the target). ``styles``: per seat, the
    rollout policy that seat's play is known to follow (read from its past plays,
    :class:`basra.bots.reading.StyleReader`), or None: such a seat plays its style in the
    rollouts, and its plays of the batch weigh each sample as that style reads them
    (:func:`basra.fast.kernels.likelihood`, at temperature :data:`STYLE_TAU`).
    ``belief``: per seat and card, the log-odds that the seat holds the card (a learned
    belief, :mod:`basra.neural.belief`): each sample weighs the odds of its hands.
    """
    fast = fast_rules(observation.rules)
    base, unseen, counts, order = _search_inputs(observation)
    history, held = batch_history(observation)
    policies, models, tau = _seat_models(observation, policy, styles)
    moves = np.array(observation.legal_moves, np.int64)
    n = len(moves)
    active = np.ones(n, np.bool_)
    stats = np.zeros((4, n))
    visits = np.zeros(n, np.int64)
    rng = np.array([(seed << 1) | 1], np.uint64)
    side = observation.side
    carry = observation.carry
    totals = _match_totals(observation)
    odds = np.zeros((0, 52)) if belief is None else belief

    def run(chunk: int) -> None:
        k.search(fast.cfg, fast.cards, base, unseen, counts, order, observation.seat, side,
                 carry, moves, active, chunk, policies, rng, stats, visits, totals,
                 observation.target, match_bonus, history, held, models, tau, odds)

    def between(done: int) -> None:
        if prune and done >= 24 and active.sum() > 1:
            _prune(stats, active)

    _in_chunks(run, seconds, samples, 8, between)
    return SearchStats([float(x) for x in stats[0]], [float(x) for x in stats[1]],
                       [float(x) for x in stats[2]], [int(v) for v in visits])


def observation_tree_search(observation: Observation, seconds: float, seed: int,
                            samples: int | None = None, policy: int = 1,
                            match_bonus: float = 0.0, exploration: float = EXPLORATION,
                            styles: Sequence[int | None] = ()) -> SearchStats:
    """Information-set Monte Carlo tree search of an observation's legal moves under a
    flat root, in compiled code (:func:`basra.fast.kernels.tree_search`): for
    ``seconds``, or exactly ``samples`` deals (reproducible). Each deal plays every legal
    move on the same deal, as :func:`observation_search` does, and below each descends
    the tree of later moves through those legal on that deal, adds a node and finishes
    the deal with the rollout ``policy``. Per legal move: the sum of the values of the
    descents through it and their number (``weights`` and ``visits`` both, the same for
    every move); ``squares`` are not kept (0). ``styles``: a seat of known style plays
    it in the tree as in the rollouts (its moves are not chosen by UCB), and its plays
    of the batch keep a dealt sample with the chance that style gives them (temperature
    :data:`STYLE_TAU`, and a slip's chance, :data:`basra.fast.kernels.SLIP`) as a share
    of the likeliest deal seen (the others are dealt anew; ``dealt`` counts them all),
    so the tree plans the searching seat's later moves against that seat's real play,
    and a play no deal explains costs it few deals."""
    fast = fast_rules(observation.rules)
    base, unseen, counts, order = _search_inputs(observation)
    moves = np.array(observation.legal_moves, np.int64)
    n = len(moves)
    # a node a descent, and one for each new move of a seat of known style
    descents = 1 << 17 if samples is None else samples * n
    capacity = 4 * descents + n + 1
    tree = np.empty((k.TREE_ROWS, capacity), np.int64)
    sums = np.empty(capacity)
    used = np.array([k.new_tree(fast.cfg, tree, sums, moves, observation.side)], np.int64)
    rng = np.array([(seed << 1) | 1], np.uint64)
    totals = _match_totals(observation)
    policies, models, tau = _seat_models(observation, policy, styles)
    styled = (models >= 0).astype(np.int64)
    history, held = batch_history(observation)
    envelope = np.zeros(2)

    def run(chunk: int) -> None:
        k.tree_search(fast.cfg, fast.cards, base, unseen, counts, order, observation.seat,
                      observation.carry, chunk, policies, rng, tree, sums, used, totals,
                      observation.target, match_bonus, exploration, styled,
                      history, held, models, tau, envelope)

    _in_chunks(run, seconds, samples, 8)
    visits = [int(tree[k.T_VISITS, i + 1]) for i in range(n)]
    return SearchStats([float(sums[i + 1]) for i in range(n)], [0.0] * n,
                       [float(v) for v in visits], visits, int(used[0]),
                       int(envelope[1]))


def play_agreement(observation: Observation, batch: int, seat: int, model: int
                   ) -> tuple[int, int]:
    """Of ``seat``'s plays in an earlier ``batch`` of this deal (not the observer's own),
    how many rollout policy ``model`` tells apart from other moves, and how many of those
    it would have played (:func:`basra.fast.kernels.agreement`)."""
    history, held = batch_history(observation, batch)
    mine = history[:, k.H_SEAT] == seat
    out = np.zeros(2, np.int64)
    fast = fast_rules(observation.rules)
    k.agreement(fast.cfg, fast.cards, np.ascontiguousarray(history[mine]),
                np.ascontiguousarray(held[mine]), model, out, fast.options, fast.memo)
    return int(out[0]), int(out[1])


def _seat_models(observation: Observation, policy: int, styles: Sequence[int | None]
                 ) -> tuple[k.Array, k.Array, float]:
    """Each seat's rollout policy, the model its plays are read with (-1: none) and the
    temperature of that reading: ``policy`` everywhere and no reading, but a seat of
    known style plays and is read by its style (at :data:`STYLE_TAU`)."""
    policies = np.full(4, policy, np.int64)
    models = np.full(4, -1, np.int64)
    tau = 0.0
    for seat in observation.seats:
        if seat == observation.seat:
            continue
        style = styles[seat] if seat < len(styles) else None
        if style is not None:
            policies[seat] = models[seat] = style
            tau = STYLE_TAU
    return policies, models, tau


def _match_totals(observation: Observation) -> k.Array:
    totals = np.zeros(4, np.int64)
    for side, points in enumerate(observation.totals):
        totals[side] = points
    return totals


def _in_chunks(run: Callable[[int], None], seconds: float, samples: int | None, chunk: int,
               between: Callable[[int], None] | None = None) -> None:
    """Call ``run(n)`` for chunks of about 10 ms each until ``seconds`` pass, or for
    chunks that double up to 256 until exactly ``samples`` in all when that is given (so
    that the search does not depend on the machine's speed); ``between(done)`` after
    each chunk but the last."""
    deadline = time.perf_counter() + seconds
    done = 0
    while True:
        if samples is not None:
            chunk = min(chunk, samples - done)
        started = time.perf_counter()
        run(chunk)
        done += chunk
        now = time.perf_counter()
        if (done >= samples) if samples is not None else now >= deadline:
            return
        if between is not None:
            between(done)
        if samples is not None:
            # chunks that do not depend on the clock: the same ``between`` calls each time
            chunk = min(chunk * 2, 256)
            continue
        took = max(now - started, 1e-6)
        chunk = max(1, min(chunk * 2, int(chunk * 0.01 / took) or 1))
        chunk = max(1, min(chunk, int(chunk * (deadline - now) / took)))


def _prune(stats: k.FloatArray, active: k.BoolArray) -> None:
    """Drop the moves clearly worse than the best active one (weighted means; the
    standard errors use each move's effective number of samples)."""
    sums, squares, weights, squared_weights = stats
    tiny = 1e-300
    means = sums / np.maximum(weights, tiny)
    variances = squares / np.maximum(weights, tiny) - means * means
    effective = weights * weights / np.maximum(squared_weights, tiny)
    errors = np.sqrt(np.maximum(variances, 1.0) / np.maximum(effective, 1.0))
    best = int(np.argmax(np.where(active, means, -np.inf)))
    for i in range(len(active)):
        if active[i] and i != best:
            gap = means[best] - means[i]
            if gap > 3.0 * float(np.hypot(errors[best], errors[i])):
                active[i] = False


def batch_history(observation: Observation, batch: int | None = None
                  ) -> tuple[k.Array, k.Array]:
    """The other seats' plays of the batch being played (or of an earlier ``batch`` of
    this deal, counted from 1), for inference: one row per play (``kernels.H_*``
    columns: the seat, its move and what it knew when it chose it), and per row the cards
    that seat has played since then in this batch, that play's card included (it held
    them all at that moment; of a finished batch, its whole hand)."""
    rules = observation.rules
    players = len(observation.seats)
    per_batch = players * rules.hand_size
    floor = observation.initial_floor
    piles = [0] * 4
    batch = observation.batch if batch is None else batch
    first = (batch - 1) * per_batch
    played = [0] * players  # plays of each seat in this batch so far
    late = observation.stock_count == 0 and batch == observation.batch
    rows: list[list[int]] = []
    for index, play in enumerate(observation.plays):
        if index >= first + per_batch:
            break
        if index >= first:
            if play.seat != observation.seat:
                following = observation.turns[play.seat]
                row = [0] * k.HISTORY_COLUMNS
                row[k.H_SEAT] = play.seat
                row[k.H_MOVE] = play.card | play.captured << 6
                context = k.H_CONTEXT
                row[context + k.X_FLOOR] = floor
                row[context + k.X_UNSEEN] = floor | piles[0] | piles[1] | piles[2] | piles[3]
                # the batch goes on after it (this seat is still to play in it)
                row[context + k.X_REPLY_HAND] = rules.hand_size - played[following]
                row[context + k.X_LATE] = late
                row[context + k.X_PARTNER] = (rules.side_of[following]
                                              == rules.side_of[play.seat])
                row[k.H_PILES:k.H_PILES + 4] = piles
                rows.append(row)
            played[play.seat] += 1
        if play.captured:
            floor ^= play.captured
            piles[rules.side_of[play.seat]] |= play.captured | 1 << play.card
        else:
            floor |= 1 << play.card
    history = np.array(rows, np.int64).reshape(len(rows), k.HISTORY_COLUMNS)
    held = np.zeros(len(rows), np.int64)
    for j, row in enumerate(rows):
        for later in rows[j:]:
            if later[k.H_SEAT] == row[k.H_SEAT]:
                held[j] |= 1 << (later[k.H_MOVE] & 63)
    return history, held


def _search_inputs(observation: Observation) -> tuple[k.Array, k.Array, k.Array, k.Array]:
    """What the compiled sampler needs, from the observation alone: the known part of the
    state, the unseen cards, each seat's hand size (in a pile game, then where the
    face-down cards it was not shown lie and the cards at the stock's bottom:
    :func:`basra.fast.kernels.sample_into`) and the dealing order."""
    base = np.zeros(k.STATE_SIZE, np.int64)
    base[k.S_TO_PLAY] = observation.to_play
    base[k.S_FLOOR] = observation.floor
    base[k.S_HANDS + observation.seat] = observation.hand
    for side, pile in enumerate(observation.piles):
        base[k.S_PILES + side] = pile
    for side, basras in enumerate(observation.basras):
        base[k.S_BASRAS + side] = basras
    base[k.S_LAST] = observation.last_capturer
    base[k.S_DEALER] = observation.dealer
    turns = observation.turns
    for seat, following in enumerate(turns):
        base[k.S_TURNS + seat] = following
    pile = observation.rules.family in PILE_FAMILIES
    laid = observation.pile if pile else observation.laid
    base[k.S_LAID_COUNT] = len(laid)
    for i, card in enumerate(laid):
        base[k.S_LAID + i] = card  # -1: a face-down card the sampler deals
    places = hidden_places(observation)
    for seat, known in enumerate(places.known):
        if seat != observation.seat:
            base[k.S_HANDS + seat] = known
    unseen_mask = places.unseen
    unseen = np.array([c for c in range(52) if unseen_mask >> c & 1], np.int64)
    counts = np.zeros(k.PILE_COUNTS if pile else 4, np.int64)
    for seat, count in enumerate(observation.hand_counts):
        counts[seat] = count
    if pile:
        base[k.S_KITTY] = places.kitty
        base[k.S_DOWN] = observation.down_seen  # the sampler adds the hidden ones
        base[k.S_EXPOSED] = observation.stock_shown | (
            1 << observation.bottom_card if observation.bottom_card >= 0 else 0)
        for side, doubles in enumerate(observation.jack_pistis):
            base[k.S_JACK_PISTIS + side] = doubles
        for side, hidden in enumerate(places.captured):
            counts[k.P_HIDDEN + side] = hidden
        counts[k.P_TAIL_COUNT] = len(places.tail)
        for i, card in enumerate(places.tail):
            counts[k.P_TAIL + i] = card
    order = np.array(playing_order(turns, observation.dealer), np.int64)
    return base, unseen, counts, order


def sample_observation(observation: Observation, seed: int) -> DealState:
    """One deal the compiled search could sample for an observation (for tests)."""
    fast = fast_rules(observation.rules)
    base, unseen, counts, order = _search_inputs(observation)
    st = np.zeros(k.STATE_SIZE, np.int64)
    k.sample_into(fast.cfg, base, unseen, counts, order, observation.seat,
                  np.array([(seed << 1) | 1], np.uint64), st)
    return from_array(st, fast.table)
