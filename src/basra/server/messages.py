"""Client messages: read and check one WebSocket text frame into an :class:`Intent`.

>>> parse_intent('{"type": "play", "seq": 3, "card": "7D"}')
Intent(kind='play', seq=3, card='7D', captured=None, phrase=None, text=None, allow=None)
>>> parse_intent('{"type": "chat", "phrase": "good_game"}').phrase
'good_game'
>>> parse_intent('{"type": "play", "seq": "3", "card": "7D"}')
Traceback (most recent call last):
...
basra.server.errors.IntentError: play needs "seq" as a whole number, not '3'
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from basra.players.marks import cap_marks

from .errors import IntentError

__all__ = ["CHAT_PHRASES", "INTENT_TYPES", "MAX_CHAT", "MAX_MESSAGE", "Intent", "parse_intent"]

INTENT_TYPES = ("play", "back", "rematch", "ping", "chat", "chat_consent", "resign", "abort")
CHAT_PHRASES = ("good_game", "well_played", "good_luck", "thanks", "oops")
"""The chat's ready phrases (each page shows them in its language)."""
MAX_CHAT = 200
"""Longest free-text chat message, in characters."""
MAX_MESSAGE = 4096
"""Longest message accepted, in characters."""


class Intent(NamedTuple):
    """What a client asks for."""

    kind: str
    seq: int | None = None
    card: str | None = None
    captured: list[str] | None = None
    phrase: str | None = None
    text: str | None = None
    allow: bool | None = None


def _bad(message: str) -> IntentError:
    return IntentError("bad_message", message)


def parse_intent(text: str) -> Intent:
    """The intent in a message; raises :class:`IntentError` (``bad_message``)."""
    if len(text) > MAX_MESSAGE:
        raise _bad(f"message of {len(text)} characters; at most {MAX_MESSAGE} are read")
    try:
        data: Any = json.loads(text)
    except (ValueError, RecursionError):
        raise _bad(f"not JSON: {text[:60]!r}") from None
    if not isinstance(data, dict):
        raise _bad(f"expected a JSON object with a \"type\", not {text[:60]!r}")
    kind = data.get("type")
    if kind not in INTENT_TYPES:
        raise _bad(f"unknown message type {kind!r}; expected one of {', '.join(INTENT_TYPES)}")
    if kind == "chat":
        return _chat(data)
    if kind == "chat_consent":
        allow = data.get("allow")
        if not isinstance(allow, bool):
            raise _bad(f"chat_consent needs \"allow\" as true or false, not {allow!r}")
        return Intent(kind, allow=allow)
    if kind != "play":
        return Intent(kind)
    seq = data.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise _bad(f"play needs \"seq\" as a whole number, not {seq!r}")
    card = data.get("card")
    if not isinstance(card, str):
        raise _bad(f"play needs \"card\" as text like \"7D\", not {card!r}")
    captured = data.get("captured")
    if captured is not None and (
        not isinstance(captured, list) or not all(isinstance(c, str) for c in captured)
    ):
        raise _bad(f"\"captured\" must be a list of cards like [\"3C\", \"4H\"], "
                   f"not {captured!r}")
    return Intent("play", seq, card, captured)


def _chat(data: dict[str, Any]) -> Intent:
    """A chat message: a ready phrase, or plain text (printable, trimmed, a few combining
    marks per letter at most, 1 to MAX_CHAT characters)."""
    phrase, text = data.get("phrase"), data.get("text")
    if (phrase is None) == (text is None):
        raise _bad("chat needs a \"phrase\" or a \"text\" (one of them)")
    if phrase is not None:
        if phrase not in CHAT_PHRASES:
            raise _bad(f"unknown chat phrase {str(phrase)[:40]!r}; expected one of "
                       f"{', '.join(CHAT_PHRASES)}")
        return Intent("chat", phrase=phrase)
    if not isinstance(text, str):
        raise _bad(f"chat text must be text, not {str(text)[:40]!r}")
    clean = cap_marks(" ".join("".join(ch for ch in text if ch.isprintable()).split()))
    if not 1 <= len(clean) <= MAX_CHAT:
        raise _bad(f"chat text of {len(clean)} characters; 1 to {MAX_CHAT} are sent")
    return Intent("chat", text=clean)
