"""Stores for the storage tests: the backends they run on, and a store opened for a piece
of work."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from basra.store import Store

POSTGRES_URL = os.environ.get("BASRA_TEST_POSTGRES_URL")
"""The test session's PostgreSQL database (``tests/conftest.py``), or None."""
BACKENDS = ["sqlite", *(["postgresql"] if POSTGRES_URL else [])]
"""The databases the storage tests run on."""


def store_url(backend: str, folder: Path) -> str:
    """A database URL of ``backend``: a new SQLite file in ``folder``, or the session's
    PostgreSQL database."""
    if backend == "sqlite":
        return f"sqlite:///{folder}/store.db"
    assert POSTGRES_URL is not None
    return POSTGRES_URL


def with_store(url: str, work: Callable[[Store], Awaitable[Any]]) -> Any:
    """Open a store, run ``work`` on it, close it (which writes what is queued)."""

    async def main() -> Any:
        store = Store(url)
        await store.open()
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(main())
