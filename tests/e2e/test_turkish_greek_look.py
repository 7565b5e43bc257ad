"""Turkish and Greek in a real browser: the lobby, a quick game's table and the lessons
read left to right in the page's language with no English left (a Turkish page: no
English word; a Greek page: no Latin letters), fit a desktop and a phone without
scrolling sideways, and a player's avatar takes the capital of the page's language
(``ipek`` is ``İ`` in Turkish). Screenshots go to the test's temporary folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from basra.i18n import text
from tests.support.browsing import PHONE, TABLE_URL, VIEWPORT, expect_translated

pytestmark = pytest.mark.e2e

OpenPage = Callable[..., Page]
SIZES = {"desktop": VIEWPORT, "phone": PHONE}
PLAYERS = {"tr": ("ipek", "İ"), "el": ("Γιώργος", "Γ")}
"""The name each test sits under and the avatar's letter the page shows for it."""

SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def look(page: Page, language: str, name: str, shot: Path) -> None:
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    expect_translated(page, (name,))
    assert page.evaluate(SIDEWAYS) <= 0, f"{page.url} scrolls sideways"
    page.screenshot(path=str(shot))


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("language", ["tr", "el"])
def test_the_lobby_a_table_and_the_lessons_speak_turkish_and_greek(
        open_page: OpenPage, server: str, language: str, size: str, tmp_path: Path) -> None:
    name, letter = PLAYERS[language]
    page = open_page()
    page.set_viewport_size(SIZES[size])
    page.context.add_cookies([{"name": "basra_lang", "value": language, "url": server}])
    page.goto("/")
    expect(page.get_by_role("button", name=text(language, "quick_game"))).to_be_visible()
    look(page, language, name, tmp_path / f"lobby-{language}-{size}.png")
    page.locator("#player-name").fill(name)
    page.get_by_role("button", name=text(language, "quick_game")).click()
    page.wait_for_url(TABLE_URL)
    mine = page.locator(".avatar", has_text=letter)
    expect(mine).to_have_count(1)
    expect(page.locator(".avatar")).to_have_count(2)
    look(page, language, name, tmp_path / f"table-{language}-{size}.png")
    page.goto("/learn")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.get_by_role("link", name=text(language, "learn_l_matching"))).to_be_visible()
    look(page, language, name, tmp_path / f"learn-{language}-{size}.png")
