"""The puzzles page in a real browser: the explanation worded with drawn cards in English,
Arabic and Persian, a puzzle's own link and variant, and the Puzzle Streak (a guest's in
the browser, an account's on the server). Screenshots go to ``$BASRA_SCREENSHOTS``, or to
the test's temporary folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from basra.study.puzzles import packaged_puzzles
from tests.e2e.conftest import OpenPage
from tests.support.browsing import PHONE, Opener, expect_translated

pytestmark = pytest.mark.e2e

PUZZLES = {p.id: p for p in packaged_puzzles()}
RAW_MOVE = re.compile(r"\b(?:10|[2-9AJQK])[SHDC](?::|\b)")
"""A card or move written as a code (``JH:6S+KD``, ``5H``), as the page must never show."""


def _rich_puzzle() -> str:
    """A puzzle whose explanation has it all: reasons, a reply to each other move, three
    or more plays in its line."""
    for puzzle in sorted(PUZZLES.values(), key=lambda p: p.id):
        why = puzzle.why()
        if why["reasons"] and len(why["line"]) >= 3 and all(o["reply"] for o in why["others"]):
            return puzzle.id
    raise AssertionError("no puzzle explains itself fully")


def _answer(page: Page, move: str) -> None:
    card = move.split(":")[0]
    page.get_by_test_id("hand").locator(f"button[data-card='{card}']").click()
    if page.locator("#puzzle-captures").is_visible():
        page.locator(f"#puzzle-capture-list [data-move='{move}']").click()


def _shown(page: Page) -> str:
    return page.locator("body").get_attribute("data-puzzle") or ""


def _wrong(puzzle_id: str) -> str:
    return next(m for m in PUZZLES[puzzle_id].values if m != PUZZLES[puzzle_id].solution)


def _language(page: Page, code: str) -> None:
    page.locator(f".lang-toggle[data-lang='{code}']").click()
    expect(page.locator("html")).to_have_attribute("lang", code)


def _check_explanation(page: Page, words: re.Pattern[str]) -> None:
    explanation = page.get_by_test_id("puzzle-explanation")
    expect(explanation).to_be_visible()
    expect(page.locator("#puzzle-why")).to_have_text(words)
    text = explanation.inner_text()
    assert len(text) > 150, text
    assert not RAW_MOVE.search(text), RAW_MOVE.findall(text)
    assert re.search(r"[♠♥♦♣]", text)
    cards = explanation.locator(".mini-card")
    assert cards.count() >= 6
    expect(page.get_by_test_id("puzzle-line").locator("li")).to_have_count(
        len(PUZZLES[_shown(page)].why()["line"]))


@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_the_explanation_is_worded_with_drawn_cards_in_every_language(
        pages: Opener, server: str, tmp_path: Path, view: str) -> None:
    folder = Path(os.environ.get("BASRA_SCREENSHOTS") or tmp_path)
    options = {"viewport": PHONE} if view == "phone" else {}
    page = pages.page(view, context=pages.context(**options))
    puzzle_id = _rich_puzzle()
    page.goto(f"{server}/puzzles/{puzzle_id}")
    expect(page.locator("body")).to_have_attribute("data-puzzle", puzzle_id)
    _answer(page, _wrong(puzzle_id))
    result = page.get_by_test_id("puzzle-result")
    expect(result).to_have_attribute("data-correct", "false")
    _check_explanation(page, re.compile(r"With best play by both, it ends the deal with \d+ "
                                        r"points for you"))
    expect(page.get_by_test_id("puzzle-others").locator("li.played")).to_have_count(1)
    page.get_by_test_id("puzzle-explanation").scroll_into_view_if_needed()
    page.screenshot(path=str(folder / f"puzzle-explanation-{view}-en.png"), full_page=True)
    _language(page, "ar")
    _check_explanation(page, re.compile("مع أفضل لعب من الطرفين"))
    expect(page.get_by_test_id("puzzle-line").locator("li").first).to_contain_text("أنت")
    expect_translated(page)
    page.screenshot(path=str(folder / f"puzzle-explanation-{view}-ar.png"), full_page=True)
    _language(page, "fa")
    _check_explanation(page, re.compile("با بهترین بازی هر دو طرف"))
    expect_translated(page)
    page.screenshot(path=str(folder / f"puzzle-explanation-{view}-fa.png"), full_page=True)
    # no line of the page runs past a phone's width
    overflow = page.evaluate("document.documentElement.scrollWidth > innerWidth + 1")
    assert not overflow
    pages.finish()


def test_a_puzzle_link_opens_that_puzzle_with_its_variant_and_a_bad_one_says_so(
        pages: Opener, server: str) -> None:
    page = pages.page("link", allow_failed_resource=True)
    puzzle_id = sorted(PUZZLES)[10]
    page.goto(f"{server}/puzzles/{puzzle_id}")
    expect(page.locator("body")).to_have_attribute("data-puzzle", puzzle_id)
    preset = PUZZLES[puzzle_id].position.split("/")[0]
    expect(page.get_by_test_id("puzzle-variant")).to_contain_text(
        f"Variant: {preset.capitalize()}")
    expect(page.get_by_test_id("puzzle-rules-link")).to_have_attribute("href", f"/rules/{preset}")
    expect(page.get_by_test_id("puzzle-link")).to_have_value(f"{server}/puzzles/{puzzle_id}")
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#puzzle-copy")).to_have_text("Copied!")
    # the next puzzle gets a link of its own, and the address follows it
    _answer(page, PUZZLES[puzzle_id].solution)
    page.get_by_role("button", name="Next puzzle").click()
    expect(page.locator("body")).not_to_have_attribute("data-puzzle", puzzle_id)
    expect(page).to_have_url(f"{server}/puzzles/{_shown(page)}")
    page.goto(f"{server}/puzzles/no-such-puzzle")
    expect(page.get_by_test_id("puzzle-alert")).to_have_text(
        "No puzzle has the id no-such-puzzle: here is another one.")
    expect(page.locator("body")).to_have_attribute("data-puzzle", re.compile(r"^[0-9a-f]{12}$"))
    pages.finish()


def _solve_shown(page: Page) -> None:
    before = _shown(page)
    _answer(page, PUZZLES[before].solution)
    expect(page.get_by_test_id("puzzle-result")).to_have_attribute("data-correct", "true")


def _next(page: Page) -> None:
    before = _shown(page)
    page.get_by_role("button", name="Next puzzle").click()
    expect(page.locator("body")).not_to_have_attribute("data-puzzle", before)


def test_a_guests_streak_counts_solves_ends_on_a_mistake_and_keeps_the_best(
        open_page: OpenPage) -> None:
    page = open_page("guest")
    page.goto("/puzzles")
    expect(page.locator("body")).to_have_attribute("data-puzzle", re.compile(r"^[0-9a-f]{12}$"))
    page.get_by_role("tab", name="Puzzle Streak").click()
    expect(page.locator("body")).to_have_attribute("data-mode", "streak")
    current, best = page.get_by_test_id("streak-current"), page.get_by_test_id("streak-best")
    expect(current).to_have_text("Streak: 0")
    expect(page.get_by_test_id("streak-panel")).to_contain_text("kept in this browser")
    _solve_shown(page)
    expect(current).to_have_text("Streak: 1")
    _next(page)
    _solve_shown(page)
    expect(current).to_have_text("Streak: 2")
    expect(best).to_have_text("Your best: 2")
    # a reload keeps the streak going, in the streak mode
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-mode", "streak")
    expect(current).to_have_text("Streak: 2")
    shown = _shown(page)
    _answer(page, _wrong(shown))
    over = page.get_by_test_id("streak-over")
    expect(over).to_contain_text("Streak over: you solved 2 puzzles in a row.")
    expect(over).to_contain_text("A new personal best!")
    expect(current).to_have_text("Streak: 0")
    expect(best).to_have_text("Your best: 2")
    expect(page.get_by_role("button", name="Next puzzle")).to_be_hidden()
    page.get_by_role("button", name="Start a new streak").click()
    expect(over).to_be_hidden()
    expect(page.locator("body")).not_to_have_attribute("data-puzzle", shown)
    page.reload()
    expect(best).to_have_text("Your best: 2")
    _language(page, "ar")
    expect(best).to_have_text("أفضل سلسلة لك: ٢")
    expect_translated(page)
    # the help page says what the streak is, in the language chosen
    page.goto("/help")
    expect(page.locator("#help-puzzles")).to_have_text("الألغاز والتحليل")
    expect(page.locator("#puzzles")).to_contain_text("سلسلة الألغاز")
    expect_translated(page)


def test_an_accounts_best_streak_is_kept_on_the_server(open_page: OpenPage) -> None:
    page = open_page("account")
    page.goto("/puzzles#streak")
    status = page.evaluate("""async () => (await fetch('/api/signup', {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({name: 'Streaky', password: 'a good long password'})})).status""")
    assert status in (200, 201), status
    page.reload()
    expect(page.get_by_test_id("streak-panel")).to_contain_text("kept with your account")
    _solve_shown(page)
    expect(page.get_by_test_id("streak-current")).to_have_text("Streak: 1")
    # not the browser's count: a fresh localStorage still shows the account's best
    page.evaluate("localStorage.clear()")
    page.reload()
    expect(page.get_by_test_id("streak-best")).to_have_text("Your best: 1")
    expect(page.get_by_test_id("streak-current")).to_have_text("Streak: 1")
    _answer(page, _wrong(_shown(page)))
    expect(page.get_by_test_id("streak-current")).to_have_text("Streak: 0")
    expect(page.get_by_test_id("streak-best")).to_have_text("Your best: 1")
    assert page.evaluate("localStorage.getItem('basra.puzzleBest')") is None
