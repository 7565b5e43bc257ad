"""The request bodies of the HTTP API, as Pydantic models.

Each body is read by :func:`read_body`: any content type, an empty body as ``{}``, a
size cap, and a clear ``bad_request`` (400) for what is not a JSON object. The fields
are then checked by the rules they feed (a table's configuration, a name), whose
messages name the bad value; the models describe every body in ``/api/openapi.json``
(:func:`openapi_body`).
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from fastapi import Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from basra.players.moderation import REPORT_REASONS

from .errors import BadRequestError

__all__ = [
    "MAX_BODY",
    "MAX_DEPTH",
    "AccountBody",
    "ActionBody",
    "AnswerBody",
    "ChallengeBody",
    "DeclineBody",
    "EndSessionsBody",
    "JoinBody",
    "NameBody",
    "NewTableBody",
    "PasswordBody",
    "PauseBody",
    "ProgressBody",
    "QuickBody",
    "ReadBody",
    "ReportBody",
    "SeatBody",
    "TokenBody",
    "TournamentBody",
    "TournamentJoinBody",
    "nesting",
    "openapi_body",
    "read_body",
    "read_json",
]

MAX_BODY = 1_000_000
"""Largest request body read (an uploaded record), in bytes."""

Body = TypeVar("Body", bound=BaseModel)


def _field(kind: dict[str, Any], description: str, default: Any = None) -> Any:
    """A field taken as any JSON value (the rules it feeds check it and say what is
    wrong), documented as ``kind``."""
    return Field(default, description=description, json_schema_extra=kind)


_TEXT = {"type": "string"}
_NUMBER = {"type": "integer"}


class _Body(BaseModel):
    model_config = ConfigDict(extra="allow")


class QuickBody(_Body):
    """``POST /api/quick``: a quick game against the expert."""

    name: Any = _field(_TEXT, "The player's name (a guest name when left out; the "
                              "account's name when logged in).")


class SeatBody(_Body):
    """One seat of a new table."""

    kind: Any = _field({"enum": ["human", "bot"]}, "A person's seat or the computer's.")
    level: Any = _field(_TEXT, "The computer's level (a bot seat; expert by default).")


class NewTableBody(_Body):
    """``POST /api/tables``: a new table with its rules and seats."""

    name: Any = _field(_TEXT, "The creator's name, who takes the first human seat.")
    variant: Any = _field(_TEXT, "A preset's name.", "egyptian")
    players: Any = _field(_NUMBER, "The number of players (the preset's by default).")
    rules: Any = _field({"type": "object"}, "House rules: option name -> value.")
    seats: Any = _field({"type": "array", "items": SeatBody.model_json_schema()},
                        "One seat per player (a human, then the expert, by default).")
    turn_seconds: Any = _field(_NUMBER, "0 (no timer) or 5 to 600 seconds a turn.", 0)
    takeover_level: Any = _field(_TEXT, "The level that plays for an away player.",
                                 "expert")
    open_stores: Any = _field({"type": "boolean"}, "Pile games: each side may look "
                              "through its captured cards (they lie closed by default).",
                              False)


class JoinBody(_Body):
    """``POST /api/tables/{code}/join``: take a seat."""

    name: Any = _field(_TEXT, "The player's name.")
    seat: Any = _field(_NUMBER, "The seat to take (the first free one by default).")


class AccountBody(_Body):
    """``POST /api/signup`` and ``POST /api/login``."""

    name: Any = _field(_TEXT, "The account's name.")
    password: Any = _field(_TEXT, "The account's password.")


class PasswordBody(_Body):
    """``POST /api/account/password``: a new password, with the current one."""

    current: Any = _field(_TEXT, "The account's password now.")
    new: Any = _field(_TEXT, "The new password.")


class EndSessionsBody(_Body):
    """``POST /api/account/sessions/end``: end one session (``id``) or every other one
    (``others``: true)."""

    id: Any = _field(_TEXT, "The id of the session to end, from the list of sessions.")
    others: Any = _field({"type": "boolean"}, "End every session but this one.", False)


class ReportBody(_Body):
    """``POST /api/reports``: a report of a player, by name or by a table's seat."""

    reason: Any = _field({"enum": list(REPORT_REASONS)},
                         "Why the player is reported.")
    text: Any = _field(_TEXT, "What happened (needed for other), at most 500 characters.")
    name: Any = _field(_TEXT, "The account reported (from its page).")
    table: Any = _field(_TEXT, "The table's code (a report made at a table).")
    seat: Any = _field(_NUMBER, "The seat reported at that table.")


class NameBody(_Body):
    """``POST /api/blocks`` and ``/api/blocks/remove``: the account to block or unblock."""

    name: Any = _field(_TEXT, "The account's name.")


class ActionBody(_Body):
    """``POST /api/mod/actions``: a moderator's action."""

    action: Any = _field(_TEXT, "mute, ban, lift_mute, lift_ban, reset_rating, rename, "
                                "close, dismiss_report, settle_report, dismiss_flag, "
                                "settle_flag, accept_puzzle or reject_puzzle.")
    reason: Any = _field(_TEXT, "Why (required), at most 500 characters.")
    name: Any = _field(_TEXT, "The account acted on.")
    minutes: Any = _field(_NUMBER, "How long a mute or ban lasts (left out: for good).")
    pool: Any = _field(_TEXT, "The rating pool to reset (egyptian-2).")
    new_name: Any = _field(_TEXT, "The account's new name.")
    report: Any = _field(_NUMBER, "The report acted on.")
    flag: Any = _field(_NUMBER, "The flag acted on.")
    puzzle: Any = _field(_TEXT, "The mined puzzle accepted or rejected.")


class AnswerBody(_Body):
    """``POST /api/puzzles/{id}/answer``: a move, as ``card:captured+captured``."""

    move: Any = _field({"type": "string", "maxLength": 200}, "The move played, like "
                                                             "7S:2H+5D.")
    streak: Any = _field({"type": "boolean"}, "An answer in the account's Puzzle Streak: "
                                              "it counts for the streak, not the rating.")



class ProgressBody(_Body):
    """``PUT /api/learn/progress``: lessons finished (ids)."""

    lessons: Any = _field({"type": "array", "items": {"type": "string"}},
                          "The ids of lessons finished.")


class TournamentBody(_Body):
    """``POST /api/tournaments``: a new tournament (:func:`basra.players.events.parse_spec`
    checks each field)."""

    kind: Any = _field({"enum": ["arena", "swiss"]}, "An arena or a Swiss event.")
    variant: Any = _field(_TEXT, "The preset played (egyptian by default).")
    players: Any = _field(_NUMBER, "Players at each table (the preset's first count by "
                                   "default; 4 is played in teams of two).")
    rated: Any = _field({"type": "boolean"}, "Whether the games are rated.")
    minutes: Any = _field(_NUMBER, "An arena's length, 5 to 720 minutes.")
    rounds: Any = _field(_NUMBER, "A Swiss event's rounds, 1 to 20.")
    starts_in: Any = _field(_NUMBER, "Seconds until it starts (60 by default).")
    turn_seconds: Any = _field(_NUMBER, "The turn timer, 5 to 600 seconds (30).")
    computers: Any = _field({"type": "array", "items": {"type": "string"}},
                            "Levels of the computer entrants, one each.")
    allow_bots: Any = _field({"type": "boolean"}, "Whether bot accounts may enter.")
    name: Any = _field(_TEXT, "Its name (the variant and kind by default).")


class ChallengeBody(_Body):
    """``POST /api/challenge/{name}`` and ``/api/challenge/open``: the game offered."""

    variant: Any = _field(_TEXT, "The preset (egyptian by default).")
    players: Any = _field(_NUMBER, "Players at the table (the preset's first count).")
    rated: Any = _field({"type": "boolean"}, "Whether the game is rated (false).")
    turn_seconds: Any = _field(_NUMBER, "The turn timer: 0 (none) or 5 to 600 (60).")
    invite: Any = _field({"type": "array", "items": {"type": "string"}},
                         "Further players asked to a 3- or 4-player table, by name.")


class DeclineBody(_Body):
    """``POST /api/challenge/{id}/decline``."""

    reason: Any = _field(_TEXT, "generic, later, too_fast, too_slow, casual, rated, "
                                "variant or not_bots.")


class ReadBody(_Body):
    """``POST /api/notifications/read``."""

    ids: Any = _field({"type": "array", "items": {"type": "integer"}},
                      "The notifications read (all of them when left out).")


class TokenBody(_Body):
    """``POST /api/tokens``: a new personal access token."""

    description: Any = _field(_TEXT, "What the token is for (at most 120 characters).")
    scopes: Any = _field({"type": "array", "items": {"enum": ["read", "play", "bot"]}},
                         "What it may do: read your data, play your games, be a bot.")


class TournamentJoinBody(_Body):
    """``POST /api/tournaments/{id}/join``."""

    partner: Any = _field(_TEXT, "A partnership event's partner: the account you enter "
                                 "with (who joins naming you back).")


class PauseBody(_Body):
    """``POST /api/tournaments/{id}/pause``."""

    paused: Any = _field({"type": "boolean"}, "Pause (true) or come back (false).")


MAX_DEPTH = 32
"""Most levels of nested arrays and objects in a request body: no body the API takes
nests more than a few, and deeper ones would only exhaust the stack of whatever reads
them."""


def nesting(value: Any) -> int:
    """How many levels of arrays and objects ``value`` nests (0 for a number or text),
    counted without recursion.

    >>> nesting({"a": [1, {"b": []}]}), nesting("x")
    (4, 0)
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth) for child in children)
    return deepest


async def read_json(request: Request, limit: int = MAX_BODY,
                    example: str = "a JSON object") -> dict[str, Any]:
    """A request's JSON object (``{}`` for an empty body); raises
    :class:`BadRequestError` for one over ``limit`` bytes or not a JSON object."""
    raw = await request.body()
    if len(raw) > limit:
        raise BadRequestError(f"request body of {len(raw)} bytes; at most {limit}",
                              size=len(raw), most=limit)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except RecursionError:
        raise BadRequestError(f"the request body nests too deep; at most {MAX_DEPTH} "
                              "levels of arrays and objects", most=MAX_DEPTH) from None
    except ValueError:
        raise BadRequestError("the request body is not JSON") from None
    depth = nesting(body)
    if depth > MAX_DEPTH:
        raise BadRequestError(f"the request body nests {depth} levels deep; at most "
                              f"{MAX_DEPTH} levels of arrays and objects", most=MAX_DEPTH)
    if not isinstance(body, dict):
        raise BadRequestError(f"expected {example}, not {raw[:60]!r}")
    return body


async def read_body(request: Request, model: type[Body], limit: int = MAX_BODY,
                    example: str = "a JSON object") -> Body:
    """A request's body as ``model`` (see :func:`read_json`)."""
    body = await read_json(request, limit, example)
    try:
        return model.model_validate(body)
    except ValidationError as error:
        raise BadRequestError("; ".join(
            f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
            for problem in error.errors())) from None


def openapi_body(model: type[BaseModel], required: bool = False) -> dict[str, Any]:
    """The ``openapi_extra`` of a route whose body is ``model`` (read by
    :func:`read_body`, so FastAPI does not see it)."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def inline(value: Any) -> Any:
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return inline(definitions[ref.removeprefix("#/$defs/")])
            return {key: inline(item) for key, item in value.items()}
        if isinstance(value, list):
            return [inline(item) for item in value]
        return value

    return {"requestBody": {"required": required, "content": {
        "application/json": {"schema": inline(schema)}}}}
