"""Sockets and presence (``server/sockets.py``), and the relay driven through the
:class:`~basra.server.host.TableHost` interface alone (``server/relay.py``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from basra.server.cluster import Cluster
from basra.server.connections import Account, Connection
from basra.server.errors import (
    ExpiredTableError,
    JoinError,
    ServerBusyError,
    TableMovedError,
    TooManyConnectionsError,
    UnknownTableError,
    UnknownTokenError,
    UnrestoredTableError,
    refusal_of,
)
from basra.server.messages import Intent
from basra.server.relay import PRESENCE_TTL, Relay, _unwrap
from basra.server.settings import HubSettings
from basra.server.sockets import Sockets
from basra.server.table import SeatConfig, Table, TableConfig
from basra.store import StorageError


class Recorder(Cluster):
    """A server alone that keeps what it would send other servers."""

    def __init__(self) -> None:
        super().__init__("here")
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send(self, server: str, message: dict[str, Any]) -> None:
        self.sent.append((server, message))


def a_table(code: str = "abc") -> Table:
    config = TableConfig("egyptian", 2, {}, (SeatConfig("human"), SeatConfig("human")))
    return Table(code, config, 7)


def test_an_address_gets_its_most_sockets_and_no_more() -> None:
    sockets = Sockets(HubSettings(address_connections=2), Cluster())
    for _ in range(2):
        sockets.count_address("10.0.0.1")
        sockets.add_address("10.0.0.1", 1)
    with pytest.raises(TooManyConnectionsError) as refused:
        sockets.count_address("10.0.0.1")
    assert refused.value.code == "too_many_connections"
    sockets.count_address("10.0.0.2")
    sockets.add_address("10.0.0.1", -1)
    sockets.count_address("10.0.0.1")


def test_watchers_are_named_in_the_order_they_come() -> None:
    sockets = Sockets(HubSettings(), Cluster())
    assert [sockets.watcher_name("abc") for _ in range(3)] == [
        "Watcher 1", "Watcher 2", "Watcher 3"]
    assert sockets.watcher_name("xyz") == "Watcher 1"
    sockets.remove_table("abc", shared=False)
    assert sockets.watcher_name("abc") == "Watcher 1"


def test_seats_are_counted_here_and_at_relaying_servers() -> None:
    table = a_table()
    sockets = Sockets(HubSettings(), Cluster())
    sockets.add_table(table.code)
    assert not sockets.attended(table.code)
    sockets.at[table.code].add(Connection(table, 0))
    assert sockets.tell(table.code, "other", [0, 2], 1)
    assert not sockets.tell(table.code, "other", [0, 2], 1)  # no change
    sockets.recount(table)
    assert table.connections == [1, 2]
    sockets.at[table.code].clear()
    assert sockets.attended(table.code)  # the other server's sockets
    assert sockets.forget_silent(10**9, PRESENCE_TTL) == [table.code]
    assert not sockets.attended(table.code)


def test_views_go_to_each_socket_and_each_relaying_server() -> None:
    table = a_table()
    cluster = Recorder()
    sockets = Sockets(HubSettings(), cluster)
    sockets.add_table(table.code)
    mine = Connection(table, None)
    sockets.at[table.code].add(mine)
    sockets.tell(table.code, "other", [1], 0)
    sockets.send_views(table, epoch=3)
    assert '"type":"state"' in str(mine.outbox.get_nowait())
    [(server, message)] = cluster.sent
    assert server == "other" and message["k"] == "views"
    assert message["version"] == [3, 1] and set(message["views"]) == {"0"}
    sockets.broadcast(table, "hello", watchers_only=True)
    assert mine.outbox.get_nowait() == "hello"
    assert cluster.sent[-1][1] == {"k": "deliver", "code": table.code, "text": "hello",
                                   "watchers_only": True}


class FakeHost:
    """A :class:`~basra.server.host.TableHost` that records what the relay asks."""

    def __init__(self, *tables: Table) -> None:
        self._tables = {table.code: table for table in tables}
        self.refreshed: list[str] = []
        self.let_gone: list[str] = []
        self.locks = {table.code: asyncio.Lock() for table in tables}
        self.waiting: list[str] = []
        """Who waited for a table's lock, in order: ``act`` or ``settled``."""
        self.made: list[str] = []
        """The intents made, in order."""

    @property
    def tables(self) -> Mapping[str, Table]:
        return self._tables

    async def table(self, code: str) -> Table:
        return self._tables[code]

    async def join_here(self, code: str, name: object, seat: object = None,
                        account: Account | None = None) -> tuple[int, str]:
        raise NotImplementedError

    def connect(self, table: Table, seat: int | None, address: str = "") -> Connection:
        return Connection(table, seat, address)

    def opened(self, table: Table) -> None:
        pass

    def seat_came(self, table: Table, seat: int) -> None:
        pass

    def refresh(self, table: Table) -> None:
        self.refreshed.append(table.code)

    def let_go(self, table: Table) -> None:
        self.let_gone.append(table.code)
        del self._tables[table.code]

    async def act(self, connection: Connection, intent: Intent) -> None:
        """Like the hub's: an intent waits for the table's lock, and is refused if the
        table left meanwhile."""
        table = connection.table
        lock = self.locks.get(table.code)
        if lock is None:
            return
        self.waiting.append("act")
        async with lock:
            if self._tables.get(table.code) is not table:
                raise TableMovedError()
            self.made.append(intent.kind)
            connection.send({"type": "made", "kind": intent.kind})

    def keep(self, task: asyncio.Task[Any]) -> None:
        pass

    def busy(self, code: str) -> bool:
        return False

    @contextlib.asynccontextmanager
    async def _settled(self, code: str) -> AsyncIterator[None]:
        self.waiting.append("settled")
        async with self.locks[code]:
            yield

    def settled(self, code: str) -> contextlib.AbstractAsyncContextManager[Any]:
        return self._settled(code)

    def version(self, code: str) -> tuple[int, int]:
        return 0, 0


def test_the_relay_works_through_the_host_interface_alone() -> None:
    table = a_table()
    host = FakeHost(table)
    cluster = Recorder()
    sockets = Sockets(HubSettings(), cluster)
    sockets.add_table(table.code)
    relay = Relay(host, sockets, cluster)
    relay.take({"k": "presence", "code": table.code, "server": "other", "seats": [1, 0],
                "watchers": 0})
    assert host.refreshed == [table.code] and sockets.attended(table.code)
    relay.take({"k": "presence", "code": "gone", "server": "other", "seats": [1],
                "watchers": 0})
    assert cluster.sent[-1] == ("other", {"k": "moved", "code": "gone"})
    mine = Connection(table, 0)
    sockets.at[table.code].add(mine)
    relay.lost(table)  # taken over elsewhere: its sockets are relayed from now on
    assert host.let_gone == [table.code]
    assert mine in relay.sockets[table.code] and mine.table is relay.remote[table.code]


class Sharing(Recorder):
    """A server of a shared cluster that keeps the leases it gives up."""

    shared = True

    def __init__(self) -> None:
        super().__init__()
        self.released: list[str] = []

    async def release(self, code: str) -> None:
        self.released.append(code)


def test_a_stopping_server_answers_the_play_in_flight_then_hands_its_table_over() -> None:
    """Leaving (SIGTERM): the intent being made at a table is made and answered first;
    then the table's lease is given up, it leaves memory and its relaying server is told
    to take it; an intent that waited behind, and any call after, is answered
    ``elsewhere`` with no owner, so that its server takes the table over and makes it
    there. Nothing is left unanswered, and nothing is loaded again."""
    async def scenario() -> None:
        table = a_table()
        host = FakeHost(table)
        cluster = Sharing()
        sockets = Sockets(HubSettings(), cluster)
        sockets.add_table(table.code)
        relay = Relay(host, sockets, cluster)
        relay.take({"k": "presence", "code": table.code, "server": "other",
                    "seats": [1, 0], "watchers": 0})
        play = {"code": table.code, "seat": 0, "text": '{"type": "back"}'}
        lock = host.locks[table.code]
        await lock.acquire()  # a play being stored at the table

        async def queued(work: Any, count: int) -> asyncio.Task[Any]:
            task = asyncio.ensure_future(work)
            while len(host.waiting) < count:
                await asyncio.sleep(0)
            return task

        in_flight = await queued(relay.answer("intent", play), 1)
        leaving = await queued(relay.leave(), 2)
        behind = await queued(relay.answer("intent", play), 3)
        assert host.waiting == ["act", "settled", "act"] and relay.leaving
        lock.release()
        assert await in_flight == {"value": {"messages": [
            {"type": "made", "kind": "back"}]}}
        await leaving
        assert host.made == ["back"]
        assert await behind == {"value": {"elsewhere": None}}
        assert cluster.released == [table.code] and host.let_gone == [table.code]
        assert ("other", {"k": "take", "code": table.code}) in cluster.sent
        for op, args in (("intent", play), ("open", {"code": table.code, "seat": 0}),
                         ("describe", {"code": "elsewhere"})):
            assert await relay.answer(op, args) == {"error": "elsewhere", "owner": None}
        assert host.made == ["back"] and host.waiting == ["act", "settled", "act"]

    asyncio.run(scenario())


class FailingHost(FakeHost):
    """A host whose tables and seats fail with a given error."""

    def __init__(self, error: Exception, *tables: Table) -> None:
        super().__init__(*tables)
        self.error = error

    async def table(self, code: str) -> Table:
        if code in self._tables:
            return self._tables[code]
        raise self.error

    async def join_here(self, code: str, name: object, seat: object = None,
                        account: Account | None = None) -> tuple[int, str]:
        raise self.error


@pytest.mark.parametrize("error", [
    UnknownTableError("zzz"), ExpiredTableError("zzz"),
    UnrestoredTableError("zzz", "ValueError: bad move"), StorageError("disk full"),
    ServerBusyError("too many tables"), JoinError("seat 7 is not a seat", "bad_seat"),
], ids=lambda error: type(error).__name__)
def test_an_owners_error_is_raised_at_the_relaying_server_with_its_code(
        error: Exception) -> None:
    relay = Relay(FailingHost(error), Sockets(HubSettings(), Cluster()), Cluster())
    answer = asyncio.run(relay.answer("join", {"code": "zzz", "name": "Omar"}))
    with pytest.raises(type(error)) as raised:
        _unwrap(answer, "zzz")
    here, there = refusal_of(error), refusal_of(raised.value)
    assert here is not None and there is not None
    assert (there.code, there.status, there.message) == (here.code, here.status, here.message)


def test_a_refused_socket_is_refused_alike_at_the_relaying_server() -> None:
    table = a_table()
    relay = Relay(FakeHost(table), Sockets(HubSettings(), Cluster()), Cluster())
    answer = asyncio.run(relay.answer("open", {"code": table.code, "token": "nope",
                                               "server": "other"}))
    with pytest.raises(UnknownTokenError):
        _unwrap(answer, table.code)
