"""Personal access tokens (``docs/api.md``, "Tokens"): made from a logged-in page, shown
once, stored as hashes, scoped, rate-limited per token, revoked at once."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from basra.players.accounts import token_hash
from basra.store.schema import api_tokens_table


def cookie(session: str) -> dict[str, str]:
    return {"cookie": f"basra_session={session}"}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def make(web: Any, session: str, *scopes: str, description: str = "a bot") -> dict[str, Any]:
    answer = web.http.post("/api/tokens", headers=cookie(session),
                           json={"description": description, "scopes": list(scopes)})
    assert answer.status_code == 201, answer.text
    made: dict[str, Any] = answer.json()
    return made


def test_a_token_is_shown_once_and_stored_as_its_hash(web: Any) -> None:
    session = web.account("Amira")
    made = make(web, session, "bot", "read")
    token = made["token"]
    assert token.startswith("basra_") and len(token) > 40
    assert made["scopes"] == ["read", "bot"]
    listed = web.ok(web.http.get("/api/tokens", headers=cookie(session)))["tokens"]
    assert [t["description"] for t in listed] == ["a bot"]
    assert "token" not in listed[0] and token not in str(listed)

    async def stored() -> list[str]:
        async with web.app.state.store.engine.connect() as conn:
            return [row[0] for row in await conn.execute(select(api_tokens_table.c.token_hash))]

    assert web.http.portal.call(stored) == [token_hash(token)]
    me = web.ok(web.http.get("/api/account", headers=bearer(token)))
    assert me["name"] == "Amira" and me["bot"] is False


def test_scopes_are_enforced_and_a_revoked_token_stops_at_once(web: Any) -> None:
    session = web.account("Bashir")
    reader = make(web, session, "read")["token"]
    player = make(web, session, "play")
    assert web.http.get("/api/account", headers=bearer(reader)).status_code == 200
    refused = web.http.get("/api/account", headers=bearer(player["token"]))
    assert refused.status_code == 403
    assert refused.json()["code"] == "missing_scope"
    assert refused.json()["params"] == {"scope": "read"}
    revoked = web.http.delete(f"/api/tokens/{player['id']}", headers=cookie(session))
    assert revoked.status_code == 200 and revoked.json() == {"revoked": player["id"]}
    gone = web.http.get("/api/account", headers=bearer(player["token"]))
    assert gone.status_code == 401 and gone.json()["code"] == "bad_token"
    again = web.http.delete(f"/api/tokens/{player['id']}", headers=cookie(session))
    assert again.status_code == 404 and again.json()["code"] == "unknown_token_id"
    assert [t["scopes"] for t in web.ok(web.http.get(
        "/api/tokens", headers=cookie(session)))["tokens"]] == [["read"]]


def test_only_the_owner_revokes_and_bad_requests_are_named(web: Any) -> None:
    owner, other = web.account("Owner"), web.account("Other")
    made = make(web, owner, "read")
    theft = web.http.delete(f"/api/tokens/{made['id']}", headers=cookie(other))
    assert theft.status_code == 404
    assert web.http.get("/api/account", headers=bearer(made["token"])).status_code == 200
    guest = web.http.post("/api/tokens", json={"scopes": ["read"]})
    assert guest.status_code == 401 and guest.json()["code"] == "login_required"
    for body, field in [({"scopes": []}, "scopes"), ({"scopes": ["admin"]}, "scopes"),
                        ({"scopes": "bot"}, "scopes"),
                        ({"scopes": ["bot"], "description": "x" * 121}, "description")]:
        answer = web.http.post("/api/tokens", json=body, headers=cookie(owner))
        assert answer.status_code == 422, answer.text
        assert answer.json()["code"] == "bad_token_request"
        assert answer.json()["params"]["field"] == field
    for header in ({"authorization": "Basic abc"}, {"authorization": "Bearer basra_nope"},
                   {}):
        answer = web.http.get("/api/account", headers=header)
        assert answer.status_code == 401 and answer.json()["code"] == "bad_token"


def test_a_token_cannot_make_tokens(web: Any) -> None:
    session = web.account("Dalia")
    token = make(web, session, "read", "play", "bot")["token"]
    answer = web.http.post("/api/tokens", headers=bearer(token), json={"scopes": ["bot"]})
    assert answer.status_code == 401 and answer.json()["code"] == "login_required"


def test_each_token_has_its_own_rate_limit(start_web: Any) -> None:
    web = start_web(rate_limits={"token": "3/minute"})
    session = web.account("Elias")
    first, second = make(web, session, "read")["token"], make(web, session, "read")["token"]
    for _ in range(3):
        assert web.http.get("/api/account", headers=bearer(first)).status_code == 200
    limited = web.http.get("/api/account", headers=bearer(first))
    assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
    assert int(limited.headers["retry-after"]) >= 1
    assert web.http.get("/api/account", headers=bearer(second)).status_code == 200
