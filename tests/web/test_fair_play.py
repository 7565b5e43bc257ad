"""Conduct in rated play, through the real app and its sockets: a match whose player never
played is aborted (unrated), a player gone forfeits (a loss, last place), rated rematches
need every player, results between two accounts are limited per day, seeks from one
address are kept apart and flagged, and abandons earn playbans
(``basra.players.conduct``; ``docs/web-protocol.md``, "Fair play")."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from basra.players.conduct import ranks_with_forfeits
from basra.players.ratings import rate_match
from basra.server.seeking import SeekSettings
from tests.support.seeking import paired

FAST = SeekSettings(computer_after=0.4, pair_every=0.05, waiting_every=0.2)
AWAY = 1.5
"""Seconds without a connection before a seat is gone (long enough for a test's players
to reach their table after pairing, on a busy machine)."""


@pytest.fixture()
def online(start_web: Callable[..., Any]) -> Callable[..., Any]:
    """Start an app whose seeks pair fast and whose seats are gone after ``AWAY`` s."""

    def start(**options: Any) -> Any:
        return start_web("sqlite", seeking=options.pop("seeking", FAST),
                         **{"away_after": AWAY, **options})

    return start


def rated_pair(web: Any, names: tuple[str, str]) -> tuple[list[str], list[dict[str, Any]]]:
    """Two new accounts seek a rated game and are paired: their sessions and seats, in
    the order of ``names``."""
    sessions = [web.account(name) for name in names]
    seeks = [web.seek("rated=1", s, n) for s, n in zip(sessions, names, strict=True)]
    return sessions, [paired(client) for client in seeks]


def rated_with_computer(web: Any, name: str, players: int = 2) -> dict[str, Any]:
    """A new account seeks a rated game and fills the table with the computer: its seat."""
    session = web.account(name)
    client = web.seek(f"rated=1&players={players}", session, name)
    time.sleep(FAST.computer_after + 0.1)
    client.send({"type": "computer"})
    return paired(client)


def read_until(client: Any, wanted: Callable[[dict[str, Any]], bool],
               seconds: float = 20.0) -> dict[str, Any]:
    """Read every kind of message until one is ``wanted``; that message."""
    deadline = time.monotonic() + seconds
    while True:
        assert time.monotonic() < deadline, f"{client} never got what it waited for"
        message = client.receive()
        if wanted(message):
            return message


def state_where(client: Any, wanted: Callable[[dict[str, Any]], bool],
                seconds: float = 20.0) -> dict[str, Any]:
    """The first state (the current one counts) that is ``wanted``."""
    if client.state is not None and wanted(client.state):
        return dict(client.state)
    return read_until(client, lambda m: m["type"] == "state" and wanted(m), seconds)


def play_once(client: Any) -> None:
    """Wait for the seat's turn and make one play, confirmed."""
    state = state_where(client, lambda s: s["result"] is None and s["deal"] is not None
                        and s["deal"]["to_play"] == s["you"]["seat"])
    seq = state["seq"]
    client.play()
    state_where(client, lambda s: s["seq"] > seq)


def play_to_end(clients: list[Any]) -> dict[str, Any]:
    """The seats of ``clients`` play whenever it is their turn (the computer plays the
    others) until the match ends; the first client's last state."""
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the match never ended"
        for client in clients:
            client.sync()
        state = clients[0].state
        assert state is not None
        if state["result"] is not None:
            return dict(state)
        movers = [c for c in clients if c.my_turn()]
        if not movers:
            clients[0].receive()
            continue
        seq = movers[0].state["seq"]
        movers[0].play()
        state_where(movers[0], lambda s, seq=seq: s["seq"] > seq)


def account_id(web: Any, code: str, seat: int) -> int:
    account = web.hub.tables[code].accounts[seat]
    assert account is not None
    return int(account[0])


def abandons(web: Any, user_id: int) -> list[int]:
    return list(web.http.portal.call(web.app.state.store.conduct.abandons, user_id, 0))


def flags(web: Any, kind: str) -> list[Any]:
    return [flag for flag in web.http.portal.call(web.app.state.store.flags.listed)
            if flag.kind == kind]


def profile(web: Any, name: str) -> dict[str, Any]:
    return dict(web.ok(web.http.get(f"/api/users/{name}")))


@contextlib.contextmanager
def seat_socket(web: Any, code: str, token: str) -> Iterator[Any]:
    """A seat's socket that the test closes (the player leaves) by leaving the block."""
    with web.connection(code, token) as client:
        yield client


# A first play, or an abort


@pytest.mark.slow
def test_an_account_that_never_plays_gains_nothing_the_match_is_aborted(
        online: Callable[..., Any]) -> None:
    """Karim is paired and never comes: the match is aborted, unrated for both; the
    computer finishes it for Nadia, and the abandon is Karim's."""
    web = online()
    names = ("Nadia_n", "Karim_n")
    _sessions, seats = rated_pair(web, names)
    code = seats[0]["table"]
    nadia = web.connect(code, seats[0]["token"], "Nadia")
    assert nadia.state["conduct"] == {"unrated": None, "aborted_by": None, "forfeits": [],
                                      "rematch_asks": []}
    notice = read_until(nadia, lambda m: m["type"] == "notice")
    assert notice["code"] == "conduct_aborted" and notice["seat"] == seats[1]["seat"]
    end = play_to_end([nadia])
    assert end["conduct"]["unrated"] == "aborted"
    assert end["conduct"]["aborted_by"] == seats[1]["seat"]
    assert end["result"]["record_id"] is not None  # the record is kept, unrated
    assert not end["rating_changes"]
    for name in names:
        assert profile(web, name)["ratings"] == {}
    assert len(abandons(web, account_id(web, code, seats[1]["seat"]))) == 1
    assert abandons(web, account_id(web, code, seats[0]["seat"])) == []
    web.http.portal.call(web.hub.play.save_record, web.hub.tables[code])  # saved again
    assert profile(web, names[1])["ratings"] == {}


@pytest.mark.slow
def test_a_player_out_of_time_before_the_first_play_aborts(
        online: Callable[..., Any]) -> None:
    """Connected but never playing: the turn timer aborts the match as surely."""
    web = online(seeking=SeekSettings(computer_after=0.4, pair_every=0.05,
                                      waiting_every=0.2, turn_seconds=2))
    seat = rated_with_computer(web, "Samir_t")
    player = web.connect(seat["table"], seat["token"], "Samir")
    state = state_where(player, lambda s: s["conduct"]["unrated"] is not None, seconds=15)
    assert state["seq"] <= 1  # the computer may have played first; Samir never did
    assert state["conduct"] == {"unrated": "aborted", "aborted_by": 0, "forfeits": [],
                                "rematch_asks": []}
    end = play_to_end([player])
    assert not end["rating_changes"] and profile(web, "Samir_t")["ratings"] == {}


# Forfeits


@pytest.mark.slow
def test_a_player_who_leaves_loses_and_a_rematch_needs_both(
        online: Callable[..., Any]) -> None:
    """Bashir plays, leaves and forfeits; he comes back and plays on, but the result
    stays a loss for him. Then he leaves again: Amira's rematch is refused (back to
    seeking); with both back, it starts when both ask."""
    web = online()
    names = ("Amira_f", "Bashir_f")
    _sessions, seats = rated_pair(web, names)
    code = seats[0]["table"]
    amira = web.connect(code, seats[0]["token"], "Amira")
    bashir_seat = seats[1]["seat"]
    with seat_socket(web, code, seats[1]["token"]) as bashir:
        while not all(s in web.hub.tables[code].played for s in (0, 1)):
            for client in (amira, bashir):
                if client.my_turn():
                    play_once(client)
                else:
                    client.sync()
    notice = read_until(amira, lambda m: m["type"] == "notice")
    assert notice == {"type": "notice", "code": "conduct_forfeit", "seat": bashir_seat,
                      "message": notice["message"]}
    state = state_where(amira, lambda s: s["conduct"]["forfeits"] == [bashir_seat])
    assert state["conduct"]["unrated"] is None
    with seat_socket(web, code, seats[1]["token"]) as bashir:  # back: he may play on
        assert bashir.state["you"]["away"] is False
        end = play_to_end([amira, bashir])
        assert end["conduct"]["forfeits"] == [bashir_seat]
        changes = {c["seat"]: c["after"] - c["before"] for c in end["rating_changes"]}
        assert changes[bashir_seat] < 0 < changes[seats[0]["seat"]]
        assert len(abandons(web, account_id(web, code, bashir_seat))) == 1
        assert abandons(web, account_id(web, code, seats[0]["seat"])) == []
    amira.send({"type": "rematch"})
    refused = read_until(amira, lambda m: m["type"] == "error")
    assert refused["code"] == "seek_again"
    assert web.hub.tables[code].match_number == 1
    with seat_socket(web, code, seats[1]["token"]) as bashir:
        amira.send({"type": "rematch"})
        asked = state_where(bashir, lambda s: s["conduct"]["rematch_asks"] == [0])
        assert asked["table"]["match_number"] == 1
        bashir.send({"type": "rematch"})
        again = state_where(amira, lambda s: s["table"]["match_number"] == 2)
        assert again["conduct"] == {"unrated": None, "aborted_by": None, "forfeits": [],
                                    "rematch_asks": []}
        assert again["result"] is None


@pytest.mark.slow
def test_the_first_to_leave_ranks_last_among_three(online: Callable[..., Any]) -> None:
    """Rania plays once at a three-player rated table, then leaves: the computer plays
    her seat to the end (for the watcher), and she is ranked last."""
    web = online()
    seat = rated_with_computer(web, "Rania_3", players=3)
    code = seat["table"]
    watcher = web.connect(code, label="watcher")
    with seat_socket(web, code, seat["token"]) as rania:
        play_once(rania)
    end = play_to_end([watcher])
    assert end["conduct"]["forfeits"] == [0]
    result = end["result"]
    ranks = ranks_with_forfeits(result["totals"], result["winner"], [0])
    assert ranks[0] == 2
    [change] = end["rating_changes"]
    user = account_id(web, code, 0)
    [expected] = rate_match("x", "egyptian-3", [[f"user:{user}"], ["computer:expert"],
                                                ["computer:expert"]], ranks, {})
    assert change == {"seat": 0, "before": 1500, "after": expected.after.display}
    assert change["after"] < 1500


@pytest.mark.slow
def test_after_one_side_forfeits_the_other_leaving_is_no_forfeit(
        online: Callable[..., Any]) -> None:
    web = online(same_pair_limit=1)
    names = ("Huda_p", "Omar_p")
    _sessions, seats = rated_pair(web, names)
    code = seats[0]["table"]
    watcher = web.connect(code, label="watcher")
    with contextlib.ExitStack() as both:
        players = [both.enter_context(seat_socket(web, code, s["token"])) for s in seats]
        while not all(s in web.hub.tables[code].played for s in (0, 1)):
            for client in players:
                if client.my_turn():
                    play_once(client)
                else:
                    client.sync()
    end = play_to_end([watcher])
    [gone] = end["conduct"]["forfeits"]
    changes = {c["seat"]: c["after"] - c["before"] for c in end["rating_changes"]}
    assert changes[gone] < 0 < changes[1 - gone]
    assert len(abandons(web, account_id(web, code, gone))) == 1
    assert abandons(web, account_id(web, code, 1 - gone)) == []

    # Same pair: one rated result a day between them (same_pair_limit=1), so their
    # rematch is not rated, says so, and is flagged.
    with contextlib.ExitStack() as both:
        players = [both.enter_context(seat_socket(web, code, s["token"])) for s in seats]
        for client in players:
            client.send({"type": "rematch"})
        again = state_where(players[0], lambda s: s["table"]["match_number"] == 2)
        assert again["rated"] is True and again["conduct"]["unrated"] == "same_pair"
    [flag] = flags(web, "same_pair")
    ids = {account_id(web, code, 0), account_id(web, code, 1)}
    assert {flag.user_id, flag.other_user_id} == ids and flag.table_code == code
    assert flag.details["limit"] == 1 and flag.details["results"] == 1


# One address


def test_two_seeks_from_one_address_are_paired_only_alone_and_flagged(
        online: Callable[..., Any]) -> None:
    """The test client has one address: with nobody else waiting, its two rated seeks
    are paired, and the pairing is flagged for moderators."""
    web = online()
    _sessions, seats = rated_pair(web, ("Lina_s", "Rami_s"))
    code = seats[0]["table"]
    [flag] = flags(web, "same_address")
    assert {flag.user_id, flag.other_user_id} == {account_id(web, code, 0),
                                                   account_id(web, code, 1)}
    assert flag.table_code == code and flag.details == {"pool": "egyptian-2"}
    casual = [web.seek("name=A"), web.seek("name=B")]
    assert paired(casual[0])["table"] == paired(casual[1])["table"]
    assert len(flags(web, "same_address")) == 1  # casual pairings are not flagged


# Playbans


@pytest.mark.slow
def test_abandons_earn_growing_waits_before_a_rated_seek(online: Callable[..., Any]) -> None:
    web = online(away_after=0.3)
    name = "Tariq_b"
    session = web.account(name)
    for _ in range(2):
        client = web.seek("rated=1", session, name)
        time.sleep(FAST.computer_after + 0.1)
        client.send({"type": "computer"})
        seat = paired(client)
        code = seat["table"]
        user = account_id(web, code, 0)
        watcher = web.connect(code, label="watcher")
        state_where(watcher, lambda s: s["conduct"]["unrated"] == "aborted")
        deadline = time.monotonic() + 5
        while len(abandons(web, user)) < _ + 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)

    refused = web.seek("rated=1", session, name).receive()
    assert refused["type"] == "error" and refused["code"] == "playban"
    assert 290 <= refused["params"]["seconds"] <= 300 == refused["params"]["n"] * 60
    assert refused["retry_after"] == refused["params"]["seconds"]
    assert refused["params"]["abandons"] == 2
    assert "rated" in refused["message"]
    assert len(web.app.state.seeking.matchmaker) == 0
    casual = web.seek("rated=0", session, name)  # casual games stay open
    assert casual.receive()["type"] == "waiting"

    assert flags(web, "abandons") == []
    store = web.app.state.store
    web.http.portal.call(store.conduct.record_abandon, user, "forfeit", "elsewhere", 1, 0,
                         web.hub.settings.abandon_flag_at)
    later = web.seek("rated=1", session, name)
    again = later.receive()
    assert again["code"] == "playban" and 590 <= again["params"]["seconds"] <= 600
    with pytest.raises(WebSocketDisconnect) as closed:
        later.receive()
    assert closed.value.code == 4429
    [flag] = flags(web, "abandons")  # a third abandon in a day: flagged
    assert flag.user_id == user and flag.details["abandons"] == 3


def test_the_playban_may_be_switched_off(online: Callable[..., Any]) -> None:
    from basra.players.accounts import name_key

    web = online(playban_base=0)
    session = web.account("Yara_o")
    store = web.app.state.store
    user = web.http.portal.call(store.accounts.find, name_key("Yara_o"))
    for number in range(4):
        web.http.portal.call(store.conduct.record_abandon, user.id, "abort", "t", number, 0)
    assert web.seek("rated=1", session, "Yara_o").receive()["type"] == "waiting"


# A restarted server


@pytest.mark.slow
def test_a_restarted_server_keeps_who_played_and_who_forfeited(
        web_at: Callable[..., Any], tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/conduct.db"
    names = ("Salma_r", "Yusuf_r")
    with web_at(url, seeking=FAST, away_after=30) as web:
        _sessions, seats = rated_pair(web, names)
        code = seats[0]["table"]
        players = [web.connect(code, s["token"], n) for s, n in zip(seats, names, strict=True)]
        while not all(s in web.hub.tables[code].played for s in (0, 1)):
            for client in players:
                if client.my_turn():
                    play_once(client)
                else:
                    client.sync()
    # Yusuf made his first play before the restart: gone after it, he forfeits (an
    # abort would leave the match unrated).
    with web_at(url, seeking=FAST, away_after=AWAY) as web:
        assert web.hub.tables[code].played == {0, 1}
        salma = web.connect(code, seats[0]["token"], "Salma")
        state = state_where(salma, lambda s: s["conduct"]["forfeits"] != [])
        assert state["conduct"] == {"unrated": None, "aborted_by": None,
                                    "forfeits": [seats[1]["seat"]], "rematch_asks": []}
    with web_at(url, seeking=FAST, away_after=30) as web:
        players = [web.connect(code, s["token"], n) for s, n in zip(seats, names, strict=True)]
        assert players[1].state["conduct"]["forfeits"] == [seats[1]["seat"]]
        assert players[1].state["you"]["away"] is False  # back, playing on
        end = play_to_end(players)
        changes = {c["seat"]: c["after"] - c["before"] for c in end["rating_changes"]}
        assert changes[seats[1]["seat"]] < 0 < changes[seats[0]["seat"]]
