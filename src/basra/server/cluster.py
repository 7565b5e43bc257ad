"""Many server processes, one site: who owns each table, and messages between servers.

A lone server (``basra serve`` without ``--redis``) owns every table: :class:`Cluster`
says so and carries no messages. With ``--redis URL`` (:class:`RedisCluster`), any number
of servers share one PostgreSQL database and one Redis:

- **Ownership.** Each live table has exactly one owner process at a time, held by a lease
  in Redis (``basra:lease:CODE`` = the owner's server id, expiring after
  :data:`LEASE_MS` unless renewed; the owner renews all of its leases every
  :data:`RENEW_EVERY` seconds in one script). Only the owner changes the table, stores its
  moves, runs its timers and computer players. A server that gets a socket or a request
  for a table owned elsewhere *relays*: it forwards intents to the owner and passes the
  owner's views on to its own sockets.
- **Fencing.** Taking a table over also raises its owner epoch in the database
  (``store.tables.claim``), and every write of a move, seat or rematch is made only while
  the stored epoch is the writer's: an old owner that wakes up after a pause (its lease
  expired meanwhile) cannot change a table another server has taken over.
- **Messages.** Each server listens on one channel of its own, ``basra:inbox:ID``, for
  calls (with replies) and one-way messages from other servers. Messages to one server
  are published in order from one task, so views reach a relay in the order the owner made
  them.
- **Failover.** A server that dies stops listening on its inbox at once (Redis sees its
  connection close). Taking a lease takes it over from a holder that no longer listens,
  in the same script (one round trip): the first server that needs a dead server's table
  (a relay, or the server a reconnecting socket lands on) claims it and loads it from the
  database.
  Its sockets stay open and see play go on; the dead server's sockets reconnect through
  the balancer and land on a live server. A restarted server is a new incarnation, with
  a new id (see :func:`new_server_id`): what the dead one held is taken over at once.
- **Stopping.** A server that stops (SIGTERM) hands its tables over first
  (``relay.py``), then stops listening on its inbox, answers the calls that reached it
  before, and only then closes: a call to it is answered, or fails at once
  (:class:`ServerGone`, and its caller takes the table), never left to time out.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, NamedTuple

__all__ = [
    "ANSWER_WITHIN",
    "CALL_TIMEOUT",
    "LEASE_MS",
    "REDIS_CONNECTIONS",
    "RENEW_EVERY",
    "Cluster",
    "ClusterError",
    "Lease",
    "RedisCluster",
    "ServerGone",
    "new_server_id",
    "redis_pool",
]

log = logging.getLogger("basra.cluster")

LEASE_MS = 10_000
"""Milliseconds a table's lease lasts unless its owner renews it. A server that dies is
found gone at once (it stops listening on its inbox); the lease only bounds how long a
server that stopped without dying (a pause, a lost network) keeps its tables."""
RENEW_EVERY = 2.0
"""Seconds between two renewals of a server's leases."""
CALL_TIMEOUT = 5.0
"""Seconds a server waits for another's answer to a call."""
ANSWER_WITHIN = 1.0
"""Seconds a stopping server, no longer listening, takes at most to answer the calls that
reached it before and to send its last messages."""
REDIS_CONNECTIONS = 16
"""Connections to Redis a server keeps at most (its inbox's besides): a burst of
commands (a dead server's sockets coming back at once) waits for one of them rather
than opening hundreds of connections, or failing past redis-py's limit."""


def redis_pool(url: str) -> Any:
    """A connection pool of at most :data:`REDIS_CONNECTIONS` connections to ``url``,
    where a command waits (up to :data:`CALL_TIMEOUT` seconds) for a free connection."""
    from redis.asyncio import BlockingConnectionPool

    return BlockingConnectionPool.from_url(url, max_connections=REDIS_CONNECTIONS + 1,
                                           timeout=CALL_TIMEOUT, decode_responses=True)

CallHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]
"""Answers a call from another server: (operation, arguments) -> JSON-able result."""
MessageHandler = Callable[[dict[str, Any]], None]
"""Takes a one-way message from another server (called in the order they were sent)."""


class Lease(NamedTuple):
    """The answer to taking a lease."""

    holder: str | None
    """The server holding it now: None when this one does."""
    taken_from: str | None = None
    """The dead server this one took it from (None: it was free, or this server's)."""


class ClusterError(RuntimeError):
    """Another server could not be reached or did not answer in time; the message says
    which and why."""


class ServerGone(ClusterError):
    """The server called is not listening: it stopped or died."""


def new_server_id(name: str | None = None) -> str:
    """A fresh, unique server id: ``NAME.XXXXXXXX`` (a random name when none is given).

    Each start of a server is a new incarnation with an id of its own, even under the
    same ``--server-id`` name: a restarted server owns nothing of what its previous
    incarnation held (its memory is empty), so the other servers see those tables'
    owner gone at once and take them over, instead of sending them to a cold server that
    would have to load them all."""
    return f"{name or secrets.token_hex(3)}.{secrets.token_hex(4)}"


class Cluster:
    """One server alone: it owns every table, and there is no other server to talk to."""

    shared = False
    """Whether other servers share this server's tables (a Redis set-up)."""

    def __init__(self, name: str | None = None) -> None:
        self.server_id = new_server_id(name)
        self.name = self.server_id.rsplit(".", 1)[0]

    async def start(self, on_call: CallHandler, on_message: MessageHandler) -> None:
        """Start listening (nothing to listen to alone)."""

    async def stop(self) -> None:
        """Stop listening and give up every lease held."""

    async def acquire(self, code: str) -> Lease:
        """Take the lease of a table, or learn who holds it. A lease held by a server
        that no longer listens on its inbox (it died) is taken over."""
        return Lease(None)

    async def release(self, code: str) -> None:
        """Give up the lease of a table."""

    async def renew(self, codes: Iterable[str]) -> set[str]:
        """Renew the leases of the tables this server owns; returns those it has lost."""
        return set()

    async def owners(self, codes: list[str]) -> dict[str, str | None]:
        """The server holding each table's lease (None: nobody)."""
        return dict.fromkeys(codes, self.server_id)

    async def listening(self, servers: list[str]) -> set[str]:
        """Those of ``servers`` that are listening (alive)."""
        return set(servers)

    async def call(self, server: str, op: str, args: dict[str, Any],
                   timeout: float = CALL_TIMEOUT) -> Any:
        """Ask another server to do something and wait for its answer."""
        raise ClusterError("a server alone has no other server to call")

    def send(self, server: str, message: dict[str, Any]) -> None:
        """Send another server a one-way message (in order with this server's others)."""

    def health(self) -> dict[str, Any]:
        return {"server": self.server_id, "shared": self.shared}


_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    table.insert(lost, key)
  end
end
return lost
"""

_ACQUIRE = """
local held = redis.call('GET', KEYS[1])
if held == false or held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return false
end
if redis.call('PUBSUB', 'NUMSUB', ARGV[3] .. held)[2] == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {held}
end
return held
"""
"""Take a lease that is free or this server's (false), or held by a server nobody hears
any more, with no subscriber on its inbox: it died ({that server}); else the live
holder's id."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def _lease_key(code: str) -> str:
    return f"basra:lease:{code}"


INBOX_PREFIX = "basra:inbox:"


def _inbox(server: str) -> str:
    return f"{INBOX_PREFIX}{server}"


class RedisCluster(Cluster):
    """Servers that share their tables through Redis (see the module's description)."""

    shared = True

    def __init__(self, url: str, name: str | None = None) -> None:
        super().__init__(name)
        self.url = url
        self._client: Any = None
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._sender: asyncio.Task[None] | None = None
        self._outbox: asyncio.Queue[tuple[str, str, asyncio.Future[int] | None]] = (
            asyncio.Queue())
        self._replies: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._on_call: CallHandler | None = None
        self._on_message: MessageHandler | None = None
        self._scripts: dict[str, Any] = {}
        self.calls_answered = 0
        self._leaving = False

    async def start(self, on_call: CallHandler, on_message: MessageHandler) -> None:
        """Connect to Redis and listen on this server's inbox. Raises
        :class:`ClusterError` naming the URL when Redis cannot be reached."""
        from redis.asyncio import Redis
        from redis.exceptions import RedisError

        self._on_call = on_call
        self._on_message = on_message
        try:
            self._client = Redis.from_pool(redis_pool(self.url))
            await self._client.ping()
            for name, source in (("renew", _RENEW), ("acquire", _ACQUIRE),
                                 ("release", _RELEASE)):
                self._scripts[name] = self._client.register_script(source)
            self._pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            await self._pubsub.subscribe(_inbox(self.server_id))
        except (RedisError, OSError, ValueError) as error:
            await self.stop()
            raise ClusterError(f"cannot use Redis at {self.url}: {error}") from None
        self._reader = asyncio.create_task(self._read(), name="basra-cluster-reader")
        self._sender = asyncio.create_task(self._send_loop(), name="basra-cluster-sender")

    async def stop(self) -> None:
        """Stop listening, answer the calls that came before (within
        :data:`ANSWER_WITHIN` seconds), then close: a call sent to this server from now
        on fails at once (:class:`ServerGone`) rather than waiting for an answer that
        would never come."""
        if self._reader is not None and not self._reader.done():
            try:
                async with asyncio.timeout(ANSWER_WITHIN):
                    await self._stop_listening()
            except TimeoutError:
                log.warning("this server stops with calls of other servers unanswered "
                            "(not answered within %g s)", ANSWER_WITHIN)
            except Exception as error:
                log.error("this server could not stop listening cleanly: %s", error)
        for task in (self._reader, self._sender, *self._tasks):
            if task is not None:
                task.cancel()
        for task in (self._reader, self._sender, *self._tasks):
            if task is not None:
                with contextlib.suppress(BaseException):
                    await task
        self._reader = self._sender = None
        for future in self._replies.values():
            if not future.done():
                future.set_exception(ClusterError("this server is stopping"))
        self._replies.clear()
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            self._pubsub = None
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
            self._client = None

    async def _stop_listening(self) -> None:
        """Leave this server's inbox, then answer every call read from it: Redis sends the
        confirmation of the unsubscription after every message published before it, so
        once the reader has seen it (and ended) no call can still be on its way here."""
        self._leaving = True
        await self._pubsub.unsubscribe()
        if self._reader is not None:
            await self._reader
        while self._tasks:
            await asyncio.wait(set(self._tasks))
        await self._outbox.join()

    # -- leases --------------------------------------------------------------------------

    async def acquire(self, code: str) -> Lease:
        held = await self._scripts["acquire"](keys=[_lease_key(code)],
                                              args=[self.server_id, LEASE_MS, INBOX_PREFIX])
        if held is None:
            return Lease(None)
        if isinstance(held, list):
            return Lease(None, str(held[0]))
        return Lease(str(held))

    async def release(self, code: str) -> None:
        await self._scripts["release"](keys=[_lease_key(code)], args=[self.server_id])

    async def renew(self, codes: Iterable[str]) -> set[str]:
        keys = [_lease_key(code) for code in codes]
        lost: set[str] = set()
        for start in range(0, len(keys), 1000):
            chunk = keys[start:start + 1000]
            found = await self._scripts["renew"](keys=chunk, args=[self.server_id, LEASE_MS])
            lost.update(key.removeprefix("basra:lease:") for key in found)
        return lost

    async def owners(self, codes: list[str]) -> dict[str, str | None]:
        if not codes:
            return {}
        held = await self._client.mget([_lease_key(code) for code in codes])
        return {code: (None if owner is None else str(owner))
                for code, owner in zip(codes, held, strict=True)}

    async def listening(self, servers: list[str]) -> set[str]:
        if not servers:
            return set()
        counts = await self._client.pubsub_numsub(*[_inbox(s) for s in servers])
        return {channel.removeprefix("basra:inbox:") for channel, count in counts if count}

    # -- messages ------------------------------------------------------------------------

    async def call(self, server: str, op: str, args: dict[str, Any],
                   timeout: float = CALL_TIMEOUT) -> Any:
        """Ask ``server``; raises :class:`ServerGone` when it is not listening,
        :class:`ClusterError` when it does not answer within ``timeout`` seconds, and
        re-raises nothing else: an error the other server met comes back as its
        answer (the caller's protocol says how)."""
        number = next(self._ids)
        reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._replies[number] = reply
        delivered: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        text = json.dumps({"k": "call", "id": number, "from": self.server_id, "op": op,
                           "args": args}, separators=(",", ":"))
        self._outbox.put_nowait((server, text, delivered))
        try:
            async with asyncio.timeout(timeout):
                if await delivered == 0:
                    raise ServerGone(f"server {server} is not listening")
                return await reply
        except TimeoutError:
            raise ClusterError(f"server {server} did not answer {op!r} within "
                               f"{timeout:g} s") from None
        finally:
            self._replies.pop(number, None)

    def send(self, server: str, message: dict[str, Any]) -> None:
        self._outbox.put_nowait((server, json.dumps(message, separators=(",", ":"),
                                                    ensure_ascii=False), None))

    async def _send_loop(self) -> None:
        """Publish queued messages in order, many per round trip."""
        while True:
            first = await self._outbox.get()
            batch = [first]
            while not self._outbox.empty() and len(batch) < 500:
                batch.append(self._outbox.get_nowait())
            try:
                async with self._client.pipeline(transaction=False) as pipe:
                    for server, text, _delivered in batch:
                        pipe.publish(_inbox(server), text)
                    counts = await pipe.execute()
            except Exception as error:
                log.error("messages to other servers could not be sent: %s", error)
                counts = [0] * len(batch)
            for (_server, _text, delivered), count in zip(batch, counts, strict=True):
                if delivered is not None and not delivered.done():
                    delivered.set_result(int(count))
                self._outbox.task_done()

    async def _read(self) -> None:
        """Take the inbox's messages in order, until this server has left its inbox."""
        while not (self._leaving and not self._pubsub.subscribed):
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.error("this server's inbox could not be read: %s", error)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                body = json.loads(message["data"])
            except (TypeError, ValueError):
                log.error("a message from another server was not JSON")
                continue
            self._dispatch(body)

    def _dispatch(self, body: dict[str, Any]) -> None:
        kind = body.get("k")
        if kind == "reply":
            future = self._replies.get(body.get("id", -1))
            if future is not None and not future.done():
                future.set_result(body.get("result"))
        elif kind == "call":
            task = asyncio.create_task(self._answer(body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif self._on_message is not None:
            try:
                self._on_message(body)
            except Exception:
                log.exception("a message from another server failed")

    async def _answer(self, body: dict[str, Any]) -> None:
        assert self._on_call is not None
        try:
            result = await self._on_call(str(body.get("op")), body.get("args") or {})
        except Exception:
            log.exception("a call from server %s failed", body.get("from"))
            result = {"error": "server_error", "message": "the other server failed"}
        self.calls_answered += 1
        self.send(str(body.get("from")), {"k": "reply", "id": body.get("id"),
                                           "result": result})

    def health(self) -> dict[str, Any]:
        return {"server": self.server_id, "shared": True,
                "outbox": self._outbox.qsize(), "calls_answered": self.calls_answered}
