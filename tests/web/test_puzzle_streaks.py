"""Puzzles over HTTP: the explanation as data, one puzzle by its link, the variant, and
the Puzzle Streak kept with an account (``basra.server.analysis_api``,
``basra.store.streaks``)."""

from __future__ import annotations

from typing import Any

from basra.server.analysis_api import streak_target
from basra.study.puzzles import packaged_puzzles

SOLUTIONS = {p.id: p.solution for p in packaged_puzzles()}


def _wrong(puzzle: dict[str, Any]) -> str:
    return str(next(m["move"] for m in puzzle["moves"] if m["move"] != SOLUTIONS[puzzle["id"]]))


def test_an_answer_explains_itself_as_data_and_one_puzzle_opens_by_its_id(web: Any) -> None:
    puzzle_id = sorted(SOLUTIONS)[3]
    one = web.ok(web.http.get(f"/api/puzzles/{puzzle_id}"))["puzzle"]
    assert one["id"] == puzzle_id and "solution" not in one
    assert one["preset"] in ("egyptian", "jawaker") and one["house_rules"] is False
    assert one["variant"].startswith(one["preset"] + "/")
    result = web.ok(web.http.post(f"/api/puzzles/{puzzle_id}/answer",
                                  json={"move": _wrong(one)}))
    why = result["explained"]
    assert why["solution"] == result["solution"] == SOLUTIONS[puzzle_id]
    assert why["line"][0] == {"by": "you", "move": why["solution"],
                              "basra": why["line"][0]["basra"]}
    assert [s["move"] for s in why["line"]] == result["line"]
    assert {o["move"] for o in why["others"]} == set(result["values"]) - {why["solution"]}
    assert all(o["loses"] >= 4 for o in why["others"])
    assert "JH:" not in result["explanation"] and "Best play: You: " in result["explanation"]
    # a bad id is a clear 404, never a traceback; the page of a bad id still opens
    missing = web.http.get("/api/puzzles/not-a-puzzle")
    assert missing.status_code == 404 and missing.json()["code"] == "unknown_puzzle"
    assert web.http.post("/api/puzzles/not-a-puzzle/answer",
                         json={"move": "AS"}).status_code == 404
    page = web.http.get(f"/puzzles/{puzzle_id}")
    assert page.status_code == 200 and 'id="puzzle-explanation"' in page.text


def test_a_streak_asks_for_harder_puzzles_as_it_grows(web: Any) -> None:
    assert streak_target(0) < streak_target(5) < streak_target(15)
    easy = [web.ok(web.http.get("/api/puzzles/next?streak=0"))["puzzle"]["rating"]
            for _ in range(6)]
    hard = [web.ok(web.http.get("/api/puzzles/next?streak=20"))["puzzle"]["rating"]
            for _ in range(6)]
    assert max(easy) < min(hard)
    bad = web.http.get("/api/puzzles/next?streak=lots")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_request"


def test_an_accounts_streak_counts_right_answers_ends_on_a_mistake_and_keeps_the_best(
        web: Any) -> None:
    assert web.ok(web.http.get("/api/puzzles/streak")) == {"current": None, "best": None}
    web.http.cookies.set("basra_session", web.account("Streaker"))
    assert web.ok(web.http.get("/api/puzzles/streak")) == {"current": 0, "best": 0}
    rating = web.ok(web.http.get("/api/puzzles/rating"))["rating"]
    ids = sorted(SOLUTIONS)[:3]
    for count, puzzle_id in enumerate(ids, 1):
        result = web.ok(web.http.post(f"/api/puzzles/{puzzle_id}/answer",
                                      json={"move": SOLUTIONS[puzzle_id], "streak": True}))
        assert result["correct"] and result["streak"] == {"current": count, "best": count}
        assert "rating" not in result  # a streak's answers leave the rating alone
    # the same puzzle answered again in a row counts once
    again = web.ok(web.http.post(f"/api/puzzles/{ids[-1]}/answer",
                                 json={"move": SOLUTIONS[ids[-1]], "streak": True}))
    assert again["streak"] == {"current": 3, "best": 3}
    fourth = web.ok(web.http.get(f"/api/puzzles/{sorted(SOLUTIONS)[5]}"))["puzzle"]
    ended = web.ok(web.http.post(f"/api/puzzles/{fourth['id']}/answer",
                                 json={"move": _wrong(fourth), "streak": True}))
    assert not ended["correct"] and ended["streak"] == {"current": 0, "best": 3}
    assert web.ok(web.http.get("/api/puzzles/streak")) == {"current": 0, "best": 3}
    assert web.ok(web.http.get("/api/puzzles/rating"))["rating"] == rating
    one = web.ok(web.http.post(f"/api/puzzles/{ids[0]}/answer",
                               json={"move": SOLUTIONS[ids[0]], "streak": True}))
    assert one["streak"] == {"current": 1, "best": 3}
    assert web.ok(web.http.post("/api/puzzles/streak")) == {"current": 0, "best": 3}
    refused = web.http.post(f"/api/puzzles/{ids[0]}/answer",
                            json={"move": SOLUTIONS[ids[0]], "streak": "yes"})
    assert refused.status_code == 400 and refused.json()["code"] == "bad_request"
    assert "streak" in refused.json()["message"]
    assert web.ok(web.http.get("/api/puzzles/streak")) == {"current": 0, "best": 3}
