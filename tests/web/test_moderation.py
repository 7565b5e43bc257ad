"""Moderation over HTTP and the table socket (``docs/web-protocol.md``, "Moderation"):
reports with the table's chat, blocks, mutes, bans from rated play, renames, closed
accounts, reset ratings, the moderators' page and its audit log."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import insert
from starlette.websockets import WebSocketDisconnect

from basra.players.accounts import name_key
from basra.server.seeking import SeekSettings
from basra.store.moderation import OPERATOR
from basra.store.schema import ratings_table
from tests.support.seeking import paired

FAST = SeekSettings(computer_after=30, pair_every=0.05, waiting_every=0.2)


def cookie(session: str) -> dict[str, str]:
    return {"cookie": f"basra_session={session}"}


def chats(client: Any, sender: Any = None) -> list[dict[str, Any]]:
    """The chat messages a client was sent so far (every message ``sender`` sent before
    handled first: a logged-in player's chat waits for the store's checks)."""
    if sender is not None:
        sender.sync()
    return [m for m in client.sync() if m["type"] == "chat"]


def moderator(web: Any, name: str = "Mona") -> str:
    """A new account made a moderator by the operator; its session."""
    session = web.account(name)
    store = web.app.state.store

    async def grant() -> None:
        user = await store.accounts.find(name_key(name))
        assert user is not None
        await store.moderation.grant(OPERATOR, user.id, user.name, "test")

    web.http.portal.call(grant)
    return session


def seated(web: Any) -> dict[str, Any]:
    """Amira (seat 0) and Bashir (seat 1), each logged in, at one table, both sockets
    open, free text allowed by both; a watcher too."""
    amira, bashir = web.account("Amira"), web.account("Bashir")
    made = web.ok(web.http.post("/api/tables", headers=cookie(amira), json={
        "seats": [{"kind": "human"}, {"kind": "human"}]}))
    code = made["code"]
    joined = web.ok(web.http.post(f"/api/tables/{code}/join", headers=cookie(bashir),
                                  json={}))
    a = web.connect(code, made["token"], "Amira")
    b = web.connect(code, joined["token"], "Bashir")
    watcher = web.connect(code, label="watcher")
    for client in (a, b):
        client.send({"type": "chat_consent", "allow": True})
    a.wait_for(lambda s: s["chat"]["free_text"])
    b.wait_for(lambda s: s["chat"]["free_text"])
    web.settle([a, b, watcher])
    return {"code": code, "amira": amira, "bashir": bashir, "a": a, "b": b,
            "watcher": watcher}


def act(web: Any, session: str, **body: Any) -> Any:
    return web.http.post("/api/mod/actions", headers=cookie(session), json=body)


def test_a_report_reaches_the_moderators_queue_with_the_tables_chat(web: Any) -> None:
    at = seated(web)
    at["b"].send({"type": "chat", "text": "you play like a potato"})
    assert [m["text"] for m in chats(at["a"], at["b"])] == ["you play like a potato"]
    body = {"table": at["code"], "seat": 1, "reason": "abuse", "text": "rude"}
    guest = web.http.post("/api/reports", json=body)
    assert guest.status_code == 401 and guest.json()["code"] == "login_required"
    made = web.http.post("/api/reports", headers=cookie(at["amira"]), json=body)
    assert made.status_code == 201, made.text
    again = web.http.post("/api/reports", headers=cookie(at["amira"]), json=body)
    assert again.status_code == 409 and again.json()["code"] == "report_open"
    for bad, code in (({**body, "reason": "ugly"}, "bad_report"),
                      ({**body, "seat": 7}, "bad_report"),
                      ({**body, "seat": 0}, "bad_report"),  # herself
                      ({**body, "text": "x" * 501}, "bad_report"),
                      ({"name": "Nobody", "reason": "abuse"}, "unknown_user")):
        refused = web.http.post("/api/reports", headers=cookie(at["amira"]), json=bad)
        assert refused.json()["code"] == code, (bad, refused.text)
        assert refused.status_code in (400, 404)
    for who in (None, at["amira"]):
        page = web.http.get("/api/mod", headers=cookie(who) if who else {})
        assert page.status_code == 403 and page.json()["code"] == "moderators_only"
    mona = moderator(web)
    queue = web.ok(web.http.get("/api/mod", headers=cookie(mona)))
    [report] = queue["reports"]
    assert report["reporter"] == "Amira" and report["target"] == "Bashir"
    assert report["table"] == at["code"] and report["seat"] == 1
    assert report["reason"] == "abuse" and report["text"] == "rude"
    assert [(line["from"]["name"], line["text"]) for line in report["chat"]] == [
        ("Bashir", "you play like a potato")]
    assert queue["moderators"] == ["Mona"]
    # From the profile too, and dismissed with a reason, in the audit log.
    by_name = web.http.post("/api/reports", headers=cookie(at["bashir"]),
                            json={"name": "Amira", "reason": "other", "text": "she left"})
    assert by_name.status_code == 201
    settled = act(web, mona, action="dismiss_report", report=report["id"],
                  reason="banter")
    assert settled.status_code == 200, settled.text
    queue = web.ok(web.http.get("/api/mod", headers=cookie(mona)))
    assert [r["target"] for r in queue["reports"]] == ["Amira"]
    assert queue["audit"][0]["action"] == "dismiss_report"
    assert queue["audit"][0]["moderator"] == "Mona" and queue["audit"][0]["reason"] == "banter"


def test_a_guests_seat_is_reported_by_table_seat_and_name(web: Any) -> None:
    amira = web.account("Amira")
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], name="Samir")
    web.join(created["code"], name="Guesty")
    made = web.http.post("/api/reports", headers=cookie(amira), json={
        "table": created["code"], "seat": 1, "reason": "bad_name"})
    assert made.status_code == 201, made.text
    mona = moderator(web)
    [report] = web.ok(web.http.get("/api/mod", headers=cookie(mona)))["reports"]
    assert report["target"] == "Guesty" and report["target_account"] is False
    assert report["seat"] == 1 and report["chat"] == []


def test_a_mute_silences_the_player_until_it_is_lifted(web: Any) -> None:
    at = seated(web)
    mona = moderator(web)
    muted = act(web, mona, action="mute", name="bashir", minutes=60, reason="insults")
    assert muted.status_code == 200, muted.text
    assert muted.json()["until"] > time.time() * 1000
    at["b"].send({"type": "chat", "phrase": "good_luck"})
    refused = at["b"].expect_error("muted")
    assert refused["params"]["reason"] == "insults"
    assert refused["params"]["until"] == muted.json()["until"]
    at["b"].send({"type": "chat", "text": "still here"})
    at["b"].expect_error("muted")
    assert chats(at["a"]) == [] and chats(at["watcher"]) == []
    standing = web.ok(web.http.get("/api/me/standing", headers=cookie(at["bashir"])))
    assert [(s["kind"], s["reason"]) for s in standing["sanctions"]] == [("mute", "insults")]
    assert standing["moderator"] is False
    assert web.ok(web.http.get("/api/me/standing"))["sanctions"] == []
    at["a"].send({"type": "chat", "phrase": "oops"})  # the others still chat
    assert [m["phrase"] for m in chats(at["b"], at["a"])] == ["oops"]
    assert act(web, mona, action="lift_mute", name="Bashir", reason="served").status_code \
        == 200
    at["b"].send({"type": "chat", "phrase": "thanks"})
    assert [m["phrase"] for m in chats(at["a"], at["b"])] == ["thanks"]
    audit = web.ok(web.http.get("/api/mod", headers=cookie(mona)))["audit"]
    assert [(e["action"], e["target"], e["reason"]) for e in audit[:2]] == [
        ("lift_mute", "Bashir", "served"), ("mute", "Bashir", "insults")]


def test_a_block_hides_the_players_chat_from_the_blocker_alone(web: Any) -> None:
    at = seated(web)
    guest = web.http.post("/api/blocks", json={"name": "Bashir"})
    assert guest.status_code == 401
    self_block = web.http.post("/api/blocks", headers=cookie(at["amira"]),
                               json={"name": "Amira"})
    assert self_block.status_code == 400 and self_block.json()["code"] == "bad_block"
    listed = web.ok(web.http.post("/api/blocks", headers=cookie(at["amira"]),
                                  json={"name": "bashir"}))
    assert [b["name"] for b in listed["blocked"]] == ["Bashir"]
    at["b"].send({"type": "chat", "text": "can you hear me"})
    assert [m["text"] for m in chats(at["watcher"], at["b"])] == ["can you hear me"]
    assert chats(at["a"]) == []
    at["a"].send({"type": "chat", "phrase": "good_game"})  # she still speaks to him
    assert [m["phrase"] for m in chats(at["b"], at["a"])] == ["good_game"]
    assert web.ok(web.http.get("/api/blocks", headers=cookie(at["amira"])))["blocked"][0][
        "name"] == "Bashir"
    left = web.ok(web.http.post("/api/blocks/remove", headers=cookie(at["amira"]),
                                json={"name": "Bashir"}))
    assert left["blocked"] == []
    at["b"].send({"type": "chat", "text": "now?"})
    assert [m["text"] for m in chats(at["a"], at["b"])] == ["now?"]


def waiting(client: Any, seconds: float) -> None:
    """The seek is still waiting after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        message = client.receive()
        assert message["type"] == "waiting", message


@pytest.fixture()
def online(start_web: Callable[..., Any]) -> Any:
    return start_web("sqlite", seeking=FAST)


def test_blocked_players_are_never_paired(online: Any) -> None:
    web = online
    ann, bob, cem = (web.account(name) for name in ("Ann", "Bob", "Cem"))
    web.ok(web.http.post("/api/blocks", headers=cookie(bob), json={"name": "Ann"}))
    first = web.seek("players=2", ann, "Ann")
    second = web.seek("players=2", bob, "Bob")
    waiting(first, 1.0)  # the one who was blocked is not paired either
    third = web.seek("players=2", cem, "Cem")
    seats = [paired(first), paired(third)]
    assert seats[0]["table"] == seats[1]["table"]
    waiting(second, 0.5)


def test_a_ban_from_rated_play_refuses_rated_seeks_and_says_why(online: Any) -> None:
    web = online
    sam = web.account("Sam")
    mona = moderator(web)
    banned = act(web, mona, action="ban", name="Sam", reason="rating manipulation")
    assert banned.status_code == 200 and banned.json()["until"] is None
    seek = web.seek("players=2&rated=1", sam, "Sam")
    message = seek.receive()
    assert message["type"] == "error" and message["code"] == "rated_banned"
    assert message["params"] == {"until": None, "reason": "rating manipulation"}
    with pytest.raises(WebSocketDisconnect):
        seek.receive()
    casual = web.seek("players=2", sam, "Sam")
    assert casual.receive()["type"] == "waiting"
    timed = act(web, mona, action="lift_ban", name="Sam", reason="appeal")
    assert timed.status_code == 200
    again = web.seek("players=2&rated=1", sam, "Sam")
    assert again.receive()["type"] == "waiting"


def test_rename_reset_and_close_work_and_are_audited(web: Any) -> None:
    bashir = web.account("Bashir")
    web.account("Zaynab")
    mona = moderator(web)
    store = web.app.state.store

    async def rate() -> None:
        user = await store.accounts.find(name_key("bashir"))
        async with store.engine.begin() as conn:
            await conn.execute(insert(ratings_table).values(
                user_id=user.id, pool="egyptian-2", mu=30.0, sigma=3.0, games=12,
                display=1780, updated_at=0))

    web.http.portal.call(rate)
    assert "egyptian-2" in web.ok(web.http.get("/api/users/Bashir"))["ratings"]
    reset = act(web, mona, action="reset_rating", name="Bashir", pool="egyptian-2",
                reason="boosted")
    assert reset.status_code == 200 and reset.json()["rating"] == 1780
    assert web.ok(web.http.get("/api/users/Bashir"))["ratings"] == {}
    again = act(web, mona, action="reset_rating", name="Bashir", pool="egyptian-2",
                reason="boosted")
    assert again.status_code == 404 and again.json()["code"] == "nothing_to_act_on"
    bad_pool = act(web, mona, action="reset_rating", name="Bashir", pool="chess-2",
                   reason="x")
    assert bad_pool.status_code == 400 and bad_pool.json()["code"] == "bad_action"
    for new, code in (("zaynab", "name_taken"), ("a", "bad_name")):
        refused = act(web, mona, action="rename", name="Bashir", new_name=new, reason="x")
        assert refused.json()["code"] == code, refused.text
    renamed = act(web, mona, action="rename", name="Bashir", new_name="Basil",
                  reason="offensive name")
    assert renamed.status_code == 200 and renamed.json()["new_name"] == "Basil"
    assert web.http.get("/api/users/Bashir").status_code == 404
    assert web.ok(web.http.get("/api/me", headers=cookie(bashir)))["name"] == "Basil"
    no_reason = act(web, mona, action="close", name="Basil", reason="  ")
    assert no_reason.status_code == 400 and no_reason.json()["code"] == "bad_action"
    closed = act(web, mona, action="close", name="Basil", reason="spam account")
    assert closed.status_code == 200
    assert web.ok(web.http.get("/api/me", headers=cookie(bashir)))["name"] is None
    web.http.cookies.clear()
    login = web.http.post("/api/login", json={"name": "Basil",
                                              "password": "a good long password"})
    assert login.status_code == 403 and login.json()["code"] == "account_closed"
    assert login.json()["params"] == {"reason": "spam account"}
    taken = web.http.post("/api/signup", json={"name": "basil", "password": "another pass!"})
    assert taken.status_code == 409  # the name stays reserved
    audit = web.ok(web.http.get("/api/mod", headers=cookie(mona)))["audit"]
    assert [(e["action"], e["moderator"], e["reason"]) for e in audit[:3]] == [
        ("close", "Mona", "spam account"), ("rename", "Mona", "offensive name"),
        ("reset_rating", "Mona", "boosted")]
    assert audit[1]["details"] == {"from": "Bashir", "to": "Basil"}
    assert audit[2]["details"] == {"pool": "egyptian-2", "rating": 1780}


def test_the_moderation_page_is_for_moderators_only(web: Any) -> None:
    amira = web.account("Amira")
    for headers in ({}, cookie(amira)):
        page = web.http.get("/mod", headers=headers)
        assert page.status_code == 403 and page.json()["code"] == "moderators_only"
        refused = web.http.post("/api/mod/actions", headers=headers, json={
            "action": "close", "name": "Amira", "reason": "x"})
        assert refused.status_code == 403
    mona = moderator(web)
    page = web.http.get("/mod", headers=cookie(mona))
    assert page.status_code == 200 and 'id="mod-reports"' in page.text
    assert web.ok(web.http.get("/api/me/standing", headers=cookie(mona)))["moderator"] is True
    unknown = act(web, mona, action="explode", name="Amira", reason="x")
    assert unknown.status_code == 400 and unknown.json()["code"] == "bad_action"
    nobody = act(web, mona, action="mute", name="Nobody", reason="x")
    assert nobody.status_code == 404 and nobody.json()["code"] == "unknown_user"
    bad_minutes = act(web, mona, action="mute", name="Amira", minutes=-5, reason="x")
    assert bad_minutes.status_code == 400


def test_a_ban_from_rated_play_keeps_a_player_out_of_rated_tournaments(web: Any) -> None:
    sam = web.account("Sam")
    banned = act(web, moderator(web), action="ban", name="Sam", reason="sandbagging")
    assert banned.status_code == 200
    told = web.http.get("/api/notifications", headers=cookie(sam)).json()["notifications"]
    assert [(n["kind"], n["payload"]["action"], n["payload"]["reason"]) for n in told] == [
        ("moderation", "ban", "sandbagging")]  # the player is told in their inbox
    made = []
    for rated in (True, False):
        answer = web.http.post("/api/tournaments", headers=cookie(sam), json={
            "kind": "swiss", "rounds": 3, "rated": rated, "starts_in": 600})
        assert answer.status_code == 201
        made.append(answer.json()["id"])
    refused = web.http.post(f"/api/tournaments/{made[0]}/join", headers=cookie(sam),
                            json={})
    assert refused.status_code == 403 and refused.json()["code"] == "rated_banned"
    assert refused.json()["params"]["reason"] == "sandbagging"
    casual = web.http.post(f"/api/tournaments/{made[1]}/join", headers=cookie(sam), json={})
    assert casual.status_code == 200 and casual.json()["you"]["entered"]


def test_blocked_players_are_kept_apart_in_a_swiss(start_web: Callable[..., Any]) -> None:
    """Four players of one rating, Ann blocked Bob: by the Dutch order (Ann, Ava, Bob,
    Cyd: the first meets the third) they would meet; kept apart, they sit at other
    tables (a Swiss event pairs them as if they had met)."""
    from basra.server.directing import TournamentSettings

    web = start_web("sqlite", tournaments=TournamentSettings(tick=0.05))
    sessions = {name: web.account(name) for name in ("Ann", "Ava", "Bob", "Cyd")}
    web.ok(web.http.post("/api/blocks", headers=cookie(sessions["Ann"]), json={"name": "Bob"}))
    answer = web.http.post("/api/tournaments", headers=cookie(sessions["Ann"]), json={
        "kind": "swiss", "rounds": 1, "starts_in": 1})
    tid = answer.json()["id"]
    for session in sessions.values():
        web.ok(web.http.post(f"/api/tournaments/{tid}/join", headers=cookie(session),
                             json={}))
    deadline = time.monotonic() + 30
    games: list[dict[str, Any]] = []
    while len(games) < 2 and time.monotonic() < deadline:
        games = web.ok(web.http.get(f"/api/tournaments/{tid}"))["games"]
        time.sleep(0.05)
    assert len(games) == 2
    assert all({"Ann", "Bob"} != set(game["players"]) for game in games)
