"""The limits a player meets, in a real browser: a puzzle answered by an account after its
solution was shown at the same address says, in the page's language, that it went
unrated; the Help page lists the limits."""

from __future__ import annotations

import json
import re
import secrets
import urllib.request

import pytest
from playwright.sync_api import expect

from basra.i18n import text
from basra.study.puzzles import packaged_puzzles
from tests.support.browsing import Opener

pytestmark = pytest.mark.e2e


def _post(url: str, body: dict[str, str]) -> dict[str, object]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        found: dict[str, object] = json.loads(answer.read())
        return found


@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_an_answer_after_a_solution_shown_here_says_it_is_unrated(
        pages: Opener, server: str, language: str) -> None:
    solutions = {p.id: p.solution for p in packaged_puzzles()}
    context = pages.context()
    context.add_cookies([{"name": "basra_lang", "value": language, "url": server}])
    page = pages.page("puzzles", context=context)
    signed = page.request.post(f"{server}/api/signup", data={
        "name": f"Solver{secrets.token_hex(3)}", "password": secrets.token_urlsafe(18)})
    assert signed.status == 201, signed.text()
    page.goto(f"{server}/puzzles")
    body = page.locator("body")
    expect(body).to_have_attribute("data-puzzle", re.compile(r"^[0-9a-f]{12}$"))
    puzzle_id = body.get_attribute("data-puzzle") or ""
    solution = solutions[puzzle_id]
    # a guest at the same address (this test, without the account's cookie) answers
    # wrongly, and is shown the solution
    with urllib.request.urlopen(f"{server}/api/puzzles/{puzzle_id}", timeout=10) as answer:
        moves = [m["move"] for m in json.loads(answer.read())["puzzle"]["moves"]]
    shown = _post(f"{server}/api/puzzles/{puzzle_id}/answer",
                  {"move": next(m for m in moves if m != solution)})
    assert shown["solution"] == solution
    page.get_by_test_id("hand").locator(f"button[data-card='{solution.split(':')[0]}']").click()
    if page.locator("#puzzle-captures").is_visible():
        page.locator(f"#puzzle-capture-list [data-move='{solution}']").click()
    result = page.get_by_test_id("puzzle-result")
    expect(result).to_have_attribute("data-correct", "true")
    unrated = page.get_by_test_id("puzzle-unrated")
    expect(unrated).to_be_visible()
    expect(unrated).to_have_attribute("data-reason", "solution_shown_here")
    expect(unrated).to_have_text(text(language, "puzzle_unrated_solution_shown_here"))
    page.goto(f"{server}/help")
    expect(page.locator("#help-limits")).to_have_text(text(language, "limit_help_title"))
    expect(page.locator("main")).to_contain_text(text(language, "limit_help_puzzles"))
    pages.finish()
