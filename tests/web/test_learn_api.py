"""The lessons' API (``/api/lessons``, ``/api/learn/progress``) and the rules page
(``/rules``), through the in-process app on a fresh database."""

from __future__ import annotations

import re
from typing import Any

import pytest
from markupsafe import escape

from basra.i18n import languages, text
from basra.rules import PRESETS, option_names
from basra.study.lessons import LESSONS

PASSWORD = "correct horse battery staple"


def refusal(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"code", "message", "params"} and body["code"] == code, body
    assert body["message"] and "\n" not in body["message"]
    return body


def signup(web: Any, name: str) -> None:
    answer = web.http.post("/api/signup", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text


def test_the_lessons_are_listed_and_each_step_draws_its_position(web: Any) -> None:
    listed = web.http.get("/api/lessons").json()["lessons"]
    assert [item["id"] for item in listed] == [found.id for found in LESSONS]
    assert {item["family"] for item in listed} == {"basra", "pasur", "pisti"}
    lesson = web.http.get("/api/lessons/sums").json()
    assert lesson["next"] == "sets" and lesson["title"] == "learn_l_sums"
    first = lesson["steps"][0]
    assert first["floor"] == ["3H", "6C", "10D", "KS"] and first["hand"] == ["2D", "4C", "9S",
                                                                           "QH"]
    assert {"move": "9S:3H+6C", "card": "9S", "captured": ["3H", "6C"]} in first["moves"]
    assert web.http.get("/api/lessons/p_clubs").json()["next"] == "pile_top"
    assert web.http.get("/api/lessons/pile_scoring").json()["next"] is None


def test_a_right_card_and_a_wrong_card_are_judged_by_the_real_capture(web: Any) -> None:
    right = web.http.post("/api/lessons/sums/steps/2/answer", json={"move": "7C"}).json()
    assert right == {"right": True, "move": "7C:AS+2D+4C", "taken": ["AS", "2D", "4C"],
                     "leftover": [], "basra": False, "bonus": 0, "why": None}
    wrong = web.http.post("/api/lessons/sums/steps/2/answer", json={"move": "5H"}).json()
    assert wrong["right"] is False and wrong["taken"] == ["AS", "4C"]
    assert wrong["why"] == {"key": "learn_why_fewer", "card": "5H", "taken": ["AS", "4C"],
                            "right": "7C", "right_taken": ["AS", "2D", "4C"]}
    trail = web.http.post("/api/lessons/sums/steps/2/answer", json={"move": "8S"}).json()
    assert trail["why"] == {"key": "learn_why_trail_sum", "card": "8S", "value": 8}
    # a card with two captures: the wrong set is explained, the right one accepted
    step = "/api/lessons/p_eleven/steps/2/answer"
    assert web.http.post(step, json={"move": "5C:6H"}).json()["why"]["key"] == "learn_why_fewer"
    assert web.http.post(step, json={"move": "5C:2C+4D"}).json()["right"] is True


def test_the_pile_course_draws_the_pile_and_judges_pistis(web: Any) -> None:
    lesson = web.http.get("/api/lessons/pile_first").json()
    assert lesson["family"] == "pisti" and lesson["preset"] == "pisti"
    first = lesson["steps"][0]
    assert first["floor"] == [None, None, None, "7S"] and first["shown"] == "10D"
    assert first["hand"] == ["3C", "5S", "7D", "KH"] and first["stock"] == 40
    taken = web.http.post("/api/lessons/pile_first/steps/1/answer", json={"move": "7D"}).json()
    assert taken == {"right": True, "move": "7D:2H+4C+7S+9D", "taken": ["2H", "4C", "7S", "9D"],
                     "leftover": [], "basra": False, "bonus": 0, "why": None}
    laid = web.http.post("/api/lessons/pile_first/steps/1/answer", json={"move": "KH"}).json()
    assert laid["why"] == {"key": "learn_why_pile_lay", "card": "KH", "top": "7S"}
    step = "/api/lessons/pile_pisti/steps/{}/answer"
    pisti = web.http.post(step.format(1), json={"move": "8H"}).json()
    assert pisti["right"] and pisti["basra"] and pisti["bonus"] == 10
    jack = web.http.post(step.format(2), json={"move": "JC"}).json()
    assert jack["why"]["key"] == "learn_why_not_basra_pisti" and jack["bonus"] == 0
    double = web.http.post(step.format(3), json={"move": "JC"}).json()
    assert double["right"] and double["bonus"] == 20


def test_bad_lessons_steps_and_moves_get_clear_errors(web: Any) -> None:
    body = refusal(web.http.get("/api/lessons/nope"), 404, "unknown_lesson")
    assert body["params"] == {"lesson": "nope"}
    refusal(web.http.post("/api/lessons/nope/steps/1/answer", json={"move": "5S"}), 404,
            "unknown_lesson")
    refusal(web.http.post("/api/lessons/sums/steps/9/answer", json={"move": "5S"}), 404,
            "unknown_lesson")
    refusal(web.http.post("/api/lessons/sums/steps/1/answer", json={"move": "AS"}), 400,
            "illegal_move")
    refusal(web.http.post("/api/lessons/sums/steps/1/answer", json={"move": 7}), 400,
            "bad_request")
    refusal(web.http.post("/api/lessons/sums/steps/1/answer", content=b"{"), 400,
            "bad_request")


def test_progress_is_kept_per_account_and_guests_cannot_write_it(web: Any) -> None:
    assert web.http.get("/api/learn/progress").json() == {"account": None, "lessons": {}}
    refusal(web.http.put("/api/learn/progress", json={"lessons": ["sums"]}), 401,
            "login_required")
    signup(web, "Amira")
    assert web.http.get("/api/learn/progress").json() == {"account": "Amira", "lessons": {}}
    saved = web.http.put("/api/learn/progress", json={"lessons": ["sums", "matching"]})
    assert saved.status_code == 200 and set(saved.json()["lessons"]) == {"sums", "matching"}
    first = saved.json()["lessons"]["sums"]
    again = web.http.put("/api/learn/progress", json={"lessons": ["sums", "jack"]}).json()
    assert set(again["lessons"]) == {"sums", "matching", "jack"}
    assert again["lessons"]["sums"] == first  # the first time is kept
    refusal(web.http.put("/api/learn/progress", json={"lessons": ["sums", "nope"]}), 404,
            "unknown_lesson")
    refusal(web.http.put("/api/learn/progress", json={"lessons": "sums"}), 400, "bad_request")
    assert set(web.http.get("/api/learn/progress").json()["lessons"]) == {"sums", "matching",
                                                                          "jack"}
    # another account starts from nothing
    web.http.post("/api/logout")
    signup(web, "Yusuf")
    assert web.http.get("/api/learn/progress").json() == {"account": "Yusuf", "lessons": {}}


@pytest.mark.parametrize("language", languages())
def test_the_rules_page_shows_every_preset_in_every_language(web: Any, language: str) -> None:
    web.http.cookies.set("basra_lang", language)
    listing = web.http.get("/rules")
    assert listing.status_code == 200
    for name in PRESETS:
        assert f'href="/rules/{name}"' in listing.text
        page = web.http.get(f"/rules/{name}")
        assert page.status_code == 200
        assert escape(text(language, f"variant_{name}_desc")) in page.text
        rows = re.findall(r'<tr data-option="(\w+)"', page.text)
        assert len(rows) == len(option_names()) and rows[0] == "players"
        assert escape(text(language, "rule_target_help")) in page.text
    pasur = web.http.get("/rules/pasoor")  # an alias
    assert pasur.status_code == 200 and 'data-preset="pasur"' in pasur.text
    assert escape(text(language, "rule_basra_points_pasur")) in pasur.text
    missing = web.http.get("/rules/nonsense")
    assert missing.status_code == 404
    assert escape(text(language, "rulebook_unknown", name="nonsense")) in missing.text
