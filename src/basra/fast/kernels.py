"""The compiled kernels: captures, moves, plays, playouts, scoring and sampled search.

Every function here is compiled by numba in nopython mode (``cache=True``: the machine
code is kept next to this file, or in ``NUMBA_CACHE_DIR``, so a second start loads it).
They mirror :mod:`basra.captures` and :mod:`basra.state` rule for rule on a flat layout:

* ``cfg`` (int64[CFG_SIZE]): the rules' options as numbers (see ``C_*`` below);
* ``cards`` (int64[4, 52]): per card its kind, points, whether it sweeps a whole floor
  and whether its capture is a basra exactly when it clears the floor;
* ``st`` (int64[STATE_SIZE]): one deal state (see ``S_*``), changed in place.

The reference core stays the definition of the rules; ``tests/test_fast.py`` plays
random deals through both and compares every state.

They are one module, though they hold several jobs (the rules, the rollout policies,
sampling and inference, flat and tree search), because numba's cache checks only the
file of the function it loads: a cached search would keep running the old code of a
rule changed in another file (numba issues #1833 and #9483). Split them only with a
cache that tracks what each function calls.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
UArray = npt.NDArray[np.uint64]
_F = TypeVar("_F", bound=Callable[..., Any])


def njit(**options: Any) -> Callable[[_F], _F]:
    """numba's ``njit``, typed: the compiled function keeps its annotated signature."""
    return cast(Callable[[_F], _F], numba.njit(**options))


# cfg slots
C_FAMILY = 0  # 0 basra, 1 pasur, 2 the pile games (Pişti and Xeri)
C_PLAYERS = 1
C_SIDES = 2
C_SUMS = 3
C_OPTIONAL = 4
C_LATE_BASRA = 5
C_LAST_PLAY_BASRA = 6
C_ORDERED = 7
C_BASRA_RULE = 8  # 0 clear, 1 lone
C_JACK_BASRA = 9  # 0 never, 1 lone, 2 lone_or_pair
C_BASRA_POINTS = 10
C_BASRA_CANCEL = 11
C_MAJORITY_POINTS = 12
C_MAJORITY_MIN = 13
C_MAJORITY_TIE = 14  # 0 none, 1 carry, 2 double
C_CLUBS_POINTS = 15
C_CLUBS_MIN = 16
C_HAND_SIZE = 17
C_FLOOR_SIZE = 18
C_FLOOR_REDEAL = 19
C_SIDE_OF = 20  # 4 slots
C_BURY = 24  # the bury mask
# the pile games
C_PISTI_POINTS = 25
C_JACK_PISTI_POINTS = 26
C_JACK_PISTI = 27  # 0 never, 1 lone
C_LAST_PLAY_PISTI = 28
C_PILE_DOWN = 29
C_CENTRE_JACK = 30  # 0 turn_next, 1 to_stock
C_BOTTOM_SHOWN = 31
C_PILE_REDEAL = 32  # 0 none, 1 pair_or_jack, 2 top_pair_or_jack
CFG_SIZE = 40

PILE_FAMILY = 2

# cards rows
K_KIND = 0
K_POINTS = 1
K_SWEEPS = 2
K_CLEARS = 3

# card kinds (as basra.captures)
NUMERAL = 0
JACK_KIND = 1
COURT = 2
SEVEN_SWEEP = 3
SEVEN_SMALL = 4

# st slots
S_TO_PLAY = 0
S_FLOOR = 1
S_HANDS = 2  # 4 slots
S_PILES = 6  # 4 slots
S_BASRAS = 10  # 4 slots
S_LAST = 14
S_LEFTOVER = 15
S_NEXT_BATCH = 16
S_BATCHES_COUNT = 17
S_DEALER = 18
S_TURNS = 19  # 4 slots
S_LAID_COUNT = 23
S_LAID = 24  # 52 slots
S_BATCHES = 76  # 26 batches of 4 hands
# the pile games: the pile is S_FLOOR (its cards) and S_LAID (bottom to top; its size
# S_LAID_COUNT, its top card the last one)
S_DOWN = 180  # the cards the first pile was dealt face down with
S_KITTY = 181  # the seat that captured them, -1 before
S_EXPOSED = 182  # the stock cards every seat saw at the deal
S_JACK_PISTIS = 183  # 4 slots: each side's double piştis (S_BASRAS counts every pişti)
STATE_SIZE = 192

MAX_OPTIONS = 1024
MAX_MOVES = 4096

NUMERALS = (1 << 40) - 1
JACKS = 0b1111 << 40
JACK_RANK = 10
CLUBS = sum(1 << card for card in range(3, 52, 4))


_U = np.uint64
_M1 = _U(0x5555555555555555)
_M2 = _U(0x3333333333333333)
_M4 = _U(0x0F0F0F0F0F0F0F0F)
_H01 = _U(0x0101010101010101)
_GOLDEN = _U(0x9E3779B97F4A7C15)
_STAR = _U(0x2545F4914F6CDD1D)
# Wrapping arithmetic is done on unsigned words: signed overflow is undefined to the
# compiler, which may then miscompile the code around it.


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    y = _U(x)
    y = y - ((y >> _U(1)) & _M1)
    y = (y & _M2) + ((y >> _U(2)) & _M2)
    y = (y + (y >> _U(4))) & _M4
    return int(np.int64((y * _H01) >> _U(56)))


@njit(cache=True, inline="always")
def low_index(x: int) -> int:
    """The index of the lowest set bit of a non-zero mask."""
    return popcount((x & -x) - 1)


@njit(cache=True, inline="always")
def pip_total(mask: int) -> int:
    total = 0
    mask &= NUMERALS
    while mask:
        card = low_index(mask)
        total += (card >> 2) + 1
        mask &= mask - 1
    return total


@njit(cache=True)
def _record(used: int, used_n: int, best: Array, out: Array,
            count: Array) -> None:
    if used_n > best[0]:
        best[0] = used_n
        count[0] = 0
    if used_n == best[0]:
        for k in range(count[0]):
            if out[k] == used:
                return
        if count[0] >= out.shape[0]:
            raise ValueError("too many capture options for the compiled path")
        out[count[0]] = used
        count[0] += 1


@njit(cache=True)
def _pack(vals: Array, bits: Array, value: int, n: int, best: Array, out: Array,
          count: Array) -> None:
    """Every largest union of disjoint groups summing to ``value`` (Basra's sums) among
    the ``n`` cards of ``bits`` (ascending value ``vals``), into ``out``.

    A depth-first search on an explicit stack (numba's cache cannot hold recursive
    functions): a frame is the free cards (a mask of indices), the cards used so far,
    the group being built and what it still lacks. The lowest free card is either left
    out or starts a group; a group grows by higher free cards."""
    size = n * (2 * n + 2) + 4  # depth at most 2n, each frame pushes at most n + 1
    stack = np.empty((size, 7), np.int64)
    stack[0, 0] = (1 << n) - 1
    stack[0, 1:] = 0
    top = 1
    while top:
        top -= 1
        rem = stack[top, 0]
        used = stack[top, 1]
        used_n = stack[top, 2]
        group = stack[top, 3]
        group_n = stack[top, 4]
        need = stack[top, 5]
        start = stack[top, 6]
        if group_n > 0 and need == 0:
            used |= group
            used_n += group_n
            group = 0
            group_n = 0
        if used_n + group_n + popcount(rem) < best[0]:
            continue
        if top + n + 2 >= size:
            raise ValueError("capture search too deep for the compiled path")
        if group_n == 0:
            if rem == 0:
                _record(used, used_n, best, out, count)
                continue
            i = low_index(rem)
            rest = rem & (rem - 1)
            stack[top, 0] = rest
            stack[top, 1] = used
            stack[top, 2] = used_n
            stack[top, 3:] = 0
            top += 1
            stack[top, 0] = rest
            stack[top, 1] = used
            stack[top, 2] = used_n
            stack[top, 3] = bits[i]
            stack[top, 4] = 1
            stack[top, 5] = value - vals[i]
            stack[top, 6] = i + 1
            top += 1
            continue
        scan = rem >> start
        j = start
        while scan:
            if scan & 1:
                if vals[j] > need:
                    break
                stack[top, 0] = rem & ~(1 << j)
                stack[top, 1] = used
                stack[top, 2] = used_n
                stack[top, 3] = group | bits[j]
                stack[top, 4] = group_n + 1
                stack[top, 5] = need - vals[j]
                stack[top, 6] = j + 1
                top += 1
            scan >>= 1
            j += 1


@njit(cache=True)
def _sort_head(out: Array, n: int) -> None:
    for i in range(1, n):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x


MEMO_SLOTS = 1 << 14  # _slot takes the top 14 bits of a hash
MEMO_WIDTH = 6  # key, count, up to four options


@njit(cache=True)
def new_memo() -> Array:
    """An empty memo of capture options (one per rules value and kernel call)."""
    memo = np.zeros((MEMO_SLOTS, MEMO_WIDTH), np.int64)
    memo[:, 0] = -1
    return memo


@njit(cache=True, inline="always")
def _slot(key: int) -> int:
    return int(np.int64((_U(key) * _GOLDEN) >> _U(64 - 14)))


@njit(cache=True, inline="always")
def _memo_get(memo: Array, key: int, out: Array) -> int:
    slot = _slot(key)
    if memo[slot, 0] != key:
        return -1
    found = int(memo[slot, 1])
    for i in range(found):
        out[i] = memo[slot, 2 + i]
    return found


@njit(cache=True)
def _memo_put(memo: Array, key: int, out: Array, found: int) -> None:
    if found > MEMO_WIDTH - 2:
        return
    slot = _slot(key)
    memo[slot, 0] = key
    memo[slot, 1] = found
    for i in range(found):
        memo[slot, 2 + i] = out[i]


@njit(cache=True, inline="always")
def numeral_options(cfg: Array, value: int, floor: int, out: Array, memo: Array) -> int:
    """Basra: the capture options of a numeral of ``value`` into ``out``; their number."""
    matches = floor & (0b1111 << (4 * (value - 1)))
    if not cfg[C_SUMS]:
        if matches:
            out[0] = matches
            return 1
        return 0
    below = floor & ((1 << (4 * (value - 1))) - 1)
    if below == 0:
        if matches:
            out[0] = matches
            return 1
        return 0
    key = value | below << 4
    found = _memo_get(memo, key, out)
    if found < 0:
        n = popcount(below)
        vals = np.empty(n, np.int64)
        bits = np.empty(n, np.int64)
        rest = below
        for k in range(n):
            card = low_index(rest)
            vals[k] = (card >> 2) + 1
            bits[k] = 1 << card
            rest &= rest - 1
        best = np.zeros(1, np.int64)
        count = np.zeros(1, np.int64)
        _pack(vals, bits, value, n, best, out, count)
        found = count[0] if best[0] else 0
        _sort_head(out, found)
        _memo_put(memo, key, out, found)
    if found == 0:
        if matches:
            out[0] = matches
            return 1
        return 0
    for k in range(found):
        out[k] |= matches
    return found


@njit(cache=True)
def _sums(vals: Array, bits: Array, n: int, total: int, out: Array) -> int:
    """Every set of the ``n`` cards (ascending value) adding up to ``total`` (Pasur's
    capture), into ``out``; their number. Depth first on an explicit stack."""
    size = n * 11 + 2  # depth at most the total (10), each frame pushes at most n
    stack = np.empty((size, 3), np.int64)  # start, need, chosen
    stack[0, 0] = 0
    stack[0, 1] = total
    stack[0, 2] = 0
    top = 1
    count = 0
    while top:
        top -= 1
        start = stack[top, 0]
        need = stack[top, 1]
        chosen = stack[top, 2]
        if need == 0:
            if count >= out.shape[0]:
                raise ValueError("too many capture options for the compiled path")
            out[count] = chosen
            count += 1
            continue
        if top + n >= size:
            raise ValueError("capture search too deep for the compiled path")
        for j in range(start, n):
            if vals[j] > need:
                break
            stack[top, 0] = j + 1
            stack[top, 1] = need - vals[j]
            stack[top, 2] = chosen | bits[j]
            top += 1
    return count


@njit(cache=True, inline="always")
def capture_options(cfg: Array, cards: Array, card: int, floor: int,
                    out: Array, memo: Array) -> int:
    """Every capture ``card`` can make on ``floor``, sorted, into ``out``; their number."""
    kind = cards[K_KIND, card]
    if cfg[C_FAMILY] == 1:  # pasur
        if kind == NUMERAL:
            total = 10 - (card >> 2)
            pool = floor & ((1 << (4 * total)) - 1)
            key = total | pool << 4
            found = _memo_get(memo, key, out)
            if found >= 0:
                return found
            n = popcount(pool)
            vals = np.empty(n, np.int64)
            bits = np.empty(n, np.int64)
            rest = pool
            for k in range(n):
                c = low_index(rest)
                vals[k] = (c >> 2) + 1
                bits[k] = 1 << c
                rest &= rest - 1
            found = _sums(vals, bits, n, total, out)
            _sort_head(out, found)
            _memo_put(memo, key, out, found)
            return found
        if kind == JACK_KIND:
            taken = floor & (NUMERALS | JACKS)
            if taken:
                out[0] = taken
                return 1
            return 0
        same = floor & (0b1111 << (4 * (card >> 2)))
        k = 0
        while same:
            out[k] = same & -same
            same &= same - 1
            k += 1
        return k
    if kind == NUMERAL:
        return numeral_options(cfg, (card >> 2) + 1, floor, out, memo)
    if kind in (JACK_KIND, SEVEN_SWEEP):
        if floor:
            out[0] = floor
            return 1
        return 0
    if kind == COURT:
        same = floor & (0b1111 << (4 * (card >> 2)))
        if same:
            out[0] = same
            return 1
        return 0
    # SEVEN_SMALL
    if floor and pip_total(floor) <= 10:
        out[0] = floor
        return 1
    return numeral_options(cfg, 7, floor, out, memo)


@njit(cache=True, inline="always")
def _jack_basra(cfg: Array, floor: int) -> bool:
    count = popcount(floor)
    rule = cfg[C_JACK_BASRA]
    return (rule == 1 and count == 1) or (rule == 2 and count <= 2)


@njit(cache=True, inline="always")
def is_basra(cfg: Array, cards: Array, floor: int, card: int,
             captured: int) -> bool:
    """Whether the capture is a basra (before the last-play and last-batch rules)."""
    if not captured:
        return False
    kind = cards[K_KIND, card]
    if cfg[C_FAMILY] == 1:
        if kind == JACK_KIND:
            return _jack_basra(cfg, floor)
        return captured == floor
    if kind == JACK_KIND:
        if _jack_basra(cfg, floor):
            return True
        return cfg[C_BASRA_RULE] == 1 and popcount(floor) == 1 and (floor & JACKS) != 0
    if kind == SEVEN_SWEEP:
        return (floor & ~NUMERALS) == 0 and pip_total(floor) <= 10
    if kind == SEVEN_SMALL and pip_total(floor) <= 10:
        return True
    if cfg[C_BASRA_RULE] == 0:
        return captured == floor
    return captured == floor and popcount(floor) == 1


@njit(cache=True)
def hand_moves(cfg: Array, cards: Array, hand: int, floor: int,
               moves: Array, options: Array, memo: Array) -> int:
    """The legal moves of ``hand`` on ``floor`` into ``moves`` (lowest card first, as
    :func:`basra.state.legal_moves`); their number."""
    n = 0
    optional = cfg[C_OPTIONAL]
    while hand:
        card = low_index(hand)
        hand &= hand - 1
        if floor and cards[K_SWEEPS, card]:
            k = 1
            options[0] = floor
        else:
            k = capture_options(cfg, cards, card, floor, options, memo)
        if k:
            for i in range(k):
                moves[n] = card | options[i] << 6
                n += 1
            if optional:
                moves[n] = card
                n += 1
        else:
            moves[n] = card
            n += 1
    return n


@njit(cache=True, inline="always")
def pile_capture(st: Array, card: int) -> int:
    """Pile games: what ``card`` takes from the pile (spec 9.4): the whole non-empty pile
    when it is a Jack or has the top card's rank, else nothing (it is laid on top)."""
    floor = st[S_FLOOR]
    if floor and (card >> 2 == JACK_RANK
                  or card >> 2 == st[S_LAID + st[S_LAID_COUNT] - 1] >> 2):
        return int(floor)
    return 0


@njit(cache=True, inline="always")
def pile_moves(st: Array, hand: int, moves: Array) -> int:
    """Pile games: the legal moves of ``hand`` into ``moves``, one a card, lowest first
    (as :func:`basra.state.legal_moves`); their number."""
    n = 0
    while hand:
        card = low_index(hand)
        hand &= hand - 1
        moves[n] = card | pile_capture(st, card) << 6
        n += 1
    return n


@njit(cache=True, inline="always")
def state_moves(cfg: Array, cards: Array, st: Array, moves: Array, options: Array,
                memo: Array) -> int:
    """The legal moves of the seat to play on ``st`` into ``moves``; their number."""
    hand = st[S_HANDS + st[S_TO_PLAY]]
    if cfg[C_FAMILY] == PILE_FAMILY:
        return pile_moves(st, hand, moves)
    return hand_moves(cfg, cards, hand, st[S_FLOOR], moves, options, memo)


@njit(cache=True, inline="always")
def legal_moves(cfg: Array, cards: Array, st: Array, moves: Array, options: Array,
                memo: Array) -> int:
    return state_moves(cfg, cards, st, moves, options, memo)


@njit(cache=True, inline="always")
def pisti_kind(cfg: Array, floor: int, card: int) -> int:
    """Pile games: 0, 1 (a pişti) or 2 (a double pişti) for ``card`` capturing a pile of
    exactly one card, ``floor`` (as :meth:`basra.captures.PileCaptures.pisti_kind`)."""
    if card >> 2 == JACK_RANK:
        if floor & JACKS:
            return 2
        return 1 if cfg[C_JACK_PISTI] else 0
    return 1 if floor & (0b1111 << (4 * (card >> 2))) else 0


@njit(cache=True, inline="always")
def apply_pile(cfg: Array, st: Array, move: int) -> None:
    """:func:`apply` in a pile game (as :func:`basra.state._apply_pile`): the card takes
    the whole pile or is laid on top; a pişti counts unless it is the deal's last play
    and ``last_play_pisti`` is off; at the end the pile left goes to the last capturer."""
    seat = st[S_TO_PLAY]
    card = move & 63
    bit = 1 << card
    hand = st[S_HANDS + seat] ^ bit
    st[S_HANDS + seat] = hand
    following = st[S_TURNS + seat]
    round_over = hand == 0 and following == st[S_TURNS + st[S_DEALER]]
    floor = st[S_FLOOR]
    batches_left = st[S_NEXT_BATCH] < st[S_BATCHES_COUNT]
    if move >> 6:
        side = cfg[C_SIDE_OF + seat]
        st[S_PILES + side] |= floor | bit
        if st[S_LAID_COUNT] == 1 and (batches_left or cfg[C_LAST_PLAY_PISTI]
                                      or not round_over):
            kind = pisti_kind(cfg, floor, card)
            if kind:
                st[S_BASRAS + side] += 1
                if kind == 2:
                    st[S_JACK_PISTIS + side] += 1
        if st[S_DOWN] and st[S_KITTY] < 0:
            st[S_KITTY] = seat
        floor = 0
        st[S_LAID_COUNT] = 0
        st[S_LAST] = seat
    else:
        floor |= bit
        st[S_LAID + st[S_LAID_COUNT]] = card
        st[S_LAID_COUNT] += 1
    st[S_TO_PLAY] = following
    if round_over:
        if batches_left:
            base = S_BATCHES + 4 * st[S_NEXT_BATCH]
            for s in range(4):
                st[S_HANDS + s] = st[base + s]
            st[S_NEXT_BATCH] += 1
        elif st[S_LAST] >= 0 and floor:
            st[S_PILES + cfg[C_SIDE_OF + st[S_LAST]]] |= floor
            if st[S_DOWN] and st[S_KITTY] < 0:
                st[S_KITTY] = st[S_LAST]
            st[S_LEFTOVER] = floor
            floor = 0
    st[S_FLOOR] = floor


@njit(cache=True, inline="always")
def is_over(st: Array) -> bool:
    if st[S_NEXT_BATCH] < st[S_BATCHES_COUNT]:
        return False
    return bool(st[S_HANDS] == 0 and st[S_HANDS + 1] == 0 and st[S_HANDS + 2] == 0
                and st[S_HANDS + 3] == 0)


@njit(cache=True)
def apply(cfg: Array, cards: Array, st: Array, move: int) -> None:
    """Play ``move`` (one of the legal moves) on ``st`` in place, as
    :func:`basra.state.apply`."""
    if cfg[C_FAMILY] == PILE_FAMILY:
        apply_pile(cfg, st, move)
        return
    seat = st[S_TO_PLAY]
    card = move & 63
    captured = move >> 6
    bit = 1 << card
    hand = st[S_HANDS + seat] ^ bit
    st[S_HANDS + seat] = hand
    following = st[S_TURNS + seat]
    dealer = st[S_DEALER]
    round_over = hand == 0 and following == st[S_TURNS + dealer]
    floor = st[S_FLOOR]
    batches_left = st[S_NEXT_BATCH] < st[S_BATCHES_COUNT]
    ordered = cfg[C_ORDERED]
    if captured:
        side = cfg[C_SIDE_OF + seat]
        st[S_PILES + side] |= captured | bit
        if cards[K_CLEARS, card]:
            basra = captured == floor
        else:
            basra = is_basra(cfg, cards, floor, card, captured)
        if basra and (batches_left or (cfg[C_LATE_BASRA] and (
                cfg[C_LAST_PLAY_BASRA] or not round_over))):
            st[S_BASRAS + side] += 1
        floor ^= captured
        if ordered:
            kept = 0
            for i in range(st[S_LAID_COUNT]):
                c = st[S_LAID + i]
                if not (captured >> c) & 1:
                    st[S_LAID + kept] = c
                    kept += 1
            st[S_LAID_COUNT] = kept
        st[S_LAST] = seat
    else:
        floor |= bit
        if ordered:
            st[S_LAID + st[S_LAID_COUNT]] = card
            st[S_LAID_COUNT] += 1
    st[S_TO_PLAY] = following
    if round_over:
        if batches_left:
            base = S_BATCHES + 4 * st[S_NEXT_BATCH]
            for s in range(4):
                st[S_HANDS + s] = st[base + s]
            st[S_NEXT_BATCH] += 1
        elif floor and ordered:
            last = st[S_LAST]
            s = st[S_TURNS + (last if last >= 0 else dealer)]
            for i in range(st[S_LAID_COUNT]):
                st[S_PILES + cfg[C_SIDE_OF + s]] |= 1 << st[S_LAID + i]
                s = st[S_TURNS + s]
            st[S_LEFTOVER] = floor
            floor = 0
        elif st[S_LAST] >= 0 and floor:
            st[S_PILES + cfg[C_SIDE_OF + st[S_LAST]]] |= floor
            st[S_LEFTOVER] = floor
            floor = 0
    st[S_FLOOR] = floor


@njit(cache=True)
def _strict_leader(counts: Array, sides: int, fewest: int) -> int:
    top = counts[0]
    for s in range(1, sides):
        if counts[s] > top:
            top = counts[s]
    leader = -1
    for s in range(sides):
        if counts[s] == top:
            if leader >= 0:
                return -1
            leader = s
    if top >= fewest:
        return leader
    return -1


@njit(cache=True)
def deal_score(cfg: Array, cards: Array, st: Array, carry_in: int,
               total: Array) -> int:
    """The finished deal's total per side into ``total`` (as
    :func:`basra.state.deal_score`); returns the carry-out."""
    sides = cfg[C_SIDES]
    playing = np.zeros(4, np.bool_)
    first = st[S_TURNS + st[S_DEALER]]
    s = first
    while True:
        playing[cfg[C_SIDE_OF + s]] = True
        s = st[S_TURNS + s]
        if s == first:
            break
    counts = np.empty(sides, np.int64)
    for side in range(sides):
        counts[side] = popcount(st[S_PILES + side]) if playing[side] else -1
        total[side] = 0
    prize = cfg[C_MAJORITY_POINTS] + carry_in
    top = counts[0]
    for side in range(1, sides):
        top = max(top, counts[side])
    tied = 0
    for side in range(sides):
        if counts[side] == top:
            tied += 1
    leader = _strict_leader(counts, sides, cfg[C_MAJORITY_MIN])
    carry_out = 0
    if leader >= 0:
        total[leader] += prize
    elif tied > 1 and cfg[C_MAJORITY_TIE] == 1:
        carry_out = prize
    elif tied > 1 and cfg[C_MAJORITY_TIE] == 2:
        carry_out = 2 * prize - cfg[C_MAJORITY_POINTS]
    for side in range(sides):
        pile = st[S_PILES + side]
        while pile:
            total[side] += cards[K_POINTS, low_index(pile)]
            pile &= pile - 1
    points = cfg[C_BASRA_POINTS]
    if cfg[C_FAMILY] == PILE_FAMILY:
        for side in range(sides):
            jack = st[S_JACK_PISTIS + side]
            total[side] += ((st[S_BASRAS + side] - jack) * cfg[C_PISTI_POINTS]
                            + jack * cfg[C_JACK_PISTI_POINTS])
    elif cfg[C_BASRA_CANCEL]:
        fewest = 1 << 40
        for side in range(sides):
            if playing[side]:
                fewest = min(fewest, st[S_BASRAS + side])
        for side in range(sides):
            if playing[side]:
                total[side] += (st[S_BASRAS + side] - fewest) * points
    else:
        for side in range(sides):
            total[side] += st[S_BASRAS + side] * points
    if cfg[C_CLUBS_POINTS]:
        for side in range(sides):
            counts[side] = popcount(st[S_PILES + side] & CLUBS) if playing[side] else -1
        winner = _strict_leader(counts, sides, cfg[C_CLUBS_MIN])
        if winner >= 0:
            total[winner] += cfg[C_CLUBS_POINTS]
    return carry_out


# Random numbers: xorshift64* in a one-slot array, so every kernel is reproducible.


@njit(cache=True, inline="always")
def next_random(rng: UArray) -> int:
    """40 random bits; ``rng`` (uint64[1]) holds the xorshift64* state."""
    x = rng[0]
    x ^= x >> _U(12)
    x ^= x << _U(25)
    x ^= x >> _U(27)
    rng[0] = x
    return int(np.int64((x * _STAR) >> _U(24)))


@njit(cache=True, inline="always")
def random_below(rng: UArray, n: int) -> int:
    return (next_random(rng) * n) >> 40


_apply_inline = njit(cache=True, inline="always")(apply.py_func)  # type: ignore[attr-defined]
_hand_moves_inline = njit(cache=True, inline="always")(hand_moves.py_func)  # type: ignore[attr-defined]
"""The same functions, inlined where a playout loop calls them (each call of the shared
ones passes and reference-counts every array)."""


@njit(cache=True)
def random_playout(cfg: Array, cards: Array, st: Array, rng: UArray,
                   moves: Array, options: Array, memo: Array) -> None:
    """Uniformly random legal moves to the end of the deal (in place)."""
    if cfg[C_FAMILY] == PILE_FAMILY:
        # one move a card in hand: a uniformly random card is a uniformly random move
        while not is_over(st):
            hand = st[S_HANDS + st[S_TO_PLAY]]
            for _ in range(random_below(rng, popcount(hand))):
                hand &= hand - 1
            card = low_index(hand)
            apply_pile(cfg, st, card | pile_capture(st, card) << 6)
        return
    while not is_over(st):
        hand = st[S_HANDS + st[S_TO_PLAY]]
        n = _hand_moves_inline(cfg, cards, hand, st[S_FLOOR], moves, options, memo)
        _apply_inline(cfg, cards, st, moves[random_below(rng, n)])


@njit(cache=True)
def move_value(cfg: Array, cards: Array, floor: int, move: int) -> float:
    """:func:`basra.bots.simple.move_value` (not the last play). In a pile game: a
    capture is worth its cards' points, half a point a card and a pişti's points (a pile
    of one card, ``floor``, taken by its rank, or a Jack's double pişti), so the greedy
    player always captures when it can and prefers a pişti; a card laid is worth minus
    its points and a hundredth of its rank, so it lays the card that hands the next
    player the fewest points, the lowest of those."""
    card = move & 63
    captured = move >> 6
    if not captured:
        return float(-cards[K_POINTS, card] - (card >> 2) / 100)
    taken = captured | 1 << card
    value = 0.5 * popcount(taken)
    while taken:
        value += cards[K_POINTS, low_index(taken)]
        taken &= taken - 1
    if cfg[C_FAMILY] == PILE_FAMILY:
        if popcount(floor) == 1:
            kind = pisti_kind(cfg, floor, card)
            if kind == 1:
                value += cfg[C_PISTI_POINTS]
            elif kind == 2:
                value += cfg[C_JACK_PISTI_POINTS]
    elif is_basra(cfg, cards, floor, card, captured):
        value += cfg[C_BASRA_POINTS]
    return value


SWEEPER_KEEP = 8.0
"""What a Jack (or sweeping 7♦) is worth kept for a richer floor while the stock lasts (as
:data:`basra.bots.expert.SWEEPER_KEEP`)."""


@njit(cache=True)
def kept_value(cfg: Array, cards: Array, floor: int, move: int, early: bool) -> float:
    """:func:`move_value`, less :data:`SWEEPER_KEEP` for a capture with a Jack or a
    sweeping 7♦ while more hands are to come (``early``): the greedy value of a player
    who keeps its sweepers for a rich floor."""
    value = move_value(cfg, cards, floor, move)
    if early and move >> 6 and cards[K_KIND, move & 63] != NUMERAL and (
            cards[K_KIND, move & 63] != COURT):
        value -= SWEEPER_KEEP
    return value


PILE_JACK_KEEP = 3.0
"""Pile games: what a Jack is worth kept while more hands are to come (policy 5,
:func:`pile_value`, as :data:`basra.bots.search.PILE_JACK_KEEP`): it takes any pile."""


@njit(cache=True)
def pile_value(cfg: Array, cards: Array, st: Array, move: int) -> float:
    """Pile games, rollout policy 5 (greedy for piles, as
    :func:`basra.bots.search.pile_move_value`): a capture is worth :func:`move_value`
    (its cards' points, half a point a card, a pişti's points), less
    :data:`PILE_JACK_KEEP` for a Jack spent while more hands are to come (not on a
    double pişti); a card laid is worth minus its points, minus the stake it hands the
    next player (a pişti's points on an empty pile, else the pile's points and half a
    point a card) times the share of its rank's four cards not in sight (the seat's hand,
    the pile and the captured cards), and a hundredth of its rank: it takes when it can
    and does not feed a pişti."""
    card = move & 63
    floor = st[S_FLOOR]
    early = st[S_NEXT_BATCH] < st[S_BATCHES_COUNT]
    if move >> 6:
        value = move_value(cfg, cards, floor, move)
        if early and card >> 2 == JACK_RANK and not (
                popcount(floor) == 1 and pisti_kind(cfg, floor, card) == 2):
            value -= PILE_JACK_KEEP
        return value
    rank = card >> 2
    sight = floor | st[S_HANDS + st[S_TO_PLAY]]
    for s in range(4):
        sight |= st[S_PILES + s]
    unknown = 4 - popcount(sight & (0b1111 << (4 * rank)))
    if floor:
        stake = 0.5 * (popcount(floor) + 1) + cards[K_POINTS, card]
        rest = floor
        while rest:
            stake += cards[K_POINTS, low_index(rest)]
            rest &= rest - 1
    else:
        stake = float(cfg[C_JACK_PISTI_POINTS] if rank == JACK_RANK else cfg[C_PISTI_POINTS])
    value = float(-cards[K_POINTS, card] - stake * unknown / 4.0 - rank / 100)
    if rank == JACK_RANK and early:
        value -= PILE_JACK_KEEP
    return value


def _comb_table() -> FloatArray:
    table = np.zeros((53, 53))
    for n in range(53):
        table[n, 0] = 1.0
        for r in range(1, n + 1):
            table[n, r] = table[n - 1, r - 1] + (table[n - 1, r] if r < n else 0.0)
    return table


COMB = _comb_table()
"""``COMB[n, r]``: n choose r, for the expected best reply (:func:`_expected_best`)."""
SEVENS_CLASS = 13
"""The reply class of a 7♦ with a role of its own; every other card's class is its rank."""


@njit(cache=True)
def card_weight(cfg: Array, piles: Array, side: int) -> float:
    """:func:`basra.bots.expert.card_weight` from the sides' ``piles`` (no carried prize):
    a captured card's worth in the majority race, from how open the race still is."""
    sides = cfg[C_SIDES]
    mine = popcount(piles[side])
    best_other = 0
    piled = mine
    for s in range(sides):
        if s != side:
            count = popcount(piles[s])
            piled += count
            best_other = max(best_other, count)
    remaining = 52 - piled
    if mine - best_other > remaining or best_other - mine > remaining:
        return 0.05
    weight = 2.0 * float(cfg[C_MAJORITY_POINTS]) / max(remaining, 8) / max(1, sides - 1)
    return float(max(0.05, min(1.5, weight)))


@njit(cache=True)
def clubs_weight(cfg: Array, piles: Array, side: int) -> float:
    """:func:`basra.bots.expert.clubs_weight` from the sides' ``piles``: a captured club's
    worth in the race for the clubs prize (Pasur), 0 without one or once it is decided."""
    if not cfg[C_CLUBS_POINTS]:
        return 0.0
    mine = popcount(piles[side] & CLUBS)
    best_other = 0
    piled = mine
    for s in range(cfg[C_SIDES]):
        if s != side:
            count = popcount(piles[s] & CLUBS)
            piled += count
            best_other = max(best_other, count)
    remaining = 13 - piled
    if mine - best_other > remaining or best_other - mine > remaining:
        return 0.0
    return min(3.0, 2.0 * float(cfg[C_CLUBS_POINTS]) / max(remaining, 4))


@njit(cache=True, inline="always")
def _take_value(cfg: Array, cards: Array, floor: int, card: int, captured: int,
                weight: float, clubs: float, basra_allowed: bool) -> float:
    """The expert's worth of a capture: its cards' points, a basra's points, ``weight``
    a card and ``clubs`` a club; 0 for a card laid."""
    if not captured:
        return 0.0
    taken = captured | 1 << card
    value = weight * popcount(taken) + clubs * popcount(taken & CLUBS)
    rest = taken
    while rest:
        value += cards[K_POINTS, low_index(rest)]
        rest &= rest - 1
    if basra_allowed and is_basra(cfg, cards, floor, card, captured):
        value += cfg[C_BASRA_POINTS]
    return value


@njit(cache=True, inline="always")
def _reply_class(cards: Array, card: int) -> int:
    """Cards of one class capture alike: a rank, or the 7♦ with a role of its own."""
    if cards[K_KIND, card] in (SEVEN_SWEEP, SEVEN_SMALL):
        return SEVENS_CLASS
    return card >> 2


@njit(cache=True)
def _expected_best(cfg: Array, cards: Array, floor: int, unseen: int, hand: int,
                   weight: float, clubs: float, basra_allowed: bool, values: FloatArray,
                   options: Array, memo: Array) -> float:
    """:func:`basra.bots.expert.expected_best_reply` over the cards of ``unseen``: the
    expected most a hand of ``hand`` of them, drawn uniformly, takes this turn on
    ``floor``. Cards of one reply class capture alike, so each class is searched once."""
    u = popcount(unseen)
    if u == 0 or hand <= 0 or not floor:
        return 0.0
    hand = min(hand, u)
    k = 0
    done = 0  # the classes searched
    rest = unseen
    while rest:
        card = low_index(rest)
        rest &= rest - 1
        group = _reply_class(cards, card)
        if done >> group & 1:
            continue
        done |= 1 << group
        if cards[K_SWEEPS, card]:
            found = 1
            options[0] = floor
        else:
            found = capture_options(cfg, cards, card, floor, options, memo)
        if not found:
            continue
        best = -1e18
        for i in range(found):
            best = max(best, _take_value(cfg, cards, floor, card, options[i], weight, clubs,
                                         basra_allowed))
        own = weight + cards[K_POINTS, card] + clubs * (CLUBS >> card & 1)
        # every unseen card of this class takes the best option, its own points apart
        members = unseen
        while members:
            other = low_index(members)
            members &= members - 1
            if _reply_class(cards, other) == group:
                value = (best - own + weight + cards[K_POINTS, other]
                         + clubs * (CLUBS >> other & 1))
                if value > 0:
                    values[k] = value
                    k += 1
    # the i-th best card is the best of the hand with chance C(u - i, h - 1) / C(u, h)
    expected = 0.0
    total = COMB[u, hand]
    for i in range(k):
        top = i
        for j in range(i + 1, k):
            if values[j] > values[top]:
                top = j
        values[i], values[top] = values[top], values[i]
        expected += values[i] * COMB[u - i - 1, hand - 1] / total
    return expected


EXPERT_CONTEXT = 8
"""What a seat knew when it chose a move, as :func:`expert_value` reads it: the floor,
the cards it had not seen, the next player's hand size (0: none to come), whether the
stock was out (``late``), whether the play was the deal's last, whether the next player
was a partner, and the majority race's and the clubs race's worth of a card."""
X_FLOOR = 0
X_UNSEEN = 1
X_REPLY_HAND = 2
X_LATE = 3
X_LAST_PLAY = 4
X_PARTNER = 5


@njit(cache=True)
def expert_value(cfg: Array, cards: Array, context: Array, weight: float, clubs: float,
                 move: int, scratch: FloatArray, options: Array, memo: Array) -> float:
    """The expert's worth of ``move`` (:meth:`basra.bots.expert.ExpertBot.move_values`)
    in ``context`` (see :data:`EXPERT_CONTEXT`): what it takes, less a laid point card's
    risk and a sweeper spent while the stock lasts, less (plus, for a partner) the next
    player's expected best reply with a hand drawn from the cards unseen to the mover.
    ``scratch``: room for 52 floats."""
    floor = context[X_FLOOR]
    late = context[X_LATE] != 0
    last_play = context[X_LAST_PLAY] != 0
    basra_now = (cfg[C_LAST_PLAY_BASRA] or not last_play) and (cfg[C_LATE_BASRA] or not late)
    card = move & 63
    captured = move >> 6
    value = _take_value(cfg, cards, floor, card, captured, weight, clubs, basra_now)
    if not captured:
        value -= 0.5 * cards[K_POINTS, card]
    kind = cards[K_KIND, card]
    if not late and kind in (JACK_KIND, SEVEN_SWEEP, SEVEN_SMALL):
        value -= SWEEPER_KEEP
    after = floor ^ captured if captured else floor | 1 << card
    reply_hand = context[X_REPLY_HAND]
    if reply_hand and after:
        risk = _expected_best(cfg, cards, after, context[X_UNSEEN], reply_hand, weight,
                              clubs, cfg[C_LATE_BASRA] or not late, scratch, options, memo)
        value = value + risk if context[X_PARTNER] else value - risk
    return value


@njit(cache=True)
def expert_context(cfg: Array, st: Array, context: Array) -> None:
    """The :data:`EXPERT_CONTEXT` of the seat to play on a deal state, from what it may
    know: its unseen cards are the other hands and the stock, whatever they hold."""
    seat = st[S_TO_PLAY]
    players = cfg[C_PLAYERS]
    hand = st[S_HANDS + seat]
    unseen = 0
    held = 0
    for s in range(players):
        held += popcount(st[S_HANDS + s])
        if s != seat:
            unseen |= st[S_HANDS + s]
    for b in range(st[S_NEXT_BATCH], st[S_BATCHES_COUNT]):
        for s in range(players):
            unseen |= st[S_BATCHES + 4 * b + s]
    late = st[S_NEXT_BATCH] >= st[S_BATCHES_COUNT]
    following = st[S_TURNS + seat]
    if following == st[S_TURNS + st[S_DEALER]] and popcount(hand) == 1:
        reply_hand = 0 if late else cfg[C_HAND_SIZE]  # the round ends with this play
    else:
        reply_hand = popcount(st[S_HANDS + following])
    context[X_FLOOR] = st[S_FLOOR]
    context[X_UNSEEN] = unseen
    context[X_REPLY_HAND] = reply_hand
    context[X_LATE] = late
    context[X_LAST_PLAY] = late and held == 1
    context[X_PARTNER] = cfg[C_SIDE_OF + following] == cfg[C_SIDE_OF + seat]


@njit(cache=True)
def expert_move(cfg: Array, cards: Array, st: Array, moves: Array, n: int, rng: UArray,
                scratch: FloatArray, context: Array, options: Array, memo: Array) -> int:
    """The expert's move (:class:`basra.bots.expert.ExpertBot`) among ``moves[:n]``, on
    what the seat to play may know (:func:`expert_value`); ties broken at random.
    ``context``: room for :data:`EXPERT_CONTEXT` numbers."""
    return policy_move(cfg, cards, st, moves, n, rng, 4, context, options, memo, scratch)


@njit(cache=True)
def policy_move(cfg: Array, cards: Array, st: Array, moves: Array, n: int, rng: UArray,
                policy: int, replies: Array, options: Array, memo: Array,
                values: FloatArray) -> int:
    """The rollout policy's move among ``moves[:n]``: 1 greedy (:func:`move_value`), 3
    greedy keeping its sweepers (:func:`kept_value`), 4 the expert's
    (:func:`expert_value`), 5 greedy for piles (:func:`pile_value`; the pile games
    alone). Ties broken at random. ``replies``: room for the expert's context (policy
    4); ``values``: room for 52 floats."""
    if n == 1:
        return int(moves[0])
    if policy == 4 and cfg[C_FAMILY] == PILE_FAMILY:
        raise ValueError("the expert's rollout policy does not play the pile games")
    if policy == 5 and cfg[C_FAMILY] != PILE_FAMILY:
        raise ValueError("the pile rollout policy plays the pile games alone")
    floor = st[S_FLOOR]
    seat = st[S_TO_PLAY]
    early = st[S_NEXT_BATCH] < st[S_BATCHES_COUNT]
    weight = 0.0
    clubs = 0.0
    if policy == 4:
        piles = st[S_PILES:S_PILES + 4]
        weight = card_weight(cfg, piles, cfg[C_SIDE_OF + seat])
        clubs = clubs_weight(cfg, piles, cfg[C_SIDE_OF + seat])
        expert_context(cfg, st, replies)
    best = -1e18
    ties = 0
    chosen = moves[0]
    for i in range(n):
        move = moves[i]
        if policy == 4:
            value = expert_value(cfg, cards, replies, weight, clubs, move, values, options,
                                 memo)
        elif policy == 5:
            value = pile_value(cfg, cards, st, move)
        elif policy == 3:
            value = kept_value(cfg, cards, floor, move, early)
        else:
            value = move_value(cfg, cards, floor, move)
        if value > best + 1e-9:
            best = value
            chosen = move
            ties = 1
        elif value > best - 1e-9:
            ties += 1
            if random_below(rng, ties) == 0:
                chosen = move
    return int(chosen)


@njit(cache=True)
def policy_playout(cfg: Array, cards: Array, st: Array, rng: UArray,
                   moves: Array, options: Array, memo: Array, policies: Array,
                   replies: Array, values: FloatArray) -> None:
    """Every seat plays its rollout policy (``policies[seat]``) to the end of the deal
    (in place)."""
    while not is_over(st):
        seat = st[S_TO_PLAY]
        n = state_moves(cfg, cards, st, moves, options, memo)
        move = policy_move(cfg, cards, st, moves, n, rng, policies[seat], replies, options,
                           memo, values)
        _apply_inline(cfg, cards, st, move)


@njit(cache=True)
def _needs_redeal(cfg: Array, floor: int) -> bool:
    if not cfg[C_FLOOR_REDEAL]:
        return False
    jacks = popcount(floor & (0b1111 << 40))
    queens = popcount(floor & (0b1111 << 44))
    kings = popcount(floor & (0b1111 << 48))
    return jacks > 1 or queens > 2 or kings > 2


@njit(cache=True)
def new_deal(cfg: Array, st: Array, dealer: int, rng: UArray) -> None:
    """Shuffle and deal every seat (as :func:`basra.state.deal_layout` and
    :func:`basra.state.start_deal`, with this module's random numbers)."""
    if cfg[C_FAMILY] == PILE_FAMILY:
        new_pile_deal(cfg, st, dealer, rng)
        return
    players = cfg[C_PLAYERS]
    size = cfg[C_HAND_SIZE]
    floor_size = cfg[C_FLOOR_SIZE]
    bury = cfg[C_BURY]
    deck = np.empty(52, np.int64)
    stock = np.empty(52, np.int64)
    floor_cards = np.empty(52, np.int64)
    order = np.empty(4, np.int64)
    for s in range(players):
        order[s] = (dealer + 1 + s) % players
    while True:
        for i in range(52):
            deck[i] = i
        for i in range(51, 0, -1):
            j = random_below(rng, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        start = players * size
        floor = 0
        for i in range(floor_size):
            floor_cards[i] = deck[start + i]
            floor |= 1 << deck[start + i]
        if _needs_redeal(cfg, floor):
            continue
        stock_n = 52 - start - floor_size
        for i in range(stock_n):
            stock[i] = deck[start + floor_size + i]
        for i in range(floor_size):
            card = floor_cards[i]
            while (bury >> card) & 1:
                replacement = stock[0]
                for k in range(stock_n - 1):
                    stock[k] = stock[k + 1]
                place = random_below(rng, stock_n)
                for k in range(stock_n - 1, place, -1):
                    stock[k] = stock[k - 1]
                stock[place] = card
                card = replacement
            floor_cards[i] = card
        floor = 0
        for i in range(floor_size):
            floor |= 1 << floor_cards[i]
        if not _needs_redeal(cfg, floor):
            break
    for k in range(STATE_SIZE):
        st[k] = 0
    for i in range(players):
        seat = order[i]
        mask = 0
        for k in range(size):
            mask |= 1 << deck[i * size + k]
        st[S_HANDS + seat] = mask
    batches = stock_n // (players * size)
    position = 0
    for b in range(batches):
        for i in range(players):
            mask = 0
            for _ in range(size):
                mask |= 1 << stock[position]
                position += 1
            st[S_BATCHES + 4 * b + order[i]] = mask
    st[S_BATCHES_COUNT] = batches
    st[S_FLOOR] = floor
    st[S_DEALER] = dealer
    for s in range(4):
        st[S_TURNS + s] = (s + 1) % players if s < players else 0
    st[S_TO_PLAY] = order[0]
    st[S_LAST] = -1
    if cfg[C_ORDERED]:
        for i in range(floor_size):
            st[S_LAID + i] = floor_cards[i]
        st[S_LAID_COUNT] = floor_size


@njit(cache=True)
def _shuffle(cards: Array, n: int, rng: UArray) -> None:
    for i in range(n - 1, 0, -1):
        j = random_below(rng, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@njit(cache=True)
def _needs_pile_redeal(cfg: Array, pile: Array, n: int) -> bool:
    """:func:`basra.state.needs_pile_redeal` of the pile's ``n`` cards, bottom first."""
    rule = cfg[C_PILE_REDEAL]
    if rule == 0 or n == 0:
        return False
    if pile[n - 1] >> 2 == JACK_RANK:
        return True
    seen = 0
    for i in range(0 if rule == 1 else max(n - 2, 0), n):
        rank = 1 << (pile[i] >> 2)
        if seen & rank:
            return True
        seen |= rank
    return False


@njit(cache=True)
def new_pile_deal(cfg: Array, st: Array, dealer: int, rng: UArray) -> None:
    """Shuffle and deal a pile game (as :func:`basra.state.pile_layout` and
    :func:`basra.state.start_deal`, with this module's random numbers): the bottom card
    (never a Jack), the first batch, the pile and its re-deal, its face-down cards and a
    Jack on top turned away."""
    players = cfg[C_PLAYERS]
    size = cfg[C_HAND_SIZE]
    floor_size = cfg[C_FLOOR_SIZE]
    shown = cfg[C_BOTTOM_SHOWN] != 0
    deck = np.empty(52, np.int64)
    pile = np.empty(53, np.int64)
    stock = np.empty(53, np.int64)
    loose = np.empty(52, np.int64)
    order = np.empty(4, np.int64)
    for s in range(players):
        order[s] = (dealer + 1 + s) % players
    start = players * size
    while True:
        for i in range(52):
            deck[i] = i
        _shuffle(deck, 52, rng)
        if shown and deck[51] >> 2 == JACK_RANK:
            nearest = 51
            while deck[nearest] >> 2 == JACK_RANK:
                nearest -= 1
            card = deck[nearest]
            for i in range(nearest, 51):
                deck[i] = deck[i + 1]
            deck[51] = card
        n = floor_size
        for i in range(n):
            pile[i] = deck[start + i]
        stock_n = 52 - start - n
        for i in range(stock_n):
            stock[i] = deck[start + n + i]
        bottom = stock[stock_n - 1] if shown else -1
        while _needs_pile_redeal(cfg, pile, n):
            m = 0
            for i in range(n):
                loose[m] = pile[i]
                m += 1
            for i in range(stock_n - 1 if shown else stock_n):
                loose[m] = stock[i]
                m += 1
            _shuffle(loose, m, rng)
            for i in range(n):
                pile[i] = loose[i]
            stock_n = 0
            for i in range(n, m):
                stock[stock_n] = loose[i]
                stock_n += 1
            if shown:
                stock[stock_n] = bottom
                stock_n += 1
        down = 0
        for i in range(min(cfg[C_PILE_DOWN], n)):
            down |= 1 << pile[i]
        turned = 0
        if cfg[C_CENTRE_JACK] == 0 and n:
            jacks = 0
            for i in range(n):
                jacks += pile[i] >> 2 == JACK_RANK
            if jacks == n:
                continue
        while n and pile[n - 1] >> 2 == JACK_RANK:
            jack = pile[n - 1]
            n -= 1
            turned |= 1 << jack
            if cfg[C_CENTRE_JACK] == 0:
                for i in range(n, 0, -1):
                    pile[i] = pile[i - 1]
                pile[0] = jack
                n += 1
            else:
                if stock_n == 0:
                    break
                stock[stock_n] = jack
                pile[n] = stock[0]
                n += 1
                for i in range(stock_n):
                    stock[i] = stock[i + 1]
            down &= ~(1 << pile[n - 1])
        if n and pile[n - 1] >> 2 == JACK_RANK:
            continue
        break
    for k in range(STATE_SIZE):
        st[k] = 0
    for i in range(players):
        mask = 0
        for k in range(size):
            mask |= 1 << deck[i * size + k]
        st[S_HANDS + order[i]] = mask
    batches = stock_n // (players * size)
    position = 0
    in_stock = 0
    for b in range(batches):
        for i in range(players):
            mask = 0
            for _ in range(size):
                mask |= 1 << stock[position]
                position += 1
            st[S_BATCHES + 4 * b + order[i]] = mask
            in_stock |= mask
    st[S_BATCHES_COUNT] = batches
    floor = 0
    for i in range(n):
        floor |= 1 << pile[i]
        st[S_LAID + i] = pile[i]
    st[S_LAID_COUNT] = n
    st[S_FLOOR] = floor
    st[S_DOWN] = down & floor
    st[S_KITTY] = -1
    st[S_EXPOSED] = (turned & in_stock) | ((1 << bottom) if bottom >= 0 else 0)
    st[S_DEALER] = dealer
    for s in range(4):
        st[S_TURNS + s] = (s + 1) % players if s < players else 0
    st[S_TO_PLAY] = order[0]
    st[S_LAST] = -1


@njit(cache=True)
def random_deals(cfg: Array, cards: Array, deals: int, seed: int) -> int:
    """Deal, play uniformly random moves and score ``deals`` deals; a checksum of the
    totals (so nothing is optimised away)."""
    st = np.zeros(STATE_SIZE, np.int64)
    moves = np.empty(MAX_MOVES, np.int64)
    options = np.empty(MAX_OPTIONS, np.int64)
    memo = new_memo()
    total = np.zeros(4, np.int64)
    rng = np.array([seed * 2 + 1], np.uint64)
    checksum = 0
    players = cfg[C_PLAYERS]
    for d in range(deals):
        new_deal(cfg, st, d % players, rng)
        random_playout(cfg, cards, st, rng, moves, options, memo)
        deal_score(cfg, cards, st, 0, total)
        checksum += total[0]
    return checksum


P_HIDDEN = 4
"""Pile games, :func:`sample_into`'s ``counts`` past the hand counts: from here, per side,
how many face-down cards the seat was not shown lie among that side's captured cards."""
P_TAIL_COUNT = 8
"""How many cards every seat saw lie at the stock's bottom (the shown bottom card, Jacks
sent under the stock)..."""
P_TAIL = 9
"""...and those cards, from here, in stock order (four slots)."""
PILE_COUNTS = 13
"""The length of ``counts`` for a pile game."""


@njit(cache=True)
def sample_into(cfg: Array, base: Array, unseen: Array, counts: Array,
                order: Array, seat: int, rng: UArray, st: Array) -> None:
    """A deal consistent with an observation: ``base`` holds what the seat knows (its hand,
    the floor, piles, basras, turns...; a card known in another hand), ``unseen`` the
    cards whose place it does not know; they are shuffled into the other hands (to
    ``counts`` cards each) and the stock's batches, dealt in ``order``.

    Pile games (``counts`` of :data:`PILE_COUNTS`): the unseen cards also fill the pile's
    face-down places the seat was not shown (``-1`` in ``base``'s pile, which keeps its
    order) and the face-down cards captured out of its sight (``counts[P_HIDDEN + side]``,
    into that side's captured cards); these make the deal's face-down cards. The cards
    every seat saw at the stock's bottom (``counts[P_TAIL:]``) stay there, dealt last."""
    st[:] = base
    n = unseen.shape[0]
    cards = unseen.copy()
    for i in range(n - 1, 0, -1):
        j = random_below(rng, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    position = 0
    players = cfg[C_PLAYERS]
    for s in range(players):
        if s == seat:
            continue
        mask = base[S_HANDS + s]
        for _ in range(counts[s] - popcount(mask)):
            mask |= 1 << cards[position]
            position += 1
        st[S_HANDS + s] = mask
    tail = 0
    if counts.shape[0] >= PILE_COUNTS:
        for i in range(base[S_LAID_COUNT]):
            if base[S_LAID + i] < 0:
                card = cards[position]
                position += 1
                st[S_LAID + i] = card
                st[S_FLOOR] |= 1 << card
                st[S_DOWN] |= 1 << card
        for side in range(4):
            for _ in range(counts[P_HIDDEN + side]):
                card = cards[position]
                position += 1
                st[S_PILES + side] |= 1 << card
                st[S_DOWN] |= 1 << card
        tail = counts[P_TAIL_COUNT]
    size = cfg[C_HAND_SIZE]
    batch = 0
    while position < n + tail:
        for i in range(order.shape[0]):
            mask = 0
            for _ in range(size):
                card = cards[position] if position < n else counts[P_TAIL + position - n]
                mask |= 1 << card
                position += 1
            st[S_BATCHES + 4 * batch + order[i]] = mask
        batch += 1
    st[S_NEXT_BATCH] = 0
    st[S_BATCHES_COUNT] = batch


@njit(cache=True)
def _match_outcome(cfg: Array, totals: Array, deal: Array, side: int, target: int) -> int:
    """1 when the match ends after this deal with ``side`` strictly ahead, -1 when it ends
    with another side ahead, 0 when it goes on (or ends level)."""
    sides = cfg[C_SIDES]
    reached = False
    best_other = -(1 << 40)
    for s in range(sides):
        score = totals[s] + deal[s]
        if score >= target:
            reached = True
        if s != side and score > best_other:
            best_other = score
    if not reached:
        return 0
    mine = totals[side] + deal[side]
    if mine > best_other:
        return 1
    if mine < best_other:
        return -1
    return 0


@njit(cache=True)
def lead_gain(cfg: Array, totals: Array, deal: Array, side: int) -> float:
    """What a deal's points ``deal`` add to ``side``'s lead over the best of the other
    sides in the match ``totals``: for two sides, the deal's margin. With more sides a
    point to the side ahead costs a full point and one to a side far behind nothing, for
    it is the side ahead that takes the match."""
    sides = cfg[C_SIDES]
    before = -(1 << 40)
    after = -(1 << 40)
    for s in range(sides):
        if s != side:
            before = max(before, totals[s])
            after = max(after, totals[s] + deal[s])
    return float(deal[side] - (after - before))


@njit(cache=True)
def sample_value(cfg: Array, totals: Array, deal: Array, side: int, target: int,
                 match_bonus: float) -> float:
    """What a finished sampled deal is worth to ``side`` in the search: its
    :func:`lead_gain`, plus ``match_bonus`` when the deal ends the match (some side
    reaches ``target`` from the match ``totals``) with ``side`` strictly ahead, minus it
    when another side is ahead."""
    value = lead_gain(cfg, totals, deal, side)
    if match_bonus:
        value += match_bonus * _match_outcome(cfg, totals, deal, side, target)
    return value


H_SEAT = 0
H_MOVE = 1
H_CONTEXT = 2
"""History rows (:func:`likelihood`): the seat, its move, the :data:`EXPERT_CONTEXT` it
chose in (the ``X_UNSEEN`` column holds the cards then in sight, floor and piles: its
unseen cards are the rest of those not in the hand a sample gives it), and the sides'
piles then (four columns)."""
H_PILES = H_CONTEXT + EXPERT_CONTEXT
HISTORY_COLUMNS = H_PILES + 4
ALL_CARDS = (1 << 52) - 1


@njit(cache=True)
def play_values(cfg: Array, cards: Array, history: Array, j: int, hand: int, model: int,
                replies: Array, worth: FloatArray, scratch: FloatArray, context: Array,
                options: Array, memo: Array) -> int:
    """The values a player who weighs moves as the rollout policy ``model`` does (the
    expert's :func:`expert_value` for 4, greedy :func:`move_value` for 1, else
    :func:`kept_value`) gives the moves of ``hand`` in the position of the play
    ``history[j]`` (see ``H_*``): the moves into ``replies``, their values into
    ``worth``; returns how many."""
    seat = history[j, H_SEAT]
    for x in range(EXPERT_CONTEXT):
        context[x] = history[j, H_CONTEXT + x]
    floor = context[X_FLOOR]
    n = hand_moves(cfg, cards, hand, floor, replies, options, memo)
    per_card = 0.0
    clubs = 0.0
    if model == 4:
        piles = history[j, H_PILES:H_PILES + 4]
        side = cfg[C_SIDE_OF + seat]
        per_card = card_weight(cfg, piles, side)
        clubs = clubs_weight(cfg, piles, side)
        context[X_UNSEEN] = ALL_CARDS & ~(history[j, H_CONTEXT + X_UNSEEN] | hand)
    early = context[X_LATE] == 0
    for i in range(n):
        if model == 4:
            worth[i] = expert_value(cfg, cards, context, per_card, clubs, replies[i],
                                    scratch, options, memo)
        elif model == 1:
            worth[i] = move_value(cfg, cards, floor, replies[i])
        else:
            worth[i] = kept_value(cfg, cards, floor, replies[i], early)
    return n


SLIP = 1e-3
"""The chance that a player read by a model makes a move the model would not (a slip, or
a style misread), spread evenly over its moves (:func:`likelihood`): a play that no
sampled hand explains then weighs every deal alike, where without it every deal's weight
could fall to nothing (and a search then sees no deal, or deals a thousand for one)."""


@njit(cache=True)
def likelihood(cfg: Array, cards: Array, sample: Array, history: Array, held: Array,
               models: Array, tau: float, replies: Array, worth: FloatArray,
               scratch: FloatArray, context: Array, options: Array, memo: Array) -> float:
    """How likely the other seats' plays of this batch are on a sampled deal: the product,
    over each play ``history[j]`` (see ``H_*``) of a seat with a model (``models[seat]``
    a rollout policy, -1: none), of the chance that a player who weighs moves as that
    policy does (:func:`play_values`) picks it, ``exp(value / tau)`` against the other
    moves of the hand it then held (its sampled hand and the cards ``held[j]`` it has
    played since), or slips (:data:`SLIP`) and picks any of them. A deal whose hands
    would have played otherwise counts less. ``worth``: room for a float a move."""
    weight = 1.0
    for j in range(history.shape[0]):
        seat = history[j, H_SEAT]
        model = models[seat]
        if model < 0:
            continue
        chosen = history[j, H_MOVE]
        hand = sample[S_HANDS + seat] | held[j]
        n = play_values(cfg, cards, history, j, hand, model, replies, worth, scratch,
                        context, options, memo)
        if n < 2:
            continue
        top = -1e18
        mine = 0.0
        for i in range(n):
            top = max(top, worth[i])
            if replies[i] == chosen:
                mine = worth[i]
        total = 0.0
        for i in range(n):
            total += np.exp((worth[i] - top) / tau)
        weight *= (1.0 - SLIP) * np.exp((mine - top) / tau) / total + SLIP / n
    return weight


@njit(cache=True)
def agreement(cfg: Array, cards: Array, history: Array, held: Array, model: int,
              out: Array, options: Array, memo: Array) -> None:
    """How often plays of finished batches are the rollout policy ``model``'s choice
    (:func:`play_values`), the hand each was chosen from being known (``held[j]``, every
    card that seat played from then on): adds to ``out[0]`` the plays where the model
    tells the moves apart (some valued below the best) and to ``out[1]`` those of them
    where the move played is one the model values best. ``options``, ``memo``: the
    rules' capture buffers."""
    replies = np.empty(MAX_MOVES, np.int64)
    worth = np.empty(MAX_MOVES)
    scratch = np.empty(52)
    context = np.empty(EXPERT_CONTEXT, np.int64)
    for j in range(history.shape[0]):
        n = play_values(cfg, cards, history, j, held[j], model, replies, worth, scratch,
                        context, options, memo)
        top = -1e18
        for i in range(n):
            top = max(top, worth[i])
        best = 0
        chosen_best = False
        for i in range(n):
            if worth[i] > top - 1e-9:
                best += 1
                if replies[i] == history[j, H_MOVE]:
                    chosen_best = True
        if best < n:
            out[0] += 1
            out[1] += chosen_best


@njit(cache=True)
def search(cfg: Array, cards: Array, base: Array, unseen: Array,
           counts: Array, order: Array, seat: int, side: int, carry: int,
           candidates: Array, active: BoolArray, samples: int, policies: Array,
           rng: UArray, stats: FloatArray, visits: Array, totals: Array, target: int,
           match_bonus: float, history: Array, held: Array, models: Array,
           tau: float, belief: FloatArray) -> None:
    """Determinized search: ``samples`` times, deal the unseen cards at random, play each
    active candidate move on that same deal, finish with each seat's rollout policy
    (``policies``) and add the value to the move's statistics (common random numbers across
    moves): ``stats`` rows are the weighted sums of values, of their squares, the sums
    of weights and of squared weights.

    A sample's value is :func:`sample_value` (the deal's gain in lead over the best other
    side from the match ``totals``, and the ``match_bonus`` when it ends the match). With
    ``tau`` > 0 a sample weighs what the plays of this batch of the seats with a model
    (``models``) say of their hands (:func:`likelihood`); else 1. A ``belief`` of four rows
    (a learned log-odds per seat and card of holding it) weighs it further by the odds of
    the hands it deals (:func:`belief_weight`)."""
    sample = np.zeros(STATE_SIZE, np.int64)
    st = np.zeros(STATE_SIZE, np.int64)
    replies = np.empty(MAX_MOVES, np.int64)
    scratch = np.empty(52)
    worth = np.empty(MAX_MOVES)
    context = np.empty(EXPERT_CONTEXT, np.int64)
    moves = np.empty(MAX_MOVES, np.int64)
    options = np.empty(MAX_OPTIONS, np.int64)
    memo = new_memo()
    total = np.zeros(4, np.int64)
    for _ in range(samples):
        sample_into(cfg, base, unseen, counts, order, seat, rng, sample)
        weight = 1.0
        if tau > 0 and history.shape[0]:
            weight = likelihood(cfg, cards, sample, history, held, models, tau, replies,
                                worth, scratch, context, options, memo)
        if belief.shape[0]:
            weight *= belief_weight(cfg, sample, seat, belief)
        state = rng[0]
        for i in range(candidates.shape[0]):
            if not active[i]:
                continue
            rng[0] = state  # the same rollout randomness for every move
            st[:] = sample
            apply(cfg, cards, st, candidates[i])
            policy_playout(cfg, cards, st, rng, moves, options, memo, policies, replies,
                           scratch)
            deal_score(cfg, cards, st, carry, total)
            value = sample_value(cfg, totals, total, side, target, match_bonus)
            stats[0, i] += weight * value
            stats[1, i] += weight * value * value
            stats[2, i] += weight
            stats[3, i] += weight * weight
            visits[i] += 1
        rng[0] = state
        next_random(rng)


@njit(cache=True)
def belief_weight(cfg: Array, st: Array, seat: int, belief: FloatArray) -> float:
    """The odds of the other seats' hands in ``st`` under ``belief`` (per seat and card,
    the log-odds of that seat holding that card): the exponential of their sum."""
    total = 0.0
    for s in range(cfg[C_PLAYERS]):
        if s == seat:
            continue
        hand = st[S_HANDS + s]
        while hand:
            card = low_index(hand)
            total += belief[s, card]
            hand &= hand - 1
    return float(np.exp(total))


ENVELOPE_DEALS = 64
"""Deals :func:`tree_search` weighs first to know how likely the likeliest deal is."""

TREE_ROWS = 6
"""Rows of a search tree (:func:`tree_search`), one column per node: the move into the
node, its first child, its next sibling, the side that made the move, its visits and its
availability (the sums of its values are a float array beside it)."""
T_MOVE = 0
T_CHILD = 1
T_SIBLING = 2
T_SIDE = 3
T_VISITS = 4
T_AVAIL = 5


@njit(cache=True)
def new_tree(cfg: Array, tree: Array, sums: FloatArray, candidates: Array, side: int) -> int:
    """A tree whose root (node 0) has one child per candidate move (nodes 1..n, in
    order) made by ``side``; the number of nodes used."""
    n = candidates.shape[0]
    tree[:, : n + 1] = 0
    sums[: n + 1] = 0.0
    tree[T_CHILD, 0] = 1 if n else -1
    tree[T_SIBLING, 0] = -1
    for i in range(n):
        node = i + 1
        tree[T_MOVE, node] = candidates[i]
        tree[T_CHILD, node] = -1
        tree[T_SIBLING, node] = node + 1 if i + 1 < n else -1
        tree[T_SIDE, node] = side
    return int(n) + 1


@njit(cache=True, inline="always")
def _find_child(tree: Array, node: int, move: int) -> int:
    """The child of ``node`` for ``move``, or -1 when it has none yet."""
    child = tree[T_CHILD, node]
    while child >= 0 and tree[T_MOVE, child] != move:
        child = tree[T_SIBLING, child]
    return int(child)


@njit(cache=True, inline="always")
def _add_child(tree: Array, sums: FloatArray, used: Array, node: int, move: int, side: int,
               available: int) -> int:
    """A new child of ``node`` for ``move`` made by ``side``, not yet visited and
    ``available`` times available; its index."""
    child = used[0]
    used[0] += 1
    tree[T_MOVE, child] = move
    tree[T_CHILD, child] = -1
    tree[T_SIBLING, child] = tree[T_CHILD, node]
    tree[T_CHILD, node] = child
    tree[T_SIDE, child] = side
    tree[T_VISITS, child] = 0
    tree[T_AVAIL, child] = available
    sums[child] = 0.0
    return int(child)


TreeWork = namedtuple("TreeWork", ["moves", "replies", "scratch", "options", "memo",
                                   "total", "values", "path"])
"""Room a tree search's descents share: a hand's moves, a policy's replies and scores,
the rules' capture buffers, a deal's score and each side's value, the nodes of a path."""


@njit(cache=True)
def tree_search(cfg: Array, cards: Array, base: Array, unseen: Array, counts: Array,
                order: Array, seat: int, carry: int, deals: int, policies: Array,
                rng: UArray, tree: Array, sums: FloatArray, used: Array,
                totals: Array, target: int, match_bonus: float,
                exploration: float, styled: Array,
                history: Array, held: Array, models: Array, tau: float,
                envelope: FloatArray) -> None:
    """Information-set Monte Carlo tree search (single observer) under a flat root,
    ``deals`` more deals on ``tree`` (made by :func:`new_tree`, ``used[0]`` nodes used):
    each deals the unseen cards at random and plays every root move on it, as
    :func:`search` does, with the same rollout randomness (common random numbers, so the
    luck of the deal cancels from their differences); below each, one descent of the
    tree through the moves legal on that deal (UCB1 with availability counts,
    ``exploration`` points wide, each side maximising its own value) adds one node for a
    legal move not tried yet, finishes the deal with each seat's rollout policy
    (``policies``) and adds each node's mover the deal's value for its side
    (:func:`sample_value`, as :func:`search`). Every root move has as many visits; the
    best is the best valued.

    A seat marked in ``styled`` does not choose by UCB: in the tree too it plays its
    rollout policy's move on the deal sampled (a node is added for it whenever it is
    new), so the tree branches on what that seat does and the searching seat's later
    moves are chosen knowing it. With ``tau`` > 0 a deal is kept with the chance that the
    seats with a model (``models``) would have made their plays of this batch with the
    hands it deals them (:func:`likelihood`), as a share of the most likely deal seen
    (``envelope[0]``: at first the most likely of :data:`ENVELOPE_DEALS` dealt for it,
    raised whenever a likelier one comes), else dealt anew, up to 1,000 times a deal
    searched: rejection sampling, so every deal weighs the same, and a play that is
    unlikely on every deal (a slip, a misread style) costs no more deals than a likely
    one. ``envelope[1]`` counts the deals dealt."""
    dealt = np.zeros(STATE_SIZE, np.int64)
    st = np.zeros(STATE_SIZE, np.int64)
    replies = np.empty(MAX_MOVES, np.int64)
    scratch = np.empty(52)
    worth = np.empty(MAX_MOVES)
    context = np.empty(EXPERT_CONTEXT, np.int64)
    options = np.empty(MAX_OPTIONS, np.int64)
    memo = new_memo()
    work = TreeWork(np.empty(MAX_MOVES, np.int64), replies, scratch, options, memo,
                    np.zeros(4, np.int64), np.zeros(4), np.empty(128, np.int64))
    inferring = tau > 0 and history.shape[0] > 0
    if inferring and envelope[0] <= 0:
        for _ in range(ENVELOPE_DEALS):
            sample_into(cfg, base, unseen, counts, order, seat, rng, dealt)
            envelope[0] = max(envelope[0], likelihood(
                cfg, cards, dealt, history, held, models, tau, replies, worth, scratch,
                context, options, memo))
        envelope[1] += ENVELOPE_DEALS
    for _ in range(deals):
        sample_into(cfg, base, unseen, counts, order, seat, rng, dealt)
        envelope[1] += 1
        if inferring:
            for _attempt in range(1000):
                weight = likelihood(cfg, cards, dealt, history, held, models, tau, replies,
                                    worth, scratch, context, options, memo)
                if weight >= envelope[0]:
                    envelope[0] = weight
                    break
                if random_below(rng, 1 << 30) < weight / envelope[0] * (1 << 30):
                    break
                sample_into(cfg, base, unseen, counts, order, seat, rng, dealt)
                envelope[1] += 1
        state = rng[0]
        child = tree[T_CHILD, 0]
        while child >= 0:
            rng[0] = state  # the same rollout randomness for every root move
            st[:] = dealt
            tree[T_AVAIL, child] += 1
            _apply_inline(cfg, cards, st, tree[T_MOVE, child])
            _descend(cfg, cards, st, child, carry, policies, rng, tree, sums, used,
                     totals, target, match_bonus, exploration, styled, work)
            child = tree[T_SIBLING, child]
        rng[0] = state
        next_random(rng)


@njit(cache=True)
def _descend(cfg: Array, cards: Array, st: Array, start: int, carry: int,
             policies: Array, rng: UArray, tree: Array, sums: FloatArray, used: Array,
             totals: Array, target: int, match_bonus: float, exploration: float,
             styled: Array, work: Any) -> None:
    """One descent of :func:`tree_search` below the root move ``start``, already made on
    ``st``: through the tree by UCB (a seat in ``styled`` by its policy), adding one
    node, then a rollout; every node of the path from ``start`` adds the deal's value
    for its mover."""
    moves = work.moves
    replies = work.replies
    options = work.options
    memo = work.memo
    path = work.path
    capacity = tree.shape[1]
    node = start
    depth = 0
    path[0] = start
    while not is_over(st):
        mover = st[S_TO_PLAY]
        n = _hand_moves_inline(cfg, cards, st[S_HANDS + mover], st[S_FLOOR], moves,
                               options, memo)
        if styled[mover]:
            # a seat of known style plays its move; the tree follows it
            move = policy_move(cfg, cards, st, moves, n, rng, policies[mover], replies,
                               options, memo, work.scratch)
            child = _find_child(tree, node, move)
            if child < 0:
                if used[0] >= capacity or depth + 1 >= path.shape[0]:
                    break
                child = _add_child(tree, sums, used, node, move,
                                   cfg[C_SIDE_OF + mover], 0)
            _apply_inline(cfg, cards, st, move)
            node = child
            depth += 1
            path[depth] = node
            continue
        # the children legal on this deal: count their availability, pick by UCB
        best = -1
        best_score = -1e300
        child = tree[T_CHILD, node]
        found = 0
        while child >= 0:
            move = tree[T_MOVE, child]
            legal = False
            for i in range(n):
                if moves[i] == move:
                    legal = True
                    break
            if legal:
                found += 1
                tree[T_AVAIL, child] += 1
                visits = tree[T_VISITS, child]
                if visits == 0:
                    score = 1e300
                else:
                    score = sums[child] / visits + exploration * np.sqrt(
                        np.log(tree[T_AVAIL, child]) / visits)
                if score > best_score:
                    best_score = score
                    best = child
            child = tree[T_SIBLING, child]
        if found < n and used[0] < capacity and depth + 1 < path.shape[0]:
            # expand one untried move, chosen at random
            untried = 0
            pick = -1
            for i in range(n):
                if _find_child(tree, node, moves[i]) < 0:
                    untried += 1
                    if random_below(rng, untried) == 0:
                        pick = moves[i]
            fresh = _add_child(tree, sums, used, node, pick, cfg[C_SIDE_OF + mover], 1)
            _apply_inline(cfg, cards, st, pick)
            depth += 1
            path[depth] = fresh
            break
        if best < 0:
            break  # a full tree: roll out from here
        _apply_inline(cfg, cards, st, tree[T_MOVE, best])
        node = best
        depth += 1
        path[depth] = node
    policy_playout(cfg, cards, st, rng, moves, options, memo, policies, replies,
                   work.scratch)
    total = work.total
    values = work.values
    deal_score(cfg, cards, st, carry, total)
    for s in range(cfg[C_SIDES]):
        values[s] = sample_value(cfg, totals, total, s, target, match_bonus)
    for d in range(depth + 1):
        node = path[d]
        tree[T_VISITS, node] += 1
        sums[node] += values[tree[T_SIDE, node]]
