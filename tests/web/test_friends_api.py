"""Following players (``docs/api.md``, "Friends"): follow and unfollow, the following
list with who is playing, online or away (read from the database), and blocks, which
override it all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from argon2 import profiles
from sqlalchemy import update

from basra.players.accounts import Passwords
from basra.server import friends_api
from basra.server.sessions import AccountSettings
from basra.store.schema import users_table

MINUTE = 60.0
CHEAP = Passwords(profiles.CHEAPEST)


class Clock:
    """A clock the tests move (Unix seconds)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def cookie(session: str) -> dict[str, str]:
    return {"cookie": f"basra_session={session}"}


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def web(start_web: Callable[..., Any], clock: Clock) -> Any:
    """An app whose sessions and presence follow the test's clock."""
    return start_web(accounts=AccountSettings(passwords=CHEAP, clock=clock))


def following(web: Any, session: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = web.ok(web.http.get(
        "/api/following", headers=cookie(session)))["following"]
    return listed


def follow(web: Any, session: str, name: str) -> Any:
    return web.http.post(f"/api/follow/{name}", headers=cookie(session))


def test_a_player_follows_and_unfollows_and_sees_who_is_online(web: Any) -> None:
    amira, bashir = web.account("Amira"), web.account("Bashir")
    web.account("Carim")
    assert following(web, amira) == []
    answer = follow(web, amira, "bashir")  # any case: the name's key
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"name": "Bashir", "following": True, "followers": 1}
    assert web.ok(follow(web, amira, "Bashir"))["followers"] == 1  # once is enough
    web.ok(follow(web, amira, "Carim"))
    web.ok(follow(web, bashir, "Carim"))
    # Everyone logged in just now: online, by name; nobody plays.
    assert following(web, amira) == [
        {"name": "Bashir", "status": "online", "table": None, "bot": False},
        {"name": "Carim", "status": "online", "table": None, "bot": False}]
    assert web.ok(web.http.get("/api/follow/Carim", headers=cookie(bashir))) == {
        "name": "Carim", "following": True, "followers": 2}
    gone = web.http.post("/api/unfollow/Bashir", headers=cookie(amira))
    assert gone.json() == {"name": "Bashir", "following": False, "followers": 0}
    assert [entry["name"] for entry in following(web, amira)] == ["Carim"]
    assert web.ok(web.http.post("/api/unfollow/Bashir", headers=cookie(amira)))[
        "following"] is False  # not following: nothing to do


def test_the_list_is_by_name_as_the_pages_language_sorts_names(web: Any) -> None:
    amira = web.account("Amira")
    for name in ("Şahin", "Sevgi", "İpek", "Irmak", "Zeynep"):
        web.account(name)
        web.ok(follow(web, amira, name))

    def names(language: str) -> list[str]:
        listed = web.ok(web.http.get("/api/following", headers={
            **cookie(amira), "accept-language": language}))["following"]
        return [entry["name"] for entry in listed]

    assert names("tr") == ["Irmak", "İpek", "Sevgi", "Şahin", "Zeynep"]  # ı before i, s before ş
    assert names("en") == ["İpek", "Irmak", "Şahin", "Sevgi", "Zeynep"]


def test_a_player_is_away_two_minutes_after_their_last_request(web: Any,
                                                               clock: Clock) -> None:
    amira, bashir = web.account("Amira"), web.account("Bashir")
    web.ok(follow(web, amira, "Bashir"))
    clock.now += 2 * MINUTE  # exactly two minutes: still online
    assert following(web, amira)[0]["status"] == "online"
    clock.now += 1
    assert following(web, amira)[0]["status"] == "away"
    web.ok(web.http.get("/api/me", headers=cookie(bashir)))  # a request: the session used
    assert following(web, amira)[0]["status"] == "online"
    clock.now += 30  # within a minute of the last write, nothing is written, and
    web.ok(web.http.get("/api/me", headers=cookie(bashir)))
    clock.now += 2 * MINUTE - 29  # so the last use written is 2 min 1 s ago
    assert following(web, amira)[0]["status"] == "away"


def test_a_player_seated_at_a_running_match_is_playing_with_the_table_to_watch(
        web: Any, clock: Clock) -> None:
    amira, bashir = web.account("Amira"), web.account("Bashir")
    web.ok(follow(web, amira, "Bashir"))
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], name="Huda")
    web.http.cookies.set("basra_session", bashir)
    web.join(created["code"])
    web.http.cookies.clear()
    web.http.portal.call(web.app.state.store.flush)
    clock.now += 10 * MINUTE  # playing tells more than being away
    assert following(web, amira) == [
        {"name": "Bashir", "status": "playing", "table": created["code"], "bot": False}]


def test_the_list_shows_playing_then_online_then_away_and_marks_bots(
        web: Any, clock: Clock) -> None:
    amira = web.account("Amira")
    web.account("Zaid")  # away, once the clock moved
    clock.now += 5 * MINUTE
    web.account("Yusuf")  # online
    bot = web.account("Xbot")
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], name="Huda")
    web.http.cookies.set("basra_session", bot)
    web.join(created["code"])
    web.http.cookies.clear()

    async def make_bot() -> None:
        store = web.app.state.store
        async with store.engine.begin() as conn:
            await conn.execute(update(users_table).where(users_table.c.name == "Xbot")
                               .values(bot_since=1))
        await store.flush()

    web.http.portal.call(make_bot)
    for name in ("Zaid", "Yusuf", "Xbot"):
        web.ok(follow(web, amira, name))
    assert [(e["name"], e["status"], e["bot"]) for e in following(web, amira)] == [
        ("Xbot", "playing", True), ("Yusuf", "online", False), ("Zaid", "away", False)]


def test_a_block_ends_follows_both_ways_and_refuses_new_ones(web: Any) -> None:
    amira, bashir, carim = web.account("Amira"), web.account("Bashir"), web.account("Carim")
    web.ok(follow(web, amira, "Bashir"))
    web.ok(follow(web, bashir, "Amira"))
    web.ok(follow(web, carim, "Amira"))
    blocked = web.http.post("/api/blocks", json={"name": "Bashir"}, headers=cookie(amira))
    assert blocked.status_code == 200, blocked.text
    assert following(web, amira) == [] and following(web, bashir) == []
    assert [e["name"] for e in following(web, carim)] == ["Amira"]  # others untouched
    for who, whom in ((amira, "Bashir"), (bashir, "Amira")):  # whoever blocked
        refused = follow(web, who, whom)
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "blocked"
    web.ok(web.http.post("/api/blocks/remove", json={"name": "Bashir"},
                         headers=cookie(amira)))
    assert web.ok(follow(web, bashir, "Amira"))["following"] is True


def test_refusals_name_what_is_wrong(web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    amira = web.account("Amira")
    web.account("Bashir")
    web.account("Carim")
    guest = web.http.post("/api/follow/Bashir")
    assert guest.status_code == 401 and guest.json()["code"] == "login_required"
    assert web.http.get("/api/following").status_code == 401
    assert web.ok(web.http.get("/api/follow/Bashir")) == {  # a guest sees the count
        "name": "Bashir", "following": False, "followers": 0}
    unknown = follow(web, amira, "Nobody")
    assert unknown.status_code == 404
    assert unknown.json()["code"] == "unknown_user"
    assert unknown.json()["params"] == {"name": "Nobody"}
    assert web.http.post("/api/unfollow/Nobody", headers=cookie(amira)).status_code == 404
    myself = follow(web, amira, "AMIRA")
    assert myself.status_code == 400 and myself.json()["code"] == "bad_follow"
    monkeypatch.setattr(friends_api, "MAX_FOLLOWING", 1)
    web.ok(follow(web, amira, "Bashir"))
    web.ok(follow(web, amira, "Bashir"))  # following already: no new follow
    full = follow(web, amira, "Carim")
    assert full.status_code == 409
    assert full.json()["code"] == "follow_limit" and full.json()["params"] == {"most": 1}


def test_a_read_token_lists_whom_its_account_follows(web: Any) -> None:
    amira = web.account("Amira")
    web.account("Bashir")
    web.ok(follow(web, amira, "Bashir"))
    made = web.http.post("/api/tokens", headers=cookie(amira),
                         json={"description": "a script", "scopes": ["read"]})
    token = made.json()["token"]
    listed = web.ok(web.http.get("/api/following",
                                 headers={"authorization": f"Bearer {token}"}))
    assert [entry["name"] for entry in listed["following"]] == ["Bashir"]
    player = web.http.post("/api/tokens", headers=cookie(amira),
                           json={"scopes": ["play"]}).json()["token"]
    refused = web.http.get("/api/following", headers={"authorization": f"Bearer {player}"})
    assert refused.status_code == 403 and refused.json()["code"] == "missing_scope"


def test_the_friends_pages_are_served(web: Any) -> None:
    for path in ("/following", "/inbox", "/challenge/abcd1234"):
        page = web.http.get(path)
        assert page.status_code == 200, path
        assert "text/html" in page.headers["content-type"]
