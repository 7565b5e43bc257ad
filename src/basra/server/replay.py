"""Replay frames: a finished record turned into one open view per play, for the replay page.

The record is first replayed and checked by the core (:func:`basra.record.replay`); the
frames are then rebuilt with the core's own deal functions, so the page shows exactly
what the rules say happened.
"""

from __future__ import annotations

from typing import Any

from basra.cards import CARD_NAMES, card_names
from basra.record import replay
from basra.state import DealState, apply, make_move, start_deal

from .views import deal_score_view

__all__ = ["replay_frames"]


def _frame(number: int, state: DealState, totals: list[int]) -> dict[str, Any]:
    return {
        "deal": number, "dealer": state.dealer, "seats": list(state.seats),
        "hands": [card_names(hand) for hand in state.hands], "floor": card_names(state.floor),
        "pile_counts": [pile.bit_count() for pile in state.piles],
        "basras": list(state.basras), "totals": list(totals),
        "stock_count": state.stock_count, "play": None, "deal_score": None,
    } | (_pile_frame(state) if state.table.pile else {})


def _pile_frame(state: DealState) -> dict[str, Any]:
    """A pile game's centre, all face up as a replay shows it: ``stack`` bottom to top,
    ``down`` the cards of it dealt face down, the stock's shown ``bottom_card`` (or
    None) and each side's ``jack_pistis``."""
    stack = list(state.laid) if state.floor else []
    bottom = state.bottom_card
    return {
        "stack": [CARD_NAMES[card] for card in stack],
        "down": [CARD_NAMES[card] for card in stack if state.down >> card & 1],
        "bottom_card": CARD_NAMES[bottom] if bottom >= 0 and state.stock_count else None,
        "jack_pistis": list(state.jack_pistis),
    }


def replay_frames(record: dict[str, Any]) -> dict[str, Any]:
    """``{"record": summary, "frames": [...]}``; raises ``RecordError`` for a bad record."""
    match = replay(record)
    rules = match.rules
    totals = [0] * rules.sides
    frames: list[dict[str, Any]] = []
    for number, deal in enumerate(match.deals, start=1):
        state = start_deal(rules, deal.layout)
        frames.append(_frame(number, state, totals))
        for play in deal.plays:
            state = apply(state, make_move(play.card, play.captured))
            frame = _frame(number, state, totals)
            frame["play"] = {"seat": play.seat, "card": CARD_NAMES[play.card],
                             "captured": card_names(play.captured), "basra": play.basra,
                             **({"pisti": play.pisti} if play.pisti else {})}
            frames.append(frame)
        if deal.score is not None:
            frames[-1]["deal_score"] = deal_score_view(rules, number, deal)
            totals = [t + s for t, s in zip(totals, deal.score.total, strict=True)]
    summary = {
        "variant": match.variant, "players": record.get("players", []),
        "rules": rules.to_dict(), "deals": len(match.deals), "totals": list(match.totals),
        "winner": match.winner,
    }
    return {"record": summary, "frames": frames}
