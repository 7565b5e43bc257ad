"""Account security and bad input against a real ``basra serve`` (issue 36, "Accounts"
and "Errors and shutdown"): log-ins throttled per name and address, look-alike names,
weak passwords, a change of password, the list of sessions, malformed seeks and deep
JSON, the worker processes at SIGTERM, and the allowed hosts.

Clients come from different loopback addresses (127.0.0.2, 127.0.0.3, ...): Linux
routes all of 127.0.0.0/8 to the server at 127.0.0.1, so each is a real address of its
own, as the server sees it, without any header it would have to trust.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.support.clients import Client
from tests.support.realserver import Server, sqlite_url

PASSWORD = "correct horse battery"


def refused(answer: tuple[int, Any, dict[str, str]], status: int, code: str) -> dict[str, Any]:
    got, body, _ = answer
    assert got == status and isinstance(body, dict) and body.get("code") == code, answer
    assert set(body) == {"code", "message", "params"} and "\n" not in body["message"]
    return body


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(sqlite_url(tmp_path / "basra.db"), tmp_path, "--bot-delay", "0",
                "--login-limit", "1000/minute") as started:
        started.wait()
        yield started
        assert "Traceback" not in started.log(), started.log()[-3000:]


# Log-ins: per name and address


@pytest.mark.slow
def test_the_owner_logs_in_while_an_attacker_hammers_the_name_from_elsewhere(
        server: Server) -> None:
    owner = Client(server, "127.0.0.1")
    assert owner.post("/api/signup", {"name": "Amira", "password": PASSWORD})[0] == 201
    attacker = Client(server, "127.0.0.2")
    answers = [attacker.post("/api/login", {"name": "Amira", "password": f"guess {n}"})
               for n in range(12)]
    codes = [body["code"] for _, body, _ in answers]
    assert codes[:5] == ["wrong_login"] * 5 and "login_locked" in codes[6:], codes
    # The attacker's own address is locked, even for the right password ...
    locked = refused(attacker.post("/api/login", {"name": "Amira", "password": PASSWORD}),
                     429, "login_locked")
    assert "from this address" in locked["message"] and locked["params"]["seconds"] >= 1
    # ... while the owner, from another address, logs in at once.
    away = Client(server, "127.0.0.3")
    status, body, _ = away.post("/api/login", {"name": "amira", "password": PASSWORD})
    assert (status, body) == (200, {"name": "Amira"})
    assert away.get("/api/me")[1] == {"name": "Amira"}


# Look-alike names and weak passwords


@pytest.mark.slow
def test_look_alike_names_are_refused_to_accounts_and_guests(server: Server) -> None:
    owner = Client(server)
    assert owner.post("/api/signup", {"name": "Ali_Omar", "password": PASSWORD})[0] == 201
    other = Client(server, "127.0.0.2")
    for name in ("AIi_Omar", "ALI_0MAR", "Ali_Ornar"):
        refused(other.post("/api/signup", {"name": name, "password": PASSWORD}), 409,
                "name_taken")
    for name in ("Karım", "ᴄomputer", "Admın", "Gu3st"):
        refused(other.post("/api/signup", {"name": name, "password": PASSWORD}), 400,
                "bad_name")
    guest = Client(server, "127.0.0.4")
    for name in ("Karim", "Kar1m", "Ali_0mar", "ᴄomputer (expert)", "AIi_Omar"):
        body = refused(guest.post("/api/quick", {"name": name}), 409, "display_name_taken")
        assert body["params"]["name"] == name
    assert guest.post("/api/quick", {"name": "Guest 7"})[0] == 200
    status, table, _ = guest.post("/api/tables", {"name": "Huda",
                                                  "seats": [{"kind": "human"}] * 2})
    assert status == 200
    refused(guest.post(f"/api/tables/{table['code']}/join", {"name": "ALI_OMAR"}), 409,
            "display_name_taken")
    # The account's owner may sit under their own name.
    assert owner.post("/api/quick", {"name": "Ali_Omar"})[0] == 200

    async def seek(name: str) -> dict[str, Any]:
        async with connect(f"{server.ws_base}/ws/seek?name={name}") as socket:
            return dict(json.loads(await socket.recv()))

    assert asyncio.run(seek("Nadia"))["code"] == "display_name_taken"
    assert asyncio.run(seek("Huda"))["type"] == "waiting"


@pytest.mark.slow
def test_greek_and_turkish_names_sign_up_and_their_look_alikes_are_refused(
        server: Server) -> None:
    first = Client(server)
    for name in ("Alice", "Γιώργος", "İpek", "Vera", "Vaia"):
        assert first.post("/api/signup", {"name": name, "password": PASSWORD})[0] == 201, name
        first.post("/api/logout", {})
    other = Client(server, "127.0.0.2")
    for name in ("ΓΙΩΡΓΟΣ", "γιωργος", "ipek", "IPEK", "ıpek", "ALİCE", "ναια"):
        refused(other.post("/api/signup", {"name": name, "password": PASSWORD}), 409,
                "name_taken")
    body = refused(other.post("/api/signup", {"name": "Αlice", "password": PASSWORD}), 400,
                   "bad_name")
    assert "mixes Greek and Latin letters" in body["message"]
    assert other.post("/api/signup", {"name": "Şükrü", "password": PASSWORD})[0] == 201
    guest = Client(server, "127.0.0.4")
    for name in ("Αlice", "ΑLICE", "νera", "Γιωργος", "İPEK", "Καρίμ", "Kerim"):
        body = refused(guest.post("/api/quick", {"name": name}), 409, "display_name_taken")
        assert body["params"]["name"] == name
    assert guest.post("/api/quick", {"name": "Νίκος"})[0] == 200


@pytest.mark.slow
@pytest.mark.parametrize(("password", "hint"), [
    (" " * 8, "account_hint_blank"), ("\0" * 8, "account_hint_blank"),
    ("password123", "account_hint_common"), ("abcdefghij", "account_hint_sequence"),
])
def test_blank_and_common_passwords_are_refused(server: Server, password: str,
                                                hint: str) -> None:
    client = Client(server)
    body = refused(client.post("/api/signup", {"name": "Bashir", "password": password}),
                   400, "weak_password")
    assert body["params"] == {"hint": hint}
    assert client.get("/api/users/Bashir")[0] == 404  # nothing was made


# Sessions and passwords


@pytest.mark.slow
def test_a_change_of_password_needs_the_current_one_and_ends_the_other_sessions(
        server: Server) -> None:
    here = Client(server, agent="Firefox here")
    assert here.post("/api/signup", {"name": "Huda", "password": PASSWORD})[0] == 201
    phone = Client(server, "127.0.0.2", agent="Phone browser")
    assert phone.post("/api/login", {"name": "Huda", "password": PASSWORD})[0] == 200
    status, listed, _ = here.get("/api/account/sessions")
    assert status == 200 and len(listed["sessions"]) == 2
    mine = [s for s in listed["sessions"] if s["current"]]
    assert len(mine) == 1 and mine[0]["browser"] == "Firefox here"
    for session in listed["sessions"]:
        assert session["created_at"] <= session["last_used_at"] < session["expires_at"]
        assert len(session["id"]) == 16
    new = "another quite long secret"
    refused(here.post("/api/account/password", {"current": "not it at all", "new": new}),
            403, "wrong_password")
    refused(here.post("/api/account/password", {"current": PASSWORD, "new": "password1"}),
            400, "weak_password")
    assert phone.get("/api/me")[1] == {"name": "Huda"}  # nothing changed yet
    status, body, _ = here.post("/api/account/password", {"current": PASSWORD, "new": new})
    assert (status, body) == (200, {"name": "Huda", "ended": 1})
    assert here.get("/api/me")[1] == {"name": "Huda"}  # this session stays
    assert phone.get("/api/me")[1] == {"name": None}  # the other one ended
    refused(Client(server, "127.0.0.5").post("/api/login", {"name": "Huda",
                                                             "password": PASSWORD}),
            401, "wrong_login")
    assert Client(server, "127.0.0.6").post("/api/login", {"name": "Huda",
                                                           "password": new})[0] == 200
    refused(Client(server).get("/api/account/sessions"), 401, "login_required")


@pytest.mark.slow
def test_sessions_are_listed_and_ended_one_or_all_others(server: Server) -> None:
    clients = [Client(server, f"127.0.0.{n}", agent=f"browser {n}") for n in (1, 2, 3)]
    assert clients[0].post("/api/signup", {"name": "Omar_9", "password": PASSWORD})[0] == 201
    for client in clients[1:]:
        assert client.post("/api/login", {"name": "Omar_9", "password": PASSWORD})[0] == 200
    listed = clients[0].get("/api/account/sessions")[1]["sessions"]
    second = next(s for s in listed if s["browser"] == "browser 2")
    assert clients[0].post("/api/account/sessions/end", {"id": second["id"]})[1] == {"ended": 1}
    assert clients[1].get("/api/me")[1] == {"name": None}
    refused(clients[0].post("/api/account/sessions/end", {"id": second["id"]}), 404,
            "unknown_session")
    refused(clients[0].post("/api/account/sessions/end", {"id": 5}), 400, "bad_request")
    assert clients[0].post("/api/account/sessions/end", {"others": True})[1] == {"ended": 1}
    assert clients[2].get("/api/me")[1] == {"name": None}
    assert clients[0].get("/api/me")[1] == {"name": "Omar_9"}
    assert [s["current"] for s in clients[0].get("/api/account/sessions")[1]["sessions"]] \
        == [True]
    refused(clients[0].post("/api/account/sessions/end", {"others": True},
                            headers={"Sec-Fetch-Site": "cross-site"}), 403, "cross_site")


# Bad input


@pytest.mark.slow
def test_a_malformed_seek_and_deep_json_get_a_clear_refusal(server: Server) -> None:
    async def seek(query: str) -> tuple[dict[str, Any], int | None]:
        async with connect(f"{server.ws_base}/ws/seek?{query}") as socket:
            first = dict(json.loads(await socket.recv()))
            await socket.wait_closed()
            return first, socket.close_code

    for query in ("players=%C2%B2", "players=%D9%A2", "players=22", "players=x",
                  "variant=nosuch"):
        message, close = asyncio.run(seek(query))
        assert message["type"] == "error" and message["code"] == "bad_seek", message
        assert close == 4400
    client = Client(server)
    puzzle = client.get("/api/puzzles/next")[1]["puzzle"]["id"]
    for depth in (40, 500, 5000, 50_000):
        for raw in (b"[" * depth + b"]" * depth,
                    b'{"move": ' + b"[" * depth + b"]" * depth + b"}",
                    b'{"move": ' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"):
            body = refused(client.post(f"/api/puzzles/{puzzle}/answer", raw=raw), 400,
                           "bad_request")
            assert len(body["message"]) < 300
            refused(client.post("/api/tables", raw=raw), 400, "bad_request")


# Workers and hosts


def _hint(server: Server, client: Client) -> dict[str, Any]:
    """A hint at a new quick table, its seat's socket open (the computer, when it deals
    first, plays once the seat is there), asked until it is the seat's turn."""
    seated = client.post("/api/quick", {"name": "Huda"})[1]
    path = f"/api/tables/{seated['code']}/hint?token={seated['token']}"

    def ask() -> tuple[int, Any]:
        deadline = time.monotonic() + 60
        while True:
            status, hint, _ = client.get(path)
            if status == 200 or time.monotonic() > deadline:
                return status, hint
            time.sleep(0.2)

    async def seated_and_asking() -> tuple[int, Any]:
        async with connect(f"{server.ws_base}/ws/{seated['code']}?token={seated['token']}"):
            return await asyncio.to_thread(ask)

    status, hint = asyncio.run(seated_and_asking())
    assert status == 200 and hint["moves"], hint
    return dict(hint)


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isascii() and entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_no_worker_survives_sigterm(tmp_path: Path, web_at: Any) -> None:
    url = sqlite_url(tmp_path / "basra.db")
    with web_at(url) as web:  # a finished match in the database
        quick = web.quick("Amira")
        web.play_to_end([web.connect(quick["code"], quick["token"])])
    with Server(url, tmp_path, "--bot-delay", "0") as server:
        server.wait()
        client = Client(server)
        record = client.get("/api/records")[1][0]["id"]
        assert client.post(f"/api/records/{record}/analysis")[0] == 202
        _hint(server, client)
        workers = _descendants(server.process.pid)
        assert len(workers) >= 2, workers  # the analysis's and the hint's at least
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if _alive(pid)]
        assert "Traceback" not in server.log()


@pytest.mark.slow
def test_workers_leave_when_the_server_is_killed(tmp_path: Path) -> None:
    with Server(sqlite_url(tmp_path / "basra.db"), tmp_path, "--bot-delay", "0") as server:
        server.wait()
        _hint(server, Client(server))
        workers = _descendants(server.process.pid)
        assert workers
        server.kill()
        deadline = time.monotonic() + 15
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if _alive(pid)]


@pytest.mark.slow
def test_only_the_allowed_hosts_are_answered(tmp_path: Path) -> None:
    with Server(sqlite_url(tmp_path / "basra.db"), tmp_path) as server:
        server.wait()
        client = Client(server)
        port = server.port
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", "localhost"):
            assert client.get("/api/me", headers={"Host": host})[0] == 200, host
        body = refused(client.get("/api/me", headers={"Host": f"rebound.example:{port}"}),
                       400, "bad_host")
        assert body["params"] == {"host": f"rebound.example:{port}"}
        refused(client.post("/api/quick", {}, headers={"Host": "rebound.example"}), 400,
                "bad_host")

        async def socket(host: str) -> int | None:
            try:
                async with connect(f"ws://{host}:{port}/ws/seek", host="127.0.0.1",
                                   port=port) as opened:
                    await opened.recv()
                    return None
            except Exception as error:
                response = getattr(error, "response", None)
                return None if response is None else int(response.status_code)

        assert asyncio.run(socket("rebound.example")) == 403
    with Server(sqlite_url(tmp_path / "any.db"), tmp_path, "--allowed-host", "*") as server:
        server.wait()
        assert Client(server).get("/api/me", headers={"Host": "rebound.example"})[0] == 200
    with Server(sqlite_url(tmp_path / "one.db"), tmp_path, "--allowed-host",
                "basra.example") as server:
        deadline = time.monotonic() + 30
        while True:  # (Server.wait asks as 127.0.0.1, which this one refuses)
            try:
                if Client(server).get("/api/me", headers={"Host": "basra.example"})[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline and server.process.poll() is None
            time.sleep(0.1)
        refused(Client(server).get("/api/me"), 400, "bad_host")  # 127.0.0.1 not listed
