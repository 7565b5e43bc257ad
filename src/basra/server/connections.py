"""Sockets at tables, and the text sent on them.

A :class:`Connection` is one open socket at a table: a seat's or a watcher's, at a table
this server owns (a :class:`~basra.server.table.Table`) or one another server owns (a
:class:`RemoteTable`, see ``relay.py``). What it is sent waits in its outbox until the
socket's writer sends it.

This module imports no other module of the server but the table's: every other one may
import it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from .table import Table

__all__ = ["OUTBOX_LIMIT", "Account", "Connection", "RemoteTable", "encode"]

OUTBOX_LIMIT = 256
"""A connection this far behind is closed (it reconnects and gets the current state)."""

Account = tuple[int, str]
"""A logged-in player's account: (id, name)."""


@dataclass(eq=False)
class RemoteTable:
    """A table another server owns, as a relaying server knows it."""

    code: str
    owner: str | None
    """The owning server's id (None while it is being found out)."""
    seq: int = 0
    """The ``seq`` of the latest view passed on."""


@dataclass(eq=False)
class Connection:
    """One open socket at a table: a seat's or a watcher's."""

    table: Table | RemoteTable
    seat: int | None
    address: str = ""
    outbox: asyncio.Queue[dict[str, Any] | str | None] = field(default_factory=asyncio.Queue)
    """Messages to send: dicts, or text already encoded (a state shared by a seat's sockets)."""
    opened: float = field(default_factory=time.monotonic)
    watcher_name: str = ""
    """What a watcher is called in the chat (\"Watcher 2\")."""
    chatted: list[float] = field(default_factory=list)
    """When this connection's latest chat messages were sent (monotonic seconds)."""
    version: tuple[int, int] = (0, 0)
    """The (owner epoch, change number) of the latest view a relay passed on."""

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a socket too far behind is closed instead)."""
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.close()
            return
        self.outbox.put_nowait(message)

    def close(self) -> None:
        """Tell the socket's writer to close it."""
        self.outbox.put_nowait(None)

    def error(self, code: str, message: str, params: dict[str, Any] | None = None) -> None:
        """Send the socket an error (it stays open), with ``params`` when it has some."""
        sent: dict[str, Any] = {"type": "error", "code": code, "message": message,
                                "seq": self.table.seq}
        if params:
            sent["params"] = params
        self.send(sent)


def encode(message: dict[str, Any]) -> str:
    """A message as the JSON text sent on the socket (compact, UTF-8; integer keys are
    written as strings, as JSON has it)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
