"""What the relay needs of the server that runs tables: the :class:`TableHost` interface.

The relay (``relay.py``) passes sockets, intents and calls between servers; the hub
(``hub.py``) runs this server's own tables. The relay knows the hub only through this
protocol, so neither imports the other's internals (the hub makes the relay and hands
itself over as the host).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from .connections import Account, Connection
from .messages import Intent
from .table import Table

__all__ = ["TableHost"]


class TableHost(Protocol):
    """The tables this server owns, as the relay sees them."""

    @property
    def tables(self) -> Mapping[str, Table]:
        """The tables in memory here, by code."""

    async def table(self, code: str) -> Table:
        """The table, loaded (claimed from a dead owner) if need be; raises like
        :meth:`basra.server.lifecycle.Tables.table`."""

    async def join_here(self, code: str, name: object, seat: object = None,
                        account: Account | None = None) -> tuple[int, str]:
        """Take a seat at a table this server owns: (seat, token)."""

    def connect(self, table: Table, seat: int | None, address: str = "") -> Connection:
        """A new socket of this server's at a table it owns."""

    def opened(self, table: Table) -> None:
        """Someone came to the table (it never expires as unopened)."""

    def seat_came(self, table: Table, seat: int) -> None:
        """A socket for a seat opened, at this server or a relaying one."""

    def refresh(self, table: Table) -> None:
        """The table's sockets changed: count them, plan, send everyone their view."""

    def let_go(self, table: Table) -> None:
        """The table leaves memory; its lease is lost or given up already."""

    async def act(self, connection: Connection, intent: Intent) -> None:
        """Act on an intent at a table this server owns."""

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Keep a background task until it ends."""

    def busy(self, code: str) -> bool:
        """Whether an intent or a computer move is being handled at the table."""

    def settled(self, code: str) -> AbstractAsyncContextManager[Any]:
        """Entered once no intent nor computer move is being handled at the table; none
        is while it is held (they wait for it)."""

    def version(self, code: str) -> tuple[int, int]:
        """The (owner epoch, change number) of the table's latest views."""
