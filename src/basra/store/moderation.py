"""Moderation (``store.moderation``): moderators, players' reports and blocks, sanctions,
mined puzzles waiting for a moderator, and the audit log. Its tables are in ``schema.py``
(made by migration 0011):

=================  ==========================================================
table              rows
=================  ==========================================================
basra_moderators   one per account the operator made a moderator
basra_reports      one per report of a player (with the table's chat lines)
basra_blocks       one per account that blocked another
basra_sanctions    one per mute, ban from rated play or closed account
basra_audit        one per moderator's action: who, when, what, to whom, why
=================  ==========================================================

Every action of a moderator (:class:`Actor`) is written with its line of the audit log in
one transaction: nothing is done that the log does not show.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, insert, or_, select, update

from basra.players.moderation import REPORT_REASONS

from .schema import (
    SANCTION_KINDS,
    audit_table,
    blocks_table,
    flags_table,
    follows_table,
    mined_puzzles_table,
    moderators_table,
    ratings_table,
    reports_table,
    sanctions_table,
    sessions_table,
    users_table,
)
from .writer import Writer, insert_new, now_ms

__all__ = ["OPERATOR", "Actor", "AuditEntry", "Moderation", "Report", "Sanction"]


@dataclass(frozen=True)
class Actor:
    """Who acts: a moderator's account (``id``, ``name``), or the operator at the command
    line (:data:`OPERATOR`)."""

    id: int | None
    name: str


OPERATOR = Actor(None, "operator")
"""The server's operator, acting with ``basra admin``."""


@dataclass(frozen=True)
class Sanction:
    """A sanction of an account: ``kind`` from :data:`~basra.store.schema.SANCTION_KINDS`,
    why, until when (Unix milliseconds; None: for good)."""

    id: int
    user_id: int
    kind: str
    reason: str
    until: int | None
    lifted_at: int | None
    created_by: str
    created_at: int

    def active(self, now: int) -> bool:
        """Whether it holds at ``now`` (Unix milliseconds)."""
        return self.lifted_at is None and (self.until is None or self.until > now)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "reason": self.reason,
                "until": self.until, "created_at": self.created_at}


@dataclass(frozen=True)
class Report:
    """A player's report of another (see ``basra_reports`` in ``schema.py``)."""

    id: int
    reporter_id: int
    reporter: str
    target_id: int | None
    target_key: str
    target_name: str
    table_code: str | None
    seat: int | None
    record_id: int | None
    reason: str
    text: str
    chat: list[dict[str, Any]]
    status: str
    created_at: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "reporter": self.reporter, "target": self.target_name,
                "target_account": self.target_id is not None, "table": self.table_code,
                "seat": self.seat, "record": self.record_id, "reason": self.reason,
                "text": self.text, "chat": self.chat, "status": self.status,
                "created_at": self.created_at}


@dataclass(frozen=True)
class AuditEntry:
    """One line of the audit log."""

    id: int
    moderator: str
    action: str
    user_id: int | None
    target: str
    reason: str
    details: dict[str, Any]
    created_at: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "moderator": self.moderator, "action": self.action,
                "target": self.target, "reason": self.reason, "details": self.details,
                "created_at": self.created_at}


def _sanction(row: Any) -> Sanction:
    return Sanction(row.id, row.user_id, row.kind, row.reason, row.until, row.lifted_at,
                    row.created_by, row.created_at)


def _audit(conn: Connection, actor: Actor, action: str, user_id: int | None, target: str,
           reason: str, details: dict[str, Any] | None = None) -> None:
    conn.execute(insert(audit_table).values(
        moderator_id=actor.id, moderator=actor.name[:64], action=action, user_id=user_id,
        target=target[:64], reason=reason, details=json.dumps(details or {}),
        created_at=now_ms()))


class Moderation:
    """Moderators, reports, blocks, sanctions and the audit log (``store.moderation``):
    written through the store's writer."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    # -- moderators --------------------------------------------------------------------

    async def is_moderator(self, user_id: int) -> bool:
        """Whether the account is a moderator."""
        async with self._writer.engine.connect() as conn:
            found = (await conn.execute(select(moderators_table.c.user_id).where(
                moderators_table.c.user_id == user_id))).first()
        return found is not None

    async def moderators(self) -> list[str]:
        """The moderators' names, alphabetically."""
        query = (select(users_table.c.name).join(
            moderators_table, moderators_table.c.user_id == users_table.c.id)
            .order_by(users_table.c.name_key))
        async with self._writer.engine.connect() as conn:
            return [row[0] for row in (await conn.execute(query)).all()]

    async def grant(self, actor: Actor, user_id: int, name: str, reason: str) -> bool:
        """Make the account a moderator; False when it is one already."""

        def write(conn: Connection) -> bool:
            added = conn.execute(insert_new(conn, moderators_table, ["user_id"]).values(
                user_id=user_id, granted_by=actor.name[:64], granted_at=now_ms()))
            if added.rowcount == 0:
                return False
            _audit(conn, actor, "grant_moderator", user_id, name, reason)
            return True

        return bool(await self._writer.commit(write))

    async def revoke(self, actor: Actor, user_id: int, name: str, reason: str) -> bool:
        """The account is no longer a moderator; False when it was not one."""

        def write(conn: Connection) -> bool:
            gone = conn.execute(delete(moderators_table).where(
                moderators_table.c.user_id == user_id))
            if gone.rowcount == 0:
                return False
            _audit(conn, actor, "revoke_moderator", user_id, name, reason)
            return True

        return bool(await self._writer.commit(write))

    # -- reports -----------------------------------------------------------------------

    async def report(self, reporter_id: int, *, target_id: int | None, target_key: str,
                     target_name: str, table_code: str | None, seat: int | None,
                     record_id: int | None, reason: str, text: str,
                     chat: list[dict[str, Any]]) -> int | None:
        """File a report: its id, or None when the reporter has an open report of the
        same target already. Raises ``ValueError`` for an unknown reason."""
        if reason not in REPORT_REASONS:
            raise ValueError(f"unknown report reason {reason!r}; expected one of "
                             f"{', '.join(REPORT_REASONS)}")
        values = {"reporter_id": reporter_id, "target_id": target_id,
                  "target_key": target_key[:200], "target_name": target_name[:64],
                  "table_code": table_code, "seat": seat, "record_id": record_id,
                  "reason": reason, "text": text, "chat": json.dumps(chat),
                  "status": "open", "created_at": now_ms()}

        def write(conn: Connection) -> int | None:
            table = reports_table
            found = conn.execute(select(table.c.id).where(
                table.c.reporter_id == reporter_id, table.c.target_key == values["target_key"],
                table.c.status == "open")).first()
            if found is not None:
                return None
            made = conn.execute(insert(table).values(**values))
            key = made.inserted_primary_key
            assert key is not None
            return int(key[0])

        made: int | None = await self._writer.commit(write)
        return made

    async def reports(self, status: str | None = "open", limit: int = 200) -> list[Report]:
        """Reports, oldest first: those with ``status`` (all when None)."""
        reporter = users_table.alias("reporter")
        query = (select(reports_table, reporter.c.name.label("reporter_name"))
                 .join(reporter, reporter.c.id == reports_table.c.reporter_id, isouter=True)
                 .order_by(reports_table.c.id).limit(limit))
        if status is not None:
            query = query.where(reports_table.c.status == status)
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [Report(row.id, row.reporter_id, row.reporter_name or "?", row.target_id,
                       row.target_key, row.target_name, row.table_code, row.seat,
                       row.record_id, row.reason, row.text, list(json.loads(row.chat)),
                       row.status, row.created_at) for row in rows]

    async def settle_report(self, actor: Actor, report_id: int, status: str,
                            reason: str) -> bool:
        """Mark an open report ``dismissed`` or ``actioned``; False when there is no open
        report with the id."""
        if status not in ("dismissed", "actioned"):
            raise ValueError(f"bad report status {status!r}; expected dismissed or actioned")

        def write(conn: Connection) -> bool:
            row = conn.execute(select(reports_table.c.target_id, reports_table.c.target_name)
                               .where(reports_table.c.id == report_id,
                                      reports_table.c.status == "open")).first()
            if row is None:
                return False
            conn.execute(update(reports_table).where(reports_table.c.id == report_id)
                         .values(status=status, settled_at=now_ms()))
            action = "dismiss_report" if status == "dismissed" else "settle_report"
            _audit(conn, actor, action, row.target_id, row.target_name, reason,
                   {"report": report_id})
            return True

        return bool(await self._writer.commit(write))

    async def settle_flag(self, actor: Actor, flag_id: int, status: str,
                          reason: str) -> bool:
        """Mark an open flag ``dismissed`` or ``actioned``, in the audit log; False when
        there is no open flag with the id."""
        if status not in ("dismissed", "actioned"):
            raise ValueError(f"bad flag status {status!r}; expected dismissed or actioned")

        def write(conn: Connection) -> bool:
            row = conn.execute(select(flags_table.c.kind, flags_table.c.user_id).where(
                flags_table.c.id == flag_id, flags_table.c.status == "open")).first()
            if row is None:
                return False
            conn.execute(update(flags_table).where(flags_table.c.id == flag_id)
                         .values(status=status))
            name = "" if row.user_id is None else conn.execute(select(
                users_table.c.name).where(users_table.c.id == row.user_id)).scalar() or ""
            action = "dismiss_flag" if status == "dismissed" else "settle_flag"
            _audit(conn, actor, action, row.user_id, name, reason,
                   {"flag": flag_id, "kind": row.kind})
            return True

        return bool(await self._writer.commit(write))

    # -- blocks ------------------------------------------------------------------------

    async def block(self, user_id: int, blocked_id: int) -> None:
        """The account ``user_id`` blocks ``blocked_id`` (nothing new if it did already);
        neither follows the other any more."""

        def write(conn: Connection) -> None:
            conn.execute(insert_new(conn, blocks_table, ["user_id", "blocked_id"]).values(
                user_id=user_id, blocked_id=blocked_id, created_at=now_ms()))
            conn.execute(delete(follows_table).where(or_(
                and_(follows_table.c.user_id == user_id,
                     follows_table.c.followed_id == blocked_id),
                and_(follows_table.c.user_id == blocked_id,
                     follows_table.c.followed_id == user_id))))

        await self._writer.commit(write)

    async def unblock(self, user_id: int, blocked_id: int) -> bool:
        """Lift a block; False when there was none."""

        def write(conn: Connection) -> bool:
            gone = conn.execute(delete(blocks_table).where(
                blocks_table.c.user_id == user_id, blocks_table.c.blocked_id == blocked_id))
            return bool(gone.rowcount)

        return bool(await self._writer.commit(write))

    async def blocked(self, user_id: int) -> list[tuple[str, int]]:
        """The accounts ``user_id`` blocked: (name, when), newest first."""
        query = (select(users_table.c.name, blocks_table.c.created_at)
                 .join(users_table, users_table.c.id == blocks_table.c.blocked_id)
                 .where(blocks_table.c.user_id == user_id)
                 .order_by(blocks_table.c.created_at.desc()))
        async with self._writer.engine.connect() as conn:
            return [(row[0], row[1]) for row in (await conn.execute(query)).all()]

    async def blockers(self, sender_id: int, viewers: Iterable[int]) -> set[int]:
        """Those of ``viewers`` that blocked ``sender_id`` (they are not shown its chat)."""
        wanted = sorted(set(viewers))
        if not wanted:
            return set()
        query = select(blocks_table.c.user_id).where(
            blocks_table.c.blocked_id == sender_id, blocks_table.c.user_id.in_(wanted))
        async with self._writer.engine.connect() as conn:
            return {row[0] for row in (await conn.execute(query)).all()}

    async def avoided(self, user_id: int) -> set[int]:
        """The accounts never to pair with ``user_id``: those it blocked and those that
        blocked it."""
        query = select(blocks_table.c.user_id, blocks_table.c.blocked_id).where(or_(
            blocks_table.c.user_id == user_id, blocks_table.c.blocked_id == user_id))
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return {b if a == user_id else a for a, b in rows}

    # -- sanctions ---------------------------------------------------------------------

    async def sanctions(self, user_id: int, now: int | None = None) -> list[Sanction]:
        """The account's sanctions that hold at ``now`` (every one, lifted and ended too,
        when ``now`` is None), newest first."""
        query = (select(sanctions_table).where(sanctions_table.c.user_id == user_id)
                 .order_by(sanctions_table.c.id.desc()))
        async with self._writer.engine.connect() as conn:
            found = [_sanction(row) for row in (await conn.execute(query)).all()]
        return found if now is None else [s for s in found if s.active(now)]

    async def active(self, user_id: int, kind: str, now: int) -> Sanction | None:
        """The sanction of this kind that holds at ``now`` and lasts longest, if any."""
        if kind not in SANCTION_KINDS:
            raise ValueError(f"unknown sanction {kind!r}")
        query = select(sanctions_table).where(
            sanctions_table.c.user_id == user_id, sanctions_table.c.kind == kind,
            sanctions_table.c.lifted_at.is_(None),
            or_(sanctions_table.c.until.is_(None), sanctions_table.c.until > now))
        async with self._writer.engine.connect() as conn:
            found = [_sanction(row) for row in (await conn.execute(query)).all()]
        if not found:
            return None
        return max(found, key=lambda s: (s.until is None, s.until or 0))

    async def sanction(self, actor: Actor, user_id: int, name: str, kind: str, reason: str,
                       until: int | None) -> Sanction:
        """Mute an account, ban it from rated play, or close it (its sessions end at
        once), until ``until`` (Unix milliseconds; None: for good)."""
        if kind not in SANCTION_KINDS:
            raise ValueError(f"unknown sanction {kind!r}; expected one of "
                             f"{', '.join(SANCTION_KINDS)}")
        now = now_ms()

        def write(conn: Connection) -> Sanction:
            made = conn.execute(insert(sanctions_table).values(
                user_id=user_id, kind=kind, reason=reason, until=until,
                created_by=actor.name[:64], created_at=now))
            key = made.inserted_primary_key
            assert key is not None
            if kind == "closed":
                conn.execute(delete(sessions_table).where(
                    sessions_table.c.user_id == user_id))
            action = {"mute": "mute", "rated_ban": "ban", "closed": "close"}[kind]
            _audit(conn, actor, action, user_id, name, reason, {"until": until})
            return Sanction(int(key[0]), user_id, kind, reason, until, None,
                            actor.name[:64], now)

        made: Sanction = await self._writer.commit(write)
        return made

    async def lift(self, actor: Actor, user_id: int, name: str, kind: str,
                   reason: str) -> int:
        """End the account's sanctions of this kind now: how many held."""
        if kind not in SANCTION_KINDS:
            raise ValueError(f"unknown sanction {kind!r}")
        now = now_ms()

        def write(conn: Connection) -> int:
            table = sanctions_table
            lifted = conn.execute(update(table).where(
                table.c.user_id == user_id, table.c.kind == kind, table.c.lifted_at.is_(None),
                or_(table.c.until.is_(None), table.c.until > now)).values(lifted_at=now))
            if lifted.rowcount:
                action = {"mute": "lift_mute", "rated_ban": "lift_ban"}.get(kind, "reopen")
                _audit(conn, actor, action, user_id, name, reason)
            return int(lifted.rowcount)

        count: int = await self._writer.commit(write)
        return count

    # -- accounts ----------------------------------------------------------------------

    async def rename(self, actor: Actor, user_id: int, old_name: str, name: str,
                     name_key: str, reason: str) -> bool:
        """Give the account a new name; False when another account has its key."""

        def write(conn: Connection) -> bool:
            taken = conn.execute(select(users_table.c.id).where(
                users_table.c.name_key == name_key, users_table.c.id != user_id)).first()
            if taken is not None:
                return False
            conn.execute(update(users_table).where(users_table.c.id == user_id)
                         .values(name=name, name_key=name_key))
            _audit(conn, actor, "rename", user_id, old_name, reason,
                   {"from": old_name, "to": name})
            return True

        return bool(await self._writer.commit(write))

    async def reset_rating(self, actor: Actor, user_id: int, name: str, pool: str,
                           reason: str) -> int | None:
        """Forget the account's rating in one pool (it starts again): the display rating
        it had, or None when it had none there."""

        def write(conn: Connection) -> int | None:
            where = and_(ratings_table.c.user_id == user_id, ratings_table.c.pool == pool)
            had = conn.execute(select(ratings_table.c.display).where(where)).scalar()
            if had is None:
                return None
            conn.execute(delete(ratings_table).where(where))
            _audit(conn, actor, "reset_rating", user_id, name, reason,
                   {"pool": pool, "rating": had})
            return int(had)

        had: int | None = await self._writer.commit(write)
        return had

    # -- mined puzzles -----------------------------------------------------------------

    async def pending_puzzles(self, limit: int = 200) -> list[dict[str, Any]]:
        """Mined puzzles waiting for a moderator, oldest first: id, record, puzzle."""
        table = mined_puzzles_table
        query = (select(table.c.id, table.c.record_id, table.c.puzzle)
                 .where(table.c.status == "pending").order_by(table.c.created_at)
                 .limit(limit))
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [{"id": row.id, "record": row.record_id, "puzzle": json.loads(row.puzzle)}
                for row in rows]

    async def settle_puzzle(self, actor: Actor, puzzle_id: str, accept: bool,
                            reason: str) -> bool:
        """Accept a pending mined puzzle into the public set, or reject it; False when no
        puzzle with the id is pending. The record's ``puzzle_mining`` flags are settled
        once none of its puzzles waits."""
        table = mined_puzzles_table

        def write(conn: Connection) -> bool:
            record_id = conn.execute(select(table.c.record_id).where(
                table.c.id == puzzle_id, table.c.status == "pending")).scalar()
            if record_id is None:
                return False
            conn.execute(update(table).where(table.c.id == puzzle_id).values(
                status="public" if accept else "rejected"))
            waiting = conn.execute(select(table.c.id).where(
                table.c.record_id == record_id, table.c.status == "pending")).first()
            if waiting is None:
                conn.execute(update(flags_table).where(
                    flags_table.c.kind == "puzzle_mining",
                    flags_table.c.record_id == record_id,
                    flags_table.c.status == "open").values(status="actioned"))
            _audit(conn, actor, "accept_puzzle" if accept else "reject_puzzle", None, "",
                   reason, {"puzzle": puzzle_id, "record": int(record_id)})
            return True

        return bool(await self._writer.commit(write))

    # -- the audit log -----------------------------------------------------------------

    async def audit_log(self, limit: int = 200, user_id: int | None = None
                        ) -> list[AuditEntry]:
        """The audit log, newest first (of one account when ``user_id`` is given)."""
        query = select(audit_table).order_by(audit_table.c.id.desc()).limit(limit)
        if user_id is not None:
            query = query.where(audit_table.c.user_id == user_id)
        async with self._writer.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [AuditEntry(row.id, row.moderator, row.action, row.user_id, row.target,
                           row.reason, dict(json.loads(row.details)), row.created_at)
                for row in rows]

    async def names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The names of these accounts."""
        wanted = sorted(set(user_ids))
        if not wanted:
            return {}
        query = select(users_table.c.id, users_table.c.name).where(
            users_table.c.id.in_(wanted))
        async with self._writer.engine.connect() as conn:
            return {row[0]: row[1] for row in (await conn.execute(query)).all()}
