"""Accounts' ratings per pool, their history, and which rated matches are counted.

People and bot accounts have their ratings in the same pools, listed apart (the bots'
list is :meth:`Ratings.leaderboard` with ``bots``): a rated match with a bot account in
it moves only the bots' ratings, the people in it playing at their ratings unchanged.

A rated match is counted in the transaction that stores its record
(:meth:`basra.store.records.Records.save`), once per record: a row keyed by the record's
id says the result is counted.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, insert, select, update

from basra.players.ratings import Rating, RatingUpdate, rate_match

from .schema import rated_results_table, rating_history_table, ratings_table, users_table
from .writer import Writer, now_ms

__all__ = ["RatedMatch", "Ratings", "SeatChange", "count_result", "user_key"]

log = logging.getLogger("basra.store")


@dataclass(frozen=True)
class RatedMatch:
    """What it takes to rate a finished match: its pool, each seat's player key
    (``user:ID`` for an account, ``computer:LEVEL`` for a computer seat), each seat's side
    and each side's rank (:func:`basra.players.ratings.ranks_from_totals`)."""

    pool: str
    players: tuple[str, ...]
    side_of: tuple[int, ...]
    ranks: tuple[int, ...]

    def sides(self) -> list[list[str]]:
        """Player keys per side, as the pool seats them."""
        return [[p for p, side in zip(self.players, self.side_of, strict=True)
                 if side == s] for s in range(len(self.ranks))]


@dataclass(frozen=True)
class SeatChange:
    """How one seat's display rating moved in a rated match."""

    seat: int
    user_id: int
    before: int
    after: int

    def to_dict(self) -> dict[str, int]:
        return {"seat": self.seat, "before": self.before, "after": self.after}


def user_key(user_id: int) -> str:
    """An account's player key in rating computations.

    >>> user_key(7)
    'user:7'
    """
    return f"user:{user_id}"


def count_result(conn: Connection, record_id: int, rated: RatedMatch) -> None:
    """Count a rated match's result, unless it is counted already (inside the
    transaction that stores its record)."""
    done = conn.execute(select(rated_results_table.c.record_id).where(
        rated_results_table.c.record_id == record_id)).first()
    if done is not None:
        return
    now = now_ms()
    ids = [int(p.split(":", 1)[1]) for p in rated.players if p.startswith("user:")]
    stored: dict[str, Rating] = {}
    if ids:
        for row in conn.execute(select(ratings_table).where(
                ratings_table.c.user_id.in_(ids), ratings_table.c.pool == rated.pool)):
            stored[user_key(row.user_id)] = Rating(row.mu, row.sigma, row.games)
    bots: set[int] = set()
    if ids:
        bots = set(conn.execute(select(users_table.c.id).where(
            users_table.c.id.in_(ids), users_table.c.bot_since.is_not(None))).scalars())
    # A match with a bot account moves the bots' ratings alone: people play in it at
    # their rating, unchanged ("Bot accounts" in docs/api.md).
    fixed = {user_key(i) for i in ids if i not in bots} if bots else set()
    try:
        updates: list[RatingUpdate] = rate_match(str(record_id), rated.pool, rated.sides(),
                                                 list(rated.ranks), stored, fixed)
    except ValueError as error:  # a bug: the record is kept, the result is not rated
        log.error("record %d could not be rated: %s", record_id, error)
        return
    conn.execute(insert(rated_results_table).values(record_id=record_id, pool=rated.pool,
                                                    rated_at=now))
    for update_row in updates:
        user_id = int(update_row.player.split(":", 1)[1])
        after = update_row.after
        values = {"mu": after.mu, "sigma": after.sigma, "games": after.games,
                  "display": after.display, "updated_at": now}
        if update_row.player in stored:
            conn.execute(update(ratings_table).where(
                ratings_table.c.user_id == user_id, ratings_table.c.pool == rated.pool)
                .values(**values))
        else:
            conn.execute(insert(ratings_table).values(user_id=user_id, pool=rated.pool,
                                                      **values))
        conn.execute(insert(rating_history_table).values(
            record_id=record_id, pool=rated.pool, user_id=user_id,
            seat=rated.players.index(update_row.player),
            before=update_row.before.display, after=after.display, created_at=now))


class Ratings:
    """Accounts' ratings (``store.ratings``): read through the store's engine (they are
    written with the records that count them)."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def of_accounts(self, user_ids: Iterable[int], pool: str | None = None
                          ) -> dict[tuple[int, str], Rating]:
        """The stored ratings of these accounts ``(user id, pool) -> rating``, in one
        pool or in all of theirs (an account new to a pool has none)."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        query = select(ratings_table).where(ratings_table.c.user_id.in_(ids))
        if pool is not None:
            query = query.where(ratings_table.c.pool == pool)
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return {(row.user_id, row.pool): Rating(row.mu, row.sigma, row.games) for row in rows}

    async def changes(self, record_id: int) -> list[SeatChange]:
        """How each account's rating moved in a rated match, by seat (none for a match
        not rated, or not yet)."""
        history = rating_history_table
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(select(history).where(
                history.c.record_id == record_id).order_by(history.c.seat))).all()
        return [SeatChange(row.seat, row.user_id, row.before, row.after) for row in rows]

    async def is_rated(self, record_id: int) -> bool:
        """Whether the result of this record is counted in the ratings."""
        async with self._writer.engine.connect() as conn:
            found = (await conn.execute(select(rated_results_table.c.record_id).where(
                rated_results_table.c.record_id == record_id))).first()
        return found is not None

    async def history(self, user_id: int) -> list[tuple[str, int, int, int, int]]:
        """An account's rated matches, oldest first: (pool, record id, Unix
        milliseconds, display rating before, after)."""
        history = rating_history_table
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(select(history).where(
                history.c.user_id == user_id).order_by(history.c.id))).all()
        return [(row.pool, row.record_id, row.created_at, row.before, row.after)
                for row in rows]

    async def leaderboard(self, pool: str, limit: int, bots: bool = False
                          ) -> list[tuple[str, Rating]]:
        """The best rated accounts of a pool: (name, rating), highest first; people's, or
        with ``bots`` the bot accounts'."""
        is_bot = (users_table.c.bot_since.is_not(None) if bots
                  else users_table.c.bot_since.is_(None))
        query = (select(users_table.c.name, ratings_table)
                 .select_from(ratings_table.join(
                     users_table, users_table.c.id == ratings_table.c.user_id))
                 .where(ratings_table.c.pool == pool, is_bot)
                 .order_by(ratings_table.c.display.desc(), ratings_table.c.games.desc(),
                           users_table.c.name_key)
                 .limit(limit))
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [(row.name, Rating(row.mu, row.sigma, row.games)) for row in rows]

    async def pools(self, bots: bool = False) -> list[str]:
        """The pools in which some person's account (with ``bots``, some bot account)
        has a rating."""
        is_bot = (users_table.c.bot_since.is_not(None) if bots
                  else users_table.c.bot_since.is_(None))
        query = (select(ratings_table.c.pool).select_from(ratings_table.join(
            users_table, users_table.c.id == ratings_table.c.user_id)).where(is_bot)
            .distinct())
        async with self._writer.engine.connect() as conn:
            rows = await conn.execute(query)
            return sorted(rows.scalars())
