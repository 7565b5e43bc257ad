"""Accounts through the real app (``docs/web-protocol.md``, "Accounts"): sign up, log in,
log out, the session cookie, cross-site posts, flooding, wrong passwords, public pages,
and a guest who signs up keeping their seat. The main flow runs on PostgreSQL too."""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import Callable, Iterator
from http.cookies import SimpleCookie
from typing import Any

import anyio
import pytest
from argon2 import profiles
from fastapi.testclient import TestClient
from sqlalchemy import delete, select

from basra.players.accounts import LoginPace, Passwords, name_key
from basra.server import create_app
from basra.server.accounts_api import SESSION_COOKIE, AccountSettings
from basra.store import Store
from basra.store.schema import login_failures_table, sessions_table, users_table

DATABASES = ["sqlite", *(["postgresql"] if os.environ.get("BASRA_TEST_POSTGRES_URL") else [])]

CHEAP = Passwords(profiles.CHEAPEST)
"""Hashes in microseconds: the tests are about the rules, not the cost."""
PASSWORD = "correct horse battery"
DAYS = 24 * 3600


class Clock:
    """A clock the tests move (Unix seconds)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def start(start_web: Callable[..., Any], clock: Clock) -> Callable[..., Any]:
    """Start an app with cheap hashing and the test's clock."""

    def start_app(database: str = "sqlite", pace: LoginPace | None = None,
                  **options: Any) -> Any:
        settings = AccountSettings(passwords=CHEAP, clock=clock, pace=pace or LoginPace())
        return start_web(database, accounts=settings, **options)

    return start_app


@pytest.fixture()
def web(start: Callable[..., Any]) -> Any:
    return start()


@pytest.fixture()
def fresh() -> Iterator[Callable[[str], str]]:
    """Fresh names (a prefix and random letters); on PostgreSQL their rows are deleted
    after the test."""
    keys: list[str] = []

    def make(prefix: str = "p") -> str:
        name = prefix + uuid.uuid4().hex[:8]
        keys.append(name_key(name))
        return name

    yield make
    url = os.environ.get("BASRA_TEST_POSTGRES_URL")
    if url and keys:
        anyio.run(delete_accounts, url, keys)


async def delete_accounts(url: str, keys: list[str]) -> None:
    store = Store(url)
    await store.open()
    try:
        async with store.engine.begin() as conn:
            ids = select(users_table.c.id).where(users_table.c.name_key.in_(keys))
            await conn.execute(delete(sessions_table).where(sessions_table.c.user_id.in_(ids)))
            await conn.execute(delete(users_table).where(users_table.c.name_key.in_(keys)))
            await conn.execute(delete(login_failures_table).where(
                login_failures_table.c.name_key.in_(keys)))
    finally:
        await store.close()


def refusal(response: Any, status: int, code: str) -> str:
    """The one-line ``message`` of a refused account request, with its ``code``."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert body.get("code") == code and set(body) == {"code", "message", "params"}, body
    assert isinstance(body["message"], str) and isinstance(body["params"], dict)
    assert isinstance(body["message"], str) and body["message"] and "\n" not in body["message"]
    text: str = body["message"]
    return text


def session_cookie(response: Any) -> Any:
    """The session cookie the answer sets, as a parsed morsel."""
    for header in response.headers.get_list("set-cookie"):
        cookie: SimpleCookie = SimpleCookie()
        cookie.load(header)
        if SESSION_COOKIE in cookie:
            return cookie[SESSION_COOKIE]
    raise AssertionError(f"no {SESSION_COOKIE} cookie in {response.headers}")


def use(web: Any, token: str) -> None:
    """Send ``token`` as the session cookie from now on (and no other)."""
    web.http.cookies.clear()
    web.http.cookies.set(SESSION_COOKIE, token)


def signup(web: Any, name: str, password: str = PASSWORD, **options: Any) -> Any:
    return web.http.post("/api/signup", json={"name": name, "password": password}, **options)


def login(web: Any, name: str, password: str = PASSWORD, **options: Any) -> Any:
    return web.http.post("/api/login", json={"name": name, "password": password}, **options)


def me(web: Any) -> str | None:
    response = web.http.get("/api/me")
    assert response.status_code == 200
    name: str | None = response.json()["name"]
    return name


# The main flow, on every database


@pytest.mark.parametrize("database", DATABASES)
def test_sign_up_log_out_and_log_in(start: Callable[..., Any], database: str,
                                    fresh: Callable[[str], str]) -> None:
    web = start(database)
    name = fresh("Amira")
    assert me(web) is None
    answer = signup(web, name)
    assert answer.status_code == 201 and answer.json() == {"name": name}
    assert me(web) == name
    assert web.ok(web.http.post("/api/logout")) == {"name": None}
    assert me(web) is None
    refusal(signup(web, name.upper(), "another password"), 409, "name_taken")
    refusal(login(web, name, "not the password"), 401, "wrong_login")
    answer = login(web, name.lower())  # any case logs in, as the name was written
    assert web.ok(answer) == {"name": name}
    assert me(web) == name
    profile = web.ok(web.http.get(f"/api/users/{name.upper()}"))
    assert profile == {"name": name, "bot": False, "ratings": {}, "history": {}, "matches": [],
                       "stats": {"games": 0, "wins": 0, "basras_per_deal": 0.0}}
    refusal(web.http.get(f"/api/users/{fresh('nobody')}"), 404, "unknown_user")


# Names and passwords


def test_a_name_taken_in_another_case_or_look_is_refused(web: Any) -> None:
    assert signup(web, "Amira").status_code == 201
    web.http.cookies.clear()
    for taken in ("amira", "AMIRA", "ＡＭＩＲＡ"):
        assert "'Amira'" in refusal(signup(web, taken), 409, "name_taken")
    assert signup(web, "أحمد").status_code == 201
    web.http.cookies.clear()
    assert "taken" in refusal(signup(web, "احمد"), 409, "name_taken")
    assert me(web) is None  # a refused sign-up logs nobody in


@pytest.mark.parametrize(("name", "said"), [
    ("ab", "3 to 20"), ("Omar Sharif", "a space"), ("Computer1", "kept for the computer"),
    ("Layla", "computer player's name"), ("expert", "computer player's name"),
    ("Guest2", "names guests"), ("Ωmega", "mixes Greek and Latin letters"),
    ("Иван", "cyrillic capital letter i"), ("1234", "no letter"),
])
def test_bad_names_are_refused_with_the_rule(web: Any, name: str, said: str) -> None:
    assert said in refusal(signup(web, name), 400, "bad_name")
    assert web.http.get(f"/api/users/{name}").status_code == 404


@pytest.mark.parametrize(("password", "said"), [
    ("short", "8 to 200"), ("x" * 201, "8 to 200"), ("Amira_77", "not be the name"),
])
def test_bad_passwords_are_refused_with_the_rule(web: Any, password: str, said: str) -> None:
    assert said in refusal(signup(web, "Amira_77", password), 400, "bad_password")
    assert web.http.get("/api/users/Amira_77").status_code == 404


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"name": 5, "password": 6}',
                                  b'{"name": "Amira"}'])
def test_malformed_sign_ups_and_log_ins_answer_400(web: Any, body: bytes) -> None:
    for path in ("/api/signup", "/api/login"):
        response = web.http.post(path, content=body)
        assert response.status_code == 400, (path, response.text)
        assert set(response.json()) == {"code", "message", "params"}


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(web: Any) -> None:
    signup(web, "Amira")
    web.http.cookies.clear()
    wrong = login(web, "Amira", "not the password")
    unknown = login(web, "Nobody_here")
    too_long = login(web, "Amira", "x" * 500)
    assert wrong.json() == unknown.json() == too_long.json() == {
        "code": "wrong_login", "message": "wrong name or password", "params": {}}
    assert wrong.status_code == unknown.status_code == too_long.status_code == 401
    assert me(web) is None


# The cookie


def test_the_session_cookie_is_http_only_lax_and_lasts_thirty_days(web: Any) -> None:
    for response in (signup(web, "Amira"), login(web, "Amira")):
        cookie = session_cookie(response)
        assert cookie["httponly"] and cookie["samesite"].lower() == "lax"
        assert cookie["path"] == "/" and int(cookie["max-age"]) == 30 * DAYS
        assert not cookie["secure"] and not cookie["domain"]
        assert len(cookie.value) >= 43


def test_the_session_cookie_is_secure_over_https(web: Any) -> None:
    """Behind a proxy, uvicorn makes the scheme https from ``X-Forwarded-Proto``."""
    response = web.http.post("https://testserver/api/signup",
                             json={"name": "Amira", "password": PASSWORD})
    assert response.status_code == 201
    assert session_cookie(response)["secure"]
    out = web.http.post("https://testserver/api/logout")
    assert session_cookie(out)["secure"]


def test_the_database_keeps_only_the_hash_of_the_token(web: Any) -> None:
    token = session_cookie(signup(web, "Amira")).value
    stored = web.app.state.store

    async def read() -> list[Any]:
        async with stored.engine.connect() as conn:
            return list((await conn.execute(select(sessions_table))).all())

    rows = web.http.portal.call(read)
    assert len(rows) == 1 and rows[0].token_hash != token and len(rows[0].token_hash) == 64
    users = web.http.portal.call(stored.accounts.find, name_key("Amira"))
    assert PASSWORD not in users.password_hash and users.password_hash.startswith("$argon2id$")


def test_a_forged_or_stale_cookie_logs_nobody_in(web: Any, clock: Clock) -> None:
    token = session_cookie(signup(web, "Amira")).value
    for forged in ("x" * 43, token[:-1] + ("A" if token[-1] != "A" else "B"), "", "x" * 500):
        use(web, forged)
        assert me(web) is None
    use(web, token)
    assert me(web) == "Amira"
    clock.now += 30 * DAYS + 1  # expired
    response = web.http.get("/api/me")
    assert response.json() == {"name": None}
    assert session_cookie(response)["max-age"] == "0"  # the stale cookie is cleared


def test_a_logged_out_token_is_dead_even_when_sent_again(web: Any) -> None:
    token = session_cookie(signup(web, "Amira")).value
    out = web.http.post("/api/logout")
    assert session_cookie(out)["max-age"] == "0"
    use(web, token)
    assert me(web) is None
    assert web.ok(web.http.post("/api/logout")) == {"name": None}  # again: nothing to do


def test_logging_in_again_ends_the_session_it_replaces(web: Any) -> None:
    first = session_cookie(signup(web, "Amira")).value
    second = session_cookie(signup(web, "Omar_2")).value
    assert me(web) == "Omar_2"
    use(web, first)
    assert me(web) is None
    use(web, second)
    third = session_cookie(login(web, "Amira")).value
    assert me(web) == "Amira"
    use(web, second)
    assert me(web) is None
    use(web, third)
    assert me(web) == "Amira"


def test_sessions_in_two_browsers_are_independent(web: Any) -> None:
    first = session_cookie(signup(web, "Amira")).value
    web.http.cookies.clear()
    second = session_cookie(login(web, "Amira")).value
    web.http.post("/api/logout")
    use(web, first)
    assert me(web) == "Amira"
    use(web, second)
    assert me(web) is None


# Cross-site requests


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://testserver.evil"])
def test_a_cross_site_post_with_a_valid_cookie_is_refused(web: Any, origin: str) -> None:
    signup(web, "Amira")
    for path in ("/api/logout", "/api/login", "/api/signup"):
        response = web.http.post(path, json={"name": "Omar_2", "password": PASSWORD},
                                 headers={"Origin": origin, "Sec-Fetch-Site": "cross-site"})
        assert response.status_code == 403, (path, response.text)
    assert me(web) == "Amira"  # still logged in: the logout never ran
    assert web.http.get("/api/users/Omar_2").status_code == 404


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_post_the_browser_says_is_from_another_site_is_refused(web: Any, site: str) -> None:
    """Without an Origin header, Sec-Fetch-Site still tells (a sibling subdomain is
    ``same-site``: it would get a Lax cookie)."""
    signup(web, "Amira")
    for path in ("/api/logout", "/api/login", "/api/signup"):
        response = web.http.post(path, json={"name": "Omar_2", "password": PASSWORD},
                                 headers={"Sec-Fetch-Site": site})
        assert site in refusal(response, 403, "cross_site")
    assert me(web) == "Amira"


@pytest.mark.parametrize("headers", [
    {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"},
    {"Sec-Fetch-Site": "none"}, {"Origin": "http://testserver"}, {},
])
def test_the_servers_own_pages_and_other_programs_may_post(web: Any,
                                                           headers: dict[str, str]) -> None:
    assert signup(web, "Amira", headers=headers).status_code == 201
    assert web.http.post("/api/logout", headers=headers).status_code == 200
    assert login(web, "Amira", headers=headers).status_code == 200


def test_an_allowed_origin_may_post_and_others_still_may_not(start: Callable[..., Any]) -> None:
    web = start(allow_origins=["https://basra.example"])
    allowed = {"Origin": "https://basra.example", "Sec-Fetch-Site": "cross-site"}
    assert signup(web, "Amira", headers=allowed).status_code == 201
    refusal(web.http.post("/api/logout", headers={"Sec-Fetch-Site": "same-site"}), 403,
            "cross_site")
    assert web.http.post("/api/logout", headers=allowed).status_code == 200


# Flooding and wrong passwords


def test_sign_up_flooding_is_refused_with_429(start: Callable[..., Any]) -> None:
    web = start(rate_limits={"signup": "3/minute"})
    for number in range(3):
        refused = signup(web, "Omar", "short")  # bad sign-ups count too
        assert refused.status_code == 400, number
    flood = signup(web, "Amira")
    said = refusal(flood, 429, "rate_limited")
    assert "too many sign-ups" in said and "try again in" in said
    assert 1 <= int(flood.headers["retry-after"]) <= 60
    assert web.http.get("/api/users/Amira").status_code == 404
    assert login(web, "Amira").status_code == 401  # log-ins are counted apart


def test_log_in_flooding_is_refused_with_429(start: Callable[..., Any]) -> None:
    web = start(rate_limits={"login": "4/minute"})
    signup(web, "Amira")
    for name in ("a1", "b2", "c3", "Amira"):
        login(web, name, "wrong password")
    flood = login(web, "Amira")  # even the right password waits
    assert "too many log-in attempts" in refusal(flood, 429, "rate_limited")
    assert flood.headers["retry-after"]


def test_the_default_limits_hold_without_rate_limits_for_accounts(
        start: Callable[..., Any]) -> None:
    web = start(rate_limits={"create": "100/minute"})  # nothing said about accounts
    answers = [login(web, f"name{number}").status_code for number in range(21)]
    assert answers == [401] * 20 + [429]


def test_wrong_passwords_lock_the_name_for_longer_and_longer(start: Callable[..., Any],
                                                              clock: Clock) -> None:
    web = start(pace=LoginPace(free_failures=2, first_lock=30, longest_lock=100),
                rate_limits={"login": "1000/minute"})
    signup(web, "Amira")
    web.http.cookies.clear()

    def attempts(name: str) -> list[tuple[int, str, str | None]]:
        """Two wrong passwords, a third, then the right one (while locked)."""
        seen = []
        for password in ("wrong one", "wrong two", "wrong three", PASSWORD):
            response = login(web, name, password)
            seen.append((response.status_code, response.json()["message"],
                         response.headers.get("retry-after")))
        return seen

    amira = attempts("Amira")
    assert amira == [
        (401, "wrong name or password", None), (401, "wrong name or password", None),
        (401, "wrong name or password; try again in 30 s", "30"),
        (429, "too many wrong passwords for this name from this address; try again in 30 s",
         "30")]
    assert me(web) is None
    assert attempts("Nobody_here") == amira  # nothing tells which names have accounts
    clock.now += 20
    assert refusal(login(web, "AMIRA"), 429, "login_locked").endswith("in 10 s")
    clock.now += 10
    refusal(login(web, "Amira", "wrong four"), 401, "wrong_login")  # the 4th: 60 s
    clock.now += 59
    refusal(login(web, "Amira"), 429, "login_locked")
    clock.now += 1
    assert web.ok(login(web, "Amira")) == {"name": "Amira"}
    web.http.post("/api/logout")
    assert login(web, "Amira", "wrong again").headers.get("retry-after") is None  # cleared


def test_wrong_passwords_are_forgotten_after_a_day(start: Callable[..., Any],
                                                   clock: Clock) -> None:
    web = start(pace=LoginPace(free_failures=2, first_lock=30))
    signup(web, "Amira")
    web.http.cookies.clear()
    login(web, "Amira", "wrong one")
    login(web, "Amira", "wrong two")
    clock.now += DAYS + 1
    assert login(web, "Amira", "wrong three").headers.get("retry-after") is None


# Rehashing, storage


def test_a_hash_made_with_old_parameters_is_replaced_at_log_in(tmp_path: Any,
                                                                clock: Clock) -> None:
    url = f"sqlite:///{tmp_path}/t.db"
    newer = Passwords(dataclasses.replace(profiles.RFC_9106_LOW_MEMORY, memory_cost=1024,
                                          time_cost=1, parallelism=1))

    def run(passwords: Passwords, work: Callable[[TestClient], Any]) -> Any:
        app = create_app(url, bot_delay=0, accounts=AccountSettings(passwords=passwords,
                                                                    clock=clock))
        with TestClient(app) as client:
            return work(client)

    def stored_hash(client: TestClient) -> str:
        user = client.portal.call(client.app.state.store.accounts.find, name_key("Amira"))
        return str(user.password_hash)

    def sign_up(client: TestClient) -> str:
        assert client.post("/api/signup", json={"name": "Amira",
                                                "password": PASSWORD}).status_code == 201
        return stored_hash(client)

    def log_in(client: TestClient) -> str:
        assert client.post("/api/login", json={"name": "Amira",
                                               "password": PASSWORD}).status_code == 200
        return stored_hash(client)

    old = run(CHEAP, sign_up)
    assert "m=8,t=1,p=1" in old
    new = run(newer, log_in)
    assert "m=1024,t=1,p=1" in new
    assert run(newer, log_in) == new  # already current: kept
    assert run(CHEAP, log_in) != new  # the password still works after the rehash


def test_while_storage_fails_accounts_answer_503(web: Any) -> None:
    signup(web, "Amira")
    health = web.app.state.store.health
    health.ok, health.error = False, "disk I/O error"
    try:
        response = login(web, "Amira")
        assert response.status_code == 503 and "storage is failing" in response.json()["message"]
        assert signup(web, "Omar_2").status_code == 503
    finally:
        health.ok, health.error = True, None
    assert login(web, "Amira").status_code == 200


# A guest who signs up


def test_a_guest_who_signs_up_keeps_their_seat(web: Any) -> None:
    quick = web.quick("Amira")
    code, token = quick["code"], quick["token"]
    client = web.connect(code, token)
    web.play_to_end([client], plays=1)
    assert signup(web, "Amira").status_code == 201
    assert me(web) == "Amira"
    before = client.state["seq"]
    web.play_to_end([client], plays=1)  # the same socket plays on
    assert client.state["seq"] > before and client.seat == 0
    again = web.connect(code, token, label="after sign-up")  # and the token still holds
    assert again.seat == 0 and again.state["you"]["seat"] == 0
    web.play_to_end([again], plays=1)
    web.http.post("/api/logout")
    web.play_to_end([again], plays=1)  # logging out does not take the seat either
    assert again.seat == 0


def test_the_endpoints_are_in_the_openapi_schema(web: Any) -> None:
    paths = web.ok(web.http.get("/api/openapi.json"))["paths"]
    for path in ("/api/signup", "/api/login", "/api/logout", "/api/me", "/api/users/{name}"):
        assert path in paths
