"""The names players sit under at casual tables and in seeks (display names), which
follow no account's rules but may not pass for someone else: not an account's name,
nor a computer player's, nor ``Computer ...``, nor a word kept for the staff, as
:func:`basra.players.accounts.name_key` compares names (confusable skeletons, case
and look-alike digits folded, and Greek letters read both as the Latin capitals and as
the small letters they look like). A logged-in player may sit under their own account's
name or any other free one; a guest's numbered name ("Guest 2") is free to take.
"""

from __future__ import annotations

from basra.players.accounts import RESERVED_WHY, look_alike_keys, name_key, reserved_as
from basra.store import Store

from .connections import Account
from .errors import DisplayNameTakenError
from .table import MAX_NAME, ConfigError, clean_name

__all__ = ["check_display_name"]


async def check_display_name(store: Store, name: object, account: Account | None) -> None:
    """Refuse a display name that passes for an account's name (another account's,
    for a logged-in player) or a computer player's (:class:`DisplayNameTakenError`,
    409 ``display_name_taken``). Anything that is not a name at all is left to the
    table's own check."""
    try:
        shown = clean_name(name, "")
    except ConfigError:
        return
    if not shown:
        return
    key = name_key(shown[:MAX_NAME])
    if account is not None and key == name_key(account[1]):
        return
    why = reserved_as(shown)
    if why is not None and why != "guest":
        raise DisplayNameTakenError(f"the name {shown!r} {RESERVED_WHY[why]}; choose "
                                    "another", name=shown)
    for look_alike in sorted(look_alike_keys(shown[:MAX_NAME])):
        owner = await store.accounts.find(look_alike)
        if owner is not None and (account is None or owner.id != account[0]):
            raise DisplayNameTakenError(f"the name {shown!r} is an account's name (or looks "
                                        f"like it: {owner.name!r}); choose another, or log in",
                                        name=shown)
