"""Cards as ints 0..51, sets of cards as int bitmasks, and their text forms.

A card is ``rank * 4 + suit``. Ranks run A, 2 .. 10, J, Q, K (index 0..12) and suits
S, H, D, C (index 0..3), so the forty numerals are cards 0..39 and each rank's four
cards are four adjacent bits::

    rank    A    2    3    4    5    6    7    8    9    10   J    Q    K
    S       0    4    8   12   16   20   24   28   32   36   40   44   48
    H       1    5    9   13   17   21   25   29   33   37   41   45   49
    D       2    6   10   14   18   22   26   30   34   38   42   46   50
    C       3    7   11   15   19   23   27   31   35   39   43   47   51

A set of cards is an int with bit ``1 << card`` set for each member; :class:`CardSet`
wraps one for display and iteration.

>>> parse_card("10d")
38
>>> card_name(38)
'10D'
>>> CardSet.parse("7S 4H 3C")
CardSet.parse('3C 4H 7S')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = [
    "ACE",
    "ALL_CARDS",
    "CARD_NAMES",
    "JACK",
    "KING",
    "NUMERALS",
    "QUEEN",
    "RANK_NAMES",
    "SEVEN_OF_DIAMONDS",
    "SUIT_NAMES",
    "CardSet",
    "InvalidCardError",
    "card_long_name",
    "card_name",
    "card_names",
    "card_symbol",
    "cards_text",
    "iter_cards",
    "parse_card",
    "parse_cards",
    "rank_mask",
    "rank_of",
    "suit_of",
    "value_of",
]

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_NAMES = ("S", "H", "D", "C")
SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")
_RANK_WORDS = (
    "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king",
)
_SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")

ACE, JACK, QUEEN, KING = 0, 10, 11, 12
"""Rank indexes of the ace and the court cards."""

CARD_NAMES = tuple(RANK_NAMES[c >> 2] + SUIT_NAMES[c & 3] for c in range(52))
"""Canonical ASCII name of each card, indexed by card."""

SEVEN_OF_DIAMONDS = 6 * 4 + 2
"""The 7♦, card 26."""

ALL_CARDS = (1 << 52) - 1
"""The mask of the whole deck."""

NUMERALS = (1 << 40) - 1
"""The mask of the forty numeral cards (A..10)."""

_RANK_ALIASES = {name: index for index, name in enumerate(RANK_NAMES)} | {"T": 9, "1": 0}
_SUIT_ALIASES = {name: index for index, name in enumerate(SUIT_NAMES)} | {
    symbol: index for index, symbol in enumerate(SUIT_SYMBOLS)
}
_SUIT_ALIASES |= {"\u2664": 0, "\u2661": 1, "\u2662": 2, "\u2667": 3}  # white suit symbols


class InvalidCardError(ValueError):
    """A card text that is not a card; the message quotes it."""


def parse_card(text: str) -> int:
    """Parse a card such as ``7D``, ``10h``, ``Ts``, ``1C`` or ``Q♠``.

    >>> parse_card("AS"), parse_card("1s"), parse_card("T♦")
    (0, 0, 38)
    """
    word = text.strip()
    if len(word) >= 2:
        rank = _RANK_ALIASES.get(word[:-1].upper())
        suit = _SUIT_ALIASES.get(word[-1].upper())
        if rank is not None and suit is not None:
            return rank * 4 + suit
    raise InvalidCardError(
        f"bad card {text!r}: expected a rank (A 2-10 J Q K, or T, 1) and a suit (S H D C)"
    )


def card_name(card: int) -> str:
    """The canonical ASCII name of a card: ``AS``, ``10D``, ``QH``."""
    return CARD_NAMES[card]


def card_symbol(card: int) -> str:
    """The card with its suit symbol, as people read it: ``10♦``, ``Q♠``.

    >>> card_symbol(38), card_symbol(44)
    ('10♦', 'Q♠')
    """
    return RANK_NAMES[card >> 2] + SUIT_SYMBOLS[card & 3]


def card_long_name(card: int) -> str:
    """The card in words, as a screen reader says it.

    >>> card_long_name(26), card_long_name(44)
    ('7 of diamonds', 'queen of spades')
    """
    return f"{_RANK_WORDS[card >> 2]} of {_SUIT_WORDS[card & 3]}"


def rank_of(card: int) -> int:
    """Rank index 0..12 (A=0, 10=9, J=10, Q=11, K=12)."""
    return card >> 2


def suit_of(card: int) -> int:
    """Suit index 0..3 (S, H, D, C)."""
    return card & 3


def value_of(card: int) -> int:
    """Pip value of a numeral (A=1 .. 10=10); 0 for J, Q and K."""
    rank = card >> 2
    return rank + 1 if rank < JACK else 0


def rank_mask(rank: int) -> int:
    """The mask of the four cards of a rank."""
    return 0b1111 << (rank * 4)


def iter_cards(mask: int) -> Iterator[int]:
    """The cards of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse cards separated by spaces or commas (or a list of card texts), in order.

    A repeated card is an error: no two cards of a deck are the same.

    >>> parse_cards("7S, 4H 3c")
    [24, 13, 11]
    """
    words = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = [parse_card(word) for word in words]
    if len(set(cards)) != len(cards):
        seen: set[int] = set()
        for card in cards:
            if card in seen:
                raise InvalidCardError(f"card {card_name(card)} is given twice")
            seen.add(card)
    return cards


def _names_by_byte(offset: int) -> tuple[tuple[str, ...], ...]:
    """The names of the cards ``offset`` to ``offset + 7`` each byte value stands for."""
    return tuple(tuple(CARD_NAMES[offset + bit] for bit in range(8)
                       if value >> bit & 1 and offset + bit < len(CARD_NAMES))
                 for value in range(256))


_NAMES_BY_BYTE = tuple(_names_by_byte(offset) for offset in range(0, 56, 8))
"""For each byte of a mask (52 cards: seven bytes), the names its 256 values stand for."""


def card_names(mask: int) -> list[str]:
    """The names of the cards of a mask, lowest first (a byte of the mask at a time: the
    server names the cards of every view it sends).

    >>> card_names(1 << parse_card("7S") | 1 << parse_card("AH"))
    ['AH', '7S']
    """
    names: list[str] = []
    for by_byte in _NAMES_BY_BYTE:
        if not mask:
            break
        if mask & 255:
            names.extend(by_byte[mask & 255])
        mask >>= 8
    return names


def cards_text(mask: int) -> str:
    """The cards of a mask as text, lowest first: ``'4H 3C 7S'`` style, ``'-'`` if empty."""
    return " ".join(card_names(mask)) or "-"


class CardSet:
    """An immutable set of cards backed by a bitmask.

    >>> floor = CardSet.parse("7S 4H 3C 5D")
    >>> len(floor), 24 in floor, str(floor)
    (4, True, '3C 4H 5D 7S')
    """

    __slots__ = ("mask",)

    mask: int

    def __init__(self, cards: int | Iterable[int] = 0) -> None:
        if isinstance(cards, int):
            if cards < 0 or cards > ALL_CARDS:
                raise ValueError(f"card mask out of range: {cards:#x}")
            mask = cards
        else:
            mask = 0
            for card in cards:
                if not 0 <= card < 52:
                    raise ValueError(f"not a card: {card!r}")
                mask |= 1 << card
        object.__setattr__(self, "mask", mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> CardSet:
        """Parse cards separated by spaces or commas."""
        return cls(parse_cards(text))

    def __iter__(self) -> Iterator[int]:
        return iter_cards(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < 52 and bool(self.mask >> card & 1)

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def names(self) -> list[str]:
        """The canonical names of the cards, lowest first."""
        return card_names(self.mask)

    def __str__(self) -> str:
        return cards_text(self.mask)

    def __repr__(self) -> str:
        return f"CardSet.parse({' '.join(self.names())!r})"
