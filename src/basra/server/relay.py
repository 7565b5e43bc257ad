"""Tables owned by other servers: relaying sockets, answering calls, taking tables over.

The hub (``hub.py``) runs the tables this server owns; the relay knows it only as a
:class:`~basra.server.host.TableHost`, and its sockets as
:class:`~basra.server.sockets.Sockets`. In a shared cluster
(``cluster.py``) a socket or a request may reach this server for a table another server
owns; the :class:`Relay` then

- answers for the owner: a join, a description or a new socket is a *call* to the owner
  (its answer comes back, or the owner's error, raised here as the same exception);
- forwards each intent of its sockets there, and passes the owner's answers (errors,
  ``pong``) back to the socket that sent it;
- passes on the owner's views: the owner sends each relaying server, in order, the views
  of the seats it serves (its *presence*: sockets per seat and watchers, told to the owner
  when it changes and every :data:`PRESENCE_EVERY` seconds), each with a (owner epoch,
  change number) version, and a socket is only ever sent a newer view than its last;
- watches the owners of its tables (every :data:`WATCH_EVERY` seconds): an owner that
  stopped listening, or whose lease expired, is gone, and this server takes the table
  over (claims it and loads it from the database); its sockets then belong to the table
  here and play goes on.

On the owner's side it renews the leases of the hub's tables and drops a table whose
lease or fencing epoch was lost (an old owner after a pause): its sockets are then
relayed to whoever owns the table now. And ownership follows the players: an owner with
no socket of its own at a table, whose sockets are all at one other server, hands the
table over to that server (gives up its lease and tells it to take the table), so that
a table made on one server and played through another stops being relayed.

A server that stops (SIGTERM) *leaves* (:meth:`Relay.leave`), once its own sockets are
closed and before its play stops: each of its tables, once the play being made there is
done (answered to whoever sent it), gives up its lease and leaves memory, and the servers
relaying it are told to take it; from then on a call about a table it does not hold is
answered ``elsewhere`` with no owner, and the caller takes the table over from the
database. So a play relayed to a stopping server is made there, or made again at the
table's next owner: never left unanswered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from basra.store import StorageError

from .cluster import RENEW_EVERY, Cluster, ClusterError, ServerGone
from .connections import Connection, RemoteTable, encode
from .errors import (
    ElsewhereError,
    ExpiredTableError,
    IntentError,
    JoinError,
    RefusedConnection,
    ServerBusyError,
    TableMovedError,
    TooManyConnectionsError,
    UnknownTableError,
    UnknownTokenError,
    UnrestoredTableError,
)
from .host import TableHost
from .messages import parse_intent
from .sockets import Sockets
from .table import Table
from .views import state_message, table_info

__all__ = ["LEAVE_WITHIN", "PRESENCE_EVERY", "PRESENCE_TTL", "WATCH_EVERY", "Relay"]

log = logging.getLogger("basra.cluster")

WATCH_EVERY = 0.5
"""Seconds between two looks at the owners of the relayed tables."""
PRESENCE_EVERY = 5.0
"""Seconds between two reminders to an owner of a relay's sockets at its table."""
PRESENCE_TTL = 16.0
"""An owner forgets a relay's sockets it has not been reminded of for this long."""
HANDED_FOR = 5.0
"""Seconds an owner that handed a table over sends calls about it to the new owner."""
TAKE_OVER_AT_ONCE = 200
"""Tables of a dead server taken over at the same time (their claims and reads go to
the database together, see :mod:`basra.server.batching`)."""
HAND_OVER_MOST = 50
"""Tables handed over per look at most (a burst of them is spread over several looks)."""
LEAVE_WITHIN = 1.0
"""Seconds a stopping server waits at most for the plays being made at its tables before
it has handed them all over (those left are taken over once it stops listening)."""


class _Adopted(Exception):
    """This server owns the table now (it took it over while asking its old owner)."""

    def __init__(self, table: Table) -> None:
        super().__init__(table.code)
        self.table = table


class Relay:
    """The hub's dealings with other servers (nothing to do for a server alone)."""

    def __init__(self, host: TableHost, sockets: Sockets, cluster: Cluster) -> None:
        self.host = host
        self.here = sockets
        """This server's sockets at its own tables, and other servers' presence there."""
        self.cluster = cluster
        self.remote: dict[str, RemoteTable] = {}
        self.sockets: dict[str, set[Connection]] = {}
        """This server's sockets at tables owned elsewhere."""
        self.latest: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}
        """Each relayed table's latest views, by version."""
        self.takeovers = 0
        self.message_handlers: dict[str, Callable[[dict[str, Any]], None]] = {}
        """Other kinds of one-way message, by kind (seeks use them)."""
        self.call_handlers: dict[str, Callable[[dict[str, Any]], Awaitable[Any]]] = {}
        """Other kinds of call, by operation: their answer is sent back as it is."""
        self.handovers = 0
        self._handed: dict[str, tuple[str, float]] = {}
        """Tables this server handed over: code -> (the server taking it, until when)."""
        self._task: asyncio.Task[None] | None = None
        self._renewer: asyncio.Task[None] | None = None
        self._owner_side = 0.0
        self._reminded = 0.0
        self.leaving = False
        """Whether this server is stopping and hands its tables over (:meth:`leave`)."""

    def start(self) -> None:
        """Start watching owners and renewing leases (in a shared cluster)."""
        if self.cluster.shared:
            self._task = asyncio.create_task(self._watch(), name="basra-relay")
            self._renewer = asyncio.create_task(self._renew(), name="basra-leases")

    async def stop(self) -> None:
        """Stop watching and renewing."""
        for task in (self._task, self._renewer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._renewer = None

    async def leave(self) -> None:
        """This server is stopping: hand every table it owns over (see the module's
        description), within :data:`LEAVE_WITHIN` seconds. Call it once its own sockets
        are closed, after :meth:`stop` and before the play stops."""
        self.leaving = True
        tables = list(self.host.tables.values())
        try:
            async with asyncio.timeout(LEAVE_WITHIN):
                await asyncio.gather(*(self._leave(table) for table in tables))
        except TimeoutError:
            log.warning("%d of %d tables were not handed over within %g s: they are taken "
                        "over once this server stops listening", len(self.host.tables),
                        len(tables), LEAVE_WITHIN)
        else:
            if tables:
                log.info("handed %d tables over as this server stops", len(tables))

    async def _leave(self, table: Table) -> None:
        """Hand one table over as this server stops: once the intent or computer move being
        handled at it is done, its lease is given up and it leaves memory (the intents
        waiting for it are answered ``elsewhere``); its relaying servers take it."""
        code = table.code
        async with self.host.settled(code):
            if self.host.tables.get(code) is not table:
                return
            try:
                await self.cluster.release(code)
            except Exception as error:  # its lease expires, or is taken once this one stops
                log.warning("the lease of table %s could not be given up: %s", code, error)
            relaying = list(self.here.presence.get(code, {}))
            self.host.let_go(table)
        for server in relaying:
            self.cluster.send(server, {"k": "take", "code": code})

    def health(self) -> dict[str, Any]:
        """The relay's part of ``/healthz``."""
        return {"relayed_tables": len(self.remote),
                "relayed_sockets": sum(len(s) for s in self.sockets.values()),
                "takeovers": self.takeovers, "handovers": self.handovers}

    # -- finding a table's owner ---------------------------------------------------------

    async def place(self, code: str) -> Table | RemoteTable:
        """Where the table is: this server's (loaded now if need be) or another's."""
        table = self.host.tables.get(code)
        if table is not None:
            return table
        if not self.cluster.shared:
            return await self.host.table(code)
        remote = self.remote.get(code)
        if remote is not None and remote.owner is not None:
            return remote
        try:
            return await self.host.table(code)
        except ElsewhereError as elsewhere:
            remote = self.remote.setdefault(code, RemoteTable(code, None))
            remote.owner = elsewhere.args[1]
            return remote

    async def at_owner(self, code: str, op: str, args: dict[str, Any],
                       here: Callable[[Table], Awaitable[Any]]) -> Any:
        """Do something at a table's owner: ``here(table)`` when this server owns it (or
        takes it over meanwhile), else the owner's answer to the call ``op``."""
        place = await self.place(code)
        if not isinstance(place, RemoteTable):
            return await here(place)
        try:
            return await self.ask(place, op, args)
        except _Adopted as adopted:
            return await here(adopted.table)

    async def ask(self, remote: RemoteTable, op: str, args: dict[str, Any]) -> Any:
        """Call the owner of a relayed table; its answer, or its error raised here.
        Raises :class:`_Adopted` when this server took the table over meanwhile, and
        :class:`ServerBusyError` when no owner answers."""
        code = remote.code
        for _attempt in range(4):
            owner = remote.owner
            if owner is None or owner == self.cluster.server_id:
                await self._take_over(remote)
                await asyncio.sleep(0.1)
                continue
            try:
                answer = await self.cluster.call(owner, op, {"code": code, **args})
            except ServerGone:
                await self._take_over(remote)
                continue
            except ClusterError as error:
                raise ServerBusyError(f"the server of table {code} did not answer: "
                                      f"{error}") from None
            if isinstance(answer, dict) and answer.get("error") == "elsewhere":
                remote.owner = answer.get("owner")
                continue
            return _unwrap(answer, code)
        raise ServerBusyError(f"the server of table {code} could not be found: try again")

    async def _take_over(self, remote: RemoteTable) -> None:
        """The owner of a relayed table is gone, unknown or handing it over: take the
        table (its lease is taken from a dead owner: :meth:`Hub.table` loads it and says
        so), or learn who has it."""
        owned = self.host.tables.get(remote.code)
        if owned is not None:
            raise _Adopted(owned)
        try:
            table = await self.host.table(remote.code)
        except ElsewhereError as elsewhere:
            remote.owner = elsewhere.args[1]
            return
        self.adopt(table)
        raise _Adopted(table)

    def took_over(self, table: Table, gone: str) -> None:
        """Count and log a table this server took over from a dead server."""
        self.takeovers += 1
        claim, read, rebuild = table.load_seconds or (0.0, 0.0, 0.0)
        log.warning("took table %s over from server %s, which is gone, in %.0f ms (claim "
                    "%.0f, read %.0f, rebuild %.0f)", table.code, gone,
                    1000 * (claim + read + rebuild), 1000 * claim, 1000 * read,
                    1000 * rebuild)

    def adopt(self, table: Table) -> None:
        """This server owns a table it relayed: its sockets are now the table's here."""
        code = table.code
        sockets = self.sockets.pop(code, set())
        self.remote.pop(code, None)
        self.latest.pop(code, None)
        if not sockets:
            return
        here = self.here.at.setdefault(code, set())
        for connection in sockets:
            connection.table = table
            here.add(connection)
        self.host.opened(table)
        self.host.refresh(table)

    def lost(self, table: Table) -> None:
        """This server no longer owns a table (its lease or epoch was taken): it leaves
        memory, and its sockets are relayed to the new owner once found."""
        code = table.code
        if self.host.tables.get(code) is not table:
            return  # let go already
        sockets = set(self.here.at.get(code, ()))
        log.warning("table %s was taken over by another server; this one lets it go", code)
        self.host.let_go(table)
        if sockets:
            remote = self.remote.setdefault(code, RemoteTable(code, None, table.seq))
            for connection in sockets:
                connection.table = remote
                connection.version = (0, 0)
            self.sockets.setdefault(code, set()).update(sockets)

    # -- a relay's sockets ---------------------------------------------------------------

    async def open(self, remote: RemoteTable, token: str | None, address: str,
                   seat: int | None = None) -> Connection:
        """A socket here at a table owned elsewhere (for the seat of ``token``, or for
        ``seat`` when this server vouches for it)."""
        code = remote.code
        seats, watchers = self._counts(code)
        try:
            answer = await self.ask(remote, "open", {
                "token": token, "seat": seat, "server": self.cluster.server_id,
                "seats": seats, "watchers": watchers})
        except _Adopted as adopted:
            if token:
                seat = adopted.table.seat_of_token(token)
                if seat is None:
                    raise UnknownTokenError() from None
            return self.host.connect(adopted.table, seat, address)
        current = self.remote.get(code)
        if current is None:
            current = self.remote.setdefault(code, remote)
        seat = answer["seat"]
        connection = Connection(current, seat, address)
        connection.watcher_name = answer.get("watcher_name") or ""
        connection.version = (int(answer["version"][0]), int(answer["version"][1]))
        current.seq = max(current.seq, int(answer["seq"]))
        connection.send(answer["state"])
        self.sockets.setdefault(code, set()).add(connection)
        self.here.add_address(address, 1)
        latest = self.latest.get(code)
        if latest is not None:  # views that came while the answer was on its way
            self._pass_on(connection, *latest)
        return connection

    def closed(self, connection: Connection) -> None:
        """A relayed socket closed: the owner is told."""
        code = connection.table.code
        sockets = self.sockets.get(code)
        if sockets is None or connection not in sockets:
            return
        sockets.discard(connection)
        self._remind(code)
        if not sockets:
            self.sockets.pop(code, None)
            self.remote.pop(code, None)
            self.latest.pop(code, None)

    async def forward(self, connection: Connection, text: str) -> None:
        """An intent of a relayed socket, to the table's owner; its answers back."""
        remote = connection.table
        assert isinstance(remote, RemoteTable)
        try:
            for _attempt in range(3):
                answer = await self.ask(remote, "intent", {
                    "seat": connection.seat, "watcher": connection.watcher_name,
                    "address": connection.address, "text": text})
                if "elsewhere" not in answer:
                    break
                remote.owner = answer["elsewhere"]  # moved meanwhile: ask its new owner
                await asyncio.sleep(0.05)
            else:
                raise IntentError("server_error", "the table is moving between servers: "
                                  "send the play again")
        except _Adopted:
            await self.host.act(connection, parse_intent(text))
            return
        except ServerBusyError as error:
            raise IntentError("server_error", f"{error}; a play sent is confirmed only by "
                              "a state that counts it") from None
        for message in answer["messages"]:
            connection.send(message)

    def _counts(self, code: str) -> tuple[list[int], int]:
        seats: dict[int, int] = {}
        watchers = 0
        for connection in self.sockets.get(code, ()):
            if connection.seat is None:
                watchers += 1
            else:
                seats[connection.seat] = seats.get(connection.seat, 0) + 1
        most = max(seats, default=-1) + 1
        return [seats.get(seat, 0) for seat in range(most)], watchers

    def _remind(self, code: str) -> None:
        """Tell a relayed table's owner this server's sockets there."""
        remote = self.remote.get(code)
        if remote is None or remote.owner is None:
            return
        seats, watchers = self._counts(code)
        self.cluster.send(remote.owner, {"k": "presence", "code": code,
                                         "server": self.cluster.server_id,
                                         "seats": seats, "watchers": watchers})

    def _pass_on(self, connection: Connection, version: tuple[int, int],
                 views: dict[str, str]) -> None:
        text = views.get("w" if connection.seat is None else str(connection.seat))
        if text is not None and version > connection.version:
            connection.version = version
            connection.send(text)

    # -- messages from other servers -----------------------------------------------------

    def take(self, message: dict[str, Any]) -> None:
        """A one-way message from another server."""
        kind = message.get("k")
        code = str(message.get("code"))
        handler = self.message_handlers.get(str(kind))
        if handler is not None:
            handler(message)
        elif kind == "views":
            version = (int(message["version"][0]), int(message["version"][1]))
            views = message["views"]
            remote = self.remote.get(code)
            if remote is not None:
                remote.seq = int(message.get("seq", remote.seq))
            known = self.latest.get(code)
            if known is None or version > known[0]:
                self.latest[code] = (version, views)
            for connection in self.sockets.get(code, ()):
                self._pass_on(connection, version, views)
        elif kind == "deliver":
            watchers_only = bool(message.get("watchers_only"))
            skip = {int(seat) for seat in message.get("skip_seats") or ()}
            for connection in self.sockets.get(code, ()):
                if (not watchers_only or connection.seat is None) \
                        and connection.seat not in skip:
                    connection.send(str(message["text"]))
        elif kind == "presence":
            self._presence(code, str(message.get("server")), message.get("seats") or [],
                           int(message.get("watchers") or 0))
        elif kind == "moved":
            remote = self.remote.get(code)
            if remote is not None:
                remote.owner = None
        elif kind == "take" and not self.leaving:
            remote = self.remote.get(code)
            if remote is not None and self.sockets.get(code):
                task = asyncio.create_task(self._take_handed(remote))
                self.host.keep(task)

    async def _take_handed(self, remote: RemoteTable) -> None:
        try:
            await self._take_over(remote)
        except _Adopted:
            pass  # taken: its sockets are this server's now
        except Exception as error:
            log.warning("table %s could not be taken when handed over: %s",
                        remote.code, error)

    def _presence(self, code: str, server: str, seats: list[int], watchers: int) -> None:
        """A relaying server's sockets at one of this server's tables."""
        table = self.host.tables.get(code)
        if table is None:
            self.cluster.send(server, {"k": "moved", "code": code})
            return
        if self.here.tell(code, server, seats, watchers):
            self.host.refresh(table)

    async def answer(self, op: str, args: dict[str, Any]) -> Any:
        """A call from another server about a table this server owns (or loads now):
        ``{"value": …}``, or ``{"error": …}`` naming what went wrong."""
        code = str(args.get("code"))
        handler = self.call_handlers.get(op)
        if handler is not None:
            return await handler(args)
        if self.leaving and code not in self.host.tables:
            return {"error": "elsewhere", "owner": None}  # the caller takes it: nobody holds it
        handed = self._handed.get(code)
        if handed is not None and code not in self.host.tables:
            if time.monotonic() < handed[1]:
                return {"error": "elsewhere", "owner": handed[0]}
            del self._handed[code]
        try:
            return {"value": await self._answer(op, code, args)}
        except ElsewhereError as error:
            return {"error": "elsewhere", "owner": error.args[1]}
        except UnknownTableError:
            return {"error": "unknown"}
        except ExpiredTableError:
            return {"error": "expired"}
        except UnrestoredTableError as error:
            return {"error": "unrestored", "reason": error.args[1]}
        except JoinError as error:
            return {"error": "join", "message": str(error), "code": error.code}
        except RefusedConnection as error:
            return {"error": "refused", "code": error.code, "message": str(error)}
        except ServerBusyError as error:
            return {"error": "busy", "message": str(error)}
        except StorageError as error:
            return {"error": "storage", "message": str(error)}

    async def _answer(self, op: str, code: str, args: dict[str, Any]) -> Any:
        host = self.host
        if op == "describe":
            return table_info(await host.table(code))
        if op == "join":
            account = args.get("account")
            taken = await host.join_here(
                code, args.get("name"), args.get("seat"),
                None if account is None else (int(account[0]), str(account[1])))
            return list(taken)
        if op == "open":
            table = await host.table(code)
            token = args.get("token")
            vouched = args.get("seat")
            seat: int | None = None if vouched is None else int(vouched)
            if token:
                seat = table.seat_of_token(str(token))
                if seat is None:
                    raise UnknownTokenError()
            seats = [int(n) for n in args.get("seats") or []]
            watchers = int(args.get("watchers") or 0)
            name = ""
            if seat is None:
                watchers += 1
                name = self.here.watcher_name(code)
            else:
                seats += [0] * (seat + 1 - len(seats))
                seats[seat] += 1
            self.here.presence.setdefault(code, {})[str(args["server"])] = (
                seats, watchers, time.monotonic())
            host.opened(table)
            if seat is not None:
                host.seat_came(table, seat)
            else:
                host.refresh(table)
            return {"seat": seat, "watcher_name": name, "seq": table.seq,
                    "state": encode(state_message(table, seat)),
                    "version": list(host.version(code))}
        if op == "intent":
            table = await host.table(code)
            seated = args.get("seat")
            # A stand-in for the other server's socket: what it is sent goes back.
            stand_in = Connection(table, None if seated is None else int(seated),
                                  str(args.get("address") or ""))
            stand_in.watcher_name = str(args.get("watcher") or "")
            try:
                await host.act(stand_in, parse_intent(str(args.get("text"))))
            except TableMovedError:
                handed = self._handed.get(code)
                return {"elsewhere": handed[0] if handed is not None else None}
            except IntentError as refused:
                stand_in.error(refused.code, str(refused), getattr(refused, "params", None))
            sent = []
            while not stand_in.outbox.empty():
                message = stand_in.outbox.get_nowait()
                if message is not None:
                    sent.append(message)
            return {"messages": sent}
        raise ValueError(f"unknown call {op!r}")

    # -- watching owners and leases ------------------------------------------------------

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_EVERY)
            try:
                await self.look()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the look at the cluster's tables failed")

    async def _hand_over(self, now: float) -> None:
        """Hand each table whose sockets are all at one other server over to it (a few
        at a time)."""
        host = self.host
        handed = 0
        for code, servers in list(self.here.presence.items()):
            if handed >= HAND_OVER_MOST:
                break
            table = host.tables.get(code)
            present = [s for s, (seats, watchers, _) in servers.items()
                       if any(seats) or watchers]
            if (table is None or len(present) != 1 or self.here.at.get(code)
                    or host.busy(code)):
                continue
            taker = present[0]
            host.let_go(table)
            self._handed[code] = (taker, now + HANDED_FOR)
            await self.cluster.release(code)
            self.cluster.send(taker, {"k": "take", "code": code})
            self.handovers += 1
            handed += 1
        for code, (_taker, until) in list(self._handed.items()):
            if now >= until:
                del self._handed[code]

    async def _renew(self) -> None:
        """Renew this server's leases every RENEW_EVERY seconds, in a task of its own (so
        that nothing else delays it), and let go of the tables whose lease is lost."""
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                for code in await self.cluster.renew(list(self.host.tables)):
                    table = self.host.tables.get(code)
                    if table is not None:
                        self.lost(table)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the leases could not be renewed")

    async def look(self) -> None:
        """Hand tables over to their players' server, forget silent relays, and check
        the owners of the relayed tables."""
        host = self.host
        now = time.monotonic()
        if now - self._owner_side >= 1.0:
            self._owner_side = now
            await self._hand_over(now)
            for code in self.here.forget_silent(now, PRESENCE_TTL):
                table = host.tables.get(code)
                if table is not None:
                    host.refresh(table)
        codes = [code for code, sockets in self.sockets.items() if sockets]
        for code in list(self.remote):
            if code not in codes:
                self.remote.pop(code, None)
                self.latest.pop(code, None)
        if not codes:
            return
        owners = await self.cluster.owners(codes)
        others = sorted({o for o in owners.values() if o and o != self.cluster.server_id})
        alive = await self.cluster.listening(others)
        remind = now - self._reminded >= PRESENCE_EVERY
        if remind:
            self._reminded = now
        me = self.cluster.server_id
        orphans = [code for code in codes
                   if owners.get(code) is None or owners[code] not in (me, *alive)]
        if orphans:
            await self._take_over_all(orphans)
        for code in codes:
            remote = self.remote.get(code)
            if remote is None or code in host.tables:
                continue
            owner = remote.owner if code in orphans else owners.get(code)
            if remote.owner != owner and owner != me:
                remote.owner = owner
                self._remind(code)
            elif remind:
                self._remind(code)


    async def _take_over_all(self, codes: list[str]) -> None:
        """Take over relayed tables whose owner is gone, :data:`TAKE_OVER_AT_ONCE` at a
        time: a dead server's tables come back together rather than one after another."""
        gate = asyncio.Semaphore(TAKE_OVER_AT_ONCE)

        async def one(code: str) -> None:
            async with gate:
                remote = self.remote.get(code)
                if remote is None or code in self.host.tables:
                    return
                with contextlib.suppress(_Adopted):
                    try:
                        await self._take_over(remote)
                    except (StorageError, KeyError, RuntimeError) as error:
                        log.error("table %s could not be taken over: %s", code, error)

        await asyncio.gather(*(one(code) for code in codes))


_REFUSALS: dict[str, type[RefusedConnection]] = {
    cls.code: cls for cls in (UnknownTokenError, TooManyConnectionsError)}
"""A refused socket's error, by the code another server answered."""


def _unwrap(answer: Any, code: str) -> Any:
    """The value of an owner's answer, or its error raised as this server's exception."""
    if not isinstance(answer, dict):
        raise ServerBusyError("another server answered nonsense")
    error = answer.get("error")
    if error is None:
        return answer.get("value")
    if error == "unknown":
        raise UnknownTableError(code)
    if error == "expired":
        raise ExpiredTableError(code)
    if error == "unrestored":
        raise UnrestoredTableError(code, str(answer.get("reason")))
    if error == "join":
        raise JoinError(str(answer.get("message")), str(answer.get("code") or "seat_taken"))
    if error == "refused":
        refused = _REFUSALS.get(str(answer.get("code")), RefusedConnection)
        raise refused(str(answer.get("message")))
    if error == "storage":
        raise StorageError(str(answer.get("message")))
    raise ServerBusyError(str(answer.get("message") or "the table's server failed"))
