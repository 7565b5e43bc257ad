"""Tables over HTTP and their WebSockets (``docs/web-protocol.md``).

    GET  /api/variants, /api/options     what a new table may be
    POST /api/quick                      a game against the expert at once
    POST /api/tables                     a new table
    GET  /api/tables                     tables waiting for players
    GET  /api/tables/{code}              a table's public description
    GET  /api/watch                      live tables anyone may watch, best first
    POST /api/tables/{code}/join         take a seat
    WS   /ws/{code}?token=T              a seat's (or a watcher's) socket
    WS   /ws/seek                        a seek, until the player is seated
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect

from basra.bots import BOT_LEVELS
from basra.rules import OPTION_RANGES, option_names, option_specs

from .bodies import JoinBody, NewTableBody, QuickBody, openapi_body, read_body, read_json
from .connections import Account, Connection, encode
from .deps import AccountOf, HubOf, Limiter, address, hub_of, limiter_of
from .display_names import check_display_name
from .errors import refusal_of
from .hub import Hub
from .seeking import Seeking
from .table import SeatConfig, TableConfig, variants_listing

__all__ = ["router"]

router = APIRouter()

OPEN_TABLES_SHOWN = 50
"""Tables listed as waiting for players, at most."""


def _seated(table_code: str, seat: int | None, token: str | None) -> dict[str, Any]:
    return {"code": table_code, "seat": seat, "token": token, "url": f"/t/{table_code}"}


def _named(name: Any, account: Account | None) -> Any:
    """The name a player gave, else their account's."""
    return account[1] if name is None and account is not None else name


@router.get("/api/variants")
async def variants() -> list[dict[str, Any]]:
    """The presets: their names, players and rules."""
    return variants_listing()


@router.get("/api/options")
async def options() -> dict[str, Any]:
    """The computer's levels and the house rules a new table may change."""
    return {"levels": list(BOT_LEVELS), "options": option_names(),
            "ranges": {name: list(bounds) for name, bounds in OPTION_RANGES.items()},
            "specs": option_specs()}


@router.post("/api/quick", openapi_extra=openapi_body(QuickBody))
async def quick(request: Request, hub: HubOf, limiter: Limiter,
                account: AccountOf) -> dict[str, Any]:
    """A new table against the expert; the caller takes the first seat."""
    body = await read_body(request, QuickBody)
    config = TableConfig("egyptian", 2, {}, (SeatConfig("human"),
                                             SeatConfig("bot", "expert")))
    await limiter.check("create", address(request))
    await check_display_name(hub.store, body.name, account)
    table, seat, token = await hub.create_table(config, _named(body.name, account), account)
    return _seated(table.code, seat, token)


@router.post("/api/tables", openapi_extra=openapi_body(NewTableBody))
async def new_table(request: Request, hub: HubOf, limiter: Limiter,
                    account: AccountOf) -> dict[str, Any]:
    """A new table; the caller takes its first human seat, if it has one."""
    body = await read_json(request)
    config = TableConfig.parse(NewTableBody.model_validate(body).model_dump(exclude_unset=True))
    await limiter.check("create", address(request))
    await check_display_name(hub.store, body.get("name"), account)
    table, seat, token = await hub.create_table(config, _named(body.get("name"), account),
                                                account)
    return _seated(table.code, seat, token)


@router.get("/api/tables")
async def open_tables(hub: HubOf) -> list[dict[str, Any]]:
    """Tables that someone can join: waiting for a person in a free seat."""
    listed = await hub.open_tables()
    listed.sort(key=lambda t: str(t["code"]))
    return listed[:OPEN_TABLES_SHOWN]


@router.get("/api/watch")
async def watch_list(hub: HubOf) -> list[dict[str, Any]]:
    """Live tables anyone may watch, best first (see :mod:`basra.server.watching`)."""
    return await hub.watching.listing()


@router.get("/api/tables/{code}")
async def describe_table(code: str, hub: HubOf) -> dict[str, Any]:
    """A table's public description (no token, no seed)."""
    return await hub.describe(code)


@router.post("/api/tables/{code}/join", openapi_extra=openapi_body(JoinBody))
async def join(code: str, request: Request, hub: HubOf, limiter: Limiter,
               account: AccountOf) -> dict[str, Any]:
    """Take a seat (the first free one, or ``seat``): its token."""
    body = await read_body(request, JoinBody)
    await limiter.check("join", address(request))
    await check_display_name(hub.store, body.name, account)
    seat, token = await hub.join(code, _named(body.name, account), body.seat, account)
    return {"seat": seat, "token": token}


# -- sockets -----------------------------------------------------------------------------

@router.websocket("/ws/seek")
async def seek_socket(websocket: WebSocket) -> None:
    """One seek: waiting messages until the player is seated (see ``seeking.py``)."""
    if await limiter_of(websocket).hit("socket", address(websocket)) is not None:
        await websocket.close(1008)
        return
    await websocket.accept()
    seeking: Seeking = websocket.app.state.seeking
    await seeking.serve(websocket)


@router.websocket("/ws/{code}")
async def table_socket(websocket: WebSocket, code: str) -> None:
    """A seat's socket (a watcher's without a token): states in, intents out."""
    hub = hub_of(websocket)
    if await limiter_of(websocket).hit("socket", address(websocket)) is not None:
        await websocket.close(1008)  # before the handshake: answered 403, cheaply
        return
    await websocket.accept()
    try:
        connection = await hub.open_socket(code, websocket.query_params.get("token"),
                                           address(websocket))
    except Exception as error:
        refusal = refusal_of(error)
        if refusal is None:
            raise
        websocket.app.state.metrics.answered(refusal.code)
        # The client may have gone meanwhile (a slow refusal): nothing to tell then.
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.send_text(encode(refusal.frame()))
            await websocket.close(refusal.close)
        return
    # The socket ends when the client goes, or when the server closes it (a seat
    # opened in too many places, a client too far behind).
    reader = asyncio.create_task(_read(websocket, connection, hub))
    writer = asyncio.create_task(_write(websocket, connection))
    try:
        await asyncio.wait({reader, writer}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        reader.cancel()
        writer.cancel()
        hub.disconnect(connection)


async def _read(websocket: WebSocket, connection: Connection, hub: Hub) -> None:
    """Hand every message of a socket to the hub, in order, until the client goes."""
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                connection.error("bad_message", "send JSON text frames, not bytes")
                continue
            await hub.receive(connection, text)


async def _write(websocket: WebSocket, connection: Connection) -> None:
    """Send a connection's outbox to its socket, in order."""
    with contextlib.suppress(Exception):
        while True:
            message = await connection.outbox.get()
            if message is None:
                await websocket.close(1013)
                return
            await websocket.send_text(message if isinstance(message, str) else encode(message))
