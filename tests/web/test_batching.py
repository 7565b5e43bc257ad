"""The batcher that claims and reads a dead server's tables together."""

from __future__ import annotations

import asyncio

import pytest

from basra.server.batching import Batcher


def test_keys_asked_for_together_go_in_one_call_and_later_ones_in_the_next() -> None:
    calls: list[list[str]] = []
    release = asyncio.Event()

    async def fetch(keys: list[str]) -> dict[str, int]:
        calls.append(list(keys))
        await release.wait()
        return {key: len(key) for key in keys}

    async def main() -> list[int | None]:
        batcher = Batcher(fetch)
        first = [asyncio.create_task(batcher.get(key)) for key in ("a", "bb", "a")]
        await asyncio.sleep(0.01)  # the first call is on its way
        later = [asyncio.create_task(batcher.get(key)) for key in ("ccc", "dddd")]
        await asyncio.sleep(0.01)
        release.set()
        return list(await asyncio.gather(*first, *later))

    assert asyncio.run(main()) == [1, 2, 1, 3, 4]
    assert calls == [["a", "bb"], ["ccc", "dddd"]]


def test_a_failed_call_fails_its_batch_only() -> None:
    async def fetch(keys: list[str]) -> dict[str, str]:
        if "bad" in keys:
            raise RuntimeError("the database is down")
        return {key: key for key in keys}

    async def main() -> None:
        batcher = Batcher(fetch)
        with pytest.raises(RuntimeError, match="database is down"):
            await asyncio.gather(batcher.get("bad"), batcher.get("other"))
        assert await batcher.get("good") == "good"
        assert await batcher.get("missing-is-fine") == "missing-is-fine"

    asyncio.run(main())


def test_at_most_so_many_keys_a_call() -> None:
    sizes: list[int] = []

    async def fetch(keys: list[str]) -> dict[str, str]:
        sizes.append(len(keys))
        return {}

    async def main() -> list[str | None]:
        batcher: Batcher[str] = Batcher(fetch, most=3)
        return list(await asyncio.gather(*(batcher.get(str(n)) for n in range(7))))

    assert asyncio.run(main()) == [None] * 7
    assert sizes == [3, 3, 1]


def test_a_caller_that_gives_up_does_not_cancel_the_others() -> None:
    async def fetch(keys: list[str]) -> dict[str, str]:
        await asyncio.sleep(0.02)
        return {key: "loaded" for key in keys}

    async def main() -> str | None:
        batcher: Batcher[str] = Batcher(fetch)
        impatient = asyncio.create_task(batcher.get("t"))
        patient = asyncio.create_task(batcher.get("t"))
        await asyncio.sleep(0.005)
        impatient.cancel()
        return await patient

    assert asyncio.run(main()) == "loaded"
