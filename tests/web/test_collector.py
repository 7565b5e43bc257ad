"""The server's garbage-collection policy (``basra serve`` only)."""

from __future__ import annotations

import asyncio
import gc

from basra.server.collector import NEVER, YOUNG, Collector


def test_the_collector_freezes_what_start_up_made_and_gives_python_its_timing_back() -> None:
    before = gc.get_threshold()

    async def main() -> None:
        collector = Collector(full_every=0.05)
        collector.start()
        try:
            assert gc.get_threshold()[0] == YOUNG and gc.get_threshold()[2] == NEVER
            assert gc.get_freeze_count() == collector.frozen > 0
            await asyncio.sleep(0.2)  # the timer's full collections run meanwhile
            health = collector.health()
            assert health["full_collections"] >= 2
            assert health["last_full_ms"] is not None and health["last_full_ms"] >= 0
        finally:
            await collector.stop()

    asyncio.run(main())
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_full_collection_frees_cycles_made_after_the_start() -> None:
    class Node:
        def __init__(self) -> None:
            self.other: Node | None = None

    async def main() -> int:
        collector = Collector(full_every=3600)
        collector.start()
        try:
            first, second = Node(), Node()
            first.other, second.other = second, first
            count = len(gc.get_objects())
            del first, second
            collector.collect()
            return count - len(gc.get_objects())
        finally:
            await collector.stop()

    assert asyncio.run(main()) >= 2
