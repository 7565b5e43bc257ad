"""Open data over HTTP (``docs/api.md``, "Open data"): a player's finished matches, as
``basra-record/1`` documents, one compact JSON document a line (ndjson).

    GET /api/games/user/{name}?max=N&since=MS&until=MS&variant=NAME&rated=true|false
        -> 200 application/x-ndjson, newest first; 404 unknown_user; 400 bad_request

The matches are those of the tables the account sat at (as on the player's page,
``GET /api/users/{name}``); ``since`` and ``until`` are Unix milliseconds of when a
match finished, both included; ``rated`` keeps the matches whose result the ratings
count (or, ``false``, the others). The stream reads the store a page at a time
(:meth:`basra.store.records.Records.stream`): a player with a hundred thousand matches
costs no more memory than one with ten.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from basra.players.accounts import name_key
from basra.rules import RulesError, preset
from basra.store import RecordQuery, StoredRecord

from .deps import StoreOf
from .errors import BadRequestError, UnknownUserError

__all__ = ["GAMES_DEFAULT", "GAMES_MOST", "NDJSON", "router"]

GAMES_DEFAULT = 100
"""Matches streamed when ``max`` is not given."""
GAMES_MOST = 10_000
"""The largest ``max``: more is asked for month by month with ``since`` and ``until``."""
NDJSON = "application/x-ndjson"
LONGEST_NAME_ASKED = 100
LATEST_MS = 2**53
"""The largest time taken by ``since`` and ``until`` (JavaScript's safe integers)."""

router = APIRouter()


def _bad(parameter: str, text: str, expected: str) -> BadRequestError:
    return BadRequestError(f"{parameter} must be {expected}, not {text[:40]!r}",
                           parameter=parameter, value=text[:40])


def _whole(parameter: str, text: str | None, low: int, high: int) -> int | None:
    """A query parameter that is a whole number from ``low`` to ``high``, or None."""
    if text is None:
        return None
    expected = f"a whole number from {low} to {high}"
    stripped = text.strip()
    if not stripped.isascii() or not stripped.isdigit() or len(stripped) > 20:
        raise _bad(parameter, text, expected)
    number = int(stripped)
    if not low <= number <= high:
        raise _bad(parameter, text, expected)
    return number


def _flag(parameter: str, text: str | None) -> bool | None:
    """A query parameter that is ``true`` or ``false``, or None."""
    if text is None:
        return None
    found = {"true": True, "false": False}.get(text.strip().lower())
    if found is None:
        raise _bad(parameter, text, "true or false")
    return found


def _variant(text: str | None) -> str | None:
    """The preset a ``variant`` parameter names (aliases too), or None."""
    if text is None:
        return None
    try:
        return preset(text[:40]).name
    except RulesError as error:
        raise BadRequestError(f"variant: {error}", parameter="variant",
                              value=text[:40]) from None


async def _lines(first: StoredRecord, rest: AsyncIterator[StoredRecord]
                 ) -> AsyncIterator[bytes]:
    yield first.line()
    async for record in rest:
        yield record.line()


@router.get("/api/games/user/{name}", response_class=StreamingResponse,
            responses={200: {"content": {NDJSON: {}},
                             "description": "One basra-record/1 document a line."}})
async def games_of_user(
        name: str, store: StoreOf,
        most: Annotated[str | None, Query(alias="max", description=(
            f"How many matches, from 1 to {GAMES_MOST} [default: {GAMES_DEFAULT}]."))] = None,
        since: Annotated[str | None, Query(description=(
            "Matches finished at or after this time (Unix milliseconds)."))] = None,
        until: Annotated[str | None, Query(description=(
            "Matches finished at or before this time (Unix milliseconds)."))] = None,
        variant: Annotated[str | None, Query(description=(
            "Matches of this preset only (its name or an alias)."))] = None,
        rated: Annotated[str | None, Query(description=(
            "true: rated matches only; false: the others."))] = None,
) -> StreamingResponse:
    """A player's finished matches as ``basra-record/1`` documents, one a line (ndjson),
    newest first."""
    limit = _whole("max", most, 1, GAMES_MOST)
    query = RecordQuery(variant=_variant(variant), rated=_flag("rated", rated),
                        since=_whole("since", since, 0, LATEST_MS),
                        until=_whole("until", until, 0, LATEST_MS))
    if query.since is not None and query.until is not None and query.since > query.until:
        raise BadRequestError(f"since ({query.since}) is after until ({query.until})",
                              parameter="since", value=str(query.since))
    user = (await store.accounts.find(name_key(name))
            if len(name) <= LONGEST_NAME_ASKED else None)
    if user is None:
        raise UnknownUserError(f"no player has the name {name[:40]!r}", name=name[:40])
    records = store.records.stream(replace(query, account=user.id),
                                   limit=GAMES_DEFAULT if limit is None else limit)
    # The first page is read before the answer starts, so a failing store is answered
    # with its error rather than with an empty stream.
    first = await anext(records, None)
    if first is None:
        return StreamingResponse(iter(()), media_type=NDJSON)
    return StreamingResponse(_lines(first, records), media_type=NDJSON)
