"""Challenges and notifications (``docs/api.md``): one account challenges another (or
anyone, by link), the other accepts or declines with a reason, both are told, and an
accepted challenge seats both at a new table."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.support.realserver import Server, sqlite_url


def cookie(session: str) -> dict[str, str]:
    return {"cookie": f"basra_session={session}"}


def notes(web: Any, session: str, kind: str | None = None) -> list[dict[str, Any]]:
    found = web.ok(web.http.get("/api/notifications", headers=cookie(session)))
    listed: list[dict[str, Any]] = found["notifications"]
    return [n for n in listed if kind is None or n["kind"] == kind]


def send(web: Any, session: str, name: str, **body: Any) -> dict[str, Any]:
    answer = web.http.post(f"/api/challenge/{name}", headers=cookie(session), json=body)
    assert answer.status_code == 201, answer.text
    made: dict[str, Any] = answer.json()
    return made


def test_an_accepted_challenge_seats_both_players_at_one_table(web: Any) -> None:
    amira, bashir = web.account("Amira"), web.account("Bashir")
    made = send(web, amira, "Bashir", variant="Pasoor", rated=True, turn_seconds=30)
    assert (made["from"], made["to"], made["variant"], made["rated"]) == (
        "Amira", "Bashir", "pasur", True)
    assert made["status"] == "pending" and made["url"] == f"/challenge/{made['id']}"
    incoming = web.ok(web.http.get("/api/challenges", headers=cookie(bashir)))["incoming"]
    assert [c["id"] for c in incoming] == [made["id"]]
    assert web.ok(web.http.get("/api/challenges", headers=cookie(amira)))["outgoing"][0][
        "id"] == made["id"]
    told = notes(web, bashir, "challenge")
    assert told[0]["payload"]["id"] == made["id"] and not told[0]["read"]
    seat = web.ok(web.http.post(f"/api/challenge/{made['id']}/accept", headers=cookie(bashir)))
    accepted = notes(web, amira, "challenge_accepted")[0]["payload"]
    assert accepted["by"] == "Bashir" and accepted["table"] == seat["table"]
    assert {accepted["seat"], seat["seat"]} == {0, 1}
    assert "token" not in json.dumps(notes(web, bashir))  # only Amira is sent her token
    state = web.connect(seat["table"], accepted["token"]).state
    other = web.connect(seat["table"], seat["token"]).state
    assert state["you"]["seat"] == accepted["seat"] and other["you"]["seat"] == seat["seat"]
    assert state["rated"] is True and state["table"]["variant"] == "pasur"
    assert sorted(s["name"] for s in state["table"]["seats"]) == ["Amira", "Bashir"]
    again = web.http.post(f"/api/challenge/{made['id']}/accept", headers=cookie(bashir))
    assert again.status_code == 409 and again.json()["code"] == "challenge_closed"
    assert web.ok(web.http.get("/api/challenges", headers=cookie(bashir)))["incoming"] == []


def test_a_decline_tells_the_challenger_why_and_closes_it(web: Any) -> None:
    amira, bashir = web.account("Amira"), web.account("Bashir")
    made = send(web, amira, "Bashir")
    wrong = web.http.post(f"/api/challenge/{made['id']}/decline", headers=cookie(bashir),
                          json={"reason": "because"})
    assert wrong.status_code == 422 and wrong.json()["params"]["field"] == "reason"
    theirs = web.http.post(f"/api/challenge/{made['id']}/decline", headers=cookie(amira),
                           json={"reason": "later"})
    assert theirs.status_code == 403 and theirs.json()["code"] == "not_yours"
    declined = web.ok(web.http.post(f"/api/challenge/{made['id']}/decline",
                                    headers=cookie(bashir), json={"reason": "too_fast"}))
    assert declined["status"] == "declined" and declined["reason"] == "too_fast"
    told = notes(web, amira, "challenge_declined")[0]["payload"]
    assert told["reason"] == "too_fast"
    late = web.http.post(f"/api/challenge/{made['id']}/accept", headers=cookie(bashir))
    assert late.status_code == 409 and late.json()["params"]["status"] == "declined"


def test_only_the_sender_cancels_and_the_challenged_is_told(web: Any) -> None:
    amira, bashir = web.account("Amira"), web.account("Bashir")
    made = send(web, amira, "Bashir")
    refused = web.http.post(f"/api/challenge/{made['id']}/cancel", headers=cookie(bashir))
    assert refused.status_code == 403
    gone = web.ok(web.http.post(f"/api/challenge/{made['id']}/cancel", headers=cookie(amira)))
    assert gone["status"] == "cancelled"
    assert notes(web, bashir, "challenge_cancelled")[0]["payload"]["id"] == made["id"]
    marked = web.ok(web.http.post("/api/notifications/read", headers=cookie(bashir), json={}))
    assert marked == {"unread": 0}
    assert all(n["read"] for n in notes(web, bashir))


def test_an_open_challenge_is_taken_by_the_first_to_accept(web: Any) -> None:
    amira, bashir, cala = (web.account(n) for n in ("Amira", "Bashir", "Cala"))
    answer = web.http.post("/api/challenge/open", headers=cookie(amira), json={})
    assert answer.status_code == 201 and answer.json()["to"] is None
    made = answer.json()
    assert web.ok(web.http.get(f"/api/challenge/{made['id']}"))["from"] == "Amira"
    own = web.http.post(f"/api/challenge/{made['id']}/accept", headers=cookie(amira))
    assert own.status_code == 403
    first = web.http.post(f"/api/challenge/{made['id']}/accept", headers=cookie(cala))
    assert first.status_code == 200
    second = web.http.post(f"/api/challenge/{made['id']}/accept", headers=cookie(bashir))
    assert second.status_code == 409
    guest = web.http.post("/api/challenge/open", json={})
    assert guest.status_code == 401 and guest.json()["code"] == "login_required"


def test_invited_players_get_a_free_seat_and_the_computer_fills_the_rest(web: Any) -> None:
    amira, bashir, cala = (web.account(n) for n in ("Amira", "Bashir", "Cala"))
    made = send(web, amira, "Bashir", players=4, invite=["Cala"])
    assert made["invite"] == ["Cala"]
    seat = web.ok(web.http.post(f"/api/challenge/{made['id']}/accept", headers=cookie(bashir)))
    invite = notes(web, cala, "table_invite")[0]["payload"]
    assert invite["table"] == seat["table"] and "token" not in invite
    table = web.ok(web.http.get(f"/api/tables/{seat['table']}"))
    kinds = [s["kind"] for s in table["seats"]]
    assert kinds.count("bot") == 1 and table["status"] == "waiting"
    joined = web.ok(web.http.post(f"/api/tables/{seat['table']}/join",
                                  headers=cookie(cala), json={}))
    assert joined["seat"] in (2, 3)


def test_blocks_bad_fields_and_tokens(web: Any) -> None:
    amira, bashir = web.account("Amira"), web.account("Bashir")
    web.ok(web.http.post("/api/blocks", headers=cookie(bashir), json={"name": "Amira"}))
    blocked = web.http.post("/api/challenge/Bashir", headers=cookie(amira), json={})
    assert blocked.status_code == 403 and blocked.json()["code"] == "blocked"
    web.account("Cala")
    for body, field in [({"variant": "chess"}, "variant"), ({"players": 5}, "players"),
                        ({"rated": "yes"}, "rated"), ({"turn_seconds": 3}, "turn_seconds"),
                        ({"invite": ["Bashir"]}, "invite"),
                        ({"players": 3, "invite": ["Nobody"]}, "invite")]:
        answer = web.http.post("/api/challenge/Cala", headers=cookie(amira), json=body)
        assert answer.status_code == 422, (body, answer.text)
        assert answer.json()["params"]["field"] == field
    missing = web.http.post("/api/challenge/Nobody", headers=cookie(amira), json={})
    assert missing.status_code == 404 and missing.json()["code"] == "unknown_user"
    reader = web.http.post("/api/tokens", headers=cookie(amira),
                           json={"scopes": ["read"]}).json()["token"]
    player = web.http.post("/api/tokens", headers=cookie(amira),
                           json={"scopes": ["play"]}).json()["token"]
    refused = web.http.post("/api/challenge/Cala", json={},
                            headers={"authorization": f"Bearer {reader}"})
    assert refused.status_code == 403 and refused.json()["code"] == "missing_scope"
    made = web.http.post("/api/challenge/Cala", json={},
                         headers={"authorization": f"Bearer {player}"})
    assert made.status_code == 201 and made.json()["from"] == "Amira"


@pytest.mark.slow
def test_a_notification_reaches_an_open_stream_at_once(tmp_path: Path) -> None:
    with Server(sqlite_url(tmp_path / "n.db"), tmp_path, "--bot-delay", "0") as server:
        server.wait("/")
        with httpx.Client(base_url=server.base, timeout=10) as client:
            sessions = {}
            for name in ("Amira", "Bashir"):
                answer = client.post("/api/signup", json={"name": name,
                                                          "password": "a good long password"})
                sessions[name] = answer.cookies["basra_session"]
                client.cookies.clear()
            with client.stream("GET", "/api/notifications/stream",
                               headers=cookie(sessions["Bashir"])) as stream:
                lines = stream.iter_lines()
                assert json.loads(next(lines)) == {"type": "hello", "unread": 0}
                started = time.monotonic()
                made = client.post("/api/challenge/Bashir", json={},
                                   headers=cookie(sessions["Amira"])).json()
                line = json.loads(next(lines))
                took = time.monotonic() - started
        assert line["type"] == "notification" and line["kind"] == "challenge"
        assert line["payload"]["id"] == made["id"] and took < 5
