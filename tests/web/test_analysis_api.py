"""Analysis, puzzles and hints over HTTP (``basra.server.analysis_api``)."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest

from basra.store import PUZZLE_START_RATING
from basra.study.puzzles import mine_record, packaged_puzzles


@pytest.fixture(autouse=True)
def quick_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    """A few milliseconds a decision: the tests check the plumbing, not the strength."""
    monkeypatch.setenv("BASRA_ANALYSIS_THINK_MS", "3")
    monkeypatch.setenv("BASRA_HINT_MS", "20")


def _wait_for_analysis(web: Any, record_id: int, seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = web.ok(web.http.get(f"/api/records/{record_id}/analysis"))
        if answer["status"] == "done":
            return dict(answer)
        assert answer["status"] == "running", answer
        time.sleep(0.2)
    raise AssertionError(f"record {record_id} was not analysed in {seconds} s")


@pytest.mark.slow
def test_a_finished_match_is_analysed_in_the_background_and_stored(web: Any) -> None:
    quick = web.quick("Amira")
    web.play_to_end([web.connect(quick["code"], quick["token"])])
    record_id = web.ok(web.http.get("/api/records"))[0]["id"]
    assert web.ok(web.http.get(f"/api/records/{record_id}/analysis"))["status"] == "none"
    started = web.http.post(f"/api/records/{record_id}/analysis")
    assert started.status_code == 202 and started.json()["status"] == "running"
    # play goes on while it runs: the server answers at once
    assert web.http.get("/api/variants").status_code == 200
    done = _wait_for_analysis(web, record_id)
    document = done["analysis"]
    assert done["status"] == "done" and document["format"] == "basra-analysis/1"
    assert document["record"]["record_id"] == record_id
    assert {p["seat"] for p in document["players"]} == {0, 1}
    assert document["decisions"] and all(d["label"] for d in document["decisions"])
    # the puzzles of an analysed casual match wait for a moderator: not in the set yet
    record = web.ok(web.http.get(f"/api/records/{record_id}"))
    shipped = {p.id for p in packaged_puzzles()}
    mined = {p.id for p in mine_record(record)} - shipped
    count = web.ok(web.http.get("/api/puzzles/next"))["count"]
    assert count == len(shipped)
    for puzzle_id in mined:
        answer = web.http.get(f"/api/puzzles/{puzzle_id}")
        assert answer.status_code == 404 and answer.json()["code"] == "unknown_puzzle"
    again = web.http.post(f"/api/records/{record_id}/analysis")
    assert again.status_code == 200 and again.json()["analysis"] == document
    assert web.http.post("/api/records/999999/analysis").status_code == 404


def test_puzzles_are_served_without_their_solution_and_checked(web: Any) -> None:
    answer = web.ok(web.http.get("/api/puzzles/next?rating=1000"))
    assert answer["count"] >= 300
    puzzle = answer["puzzle"]
    assert "solution" not in puzzle and "values" not in puzzle
    assert len(puzzle["moves"]) >= 2 and puzzle["hand"] and puzzle["other_hand"]
    solution = next(p for p in packaged_puzzles() if p.id == puzzle["id"]).solution
    wrong = next(m["move"] for m in puzzle["moves"] if m["move"] != solution)
    result = web.ok(web.http.post(f"/api/puzzles/{puzzle['id']}/answer", json={"move": wrong}))
    assert result["correct"] is False and result["solution"] == solution
    assert "rating" not in result  # a guest has streaks, not a rating
    right = web.ok(web.http.post(f"/api/puzzles/{puzzle['id']}/answer",
                                 json={"move": solution}))
    assert right["correct"] is True and right["explanation"]
    bad = web.http.post(f"/api/puzzles/{puzzle['id']}/answer", json={"move": "ZZ"})
    assert bad.status_code == 400
    skipped = web.ok(web.http.get(f"/api/puzzles/next?skip={puzzle['id']}"))
    assert skipped["puzzle"]["id"] != puzzle["id"]
    assert web.http.get("/api/puzzles/nope").status_code == 404
    assert web.http.get("/puzzles").status_code == 200


def test_an_account_has_a_puzzle_rating_that_counts_first_answers(web: Any) -> None:
    session = web.account("Solver")
    web.http.cookies.set("basra_session", session)
    assert web.ok(web.http.get("/api/puzzles/rating"))["rating"] == PUZZLE_START_RATING
    puzzle = web.ok(web.http.get("/api/puzzles/next"))["puzzle"]
    solution = next(p for p in packaged_puzzles() if p.id == puzzle["id"]).solution
    first = web.ok(web.http.post(f"/api/puzzles/{puzzle['id']}/answer",
                                 json={"move": solution}))
    assert first["rating"]["counted"] and first["rating"]["after"] > PUZZLE_START_RATING
    second = web.ok(web.http.post(f"/api/puzzles/{puzzle['id']}/answer",
                                  json={"move": solution}))
    assert not second["rating"]["counted"]
    assert second["rating"]["after"] == first["rating"]["after"]
    mine = web.ok(web.http.get("/api/puzzles/rating"))
    assert (mine["rating"], mine["solved"], mine["attempts"]) == (
        first["rating"]["after"], 1, 1)
    web.http.cookies.clear()
    assert web.ok(web.http.get("/api/puzzles/rating"))["rating"] is None


@pytest.mark.slow
def test_hints_only_for_the_seated_player_on_its_turn_against_computers(web: Any) -> None:
    quick = web.quick("Amira")
    code, token = quick["code"], quick["token"]
    client = web.connect(code, token)
    client.wait_for(lambda state: client.my_turn())
    assert web.http.get(f"/api/tables/{code}/hint").status_code == 403
    assert web.http.get(f"/api/tables/{code}/hint?token=wrong").status_code == 403
    hint = web.ok(web.http.get(f"/api/tables/{code}/hint?token={token}"))
    assert hint["seat"] == quick["seat"] and hint["moves"]
    values = [m["value"] for m in hint["moves"]]
    assert values == sorted(values, reverse=True)
    assert hint["seq"] == client.state["seq"]
    humans, first, _ = web.two_humans()
    refused = web.http.get(f"/api/tables/{humans}/hint?token={first}")
    assert refused.status_code == 403 and refused.json()["code"] == "not_against_computers"
    assert web.http.get("/api/tables/NOPE/hint?token=x").status_code == 404


def test_no_hints_at_a_rated_table(web: Any) -> None:
    quick = web.quick("Amira")
    table = web.hub.tables[quick["code"]]
    table.config = dataclasses.replace(table.config, rated=True)
    refused = web.http.get(f"/api/tables/{quick['code']}/hint?token={quick['token']}")
    assert refused.status_code == 403 and refused.json()["code"] == "rated"
