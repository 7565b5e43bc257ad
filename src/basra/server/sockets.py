"""Sockets and presence: who is connected to each table this server owns.

A table's sockets are this server's own (:class:`~basra.server.connections.Connection`)
and, in a shared cluster, other servers' (their *presence*: sockets per seat and
watchers, told by each relaying server, see ``relay.py``). :class:`Sockets` counts
both, limits the sockets per client address, names watchers, and sends each socket its
view of a table (each relaying server the views of the seats it serves).
"""

from __future__ import annotations

import time
from typing import Any

from .cluster import Cluster
from .connections import Connection, encode
from .errors import TooManyConnectionsError
from .settings import HubSettings
from .table import Table
from .views import shared_parts, state_message

__all__ = ["Presence", "Sockets"]

Presence = dict[str, tuple[list[int], int, float]]
"""Other servers' sockets at one table: server -> (sockets per seat, watchers, when
last told, monotonic)."""


class Sockets:
    """The sockets at this server's tables, and other servers' presence there."""

    def __init__(self, settings: HubSettings, cluster: Cluster) -> None:
        self.settings = settings
        self.cluster = cluster
        self.at: dict[str, set[Connection]] = {}
        """This server's sockets at each of its tables."""
        self.presence: dict[str, Presence] = {}
        """Other servers' sockets at this server's tables."""
        self._per_address: dict[str, int] = {}
        self._watchers_seen: dict[str, int] = {}
        """Watchers who have connected to each table (their chat names count up)."""
        self._versions: dict[str, int] = {}

    def count(self) -> int:
        """This server's sockets at its own tables."""
        return sum(len(c) for c in self.at.values())

    # -- tables coming and going -----------------------------------------------------

    def add_table(self, code: str) -> None:
        """A table came into memory: nobody is connected yet."""
        self.at[code] = set()

    def remove_table(self, code: str, shared: bool) -> None:
        """A table left memory (``shared``: it was this server's in a shared cluster)."""
        if shared:
            self.presence.pop(code, None)
            self._versions.pop(code, None)
        self.at.pop(code, None)
        self._watchers_seen.pop(code, None)

    # -- addresses and watchers ------------------------------------------------------

    def count_address(self, address: str) -> None:
        """Raise :class:`TooManyConnectionsError` when the address has its most sockets
        open."""
        if self._per_address.get(address, 0) >= self.settings.address_connections:
            raise TooManyConnectionsError(
                f"{address} has {self.settings.address_connections} sockets open, the most "
                "allowed: close some")

    def add_address(self, address: str, change: int) -> None:
        """Count sockets of an address opening (+1) or closing (-1)."""
        left = self._per_address.get(address, 0) + change
        if left > 0:
            self._per_address[address] = left
        else:
            self._per_address.pop(address, None)

    def watcher_name(self, code: str) -> str:
        """The chat name of a table's next watcher (\"Watcher 2\")."""
        number = self._watchers_seen.get(code, 0) + 1
        self._watchers_seen[code] = number
        return f"Watcher {number}"

    # -- counting --------------------------------------------------------------------

    def recount(self, table: Table) -> None:
        """Count the sockets of each seat: this server's and relaying servers'."""
        counts = [0] * table.rules.players
        for connection in self.at.get(table.code, ()):
            if connection.seat is not None:
                counts[connection.seat] += 1
        for seats, _watchers, _when in self.presence.get(table.code, {}).values():
            for seat, count in enumerate(seats[:len(counts)]):
                counts[seat] += max(0, count)
        table.connections = counts

    def watchers(self, code: str) -> int:
        """The watchers at the table: this server's sockets without a seat and relaying
        servers' watchers."""
        here = sum(1 for connection in self.at.get(code, ()) if connection.seat is None)
        return here + sum(max(0, watchers)
                          for _seats, watchers, _when in self.presence.get(code, {}).values())

    def attended(self, code: str) -> bool:
        """Whether anyone, on any server, has a socket open at the table."""
        return bool(self.at.get(code)) or any(
            any(seats) or watchers
            for seats, watchers, _when in self.presence.get(code, {}).values())

    def tell(self, code: str, server: str, seats: list[int], watchers: int) -> bool:
        """A relaying server's sockets at a table; whether they changed."""
        at_table = self.presence.setdefault(code, {})
        before = at_table.get(server)
        counts = [int(n) for n in seats]
        if any(counts) or watchers:
            at_table[server] = (counts, watchers, time.monotonic())
        else:
            at_table.pop(server, None)
        return before is None or before[0] != counts or before[1] != watchers

    def forget_silent(self, now: float, ttl: float) -> list[str]:
        """Forget the relaying servers not heard from for ``ttl`` seconds: the codes of
        the tables whose presence changed."""
        changed = []
        for code, servers in list(self.presence.items()):
            silent = [s for s, (_, _, when) in servers.items() if now - when > ttl]
            for server in silent:
                del servers[server]
            if silent:
                changed.append(code)
        return changed

    # -- sending ---------------------------------------------------------------------

    def broadcast(self, table: Table, text: str, watchers_only: bool = False,
                  skip_seats: frozenset[int] = frozenset()) -> None:
        """Send every socket at the table a message (only the watchers' with
        ``watchers_only``; none of the sockets of ``skip_seats``), on every server."""
        for other in self.at.get(table.code, ()):
            if (not watchers_only or other.seat is None) and other.seat not in skip_seats:
                other.send(text)
        for server in self.presence.get(table.code, {}):
            message: dict[str, Any] = {"k": "deliver", "code": table.code, "text": text,
                                       "watchers_only": watchers_only}
            if skip_seats:
                message["skip_seats"] = sorted(skip_seats)
            self.cluster.send(server, message)

    def send_views(self, table: Table, epoch: int) -> None:
        """Send every connection its view of the table (and every relaying server the
        views of the seats it serves, versioned (``epoch``, change number))."""
        code = table.code
        connections = self.at.get(code, ())
        presence = self.presence.get(code)
        if not connections and not presence:
            return
        shared = shared_parts(table)
        texts: dict[int | None, str] = {}

        def text_for(seat: int | None) -> str:
            text = texts.get(seat)
            if text is None:
                text = texts[seat] = encode(state_message(table, seat, shared))
            return text

        for connection in connections:
            connection.send(text_for(connection.seat))
        if presence:
            version = self._versions.get(code, 0) + 1
            self._versions[code] = version
            for server, (seats, watchers, _when) in presence.items():
                views: dict[str, Any] = {str(seat): text_for(seat)
                                         for seat, count in enumerate(seats) if count > 0}
                if watchers:
                    views["w"] = text_for(None)
                self.cluster.send(server, {"k": "views", "code": code, "seq": table.seq,
                                           "version": [epoch, version], "views": views})

    def version(self, code: str) -> int:
        """The change number of the table's latest views."""
        return self._versions.get(code, 0)
