"""What a played card captures from a floor, and whether the capture is a basra.

This is the one place that decides what a card captures. The rule family chooses how
(:func:`captures_for`): :class:`BasraCaptures` for the Basra presets, :class:`PasurCaptures`
for Pasur, :class:`PileCaptures` for the pile games (Pişti and Xeri). The first two share
the memo layout the move generator relies on (:class:`CaptureTable`); a pile capture needs
only the pile's top card and size.

In Basra a numeral of value v takes the largest set of floor numerals that splits into
disjoint groups each summing to v (spec section 3). Floor cards of value v are always in
it (a match can join any packing), cards above v never are, so the search runs only over
the floor cards *below* v and is memoised by exactly that part of the floor. When several
different largest sets exist, each is an option.

>>> from basra.rules import make_rules
>>> from basra.cards import CardSet, parse_card
>>> table = captures_for(make_rules("egyptian"))
>>> [str(CardSet(m)) for m in table.options(parse_card("7H"), CardSet.parse("7S 4H 3C 5D").mask)]
['3C 4H 7S']
>>> [str(CardSet(m)) for m in table.options(parse_card("9H"), CardSet.parse("7S 2H 4C 5D").mask)]
['2H 4C 5D 7S']
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import combinations

from .cards import JACK, NUMERALS, SEVEN_OF_DIAMONDS, iter_cards, rank_mask
from .rules import Rules

__all__ = [
    "BasraCaptures",
    "CaptureTable",
    "PasurCaptures",
    "PileCaptures",
    "best_packings",
    "captures_for",
    "packing_counts",
    "pip_total",
    "sum_sets",
]

JACKS = rank_mask(JACK)

MEMO_LIMIT = 200_000
"""Entries a rank's option memo may hold before it is cleared (bounds memory)."""

# Card kinds for dispatch (one per card under given rules).
NUMERAL, JACK_KIND, COURT, SEVEN_SWEEP, SEVEN_SMALL = range(5)

_VALUES = tuple((card >> 2) + 1 if card < 40 else 0 for card in range(52))
_BELOW = tuple((1 << (4 * (v - 1))) - 1 if v >= 1 else 0 for v in range(11))
"""Mask of the numeral cards of value below v, indexed by v."""


def pip_total(mask: int) -> int:
    """Sum of the pip values of the numerals in a set (court cards count 0)."""
    total = 0
    mask &= NUMERALS
    while mask:
        low = mask & -mask
        total += _VALUES[low.bit_length() - 1]
        mask ^= low
    return total


def _partitions(value: int) -> tuple[tuple[int, ...], ...]:
    """Every way to write ``value`` as a sum of smaller values, as counts per value 1..v-1."""
    found: list[tuple[int, ...]] = []

    def walk(rest: int, largest: int, counts: list[int]) -> None:
        if rest == 0:
            found.append(tuple(counts))
            return
        for part in range(min(rest, largest), 0, -1):
            counts[part - 1] += 1
            walk(rest - part, part, counts)
            counts[part - 1] -= 1

    walk(value, value - 1, [0] * (value - 1))
    return tuple(found)


_PARTITIONS = tuple(_partitions(v) if v >= 2 else () for v in range(11))


_COUNT_UNIT = tuple(1 << (3 * (card >> 2)) if card < 40 else 0 for card in range(52))
"""Adding these over a set of numerals counts its cards of each value, 3 bits a value."""


@cache
def packing_counts(value: int, counts: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The largest ways to pack groups summing to ``value`` from a multiset of smaller values.

    ``counts[k]`` is how many cards of value ``k + 1`` there are; each answer says how many
    of each value a largest packing uses. Pure, so memoised by its small arguments.

    >>> packing_counts(8, (2, 0, 1, 0, 1, 1, 0))  # A A 3 5 6: 5+3 and 6+A+A
    ((2, 0, 1, 0, 1, 1, 0),)
    """
    parts = [(p, sum(p)) for p in _PARTITIONS[value] if all(
        need <= have for need, have in zip(p, counts, strict=True))]
    memo: dict[tuple[int, tuple[int, ...]], tuple[int, frozenset[tuple[int, ...]]]] = {}

    def best(i: int, rest: tuple[int, ...]) -> tuple[int, frozenset[tuple[int, ...]]]:
        if i == len(parts):
            return 0, frozenset((rest,))
        known = memo.get((i, rest))
        if known is not None:
            return known
        part, size = parts[i]
        top, finals = -1, set()
        copies = 0
        current = rest
        while True:
            used, ends = best(i + 1, current)
            used += copies * size
            if used > top:
                top, finals = used, set(ends)
            elif used == top:
                finals |= ends
            current = tuple(r - p for r, p in zip(current, part, strict=True))
            if min(current) < 0:
                break
            copies += 1
        answer = top, frozenset(finals)
        memo[(i, rest)] = answer
        return answer

    _, finals = best(0, counts)
    return tuple(sorted(tuple(c - f for c, f in zip(counts, final, strict=True))
                        for final in finals))


@cache
def _packing_plan(value: int, count_key: int) -> tuple[tuple[int, ...], ...] | bool:
    """:func:`packing_counts` by a packed count key; True: every card, False: none."""
    counts = tuple((count_key >> (3 * k)) & 7 for k in range(value - 1))
    plans = packing_counts(value, counts)
    if plans == (counts,):
        return True
    if plans == ((0,) * (value - 1),):
        return False
    return plans


def best_packings(value: int, cards: int) -> tuple[int, ...]:
    """The largest unions of disjoint groups of ``cards`` that each sum to ``value``.

    ``cards`` must hold only numerals below ``value``. Returns every distinct union of
    maximal size (``(0,)`` when no group exists).

    >>> from basra.cards import CardSet
    >>> [str(CardSet(m)) for m in best_packings(7, CardSet.parse("5S 2H 2D 3C 4S").mask)]
    ['2H 3C 4S 5S', '2D 3C 4S 5S']
    """
    key = 0
    rest = cards
    while rest:
        low = rest & -rest
        key += _COUNT_UNIT[low.bit_length() - 1]
        rest ^= low
    plan = _packing_plan(value, key)
    if plan is True:
        return (cards,)
    if plan is False:
        return (0,)
    assert isinstance(plan, tuple)
    options: list[int] = []
    for used in plan:
        partial = [0]
        for k, take in enumerate(used):
            if not take:
                continue
            pool = (cards >> (4 * k)) & 15
            if take == pool.bit_count():
                partial = [chosen | pool << (4 * k) for chosen in partial]
            else:
                picks = [sum(1 << (4 * k + c) for c in combo)
                         for combo in combinations(iter_cards(pool), take)]
                partial = [chosen | pick for chosen in partial for pick in picks]
        options.extend(partial)
    return tuple(sorted(options))


def sum_sets(total: int, cards: int) -> tuple[int, ...]:
    """Every set of the numerals in ``cards`` whose values add up to exactly ``total``.

    Pasur's capture: one such set, the player's choice. Sets are masks, lowest first.

    >>> from basra.cards import CardSet
    >>> [str(CardSet(m)) for m in sum_sets(7, CardSet.parse("7S 5H 2D 4C 3C").mask)]
    ['3C 4C', '2D 5H', '7S']
    """
    found: list[int] = []
    pool = [card for card in iter_cards(cards & NUMERALS) if _VALUES[card] <= total]

    def walk(start: int, rest: int, chosen: int) -> None:
        if rest == 0:
            found.append(chosen)
            return
        for i in range(start, len(pool)):
            card = pool[i]
            value = _VALUES[card]
            if value > rest:
                break
            walk(i + 1, rest - value, chosen | 1 << card)

    walk(0, total, 0)
    return tuple(sorted(found))


class CaptureTable:
    """Capture options and basra tests under one rules value, memoised by floor.

    The move generator (:func:`basra.state.legal_moves`) reads the tables built here:
    ``kinds`` (what each card is), ``key_masks`` and ``memos`` (the part of the floor a
    card's options depend on, and its options by that part), ``sweeps`` (cards that take
    a whole non-empty floor) and ``clears`` (cards whose capture is a basra exactly when
    it clears the floor). A family fills them in ``__init__`` and answers :meth:`options`.
    """

    family = ""

    def __init__(self, rules: Rules, kinds: list[int], key_masks: list[int]) -> None:
        self.rules = rules
        self.kinds = tuple(kinds)
        self.key_masks = tuple(key_masks)
        by_rank: dict[int, dict[int, tuple[int, ...]]] = {}
        self.memos: tuple[dict[int, tuple[int, ...]] | None, ...] = tuple(
            by_rank.setdefault(card >> 2, {}) if kinds[card] in (NUMERAL, COURT) else None
            for card in range(52)
        )
        """Per card (shared by a rank): its captures by the floor part, shifted (``<< 6``)."""
        self.side_of = rules.side_of
        self.optional = rules.optional_capture
        self.last_play_basra = rules.last_play_basra
        self.late_basra = rules.last_batch_basra
        """Whether plays of the last batch can score a basra."""
        self.ordered = rules.leftover == "split"
        """Whether states keep the floor's laying order (for the leftover split)."""
        self.sweeps: tuple[bool, ...] = (False,) * 52
        self.clears: tuple[bool, ...] = (False,) * 52
        self.pile = False
        """Whether the floor is one pile, bottom to top (the pile family): states keep its
        order in ``laid`` and play through :class:`PileCaptures`."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CaptureTable):
            return self.rules == other.rules
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.rules)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rules!r})"

    def shifted_options(self, card: int, floor: int) -> tuple[int, ...]:
        """:meth:`options` with each mask shifted into move position (``<< 6``).

        Callers memoise the answer in ``memos[card]`` by ``floor & key_masks[card]``;
        this also keeps those memos bounded by clearing one that has grown too large.
        """
        memo = self.memos[card]
        if memo is not None and len(memo) >= MEMO_LIMIT:
            memo.clear()
        return tuple(captured << 6 for captured in self.options(card, floor))

    def options(self, card: int, floor: int) -> tuple[int, ...]:
        """Every capture ``card`` can make on ``floor`` as masks; ``()`` when it trails.

        With ``optional_capture`` a trail is allowed as well; that is for the move
        generator to add, not part of this answer.
        """
        raise NotImplementedError

    def is_basra(self, floor: int, card: int, captured: int) -> bool:
        """Whether playing ``card`` on ``floor`` and capturing ``captured`` scores a basra.

        It does not know whether this is the last play of the deal
        (``last_play_basra``); the caller applies that.
        """
        if not captured:
            return False
        if self.kinds[card] == JACK_KIND:
            return self._jack_basra(floor)
        return captured == floor

    def bonus_points(self, floor: int, card: int, captured: int) -> int:
        """The points of the bonus (basra, sur, pişti) a capture makes, 0 for none; like
        :meth:`is_basra` it does not know whether this is the last play."""
        return self.rules.basra_points if self.is_basra(floor, card, captured) else 0

    def _jack_basra(self, floor: int) -> bool:
        count = floor.bit_count()
        jack_basra = self.rules.jack_basra
        return (jack_basra == "lone" and count == 1) or (
            jack_basra == "lone_or_pair" and count <= 2)


class BasraCaptures(CaptureTable):
    """Basra: matches and sums to the card's value, Q and K by rank, the Jack sweeps, and
    the 7♦ as the variant says."""

    family = "basra"

    def __init__(self, rules: Rules) -> None:
        seven = rules.seven_diamonds
        kinds = []
        for card in range(52):
            rank = card >> 2
            if card == SEVEN_OF_DIAMONDS and seven in ("sweep", "sweep_any"):
                kinds.append(SEVEN_SWEEP)
            elif card == SEVEN_OF_DIAMONDS and seven == "sweep_small":
                kinds.append(SEVEN_SMALL)
            elif rank < JACK:
                kinds.append(NUMERAL)
            elif rank == JACK:
                kinds.append(JACK_KIND)
            else:
                kinds.append(COURT)
        # Fast lookup for the move generator: for each card, the part of the floor its
        # options depend on. Jacks and a sweeping 7♦ depend on the whole floor (no memo).
        super().__init__(rules, kinds, [
            (1 << (4 * (card >> 2) + 4)) - 1 if kinds[card] == NUMERAL
            else rank_mask(card >> 2) if kinds[card] == COURT
            else 0
            for card in range(52)
        ])
        self._packings: tuple[dict[int, tuple[int, ...]], ...] = tuple({} for _ in range(11))
        """Largest packings of the floor cards below each value, by those cards."""
        self.sweeps = tuple(kind in (JACK_KIND, SEVEN_SWEEP) for kind in kinds)
        self.clears = tuple(
            rules.basra == "clear" and kind in (NUMERAL, COURT) for kind in kinds
        )

    def numeral_options(self, value: int, floor: int) -> tuple[int, ...]:
        """Capture options of a numeral of ``value`` on ``floor`` (``()``: it trails)."""
        matches = floor & rank_mask(value - 1)
        if not self.rules.sums:
            return (matches,) if matches else ()
        below = floor & _BELOW[value]
        cache = self._packings[value]
        packings = cache.get(below)
        if packings is None:
            if len(cache) >= MEMO_LIMIT:
                cache.clear()
            packings = cache[below] = best_packings(value, below)
        if packings == (0,):
            return (matches,) if matches else ()
        return tuple(matches | packing for packing in packings)

    def options(self, card: int, floor: int) -> tuple[int, ...]:
        kind = self.kinds[card]
        if kind == NUMERAL:
            return self.numeral_options((card >> 2) + 1, floor)
        if kind in (JACK_KIND, SEVEN_SWEEP):
            return (floor,) if floor else ()
        if kind == COURT:
            same = floor & rank_mask(card >> 2)
            return (same,) if same else ()
        # SEVEN_SMALL: sweeps a floor whose pips add up to 10 or less, else a plain 7.
        if floor and pip_total(floor) <= 10:
            return (floor,)
        return self.numeral_options(7, floor)

    def is_basra(self, floor: int, card: int, captured: int) -> bool:
        if not captured:
            return False
        rules = self.rules
        kind = self.kinds[card]
        if kind == JACK_KIND:
            if self._jack_basra(floor):
                return True
            # Under the lone rule a Jack taking a lone Jack is a capture by rank.
            return rules.basra == "lone" and floor.bit_count() == 1 and bool(floor & JACKS)
        if kind == SEVEN_SWEEP:
            return not floor & ~NUMERALS and pip_total(floor) <= 10
        if kind == SEVEN_SMALL and pip_total(floor) <= 10:
            return True
        if rules.basra == "clear":
            return captured == floor
        return captured == floor and floor.bit_count() == 1


PASUR_JACK_TAKES = NUMERALS | JACKS
"""What a Pasur Jack captures: every numeral and Jack, never a King or a Queen."""


class PasurCaptures(CaptureTable):
    """Pasur: a numeral takes one set of floor numerals that adds up to 11 with it, a King
    one King, a Queen one Queen, and a Jack every numeral and Jack. A capture that clears
    the floor is a sur (the engine's basra), except with a Jack.

    >>> from basra.rules import make_rules
    >>> from basra.cards import CardSet, parse_card
    >>> table = captures_for(make_rules("pasur"))
    >>> def takes(card: str, floor: str) -> list[str]:
    ...     return [str(CardSet(m)) for m in table.options(parse_card(card),
    ...                                                    CardSet.parse(floor).mask)]
    >>> takes("4H", "7S 5D 2C KH")
    ['2C 5D', '7S']
    >>> takes("KS", "KH KC 3D"), takes("JS", "QH 3D JC"), takes("JS", "QH KD")
    (['KH', 'KC'], ['3D JC'], [])
    """

    family = "pasur"

    def __init__(self, rules: Rules) -> None:
        kinds = [NUMERAL if card >> 2 < JACK else JACK_KIND if card >> 2 == JACK else COURT
                 for card in range(52)]
        super().__init__(rules, kinds, [
            (1 << (4 * (10 - (card >> 2)))) - 1 if kinds[card] == NUMERAL
            else rank_mask(card >> 2) if kinds[card] == COURT
            else 0
            for card in range(52)
        ])
        # Every card but a Jack makes a sur when it clears the floor; a Jack's capture is
        # a sur only as jack_basra says (never, in the preset).
        self.clears = tuple(kind != JACK_KIND for kind in kinds)

    def options(self, card: int, floor: int) -> tuple[int, ...]:
        kind = self.kinds[card]
        if kind == NUMERAL:
            return sum_sets(10 - (card >> 2), floor & self.key_masks[card])
        if kind == JACK_KIND:
            taken = floor & PASUR_JACK_TAKES
            return (taken,) if taken else ()
        same = floor & rank_mask(card >> 2)
        return tuple(1 << one for one in iter_cards(same))


PLAIN_PISTI, JACK_PISTI = 1, 2
"""The kinds of pişti (:meth:`PileCaptures.pisti_kind`); 0 for none."""


class PileCaptures(CaptureTable):
    """The pile games, Pişti and Xeri (spec 9.4 and 9.5): a card of the top card's rank,
    or a Jack, takes the whole pile; any other card, and any card on an empty pile (a Jack
    too), is laid on top. A lone card taken by its rank is a pişti; a Jack on a lone Jack
    a double pişti.

    >>> from basra.rules import make_rules
    >>> from basra.cards import CardSet, parse_card
    >>> table = captures_for(make_rules("pisti"))
    >>> pile = CardSet.parse("3D 9S 7C").mask
    >>> [table.pile_capture(parse_card(c), parse_card("7C"), pile) == pile
    ...  for c in ("7H", "JS", "9H")]
    [True, True, False]
    >>> table.pile_capture(parse_card("JS"), -1, 0)
    0
    >>> lone = CardSet.parse("JD").mask
    >>> table.pisti_kind(lone, parse_card("JS"), lone) == JACK_PISTI
    True
    """

    family = "pisti"

    def __init__(self, rules: Rules) -> None:
        kinds = [NUMERAL if card >> 2 < JACK else JACK_KIND if card >> 2 == JACK else COURT
                 for card in range(52)]
        super().__init__(rules, kinds, [0] * 52)
        self.pile = True
        self.memos = (None,) * 52
        self.sweeps = tuple(kind == JACK_KIND for kind in kinds)
        self.jack_pisti = rules.jack_pisti == "lone"
        self.last_play_pisti = rules.last_play_pisti

    def pile_capture(self, card: int, top: int, pile: int) -> int:
        """What ``card`` takes from ``pile`` (a mask) whose top card is ``top``: the whole
        pile or nothing (0)."""
        if pile and (card >> 2 == JACK or card >> 2 == top >> 2):
            return pile
        return 0

    def options(self, card: int, floor: int) -> tuple[int, ...]:
        """The capture of ``card`` when the pile is known by its cards alone: a lone card is
        its own top; on a larger pile only a Jack's capture is known without the order."""
        if floor and (card >> 2 == JACK or floor.bit_count() == 1):
            taken = self.pile_capture(card, floor.bit_length() - 1, floor)
            return (taken,) if taken else ()
        if floor:
            raise ValueError("a pile game's capture depends on the pile's top card: use "
                             "pile_capture(card, top, pile)")
        return ()

    def pisti_kind(self, floor: int, card: int, captured: int) -> int:
        """0, :data:`PLAIN_PISTI` or :data:`JACK_PISTI` for ``card`` capturing ``captured``
        from ``floor`` (whether it is the last play, ``last_play_pisti``, is for the
        caller). Only a pile of exactly one card can be a pişti (9.5.1 to 9.5.4)."""
        if not captured or floor.bit_count() != 1:
            return 0
        if card >> 2 == JACK:
            if floor & JACKS:
                return JACK_PISTI
            return PLAIN_PISTI if self.jack_pisti else 0
        return PLAIN_PISTI if floor & rank_mask(card >> 2) else 0

    def is_basra(self, floor: int, card: int, captured: int) -> bool:
        return self.pisti_kind(floor, card, captured) > 0

    def bonus_points(self, floor: int, card: int, captured: int) -> int:
        """The points of the pişti a capture makes (0 for none)."""
        kind = self.pisti_kind(floor, card, captured)
        return (0, self.rules.pisti_points, self.rules.jack_pisti_points)[kind]


FAMILY_CAPTURES: dict[str, Callable[[Rules], CaptureTable]] = {
    "basra": BasraCaptures,
    "pasur": PasurCaptures,
    "pisti": PileCaptures,
}
"""The capture rule of each family (:attr:`basra.rules.Rules.family`)."""


def captures_for(rules: Rules) -> CaptureTable:
    """A fresh capture table for ``rules``, of its family's kind (see also the shared,
    cached :func:`basra.state.capture_table`)."""
    return FAMILY_CAPTURES[rules.family](rules)
