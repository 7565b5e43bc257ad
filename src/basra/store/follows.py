"""Who follows whom (``basra_follows``, made by migration 0016), and where the followed
are: the facts a "following" list shows, read from the database so that every server
sees the same.

A followed account is

=========  ============================================================================
playing    seated at a table whose match is running (``basra_seats.user_id`` and
           ``basra_tables.status``): its list entry links to watch that table
online     not playing, and a session of it was used in the last :data:`ONLINE_MS`
           (``basra_sessions.last_used_at``, written at most once a minute)
away       neither
=========  ============================================================================

A block overrides following: :meth:`.Moderation.block` removes the follows between the
two accounts both ways, and the API refuses a follow across a block.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, delete, func, select

from .schema import follows_table, seats_table, sessions_table, tables_table, users_table
from .writer import Writer, insert_new

__all__ = ["ONLINE_MS", "PRESENCES", "Followed", "Follows", "presence"]

ONLINE_MS = 120_000
"""A session used within this long (milliseconds) shows its account online."""

PRESENCES = ("playing", "online", "away")
"""What a followed account is doing, in the order a list shows them."""


@dataclass(frozen=True)
class Followed:
    """An account someone follows, with what its presence is made of."""

    id: int
    name: str
    bot: bool
    since: int
    """When it was followed (Unix milliseconds)."""
    last_seen: int | None
    """The latest use of any of its sessions not expired (Unix milliseconds), or None."""
    table: str | None
    """The code of a table with a running match where it is seated (the latest), or None."""


def presence(followed: Followed, now: int) -> str:
    """``playing``, ``online`` or ``away`` (:data:`PRESENCES`) at ``now`` (Unix ms).

    >>> presence(Followed(1, "Amira", False, 0, last_seen=1_000, table=None), 60_000)
    'online'
    >>> presence(Followed(1, "Amira", False, 0, last_seen=1_000, table=None), 200_000)
    'away'
    >>> presence(Followed(1, "Amira", False, 0, last_seen=None, table="k3x9"), 200_000)
    'playing'
    """
    if followed.table is not None:
        return "playing"
    if followed.last_seen is not None and now - followed.last_seen <= ONLINE_MS:
        return "online"
    return "away"


class Follows:
    """Follows between accounts (``store.follows``): written through the store's writer."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def follow(self, user_id: int, followed_id: int, now: int) -> bool:
        """``user_id`` follows ``followed_id``; False when it did already."""

        def write(conn: Connection) -> bool:
            added = conn.execute(insert_new(conn, follows_table, ["user_id", "followed_id"])
                                 .values(user_id=user_id, followed_id=followed_id,
                                         created_at=now))
            return bool(added.rowcount)

        return bool(await self._writer.commit(write))

    async def unfollow(self, user_id: int, followed_id: int) -> bool:
        """``user_id`` stops following ``followed_id``; False when it did not follow it."""

        def write(conn: Connection) -> bool:
            return bool(conn.execute(delete(follows_table).where(
                follows_table.c.user_id == user_id,
                follows_table.c.followed_id == followed_id)).rowcount)

        return bool(await self._writer.commit(write))

    async def follows(self, user_id: int, followed_id: int) -> bool:
        """Whether ``user_id`` follows ``followed_id``."""
        query = select(follows_table.c.user_id).where(
            follows_table.c.user_id == user_id, follows_table.c.followed_id == followed_id)
        async with self._writer.engine.connect() as conn:
            return (await conn.execute(query)).first() is not None

    async def count(self, user_id: int) -> int:
        """How many accounts ``user_id`` follows."""
        query = select(func.count()).select_from(follows_table).where(
            follows_table.c.user_id == user_id)
        async with self._writer.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def followers(self, user_id: int) -> int:
        """How many accounts follow ``user_id``."""
        query = select(func.count()).select_from(follows_table).where(
            follows_table.c.followed_id == user_id)
        async with self._writer.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def follower_ids(self, user_ids: list[int]) -> dict[int, list[int]]:
        """The accounts that follow each of ``user_ids``."""
        if not user_ids:
            return {}
        query = select(follows_table.c.followed_id, follows_table.c.user_id).where(
            follows_table.c.followed_id.in_(user_ids))
        found: dict[int, list[int]] = {user_id: [] for user_id in user_ids}
        async with self._writer.engine.connect() as conn:
            for followed, follower in (await conn.execute(query)).all():
                found[followed].append(follower)
        return found

    async def following(self, user_id: int, now: int) -> list[Followed]:
        """The accounts ``user_id`` follows, by name, each with its latest session's use
        and the table it plays at (see :func:`presence`)."""
        users = users_table
        listed = (select(users.c.id, users.c.name, users.c.bot_since,
                         follows_table.c.created_at)
                  .join(follows_table, follows_table.c.followed_id == users.c.id)
                  .where(follows_table.c.user_id == user_id)
                  .order_by(users.c.name_key))
        followed_ids = select(follows_table.c.followed_id).where(
            follows_table.c.user_id == user_id).scalar_subquery()
        seen = (select(sessions_table.c.user_id, func.max(sessions_table.c.last_used_at))
                .where(sessions_table.c.user_id.in_(followed_ids),
                       sessions_table.c.expires_at > now)
                .group_by(sessions_table.c.user_id))
        playing = (select(seats_table.c.user_id, seats_table.c.code)
                   .join(tables_table, tables_table.c.code == seats_table.c.code)
                   .where(seats_table.c.user_id.in_(followed_ids),
                          tables_table.c.status == "playing")
                   .order_by(tables_table.c.updated_at))
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(listed)).all()
            last_seen = {row[0]: row[1] for row in (await conn.execute(seen)).all()}
            tables = {row[0]: row[1] for row in (await conn.execute(playing)).all()}
        return [Followed(row.id, row.name, row.bot_since is not None, row.created_at,
                         last_seen.get(row.id), tables.get(row.id)) for row in rows]
