"""The hub: every live table, its connections, its computer players, timers and storage.

The rules of a table are in ``table.py``; the hub drives tables: it takes intents from
sockets, has the computer play, runs the turn and away timers, stores every change and
sends each connection its view (``views.py``).

**Nothing is confirmed before it is stored.** A play, a new table, a seat or a rematch is
written to the database and committed (``basra.store``) before the table changes in memory
and before anyone is sent the new state. One table's intents are handled one at a time
(a lock per table); the store commits many tables' changes together. When storage fails,
tables stop taking plays and every connection is told (``paused`` in the state) until
writes commit again; the play that was being written then, is written then.

Tables live in memory only while someone uses them: a table nobody has connected to
within ``unopened_after`` seconds expires; a table with no connection for ``idle_after``
seconds leaves memory and is loaded again, from the database, when someone comes back.
The computer plays only at tables that someone is connected to.

**Many servers** (``cluster.py``): with a shared cluster, each live table has one owner
server; this hub owns the tables in :attr:`Hub.tables` and *relays* others (``relay.py``):
its sockets at a table owned elsewhere send their intents to the owner and get the owner's
views. The owner counts every server's sockets at its tables (their *presence*) and sends
each relaying server the views of the seats it serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from basra.observe import observe
from basra.players.ratings import computer_key, new_rating, ranks_from_totals
from basra.record import dumps
from basra.store import FencedError, RatedMatch, StorageError, Store, StoreHealth, user_key

from .batching import Batcher
from .cluster import Cluster
from .computer import ComputerPlayers
from .messages import Intent, parse_intent
from .table import IntentError, Table, TableConfig, new_code, new_seed
from .views import seat_list, shared_parts, state_message, table_info

__all__ = [
    "Account",
    "Connection",
    "ElsewhereError",
    "ExpiredTableError",
    "Hub",
    "HubSettings",
    "RefusedConnection",
    "RemoteTable",
    "ServerBusyError",
    "UnknownTableError",
    "UnrestoredTableError",
    "encode",
]

log = logging.getLogger("basra.server")

CHAT_LIMIT = (5, 10.0)
"""Chat messages a connection may send, per so many seconds."""
OUTBOX_LIMIT = 256
"""A connection this far behind is closed (it reconnects and gets the current state)."""


Account = tuple[int, str]
"""A logged-in player's account: (id, name)."""


class UnknownTableError(KeyError):
    """No table has this code."""


class ExpiredTableError(KeyError):
    """The table expired: nobody ever connected to it."""


class ElsewhereError(RuntimeError):
    """Another server owns the table; ``args[1]`` is its id."""


class UnrestoredTableError(RuntimeError):
    """A stored table that could not be rebuilt; ``args[1]`` is the reason."""


class TableMovedError(IntentError):
    """The table left this server (handed or taken over) before an intent was made."""

    def __init__(self) -> None:
        super().__init__("server_error", "this table moved to another server before the "
                                         "play was made: send it again")


class ServerBusyError(RuntimeError):
    """The server cannot take this now (storage failing, too many tables); the message
    says why. Answered 503."""


class RefusedConnection(Exception):
    """A socket the server will not open; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class HubSettings:
    """How a server's tables are run (``basra serve`` options)."""

    bot_delay: float = 0.8
    """Seconds a computer player waits before it plays, so people can follow."""
    away_after: float = 30.0
    """Seconds a seat may have no connection before the computer plays for it."""
    master_ms: int = 300
    """Thinking time of the master per move."""
    master_workers: int | None = None
    """Worker processes of the master (every core but one by default)."""
    warm_master: bool = False
    """Compile the master's search at start-up, in the background (``basra serve``);
    the expert plays the master's moves until it is ready. Off: the first master move
    compiles it (tests, which rarely need it)."""
    unopened_after: float = 120.0
    """A table nobody connected to within this many seconds expires."""
    idle_after: float = 300.0
    """A table with no connection for this many seconds leaves memory."""
    finished_after: float = 60.0
    """A table whose match is over, with no connection for this many seconds, leaves
    memory (its records stay in the database; it is loaded again if someone comes)."""
    sweep_every: float = 5.0
    """Seconds between two looks for tables to expire or put away."""
    max_tables: int = 10_000
    """Most tables in memory; beyond it new tables are refused (503)."""
    seat_connections: int = 4
    """Most sockets per seat; one more closes the oldest."""
    address_connections: int = 64
    """Most sockets per client address."""


@dataclass(eq=False)
class RemoteTable:
    """A table another server owns, as a relaying server knows it."""

    code: str
    owner: str | None
    """The owning server's id (None while it is being found out)."""
    seq: int = 0
    """The ``seq`` of the latest view passed on."""


@dataclass(eq=False)
class Connection:
    """One open socket at a table: a seat's or a watcher's."""

    table: Table | RemoteTable
    seat: int | None
    address: str = ""
    outbox: asyncio.Queue[dict[str, Any] | str | None] = field(default_factory=asyncio.Queue)
    """Messages to send: dicts, or text already encoded (a state shared by a seat's sockets)."""
    opened: float = field(default_factory=time.monotonic)
    watcher_name: str = ""
    """What a watcher is called in the chat (\"Watcher 2\")."""
    chatted: list[float] = field(default_factory=list)
    """When this connection's latest chat messages were sent (monotonic seconds)."""
    version: tuple[int, int] = (0, 0)
    """The (owner epoch, change number) of the latest view a relay passed on."""

    def send(self, message: dict[str, Any] | str) -> None:
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.close()
            return
        self.outbox.put_nowait(message)

    def close(self) -> None:
        """Tell the socket's writer to close it."""
        self.outbox.put_nowait(None)


class Hub:
    """The live tables of one server."""

    def __init__(self, store: Store, settings: HubSettings | None = None,
                 cluster: Cluster | None = None) -> None:
        from .relay import Relay

        self.store = store
        self.settings = settings or HubSettings()
        self.cluster = cluster or Cluster()
        self.relay = Relay(self)
        self.tables: dict[str, Table] = {}
        self.connections: dict[str, set[Connection]] = {}
        self.unrestored: dict[str, str] = {}
        """Stored tables that could not be rebuilt: code -> reason."""
        self.computer = ComputerPlayers(self.settings.master_ms, self.settings.master_workers)
        self._locks: dict[str, asyncio.Lock] = {}
        self._loading: dict[str, asyncio.Future[Table]] = {}
        self._claims = Batcher(store.tables.claim_many)
        """Tables claimed at the same moment (a dead server's) are claimed together."""
        self._reads = Batcher(store.tables.load_many)
        """And read together."""
        self._idle_since: dict[str, float] = {}
        self._per_address: dict[str, int] = {}
        self._next_event: dict[str, asyncio.TimerHandle] = {}
        self._away_timers: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._planned: dict[str, tuple[int, int, bool]] = {}
        """The turn (seq, seat, computer or not) each table's next event is for."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._watchers_seen: dict[str, int] = {}
        """Watchers who have connected to each table (their chat names count up)."""
        self._sweeper: asyncio.Task[None] | None = None
        self.epochs: dict[str, int] = {}
        """The owner epoch this server claimed each of its tables at (shared cluster)."""
        self.presence: dict[str, dict[str, tuple[list[int], int, float]]] = {}
        """Other servers' sockets at this server's tables: code -> server -> (sockets per
        seat, watchers, when last told, monotonic)."""
        self._versions: dict[str, int] = {}
        store.on_health(self._storage_changed)

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the tables active in the last ``idle_after`` seconds (others are loaded
        when someone comes to them), and start the sweeper. A server of a shared cluster
        loads nothing at start: each table is loaded by whichever server is asked for
        it first once its owner is gone."""
        if self.settings.warm_master:
            self.computer.warm()
        await self.cluster.start(self.relay.answer, self.relay.take)
        if not self.cluster.shared:
            since = int((time.time() - self.settings.idle_after) * 1000)
            for saved in await self.store.tables.load_recent(since_ms=since,
                                                       limit=self.settings.max_tables):
                with contextlib.suppress(UnrestoredTableError, ExpiredTableError):
                    await self._rebuild(saved)
        self._sweeper = asyncio.create_task(self._sweep(), name="basra-sweeper")
        self.relay.start()

    async def stop(self) -> None:
        """Cancel timers and pending work; what is confirmed is already stored."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for handle in [*self._next_event.values(), *self._away_timers.values()]:
            handle.cancel()
        self._next_event.clear()
        self._away_timers.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._claims.close()
        await self._reads.close()
        await self.relay.stop()
        if self.cluster.shared:
            for code in list(self.tables):  # another server may take them over at once
                with contextlib.suppress(Exception):
                    await self.cluster.release(code)
        await self.cluster.stop()
        self.computer.close()

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` reports."""
        return {
            "storage": self.store.health.to_dict(),
            "tables": len(self.tables),
            "connections": sum(len(c) for c in self.connections.values()),
            "unrestored": [{"code": code, "error": reason}
                           for code, reason in sorted(self.unrestored.items())],
            "master_queue": self.computer.master_queue,
            "master_ready": self.computer.master_ready,
            "cluster": {**self.cluster.health(), **self.relay.health()},
        }

    # -- finding tables ------------------------------------------------------------------

    async def table(self, code: str) -> Table:
        """The table with this code, loaded from the database if it is not in memory.

        Raises :class:`UnknownTableError`, :class:`ExpiredTableError`,
        :class:`UnrestoredTableError`, or :class:`StorageError` when the database cannot
        be read."""
        found = self.tables.get(code)
        if found is not None:
            return found
        if code in self.unrestored:
            raise UnrestoredTableError(code, self.unrestored[code])
        if not code or len(code) > 32:
            raise UnknownTableError(code)
        loading = self._loading.get(code)
        if loading is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[Table] = asyncio.get_running_loop().create_future()
        self._loading[code] = future
        try:
            started = time.monotonic()
            epoch, taken_from = await self._claim(code)
            claimed = time.monotonic()
            try:
                saved = await self._reads.get(code)
            except Exception as error:
                raise StorageError(f"the database could not be read: {error}") from None
            if saved is None:
                raise UnknownTableError(code)
            if epoch is not None:
                self.epochs[code] = epoch
            read = time.monotonic()
            table = await self._rebuild(saved)
            table.load_seconds = (claimed - started, read - claimed,
                                  time.monotonic() - read)
            if taken_from is not None:
                self.relay.took_over(table, taken_from)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: other waiters re-raise it
            raise
        else:
            future.set_result(table)
            return table
        finally:
            del self._loading[code]

    async def _claim(self, code: str) -> tuple[int | None, str | None]:
        """In a shared cluster, take the table's lease (from a dead owner too) and raise
        its owner epoch in the database: the epoch, and the dead server it was taken
        from. Raises :class:`ElsewhereError` when a live server holds the lease,
        :class:`UnknownTableError` when no table has the code. (None, None) alone."""
        if not self.cluster.shared:
            return None, None
        lease = await self.relay.lease(code)
        if lease.holder is not None:
            raise ElsewhereError(code, lease.holder)
        try:
            epoch = await self._claims.get(code)
        except BaseException:
            self._spawn(self.cluster.release(code))
            raise
        if epoch is None:
            self._spawn(self.cluster.release(code))
            raise UnknownTableError(code)
        return epoch, lease.taken_from

    async def _rebuild(self, saved: Any) -> Table:
        """A stored table back in memory, replayed move by move."""
        if saved.status == "expired":
            raise ExpiredTableError(saved.code)
        try:
            table = Table(saved.code, TableConfig.from_dict(saved.config), saved.seed,
                          saved.match_number)
            for seat, (name, hashed) in saved.seats.items():
                table.take_seat(seat, name, hashed, saved.accounts.get(seat))
            table.restore(saved.moves)
        except Exception as error:
            reason = f"{type(error).__name__}: {error}"
            self.unrestored[saved.code] = reason
            self.epochs.pop(saved.code, None)
            log.error("TABLE %s COULD NOT BE RESTORED from the database (%s); its players "
                      "are told, and /healthz lists it", saved.code, reason)
            raise UnrestoredTableError(saved.code, reason) from None
        table.opened = saved.opened
        table.record_ids = [record_id for record_id, _ in saved.records]
        finished = [record_id for record_id, match_number in saved.records
                    if match_number == table.match_number]
        table.last_record_id = finished[-1] if finished else None
        await self._load_ratings(table)
        if table.config.rated and table.last_record_id is not None:
            changes = await self.store.ratings.changes(table.last_record_id)
            if changes or await self.store.ratings.is_rated(table.last_record_id):
                table.rating_changes = [change.to_dict() for change in changes]
        self._add(table)
        if table.status == "finished" and table.last_record_id is None:
            # Stopped between the last play and its record: write the record now.
            self._spawn(self._save_record(table, announce=True))
        elif table.status != saved.status:
            self._spawn(self.store.tables.set_status(table.code, table.status))
        self._plan(table)
        return table

    def _add(self, table: Table) -> None:
        table.paused = None if self.store.health.ok else "storage"
        self.tables[table.code] = table
        self.connections[table.code] = set()
        self._locks[table.code] = asyncio.Lock()
        self._idle_since[table.code] = time.monotonic()

    def _remove(self, table: Table, release: bool = True) -> None:
        """The table leaves memory (and, in a shared cluster, its lease is given up,
        unless it was lost)."""
        code = table.code
        if self.cluster.shared and self.tables.get(code) is table:
            self.epochs.pop(code, None)
            self.presence.pop(code, None)
            self._versions.pop(code, None)
            if release:
                self._spawn(self.cluster.release(code))
        self.tables.pop(code, None)
        self.connections.pop(code, None)
        self._locks.pop(code, None)
        self._idle_since.pop(code, None)
        self._planned.pop(code, None)
        handle = self._next_event.pop(code, None)
        if handle is not None:
            handle.cancel()
        for seat in range(table.rules.players):
            timer = self._away_timers.pop((code, seat), None)
            if timer is not None:
                timer.cancel()
        self.computer.forget(code)
        self._watchers_seen.pop(code, None)

    # -- tables and seats ----------------------------------------------------------------

    def _require_storage(self) -> None:
        if not self.store.health.ok:
            raise ServerBusyError(
                "the server cannot save anything right now (its storage is failing): "
                "try again in a moment")

    async def _load_ratings(self, table: Table) -> None:
        """Read the ratings of the table's accounts in its pool."""
        ids = [account[0] for account in table.accounts if account is not None]
        if not ids:
            return
        stored = await self.store.ratings.of_accounts(ids, table.config.pool)
        for seat, account in enumerate(table.accounts):
            if account is not None:
                rating = stored.get((account[0], table.config.pool)) or new_rating()
                table.ratings[seat] = rating.display

    async def create_table(self, config: TableConfig, name: object = None,
                           account: Account | None = None
                           ) -> tuple[Table, int | None, str | None]:
        """A new table, stored; the caller takes its first human seat, if it has one
        (for its ``account`` when logged in)."""
        table, seated = await self.seat_players(config, [(name, account)], first_free=True)
        seat, token = seated[0] if seated else (None, None)
        return table, seat, token

    async def seat_players(self, config: TableConfig,
                           players: list[tuple[object, Account | None] | None],
                           first_free: bool = False) -> tuple[Table, list[tuple[int, str]]]:
        """A new table, stored, whose human seats are taken by ``players`` at once,
        one per seat in order ((name, account), None for a seat left free); with
        ``first_free`` the players take the first free seats instead. Returns the table
        and each seated player's (seat, token)."""
        self._require_storage()
        if len(self.tables) >= self.settings.max_tables:
            raise ServerBusyError(f"the server has {len(self.tables)} tables open, its "
                                  "most: try again later")
        code = new_code()
        while code in self.tables or (await self.relay.lease(code)).holder is not None:
            code = new_code()
        epoch = 1 if self.cluster.shared else 0
        table = Table(code, config, new_seed())
        seated: list[tuple[int, str]] = []
        for index, player in enumerate(players):
            if player is None or not table.free_seats():
                continue
            name, account = player
            seated.append(table.join(name, None if first_free else index, account))
        if table.ready():
            table.start()
        await self._load_ratings(table)
        try:
            await self.store.tables.create(
                code, config.to_dict(), table.seed,
                [(s, table.names[s] or "", hashed) for s, hashed in table.token_hashes.items()],
                status=table.status,
                accounts={s: a[0] for s, a in enumerate(table.accounts) if a is not None},
                epoch=epoch)
        except StorageError as error:
            if self.cluster.shared:
                self._spawn(self.cluster.release(code))
            raise ServerBusyError(f"the table could not be saved: {error}") from None
        if self.cluster.shared:
            self.epochs[code] = epoch
        self._add(table)
        self._changed(table)
        return table, seated

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

    async def describe(self, code: str) -> dict[str, Any]:
        """The table's public description (``GET /api/tables/{code}``), from its owner."""
        async def here(table: Table) -> dict[str, Any]:
            return table_info(table)

        described: dict[str, Any] = await self.relay.at_owner(code, "describe", {}, here)
        return described

    async def open_tables(self) -> list[dict[str, Any]]:
        """The tables waiting for players in free seats (the lobby's list): this
        server's alone, or every server's (from the database) in a shared cluster."""
        def listed(table: Table) -> dict[str, Any]:
            return {"code": table.code, "variant": table.config.variant,
                    "players": table.rules.players, "status": table.status,
                    "seats": seat_list(table)}

        if not self.cluster.shared:
            return [listed(t) for t in self.tables.values()
                    if t.status == "waiting" and t.free_seats()]
        since = int((time.time() - self.settings.idle_after) * 1000)
        found = []
        for saved in await self.store.tables.load_recent(since_ms=since, limit=200,
                                                   statuses=("waiting",)):
            table = self.tables.get(saved.code)
            if table is None:
                try:
                    table = Table(saved.code, TableConfig.from_dict(saved.config),
                                  saved.seed, saved.match_number)
                    for seat, (name, hashed) in saved.seats.items():
                        table.take_seat(seat, name, hashed, saved.accounts.get(seat))
                except Exception:
                    continue
            if table.status == "waiting" and table.free_seats():
                found.append(listed(table))
        return found

    async def join_here(self, code: str, name: object, seat: object = None,
                        account: Account | None = None) -> tuple[int, str]:
        """:meth:`join` at a table this server owns."""
        table = await self.table(code)
        self._require_storage()
        async with self._locks[code]:
            if account is not None and any(a is not None and a[0] == account[0]
                                           for a in table.accounts):
                account = None  # a second seat of the same account plays as a guest
            taken, token = table.join(name, seat, account)
            starts = table.ready()
            try:
                await self.store.tables.save_seat(code, taken, table.names[taken] or "",
                                           table.token_hashes[taken],
                                           status="playing" if starts else None,
                                           user_id=None if account is None else account[0],
                                           epoch=self.epochs.get(code))
            except FencedError:
                table.leave_seat(taken)
                self.relay.lost(table)
                raise ServerBusyError("the table moved to another server: "
                                      "try again") from None
            except StorageError as error:
                table.leave_seat(taken)
                raise ServerBusyError(f"the seat could not be saved: {error}") from None
            if starts:
                table.start()
        if account is not None:
            await self._load_ratings(table)
        self._changed(table)
        return taken, token

    # -- connections ---------------------------------------------------------------------

    async def open_socket(self, code: str, token: str | None, address: str = ""
                          ) -> Connection:
        """A new socket at a table, for the seat its ``token`` holds (a watcher's without
        one), wherever the table's owner is; it is sent the current state at once.

        Raises :class:`UnknownTableError`, :class:`ExpiredTableError`,
        :class:`UnrestoredTableError`, :class:`StorageError`, :class:`ServerBusyError`
        (the owner cannot be reached) or :class:`RefusedConnection` (``unknown_token``,
        too many sockets)."""
        self.count_address(address)
        found = await self.relay.place(code)
        if isinstance(found, RemoteTable):
            return await self.relay.open(found, token, address)
        seat = None
        if token:
            seat = found.seat_of_token(token)
            if seat is None:
                raise RefusedConnection("unknown_token",
                                        "this token holds no seat at this table; join again")
        return self.connect(found, seat, address)

    def count_address(self, address: str) -> None:
        """Raise :class:`RefusedConnection` when the address has its most sockets open."""
        if self._per_address.get(address, 0) >= self.settings.address_connections:
            raise RefusedConnection(
                "too_many_connections",
                f"{address} has {self.settings.address_connections} sockets open, the most "
                "allowed: close some")

    def add_address(self, address: str, change: int) -> None:
        left = self._per_address.get(address, 0) + change
        if left > 0:
            self._per_address[address] = left
        else:
            self._per_address.pop(address, None)

    def watcher_name(self, code: str) -> str:
        """The chat name of a table's next watcher (\"Watcher 2\")."""
        number = self._watchers_seen.get(code, 0) + 1
        self._watchers_seen[code] = number
        return f"Watcher {number}"

    def opened(self, table: Table) -> None:
        """Someone came to the table: it never expires as unopened."""
        if not table.opened:
            table.opened = True
            self._spawn(self.store.tables.mark_opened(table.code))

    def connect(self, table: Table, seat: int | None, address: str = "") -> Connection:
        """A new socket at a table this server owns; it is sent the current state at once.

        Raises :class:`RefusedConnection` when the address has too many sockets open; a
        seat's sockets beyond ``seat_connections`` close the oldest."""
        self.count_address(address)
        connection = Connection(table, seat, address)
        if seat is None:
            connection.watcher_name = self.watcher_name(table.code)
        self.add_address(address, 1)
        self.connections[table.code].add(connection)
        self._idle_since.pop(table.code, None)
        self.opened(table)
        if seat is None:
            connection.send(state_message(table, None))
            self._plan(table)
            return connection
        same_seat = sorted((c for c in self.connections[table.code] if c.seat == seat),
                           key=lambda c: c.opened)
        for old in same_seat[:max(0, len(same_seat) - self.settings.seat_connections)]:
            old.send({"type": "error", "code": "replaced", "seq": table.seq,
                      "message": "this seat was opened in more places; this one is closed"})
            old.close()
        self.seat_came(table, seat)
        return connection

    def seat_came(self, table: Table, seat: int) -> None:
        """A socket for a seat opened (here or at a relaying server)."""
        self.recount(table)
        timer = self._away_timers.pop((table.code, seat), None)
        if timer is not None:
            timer.cancel()
        table.away.discard(seat)  # a returning player takes the seat back
        self._changed(table)

    def recount(self, table: Table) -> None:
        """Count the sockets of each seat: this server's and relaying servers'."""
        counts = [0] * table.rules.players
        for connection in self.connections.get(table.code, ()):
            if connection.seat is not None:
                counts[connection.seat] += 1
        for seats, _watchers, _when in self.presence.get(table.code, {}).values():
            for seat, count in enumerate(seats[:len(counts)]):
                counts[seat] += max(0, count)
        table.connections = counts

    def attended(self, code: str) -> bool:
        """Whether anyone, on any server, has a socket open at the table."""
        return bool(self.connections.get(code)) or any(
            any(seats) or watchers
            for seats, watchers, _when in self.presence.get(code, {}).values())

    def disconnect(self, connection: Connection) -> None:
        self.add_address(connection.address, -1)
        table = connection.table
        if isinstance(table, RemoteTable):
            self.relay.closed(connection)
            return
        at_table = self.connections.get(table.code)
        if at_table is None or connection not in at_table:
            return
        at_table.discard(connection)
        if not self.attended(table.code):
            self._idle_since[table.code] = time.monotonic()
        if connection.seat is not None:
            self.recount(table)
            self._changed(table)

    def _watch_absent(self, table: Table) -> None:
        """Start the away timer of every human seat with no connection in a running match
        (gone, or never come: a table must not wait forever for anyone)."""
        if table.status != "playing":
            return
        loop = asyncio.get_running_loop()
        for seat in range(table.rules.players):
            key = (table.code, seat)
            if (table.is_human(seat) and table.connections[seat] == 0
                    and seat not in table.away and key not in self._away_timers):
                self._away_timers[key] = loop.call_later(
                    self.settings.away_after, self._gone_away, table, seat)

    def _gone_away(self, table: Table, seat: int) -> None:
        self._away_timers.pop((table.code, seat), None)
        if (self.tables.get(table.code) is table and table.connections[seat] == 0
                and table.status == "playing"):
            table.away.add(seat)
            self._changed(table)

    def error(self, connection: Connection, code: str, message: str) -> None:
        connection.send({"type": "error", "code": code, "message": message,
                         "seq": connection.table.seq})

    async def receive(self, connection: Connection, text: str) -> None:
        """Handle one message from a socket: act on it, or answer an error to it alone.

        A message being handled is finished even if its socket closes meanwhile: a play
        committed to the database is always made at its table too."""
        await asyncio.shield(self._handle(connection, text))

    async def _handle(self, connection: Connection, text: str) -> None:
        try:
            intent = parse_intent(text)
            if intent.kind == "chat":
                self._chat_allowed(connection)
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
            self.error(connection, refused.code, str(refused))
        except Exception:  # a bug must not take the table or the server down
            log.exception("a message at table %s failed", connection.table.code)
            self.error(connection, "server_error", "the server could not handle this message")

    async def act(self, connection: Connection, intent: Intent) -> None:
        """Act on an intent of a socket at a table this server owns (its own socket, or
        a relaying server's stand-in for one)."""
        table = connection.table
        assert isinstance(table, Table)
        if intent.kind == "ping":
            connection.send({"type": "pong"})
            return
        if intent.kind == "chat":
            self._chat(connection, intent)
            return
        seat = connection.seat
        if seat is None:
            raise IntentError("not_seated", f"watchers cannot send {intent.kind!r}")
        if intent.kind == "chat_consent":
            if not table.is_human(seat):
                raise IntentError("not_seated", "only a player's seat agrees to the chat")
            if intent.allow:
                table.chat_consent.add(seat)
            else:
                table.chat_consent.discard(seat)
            self._changed(table)
            return
        if intent.kind == "back":
            if seat in table.away:
                table.away.discard(seat)
                self._changed(table)
            else:
                connection.send(state_message(table, seat))
            return
        if not self.store.health.ok:
            raise IntentError("storage_down", "the server cannot save plays right now (its "
                              "storage is failing); play resumes when it works again")
        if self.tables.get(table.code) is not table:
            raise TableMovedError()
        async with self._locks[table.code]:
            if self.tables.get(table.code) is not table:
                raise TableMovedError()  # handed or taken over while this waited its turn
            if intent.kind == "rematch":
                await self._rematch(table)
            else:
                assert intent.seq is not None and intent.card is not None
                move = table.resolve_play(seat, intent.seq, intent.card, intent.captured)
                await self._commit(table, move, mover=seat)
                table.away.discard(seat)  # playing is coming back
        self._changed(table)

    # -- chat ----------------------------------------------------------------------------

    @staticmethod
    def _chat_allowed(connection: Connection) -> None:
        """Count a chat message of a socket (at the server the socket is open to), or
        raise ``chat_limit``."""
        now = time.monotonic()
        most, seconds = CHAT_LIMIT
        connection.chatted = [at for at in connection.chatted if now - at < seconds]
        if len(connection.chatted) >= most:
            raise IntentError("chat_limit", f"at most {most} chat messages per "
                              f"{seconds:g} seconds: wait a moment")
        connection.chatted.append(now)

    def _chat(self, connection: Connection, intent: Intent) -> None:
        """Pass a chat message on: a player's to everyone at the table, a watcher's to
        the watchers only. Nothing else is in it: the table's state does not change."""
        table = connection.table
        assert isinstance(table, Table)
        if intent.text is not None and not table.free_text:
            raise IntentError("free_text_off", "free text is off at this table (every "
                              "player must agree to it); send a phrase")
        seat = connection.seat
        sender: dict[str, Any] = (
            {"watcher": True, "name": connection.watcher_name} if seat is None
            else {"seat": seat, "name": table.names[seat]})
        message: dict[str, Any] = {"type": "chat", "from": sender}
        if intent.phrase is not None:
            message["phrase"] = intent.phrase
        else:
            message["text"] = intent.text
        self.broadcast(table, encode(message), watchers_only=seat is None)

    def broadcast(self, table: Table, text: str, watchers_only: bool = False) -> None:
        """Send every socket at the table a message (only the watchers' with
        ``watchers_only``), on every server."""
        for other in self.connections.get(table.code, ()):
            if not watchers_only or other.seat is None:
                other.send(text)
        for server in self.presence.get(table.code, {}):
            self.cluster.send(server, {"k": "deliver", "code": table.code, "text": text,
                                       "watchers_only": watchers_only})

    # -- play ----------------------------------------------------------------------------

    async def _commit(self, table: Table, move: int, mover: int | None = None) -> None:
        """Store a legal move, then play it (call with the table's lock held); ``mover``
        is the human seat that played it itself, if one did."""
        try:
            await self.store.tables.add_move(table.code, table.match_number, table.seq, move,
                                      epoch=self.epochs.get(table.code))
        except FencedError:
            self.relay.lost(table)
            raise IntentError("server_error", "the table moved to another server, so the "
                              "play was not made: send it again") from None
        except StorageError as error:
            raise IntentError("server_error",
                              f"the play could not be saved, so it was not made: {error}"
                              ) from None
        table.apply(move)
        if table.status == "finished":
            await self._save_record(table, mover=mover)

    async def _save_record(self, table: Table, announce: bool = False,
                           mover: int | None = None) -> None:
        """Store the finished match's record, with the human seats the computer was
        playing for at the end (but ``mover``, who made the last play itself); with
        ``announce``, send the table's connections the state that names it."""
        number = table.match_number
        record = table.record()
        finished_for = sorted(seat for seat in table.away if seat != mover)
        rated = self._rated_match(table)
        try:
            record_id = await self.store.records.save(table.code, number, record,
                                                     dumps(record), finished_for, rated)
        except StorageError:
            log.exception("the record of table %s, match %d, could not be stored; it "
                          "is written when the table is loaded again", table.code, number)
            return
        changes = None
        if rated is not None:
            try:
                changes = await self.store.ratings.changes(record_id)
            except Exception:
                log.exception("the rating changes of record %d could not be read", record_id)
        if record_id not in table.record_ids:
            table.record_ids.append(record_id)
        if table.match_number == number:
            table.last_record_id = record_id
            if changes is not None:
                table.rating_changes = [change.to_dict() for change in changes]
                for change in changes:
                    table.ratings[change.seat] = change.after
            if announce:
                self._changed(table)

    @staticmethod
    def _rated_match(table: Table) -> RatedMatch | None:
        """What rates a rated table's finished match: every human seat counts for its
        account (also when the computer finished the match for it), every computer seat
        plays at its level's fixed rating. None at a casual table, or when a human seat
        has no account (nothing is rated then)."""
        match = table.match
        if not table.config.rated or match is None or match.winner is None:
            return None
        players: list[str] = []
        for seat in range(table.rules.players):
            account = table.accounts[seat]
            if table.is_human(seat):
                if account is None:
                    log.warning("rated table %s has no account at seat %d: not rated",
                                table.code, seat)
                    return None
                players.append(user_key(account[0]))
            else:
                players.append(computer_key(table.level_for(seat)))
        return RatedMatch(table.config.pool, tuple(players), tuple(table.rules.side_of),
                          tuple(ranks_from_totals(list(match.totals), match.winner)))

    async def _rematch(self, table: Table) -> None:
        if table.match is None or not table.match.is_over:
            raise IntentError("not_over", "the match is not over yet")
        seed = new_seed()
        try:
            await self.store.tables.start_match(table.code, table.match_number + 1, seed,
                                         epoch=self.epochs.get(table.code))
        except FencedError:
            self.relay.lost(table)
            raise IntentError("server_error", "the table moved to another server: "
                              "ask again") from None
        except StorageError as error:
            raise IntentError("server_error",
                              f"the rematch could not be saved: {error}") from None
        table.rematch(seed)

    def _storage_changed(self, health: StoreHealth) -> None:
        """Storage failed or came back: tell every table; resume play when it is back."""
        paused = None if health.ok else "storage"
        for table in list(self.tables.values()):
            table.paused = paused
            if health.ok:
                self._planned.pop(table.code, None)  # fresh timers for everyone
            self._changed(table)

    def _changed(self, table: Table) -> None:
        """Plan the table's next event, then send every connection its view (and every
        relaying server the views of the seats it serves)."""
        self._plan(table)
        code = table.code
        connections = self.connections.get(code, ())
        presence = self.presence.get(code)
        if not connections and not presence:
            return
        shared = shared_parts(table)
        texts: dict[int | None, str] = {}

        def text_for(seat: int | None) -> str:
            text = texts.get(seat)
            if text is None:
                text = texts[seat] = encode(state_message(table, seat, shared))
            return text

        for connection in connections:
            connection.send(text_for(connection.seat))
        if presence:
            version = self._versions.get(code, 0) + 1
            self._versions[code] = version
            for server, (seats, watchers, _when) in presence.items():
                views = {str(seat): text_for(seat)
                         for seat, count in enumerate(seats) if count > 0}
                if watchers:
                    views["w"] = text_for(None)
                self.cluster.send(server, {"k": "views", "code": code, "seq": table.seq,
                                           "version": [self.epochs.get(code, 0), version],
                                           "views": views})

    def changed(self, table: Table) -> None:
        """Something about the table changed: plan its next event and send the views."""
        self._changed(table)

    def busy(self, code: str) -> bool:
        """Whether an intent or a computer move is being handled at the table now."""
        lock = self._locks.get(code)
        return lock is not None and lock.locked()

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Keep a background task until it ends (its failure is logged)."""
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def forget(self, table: Table) -> None:
        """The table leaves memory without giving up a lease (it was lost already)."""
        self._remove(table, release=False)

    def version(self, code: str) -> tuple[int, int]:
        """The (owner epoch, change number) of the table's latest views."""
        return self.epochs.get(code, 0), self._versions.get(code, 0)

    def _plan(self, table: Table) -> None:
        """Arm the table's next event, unless the same turn already has one (comings and
        goings must not restart a turn timer or delay a computer move). Nothing is armed
        at a table nobody is connected to, or while storage fails."""
        self._watch_absent(table)
        seat = table.to_play()
        seq = table.seq
        attended = self.attended(table.code) and table.paused is None
        turn = None if seat is None or not attended else (seq, seat, table.computer_plays(seat))
        if turn is not None and table.code in self._next_event \
                and self._planned.get(table.code) == turn:
            return
        handle = self._next_event.pop(table.code, None)
        if handle is not None:
            handle.cancel()
        self._planned.pop(table.code, None)
        table.deadline_ms = None
        if seat is None or turn is None:
            return
        self._planned[table.code] = turn
        loop = asyncio.get_running_loop()
        if table.computer_plays(seat):
            match = table.match
            assert match is not None
            fresh_deal = not match.deals[-1].plays and len(match.deals) > 1
            delay = self.settings.bot_delay * (3 if fresh_deal else 1)
            self._next_event[table.code] = loop.call_later(
                delay, self._spawn_later, lambda: self._computer_move(table, seat, seq))
        elif table.config.turn_seconds:
            seconds = table.config.turn_seconds
            table.deadline_ms = int((time.time() + seconds) * 1000)
            self._next_event[table.code] = loop.call_later(
                seconds, self._time_out, table, seat, seq)

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        self.keep(asyncio.ensure_future(work))

    def _spawn_later(self, work: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        self._spawn(work())

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a table task failed", exc_info=task.exception())

    def _time_out(self, table: Table, seat: int, seq: int) -> None:
        self._next_event.pop(table.code, None)
        if table.seq == seq and table.to_play() == seat and not table.computer_plays(seat):
            table.away.add(seat)
            self._changed(table)

    async def _computer_move(self, table: Table, seat: int, seq: int) -> None:
        self._next_event.pop(table.code, None)
        self._planned.pop(table.code, None)

        def still_its_turn() -> bool:
            return (self.tables.get(table.code) is table and table.seq == seq
                    and table.to_play() == seat and table.computer_plays(seat)
                    and table.paused is None and self.store.health.ok)

        if not still_its_turn():
            return
        match = table.match
        assert match is not None
        choice = await self.computer.choose(table.code, table.level_for(seat),
                                            observe(match, seat))
        lock = self._locks.get(table.code)
        if lock is None:
            return  # the table left memory meanwhile
        async with lock:
            if not still_its_turn():
                return  # the player came back and played meanwhile, or storage failed
            try:
                await self._commit(table, choice.move)
            except IntentError:
                log.error("the computer's move at table %s could not be saved", table.code)
                return
        if choice.note is not None:
            self.broadcast(table, encode({
                "type": "notice", "code": choice.note, "seat": seat,
                "message": "the master is busy: the expert played this move"}))
        self._changed(table)

    # -- memory --------------------------------------------------------------------------

    async def _sweep(self) -> None:
        """Expire unopened tables and put idle ones away, for ever."""
        while True:
            await asyncio.sleep(self.settings.sweep_every)
            try:
                await self.sweep()
            except Exception:
                log.exception("the table sweep failed")

    async def sweep(self) -> None:
        """One look at every table with no connection: an unopened one past
        ``unopened_after`` expires; any past ``idle_after`` (``finished_after`` once its
        match is over) leaves memory."""
        now = time.monotonic()
        for code, since in list(self._idle_since.items()):
            table = self.tables.get(code)
            if table is None or self.attended(code) or self._locks[code].locked():
                continue
            if not table.opened and now - since >= self.settings.unopened_after:
                await self._expire(table)
            elif now - since >= (self.settings.finished_after if table.status == "finished"
                                 else self.settings.idle_after):
                self._remove(table)

    async def _expire(self, table: Table) -> None:
        """An unopened table expires: out of memory, and marked so in the database
        (whoever asks for it meanwhile waits, then hears that it expired)."""
        code = table.code
        waiting: asyncio.Future[Table] = asyncio.get_running_loop().create_future()
        self._loading[code] = waiting
        self._remove(table)
        try:
            await self.store.tables.set_status(code, "expired")
        except StorageError:
            self._add(table)  # kept; tried again at the next sweep
            waiting.set_result(table)
        else:
            log.info("table %s expired: nobody came to it", code)
            waiting.set_exception(ExpiredTableError(code))
            waiting.exception()
        finally:
            del self._loading[code]


def encode(message: dict[str, Any]) -> str:
    """A message as the JSON text sent on the socket."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)

