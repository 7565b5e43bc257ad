"""Rate limits per address: counting, refusing with a wait, several limits at once, and
a storage that fails (requests go on, the failure is counted)."""

from __future__ import annotations

import asyncio

import pytest

from basra.server.ratelimit import RateLimited, RateLimits, async_storage


def test_a_limit_refuses_the_request_over_it_and_says_how_long_to_wait() -> None:
    limiter = RateLimits({"socket": "3/minute"})

    async def run() -> None:
        for _ in range(3):
            await limiter.check("socket", "10.0.0.1")
        with pytest.raises(RateLimited) as refused:
            await limiter.check("socket", "10.0.0.1")
        assert "at most 3 per 1 minute" in str(refused.value)
        assert 1 <= refused.value.retry_after <= 60
        await limiter.check("socket", "10.0.0.2")  # another address: its own count
        await limiter.check("join", "10.0.0.1")  # a kind with no limit

    asyncio.run(run())


def test_with_several_limits_a_refused_request_counts_in_none() -> None:
    limiter = RateLimits({"create": "2/minute;3/hour"})

    async def run() -> list[str | None]:
        return [await limiter.hit("create", "10.0.0.1") for _ in range(3)]

    first, second, third = asyncio.run(run())
    assert first is None and second is None
    assert third is not None and "at most 2 per 1 minute" in third


def test_a_failing_storage_lets_requests_through_and_counts_the_failures() -> None:
    # Nothing listens on port 1: every count fails at once.
    limiter = RateLimits({"socket": "1/minute"}, "redis://127.0.0.1:1/0")

    async def run() -> list[str | None]:
        return [await limiter.hit("socket", "10.0.0.1") for _ in range(3)]

    assert asyncio.run(run()) == [None, None, None]
    assert limiter.storage_errors == 3


def test_storages_are_used_through_their_asyncio_variants() -> None:
    assert async_storage("memory://") == "async+memory://"
    assert async_storage("async+memory://") == "async+memory://"


def test_a_burst_under_several_limits_is_counted_as_it_comes() -> None:
    """Requests that arrive together are not all tested before any is counted."""
    limits = RateLimits({"create": "5/minute;100/day"})
    limiter = limits._limiter
    test = limiter.test

    async def slow_test(*args: object) -> bool:  # a storage that answers over the network
        await asyncio.sleep(0)
        return await test(*args)  # type: ignore[arg-type]

    limiter.test = slow_test  # type: ignore[method-assign]

    async def burst() -> list[str | None]:
        return list(await asyncio.gather(*(limits.hit("create", "10.0.0.9")
                                           for _ in range(50))))

    answers = asyncio.run(burst())
    assert sum(answer is None for answer in answers) == 5
