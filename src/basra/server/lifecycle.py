"""The life of a table in memory: made, seated, loaded, claimed, expired, put away.

A new table, a seat or a rematch is stored before the table changes in memory.
Tables live in memory only while someone uses them: a table nobody has connected to
within ``unopened_after`` seconds expires; a table with no connection for ``idle_after``
seconds leaves memory and is loaded again, from the database, when someone comes back.
In a shared cluster (``cluster.py``) a table is loaded by the server that takes its
lease, and its owner epoch is raised in the database (writes of an older owner are
then fenced off).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from basra.players.ratings import new_rating
from basra.store import FencedError, StorageError, Store

from .batching import Batcher
from .cluster import Cluster, Lease
from .connections import Account
from .errors import (
    ElsewhereError,
    ExpiredTableError,
    ServerBusyError,
    UnknownTableError,
    UnrestoredTableError,
)
from .play import TablePlay
from .settings import HubSettings
from .sockets import Sockets
from .table import Table, TableConfig, new_code, new_seed
from .views import seat_list

__all__ = ["Tables"]

log = logging.getLogger("basra.server")


class Tables:
    """This server's tables: finding, loading, claiming, making, seating, expiring."""

    def __init__(self, store: Store, settings: HubSettings, cluster: Cluster,
                 sockets: Sockets, play: TablePlay, tables: dict[str, Table],
                 epochs: dict[str, int]) -> None:
        self.store = store
        self.settings = settings
        self.cluster = cluster
        self.sockets = sockets
        self.play = play
        self.tables = tables
        """The tables in memory, by code."""
        self.epochs = epochs
        """The owner epoch this server claimed each of its tables at (shared cluster)."""
        self.unrestored: dict[str, str] = {}
        """Stored tables that could not be rebuilt: code -> reason."""
        self.took_over: Callable[[Table, str], None] = lambda table, gone: None
        """Called with a table loaded from a dead server, and that server's id."""
        self._loading: dict[str, asyncio.Future[Table]] = {}
        self._claims = Batcher(store.tables.claim_many)
        """Tables claimed at the same moment (a dead server's) are claimed together."""
        self._reads = Batcher(store.tables.load_many)
        """And read together."""
        self._idle_since: dict[str, float] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.draining = False
        """Whether the server is stopping (SIGTERM): it makes no new tables."""

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the tables active in the last ``idle_after`` seconds (alone; a server of
        a shared cluster loads a table when it is asked for it), and start the sweeper."""
        if not self.cluster.shared:
            since = int((time.time() - self.settings.idle_after) * 1000)
            for saved in await self.store.tables.load_recent(since_ms=since,
                                                             limit=self.settings.max_tables):
                with contextlib.suppress(UnrestoredTableError, ExpiredTableError):
                    await self._rebuild(saved)
        self._sweeper = asyncio.create_task(self._sweep(), name="basra-sweeper")

    def stop_sweeping(self) -> None:
        """Stop the sweeper."""
        if self._sweeper is not None:
            self._sweeper.cancel()

    async def stop(self) -> None:
        """Stop the sweeper and the batched claims and reads."""
        self.stop_sweeping()
        await self._claims.close()
        await self._reads.close()

    # -- finding tables ------------------------------------------------------------------

    async def lease(self, code: str) -> Lease:
        """Take a table's lease (from a dead owner too), or learn who holds it. Raises
        :class:`ServerBusyError` when Redis cannot be reached."""
        try:
            lease: Lease = await self.cluster.acquire(code)
        except Exception as error:
            raise ServerBusyError(f"the servers' shared Redis cannot be reached ({error}): "
                                  "try again in a moment") from None
        return lease

    async def table(self, code: str) -> Table:
        """The table with this code, loaded from the database if it is not in memory.

        Raises :class:`UnknownTableError`, :class:`ExpiredTableError`,
        :class:`UnrestoredTableError`, :class:`ElsewhereError` (another live server owns
        it), or :class:`StorageError` when the database cannot be read."""
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
                self.took_over(table, taken_from)
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
        lease = await self.lease(code)
        if lease.holder is not None:
            raise ElsewhereError(code, lease.holder)
        try:
            epoch = await self._claims.get(code)
        except BaseException:
            self.play.spawn(self.cluster.release(code))
            raise
        if epoch is None:
            self.play.spawn(self.cluster.release(code))
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
            table.load_conduct(saved.conduct)  # (first: a resignation decides the end)
            table.restore(saved.moves, saved.movers)
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
        if (table.status == "finished" and table.last_record_id is None
                and table.aborted is None):  # (an aborted match has no record)
            # Stopped between the last play and its record: write the record now.
            self.play.spawn(self.play.save_record(table, announce=True))
        elif table.status != saved.status:
            self.play.spawn(self.store.tables.set_status(table.code, table.status))
        self.play.plan(table)
        return table

    def _add(self, table: Table) -> None:
        table.paused = None if self.store.health.ok else "storage"
        self.tables[table.code] = table
        self.sockets.add_table(table.code)
        self.play.add_table(table)
        self._idle_since[table.code] = time.monotonic()

    def remove(self, table: Table, release: bool = True) -> None:
        """The table leaves memory (and, in a shared cluster, its lease is given up,
        unless it was lost already)."""
        code = table.code
        shared = self.cluster.shared and self.tables.get(code) is table
        if shared:
            self.epochs.pop(code, None)
            if release:
                self.play.spawn(self.cluster.release(code))
        self.sockets.remove_table(code, shared)
        self.tables.pop(code, None)
        self._idle_since.pop(code, None)
        self.play.remove_table(table)

    # -- comings and goings --------------------------------------------------------------

    def opened(self, table: Table) -> None:
        """Someone came to the table: it never expires as unopened."""
        if not table.opened:
            table.opened = True
            self.play.spawn(self.store.tables.mark_opened(table.code))

    def attended(self, table: Table) -> None:
        """A socket of this server's opened at the table: it is not idle."""
        self._idle_since.pop(table.code, None)

    def left(self, table: Table) -> None:
        """A socket at the table closed: it starts idling if it was the last one."""
        if not self.sockets.attended(table.code):
            self._idle_since[table.code] = time.monotonic()

    # -- tables and seats ----------------------------------------------------------------

    def require_storage(self) -> None:
        """Raise :class:`ServerBusyError` while storage fails."""
        if not self.store.health.ok:
            raise ServerBusyError(
                "the server cannot save anything right now (its storage is failing): "
                "try again in a moment")

    async def _load_ratings(self, table: Table) -> None:
        """Read the ratings of the table's accounts in its pool, and which are bots."""
        ids = [account[0] for account in table.accounts if account is not None]
        if not ids:
            return
        bots = await self.store.accounts.bots_among(ids)
        table.bots = {seat for seat, account in enumerate(table.accounts)
                      if account is not None and account[0] in bots}
        stored = await self.store.ratings.of_accounts(ids, table.config.pool)
        for seat, account in enumerate(table.accounts):
            if account is not None:
                rating = stored.get((account[0], table.config.pool)) or new_rating()
                table.ratings[seat] = rating.display

    async def seat_players(self, config: TableConfig,
                           players: list[tuple[object, Account | None] | None],
                           first_free: bool = False) -> tuple[Table, list[tuple[int, str]]]:
        """A new table, stored, whose human seats are taken by ``players`` at once,
        one per seat in order ((name, account), None for a seat left free); with
        ``first_free`` the players take the first free seats instead. Returns the table
        and each seated player's (seat, token)."""
        self.require_storage()
        if self.draining:
            raise ServerBusyError("the server is restarting: try again in a moment")
        if len(self.tables) >= self.settings.max_tables:
            raise ServerBusyError(f"the server has {len(self.tables)} tables open, its "
                                  "most: try again later")
        code = new_code()
        while code in self.tables or (await self.lease(code)).holder is not None:
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
                self.play.spawn(self.cluster.release(code))
            raise ServerBusyError(f"the table could not be saved: {error}") from None
        if self.cluster.shared:
            self.epochs[code] = epoch
        self._add(table)
        if table.match is not None:
            self.play.games(table, "start")
        if config.rated and table.match is not None:
            await self.play.rated_start(table)
        self.play.changed(table)
        return table, seated

    async def join_here(self, code: str, name: object, seat: object = None,
                        account: Account | None = None) -> tuple[int, str]:
        """Take a human seat at a table this server owns, stored: (seat, token)."""
        table = await self.table(code)
        self.require_storage()
        async with self.play.locks[code]:
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
                self.play.lost(table)
                raise ServerBusyError("the table moved to another server: "
                                      "try again") from None
            except StorageError as error:
                table.leave_seat(taken)
                raise ServerBusyError(f"the seat could not be saved: {error}") from None
            if starts:
                table.start()
        if account is not None:
            await self._load_ratings(table)
        if starts:
            self.play.games(table, "start")
        self.play.changed(table)
        return taken, token

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
        match is over) leaves memory. A tournament's table plays on while its match runs."""
        now = time.monotonic()
        for code, since in list(self._idle_since.items()):
            table = self.tables.get(code)
            if (table is None or self.sockets.attended(code) or self.play.busy(code)
                    or (table.plays_unattended and table.status == "playing")):
                continue
            if not table.opened and now - since >= self.settings.unopened_after:
                await self._expire(table)
            elif now - since >= (self.settings.finished_after if table.status == "finished"
                                 else self.settings.idle_after):
                self.remove(table)

    async def _expire(self, table: Table) -> None:
        """An unopened table expires: out of memory, and marked so in the database
        (whoever asks for it meanwhile waits, then hears that it expired)."""
        code = table.code
        waiting: asyncio.Future[Table] = asyncio.get_running_loop().create_future()
        self._loading[code] = waiting
        self.remove(table)
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
