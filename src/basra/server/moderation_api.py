"""Reports, blocks, sanctions and the moderation page over HTTP (``docs/web-protocol.md``,
"Moderation").

    POST /api/reports          {reason, text?, name? | table + seat} -> 201 {"id"}
    GET  /api/blocks           -> {"blocked": [{"name", "since"}]}
    POST /api/blocks           {name} -> the list, with the name blocked
    POST /api/blocks/remove    {name} -> the list, without it
    GET  /api/me/standing      -> {"moderator", "sanctions": [{kind, reason, until}]}
    GET  /api/mod              -> the queue: reports, flags, puzzles waiting, audit log
    POST /api/mod/actions      {action, reason, name?, minutes?, pool?, new_name?,
                                report?, flag?, puzzle?} -> what was done
    GET  /mod                  the moderation page

Reports and blocks need an account (401 ``login_required`` for a guest); ``/api/mod`` and
``/mod`` are for moderators only (403 ``moderators_only``). A report made at a table is
completed by the table's owner (whichever server it is on): the seat's name and account,
the table's latest chat lines and its latest record.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from basra.players.moderation import (
    LONGEST_SANCTION,
    REPORT_REASONS,
    REPORT_TEXT_LENGTH,
    ModerationInputError,
    clean_text,
)
from basra.store import Store, StoredUser
from basra.store.moderation import Actor

from .accounts_api import accounts_of
from .bodies import ActionBody, NameBody, ReportBody, openapi_body, read_json
from .deps import StoreOf, account_settings, hub_of, store_of
from .errors import (
    ElsewhereError,
    ExpiredTableError,
    LoginRequiredError,
    ModerationError,
    UnknownTableError,
)
from .hub import Hub
from .moderating import Action, act, find_user
from .pages import render
from .sessions import request_account
from .table import Table

__all__ = ["register", "router"]

router = APIRouter()

MAX_BODY = 8192
"""Largest body of a report, a block or an action, in bytes."""

_NO_STORE = {"Cache-Control": "no-store"}


# -- who asks ----------------------------------------------------------------------------

async def _user(request: Request) -> StoredUser:
    """The logged-in account, or :class:`LoginRequiredError`."""
    user = await request_account(store_of(request), request, account_settings(request).clock)
    if user is None:
        raise LoginRequiredError("reports and blocks are for players with an account: "
                                 "log in first")
    return user


async def _moderator(request: Request) -> StoredUser:
    """The logged-in moderator, or 403 ``moderators_only``."""
    store = store_of(request)
    user = await request_account(store, request, account_settings(request).clock)
    if user is None or not await store.moderation.is_moderator(user.id):
        raise ModerationError("moderators_only", "this is for moderators only")
    return user


def _bad(code: str, error: ModerationInputError) -> ModerationError:
    return ModerationError(code, str(error))


# -- reports -----------------------------------------------------------------------------

def report_context(hub: Hub, table: Table, seat: object) -> dict[str, Any]:
    """What a report made at a table this server owns keeps: the seat's name and account,
    the table's latest chat lines, its latest record. ``{"refused": ...}`` for a seat
    with no person in it."""
    if isinstance(seat, bool) or not isinstance(seat, int) \
            or not 0 <= seat < table.rules.players:
        return {"refused": f"seat {seat!r:.20} is not a seat of table {table.code}"}
    name = table.names[seat]
    if name is None or not table.is_human(seat):
        return {"refused": f"nobody is seated at seat {seat} of table {table.code}"}
    account = table.accounts[seat]
    return {"name": name, "account": None if account is None else list(account),
            "chat": list(hub.play.chat.lines.get(table.code, ())),
            "record": table.record_ids[-1] if table.record_ids else None}


def register(hub: Hub) -> None:
    """Let other servers ask this one for the context of a report at its tables."""

    async def context_call(args: dict[str, Any]) -> dict[str, Any]:
        code = str(args.get("code"))
        try:
            table = await hub.table(code)
        except ElsewhereError as error:
            return {"error": "elsewhere", "owner": error.args[1]}
        except (UnknownTableError, ExpiredTableError):
            return {"error": "unknown"}
        return {"value": report_context(hub, table, args.get("seat"))}

    hub.relay.call_handlers["report_context"] = context_call


@router.post("/api/reports", status_code=201, openapi_extra=openapi_body(ReportBody, True))
async def report(request: Request, store: StoreOf) -> JSONResponse:
    """Report a player: by ``name`` (an account), or by ``table`` and ``seat``."""
    accounts_of(request).same_site(request)
    user = await _user(request)
    body = await read_json(request, MAX_BODY)
    reason = body.get("reason")
    if reason not in REPORT_REASONS:
        raise ModerationError("bad_report", f"reason {reason!r:.40} is not one of "
                              f"{', '.join(REPORT_REASONS)}")
    try:
        text = clean_text(body.get("text"), REPORT_TEXT_LENGTH, "text",
                          required=reason == "other")
    except ModerationInputError as error:
        raise _bad("bad_report", error) from None
    code, seat = body.get("table"), body.get("seat")
    chat: list[dict[str, Any]] = []
    record_id: int | None = None
    if code is not None:
        if not isinstance(code, str) or not 0 < len(code) <= 32:
            raise ModerationError("bad_report", "table must be a table's code")
        hub = hub_of(request)

        async def here(table: Table) -> dict[str, Any]:
            return report_context(hub, table, seat)

        found = await hub.relay.at_owner(code, "report_context", {"seat": seat}, here)
        if "refused" in found:
            raise ModerationError("bad_report", str(found["refused"]))
        name, chat, record_id = str(found["name"]), list(found["chat"]), found["record"]
        account = found["account"]
        target_id = None if account is None else int(account[0])
        key = (f"user:{target_id}" if target_id is not None
               else f"seat:{code}:{seat}:{name}")
    else:
        target = await find_user(store, body.get("name"))
        name, target_id, key, seat = target.name, target.id, f"user:{target.id}", None
    if target_id == user.id:
        raise ModerationError("bad_report", "you cannot report yourself")
    made = await store.moderation.report(
        user.id, target_id=target_id, target_key=key, target_name=name, table_code=code,
        seat=seat, record_id=record_id, reason=str(reason), text=text, chat=chat)
    if made is None:
        raise ModerationError("report_open", f"you reported {name} already; a moderator "
                              "will look at it", name=name)
    return JSONResponse({"id": made}, status_code=201, headers=_NO_STORE)


# -- blocks ------------------------------------------------------------------------------

async def _blocks(store: Store, user: StoredUser) -> JSONResponse:
    listed = await store.moderation.blocked(user.id)
    return JSONResponse({"blocked": [{"name": name, "since": since}
                                     for name, since in listed]}, headers=_NO_STORE)


@router.get("/api/blocks")
async def blocks(request: Request, store: StoreOf) -> JSONResponse:
    """The accounts this player blocked."""
    return await _blocks(store, await _user(request))


@router.post("/api/blocks", openapi_extra=openapi_body(NameBody, True))
async def block(request: Request, store: StoreOf) -> JSONResponse:
    """Block an account: its chat is hidden from you, you are never paired, and neither
    of you follows the other any more."""
    accounts_of(request).same_site(request)
    user = await _user(request)
    target = await find_user(store, (await read_json(request, MAX_BODY)).get("name"))
    if target.id == user.id:
        raise ModerationError("bad_block", "you cannot block yourself")
    await store.moderation.block(user.id, target.id)
    return await _blocks(store, user)


@router.post("/api/blocks/remove", openapi_extra=openapi_body(NameBody, True))
async def unblock(request: Request, store: StoreOf) -> JSONResponse:
    """Lift a block."""
    accounts_of(request).same_site(request)
    user = await _user(request)
    target = await find_user(store, (await read_json(request, MAX_BODY)).get("name"))
    await store.moderation.unblock(user.id, target.id)
    return await _blocks(store, user)


# -- a player's standing -----------------------------------------------------------------

@router.get("/api/me/standing")
async def standing(request: Request, store: StoreOf) -> JSONResponse:
    """The sanctions that hold for this player now (what and why), and whether they
    moderate. A guest has none."""
    user = await request_account(store, request, account_settings(request).clock)
    if user is None:
        return JSONResponse({"moderator": False, "sanctions": []}, headers=_NO_STORE)
    now = int(account_settings(request).clock() * 1000)
    held = await store.moderation.sanctions(user.id, now)
    return JSONResponse({"moderator": await store.moderation.is_moderator(user.id),
                         "sanctions": [s.to_dict() for s in held]}, headers=_NO_STORE)


# -- moderators --------------------------------------------------------------------------

@router.get("/api/mod")
async def queue(request: Request, store: StoreOf) -> JSONResponse:
    """The moderation queue: open reports (with their chat lines), open flags, mined
    puzzles waiting, the latest of the audit log, and the moderators."""
    await _moderator(request)
    moderation = store.moderation
    flags = await store.flags.listed("open")
    names = await moderation.names(
        [i for f in flags for i in (f.user_id, f.other_user_id) if i is not None])
    listed = []
    for flag in flags:
        shown = flag.to_dict()
        shown["user"] = names.get(flag.user_id) if flag.user_id is not None else None
        shown["other_user"] = (names.get(flag.other_user_id)
                               if flag.other_user_id is not None else None)
        listed.append(shown)
    return JSONResponse({
        "reports": [r.to_dict() for r in await moderation.reports("open")],
        "flags": listed,
        "puzzles": await moderation.pending_puzzles(),
        "audit": [e.to_dict() for e in await moderation.audit_log(100)],
        "moderators": await moderation.moderators(),
    }, headers=_NO_STORE)


def _optional_int(body: dict[str, Any], key: str, low: int, high: int) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ModerationError("bad_action", f"{key} must be a whole number from {low} to "
                              f"{high}, not {value!r:.40}")
    return value


def _optional_text(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise ModerationError("bad_action", f"{key} must be text, not {value!r:.40}")
    return value


@router.post("/api/mod/actions", openapi_extra=openapi_body(ActionBody, True))
async def action(request: Request, store: StoreOf) -> JSONResponse:
    """Do a moderator's action (and write it to the audit log)."""
    accounts_of(request).same_site(request)
    moderator = await _moderator(request)
    body = await read_json(request, MAX_BODY)
    minutes = _optional_int(body, "minutes", 1, LONGEST_SANCTION // 60)
    done = await act(store, Actor(moderator.id, moderator.name), Action(
        action=str(body.get("action")), reason=body.get("reason"),
        name=_optional_text(body, "name"),
        seconds=None if minutes is None else minutes * 60,
        pool=_optional_text(body, "pool"), new_name=_optional_text(body, "new_name"),
        report=_optional_int(body, "report", 1, 2**62),
        flag=_optional_int(body, "flag", 1, 2**62), puzzle=_optional_text(body, "puzzle")))
    return JSONResponse(done, headers=_NO_STORE)


@router.get("/mod", include_in_schema=False)
async def moderation_page(request: Request) -> Response:
    """The moderation page (moderators only)."""
    await _moderator(request)
    page = render(request, "moderation")
    page.headers["Cache-Control"] = "no-store"
    return page
