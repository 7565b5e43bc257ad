"""The lessons in a real browser (/learn): a whole lesson played by clicking cards, a
wrong card explained and tried again, the keyboard path, progress kept across a reload
for a guest and in the account after logging in, at a desktop's size and a phone's, in
English, Arabic and Persian. Screenshots go to the test's temporary folder."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from basra.i18n import format_number, text
from tests.support.browsing import PHONE, VIEWPORT

pytestmark = pytest.mark.e2e

OpenPage = Callable[..., Page]
SIZES = {"desktop": VIEWPORT, "phone": PHONE}


def open_lesson(open_page: OpenPage, server: str, language: str, path: str,
                size: str = "desktop") -> Page:
    page = open_page()
    page.set_viewport_size(SIZES[size])
    page.context.add_cookies([{"name": "basra_lang", "value": language, "url": server}])
    page.goto(path)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return page


def card(page: Page, code: str) -> object:
    return page.locator(f'#lesson-hand button[data-card="{code}"]')


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_a_lesson_is_played_by_clicking_and_a_wrong_card_is_explained(
        open_page: OpenPage, server: str, language: str, size: str, tmp_path: Path) -> None:
    page = open_lesson(open_page, server, language, "/learn/sums", size)
    expect(page.locator("html")).to_have_attribute("dir", text(language, "language_dir"))
    expect(page.get_by_test_id("lesson-text")).to_contain_text(
        text(language, "learn_s_sums_1")[:12])
    expect(page.locator("#lesson-rules")).to_have_attribute("href", "/rules/egyptian")
    page.locator('#lesson-hand button[data-card="4C"]').click()
    feedback = page.get_by_test_id("lesson-feedback")
    expect(feedback).to_have_attribute("data-right", "false")
    expect(feedback).to_contain_text(text(language, "learn_wrong"))
    expect(feedback).to_contain_text(text(language, "learn_try_again"))
    expect(feedback.locator('.mini-card[data-code="4C"]')).to_have_count(1)
    page.screenshot(path=str(tmp_path / f"learn-wrong-{language}-{size}.png"), full_page=True)
    page.locator('#lesson-hand button[data-card="9S"]').click()
    expect(feedback).to_have_attribute("data-right", "true")
    expect(feedback.locator('.mini-card[data-code="6C"]')).to_have_count(1)
    expect(page.locator("#lesson-floor .learn-taken")).to_have_count(2)
    page.screenshot(path=str(tmp_path / f"learn-right-{language}-{size}.png"), full_page=True)
    page.locator("#lesson-next").click()
    expect(page.get_by_test_id("lesson-step")).to_contain_text(
        text(language, "learn_step", n=2, total=2).split()[0])
    page.locator('#lesson-hand button[data-card="7C"]').click()
    expect(feedback).to_have_attribute("data-right", "true")
    page.locator("#lesson-next").click()
    done = page.get_by_test_id("lesson-done")
    expect(done).to_be_visible()
    expect(done).to_contain_text(text(language, "learn_complete"))
    expect(page.locator("#next-lesson")).to_have_attribute("href", "/learn/sets")
    page.screenshot(path=str(tmp_path / f"learn-done-{language}-{size}.png"), full_page=True)
    # the guest's progress is kept in the browser, across a reload
    page.goto("/learn")
    expect(page.locator('li.finished a[data-lesson="sums"]')).to_have_count(1)
    page.reload()
    expect(page.locator('li.finished a[data-lesson="sums"]')).to_have_count(1)
    expect(page.get_by_test_id("tick")).to_have_count(1)
    page.screenshot(path=str(tmp_path / f"learn-list-{language}-{size}.png"), full_page=True)
    print(f"screenshots in {tmp_path}")


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_lesson_is_played_with_the_keyboard(open_page: OpenPage, server: str,
                                              language: str) -> None:
    page = open_lesson(open_page, server, language, "/learn/matching")
    page.keyboard.press("1")  # 3C, which takes nothing
    expect(card(page, "3C")).to_be_focused()
    page.keyboard.press("Enter")
    feedback = page.get_by_test_id("lesson-feedback")
    expect(feedback).to_have_attribute("data-right", "false")
    expect(card(page, "3C")).to_be_focused()
    page.keyboard.press("ArrowLeft" if language == "ar" else "ArrowRight")  # on to 5S
    expect(card(page, "5S")).to_be_focused()
    page.keyboard.press("Enter")
    expect(feedback).to_have_attribute("data-right", "true")
    expect(page.locator("#lesson-next")).to_be_focused()
    page.keyboard.press("Enter")
    expect(feedback).to_be_hidden()
    page.keyboard.press("2")  # 8S
    expect(card(page, "8S")).to_be_focused()
    page.keyboard.press("Enter")
    expect(feedback).to_have_attribute("data-right", "true")
    expect(page.locator("#lesson-next")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("lesson-done")).to_be_visible()


def test_a_guests_progress_joins_the_account_and_stays_with_it(
        open_page: OpenPage, server: str) -> None:
    page = open_lesson(open_page, server, "en", "/learn/basra")
    for code in ("10S", "8H"):
        card(page, code).click()  # type: ignore[attr-defined]
        expect(page.get_by_test_id("lesson-feedback")).to_have_attribute("data-right", "true")
        page.locator("#lesson-next").click()
    expect(page.get_by_test_id("lesson-done")).to_be_visible()
    assert page.request.get("/api/learn/progress").json()["lessons"] == {}
    name = f"L{uuid.uuid4().hex[:8]}"
    signed = page.request.post("/api/signup", data={"name": name,
                                                     "password": "a long learning password"})
    assert signed.ok, signed.text()
    page.goto("/learn")
    expect(page.locator("#learn-saved")).to_have_text(text("en", "learn_saved_account"))
    expect(page.locator('li.finished a[data-lesson="basra"]')).to_have_count(1)
    assert list(page.request.get("/api/learn/progress").json()["lessons"]) == ["basra"]
    # another browser, logged in to the same account, sees it
    other = open_page("other")
    logged = other.request.post("/api/login", data={"name": name,
                                                    "password": "a long learning password"})
    assert logged.ok
    other.goto("/learn")
    expect(other.locator('li.finished a[data-lesson="basra"]')).to_have_count(1)
    expect(other.locator("li.finished")).to_have_count(1)


@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_the_new_table_form_links_the_variants_rules(open_page: OpenPage, server: str,
                                                     language: str, tmp_path: Path) -> None:
    page = open_page()
    page.set_viewport_size(PHONE)
    page.context.add_cookies([{"name": "basra_lang", "value": language, "url": server}])
    page.goto("/")
    page.locator("#variant").select_option("pasur")
    link = page.get_by_test_id("variant-rules")
    expect(link).to_have_attribute("href", "/rules/pasur")
    expect(link).to_have_text(text(language, "rulebook_read",
                                   variant=text(language, "variant_pasur")))
    link.click()
    expect(page.get_by_test_id("rules-preset")).to_have_attribute("data-preset", "pasur")
    expect(page.locator('tr[data-option="clubs_points"] td.rule-value')).to_have_text(
        format_number(language, 7))  # in the page's own digits
    page.screenshot(path=str(tmp_path / f"rules-{language}-phone.png"), full_page=True)


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("language", ["tr", "el", "ar"])
def test_the_pile_course_shows_the_pile_its_hidden_cards_and_the_pisti(
        open_page: OpenPage, server: str, language: str, size: str, tmp_path: Path) -> None:
    page = open_lesson(open_page, server, language, "/learn", size)
    pile_family = page.locator(".learn-family").filter(
        has_text=text(language, "learn_family_pisti"))
    expect(pile_family.locator("a[data-lesson]")).to_have_count(5)
    page.screenshot(path=str(tmp_path / f"pile-list-{language}-{size}.png"), full_page=True)
    pile_family.locator('a[data-lesson="pile_first"]').click()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#lesson-floor-label")).to_have_text(text(language, "learn_pile"))
    expect(page.locator("#lesson-rules")).to_have_attribute("href", "/rules/pisti")
    floor = page.locator("#lesson-floor")
    expect(floor.locator(".card.back")).to_have_count(3)  # the first pile's face-down cards
    expect(floor.locator(".card.back").first).to_have_attribute(
        "aria-label", text(language, "learn_face_down"))
    expect(floor.locator(".card.pile-top")).to_have_attribute("data-card", "7S")
    expect(page.get_by_test_id("shown-card").locator('.mini-card[data-code="10D"]')).to_be_visible()
    card(page, "KH").click()  # type: ignore[attr-defined]
    feedback = page.get_by_test_id("lesson-feedback")
    expect(feedback).to_have_attribute("data-right", "false")
    expect(feedback).to_contain_text(text(language, "learn_why_pile_lay", card="", top="")[:8])
    card(page, "7D").click()  # type: ignore[attr-defined]
    expect(feedback).to_have_attribute("data-right", "true")
    expect(floor.locator(".learn-taken")).to_have_count(4)
    expect(feedback.locator('.mini-card[data-code="9D"]')).to_have_count(1)  # now seen
    page.screenshot(path=str(tmp_path / f"pile-first-{language}-{size}.png"), full_page=True)
    page.goto("/learn/pile_pisti")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    for code in ("8H", "9S"):
        card(page, code).click()  # type: ignore[attr-defined]
        expect(feedback).to_have_attribute("data-right", "true")
        expect(feedback).to_contain_text(text(language, "learn_right_basra_pisti", points=10)[:5])
        page.locator("#lesson-next").click()
    card(page, "JC").click()  # type: ignore[attr-defined]
    expect(feedback).to_contain_text(text(language, "learn_right_jack_pisti",
                                          points=format_number(language, 20)))
    page.screenshot(path=str(tmp_path / f"pile-pisti-{language}-{size}.png"), full_page=True)
    page.locator("#lesson-next").click()
    expect(page.locator("#next-lesson")).to_have_attribute("href", "/learn/pile_first")
    print(f"screenshots in {tmp_path}")
