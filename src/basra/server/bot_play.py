"""A bot account's seat at a table, on the table's side: which seat it holds, its
observation, and its moves in protocol notation (``docs/protocol.md``).

A bot proves who it is with its token, not with a seat token: the seat is the one its
account holds at the table (:attr:`Table.accounts`). Every question is asked where the
table lives (:meth:`basra.server.relay.Relay.at_owner`: here, or a call ``bot`` to the
server that owns it), so the Bot API works through any server of a cluster.

A move is judged as the table judges a socket's play (:meth:`TablePlay.act`, one at a
time under the table's lock): the answer is ``(200, {"ok": true})`` or
``(400, {"code", "message", "params"})`` with ``code`` one of :data:`MOVE_REFUSALS`.
"""

from __future__ import annotations

from typing import Any

from basra.bots.protocol import read_move
from basra.cards import CARD_NAMES, card_names
from basra.observe import observe

from .connections import Connection
from .errors import (
    ElsewhereError,
    ExpiredTableError,
    IntentError,
    UnknownTableError,
    error_body,
)
from .hub import Hub
from .messages import Intent
from .notifying import Notifier
from .table import Table

__all__ = ["MOVE_REFUSALS", "at_table", "register"]

MOVE_REFUSALS = {
    "not_your_turn": "not_your_turn", "stale": "not_your_turn", "waiting": "not_your_turn",
    "illegal": "illegal_move", "ambiguous": "illegal_move", "bad_message": "illegal_move",
    "match_over": "game_over", "resigned": "game_over",
}
"""The code a refused move is answered with, by the table's own code (others, such as
``storage_down``, pass unchanged)."""


def seat_of(table: Table, user_id: int) -> int | None:
    """The seat an account holds at the table, if any."""
    return next((seat for seat, account in enumerate(table.accounts)
                 if account is not None and account[0] == user_id), None)


def observation(table: Table, seat: int, seq: int, match_number: int
                ) -> dict[str, Any] | None:
    """The seat's observation (the ``basra-bot/1`` JSON) while the table is still at
    ``seq`` of match ``match_number``; None once it has moved on (a newer state is on
    its way then)."""
    match = table.match
    if match is None or table.seq != seq or table.match_number != match_number:
        return None
    return observe(match, seat).to_dict()


def _refused(code: str, message: str) -> tuple[int, dict[str, Any]]:
    return 400, error_body(MOVE_REFUSALS.get(code, code), message)


async def move(hub: Hub, table: Table, seat: int, text: str) -> tuple[int, dict[str, Any]]:
    """Play the seat's move written ``text`` (``7H:3C+4H``, ``7H``): (status, body)."""
    match = table.match
    if match is None:
        return _refused("waiting", "the match has not started: seats are still free")
    if table.status == "finished":
        return _refused("match_over", "the match is over")
    to_play = table.to_play()
    if to_play != seat:
        return _refused("not_your_turn", f"it is seat {to_play}'s turn, not seat {seat}'s")
    try:
        chosen = read_move(text, observe(match, seat).legal_moves)
    except ValueError as error:
        return _refused("illegal", f"{text[:40]!r}: {error}")
    intent = Intent("play", table.seq, CARD_NAMES[chosen & 63], card_names(chosen >> 6))
    # A stand-in for a socket of the seat: what the table would send it is not needed.
    try:
        await hub.act(Connection(table, seat), intent)
    except IntentError as refused:
        return _refused(refused.code, str(refused))
    return 200, {"ok": True}


async def _here(hub: Hub, table: Table, args: dict[str, Any]) -> Any:
    """Answer one question about a table this server owns."""
    user_id = int(args["user"])
    seat = seat_of(table, user_id)
    what = args["what"]
    if what == "seat":
        return seat
    if seat is None:
        return None
    if what == "observation":
        return observation(table, seat, int(args["seq"]), int(args["match"]))
    if what == "move":
        return list(await move(hub, table, seat, str(args["move"])))
    raise ValueError(f"unknown bot question {what!r}")


async def at_table(hub: Hub, code: str, what: str, user_id: int, **args: Any) -> Any:
    """Ask the table ``code``, wherever it lives, about the account's seat: ``seat``
    (its seat, or None), ``observation`` (``seq``, ``match``; None once moved on) or
    ``move`` (``move``: [status, body]; None without a seat). Raises
    :class:`UnknownTableError` and the other errors of finding a table."""
    asked = {"what": what, "user": user_id, **args}

    async def here(table: Table) -> Any:
        return await _here(hub, table, asked)

    return await hub.relay.at_owner(code, "bot", asked, here)


def register(hub: Hub, notifier: Notifier) -> None:
    """Let other servers ask this one about bot seats at its tables, and tell each bot
    account when a match of its starts or ends (notifications ``game_start`` and
    ``game_finish``, ``{"id": CODE, "seat": N}``: its event stream passes them on)."""

    def games(table: Table, what: str) -> None:
        for seat in sorted(table.bots):
            account = table.accounts[seat]
            if account is not None:
                hub.play.spawn(notifier.notify(account[0], f"game_{what}",
                                               {"id": table.code, "seat": seat}))

    hub.play.games = games

    async def bot_call(args: dict[str, Any]) -> dict[str, Any]:
        try:
            table = await hub.table(str(args.get("code")))
        except ElsewhereError as error:
            return {"error": "elsewhere", "owner": error.args[1]}
        except (UnknownTableError, ExpiredTableError):
            return {"error": "unknown"}
        return {"value": await _here(hub, table, args)}

    hub.relay.call_handlers["bot"] = bot_call
