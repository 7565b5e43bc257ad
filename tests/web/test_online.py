"""Play online: seeks over ``/ws/seek`` paired onto tables, rated results, players'
pages and the leaderboard (``docs/web-protocol.md``, "Play online" and "Players")."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from basra.players.ratings import COMPUTER_RATINGS
from basra.server.seeking import SeekSettings
from tests.support.seeking import paired as wait_for_pairing

FAST = SeekSettings(computer_after=0.4, pair_every=0.05, waiting_every=0.2)
DATABASES = ["sqlite", *(["postgresql"] if os.environ.get("BASRA_TEST_POSTGRES_URL") else [])]


@pytest.fixture()
def online(start_web: Callable[..., Any]) -> Callable[..., Any]:
    """Start an app whose seeks pair fast and may ask for the computer after 0.4 s."""

    def start(database: str = "sqlite", **options: Any) -> Any:
        return start_web(database, seeking=options.pop("seeking", FAST), **options)

    return start


def paired(client: Any) -> dict[str, Any]:
    """Read waiting messages until the seat comes; the socket is closed then."""
    message = wait_for_pairing(client)
    assert set(message) == {"type", "table", "seat", "token", "url"}
    assert message["url"] == f"/t/{message['table']}"
    with pytest.raises(WebSocketDisconnect):
        client.receive()
    return message


def wait_until(check: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the condition never came true"
        time.sleep(0.02)


# Rated games between accounts


@pytest.mark.parametrize("database", DATABASES)
@pytest.mark.slow
def test_two_accounts_are_paired_rated_play_and_are_rated(
        online: Callable[..., Any], database: str) -> None:
    web = online(database)
    stamp = str(time.time_ns())[-6:]
    names = [f"Amira{stamp}", f"Bashir{stamp}"]
    sessions = [web.account(name) for name in names]
    seeks = [web.seek("variant=egyptian&players=2&rated=1", s, n)
             for s, n in zip(sessions, names, strict=True)]
    seats = [paired(s) for s in seeks]
    assert seats[0]["table"] == seats[1]["table"]
    assert sorted(s["seat"] for s in seats) == [0, 1]
    code = seats[0]["table"]
    clients = [web.connect(code, s["token"], n) for s, n in zip(seats, names, strict=True)]
    state = clients[0].state
    assert state["rated"] is True
    table = state["table"]
    assert table["rated"] is True and table["pool"] == "egyptian-2"
    by_seat = {s["seat"]: n for s, n in zip(seats, names, strict=True)}
    for seat in table["seats"]:
        assert seat["account"] == by_seat[seat["seat"]] == seat["name"]
        assert seat["rating"] == 1500 and seat["kind"] == "human"
    end = web.play_to_end(clients)
    result = end["result"]
    assert result is not None and result["record_id"] is not None
    changes = end["rating_changes"]
    assert sorted(c["seat"] for c in changes) == [0, 1]
    winner_seat = result["winner"]
    for change in changes:
        assert change["before"] == 1500
        assert (change["after"] > 1500) == (change["seat"] == winner_seat)
    for seat, name in by_seat.items():
        profile = web.ok(web.http.get(f"/api/users/{name}"))
        after = next(c["after"] for c in changes if c["seat"] == seat)
        assert profile["ratings"] == {"egyptian-2": {"rating": after, "games": 1,
                                                     "provisional": True}}
        [(at, rating)] = profile["history"]["egyptian-2"]
        assert rating == after and abs(at - time.time()) < 120
        [match] = profile["matches"]
        assert match["record"] == str(result["record_id"])
        assert match["rated"] is True and match["players"] == 2
        assert match["won"] == (seat == winner_seat)
        assert match["change"] == after - 1500
        assert match["totals"] == result["totals"]
        assert profile["stats"]["games"] == 1
        assert profile["stats"]["wins"] == (1 if seat == winner_seat else 0)
        assert profile["stats"]["basras_per_deal"] >= 0
        assert web.ok(web.http.get(f"/api/records/{match['record']}"))["players"][seat][
            "name"] == name
    board = web.ok(web.http.get("/api/leaderboard?pool=egyptian-2"))
    listed = {row["name"]: row for row in board["players"]}
    for name in names:
        assert listed[name]["games"] == 1 and listed[name]["computer"] is False
    assert listed["Computer (expert)"] == {"name": "Computer (expert)",
                                           "rating": COMPUTER_RATINGS["expert"], "games": 0,
                                           "provisional": False, "computer": True,
                                           "bot": False}
    ratings = [row["rating"] for row in board["players"]]
    assert ratings == sorted(ratings, reverse=True)
    everything = web.ok(web.http.get("/api/leaderboard"))
    assert "egyptian-2" in everything["pools"]
    assert len(everything["pools"]["egyptian-2"]) <= 20


def test_a_rated_seek_needs_an_account(online: Callable[..., Any]) -> None:
    web = online()
    guest = web.seek("rated=1")
    message = guest.receive()
    assert message["type"] == "error" and message["code"] == "login_required"
    with pytest.raises(WebSocketDisconnect):
        guest.receive()
    assert len(web.app.state.seeking.matchmaker) == 0


def test_guests_seek_casual_games(online: Callable[..., Any]) -> None:
    web = online()
    first = web.seek("name=Huda")
    second = web.seek()
    seats = [paired(first), paired(second)]
    assert seats[0]["table"] == seats[1]["table"]
    info = web.info(seats[0]["table"])
    assert info["rated"] is False
    names = {s["seat"]: s["name"] for s in info["seats"]}
    assert names[seats[0]["seat"]] == "Huda"
    assert names[seats[1]["seat"]].startswith("Guest ")
    assert all(s["account"] is None and s["rating"] is None for s in info["seats"])


def test_bad_seeks_are_refused(online: Callable[..., Any]) -> None:
    web = online()
    for query in ("variant=nothing", "players=9", "players=x"):
        client = web.seek(query)
        assert client.receive()["code"] == "bad_seek"
        with pytest.raises(WebSocketDisconnect):
            client.receive()


def test_four_seeks_fill_a_partnership_table(online: Callable[..., Any]) -> None:
    web = online()
    clients = [web.seek(f"variant=egyptian&players=4&name=P{i}") for i in range(4)]
    seats = [paired(c) for c in clients]
    assert len({s["table"] for s in seats}) == 1
    assert sorted(s["seat"] for s in seats) == [0, 1, 2, 3]
    info = web.info(seats[0]["table"])
    assert info["players"] == 4 and info["partnership"]
    assert sorted(s["name"] for s in info["seats"]) == ["P0", "P1", "P2", "P3"]
    assert info["status"] == "playing"


def test_the_computer_fills_the_table_after_the_wait(online: Callable[..., Any]) -> None:
    web = online()
    client = web.seek("variant=egyptian&players=3&name=Omar")
    assert client.receive()["type"] == "waiting"
    client.send({"type": "computer"})
    message = client.receive()
    while message["type"] == "waiting":
        message = client.receive()
    assert message["code"] == "too_early"
    time.sleep(FAST.computer_after + 0.2)
    client.send({"type": "computer"})
    seat = paired(client)
    assert seat["seat"] == 0
    info = web.info(seat["table"])
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "bot"]
    assert {s["level"] for s in info["seats"][1:]} == {"expert"}


def test_a_rated_table_with_the_computer_counts_for_the_account(
        online: Callable[..., Any]) -> None:
    web = online()
    session = web.account("Layla_c")
    client = web.seek("rated=1", session, "Layla")
    time.sleep(FAST.computer_after + 0.2)
    client.send({"type": "computer"})
    seat = paired(client)
    player = web.connect(seat["table"], seat["token"])
    assert player.state["table"]["seats"][1]["rating"] == COMPUTER_RATINGS["expert"]
    end = web.play_to_end([player])
    [change] = end["rating_changes"]
    assert change["seat"] == 0 and change["before"] == 1500
    profile = web.ok(web.http.get("/api/users/Layla_c"))
    assert profile["ratings"]["egyptian-2"]["games"] == 1


def test_closing_the_socket_cancels_the_seek(online: Callable[..., Any]) -> None:
    web = online()
    seeking = web.app.state.seeking
    with web.http.websocket_connect("/ws/seek?name=Samir") as socket:
        assert socket.receive_json()["type"] == "waiting"
        assert len(seeking.matchmaker) == 1
    wait_until(lambda: len(seeking.matchmaker) == 0)
    later = web.seek("name=Rana")
    assert later.receive()["type"] == "waiting"
    time.sleep(0.3)  # nobody to pair with: Sami's seek is gone
    assert later.receive()["type"] == "waiting"


def test_seek_messages_that_make_no_sense_are_answered(online: Callable[..., Any]) -> None:
    web = online()
    client = web.seek()
    for bad in ("not json", '{"type": "dance"}', "[1]", "x" * 5000):
        client.send(bad)
        message = client.receive()
        while message["type"] == "waiting":
            message = client.receive()
        assert message["type"] == "error" and message["code"] == "bad_message"
    assert len(web.app.state.seeking.matchmaker) == 1


# A result counts once


def test_a_rated_result_counts_once_across_a_restart_and_a_second_save(
        web_at: Callable[..., Any], tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/rated.db"
    names = ("Nadia_r", "Karim_r")
    with web_at(url, seeking=FAST) as web:
        sessions = [web.account(name) for name in names]
        seeks = [web.seek("rated=1", s, n) for s, n in zip(sessions, names, strict=True)]
        seats = [paired(client) for client in seeks]
        code = seats[0]["table"]
        clients = [web.connect(code, s["token"]) for s in seats]
        middle = web.play_to_end(clients, plays=10)
        assert middle["result"] is None
    with web_at(url, seeking=FAST) as web:
        clients = [web.connect(code, s["token"]) for s in seats]
        assert clients[0].state["rated"] and clients[0].state["seq"] == middle["seq"]
        end = web.play_to_end(clients)
        assert end["result"] is not None
        changes = end["rating_changes"]
        assert len(changes) == 2
        table = web.hub.tables[code]
        web.http.portal.call(web.hub.play.save_record, table)  # saved again: counted once
        assert table.rating_changes == changes
        for name in names:
            profile = web.ok(web.http.get(f"/api/users/{name}"))
            assert profile["ratings"]["egyptian-2"]["games"] == 1
            assert len(profile["history"]["egyptian-2"]) == 1
    with web_at(url, seeking=FAST) as web:
        again = web.connect(code, seats[0]["token"]).state
        assert again["result"] is not None and again["rating_changes"] == changes
        assert web.ok(web.http.get("/api/users/Nadia_r"))["ratings"]["egyptian-2"][
            "games"] == 1


def test_the_new_pages_are_served_when_the_front_end_has_them(web: Any) -> None:
    from basra.server.app import web_root

    for path, name in (("/u/Amira", "profile.html"), ("/leaderboard", "leaderboard.html"),
                       ("/help", "help.html"), ("/puzzles", "puzzles.html")):
        response = web.http.get(path)
        if (web_root() / "templates" / name).is_file():
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/html")
        else:
            assert response.status_code == 404 and "error" in response.json()


def test_an_unknown_pool_has_no_leaderboard(web: Any) -> None:
    response = web.http.get("/api/leaderboard?pool=egyptian-9")
    assert response.status_code == 400 and response.json()["code"] == "unknown_pool"
    board = web.ok(web.http.get("/api/leaderboard"))
    assert [row["name"] for row in board["pools"]["egyptian-2"]] == [
        "Computer (master)", "Computer (expert)", "Computer (neural)", "Computer (greedy)",
        "Computer (random)"]


def test_a_logged_in_player_holds_a_seat_they_join_with_their_account(web: Any) -> None:
    session = web.account("Yara_j")
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], name="Huda")
    web.http.cookies.set("basra_session", session)
    joined = web.join(created["code"])
    web.http.cookies.clear()
    seats = web.info(created["code"])["seats"]
    assert seats[joined["seat"]]["account"] == "Yara_j"
    assert seats[joined["seat"]]["name"] == "Yara_j"
    assert seats[joined["seat"]]["rating"] == 1500
    assert seats[0]["account"] is None


# The pile games


@pytest.mark.parametrize(("variant", "pool"), [("pisti", "pisti-2"), ("ξερή", "xeri-2")])
def test_pile_seeks_are_paired_played_and_rated_in_their_own_pool(
        online: Callable[..., Any], variant: str, pool: str) -> None:
    web = online()
    stamp = str(time.time_ns())[-6:]
    names = [f"Deniz{stamp}", f"Eleni{stamp}"]
    sessions = [web.account(name) for name in names]
    egyptian = web.seek("variant=egyptian&players=2&name=Waits")
    seeks = [web.seek(f"variant={variant}&players=2&rated=1", s, n)
             for s, n in zip(sessions, names, strict=True)]
    seats = [paired(s) for s in seeks]
    assert seats[0]["table"] == seats[1]["table"]
    assert egyptian.receive()["type"] == "waiting"  # another pool: never paired with them
    clients = [web.connect(seats[0]["table"], s["token"], n)
               for s, n in zip(seats, names, strict=True)]
    table = clients[0].state["table"]
    assert table["rated"] is True and table["pool"] == pool
    end = web.play_to_end(clients)
    assert sorted(c["seat"] for c in end["rating_changes"]) == [0, 1]
    for name in names:
        profile = web.ok(web.http.get(f"/api/users/{name}"))
        assert list(profile["ratings"]) == [pool] and profile["ratings"][pool]["games"] == 1
    board = web.ok(web.http.get(f"/api/leaderboard?pool={pool}"))
    assert {row["name"] for row in board["players"]} >= set(names)
    assert pool in web.ok(web.http.get("/api/leaderboard"))["pools"]
