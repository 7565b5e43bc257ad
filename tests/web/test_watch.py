"""The Watch list (``GET /api/watch``, ``basra.server.watching``) through the real app and
its sockets: the public games being played, rated games of the best players first, each
with its players, ratings, progress and watchers; friends' tables and quick games are
left out, and a match over leaves the list."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from basra.server import watching
from basra.server.seeking import SeekSettings
from tests.support.seeking import paired

FAST = SeekSettings(computer_after=0.4, pair_every=0.05, waiting_every=0.2)
COMPUTERS = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "random"}]


@pytest.fixture(autouse=True)
def fresh_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request makes the list anew (no reuse within LIST_EVERY seconds)."""
    monkeypatch.setattr(watching, "LIST_EVERY", 0.0)


def listed(web: Any) -> list[dict[str, Any]]:
    response = web.http.get("/api/watch")
    assert response.status_code == 200, response.text
    entries: list[dict[str, Any]] = response.json()
    return entries


def codes(web: Any) -> list[str]:
    return [entry["code"] for entry in listed(web)]


def test_public_games_being_played_are_listed_and_private_ones_are_not(web: Any) -> None:
    computers = web.new_table(seats=COMPUTERS)["code"]
    friends, _, _ = web.two_humans()
    quick = web.quick("Amira")["code"]
    waiting = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}])["code"]
    assert web.info(friends)["status"] == web.info(quick)["status"] == "playing"
    assert web.info(waiting)["status"] == "waiting"

    assert codes(web) == [computers]
    [entry] = listed(web)
    assert entry["url"] == f"/t/{computers}"
    assert (entry["variant"], entry["family"], entry["players"], entry["pool"]) == (
        "egyptian", "basra", 2, "egyptian-2")
    assert entry["rated"] is False and entry["best_rating"] is None
    assert [(seat["kind"], seat["level"], seat["rating"]) for seat in entry["seats"]] == [
        ("bot", "greedy", None), ("bot", "random", None)]
    assert all(seat["name"] for seat in entry["seats"])
    assert (entry["deal"], entry["totals"], entry["target"]) == (1, [0, 0], 101)
    assert entry["watchers"] == 0


def test_watchers_are_counted_and_a_match_over_leaves_the_list(web: Any) -> None:
    code = web.new_table(seats=COMPUTERS, rules={"target": 11})["code"]
    watcher = web.connect(code)  # the computers play while someone watches
    other = web.connect(code)
    assert listed(web)[0]["watchers"] == 2
    other.socket.close()
    watcher.wait_for(lambda state: state["seq"] > 0)
    entry = listed(web)[0]
    assert entry["watchers"] == 1 and entry["code"] == code
    watcher.wait_for(lambda state: state["result"] is not None, seconds=60)
    assert code not in codes(web)


def test_rated_games_of_the_best_players_come_first(start_web: Callable[..., Any]) -> None:
    web = start_web("sqlite", seeking=FAST, away_after=600)
    computers = web.new_table(seats=COMPUTERS)["code"]
    tables = []
    for names in (("Amira", "Omar"), ("Hoda", "Farid")):
        sessions = [web.account(name) for name in names]
        seeks = [web.seek("rated=1", session, name) for session, name in zip(
            sessions, names, strict=True)]
        pairs = [paired(seek) for seek in seeks]  # both are told
        tables.append(pairs[0]["table"])
    casual = [web.seek("rated=0", None, name) for name in ("Guest A", "Guest B")]
    casual_pairs = [paired(seek) for seek in casual]
    casual_table = casual_pairs[0]["table"]
    assert web.info(casual_table)["rated"] is False

    hub_tables = web.hub.tables
    hub_tables[tables[0]].ratings = [1700, 1500]
    hub_tables[tables[1]].ratings = [1400, 1900]
    entries = listed(web)
    assert [entry["code"] for entry in entries] == [tables[1], tables[0], casual_table,
                                                    computers] or \
        [entry["code"] for entry in entries] == [tables[1], tables[0], computers,
                                                 casual_table]
    best = entries[0]
    assert best["rated"] is True and best["best_rating"] == 1900
    # the pairing seats the two in either order; each seat shows its own rating
    assert [seat["rating"] for seat in best["seats"]] == [1400, 1900]
    assert {seat["account"] for seat in best["seats"]} == {"Hoda", "Farid"}
    assert entries[1]["best_rating"] == 1700
    # a watcher makes the casual game the more watched of the two unrated ones
    web.connect(casual_table)
    assert [entry["code"] for entry in listed(web)] == [tables[1], tables[0], casual_table,
                                                        computers]


def test_the_list_is_reused_for_a_moment(web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watching, "LIST_EVERY", 60.0)
    assert codes(web) == []
    code = web.new_table(seats=COMPUTERS)["code"]
    assert codes(web) == []  # the list made a moment ago
    monkeypatch.setattr(watching, "LIST_EVERY", 0.0)
    assert codes(web) == [code]


def test_the_lobby_states_this_servers_move_timer(start_web: Callable[..., Any]) -> None:
    web = start_web("sqlite", seeking=SeekSettings(turn_seconds=45))
    page = web.http.get("/").text
    hint = re.search(r'<p id="online-hint"[^>]*>([^<]*)</p>', page)
    assert hint is not None and "a timer of 45 seconds" in hint[1]
    assert "60" not in hint[1]
