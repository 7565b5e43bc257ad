"""Game records in the ``basra-record/1`` format: write, read, replay and validate.

A record is a JSON document holding a whole match (see ``docs/record.md``). Replaying
one checks every play against the rules and every score against the plays; a broken
record raises :class:`RecordError` naming the deal, the play and the reason.

>>> import random
>>> from basra.match import Match
>>> from basra.rules import make_rules
>>> match = Match(make_rules("jawaker"), seed=5, variant="jawaker")
>>> rng = random.Random(5)
>>> while not match.is_over:
...     _ = match.play(rng.choice(match.legal_moves()))
>>> record = match_record(match, [Player("Amira", "human"), Player("greedy", "bot")])
>>> replay(record).totals == match.totals
True
>>> broken = json.loads(dumps(record))
>>> broken["deals"][0]["plays"][3]["basra"] = not broken["deals"][0]["plays"][3]["basra"]
>>> replay(broken)
Traceback (most recent call last):
...
basra.record.RecordError: deal 1, play 4: ...
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from .cards import CARD_NAMES, card_names, parse_card
from .match import DealHistory, Match, Play
from .rules import PILE_FAMILIES, Rules, RulesError
from .state import DealScore, Layout, layout_seats, make_move

__all__ = ["FORMAT", "Player", "RecordError", "dumps", "loads", "match_record", "pile_orders",
           "replay"]

FORMAT = "basra-record/1"

_SCORE_KEYS = ("cards", "basras", "majority", "card_points", "basra_points", "total")


class RecordError(ValueError):
    """A record that is malformed or breaks the rules; the message says where and why.

    ``problem`` says what kind of problem it is, for a reader who words it otherwise (a
    page in another language): ``not_json`` (the text is not JSON), ``not_record`` (JSON,
    but no basra record), ``version`` (a basra record of a format this code does not read:
    ``version`` holds the format given), or ``invalid`` (a record of this format that is
    malformed or breaks the rules); ``deal`` and ``play`` (counted from 1) say where, when
    the problem is in one.
    """

    def __init__(self, message: str, problem: str = "invalid", *,
                 version: str | None = None) -> None:
        super().__init__(message)
        self.problem = problem
        self.version = version
        self.deal: int | None = None
        self.play: int | None = None


class Player(NamedTuple):
    """A seat's entry in a record."""

    name: str
    kind: str = "bot"
    """``human`` or ``bot``."""


def _score_dict(score: DealScore) -> dict[str, Any]:
    out: dict[str, Any] = {key: list(getattr(score, key)) for key in _SCORE_KEYS}
    out["carry_in"] = score.carry_in
    out["carry_out"] = score.carry_out
    if score.clubs:
        out["clubs"] = list(score.clubs)
    if score.pistis:
        out["pistis"] = [list(counts) for counts in score.pistis]
    return out


def pile_orders(layout: Layout, plays: Sequence[Play]) -> list[tuple[int, ...]]:
    """Pile games: the pile, bottom to top, before each play and after the last one.

    A capture takes the whole pile and leaves it empty; any other play is laid on top.

    >>> from basra.cards import parse_cards
    >>> layout = Layout(0, tuple(parse_cards("2C 3D 4H 5S")), ((), ()), ())
    >>> steps = [Play(1, parse_cards("9S")[0], 0, False), Play(0, parse_cards("9H")[0], 1, False)]
    >>> [card_names(sum(1 << c for c in pile)) for pile in pile_orders(layout, steps)]
    [['2C', '3D', '4H', '5S'], ['2C', '3D', '4H', '5S', '9S'], []]
    """
    pile = layout.floor
    orders = [pile]
    for made in plays:
        pile = () if made.captured else (*pile, made.card)
        orders.append(pile)
    return orders


def _leftover_dict(deal: DealHistory, pile: bool = False) -> dict[str, Any] | None:
    if not deal.leftover:
        return None
    if pile:  # the pile as it lay, bottom to top
        order = pile_orders(deal.layout, deal.plays)[-1]
        return {"seat": deal.leftover_seat, "cards": [CARD_NAMES[c] for c in order]}
    if deal.shares:
        return {"seat": deal.leftover_seat, "cards": [CARD_NAMES[c] for c, _ in deal.shares],
                "sides": [side for _, side in deal.shares]}
    return {"seat": deal.leftover_seat, "cards": card_names(deal.leftover)}


def _deal_dict(deal: DealHistory, pile: bool = False) -> dict[str, Any]:
    layout = deal.layout
    out: dict[str, Any] = {
        "dealer": layout.dealer,
        "floor": [CARD_NAMES[c] for c in layout.floor],
        "hands": [[CARD_NAMES[c] for c in hand] for hand in layout.hands],
        "stock": [CARD_NAMES[c] for c in layout.stock],
        "buried": [CARD_NAMES[c] for c in layout.buried],
        "plays": [
            {"seat": p.seat, "card": CARD_NAMES[p.card], "captured": card_names(p.captured),
             "basra": p.basra}
            for p in deal.plays
        ],
    }
    if pile:
        del out["buried"]  # a pile game buries nothing; it has a face-down pile instead
        out["floor_down"] = [CARD_NAMES[c] for c in layout.floor_down]
        out["bottom_card"] = CARD_NAMES[layout.bottom_card] if layout.bottom_card >= 0 else None
        out["turned"] = [CARD_NAMES[c] for c in layout.turned]
        orders = pile_orders(layout, deal.plays)
        for entry, made, before in zip(out["plays"], deal.plays, orders, strict=False):
            if made.captured:  # the whole pile, bottom to top
                entry["captured"] = [CARD_NAMES[c] for c in before]
            entry["pisti"] = made.pisti
    seats = layout_seats(layout)
    if len(seats) != len(layout.hands):
        out = {"dealer": out.pop("dealer"), "seats": list(seats), **out}
    if deal.score is not None:
        out["leftover"] = _leftover_dict(deal, pile)
        out["score"] = _score_dict(deal.score)
    return out


def match_record(match: Match, players: Sequence[Player]) -> dict[str, Any]:
    """The record of a match, finished or not (an unfinished one has no ``result``)."""
    if len(players) != match.rules.players:
        raise ValueError(f"{len(players)} players named for {match.rules.players} seats")
    record: dict[str, Any] = {
        "format": FORMAT,
        "variant": match.variant,
        "rules": match.rules.to_dict(),
        "players": [{"name": p.name, "kind": p.kind} for p in players],
    }
    if match.seed is not None:
        record["seed"] = match.seed
    pile = match.rules.family in PILE_FAMILIES
    record["deals"] = [_deal_dict(deal, pile) for deal in match.deals]
    if match.winner is not None:
        record["result"] = {"totals": list(match.totals), "winner": match.winner,
                            "target": match.target}
        if match.resigned:
            record["result"]["resigned"] = list(match.resigned)
    return record


def dumps(record: dict[str, Any]) -> str:
    """The record as JSON text (one deal's cards per line stay readable with indent)."""
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def loads(text: str) -> dict[str, Any]:
    """Parse record JSON; raises :class:`RecordError` if it is not a JSON object."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"not valid JSON: {error}", "not_json") from None
    except RecursionError:
        raise RecordError("not a record: JSON nested too deeply", "not_record") from None
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object", "not_record")
    return record


# Replay


def _get(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: expected an object")
    if key not in obj:
        raise RecordError(f"{where}: missing {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise RecordError(f"{where}: {key!r} must be {names}, not {value!r}")
    return value


def _cards(values: Any, where: str) -> list[int]:
    if not isinstance(values, list):
        raise RecordError(f"{where}: expected a list of cards, not {values!r}")
    try:
        return [parse_card(v) if isinstance(v, str) else parse_card(repr(v)) for v in values]
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None


def _mask(cards: list[int], where: str) -> int:
    mask = 0
    for card in cards:
        if mask >> card & 1:
            raise RecordError(f"{where}: card {CARD_NAMES[card]} listed twice")
        mask |= 1 << card
    return mask


def replay(record: dict[str, Any]) -> Match:
    """Replay a record, checking every play, score and the result; the replayed match.

    Raises :class:`RecordError` at the first thing that breaks the format or the rules.
    """
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, not {type(record).__name__}",
                          "not_record")
    given = record.get("format")
    if given != FORMAT:
        message = f"format must be {FORMAT!r}, not {given!r}"
        if isinstance(given, str) and given.startswith(FORMAT.split("/")[0] + "/"):
            raise RecordError(message, "version", version=given[:40])
        raise RecordError(message, "not_record")
    try:
        rules = Rules.from_dict(_get(record, "rules", dict, "record"))
    except RulesError as error:
        raise RecordError(f"rules: {error}") from None
    variant = record.get("variant", "custom")
    players = _get(record, "players", list, "record")
    if len(players) != rules.players:
        raise RecordError(f"players: {len(players)} listed for {rules.players} seats")
    for seat, player in enumerate(players):
        _get(player, "name", str, f"player {seat}")
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError(f"seed must be a whole number, not {seed!r}")
    deals = _get(record, "deals", list, "record")
    if not deals:
        raise RecordError("the record has no deals")
    first_dealer = _get(deals[0], "dealer", int, "deal 1")
    if not 0 <= first_dealer < rules.players:
        not_a_seat = RecordError(f"deal 1: dealer {first_dealer} is not a seat")
        not_a_seat.deal = 1
        raise not_a_seat
    match = Match(rules, seed, variant=str(variant), first_dealer=first_dealer, auto_deal=False)
    result = record.get("result")
    resigned = _resigned(result, rules.sides)
    match.resigned = list(resigned)
    for index, deal in enumerate(deals, 1):
        try:
            _replay_deal(match, deal, index, is_last=index == len(deals))
        except RecordError as error:
            error.deal = index
            raise
    if result is None:
        if match.is_over:
            raise RecordError("the match is over but the record has no result")
        return match
    where = "result"
    if not match.is_over and resigned:
        match.stop()  # ended by a resignation before its target
    if not match.is_over:
        raise RecordError("result: the record has a result but the match is not over")
    totals = _get(result, "totals", list, where)
    if totals != match.totals:
        raise RecordError(f"result: totals {totals} do not match the deals' {match.totals}")
    if _get(result, "winner", int, where) != match.winner:
        raise RecordError(f"result: winner {result['winner']} should be side {match.winner}")
    if _get(result, "target", int, where) != match.target:
        raise RecordError(f"result: target {result['target']} should be {match.target}")
    return match


def _resigned(result: Any, sides: int) -> list[int]:
    """The sides a result says resigned (``result.resigned``), checked."""
    if not isinstance(result, dict) or result.get("resigned") is None:
        return []
    listed = result["resigned"]
    if (not isinstance(listed, list) or not listed or len(set(listed)) != len(listed)
            or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < sides
                       for s in listed)):
        raise RecordError(f"result: resigned must list sides 0 to {sides - 1} at most once "
                          f"each, not {listed!r}")
    return list(listed)


_PILE_FIELDS = ("floor_down", "bottom_card", "turned")


def _pile_layout_fields(deal: dict[str, Any],
                        where: str) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """A pile game's ``floor_down``, ``bottom_card`` and ``turned``, read and typed."""
    down = tuple(_cards(_get(deal, "floor_down", list, where), f"{where} floor_down"))
    if "bottom_card" not in deal:
        raise RecordError(f"{where}: missing 'bottom_card'")
    named = deal["bottom_card"]
    bottom = -1 if named is None else _cards([named], f"{where} bottom_card")[0]
    listed = deal.get("turned")
    turned = () if listed is None else tuple(_cards(listed, f"{where} turned"))
    return down, bottom, turned


def _replay_deal(match: Match, deal: Any, index: int, *, is_last: bool) -> None:
    where = f"deal {index}"
    if match.is_over:
        raise RecordError(f"{where}: the match was already over")
    pile = match.rules.family in PILE_FAMILIES
    dealer = _get(deal, "dealer", int, where)
    floor = _cards(_get(deal, "floor", list, where), f"{where} floor")
    hands = [_cards(hand, f"{where} hands") for hand in _get(deal, "hands", list, where)]
    stock = _cards(_get(deal, "stock", list, where), f"{where} stock")
    # Absent (records written before it existed) or null: unknown, taken as none.
    listed = deal.get("buried")
    buried = [] if listed is None else _cards(listed, f"{where} buried")
    down: tuple[int, ...] = ()
    turned: tuple[int, ...] = ()
    bottom = -1
    if pile and isinstance(deal, dict):
        down, bottom, turned = _pile_layout_fields(deal, where)
    else:
        for key in _PILE_FIELDS:
            if key in deal:
                raise RecordError(f"{where}: {key!r} belongs to the pile games, not to the "
                                  f"{match.rules.family} family")
    layout = Layout(dealer, tuple(floor), tuple(map(tuple, hands)), tuple(stock),
                    tuple(buried), down, bottom, turned)
    if "seats" in deal and deal["seats"] != list(layout_seats(layout)):
        raise RecordError(f"{where}: seats {deal['seats']!r} are not the seats dealt cards "
                          f"{list(layout_seats(layout))}")
    try:
        match.deal(layout)
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None
    plays = _get(deal, "plays", list, where)
    for number, entry in enumerate(plays, 1):
        try:
            _replay_play(match, entry, f"{where}, play {number}")
        except RecordError as error:
            error.play = number
            raise
    history = match.deals[-1]
    if history.score is None:
        if not is_last or "score" in deal:
            raise RecordError(f"{where}: the deal is unfinished ({len(plays)} plays)")
        return
    _check_leftover(deal, history, where, pile)
    _check_score(_get(deal, "score", dict, where), history.score, where)


def _pile_text(cards: Sequence[int]) -> str:
    return " ".join(CARD_NAMES[c] for c in cards) or "(empty)"


def _replay_play(match: Match, entry: Any, here: str) -> None:
    if not match.deal_in_progress:
        raise RecordError(f"{here}: every card of the deal has been played already")
    seat = _get(entry, "seat", int, here)
    state = match.state
    if seat != state.to_play:
        raise RecordError(f"{here}: seat {seat} played, but it is seat {state.to_play}'s turn")
    card = _cards([_get(entry, "card", str, here)], here)[0]
    listed = _cards(_get(entry, "captured", list, here), here)
    captured = _mask(listed, here)
    pile = state.table.pile
    pisti = _get(entry, "pisti", int, here) if pile else 0
    # A pile game's play may give its pişti alone: basra then follows from it.
    basra = (pisti > 0 if pile and "basra" not in entry
             else _get(entry, "basra", bool, here))
    if pile and listed and listed != list(state.laid):
        raise RecordError(f"{here}: captured lists {_pile_text(listed)}, but the pile lay "
                          f"{_pile_text(state.laid)} (bottom to top); a capture takes the "
                          "whole pile, in its order")
    try:
        made = match.play(make_move(card, captured))
    except ValueError as error:
        pile_note = f"; the pile lay {_pile_text(state.laid)}" if pile else ""
        raise RecordError(f"{here}: {error}{pile_note}") from None
    if pile and made.pisti != pisti:
        says = f"a pişti of {pisti} points" if pisti else "no pişti"
        rules = f"one of {made.pisti} points" if made.pisti else "none"
        raise RecordError(f"{here}: the record says {says}, the rules give {rules}")
    if made.basra != basra:
        says = "a basra" if basra else "no basra"
        raise RecordError(f"{here}: the record says {says}, the rules say otherwise")


def _check_leftover(deal: Any, history: DealHistory, where: str, pile: bool = False) -> None:
    if "leftover" not in deal:
        raise RecordError(f"{where}: missing 'leftover'")
    leftover = deal["leftover"]
    if leftover is None:
        if history.leftover:
            raise RecordError(f"{where}: leftover is null, but seat {history.leftover_seat} "
                              f"took {' '.join(card_names(history.leftover))}")
        return
    seat = _get(leftover, "seat", int, f"{where} leftover")
    listed = _cards(_get(leftover, "cards", list, f"{where} leftover"), where)
    cards = _mask(listed, where)
    if (seat, cards) != (history.leftover_seat, history.leftover):
        expected = (f"seat {history.leftover_seat} takes {' '.join(card_names(history.leftover))}"
                    if history.leftover else "null")
        raise RecordError(f"{where}: leftover should be {expected}")
    if pile:
        order = pile_orders(history.layout, history.plays)[-1]
        if listed != list(order):
            raise RecordError(f"{where}: the leftover lists {_pile_text(listed)}, but the pile "
                              f"lay {_pile_text(order)} (bottom to top)")
    if history.shares:
        given = _leftover_dict(history)
        assert given is not None
        if listed != [c for c, _ in history.shares] or leftover.get("sides") != given["sides"]:
            raise RecordError(f"{where}: the leftover is given out as cards {given['cards']} "
                              f"to sides {given['sides']}")


def _check_score(score: dict[str, Any], computed: DealScore, where: str) -> None:
    for key, value in _score_dict(computed).items():
        if score.get(key) != value:
            raise RecordError(
                f"{where}: score {key} is {score.get(key)!r}, the plays give {value!r}"
            )
