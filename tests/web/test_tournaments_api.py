"""Tournaments on a running app (``docs/web-protocol.md``, "Tournaments"): made, joined,
directed to the end, their standings and records, ratings changed once."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from typing import Any

from basra.record import loads
from basra.server.directing import TournamentSettings

FAST = TournamentSettings(tick=0.05, minute=1.0)
"""A director that passes every 50 ms, and an arena's minute of one second."""


def cookie(session: str) -> dict[str, str]:
    return {"cookie": f"basra_session={session}"}


def tournament(web: Any, tid: str, session: str | None = None) -> dict[str, Any]:
    answer = web.http.get(f"/api/tournaments/{tid}",
                          headers={} if session is None else cookie(session))
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def create(web: Any, session: str, **body: Any) -> str:
    answer = web.http.post("/api/tournaments", json=body, headers=cookie(session))
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def join(web: Any, tid: str, session: str, **body: Any) -> dict[str, Any]:
    answer = web.http.post(f"/api/tournaments/{tid}/join", json=body, headers=cookie(session))
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def wait_for(check: Any, what: str, seconds: float = 30.0) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"waited {seconds} s for {what}")


def play_round(web: Any, tid: str, sessions: dict[str, str], seen: set[str]) -> int:
    """Every account with a game in progress it has not played yet plays it to its end
    (accounts at one table together); the number of tables played."""
    tables: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for name, session in sessions.items():
        game = tournament(web, tid, session)["you"]["game"]
        if game is not None and game["table"] not in seen:
            tables[game["table"]].append((name, game))
    people = {g["table"]: [name for entrant in g["players"] for name in entrant.split(" & ")
                           if name in sessions]
              for g in tournament(web, tid)["games"]}  # (a team is named "A & B")
    for code, seated in tables.items():
        if len(seated) < len(people.get(code, ())):
            continue  # read while its seats were being stored: the next look has them all
        clients = [web.connect(code, game["token"], label=name) for name, game in seated]
        end = web.play_to_end(clients)
        assert end["result"] is not None
        assert end["tournament"] == tid
        seen.add(code)
    return len(tables)


def play_out(web: Any, tid: str, sessions: dict[str, str], seconds: float) -> None:
    """The accounts play every game they are paired in until the tournament is over (or
    ``seconds`` have passed)."""
    seen: set[str] = set()
    deadline = time.monotonic() + seconds
    while tournament(web, tid)["status"] != "finished" and time.monotonic() < deadline:
        if not play_round(web, tid, sessions, seen):
            time.sleep(0.05)


def test_a_guest_may_not_make_a_tournament_and_bad_fields_are_named(web: Any) -> None:
    answer = web.http.post("/api/tournaments", json={"kind": "arena", "minutes": 30})
    assert answer.status_code == 401
    assert answer.json()["code"] == "login_required"
    session = web.account("Maker")
    for body, field in [({"kind": "knockout"}, "kind"),
                        ({"kind": "arena", "minutes": 3}, "minutes"),
                        ({"kind": "swiss", "rounds": 0}, "rounds"),
                        ({"kind": "swiss", "rounds": 3, "variant": "chess"}, "variant"),
                        ({"kind": "swiss", "rounds": 3, "variant": "jawaker", "players": 4},
                         "players"),
                        ({"kind": "arena", "minutes": 30, "computers": ["grandmaster"]},
                         "computers"),
                        ({"kind": "arena", "minutes": 30, "turn_seconds": 2}, "turn_seconds"),
                        ({"kind": "arena", "minutes": 30, "starts_in": -1}, "starts_in")]:
        answer = web.http.post("/api/tournaments", json=body, headers=cookie(session))
        assert answer.status_code == 422, (body, answer.text)
        assert answer.json()["code"] == "bad_tournament"
        assert answer.json()["params"]["field"] == field
    assert web.http.get("/api/tournaments").json() == {"upcoming": [], "running": [],
                                                       "finished": []}
    missing = web.http.get("/api/tournaments/nothing")
    assert missing.status_code == 404 and missing.json()["code"] == "unknown_tournament"


def test_an_account_makes_a_few_tournaments_a_day(start_web: Any) -> None:
    web = start_web(tournaments=TournamentSettings(daily_limit=2))
    session = web.account("Busy")
    for _ in range(2):
        create(web, session, kind="arena", minutes=30, starts_in=600)
    answer = web.http.post("/api/tournaments", json={"kind": "arena", "minutes": 30},
                           headers=cookie(session))
    assert answer.status_code == 429
    assert answer.json()["code"] == "tournament_limit"
    assert answer.json()["params"]["most"] == 2
    listed = web.http.get("/api/tournaments").json()
    assert len(listed["upcoming"]) == 2 and listed["running"] == []


def test_join_withdraw_and_pause_change_only_the_askers_entry(start_web: Any) -> None:
    web = start_web(tournaments=FAST)
    alice, bob = web.account("Alice"), web.account("Bob")
    tid = create(web, alice, kind="swiss", rounds=3, starts_in=600, computers=["greedy"])
    view = join(web, tid, alice)
    assert view["you"]["entered"] and view["you"]["status"] == "active"
    assert [(s["name"], s["computer"]) for s in view["standings"]] == [
        ("Karim (greedy)", True), ("Alice", False)]  # by rating before any game
    assert tournament(web, tid)["you"] is None  # a guest's view
    assert tournament(web, tid, bob)["you"]["can_join"]
    answer = web.http.post(f"/api/tournaments/{tid}/withdraw", headers=cookie(bob))
    assert answer.status_code == 409 and answer.json()["code"] == "not_entered"
    paused = web.http.post(f"/api/tournaments/{tid}/pause", json={"paused": True},
                           headers=cookie(alice)).json()
    assert paused["you"]["status"] == "paused"
    back = web.http.post(f"/api/tournaments/{tid}/pause", json={"paused": False},
                         headers=cookie(alice)).json()
    assert back["you"]["status"] == "active"
    gone = web.http.post(f"/api/tournaments/{tid}/withdraw", headers=cookie(alice)).json()
    assert gone["you"]["entered"] is False
    assert [s["name"] for s in gone["standings"]] == ["Karim (greedy)"]


def test_a_swiss_of_six_plays_three_rounds_to_the_end(start_web: Any) -> None:
    """Four accounts and two computers: every round pairs everyone, no pair meets twice,
    the standings add up, and each account's rating moved once per game."""
    web = start_web(tournaments=FAST)
    names = ["Amal", "Basil", "Dina", "Fadi"]
    sessions = {name: web.account(name) for name in names}
    tid = create(web, sessions["Amal"], kind="swiss", rounds=3, rated=True, starts_in=2,
                 computers=["greedy", "expert"], variant="egyptian")
    for session in sessions.values():
        join(web, tid, session)
    wait_for(lambda: tournament(web, tid)["status"] == "started", "the start")
    play_out(web, tid, sessions, 180)
    view = tournament(web, tid)
    assert view["status"] == "finished" and view["round"] == 3, json.dumps(view["games"])
    games = [g for g in view["games"] if not g["bye"]]
    assert len(games) == 9  # three rounds of three tables
    pairs = [frozenset(g["players"]) for g in games]
    assert len(set(pairs)) == 9, "a pair met twice"
    for number in (1, 2, 3):
        played = [name for g in games if g["round"] == number for name in g["players"]]
        assert sorted(played) == sorted(s["name"] for s in view["standings"])
    scores = {s["name"]: s["score"] for s in view["standings"]}
    assert sum(scores.values()) == 9 * 2  # two points a game, shared in a draw
    for line in view["standings"]:
        assert line["games"] == 3 and len(line["results"]) == 3
        assert sum(line["results"]) == line["score"]
        assert line["buchholz"] is not None
    ordered = [(s["score"], s["buchholz"], s["sonneborn_berger"]) for s in view["standings"]]
    assert ordered == sorted(ordered, reverse=True)
    assert view["winner"] == view["standings"][0]["name"]
    assert view["podium"] == [s["name"] for s in view["standings"][:3]]
    for name in names:
        profile = web.http.get(f"/api/users/{name}").json()
        history = profile["history"]["egyptian-2"] if isinstance(
            profile.get("history"), dict) else profile["history"]
        assert len(history) == 3, (name, history)
    lines = web.http.get(f"/api/tournaments/{tid}/records")
    assert lines.headers["content-type"].startswith("application/x-ndjson")
    records = [loads(line) for line in lines.text.splitlines()]
    assert len(records) == 9
    assert all(json.loads(line)["format"] == "basra-record/1"
               for line in lines.text.splitlines())


def test_an_arena_pairs_finished_players_again_and_ends_on_time(start_web: Any) -> None:
    """Two accounts and two computers in a ten-second arena: whoever finishes a game is
    paired again at once, never at a table of computers only; at the end no game is
    paired, the games in progress finish, and the winner is the first of the standings."""
    web = start_web(tournaments=TournamentSettings(tick=0.05, minute=2.0))
    sessions = {name: web.account(name) for name in ("Hala", "Jad")}
    tid = create(web, sessions["Hala"], kind="arena", minutes=5, starts_in=1,
                 computers=["greedy", "greedy"])
    for session in sessions.values():
        join(web, tid, session)
    wait_for(lambda: tournament(web, tid)["status"] == "started", "the start")
    play_out(web, tid, sessions, 120)
    ended = tournament(web, tid)
    assert ended["status"] == "finished"
    by_name = {s["name"]: s for s in ended["standings"]}
    assert by_name["Hala"]["games"] >= 2 and by_name["Jad"]["games"] >= 2
    assert all(len(g["players"]) == 2 for g in ended["games"])
    assert not any(all(name not in sessions for name in g["players"])
                   for g in ended["games"]), "a table of computers only"
    assert all(g["result"] is not None for g in ended["games"])
    last_paired = max(g["round"] for g in ended["games"])
    assert last_paired == 0  # an arena has no rounds
    assert ended["winner"] == ended["standings"][0]["name"]
    for line in ended["standings"]:
        assert line["score"] == sum(line["results"])


def test_partnerships_enter_as_teams_of_two_and_play_a_swiss(start_web: Any) -> None:
    """A four-player Swiss: each team forms when both partners have named each other;
    three teams (one of two computers) over two rounds: one game and one bye a round,
    never the same bye twice."""
    web = start_web(tournaments=FAST)
    names = ["Rami", "Sara", "Tala", "Yara"]
    sessions = {name: web.account(name) for name in names}
    tid = create(web, sessions["Rami"], kind="swiss", rounds=2, players=4, starts_in=3,
                 computers=["greedy"])
    waiting = join(web, tid, sessions["Rami"], partner="Sara")
    assert waiting["teams"] and waiting["you"]["status"] == "invited"
    assert [s["name"] for s in waiting["standings"]] == ["Karim (greedy)"]
    missing = web.http.post(f"/api/tournaments/{tid}/join", json={},
                            headers=cookie(sessions["Tala"]))
    assert missing.status_code == 422 and missing.json()["params"]["field"] == "partner"
    formed = join(web, tid, sessions["Sara"], partner="Rami")
    team = next(s for s in formed["standings"] if not s["computer"])
    assert team["members"] == ["Rami", "Sara"] and team["name"] == "Rami & Sara"
    join(web, tid, sessions["Tala"], partner="Yara")
    join(web, tid, sessions["Yara"], partner="Tala")
    wait_for(lambda: tournament(web, tid)["status"] == "started", "the start")
    play_out(web, tid, sessions, 180)
    view = tournament(web, tid)
    assert view["status"] == "finished"
    byes = [g["players"][0] for g in view["games"] if g["bye"]]
    assert len(byes) == 2 and len(set(byes)) == 2
    assert sum(s["score"] for s in view["standings"]) == 2 * 2 + 2 * 2  # games and byes
    assert all(s["games"] + s["results"].count("bye") == 2 for s in view["standings"])


def test_a_three_player_arena_scores_by_rank(start_web: Any) -> None:
    web = start_web(tournaments=TournamentSettings(tick=0.05, minute=1.0))
    sessions = {"Nour": web.account("Nour")}
    tid = create(web, sessions["Nour"], kind="arena", minutes=5, players=3, starts_in=1,
                 computers=["random", "greedy"])
    join(web, tid, sessions["Nour"])
    play_out(web, tid, sessions, 120)
    view = tournament(web, tid)
    assert view["status"] == "finished" and view["games"]
    for game in view["games"]:
        assert len(game["players"]) == 3
        assert sorted(game["result"]) in ([0, 1, 2], [0, 1.5, 1.5], [0.5, 0.5, 2],
                                          [1, 1, 1])


def test_followers_are_told_when_a_followed_players_tournament_starts(start_web: Any) -> None:
    web = start_web(tournaments=FAST)
    fan, star, other = web.account("Fan"), web.account("Star"), web.account("Other")
    assert web.http.post("/api/follow/Star", headers=cookie(fan)).status_code == 200
    tid = create(web, star, kind="arena", minutes=30, starts_in=1, computers=["random"])
    join(web, tid, star)
    wait_for(lambda: tournament(web, tid)["status"] == "started", "the start")

    def told(session: str) -> list[dict[str, Any]]:
        found = web.http.get("/api/notifications", headers=cookie(session)).json()
        return [n for n in found["notifications"] if n["kind"] == "tournament_start"]

    notes = wait_for(lambda: told(fan), "the follower's notification")
    assert notes[0]["payload"] == {"tournament": tid, "name": "Egyptian Arena",
                                   "player": "Star", "url": f"/tournament/{tid}"}
    assert told(other) == [] and told(star) == []


def test_a_rated_pisti_swiss_is_played_and_rates_in_the_pisti_pool(start_web: Any) -> None:
    web = start_web(tournaments=FAST)
    sessions = {name: web.account(name) for name in ("Deniz", "Elif")}
    tid = create(web, sessions["Deniz"], kind="swiss", rounds=2, variant="pişti", rated=True,
                 starts_in=2, computers=["greedy"])
    listed = tournament(web, tid)
    assert (listed["variant"], listed["players"], listed["name"]) == ("pisti", 2,
                                                                     "Pişti Swiss")
    for session in sessions.values():
        join(web, tid, session)
    wait_for(lambda: tournament(web, tid)["status"] == "started", "the start")
    play_out(web, tid, sessions, 180)
    view = tournament(web, tid)
    assert view["status"] == "finished"
    assert all(s["games"] + s["results"].count("bye") == 2 for s in view["standings"])
    for name in sessions:
        ratings = web.ok(web.http.get(f"/api/users/{name}"))["ratings"]
        assert list(ratings) == ["pisti-2"] and ratings["pisti-2"]["games"] >= 1


def test_a_xeri_arena_of_teams_is_made(start_web: Any) -> None:
    web = start_web(tournaments=FAST)
    session = web.account("Nikos")
    tid = create(web, session, kind="arena", minutes=30, variant="xeri", players=4,
                 starts_in=600)
    found = tournament(web, tid)
    assert (found["variant"], found["players"], found["teams"]) == ("xeri", 4, True)
    answer = web.http.post("/api/tournaments", json={"kind": "arena", "minutes": 30,
                                                     "variant": "xeri", "players": 3},
                           headers=cookie(session))
    assert answer.status_code == 422 and answer.json()["params"]["field"] == "players"
