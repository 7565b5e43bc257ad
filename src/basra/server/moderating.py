"""A moderator's actions, checked and done: the one place the moderation page
(``moderation_api.py``) and ``basra admin`` (``basra.cli.admin``) both go through.

Each action is done with its line of the audit log (``store.moderation``); a refusal
raises one of the server's errors (:mod:`.errors`), whose message says what is wrong.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from basra.players.accounts import check_name, name_key
from basra.players.moderation import (
    ACTIONS,
    REASON_LENGTH,
    SANCTIONS_OF,
    ModerationInputError,
    clean_text,
)
from basra.players.ratings import parse_pool, pool_key
from basra.store import Store, StoredUser
from basra.store.moderation import Actor

from .errors import ModerationError, NameTakenError, UnknownUserError

__all__ = ["Action", "act", "find_user"]


@dataclass(frozen=True)
class Action:
    """What a moderator asks: the ``action`` (:data:`~basra.players.moderation.ACTIONS`),
    its account's ``name`` or its report, flag or puzzle, and why."""

    action: str
    reason: object
    """Why (text, required): checked here."""
    name: str | None = None
    seconds: int | None = None
    """How long a mute or ban lasts; None: for good."""
    pool: str | None = None
    new_name: str | None = None
    report: int | None = None
    """A report this action answers (settled as acted on with it)."""
    flag: int | None = None
    """A flag this action answers (settled as acted on with it)."""
    puzzle: str | None = None


async def find_user(store: Store, name: object) -> StoredUser:
    """The account of this name, or :class:`UnknownUserError`."""
    if not isinstance(name, str) or not 0 < len(name.strip()) <= 100:
        raise ModerationError("bad_action", "give the name of an account")
    user = await store.accounts.find(name_key(name.strip()))
    if user is None:
        raise UnknownUserError(f"no player is called {name.strip()[:40]!r}",
                               name=name.strip()[:40])
    return user


async def act(store: Store, actor: Actor, asked: Action) -> dict[str, Any]:
    """Do a moderator's action (written to the audit log, and told to the player it acts
    on as a ``moderation`` notification); what it did, as JSON."""
    action = asked.action
    if action not in ACTIONS:
        raise ModerationError("bad_action", f"unknown action {action!r}; expected one of "
                              f"{', '.join(ACTIONS)}", action=str(action)[:40])
    try:
        reason = clean_text(asked.reason, REASON_LENGTH, "reason")
    except ModerationInputError as error:
        raise ModerationError("bad_action", str(error)) from None
    moderation = store.moderation
    done: dict[str, Any] = {"action": action}
    if action in ("dismiss_report", "settle_report"):
        if asked.report is None or not await moderation.settle_report(
                actor, asked.report, "dismissed" if action == "dismiss_report"
                else "actioned", reason):
            raise ModerationError("nothing_to_act_on", f"no open report {asked.report!r}")
        return {**done, "report": asked.report}
    if action in ("dismiss_flag", "settle_flag"):
        if asked.flag is None or not await moderation.settle_flag(
                actor, asked.flag, "dismissed" if action == "dismiss_flag" else "actioned",
                reason):
            raise ModerationError("nothing_to_act_on", f"no open flag {asked.flag!r}")
        return {**done, "flag": asked.flag}
    if action in ("accept_puzzle", "reject_puzzle"):
        if asked.puzzle is None or not await moderation.settle_puzzle(
                actor, asked.puzzle, action == "accept_puzzle", reason):
            raise ModerationError("nothing_to_act_on", f"no puzzle {asked.puzzle!r} waits")
        return {**done, "puzzle": asked.puzzle}
    user = await find_user(store, asked.name)
    done["name"] = user.name
    if action in ("mute", "ban", "close"):
        until = (None if asked.seconds is None or action == "close"
                 else int((time.time() + asked.seconds) * 1000))
        sanction = await moderation.sanction(actor, user.id, user.name,
                                             SANCTIONS_OF[action], reason, until)
        done["until"] = sanction.until
    elif action in ("lift_mute", "lift_ban"):
        lifted = await moderation.lift(actor, user.id, user.name, SANCTIONS_OF[action],
                                       reason)
        if not lifted:
            raise ModerationError("nothing_to_act_on", f"{user.name} has no such sanction")
    elif action == "reset_rating":
        try:
            pool = parse_pool(str(asked.pool or ""))
        except ValueError as error:
            raise ModerationError("bad_action", str(error)) from None
        key = pool_key(pool.variant, pool.players)
        had = await moderation.reset_rating(actor, user.id, user.name, key, reason)
        if had is None:
            raise ModerationError("nothing_to_act_on", f"{user.name} has no rating in {key}",
                                  pool=key)
        done.update(pool=key, rating=had)
    else:  # rename
        new = check_name(asked.new_name)
        if not await moderation.rename(actor, user.id, user.name, new, name_key(new),
                                       reason):
            raise NameTakenError(f"the name {new!r} is taken: choose another", name=new)
        done["new_name"] = new
    if asked.report is not None:
        await moderation.settle_report(actor, asked.report, "actioned", reason)
    if asked.flag is not None:
        await moderation.settle_flag(actor, asked.flag, "actioned", reason)
    # The player is told in their inbox (and at once on their open pages).
    await store.notifications.add(user.id, "moderation", {
        "action": action, "reason": reason, "until": done.get("until"),
        "pool": done.get("pool"), "new_name": done.get("new_name")}, int(time.time() * 1000))
    return done
