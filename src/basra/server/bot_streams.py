"""The Bot API's streams: newline-delimited JSON over HTTP (``docs/api.md``, "Bot
accounts"): an account's events, and a bot's seat at a table.

Each line is one JSON object; a stream that has had nothing to say for
:data:`KEEP_ALIVE` seconds sends an empty line (as lichess does), so that a client and
every proxy between them know it is alive.

The game stream is a socket of the bot's seat like a browser's (a
:class:`~basra.server.connections.Connection`, counted as the seat being there): it gets
the seat's ``state`` messages of the table protocol, and passes each on with ``legal``
in protocol notation (``["7H", "9S:4C+5D"]``) and, on the seat's turn, the
``observation`` a bot gets in ``basra arena`` (``docs/protocol.md``). It starts with the
current state and ends after the state that finishes the match.

The event stream starts with the account's pending challenges and its games in
progress, then passes on its notifications as events: ``challenge`` (and
``challengeCanceled``, ``challengeDeclined``), ``gameStart`` and ``gameFinish`` (the
notifications ``game_start`` and ``game_finish`` that the tables send their bot
accounts, see :func:`basra.server.bot_play.register`). A client that reconnects thus
resumes where it was. Both streams end soon after their token is revoked (it is looked
at again at each keep-alive).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from .bot_play import at_table
from .connections import Connection, encode
from .hub import Hub

__all__ = ["KEEP_ALIVE", "NDJSON", "SILENCE", "Check", "LineStream", "event_lines",
           "event_of", "game_stream", "waited"]

NDJSON = "application/x-ndjson"
"""The media type of the streams."""
KEEP_ALIVE = 5.0
"""Seconds of silence after which a stream sends an empty line."""
SILENCE = "\n"
"""The keep-alive line."""
PASSED_ON = ("state", "notice")
EVENT_TYPES = {"challenge": "challenge", "challenge_cancelled": "challengeCanceled",
               "challenge_declined": "challengeDeclined"}
"""The event of each kind of challenge notification (the payload is the challenge)."""
"""The table's messages a game stream passes on (chat and pongs are left out)."""


async def waited(queue: asyncio.Queue[Any], seconds: float = KEEP_ALIVE) -> Any:
    """The queue's next item, or :data:`SILENCE` after ``seconds`` with none."""
    try:
        return await asyncio.wait_for(queue.get(), seconds)
    except TimeoutError:
        return SILENCE


def over(state: dict[str, Any]) -> bool:
    """Whether a state message shows the match ended (played out or aborted)."""
    return state.get("result") is not None or state.get("aborted") is not None


async def bot_state(hub: Hub, code: str, user_id: int, state: dict[str, Any]
                    ) -> dict[str, Any] | None:
    """A seat's state as the game stream sends it; None when the table has moved on
    since (its newer state follows)."""
    line = dict(state)
    legal = state.get("legal") or []
    line["legal"] = [entry["text"] for entry in legal]
    line["observation"] = None
    if legal:
        line["observation"] = await at_table(
            hub, code, "observation", user_id, seq=state["seq"],
            match=state["table"]["match_number"])
        if line["observation"] is None:
            return None
    return line


class LineStream(StreamingResponse):
    """A stream of JSON lines whose ``closed`` is called once it ends, however it ends
    (the client gone, the server stopping, the lines ended)."""

    def __init__(self, lines: AsyncIterator[str],
                 closed: Callable[[], Awaitable[None]]) -> None:
        super().__init__(lines, media_type=NDJSON,
                         headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.closed = closed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.closed()


Check = Callable[[], Awaitable[bool]]
"""Whether the stream's token still works (asked at each keep-alive: a revoked token's
streams end)."""


def game_stream(hub: Hub, connection: Connection, user_id: int, check: Check) -> LineStream:
    """The game stream of a bot's seat, read from its connection (closed with it)."""
    async def closed() -> None:
        hub.disconnect(connection)

    return LineStream(game_lines(hub, connection, user_id, check), closed)


async def game_lines(hub: Hub, connection: Connection, user_id: int, check: Check
                     ) -> AsyncIterator[str]:
    """The lines of a seat's game stream, read from its connection."""
    code = connection.table.code
    while True:
        message = await waited(connection.outbox)
        if message is SILENCE:
            if not await check():
                return
            yield SILENCE
            continue
        if message is None:  # closed by the server: the seat was opened elsewhere
            return
        data: dict[str, Any] = json.loads(message) if isinstance(message, str) else message
        if data.get("type") not in PASSED_ON:
            continue
        if data["type"] == "state":
            line = await bot_state(hub, code, user_id, data)
            if line is None:
                continue
            yield encode(line) + "\n"
            if over(data):
                return
        else:
            yield encode(data) + "\n"


def event_of(notification: dict[str, Any]) -> dict[str, Any] | None:
    """The event stream's line for one of the account's notifications (None for a kind
    it does not pass on)."""
    kind, payload = notification.get("kind"), notification.get("payload") or {}
    if kind == "game_start":
        return {"type": "gameStart", "game": {"id": payload["id"], "seat": payload["seat"]}}
    if kind == "game_finish":
        return {"type": "gameFinish", "game": {"id": payload["id"]}}
    if kind in EVENT_TYPES:
        return {"type": EVENT_TYPES[kind], "challenge": payload}
    return None


async def event_lines(queue: asyncio.Queue[dict[str, Any]], first: list[dict[str, Any]],
                      check: Check) -> AsyncIterator[str]:
    """The lines of an event stream: ``first``, then each event as it comes."""
    for event in first:
        yield encode(event) + "\n"
    while True:
        found = await waited(queue)
        if found is SILENCE:
            if not await check():
                return
            yield SILENCE
            continue
        line = event_of(found)
        if line is not None:
            yield encode(line) + "\n"
