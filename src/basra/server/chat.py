"""Chat at the tables this server owns: limits, mutes, blocks, and the lines kept for
reports.

A player's message goes to everyone at the table (but the seats whose accounts blocked
the player's account), a watcher's to the watchers only; a muted account's is refused
(``muted``). At most ``CHAT_LIMIT`` messages per seat (all its sockets, here and at
relaying servers) or per watcher's address; each socket is also held to it at the server
it is open to. The latest ``CHAT_KEPT`` lines of each table are kept in memory for the
reports made at it. Chat never changes a table's state.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Any

from basra.store import Store

from .connections import Connection, encode
from .errors import IntentError, MutedError
from .messages import Intent
from .settings import CHAT_KEPT, CHAT_LIMIT
from .sockets import Sockets
from .table import Table

__all__ = ["TableChat"]

log = logging.getLogger("basra.server")


class TableChat:
    """The chat of this server's tables."""

    def __init__(self, store: Store, sockets: Sockets) -> None:
        self.store = store
        self.sockets = sockets
        self.lines: dict[str, deque[dict[str, Any]]] = {}
        """The latest chat lines of each table (what a report shows its moderator)."""
        self._chatted: dict[str, dict[str, list[float]]] = {}
        """When each seat (``seat 0``) and watcher (``watcher <address>``) of a table
        latest chatted there, whichever of its sockets or servers it sent from."""

    def forget(self, code: str) -> None:
        """A table left memory: its lines and counts go."""
        self.lines.pop(code, None)
        self._chatted.pop(code, None)

    @staticmethod
    def socket_allowed(connection: Connection) -> None:
        """Count a chat message of a socket (at the server the socket is open to), or
        raise ``chat_limit``."""
        now = time.monotonic()
        most, seconds = CHAT_LIMIT
        connection.chatted = [at for at in connection.chatted if now - at < seconds]
        if len(connection.chatted) >= most:
            raise IntentError("chat_limit", f"at most {most} chat messages per "
                              f"{seconds:g} seconds: wait a moment")
        connection.chatted.append(now)

    def seat_allowed(self, table: Table, connection: Connection) -> None:
        """Count a chat message of a seat (all its sockets, here and at relaying servers)
        or of a watcher (by address) at a table this server owns, or raise
        ``chat_limit``: the limit is the seat's, not each socket's."""
        now = time.monotonic()
        most, seconds = CHAT_LIMIT
        who = (f"seat {connection.seat}" if connection.seat is not None
               else f"watcher {connection.address or connection.watcher_name}")
        chatted = self._chatted.setdefault(table.code, {})
        recent = [at for at in chatted.get(who, ()) if now - at < seconds]
        if len(recent) >= most:
            chatted[who] = recent
            raise IntentError("chat_limit", f"at most {most} chat messages per "
                              f"{seconds:g} seconds: wait a moment")
        chatted[who] = [*recent, now]
        if len(chatted) > 256:  # watchers come and go: forget the quiet ones
            for key in [k for k, times in chatted.items() if now - times[-1] >= seconds]:
                del chatted[key]

    async def say(self, connection: Connection, intent: Intent) -> None:
        """Pass a chat message on: a player's to everyone at the table (but the seats
        whose accounts blocked the player's), a watcher's to the watchers only. A muted
        account's is refused. Nothing else is in it: the table's state does not change;
        the table keeps its latest lines for reports."""
        table = connection.table
        assert isinstance(table, Table)
        if intent.text is not None and not table.free_text:
            raise IntentError("free_text_off", "free text is off at this table (every "
                              "player must agree to it); send a phrase")
        self.seat_allowed(table, connection)
        seat = connection.seat
        account = None if seat is None else table.accounts[seat]
        skip: frozenset[int] = frozenset()
        if account is not None:
            skip = await self._checks(table, seat, account[0])
        sender: dict[str, Any] = (
            {"watcher": True, "name": connection.watcher_name} if seat is None
            else {"seat": seat, "name": table.names[seat]})
        message: dict[str, Any] = {"type": "chat", "from": sender}
        if intent.phrase is not None:
            message["phrase"] = intent.phrase
        else:
            message["text"] = intent.text
        lines = self.lines.setdefault(table.code, deque(maxlen=CHAT_KEPT))
        lines.append({**{k: v for k, v in message.items() if k != "type"},
                      "at": int(time.time() * 1000)})
        self.sockets.broadcast(table, encode(message), watchers_only=seat is None,
                               skip_seats=skip)

    async def _checks(self, table: Table, seat: int | None, user_id: int
                           ) -> frozenset[int]:
        """Refuse a muted account's chat (:class:`MutedError`); the seats whose accounts
        blocked it. Should storage fail to answer, the chat goes through unfiltered."""
        moderation = self.store.moderation
        try:
            muted = await moderation.active(user_id, "mute", int(time.time() * 1000))
            viewers = {other[0]: place for place, other in enumerate(table.accounts)
                       if other is not None and place != seat}
            blockers = await moderation.blockers(user_id, viewers)
        except Exception:
            log.exception("the chat of table %s could not be checked", table.code)
            return frozenset()
        if muted is not None:
            raise MutedError(muted.until, muted.reason)
        return frozenset(viewers[user] for user in blockers)
