"""What each connection of a table is sent: its seat's view, or the public view.

Seat views are built from :func:`basra.observe.observe`, the core's only view of a match
for a player; the public view is a seat's observation with the hand, the legal moves and,
in a pile game, the first pile's face-down cards taken out. Nothing else about the match
(other hands, the stock, the seed) is read here, but the plays of the deal (public, and in
a pile game less the face-down cards the connection may not see, per ``kitty_view``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

from basra.cards import CARD_NAMES, card_names
from basra.match import DealHistory, Play
from basra.observe import Observation, observe
from basra.players.ratings import COMPUTER_RATINGS
from basra.rules import PILE_FAMILIES, Rules
from basra.state import hidden_down, layout_seats, move_text

from .table import Table

__all__ = ["conduct_view", "deal_score_view", "seat_list", "state_message", "table_info"]


def seat_list(table: Table) -> list[dict[str, Any]]:
    """The seats as everyone sees them."""
    side_of = table.rules.side_of
    return [
        {
            "seat": seat, "side": side_of[seat], "kind": config.kind,
            "name": table.names[seat], "level": config.level,
            "taken": table.names[seat] is not None,
            "connected": config.kind == "bot" or table.connections[seat] > 0,
            "away": seat in table.away,
            "account": _account_name(table, seat),
            "bot": seat in table.bots,
            "rating": _seat_rating(table, seat),
        }
        for seat, config in enumerate(table.config.seats)
    ]


def conduct_view(table: Table) -> dict[str, Any]:
    """A rated table's conduct in its current match: why it is unrated (``aborted``,
    ``same_pair`` or None), the seat whose absence aborted it, the seats that forfeited
    (first to go first) and the seats that asked for a rematch."""
    return {"unrated": table.unrated, "aborted_by": table.aborted_by,
            "forfeits": list(table.forfeits), "rematch_asks": sorted(table.rematch_asks)}


def _account_name(table: Table, seat: int) -> str | None:
    account = table.accounts[seat]
    return None if account is None else account[1]


def _seat_rating(table: Table, seat: int) -> int | None:
    """A seat's rating in the table's pool: its account's, or on a rated table a computer
    level's fixed one; None for a guest."""
    if table.is_human(seat):
        return table.ratings[seat] if table.accounts[seat] is not None else None
    level = table.config.seats[seat].level
    return COMPUTER_RATINGS.get(level or "") if table.config.rated else None


@functools.lru_cache(maxsize=256)
def _rules_dict(rules: Rules) -> dict[str, Any]:
    """A rules preset's options, built once (rules are frozen)."""
    return rules.to_dict()


def table_info(table: Table) -> dict[str, Any]:
    """The table's public description."""
    return {
        "code": table.code, "variant": table.config.variant, "family": table.rules.family,
        "players": table.rules.players, "partnership": table.rules.partnership,
        "rules": _rules_dict(table.rules),
        "turn_seconds": table.config.turn_seconds,
        "takeover_level": table.config.takeover_level, "status": table.status,
        "match_number": table.match_number, "seats": seat_list(table),
        "records": list(table.record_ids),
        "rated": table.config.rated, "pool": table.config.pool,
        "house_rules": dict(table.config.overrides),
    } | ({"open_stores": table.config.open_stores}
         if table.rules.family in PILE_FAMILIES else {}) | (
        {} if table.config.tournament is None else {"tournament": table.config.tournament})


def deal_score_view(rules: Rules, number: int, deal: DealHistory) -> dict[str, Any]:
    """A finished deal's score breakdown (all of it public).

    ``basras`` are the basras (Pasur's surs) made, ``basra_points`` their points after any
    cancelling; under ``basra_cancel`` (with points for basras), ``basras_cancelled`` is
    how many of each side's cancelled out. ``clubs``, the clubs prize per side, is there
    only when the rules have one. ``seats`` are the seats that played the deal (fewer than
    all in an extra deal between tied sides). The ``leftover`` went to ``seat``, the last
    capturer (-1: nobody captured), or under ``leftover = split`` one card at a time:
    ``sides[i]`` got ``cards[i]``. In a pile game ``pistis`` are each side's
    ``[plain, jack]`` piştis (``basras`` their sum).
    """
    score = deal.score
    assert score is not None
    seats = layout_seats(deal.layout)
    view: dict[str, Any] = {
        "deal": number, "seats": list(seats), "cards": list(score.cards),
        "basras": list(score.basras), "majority": list(score.majority),
        "card_points": list(score.card_points), "basra_points": list(score.basra_points),
        "total": list(score.total), "carry_in": score.carry_in, "carry_out": score.carry_out,
        "leftover": None,
    }
    if score.clubs:
        view["clubs"] = list(score.clubs)
    if score.pistis:
        view["pistis"] = [list(counts) for counts in score.pistis]
    if rules.basra_cancel and rules.basra_points:
        view["basras_cancelled"] = [
            made - points // rules.basra_points
            for made, points in zip(score.basras, score.basra_points, strict=True)]
    if deal.shares:
        view["leftover"] = {"seat": deal.leftover_seat,
                            "cards": [CARD_NAMES[card] for card, _ in deal.shares],
                            "sides": [side for _, side in deal.shares]}
    elif deal.leftover:
        view["leftover"] = {"seat": deal.leftover_seat, "cards": card_names(deal.leftover)}
    return view


def hidden_cards(table: Table, seat: int | None) -> int:
    """The cards of the current deal that ``seat`` (None: a watcher) may not see although
    they were played or captured: a pile game's face-down cards (spec 9.9). A watcher
    sees none of them until the deal is scored; 0 in the other families."""
    match = table.match
    if match is None or not match.state.table.pile:
        return 0
    state = match.state
    if seat is not None:
        return hidden_down(state, seat)
    return 0 if state.is_over else state.down


def _public(observation: Observation, hidden: int) -> Observation:
    """A seat's observation as a watcher may see it: no hand, no legal moves, and none of
    the ``hidden`` face-down cards the seat itself may have been shown."""
    view = dataclasses.replace(observation, hand=0, legal_moves=())
    if not hidden:
        return view
    return dataclasses.replace(
        view, floor=view.floor & ~hidden, initial_floor=view.initial_floor & ~hidden,
        piles=tuple(pile & ~hidden for pile in view.piles),
        plays=tuple(p._replace(captured=p.captured & ~hidden) for p in view.plays),
        pile=tuple(-1 if card < 0 or hidden >> card & 1 else card for card in view.pile),
        down_count=(hidden & observation.floor).bit_count() + observation.down_count)


def _capture_view(play: Play, hidden: int) -> dict[str, Any]:
    view = {"seat": play.seat, "card": CARD_NAMES[play.card],
            "captured": card_names(play.captured & ~hidden), "basra": play.basra}
    return view | ({"pisti": play.pisti} if play.pisti else {})


def last_captures(rules: Rules, plays: Sequence[Play],
                  hidden: int = 0) -> list[dict[str, Any] | None]:
    """Each side's latest capture among a deal's ``plays`` (public: every capture was made
    face up on the floor, but for the ``hidden`` face-down cards of a pile game, left
    out), or None for a side that has captured nothing yet."""
    side_of = rules.side_of
    latest: list[dict[str, Any] | None] = [None] * rules.sides
    missing = rules.sides
    for play in reversed(plays):
        side = side_of[play.seat]
        if play.captured and latest[side] is None:
            latest[side] = _capture_view(play, hidden)
            missing -= 1
            if not missing:
                break
    return latest


def _last_play(table: Table, hidden: int) -> dict[str, Any] | None:
    """The match's latest play, less the ``hidden`` cards of the current deal."""
    match = table.match
    assert match is not None
    for number in range(len(match.deals), 0, -1):
        plays = match.deals[number - 1].plays
        if plays:
            mask = hidden if number == len(match.deals) else 0
            return {"deal": number, **_capture_view(plays[-1], mask)}
    return None


def shared_parts(table: Table) -> dict[str, Any]:
    """The parts of a state message that every connection of the table gets alike."""
    match = table.match
    parts: dict[str, Any] = {"table": table_info(table)}
    if match is None:
        return parts
    parts["last_captures"] = last_captures(table.rules, match.deals[-1].plays)
    parts["last_play"] = _last_play(table, 0)
    parts["deal_scores"] = [
        deal_score_view(table.rules, number, deal)
        for number, deal in enumerate(match.deals, start=1) if deal.score is not None
    ]
    return parts


def stores_open(table: Table) -> bool:
    """Whether each seat may look through its own side's captured cards: always in Basra
    and Pasur; in a pile game only at a table made with ``open_stores`` (spec 11.8)."""
    return table.rules.family not in PILE_FAMILIES or table.config.open_stores


def pile_view(view: Observation) -> dict[str, Any]:
    """A pile game's centre as ``view`` sees it: ``stack``, the pile bottom to top (None
    for a face-down card it has not been shown), ``down_count``, the stock's shown
    ``bottom_card`` (or None) and each side's ``jack_pistis`` this deal."""
    return {
        "stack": [CARD_NAMES[card] if card >= 0 else None for card in view.pile],
        "down_count": view.down_count,
        "bottom_card": CARD_NAMES[view.bottom_card] if view.bottom_card >= 0 else None,
        "jack_pistis": list(view.jack_pistis),
    }


def state_message(table: Table, seat: int | None,
                  shared: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``state`` message for a connection of ``seat`` (None: a watcher)."""
    if shared is None:
        shared = shared_parts(table)
    match = table.match
    message: dict[str, Any] = {
        "type": "state", "seq": table.seq,
        "you": {"seat": seat, "side": None if seat is None else table.rules.side_of[seat],
                "away": seat in table.away},
        "table": shared["table"],
        "deal": None, "legal": [], "last_play": None,
        "totals": [0] * table.rules.sides, "target": table.rules.target, "carry": 0,
        "deal_scores": [], "result": None, "deadline": None, "paused": table.paused,
        "rated": table.config.rated,
        "chat": {"free_text": table.free_text, "consent": sorted(table.chat_consent)},
        "resigned": list(table.resigned), "aborted": table.aborted,
        "can_abort": (seat is not None and table.status == "playing" and table.is_human(seat)
                      and seat not in table.played and seat not in table.resigned),
    }
    if table.config.rated:
        message["conduct"] = conduct_view(table)
    if table.config.tournament is not None:
        message["tournament"] = table.config.tournament
    if match is None:
        return message
    view = observe(match, 0 if seat is None else seat)
    hidden = hidden_cards(table, seat)
    if seat is None:
        view = _public(view, hidden)
    if hidden:  # this connection's own parts: the plays less the cards it may not see
        shared = shared | {"last_captures": last_captures(table.rules, view.plays),
                           "last_play": _last_play(table, hidden)}
    message["deal"] = {
        "number": len(match.deals), "dealer": view.dealer, "to_play": view.to_play,
        "hand": card_names(view.hand), "floor": card_names(view.floor),
        "hand_counts": list(view.hand_counts), "stock_count": view.stock_count,
        "pile_counts": list(view.pile_counts), "basras": list(view.basras),
        "last_capturer": view.last_capturer, "seats": list(view.seats),
        "buried": card_names(view.buried),
        # Captured piles lie face down: a seat may look through its own side's pile only
        # (in a pile game, only at a table that opens them).
        "pile": None if seat is None or not stores_open(table)
        else card_names(view.piles[view.side]),
        "last_captures": shared["last_captures"],
    }
    if table.rules.family in PILE_FAMILIES:
        message["deal"] |= pile_view(view)
    message["legal"] = [
        {"card": CARD_NAMES[move & 63], "captured": card_names(move >> 6),
         "text": move_text(move)}
        for move in view.legal_moves
    ]
    message["last_play"] = shared["last_play"]
    message["totals"] = list(match.totals)
    message["target"] = match.target
    message["carry"] = match.carry
    message["deal_scores"] = shared["deal_scores"]
    if match.is_over:
        message["result"] = {"winner": match.winner, "totals": list(match.totals),
                             "record_id": table.last_record_id,
                             "resigned": list(table.resigned)}
        if table.config.rated:
            message["rating_changes"] = table.rating_changes
    message["deadline"] = table.deadline_ms
    return message
