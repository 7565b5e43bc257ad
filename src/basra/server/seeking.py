"""Play online: players seek a game over ``/ws/seek``, and are paired onto new tables
(``docs/web-protocol.md``, "Play online").

One socket is one seek. The server keeps every waiting seek in a
:class:`basra.players.matchmaking.Matchmaker` and pairs them every ``pair_every`` seconds; each
pairing becomes an ordinary table (rated or casual) whose seats are taken for the paired
players at once. Each player's socket is then sent its seat's token and the table's url,
and closed::

    client                               server
    GET /ws/seek?variant=egyptian&players=2&rated=1
                                  <----  {"type": "waiting", "seconds": 0, "range": 100}
                                  <----  ... about every second
    {"type": "computer"}          ---->  (after computer_after seconds: fill with computers)
                                  <----  {"type": "paired", "table", "seat", "token", "url"}
                                  <----  (closed)

Rated seeks need a logged-in session (the ``basra_session`` cookie); guests play casual
games only. An account that abandoned rated matches too often lately waits before its
next rated seek (the playban, :mod:`basra.players.conduct`: refused with ``playban``).
Seeks from one address are kept apart while others wait; a rated table made of two
seeks from one address is flagged for moderators (``same_address``). Closing the socket
cancels the seek. A seek counts as a new table against its address's table-creation
limit (``create``), and its socket against the address's most sockets open
(``address_connections``), like a table's socket.

**Many servers** (a shared cluster): one server at a time pairs the seeks of all, the
holder of the ``~matchmaker`` lease (taken by any server that finds it free or its holder
gone, renewed at every pairing). The others send it their seeks (``seek_add``, with what
each has waited), their cancels and their players' asks for computers; it sends each
pairing's seat back to the server holding that player's socket (``seek_paired``). When
the pairing server changes, every server sends the new one its seeks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from basra.players.conduct import playban_seconds, recent
from basra.players.matchmaking import (
    Matchmaker,
    Pairing,
    Seek,
    SeekError,
    UnknownSeekError,
    same_address,
)
from basra.players.names import guest_name
from basra.players.ratings import new_rating, pool_key
from basra.rules import RulesError, preset
from basra.store import Store

from .connections import Account, encode
from .display_names import check_display_name
from .errors import (
    BadSeekError,
    BotError,
    DisplayNameTakenError,
    LoginRequiredError,
    PlaybanError,
    RatedBanError,
    RateLimited,
    ServerBusyError,
    TooManyConnectionsError,
    error_body,
    refusal_of,
)
from .hub import Hub
from .ratelimit import RateLimits
from .sessions import request_account
from .table import ConfigError, SeatConfig, TableConfig, clean_name

__all__ = ["SEEK_MESSAGE", "SeekSettings", "Seeking"]

log = logging.getLogger("basra.server")

SEEK_MESSAGE = 1000
"""Longest message read on a seek socket, in characters."""
MATCHMAKER = "~matchmaker"
"""The lease of the server that pairs the seeks of every server (a shared cluster)."""


@dataclass(frozen=True)
class SeekSettings:
    """How seeks are served (``create_app(seeking=...)``)."""

    computer_after: float = 20.0
    """Seconds of waiting after which a player may fill the empty seats with computers."""
    pair_every: float = 0.5
    """Seconds between two pairings of the waiting seeks."""
    waiting_every: float = 1.0
    """Seconds between two ``waiting`` messages."""
    turn_seconds: int = 60
    """The turn timer of tables made by pairing (a player who does not play in time is
    played for by the computer until they play again)."""
    computer_level: str = "expert"
    """The level of the computer players that fill empty seats."""


def _query_flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _client(websocket: WebSocket) -> str:
    """The client's address."""
    return websocket.client.host if websocket.client is not None else ""


async def _refuse(websocket: WebSocket, error: Exception) -> None:
    """Answer an accepted seek socket with the error, and close it."""
    refused = refusal_of(error)
    assert refused is not None
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        await websocket.send_text(encode(refused.frame()))
        await websocket.close(refused.close)


class Seeking:
    """The waiting seeks of one server, and the task that pairs them."""

    def __init__(self, hub: Hub, store: Store, settings: SeekSettings | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 session_clock: Callable[[], float] = time.time,
                 limiter: RateLimits | None = None) -> None:
        self.hub = hub
        self.limiter = limiter
        """Counts each seek as a new table of its address (none are counted without)."""
        self.session_clock = session_clock
        self.store = store
        self.settings = settings or SeekSettings()
        self.clock = clock
        self.matchmaker = Matchmaker()
        """The seeks this server pairs (every server's, where it is the pairing one)."""
        self._outboxes: dict[str, asyncio.Queue[dict[str, Any] | None]] = {}
        self._accounts: dict[str, Account | None] = {}
        self._guests = itertools.count(1)
        self._pairer: asyncio.Task[None] | None = None
        self.mine: dict[str, Seek] = {}
        """The waiting seeks of this server's sockets."""
        self._homes: dict[str, str] = {}
        """Seeks of other servers' sockets paired here: seek id -> that server's id."""
        self.pairing_here = not hub.cluster.shared
        self._pairing_server: str | None = None
        relay = hub.relay
        relay.message_handlers["seek_paired"] = self._paired_elsewhere
        relay.message_handlers["seek_cancel"] = self._cancelled_elsewhere
        relay.call_handlers["seek_add"] = self._add_from_elsewhere
        relay.call_handlers["seek_computer"] = self._computer_from_elsewhere

    async def start(self) -> None:
        self._pairer = asyncio.create_task(self._pair_loop(), name="basra-seek-pairing")

    async def stop(self) -> None:
        if self._pairer is not None:
            self._pairer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pairer
            self._pairer = None

    # -- pairing -------------------------------------------------------------------------

    async def _pair_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.pair_every)
            try:
                if self.hub.cluster.shared:
                    await self._find_pairing_server()
                if self.pairing_here:
                    await self.pair_now()
            except Exception:
                log.exception("pairing the waiting seeks failed")

    async def _find_pairing_server(self) -> None:
        """Keep (or take) the pairing lease, or follow the server that has it."""
        cluster = self.hub.cluster
        if self.pairing_here:
            if not await cluster.renew([MATCHMAKER]):
                return
            log.warning("this server no longer pairs the seeks")
            self.pairing_here = False
            self.matchmaker = Matchmaker()
            self._homes.clear()
        owner = (await cluster.owners([MATCHMAKER]))[MATCHMAKER]
        if owner is None or (owner != cluster.server_id
                             and owner not in await cluster.listening([owner])):
            if (await cluster.acquire(MATCHMAKER)).holder is None:
                self.pairing_here = True
                self._pairing_server = cluster.server_id
                for seek in list(self.mine.values()):
                    with contextlib.suppress(SeekError):
                        self.matchmaker.add(seek)
                return
            owner = (await cluster.owners([MATCHMAKER]))[MATCHMAKER]
        if owner != self._pairing_server:
            self._pairing_server = owner
            for seek in list(self.mine.values()):
                with contextlib.suppress(SeekError):
                    await self._send_seek(seek)

    async def _send_seek(self, seek: Seek) -> None:
        """Give a seek of this server's to the pairing server (raises :class:`SeekError`
        when it refuses it; keeps it for the next pairing server when none answers)."""
        server = self._pairing_server
        if server is None:
            return
        try:
            answer = await self.hub.cluster.call(server, "seek_add", {
                "server": self.hub.cluster.server_id, "id": seek.id, "player": seek.player,
                "name": seek.name, "rating": seek.rating, "variant": seek.variant,
                "players": seek.players, "rated": seek.rated, "guest": seek.guest,
                "computer_fill": seek.computer_fill, "avoids": sorted(seek.avoids),
                "address": seek.address,
                "waited": seek.waited(self.clock()),
                "account": self._accounts.get(seek.id)})
        except Exception as error:
            log.warning("seek %s waits for a pairing server: %s", seek.id, error)
            return
        if isinstance(answer, dict) and answer.get("refused"):
            raise SeekError(str(answer["refused"]))

    async def _add_from_elsewhere(self, args: dict[str, Any]) -> Any:
        """A seek of another server's socket, to pair here."""
        if not self.pairing_here:
            return {"refused": None, "elsewhere": True}
        try:
            seek = Seek(str(args["id"]), str(args["player"]), str(args["name"]),
                        int(args["rating"]), str(args["variant"]), int(args["players"]),
                        bool(args["rated"]), self.clock() - float(args["waited"]),
                        guest=bool(args["guest"]), computer_fill=bool(args["computer_fill"]),
                        avoids=frozenset(str(p) for p in args.get("avoids") or ()),
                        address=str(args.get("address") or ""))
            if seek.id not in self.matchmaker:
                self.matchmaker.add(seek)
        except (SeekError, KeyError, TypeError, ValueError) as error:
            return {"refused": str(error)}
        account = args.get("account")
        self._accounts[seek.id] = (None if account is None
                                   else (int(account[0]), str(account[1])))
        self._homes[seek.id] = str(args["server"])
        return {"refused": None}

    def _cancelled_elsewhere(self, message: dict[str, Any]) -> None:
        seek_id = str(message.get("id"))
        if self._homes.pop(seek_id, None) is not None:
            self.matchmaker.cancel(seek_id)
            self._accounts.pop(seek_id, None)

    async def _computer_from_elsewhere(self, args: dict[str, Any]) -> Any:
        with contextlib.suppress(UnknownSeekError):
            await self._seat(self.matchmaker.expand_with_computer(str(args.get("id")),
                                                                  self.clock()))
        return None

    def _paired_elsewhere(self, message: dict[str, Any]) -> None:
        self._tell(str(message.get("id")), message.get("message") or {})

    async def pair_now(self) -> None:
        """Make every table the waiting seeks allow now, and seat their players."""
        for pairing in self.matchmaker.pair(self.clock()):
            await self._seat(pairing)

    async def _seat(self, pairing: Pairing) -> None:
        """A new table for a pairing; each player's socket is sent its seat."""
        pool = pool_key(pairing.seeks[0].variant, pairing.seeks[0].players)
        variant, players = pool.rsplit("-", 1)
        level = self.settings.computer_level
        config = TableConfig(
            variant, int(players), {},
            tuple(SeatConfig("human") if seek is not None else SeatConfig("bot", level)
                  for seek in pairing.seats),
            self.settings.turn_seconds, level, pairing.rated, public=True)
        claims: list[tuple[object, Account | None] | None] = [
            None if seek is None else (seek.name, self._accounts.get(seek.id))
            for seek in pairing.seats]
        try:
            table, seated = await self.hub.seat_players(config, claims)
        except (ServerBusyError, ConfigError) as error:
            refused = refusal_of(ServerBusyError(f"no table could be made: {error}"))
            assert refused is not None
            for seek in pairing.seeks:
                self._tell(seek.id, refused.frame())
            return
        shared = [(a, b) for a, b in itertools.combinations(pairing.seeks, 2)
                  if same_address(a, b)] if pairing.rated else []
        accounts = {seek.id: self._accounts.get(seek.id) for seek in pairing.seeks}
        for seek, (seat, token) in zip(pairing.seeks, seated, strict=True):
            self._tell(seek.id, {"type": "paired", "table": table.code, "seat": seat,
                                 "token": token, "url": f"/t/{table.code}"})
        for first, second in shared:
            one, other = accounts[first.id], accounts[second.id]
            try:
                await self.store.flags.raise_flag(
                    "same_address", None if one is None else one[0],
                    None if other is None else other[0], table_code=table.code,
                    details={"pool": pairing.pool})
            except Exception:
                log.exception("the same-address pairing at table %s could not be flagged",
                              table.code)

    def _tell(self, seek_id: str, message: dict[str, Any]) -> None:
        """Send a seek's socket a message, on whichever server holds it."""
        home = self._homes.get(seek_id)
        if home is not None:
            if message.get("type") == "paired" or message.get("code") == "server_busy":
                self._homes.pop(seek_id, None)
                self._accounts.pop(seek_id, None)
            self.hub.cluster.send(home, {"k": "seek_paired", "id": seek_id,
                                         "message": message})
            return
        if message.get("type") == "paired" or message.get("code") == "server_busy":
            self.mine.pop(seek_id, None)
        outbox = self._outboxes.get(seek_id)
        if outbox is not None:
            outbox.put_nowait(message)

    # -- one seek's socket ---------------------------------------------------------------

    async def _seek_of(self, websocket: WebSocket) -> tuple[Seek, Account | None]:
        """The seek a socket's query asks for; raises :class:`BadSeekError`,
        :class:`LoginRequiredError` or :class:`RateLimited` (too many new tables from
        the address: a seek makes one)."""
        query = websocket.query_params
        variant = query.get("variant") or "egyptian"
        try:
            found = preset(variant)
        except RulesError as error:
            raise BadSeekError(str(error)) from None
        players_text = query.get("players") or str(found.players[0])
        if len(players_text) != 1 or players_text not in "0123456789":
            raise BadSeekError(f"players must be a number, not {players_text!r}")
        players = int(players_text)
        rated = _query_flag(query.get("rated"))
        user = await request_account(self.store, websocket, self.session_clock)
        if user is not None and user.bot:
            raise BotError("bots_not_allowed", "a bot account does not seek games: it "
                           "plays by challenges and in tournaments that allow bots")
        if rated and user is None:
            raise LoginRequiredError(
                               "rated games are for players with an account: log in first")
        if rated and user is not None:
            await self.check_rated_play(user.id)
        try:
            pool = pool_key(found.name, players)
        except ValueError as error:
            raise BadSeekError(str(error)) from None
        avoids: frozenset[str] = frozenset()
        if user is not None:
            avoids = frozenset(f"user:{other}"
                               for other in await self.store.moderation.avoided(user.id))
            stored = await self.store.ratings.of_accounts([user.id], pool)
            rating = (stored.get((user.id, pool)) or new_rating()).display
            name, player, account = user.name, f"user:{user.id}", (user.id, user.name)
        else:
            rating = new_rating().display
            await check_display_name(self.store, query.get("name"), None)
            try:
                name = clean_name(query.get("name"), guest_name(next(self._guests) - 1))
            except ConfigError as error:
                raise BadSeekError(str(error)) from None
            player, account = f"guest:{secrets.token_hex(8)}", None
        if self.limiter is not None:
            await self.limiter.check("create", _client(websocket))
        seek_id = secrets.token_hex(8)
        try:
            seek = Seek(seek_id, player, name, rating, found.name, players,
                        rated, self.clock(), guest=user is None, computer_fill=True,
                        avoids=avoids,
                        address=websocket.client.host if websocket.client else "")
            if self.pairing_here:
                self.matchmaker.add(seek)
            else:
                self._accounts[seek_id] = account
                await self._send_seek(seek)
        except SeekError as error:
            self._accounts.pop(seek_id, None)
            raise BadSeekError(str(error)) from None
        self.mine[seek.id] = seek
        return seek, account

    async def check_rated_play(self, user_id: int) -> None:
        """Raise :class:`PlaybanError` while the account's abandons keep it from rated
        play (:func:`basra.players.conduct.playban_seconds`), :class:`RatedBanError` while
        a moderator's ban does (a rated seek, or joining a rated tournament)."""
        now_ms = int(self.session_clock() * 1000)
        banned = await self.store.moderation.active(user_id, "rated_ban", now_ms)
        if banned is not None:
            until = "for good" if banned.until is None else f"until {banned.until} (Unix ms)"
            raise RatedBanError(f"a moderator banned you from rated play {until}: "
                                f"{banned.reason}", until=banned.until, reason=banned.reason)
        rule = self.hub.settings.playban()
        if rule.base <= 0:
            return
        now = time.time()
        times = [at / 1000 for at in await self.store.conduct.abandons(
            user_id, int((now - rule.window) * 1000))]
        seconds = playban_seconds(times, now, rule)
        if seconds > 0:
            count = len(recent(times, now, rule))
            raise PlaybanError(f"you left {count} rated games in the last "
                               f"{rule.window / 3600:g} hours: you may seek a rated game "
                               f"again in {seconds} s (casual games are open)",
                               seconds, count)

    async def serve(self, websocket: WebSocket) -> None:
        """A seek socket, from its accepted handshake to its close; counted among its
        address's sockets (refused, ``too_many_connections``, past their most)."""
        client = _client(websocket)
        sockets = self.hub.sockets
        try:
            sockets.count_address(client)
        except TooManyConnectionsError as error:
            await _refuse(websocket, error)
            return
        sockets.add_address(client, 1)
        try:
            await self._serve(websocket)
        finally:
            sockets.add_address(client, -1)

    async def _serve(self, websocket: WebSocket) -> None:
        try:
            seek, account = await self._seek_of(websocket)
        except (BadSeekError, BotError, LoginRequiredError, DisplayNameTakenError,
                PlaybanError, RatedBanError, RateLimited) as error:
            await _refuse(websocket, error)
            return
        outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._outboxes[seek.id] = outbox
        self._accounts[seek.id] = account
        reader = asyncio.create_task(self._read(websocket, seek, outbox))
        try:
            await self._write(websocket, seek, outbox)
        finally:
            reader.cancel()
            self.matchmaker.cancel(seek.id)
            if self.mine.pop(seek.id, None) is not None and not self.pairing_here \
                    and self._pairing_server is not None:
                self.hub.cluster.send(self._pairing_server,
                                      {"k": "seek_cancel", "id": seek.id})
            self._outboxes.pop(seek.id, None)
            self._accounts.pop(seek.id, None)

    def _waiting(self, seek: Seek) -> dict[str, Any]:
        now = self.clock()
        reach = seek.range(now)
        return {"type": "waiting", "seconds": int(seek.waited(now)),
                "range": None if math.isinf(reach) else int(reach)}

    async def _write(self, websocket: WebSocket, seek: Seek,
                     outbox: asyncio.Queue[dict[str, Any] | None]) -> None:
        """Send the waiting messages, errors and at last the seat, until either side
        closes."""
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.send_text(encode(self._waiting(seek)))
            while True:
                try:
                    message = await asyncio.wait_for(outbox.get(),
                                                     self.settings.waiting_every)
                except TimeoutError:
                    if seek.id in self.mine:
                        await websocket.send_text(encode(self._waiting(seek)))
                    continue
                if message is None:
                    return  # the client went
                await websocket.send_text(encode(message))
                if message["type"] == "paired" or message.get("code") == "server_busy":
                    await websocket.close(1000)
                    return

    async def _read(self, websocket: WebSocket, seek: Seek,
                    outbox: asyncio.Queue[dict[str, Any] | None]) -> None:
        """Act on the client's messages until it goes (then tell the writer)."""
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                reply = await self._handle(seek, message.get("text"))
                if reply is not None:
                    outbox.put_nowait(reply)
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        finally:
            outbox.put_nowait(None)

    async def _handle(self, seek: Seek, text: str | None) -> dict[str, Any] | None:
        """The error to answer a client message with, or None."""

        def error(code: str, message: str) -> dict[str, Any]:
            return {"type": "error", **error_body(code, message)}

        if text is None or len(text) > SEEK_MESSAGE:
            return error("bad_message", f"send JSON text of at most {SEEK_MESSAGE} "
                                        "characters")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return error("bad_message", f"not JSON: {text[:60]!r}")
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "ping":
            return {"type": "pong"}
        if kind != "computer":
            return error("bad_message", f"unknown message type {kind!r}; expected "
                                        "computer or ping")
        if seek.id not in self.mine:
            return None  # seated meanwhile: its seat is on the way
        waited = seek.waited(self.clock())
        if waited < self.settings.computer_after:
            left = math.ceil(self.settings.computer_after - waited)
            return error("too_early", f"wait {left} s more before playing the computer: "
                                      "someone may come")
        if not self.pairing_here:
            server = self._pairing_server
            if server is None:
                return error("server_busy", "no server pairs seeks right now: wait a moment")
            try:
                await self.hub.cluster.call(server, "seek_computer", {"id": seek.id})
            except Exception:
                return error("server_busy", "the pairing server did not answer: try again")
            return None
        if seek.id not in self.matchmaker:
            return None
        await self._seat(self.matchmaker.expand_with_computer(seek.id, self.clock()))
        return None
