"""The hub: one server's tables, put together from the parts that run them.

- :class:`~basra.server.sockets.Sockets` (``sockets.py``): who is connected to each
  table, here and at relaying servers, and what each socket is sent;
- :class:`~basra.server.play.TablePlay` (``play.py``): intents, commits, timers and the
  computer;
- :class:`~basra.server.lifecycle.Tables` (``lifecycle.py``): tables made, seated,
  loaded, claimed, expired and put away;
- :class:`~basra.server.relay.Relay` (``relay.py``): tables other servers own. In a
  shared cluster (``cluster.py``) each live table has one owner server; this hub owns
  the tables in :attr:`Hub.tables` and relays others: its sockets at a table owned
  elsewhere send their intents to the owner and get the owner's views.

The hub opens and closes sockets, takes their messages, and answers for the tables
wherever their owner is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from basra.store import Store

from .cluster import Cluster
from .connections import Account, Connection, RemoteTable
from .errors import IntentError, TableMovedError, UnknownTokenError
from .lifecycle import Tables
from .messages import Intent, parse_intent
from .play import TablePlay
from .relay import Relay
from .settings import HubSettings
from .sockets import Sockets
from .table import Table, TableConfig
from .views import state_message, table_info
from .watching import Watching

__all__ = ["Hub"]

log = logging.getLogger("basra.server")


class Hub:
    """The live tables of one server (see the module's docstring for its parts)."""

    def __init__(self, store: Store, settings: HubSettings | None = None,
                 cluster: Cluster | None = None) -> None:
        self.store = store
        self.settings = settings or HubSettings()
        self.cluster = cluster or Cluster()
        self.tables: dict[str, Table] = {}
        """The tables this server owns, in memory, by code."""
        self.epochs: dict[str, int] = {}
        self.sockets = Sockets(self.settings, self.cluster)
        self.play = TablePlay(store, self.settings, self.sockets, self.tables, self.epochs)
        self.lifecycle = Tables(store, self.settings, self.cluster, self.sockets, self.play,
                                self.tables, self.epochs)
        self.relay = Relay(self, self.sockets, self.cluster)
        self.play.lost = self.relay.lost
        self.watching = Watching(self.tables, self.sockets, self.relay, self.cluster, store,
                                 self.settings)
        """The live tables anyone may watch (the Watch page and Basra TV)."""
        self.lifecycle.took_over = self.relay.took_over
        store.on_health(self.play.storage_changed)

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the recent tables, start the sweeper and the relay (and compile the
        master's search in the background with ``warm_master``)."""
        if self.settings.warm_master:
            self.play.computer.warm()
        await self.cluster.start(self.relay.answer, self.relay.take)
        await self.lifecycle.start()
        self.relay.start()

    def drain(self) -> None:
        """The server is stopping (SIGTERM): make no new tables from now on (their
        requests get ``server_busy``); the tables in play go on until their sockets
        close."""
        self.lifecycle.draining = True

    @property
    def draining(self) -> bool:
        """Whether :meth:`drain` was called."""
        return self.lifecycle.draining

    async def stop(self) -> None:
        """Cancel timers and pending work; what is confirmed is already stored. In a
        shared cluster the tables are handed over first (:meth:`Relay.leave`), while
        calls about them are still answered; then the server stops listening, answers
        the calls that reached it, and closes (:meth:`RedisCluster.stop`)."""
        self.lifecycle.stop_sweeping()
        await self.relay.stop()
        if self.cluster.shared:
            await self.relay.leave()
        await self.play.stop()
        await self.lifecycle.stop()
        if self.cluster.shared:
            for code in list(self.tables):  # (not handed over in time) taken over at once
                with contextlib.suppress(Exception):
                    await self.cluster.release(code)
        await self.cluster.stop()
        self.play.close()

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` reports."""
        return {
            "storage": self.store.health.to_dict(),
            "tables": len(self.tables),
            "connections": self.sockets.count(),
            "unrestored": [{"code": code, "error": reason}
                           for code, reason in sorted(self.lifecycle.unrestored.items())],
            "master_queue": self.play.computer.master_queue,
            "master_ready": self.play.computer.master_ready,
            "cluster": {**self.cluster.health(), **self.relay.health()},
        }

    # -- tables, wherever their owner is -------------------------------------------------

    async def table(self, code: str) -> Table:
        """The table with this code, loaded if need be (see :meth:`Tables.table`)."""
        return await self.lifecycle.table(code)

    async def create_table(self, config: TableConfig, name: object = None,
                           account: Account | None = None
                           ) -> tuple[Table, int | None, str | None]:
        """A new table, stored; the caller takes its first human seat, if it has one
        (for its ``account`` when logged in)."""
        table, seated = await self.lifecycle.seat_players(config, [(name, account)],
                                                          first_free=True)
        seat, token = seated[0] if seated else (None, None)
        return table, seat, token

    async def seat_players(self, config: TableConfig,
                           players: list[tuple[object, Account | None] | None],
                           first_free: bool = False) -> tuple[Table, list[tuple[int, str]]]:
        """A new table whose human seats ``players`` take (see :meth:`Tables.seat_players`)."""
        return await self.lifecycle.seat_players(config, players, first_free)

    async def join(self, code: str, name: object, seat: object = None,
                   account: Account | None = None) -> tuple[int, str]:
        """Take a human seat at a table, stored: (seat, token); a logged-in player's
        ``account`` holds it (one seat per account at a table). The table's owner does
        it, wherever it is."""
        async def here(table: Table) -> list[object]:
            return list(await self.join_here(table.code, name, seat, account))

        result = await self.relay.at_owner(code, "join", {
            "name": name if isinstance(name, str | None) else repr(name), "seat": seat,
            "account": None if account is None else list(account)}, here)
        return int(result[0]), str(result[1])

    async def join_here(self, code: str, name: object, seat: object = None,
                        account: Account | None = None) -> tuple[int, str]:
        """:meth:`join` at a table this server owns."""
        return await self.lifecycle.join_here(code, name, seat, account)

    async def describe(self, code: str) -> dict[str, Any]:
        """The table's public description (``GET /api/tables/{code}``), from its owner."""
        async def here(table: Table) -> dict[str, Any]:
            return table_info(table)

        described: dict[str, Any] = await self.relay.at_owner(code, "describe", {}, here)
        return described

    async def open_tables(self) -> list[dict[str, Any]]:
        """The tables waiting for players in free seats (the lobby's list)."""
        return await self.lifecycle.open_tables()

    async def sweep(self) -> None:
        """One look for tables to expire or put away (see :meth:`Tables.sweep`)."""
        await self.lifecycle.sweep()

    # -- sockets -------------------------------------------------------------------------

    async def open_socket(self, code: str, token: str | None, address: str = "",
                          seat: int | None = None) -> Connection:
        """A new socket at a table, for the seat its ``token`` holds (a watcher's without
        one), wherever the table's owner is; it is sent the current state at once. A
        caller that knows the seat otherwise (a bot account's, see ``bot_api.py``) gives
        it as ``seat`` instead of a token.

        Raises :class:`UnknownTableError`, :class:`ExpiredTableError`,
        :class:`UnrestoredTableError`, :class:`StorageError`, :class:`ServerBusyError`
        (the owner cannot be reached) or :class:`RefusedConnection` (``unknown_token``,
        too many sockets)."""
        self.sockets.count_address(address)
        found = await self.relay.place(code)
        if isinstance(found, RemoteTable):
            return await self.relay.open(found, token, address, seat)
        if token:
            seat = found.seat_of_token(token)
            if seat is None:
                raise UnknownTokenError()
        return self.connect(found, seat, address)

    def connect(self, table: Table, seat: int | None, address: str = "") -> Connection:
        """A new socket at a table this server owns; it is sent the current state at once.

        Raises :class:`TooManyConnectionsError` when the address has too many sockets
        open; a seat's sockets beyond ``seat_connections`` close the oldest."""
        sockets = self.sockets
        sockets.count_address(address)
        connection = Connection(table, seat, address)
        if seat is None:
            connection.watcher_name = sockets.watcher_name(table.code)
        sockets.add_address(address, 1)
        sockets.at[table.code].add(connection)
        self.lifecycle.attended(table)
        self.lifecycle.opened(table)
        if seat is None:
            connection.send(state_message(table, None))
            self.play.plan(table)
            return connection
        same_seat = sorted((c for c in sockets.at[table.code] if c.seat == seat),
                           key=lambda c: c.opened)
        for old in same_seat[:max(0, len(same_seat) - self.settings.seat_connections)]:
            old.error("replaced", "this seat was opened in more places; this one is closed")
            old.close()
        self.play.seat_came(table, seat)
        return connection

    def disconnect(self, connection: Connection) -> None:
        """A socket closed."""
        self.sockets.add_address(connection.address, -1)
        table = connection.table
        if isinstance(table, RemoteTable):
            self.relay.closed(connection)
            return
        at_table = self.sockets.at.get(table.code)
        if at_table is None or connection not in at_table:
            return
        at_table.discard(connection)
        self.lifecycle.left(table)
        if connection.seat is not None:
            self.sockets.recount(table)
            self.play.changed(table)

    async def receive(self, connection: Connection, text: str) -> None:
        """Handle one message from a socket: act on it, or answer an error to it alone.

        A message being handled is finished even if its socket closes meanwhile: a play
        committed to the database is always made at its table too."""
        await asyncio.shield(self._handle(connection, text))

    async def _handle(self, connection: Connection, text: str) -> None:
        try:
            intent = parse_intent(text)
            if intent.kind == "chat":
                self.play.chat.socket_allowed(connection)
            if isinstance(connection.table, RemoteTable):
                if intent.kind == "ping":
                    connection.send({"type": "pong"})
                    return
                await self.relay.forward(connection, text)
                return
            try:
                await self.act(connection, intent)
            except TableMovedError:
                if not isinstance(connection.table, RemoteTable):
                    raise
                await self.relay.forward(connection, text)  # to wherever it went
        except IntentError as refused:
            connection.error(refused.code, str(refused), getattr(refused, "params", None))
        except Exception:  # a bug must not take the table or the server down
            log.exception("a message at table %s failed", connection.table.code)
            connection.error("server_error", "the server could not handle this message")

    # -- the relay's host (basra.server.host.TableHost) ----------------------------------

    async def act(self, connection: Connection, intent: Intent) -> None:
        """Act on an intent at a table this server owns (see :meth:`TablePlay.act`)."""
        await self.play.act(connection, intent)

    def opened(self, table: Table) -> None:
        """Someone came to the table (it never expires as unopened)."""
        self.lifecycle.opened(table)

    def seat_came(self, table: Table, seat: int) -> None:
        """A socket for a seat opened, here or at a relaying server."""
        self.play.seat_came(table, seat)

    def refresh(self, table: Table) -> None:
        """The table's sockets changed: count them, plan, send everyone their view."""
        self.sockets.recount(table)
        self.play.changed(table)

    def let_go(self, table: Table) -> None:
        """The table leaves memory without giving up its lease (lost or given up)."""
        self.lifecycle.remove(table, release=False)

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Keep a background task until it ends (its failure is logged)."""
        self.play.keep(task)

    def busy(self, code: str) -> bool:
        """Whether an intent or a computer move is being handled at the table now."""
        return self.play.busy(code)

    def settled(self, code: str) -> contextlib.AbstractAsyncContextManager[Any]:
        """Entered once no intent nor computer move is being handled at the table."""
        return self.play.settled(code)

    def version(self, code: str) -> tuple[int, int]:
        """The (owner epoch, change number) of the table's latest views."""
        return self.epochs.get(code, 0), self.sockets.version(code)
