"""``basra admin``: the operator's moderation at the command line, on the server's
database (``--db URL``, the default one of ``basra serve`` when left out).

    basra admin grant-moderator NAME         (and revoke-moderator, moderators)
    basra admin mute NAME --for 1h --reason "abuse in chat"      (and unmute)
    basra admin ban NAME --for forever --reason "..."           (and unban)
    basra admin reset-rating NAME egyptian-2 --reason "..."
    basra admin rename NAME NEW --reason "..."
    basra admin close NAME --reason "..."
    basra admin reports [--all]              (and dismiss-report ID)
    basra admin audit [--name NAME] [--limit N]

Every action is written to the audit log as done by ``operator``; a running server sees
it at once (it reads sanctions from the database).
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import click

from basra.cli.common import Group, UserError, cli, out

Result = TypeVar("Result")


def _database(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--db", "--database", "database", metavar="URL",
        help="Database URL: sqlite:///PATH or postgresql+asyncpg://USER:PASS@HOST/DB "
             "[default: basra.db in the user data directory].")(command)


def _reason(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--reason", required=True, metavar="TEXT",
                        help="Why: written to the audit log and shown to the player.")(
        command)


def _with_store(database: str | None, work: Callable[[Any], Awaitable[Result]]) -> Result:
    """Run ``work(store)`` on the database; its refusals as one-line user errors."""
    from basra.players.accounts import AccountError
    from basra.server.errors import Refusal
    from basra.store import StorageError, Store

    async def main() -> Result:
        store = Store(database)
        await store.open()
        try:
            return await work(store)
        finally:
            await store.close()

    try:
        return asyncio.run(main())
    except (Refusal, AccountError, StorageError, ValueError) as error:
        raise UserError(str(error)) from None


def _act(database: str | None, **asked: Any) -> dict[str, Any]:
    from basra.server.moderating import Action, act
    from basra.store.moderation import OPERATOR

    return _with_store(database, lambda store: act(store, OPERATOR, Action(**asked)))


def _when(ms: int | None) -> str:
    if ms is None:
        return "for good"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime(
        "%Y-%m-%d %H:%M UTC")


def _seconds(text: str, option: str) -> int | None:
    from basra.players.moderation import ModerationInputError, duration_seconds

    try:
        return duration_seconds(text)
    except ModerationInputError as error:
        raise UserError(f"{option}: {error}") from None


@cli.group(cls=Group)
def admin() -> None:
    """Moderation for the server's operator: moderators, sanctions, reports, audit log."""


@admin.command("grant-moderator")
@click.argument("name")
@_database
@click.option("--reason", default="granted by the operator", show_default=True,
              metavar="TEXT", help="Written to the audit log.")
def grant_moderator(name: str, database: str | None, reason: str) -> None:
    """Make the account NAME a moderator (it sees /mod)."""
    from basra.server.moderating import find_user
    from basra.store.moderation import OPERATOR

    async def work(store: Any) -> tuple[str, bool]:
        user = await find_user(store, name)
        return user.name, await store.moderation.grant(OPERATOR, user.id, user.name, reason)

    shown, granted = _with_store(database, work)
    out.print(f"{shown} is {'now' if granted else 'already'} a moderator", soft_wrap=True)


@admin.command("revoke-moderator")
@click.argument("name")
@_database
@click.option("--reason", default="revoked by the operator", show_default=True,
              metavar="TEXT", help="Written to the audit log.")
def revoke_moderator(name: str, database: str | None, reason: str) -> None:
    """The account NAME is no longer a moderator."""
    from basra.server.moderating import find_user
    from basra.store.moderation import OPERATOR

    async def work(store: Any) -> tuple[str, bool]:
        user = await find_user(store, name)
        return user.name, await store.moderation.revoke(OPERATOR, user.id, user.name, reason)

    shown, revoked = _with_store(database, work)
    if not revoked:
        raise UserError(f"{shown} is not a moderator")
    out.print(f"{shown} is no longer a moderator", soft_wrap=True)


@admin.command()
@_database
def moderators(database: str | None) -> None:
    """List the moderators."""
    names: list[str] = _with_store(database, lambda store: store.moderation.moderators())
    out.print("\n".join(names) if names else "no moderators", soft_wrap=True)


@admin.command()
@click.argument("name")
@click.option("--for", "duration", required=True, metavar="DURATION",
              help="How long: 30m, 12h, 7d, 2w, or forever.")
@_reason
@_database
def mute(name: str, duration: str, reason: str, database: str | None) -> None:
    """Mute the account NAME: its chat is refused until the time is up."""
    done = _act(database, action="mute", name=name, reason=reason,
                seconds=_seconds(duration, "--for"))
    out.print(f"{done['name']} is muted {_until(done['until'])}", soft_wrap=True)


@admin.command()
@click.argument("name")
@click.option("--for", "duration", default="forever", show_default=True,
              metavar="DURATION", help="How long: 30m, 12h, 7d, 2w, or forever.")
@_reason
@_database
def ban(name: str, duration: str, reason: str, database: str | None) -> None:
    """Ban the account NAME from rated play: its rated seeks are refused."""
    done = _act(database, action="ban", name=name, reason=reason,
                seconds=_seconds(duration, "--for"))
    out.print(f"{done['name']} is banned from rated play {_until(done['until'])}",
              soft_wrap=True)


def _until(ms: int | None) -> str:
    return "for good" if ms is None else f"until {_when(ms)}"


@admin.command()
@click.argument("name")
@_reason
@_database
def unmute(name: str, reason: str, database: str | None) -> None:
    """Lift the account NAME's mute."""
    done = _act(database, action="lift_mute", name=name, reason=reason)
    out.print(f"{done['name']} may chat again", soft_wrap=True)


@admin.command()
@click.argument("name")
@_reason
@_database
def unban(name: str, reason: str, database: str | None) -> None:
    """Lift the account NAME's ban from rated play."""
    done = _act(database, action="lift_ban", name=name, reason=reason)
    out.print(f"{done['name']} may play rated games again", soft_wrap=True)


@admin.command("reset-rating")
@click.argument("name")
@click.argument("pool")
@_reason
@_database
def reset_rating(name: str, pool: str, reason: str, database: str | None) -> None:
    """Reset the account NAME's rating in POOL (egyptian-2, pasur-3, ...)."""
    done = _act(database, action="reset_rating", name=name, pool=pool, reason=reason)
    out.print(f"{done['name']}'s {done['pool']} rating ({done['rating']}) is reset",
              soft_wrap=True)


@admin.command()
@click.argument("name")
@click.argument("new_name", metavar="NEW")
@_reason
@_database
def rename(name: str, new_name: str, reason: str, database: str | None) -> None:
    """Give the account NAME the name NEW (it must pass the name rules)."""
    done = _act(database, action="rename", name=name, new_name=new_name, reason=reason)
    out.print(f"{done['name']} is now {done['new_name']}", soft_wrap=True)


@admin.command()
@click.argument("name")
@_reason
@_database
def close(name: str, reason: str, database: str | None) -> None:
    """Close the account NAME: log-ins refused, sessions ended, the name kept."""
    done = _act(database, action="close", name=name, reason=reason)
    out.print(f"{done['name']}'s account is closed", soft_wrap=True)


@admin.command()
@click.option("--all", "every", is_flag=True, help="Settled reports too.")
@_database
def reports(every: bool, database: str | None) -> None:
    """List the open reports (oldest first), with their chat lines."""
    found = _with_store(database, lambda store: store.moderation.reports(
        None if every else "open"))
    if not found:
        out.print("no reports" if every else "no open reports")
        return
    for report in found:
        where = f" at table {report.table_code} seat {report.seat}" if report.table_code else ""
        said = f": {report.text}" if report.text else ""
        out.print(f"#{report.id} {_when(report.created_at)} [{report.status}] "
                  f"{report.reporter} reports {report.target_name}{where} for "
                  f"{report.reason}{said}", soft_wrap=True, markup=False)
        for line in report.chat:
            sender = line.get("from", {}).get("name", "?")
            out.print(f"    {sender}: {line.get('text') or line.get('phrase')}",
                      soft_wrap=True, markup=False)


@admin.command("dismiss-report")
@click.argument("report", type=click.IntRange(min=1))
@_reason
@_database
def dismiss_report(report: int, reason: str, database: str | None) -> None:
    """Dismiss the open report REPORT (its number in ``basra admin reports``)."""
    _act(database, action="dismiss_report", report=report, reason=reason)
    out.print(f"report #{report} is dismissed")


@admin.command()
@click.option("--name", metavar="NAME", help="Only the actions on this account.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True)
@_database
def audit(name: str | None, limit: int, database: str | None) -> None:
    """The audit log, newest first: who did what to whom, when and why."""
    from basra.server.moderating import find_user

    async def work(store: Any) -> list[Any]:
        user_id = None if name is None else (await find_user(store, name)).id
        entries: list[Any] = await store.moderation.audit_log(limit, user_id)
        return entries

    entries = _with_store(database, work)
    if not entries:
        out.print("the audit log is empty")
    for entry in entries:
        target = f" {entry.target}" if entry.target else ""
        details = "".join(f" {key}={value}" for key, value in entry.details.items())
        out.print(f"{_when(entry.created_at)} {entry.moderator}: {entry.action}{target}"
                  f"{details} ({entry.reason})", soft_wrap=True, markup=False)
