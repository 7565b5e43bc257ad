"""A one-line text form of a deal state, for tests, puzzles and bug reports.

Sections are separated by ``|``; the first names the rules as a preset, its player count
and any options that differ from the preset::

    egyptian/2 | dealer 1 | turn 0 | floor 4H 3C 5D | hands 7H JC / QS 4D | stock 8C 2D ...
      | piles - / 5S 6S | basras 0 1 | last 1

``stock`` lists the undealt cards in dealing order (each seat's cards of a batch sorted),
``piles`` and ``basras`` are per side, ``last`` is the last capturer (``-`` for none), and a
finished deal adds ``leftover``. An extra deal that some seats sit out adds ``seats`` (the
seats that play), and under ``leftover = split`` the floor is listed oldest card first.
:func:`position_text` and :func:`parse_position` round-trip.

>>> import random
>>> from basra.state import new_deal
>>> state = new_deal(make_rules("lebanese"), dealer=0, rng=random.Random(1))
>>> parse_position(position_text(state)) == state
True
>>> parse_position("egyptian/2 | floor 5D 7S")
Traceback (most recent call last):
...
basra.position.PositionError: bad position: missing section 'dealer'
"""

from __future__ import annotations

import dataclasses

from .cards import CARD_NAMES, cards_text, iter_cards, parse_cards
from .rules import PRESETS, Rules, RulesError, make_rules
from .state import DealState, capture_table, seat_turns

__all__ = ["PositionError", "parse_position", "position_text", "rules_text"]


class PositionError(ValueError):
    """Text that is not a valid position; the message says which part is wrong."""


def _option_text(rules: Rules, name: str) -> str:
    value = getattr(rules, name)
    if name == "bury":
        return ",".join(value) or "none"
    if name == "card_points":
        return ",".join(f"{spec}:{points}" for spec, points in value) or "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def rules_text(rules: Rules) -> str:
    """The rules as the nearest preset, its players and the options that differ.

    >>> rules_text(make_rules("iraqi", overrides={"target": 151}))
    'iraqi/2 target=151'
    """
    best: tuple[int, str, list[str]] | None = None
    for name, found in PRESETS.items():
        if rules.players not in found.players:
            continue
        base = found.rules_for(rules.players)
        changed = [f.name for f in dataclasses.fields(Rules) if getattr(base, f.name) !=
                   getattr(rules, f.name)]
        if best is None or len(changed) < best[0]:
            best = (len(changed), name, changed)
    assert best is not None  # egyptian admits every player count
    _, name, changed = best
    options = " ".join(f"{field}={_option_text(rules, field)}" for field in changed)
    return f"{name}/{rules.players}" + (f" {options}" if options else "")


def _parse_rules(text: str) -> Rules:
    words = text.split()
    if not words:
        raise PositionError("bad position: the rules section is empty")
    variant, _, players = words[0].partition("/")
    overrides = {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep:
            raise PositionError(f"bad position: rule option {word!r} is not NAME=VALUE")
        overrides[key] = value
    try:
        count = int(players) if players else None
        return make_rules(variant, count, overrides)
    except (RulesError, ValueError) as error:
        raise PositionError(f"bad position: {error}") from None


def _seats_text(masks: tuple[int, ...]) -> str:
    return " / ".join(cards_text(mask) for mask in masks)


def position_text(state: DealState) -> str:
    """The one-line text of a deal state."""
    rules = state.rules
    order = state.seats
    stock = [card for later in state.batches for seat in order for card in iter_cards(later[seat])]
    floor = (" ".join(CARD_NAMES[c] for c in state.laid) if state.laid and state.floor
             else cards_text(state.floor))
    parts = [
        rules_text(rules),
        f"dealer {state.dealer}",
        f"turn {state.to_play}",
        f"floor {floor}",
        f"hands {_seats_text(state.hands)}",
        f"stock {' '.join(CARD_NAMES[c] for c in stock) or '-'}",
        f"piles {_seats_text(state.piles)}",
        f"basras {' '.join(str(b) for b in state.basras)}",
        f"last {state.last_capturer if state.last_capturer >= 0 else '-'}",
    ]
    if state.leftover:
        given = " ".join(CARD_NAMES[c] for c in state.laid) if state.laid else None
        parts.append(f"leftover {given or cards_text(state.leftover)}")
    if len(order) != rules.players:
        parts.append(f"seats {' '.join(str(seat) for seat in sorted(order))}")
    if state.table.pile:
        parts += [
            f"down {cards_text(state.down)}",
            f"jacks {' '.join(str(j) for j in state.jack_pistis)}",
            f"kitty {state.kitty if state.kitty >= 0 else '-'}",
            f"shown {cards_text(state.exposed)}",
        ]
    return " | ".join(parts)


def _cards(text: str, what: str) -> int:
    if text.strip() == "-":
        return 0
    mask = 0
    try:
        for card in parse_cards(text):
            mask |= 1 << card
    except ValueError as error:
        raise PositionError(f"bad position: {what}: {error}") from None
    return mask


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise PositionError(f"bad position: {what} must be a number, not {text!r}") from None


def parse_position(text: str) -> DealState:
    """Read a position written by :func:`position_text`; raises :class:`PositionError`."""
    sections = [part.strip() for part in text.strip().split("|")]
    rules = _parse_rules(sections[0])
    fields: dict[str, str] = {}
    for section in sections[1:]:
        key, _, rest = section.partition(" ")
        if key in fields:
            raise PositionError(f"bad position: section {key!r} given twice")
        fields[key] = rest.strip()
    for key in ("dealer", "turn", "floor", "hands", "stock", "piles", "basras", "last"):
        if key not in fields:
            raise PositionError(f"bad position: missing section {key!r}")
    unknown = set(fields) - {"dealer", "turn", "floor", "hands", "stock", "piles", "basras",
                             "last", "leftover", "seats", "down", "jacks", "kitty", "shown"}
    if unknown:
        raise PositionError(f"bad position: unknown section {sorted(unknown)[0]!r}")
    n, sides = rules.players, rules.sides
    dealer = _int(fields["dealer"], "dealer")
    turn = _int(fields["turn"], "turn")
    last = -1 if fields["last"] == "-" else _int(fields["last"], "last")
    for name, seat in (("dealer", dealer), ("turn", turn), ("last", last)):
        if not -1 <= seat < n or (seat == -1 and name != "last"):
            raise PositionError(f"bad position: {name} {seat} is not a seat of {n} players")
    hands = tuple(_cards(part, "hands") for part in fields["hands"].split("/"))
    piles = tuple(_cards(part, "piles") for part in fields["piles"].split("/"))
    if len(hands) != n or len(piles) != sides:
        raise PositionError(f"bad position: expected {n} hands and {sides} piles")
    basras = tuple(_int(word, "basras") for word in fields["basras"].split())
    if len(basras) != sides:
        raise PositionError(f"bad position: expected {sides} basra counts")
    floor = _cards(fields["floor"], "floor")
    playing = tuple(range(n))
    if "seats" in fields:
        playing = tuple(sorted({_int(word, "seats") for word in fields["seats"].split()}))
        if len(playing) < 2 or not all(0 <= seat < n for seat in playing):
            raise PositionError(f"bad position: seats must be two or more seats of {n} players")
    turns = seat_turns(n, None if len(playing) == n else playing)
    leftover = _cards(fields.get("leftover", "-"), "leftover")
    stock: list[int] = []
    if fields["stock"] != "-":
        try:
            stock = parse_cards(fields["stock"])
        except ValueError as error:
            raise PositionError(f"bad position: stock: {error}") from None
    step = len(playing) * rules.hand_size
    if len(stock) % step:
        raise PositionError(f"bad position: the stock must hold whole batches of {step} cards")
    first = turns[dealer]
    order = [first]
    while turns[order[-1]] != first:
        order.append(turns[order[-1]])
    batches = []
    for start in range(0, len(stock), step):
        hands_of_batch = [0] * n
        for i, seat in enumerate(order):
            for card in stock[start + i * rules.hand_size:start + (i + 1) * rules.hand_size]:
                hands_of_batch[seat] |= 1 << card
        batches.append(tuple(hands_of_batch))
    everything = [floor, *hands, *piles, *(1 << c for c in stock)]
    total = sum(mask.bit_count() for mask in everything)
    union = 0
    for mask in everything:
        union |= mask
    if total != 52 or union.bit_count() != 52:
        raise PositionError(
            f"bad position: the cards must be the 52 of the deck once each ({total} given, "
            f"{union.bit_count()} different)"
        )
    table = capture_table(rules)
    if leftover & ~(piles[rules.side_of[last]] if last >= 0 else 0) and not table.ordered:
        raise PositionError("bad position: the leftover must be in the last capturer's pile")
    laid: tuple[int, ...] = ()
    ordered = table.ordered or table.pile
    if ordered and floor:
        laid = tuple(parse_cards(fields["floor"]))
    elif ordered and leftover:
        laid = tuple(parse_cards(fields["leftover"]))
    if not table.pile:
        return DealState(table, dealer, turn, floor, hands, piles, basras, last,
                         tuple(batches), leftover, turns, laid)
    jacks = tuple(_int(word, "jacks") for word in fields.get("jacks", "0 " * sides).split())
    if len(jacks) != sides:
        raise PositionError(f"bad position: expected {sides} counts of Jack piştis")
    kitty = fields.get("kitty", "-")
    return DealState(table, dealer, turn, floor, hands, piles, basras, last,
                     tuple(batches), leftover, turns, laid, _cards(fields.get("down", "-"), "down"),
                     jacks, -1 if kitty == "-" else _int(kitty, "kitty"),
                     _cards(fields.get("shown", "-"), "shown"))
