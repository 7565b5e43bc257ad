"""Leaving a table in Chromium, at a desk and on a phone, in English and Arabic: Abort
before the first play and Resign after it (each confirmed first: Cancel changes nothing),
the Lobby link (confirmed while playing), and New game and Lobby after the end.
Screenshots go under the test's ``tmp_path``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from basra.i18n import text
from tests.support.browsing import (
    CREATE_TABLE,
    PHONE,
    TABLE_URL,
    TURN_TIMEOUT_MS,
    VIEWPORT,
    Opener,
)

pytestmark = pytest.mark.e2e

CASES = [pytest.param(VIEWPORT, "en", id="desktop-en"),
         pytest.param(VIEWPORT, "ar", id="desktop-ar"),
         pytest.param(PHONE, "en", id="phone-en"),
         pytest.param(PHONE, "ar", id="phone-ar"),
         pytest.param(PHONE, "fa", id="phone-fa")]


MY_TURN = """() => {
  const body = document.body;
  return body.dataset.status === "playing" && body.dataset.mySeat !== "" &&
    body.dataset.toPlay === body.dataset.mySeat &&
    Boolean(document.querySelector('[data-testid=hand] button[aria-disabled="false"]'));
}"""


def open_table(pages: Opener, server: str, viewport: ViewportSize, language: str,
               body: dict[str, Any]) -> tuple[Page, str]:
    context = pages.context(base_url=server, viewport=viewport)
    context.add_cookies([{"name": "basra_lang", "value": language, "url": server}])
    page = pages.page(f"{language} {viewport['width']}", context=context)
    page.goto("/help")
    created = page.evaluate(CREATE_TABLE, body)
    page.goto(f"/t/{created['code']}")
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    return page, str(created["code"])


def play_first_card(page: Page) -> None:
    page.wait_for_function(MY_TURN, timeout=TURN_TIMEOUT_MS)
    seq = page.locator("body").get_attribute("data-seq")
    page.locator('[data-testid=hand] button[aria-disabled="false"]').first.click()
    if page.locator("#capture-dialog").is_visible():
        page.locator("#capture-options button").first.click()
    expect(page.locator("body")).not_to_have_attribute("data-seq", seq or "")


@pytest.mark.parametrize(("viewport", "language"), CASES)
def test_abort_resign_and_the_ways_back_to_the_lobby(
        pages: Opener, server: str, viewport: ViewportSize, language: str,
        tmp_path: Path) -> None:
    def shot(name: str) -> None:
        page.screenshot(path=str(tmp_path / f"{name}-{language}-{viewport['width']}.png"))

    body = {"name": "Amira", "seats": [{"kind": "human"}, {"kind": "bot", "level": "expert"}]}
    page, code = open_table(pages, server, viewport, language, body)
    abort, resign = page.locator("#abort"), page.locator("#resign")
    dialog = page.locator("#leave-dialog")

    # Before the first play: Abort, not Resign. Cancel changes nothing.
    expect(abort).to_be_visible()
    expect(abort).to_have_text(text(language, "abort_button"))
    expect(resign).to_be_hidden()
    shot("bar")
    abort.click()
    expect(dialog).to_be_visible()
    expect(page.locator("#leave-title")).to_have_text(text(language, "abort_title"))
    expect(page.locator("#leave-text")).to_have_text(text(language, "abort_text"))
    shot("abort-confirm")
    page.locator("#leave-cancel").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    abort.click()
    page.locator("#leave-confirm").click()
    panel = page.locator("[data-testid=aborted]")
    expect(panel).to_be_visible()
    expect(page.locator("#aborted-text")).to_have_text(text(language, "abort_you"))
    expect(page.locator("body")).to_have_attribute("data-status", "finished")
    shot("aborted")

    # New game: a new table of the same settings, the player seated at it.
    panel.get_by_role("button", name=text(language, "table_new_game")).click()
    page.wait_for_url(lambda url: TABLE_URL.search(url) is not None
                      and not url.endswith(f"/t/{code}"))
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    expect(page.locator("body")).to_have_attribute("data-my-seat", "0")

    # After a play of one's own: Resign, confirmed first.
    play_first_card(page)
    expect(resign).to_be_visible()
    expect(abort).to_be_hidden()
    resign.click()
    expect(page.locator("#leave-text")).to_have_text(text(language, "resign_text"))
    shot("resign-confirm")
    page.locator("#leave-cancel").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    resign.click()
    page.locator("#leave-confirm").click()
    result = page.locator("[data-testid=result]")
    if page.locator("#score-dialog").is_visible():
        page.locator("#score-continue").click()
    expect(result).to_be_visible()
    expect(page.locator("#result-title")).to_have_text(text(language, "you_lost"))
    expect(result.locator("[data-testid=resign-line]")).to_have_text(
        text(language, "resign_you"))
    expect(result.get_by_role("button", name=text(language, "rematch"))).to_be_visible()
    expect(result.get_by_role("button", name=text(language, "table_new_game"))).to_be_visible()
    lobby = result.get_by_role("link", name=text(language, "leave_lobby"))
    expect(lobby).to_be_visible()
    shot("resigned")
    lobby.click()
    page.wait_for_url(re.compile(r"/$"))


@pytest.mark.parametrize(("viewport", "language"),
                         [CASES[0], CASES[3]])
def test_the_lobby_link_asks_first_while_one_plays(
        pages: Opener, server: str, viewport: ViewportSize, language: str,
        tmp_path: Path) -> None:
    body = {"seats": [{"kind": "human"}, {"kind": "bot", "level": "expert"}]}
    page, _ = open_table(pages, server, viewport, language, body)
    page.locator("#leave-lobby").click()
    expect(page.locator("#leave-dialog")).to_be_visible()
    expect(page.locator("#leave-text")).to_have_text(text(language, "leave_casual_text"))
    page.screenshot(path=str(tmp_path / f"leave-{language}-{viewport['width']}.png"))
    page.locator("#leave-cancel").click()
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    page.locator("#leave-lobby").click()
    page.locator("#leave-confirm").click()
    page.wait_for_url(re.compile(r"/$"))

    # A watcher of a table of computers: no Resign, no Abort, the pause note, no question.
    watched = page.evaluate(CREATE_TABLE, {"seats": [{"kind": "bot", "level": "expert"}] * 2})
    page.goto(f"/t/{watched['code']}")
    expect(page.locator("[data-testid=pause-note]")).to_have_text(
        text(language, "table_pause_note"))
    expect(page.locator("#resign")).to_be_hidden()
    expect(page.locator("#abort")).to_be_hidden()
    page.screenshot(path=str(tmp_path / f"watch-{language}-{viewport['width']}.png"))
    page.locator("#leave-lobby").click()
    page.wait_for_url(re.compile(r"/$"))
