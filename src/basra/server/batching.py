"""Many concurrent requests for single keys, answered by one call for all of them.

When a server dies, the others take its tables over all at once: hundreds of sockets ask,
in the same moment, to claim and read one table each. One database statement for a
hundred tables costs about what one for a single table does, so the hub asks for them
through a :class:`Batcher`: the keys asked for while a call is on its way wait for it to
end and then go together in the next call.

>>> import asyncio
>>> calls = []
>>> async def fetch(keys):
...     calls.append(sorted(keys))
...     return {key: key.upper() for key in keys if key != "nothing"}
>>> async def main():
...     batcher = Batcher(fetch)
...     return await asyncio.gather(*(batcher.get(key) for key in ["a", "b", "nothing"]))
>>> asyncio.run(main())
['A', 'B', None]
>>> calls
[['a', 'b', 'nothing']]
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["Batcher"]

V = TypeVar("V")


class Batcher(Generic[V]):
    """Answers ``get(key)`` with ``fetch(keys)[key]`` (None when missing), one call of
    ``fetch`` at a time, each for every key asked for since the last one began (at most
    ``most``). An error of ``fetch`` is raised to every caller of its batch."""

    def __init__(self, fetch: Callable[[list[str]], Awaitable[dict[str, V]]],
                 most: int = 500) -> None:
        self.fetch = fetch
        self.most = most
        self.calls = 0
        self._waiting: dict[str, asyncio.Future[V | None]] = {}
        self._runner: asyncio.Task[None] | None = None

    async def get(self, key: str) -> V | None:
        future = self._waiting.get(key)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._waiting[key] = future
        if self._runner is None:
            self._runner = asyncio.create_task(self._run(), name="basra-batcher")
        return await asyncio.shield(future)

    async def _run(self) -> None:
        try:
            await asyncio.sleep(0)  # the others asking in this same moment join
            while self._waiting:
                keys = list(self._waiting)[:self.most]
                batch = {key: self._waiting.pop(key) for key in keys}
                self.calls += 1
                try:
                    found = await self.fetch(keys)
                except BaseException as error:
                    for future in batch.values():
                        if not future.done():
                            future.set_exception(error)
                            future.exception()  # retrieved here: each caller raises it
                    if isinstance(error, asyncio.CancelledError):
                        raise
                    continue
                for key, future in batch.items():
                    if not future.done():
                        future.set_result(found.get(key))
        finally:
            self._runner = None

    async def close(self) -> None:
        """Stop (the callers still waiting get :class:`asyncio.CancelledError`)."""
        runner = self._runner
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        for future in self._waiting.values():
            future.cancel()
        self._waiting.clear()
