"""Notifications delivered to open pages and programs, on every server.

A notification is stored first (``store.notifications``), then each server delivers it to
the streams it has open for that account: every ``poll_every`` seconds (and at once after
one of its own), a server reads the notifications newer than the last it read for the
accounts it has listeners for. Nothing is sent between servers: the database is the
channel, so a notification reaches a page on any server, and one made while the page was
closed waits in the inbox.

    async with notifier.listen(user_id) as queue:
        notification = await queue.get()   # {"id", "kind", "payload", "created_at", "read"}
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from typing import Any

from basra.store import Store

__all__ = ["Notifier"]

log = logging.getLogger("basra.server")

Queue = asyncio.Queue[dict[str, Any]]


class Notifier:
    """Stores notifications and delivers them to the listeners of this server."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time,
                 poll_every: float = 0.5) -> None:
        self.store = store
        self.clock = clock
        self.poll_every = poll_every
        self._listeners: dict[int, dict[Queue, int]] = defaultdict(dict)
        """Each account's open listeners, with the id after which each receives."""
        self._cursor = 0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="basra-notifier")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def notify(self, user_id: int, kind: str, payload: dict[str, Any]) -> int:
        """Store a notification for an account (its id); its open pages get it soon."""
        made = await self.store.notifications.add(user_id, kind, payload,
                                                  int(self.clock() * 1000))
        self._wake.set()
        return made

    @contextlib.asynccontextmanager
    async def listen(self, user_id: int) -> AsyncIterator[Queue]:
        """A queue of the account's notifications made from now on."""
        queue: Queue = asyncio.Queue(maxsize=1000)
        since = await self.store.notifications.last_id()
        if not any(self._listeners.values()):
            self._cursor = since
        self._listeners[user_id][queue] = since
        try:
            yield queue
        finally:
            self._listeners[user_id].pop(queue, None)
            if not self._listeners[user_id]:
                del self._listeners[user_id]

    @property
    def listening(self) -> int:
        """Open listeners on this server."""
        return sum(len(queues) for queues in self._listeners.values())

    async def _loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_every)
            self._wake.clear()
            if not self._listeners:
                continue
            try:
                await self.deliver()
            except Exception as error:
                log.warning("notifications could not be read: %s", error)

    async def deliver(self) -> None:
        """Read the new notifications of the accounts listened to, and hand them over."""
        found = await self.store.notifications.after(list(self._listeners), self._cursor)
        for user_id, notification in found:
            self._cursor = max(self._cursor, notification["id"])
            for queue, since in list(self._listeners.get(user_id, {}).items()):
                if notification["id"] > since and not queue.full():
                    queue.put_nowait(notification)
