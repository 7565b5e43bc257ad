"""Analysis and puzzles in a real browser: an analysed replay, and a puzzle solved by
clicking cards (English and Arabic)."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from basra.bots.simple import GreedyBot
from basra.match import Match
from basra.observe import observe
from basra.record import Player, dumps, match_record
from basra.rules import make_rules
from basra.store import Store
from basra.study.puzzles import packaged_puzzles
from tests.support.browsing import Opener, expect_translated
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

NAMES = ("Amira", "Karim")


def _finished_record() -> dict[str, object]:
    rules = make_rules("egyptian")
    match = Match(rules, 21, variant="egyptian")
    bots = [GreedyBot(210), GreedyBot(211)]
    while not match.is_over:
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
    return match_record(match, [Player(NAMES[0], "human"), Player(NAMES[1], "bot")])


async def _store_record(url: str, record: dict[str, object]) -> int:
    store = Store(url)
    await store.open()
    try:
        return await store.records.save("ANALYS", 1, record, dumps(record))
    finally:
        await store.close()


@pytest.fixture(scope="module")
def analysis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A server whose database holds one finished match; analyses take a few ms a move."""
    folder = tmp_path_factory.mktemp("analysis-e2e")
    url = sqlite_url(folder / "analysis.db")
    # Playwright's sync API may hold this thread's event loop: store from a thread of its own.
    with ThreadPoolExecutor(1) as thread:
        record_id = thread.submit(asyncio.run, _store_record(url, _finished_record())).result()
    saved = {key: os.environ.get(key) for key in ("BASRA_ANALYSIS_THINK_MS",)}
    os.environ["BASRA_ANALYSIS_THINK_MS"] = "3"
    try:
        with Server(url, folder, "--bot-delay", "0.05") as served:
            served.wait()
            yield served.base, record_id
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _switch_to_arabic(page: Page) -> None:
    page.locator(".lang-toggle:visible").first.click()
    expect(page.locator("html")).to_have_attribute("lang", "ar")


def test_an_analysed_replay_shows_labels_the_chart_and_the_better_move(
        pages: Opener, analysis_server: tuple[str, int], tmp_path: Path) -> None:
    base, record_id = analysis_server
    page = pages.page("replay")
    page.goto(f"{base}/replay/{record_id}")
    page.get_by_role("button", name="Analyze this match").click()
    expect(page.locator("body")).to_have_attribute("data-analysis", "done", timeout=120_000)
    summary = page.get_by_test_id("analysis-summary")
    expect(summary.locator("tbody tr")).to_have_count(2)
    for name in NAMES:
        expect(summary).to_contain_text(name)
    points = page.get_by_test_id("eval-chart").locator("circle")
    assert points.count() > 20
    # jump to the worst move through the chart: its label, the better move, the card
    worst = page.locator("#eval-chart circle[data-label='blunder'], "
                         "#eval-chart circle[data-label='mistake'], "
                         "#eval-chart circle[data-label='inaccuracy']").first
    worst.dispatch_event("click")
    label = page.get_by_test_id("move-label")
    expect(label).to_have_text(re.compile("^(Blunder|Mistake|Inaccuracy)$"))
    expect(page.get_by_test_id("move-verdict")).to_contain_text("Better:")
    expect(page.get_by_test_id("move-verdict")).to_contain_text("points lost")
    # the loss reads clearly on the felt, and the legend says how labels are given
    assert _contrast(page, "[data-testid=move-loss]") >= 4.5
    expect(page.get_by_test_id("analysis-legend")).to_contain_text(
        "less one standard error of the estimate")
    expect(page.get_by_test_id("analysis-legend")).to_be_visible()
    folder = Path(os.environ.get("BASRA_SCREENSHOTS") or tmp_path)
    page.screenshot(path=str(folder / "analysis-verdict-en.png"), full_page=True)
    # a reload finds the stored analysis without asking again
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-analysis", "done")
    page.get_by_role("button", name="Last").click()
    _switch_to_arabic(page)
    expect(page.locator("#analysis-title")).to_have_text("التحليل")
    expect(summary.locator("thead")).to_contain_text("الدقة")
    expect_translated(page, NAMES)
    pages.finish()


_CONTRAST = """selector => {
  const node = document.querySelector(selector);
  const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
  let back = node;
  while (back && rgb(getComputedStyle(back).backgroundColor)[3] === 0) back = back.parentElement;
  const luminance = ([r, g, b]) => {
    const [x, y, z] = [r, g, b].map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * x + 0.7152 * y + 0.0722 * z;
  };
  const fore = luminance(rgb(getComputedStyle(node).color));
  const behind = luminance(rgb(getComputedStyle(back).backgroundColor));
  return (Math.max(fore, behind) + 0.05) / (Math.min(fore, behind) + 0.05);
}"""
"""The contrast ratio (WCAG) of an element's text against the nearest background drawn
behind it."""


def _contrast(page: Page, selector: str) -> float:
    ratio: float = page.evaluate(_CONTRAST, selector)
    return ratio


def _solve(page: Page, solution: str) -> None:
    card = solution.split(":")[0]
    page.get_by_test_id("hand").locator(f"button[data-card='{card}']").click()
    choice = page.locator(f"#puzzle-capture-list [data-move='{solution}']")
    if page.locator("#puzzle-captures").is_visible():
        choice.click()


def test_a_puzzle_is_solved_by_clicking_its_cards(
        pages: Opener, analysis_server: tuple[str, int]) -> None:
    base, _ = analysis_server
    solutions = {p.id: p.solution for p in packaged_puzzles()}
    page = pages.page("puzzles")
    page.goto(f"{base}/puzzles")
    expect(page.locator("body")).to_have_attribute("data-puzzle", re.compile(r"^[0-9a-f]{12}$"))
    first = page.locator("body").get_attribute("data-puzzle") or ""
    expect(page.get_by_test_id("hand").locator("button[data-card]").first).to_be_visible()
    _solve(page, solutions[first])
    result = page.get_by_test_id("puzzle-result")
    expect(result).to_have_attribute("data-correct", "true")
    expect(result).to_contain_text("Correct!")
    page.get_by_role("button", name="Next puzzle").click()
    expect(page.locator("body")).not_to_have_attribute("data-puzzle", first)
    second = page.locator("body").get_attribute("data-puzzle") or ""
    # a wrong answer ends the streak, and the page says so in Arabic too
    _switch_to_arabic(page)
    wrong = next(m for m in _legal_moves(page) if m != solutions[second])
    card = wrong.split(":")[0]
    page.get_by_test_id("hand").locator(f"button[data-card='{card}']").click()
    if page.locator("#puzzle-captures").is_visible():
        page.locator(f"#puzzle-capture-list [data-move='{wrong}']").click()
    expect(result).to_have_attribute("data-correct", "false")
    expect(result).to_contain_text("ليست أفضل لعبة")
    expect_translated(page)
    pages.finish()


def _legal_moves(page: Page) -> list[str]:
    """The legal moves of the puzzle shown, as the server lists them."""
    puzzle_id = page.locator("body").get_attribute("data-puzzle")
    moves: list[str] = page.evaluate(
        "async (id) => (await (await fetch(`/api/puzzles/${id}`)).json()).puzzle.moves"
        ".map((m) => m.move)", puzzle_id)
    return moves



def test_hints_at_an_unrated_game_against_the_computer_and_none_for_watchers(
        pages: Opener, analysis_server: tuple[str, int]) -> None:
    base, _ = analysis_server
    page = pages.page("player")
    page.goto(f"{base}/")
    code: str = page.evaluate("""async () => {
        const response = await fetch('/api/quick', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: '{"name": "Amira"}'});
        const quick = await response.json();
        localStorage.setItem(`basra.token.${quick.code}`,
                             JSON.stringify({seat: quick.seat, token: quick.token}));
        return quick.code;
    }""")
    page.goto(f"{base}/t/{code}")
    hint = page.get_by_role("button", name="Hint")
    expect(hint).to_be_visible(timeout=30_000)
    hint.click()
    hints = page.get_by_test_id("hints")
    expect(hints.locator("li").first).to_be_visible()
    legal = page.get_by_test_id("hand").locator("button[data-card]").count()
    assert hints.locator("li").count() >= min(legal, 1)
    watcher = pages.page("watcher")
    watcher.goto(f"{base}/t/{code}")
    expect(watcher.get_by_test_id("floor")).to_be_visible()
    expect(watcher.locator("#coach-controls")).to_be_hidden()
    pages.finish()
