"""Moderation in the store (``basra.store.moderation``) and ``basra admin``, run as a real
subprocess on the same SQLite file: moderators, sanctions, renames, reports, the audit
log, and mined puzzles that wait for a moderator below the rating floor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from basra.players.accounts import name_key
from basra.store import Store
from basra.store.moderation import OPERATOR
from basra.store.schema import rating_history_table
from tests.support.stores import with_store


def basra(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=120)


def accounts(url: str, *names: str) -> list[int]:
    async def make(store: Store) -> list[int]:
        made = []
        for number, name in enumerate(names):
            user = await store.accounts.create(name, name_key(name), "x",
                                               session_hash=f"{number:064d}",
                                               expires_at=2**50, now=1)
            assert user is not None
            made.append(user.id)
        return made

    found: list[int] = with_store(url, make)
    return found


def test_basra_admin_moderates_from_the_command_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/m.db"
    amira, _bashir = accounts(url, "Amira", "Bashir")
    db = ("--db", url)
    granted = basra("admin", "grant-moderator", "amira", *db)
    assert granted.returncode == 0 and "Amira is now a moderator" in granted.stdout
    assert "Amira" in basra("admin", "moderators", *db).stdout
    muted = basra("admin", "mute", "Bashir", "--for", "2h", "--reason", "insults", *db)
    assert muted.returncode == 0 and "Bashir is muted until" in muted.stdout
    banned = basra("admin", "ban", "Bashir", "--reason", "boosting", *db)
    assert banned.returncode == 0 and "for good" in banned.stdout
    renamed = basra("admin", "rename", "Bashir", "Basil", "--reason", "offensive", *db)
    assert renamed.returncode == 0 and "Bashir is now Basil" in renamed.stdout
    closed = basra("admin", "close", "Basil", "--reason", "spam", *db)
    assert closed.returncode == 0
    for args, said in ((("mute", "Nobody", "--for", "1h", "--reason", "x"), "Nobody"),
                       (("mute", "Amira", "--for", "3q", "--reason", "x"), "--for"),
                       (("mute", "Amira", "--for", "1h"), "--reason"),
                       (("rename", "Amira", "Basil", "--reason", "x"), "taken"),
                       (("reset-rating", "Amira", "egyptian-2", "--reason", "x"), "no rating"),
                       (("frobnicate",), "frobnicate"),
                       (("audit", "--db", "mysql://x/y"), "unsupported database")):
        refused = basra("admin", *args, *(db if "--db" not in args else ()))
        assert refused.returncode == 2, (args, refused.stdout, refused.stderr)
        assert said in refused.stderr and "Traceback" not in refused.stderr
    audit = basra("admin", "audit", *db)
    lines = audit.stdout.splitlines()
    assert audit.returncode == 0 and len(lines) == 5
    assert "operator: close Basil" in lines[0] and "(spam)" in lines[0]
    assert "operator: rename Bashir" in lines[1] and "to=Basil" in lines[1]
    assert "grant_moderator Amira" in lines[4]

    async def check(store: Store) -> dict[str, Any]:
        basil = await store.accounts.find(name_key("basil"))
        assert basil is not None
        now = 2**45
        held = {s.kind: s for s in await store.moderation.sanctions(basil.id, 1)}
        return {"kinds": sorted(held), "mute_until": held["mute"].until,
                "ban_until": held["rated_ban"].until,
                "moderator": await store.moderation.is_moderator(amira),
                "later": [s.kind for s in await store.moderation.sanctions(basil.id, now)]}

    found = with_store(url, check)
    assert found["kinds"] == ["closed", "mute", "rated_ban"]
    assert found["ban_until"] is None and found["mute_until"] is not None
    assert found["moderator"] is True and sorted(found["later"]) == ["closed", "rated_ban"]
    assert basra("admin", "reports", *db).stdout.strip() == "no open reports"


def test_mined_puzzles_wait_for_a_moderator_below_the_rating_floor(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/p.db"
    strong, weak = accounts(url, "Strong", "Weak")
    puzzle = {"id": "p-unrated", "position": "x"}

    async def work(store: Store) -> dict[str, Any]:
        async with store.engine.begin() as conn:
            for record, users in ((2, (strong, weak)), (3, (strong,))):
                for seat, user in enumerate(users):
                    await conn.execute(insert(rating_history_table).values(
                        record_id=record, pool="egyptian-2", user_id=user, seat=seat,
                        before=1700 if user == strong else 1500, after=1600,
                        created_at=1))
        await store.analysis.save(1, {}, [puzzle], rating_floor=1600)  # not rated
        await store.analysis.save(2, {}, [{**puzzle, "id": "p-weak"}], rating_floor=1600)
        await store.analysis.save(3, {}, [{**puzzle, "id": "p-strong"}], rating_floor=1600)
        await store.analysis.save(4, {}, [{**puzzle, "id": "p-old"}])  # no floor: public
        public = [p["id"] for p in await store.analysis.mined_puzzles()]
        waiting = [p["id"] for p in await store.moderation.pending_puzzles()]
        flags = [(f.record_id, f.details["why"]) for f in await store.flags.listed("open")]
        accepted = await store.moderation.settle_puzzle(OPERATOR, "p-weak", True, "fine")
        twice = await store.moderation.settle_puzzle(OPERATOR, "p-weak", True, "fine")
        rejected = await store.moderation.settle_puzzle(OPERATOR, "p-unrated", False, "no")
        return {"public": public, "waiting": waiting, "flags": flags,
                "settled": (accepted, twice, rejected),
                "after": sorted(p["id"] for p in await store.analysis.mined_puzzles()),
                "open": await store.flags.listed("open"),
                "audit": [e.action for e in await store.moderation.audit_log()]}

    found = with_store(url, work)
    assert sorted(found["public"]) == ["p-old", "p-strong"]
    assert found["waiting"] == ["p-unrated", "p-weak"]
    assert sorted(found["flags"]) == [(1, "unrated"), (2, "below_floor")]
    assert found["settled"] == (True, False, True)
    assert found["after"] == ["p-old", "p-strong", "p-weak"]
    assert found["open"] == []
    assert found["audit"] == ["reject_puzzle", "accept_puzzle"]
