"""Seeking over a seek socket (``/ws/seek``) of an in-process app: wait for the pairing."""

from __future__ import annotations

import time
from typing import Any


def paired(client: Any, seconds: float = 10.0) -> dict[str, Any]:
    """Read the seek socket's ``waiting`` messages (each with its whole seconds waited)
    until the ``paired`` message comes, and return it."""
    deadline = time.monotonic() + seconds
    while True:
        assert time.monotonic() < deadline, f"{client} was never paired"
        message = client.receive()
        if message["type"] == "waiting":
            assert isinstance(message["seconds"], int), message
            continue
        assert message["type"] == "paired", message
        return message
