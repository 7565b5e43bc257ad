"""The live tables anyone may watch: the Watch page's list (``GET /api/watch``) and the
game Basra TV follows (the first of the list).

Which tables are listed: those whose match is being played and that are public, that is

- made by pairing seeks (Play online, rated or casual: strangers' games), or
- played by computers alone (nobody's privacy is at stake).

A table made with the New table form for friends, or a quick game against the computer,
is not listed: it is shared by its link alone (anyone with the link may still watch it).

The order: rated games first, then the game whose best rated player is rated highest
(an account's rating in the table's pool; computers and guests have none here), then the
most watched, then by code (so that the order is stable).

In a shared cluster (``cluster.py``) each server lists its own tables; the others' come
from a ``watching`` call to every server that owns a table being played (found from the
database's recent tables and their leases). A list is made at most once every
:data:`LIST_EVERY` seconds and shared by every request meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from basra.store import Store

from .cluster import Cluster, ClusterError
from .relay import Relay
from .settings import HubSettings
from .sockets import Sockets
from .table import Table
from .views import seat_list

__all__ = ["LIST_EVERY", "WATCH_LISTED", "Watching", "is_listed", "order", "watch_entry"]

log = logging.getLogger("basra.server")

WATCH_LISTED = 50
"""Tables the Watch list shows at most."""
LIST_EVERY = 1.0
"""Seconds a list is reused before it is made again."""
RECENT_TABLES = 500
"""Recently active tables looked at in the database (a shared cluster) for their owners."""

_SEAT_FIELDS = ("seat", "side", "kind", "name", "level", "account", "rating")


def is_listed(table: Table) -> bool:
    """Whether the Watch list shows the table: its match is being played, and it is
    rated, made by pairing, or played by computers alone."""
    return table.status == "playing" and (
        table.config.rated or table.config.public or not table.human_seats())


def watch_entry(table: Table, watchers: int) -> dict[str, Any]:
    """A playing table as the Watch list shows it (see ``docs/web-protocol.md``)."""
    match = table.match
    assert match is not None
    seats = [{name: seat[name] for name in _SEAT_FIELDS} for seat in seat_list(table)]
    rated = [seat["rating"] for seat in seats
             if seat["kind"] == "human" and seat["account"] is not None
             and seat["rating"] is not None]
    return {
        "code": table.code, "url": f"/t/{table.code}", "variant": table.config.variant,
        "family": table.rules.family, "players": table.rules.players,
        "partnership": table.rules.partnership, "rated": table.config.rated,
        "pool": table.config.pool, "seats": seats,
        "best_rating": max(rated, default=None),
        "deal": len(match.deals), "totals": list(match.totals), "target": match.target,
        "watchers": watchers,
    }


def order(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Watch list's order: rated first, then by the best rating, the watchers, the
    code.

    >>> [e["code"] for e in order([
    ...     {"code": "a", "rated": False, "best_rating": 2000, "watchers": 0},
    ...     {"code": "b", "rated": True, "best_rating": 1500, "watchers": 0},
    ...     {"code": "c", "rated": True, "best_rating": 1700, "watchers": 0},
    ...     {"code": "d", "rated": False, "best_rating": None, "watchers": 3},
    ...     {"code": "e", "rated": False, "best_rating": None, "watchers": 1}])]
    ['c', 'b', 'a', 'd', 'e']
    """
    def key(entry: dict[str, Any]) -> tuple[bool, float, int, str]:
        best = entry.get("best_rating")
        return (not entry["rated"], math.inf if best is None else -float(best),
                -int(entry.get("watchers") or 0), str(entry["code"]))

    return sorted(entries, key=key)


class Watching:
    """The Watch list of one server (every server's in a shared cluster)."""

    def __init__(self, tables: Mapping[str, Table], sockets: Sockets, relay: Relay,
                 cluster: Cluster, store: Store, settings: HubSettings,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tables = tables
        self.sockets = sockets
        self.cluster = cluster
        self.store = store
        self.settings = settings
        self.clock = clock
        self._made: tuple[float, list[dict[str, Any]]] | None = None
        self._making: asyncio.Task[list[dict[str, Any]]] | None = None
        relay.call_handlers["watching"] = self._answer

    def here(self) -> list[dict[str, Any]]:
        """This server's listed tables, in no order."""
        return [watch_entry(table, self.sockets.watchers(code))
                for code, table in list(self.tables.items()) if is_listed(table)]

    async def _answer(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        return self.here()

    async def listing(self) -> list[dict[str, Any]]:
        """The listed tables, best first (at most :data:`WATCH_LISTED`)."""
        now = self.clock()
        if self._made is not None and now - self._made[0] < LIST_EVERY:
            return self._made[1]
        if self._making is None or self._making.done():
            self._making = asyncio.create_task(self._make())
        made = await asyncio.shield(self._making)
        self._made = (self.clock(), made)
        return made

    async def _make(self) -> list[dict[str, Any]]:
        entries = self.here()
        if self.cluster.shared:
            entries += await self._elsewhere({entry["code"] for entry in entries})
        return order(entries)[:WATCH_LISTED]

    async def _elsewhere(self, known: set[str]) -> list[dict[str, Any]]:
        """The listed tables of the other servers that own a table being played."""
        since = int((time.time() - self.settings.idle_after) * 1000)
        codes = await self.store.tables.recent_codes(since_ms=since, limit=RECENT_TABLES,
                                                     statuses=("playing",))
        codes = [code for code in codes if code not in self.tables]
        if not codes:
            return []
        me = self.cluster.server_id
        servers = sorted({owner for owner in (await self.cluster.owners(codes)).values()
                          if owner is not None and owner != me})

        async def ask(server: str) -> list[dict[str, Any]]:
            try:
                answer = await self.cluster.call(server, "watching", {})
            except ClusterError as error:
                log.warning("server %s did not list its tables to watch: %s", server, error)
                return []
            return [entry for entry in answer if isinstance(entry, dict)] \
                if isinstance(answer, list) else []

        found: dict[str, dict[str, Any]] = {}
        for answered in await asyncio.gather(*(ask(server) for server in servers)):
            for entry in answered:
                code = str(entry.get("code"))
                if code not in known:
                    found[code] = entry
        return list(found.values())
