"""Friends and challenges in a real browser: following a player from their page, the
following list (who is online, who plays, with a link to watch), a challenge sent from
the list and accepted from the notification that pops up on the other player's page
without a reload, both players at the same table playing the match to its end; an open
challenge's link; and the personal access tokens of the account page.

Screenshots go to ``$BASRA_SCREENSHOTS``, or to the test's temporary folder.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browsing import (
    TABLE_URL,
    VIEWPORT,
    Opener,
    expect_translated,
    play_all_to_the_result,
)
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse 42"
TEXT = {
    "en": {"follow": "Follow", "unfollow": "Unfollow", "challenge": "Challenge",
           "online": "Online", "playing": "Playing now", "send": "Send the challenge",
           "accept": "Accept", "watch": "Watch", "followers": "1 follower"},
    "ar": {"follow": "تابِع", "unfollow": "إلغاء المتابعة", "challenge": "تحدَّ",
           "online": "متصل", "playing": "يلعب الآن", "send": "أرسل التحدي",
           "accept": "اقبل", "watch": "شاهد", "followers": "متابع واحد"},
}
_numbers = itertools.count(1)
MADE: list[str] = []
"""Every account name made so far (the lobby lists other tests' matches too)."""


def new_name(stem: str) -> str:
    """A name no test of this session has used: accounts live as long as the server."""
    name = f"{stem}{os.getpid() % 1000}x{next(_numbers)}"
    MADE.append(name)
    return name


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's ``basra serve``: room for many sign-ups and seats."""
    folder = tmp_path_factory.mktemp("friends")
    with Server(sqlite_url(folder / "friends.db"), folder, "--bot-delay", "0.05",
                "--away-after", "600", "--create-limit", "1000/minute;10000/day",
                "--join-limit", "1000/minute", "--socket-limit", "5000/minute",
                "--signup-limit", "1000/minute", "--login-limit", "1000/minute") as served:
        served.wait()
        yield served.base


Person = Callable[..., Page]


@pytest.fixture
def person(pages: Opener, server: str) -> Person:
    """``person(name, language)``: a page of a browser of its own (cookies and storage),
    signed up as ``name``, its pages in ``language``, sounds on."""

    def make(name: str, language: str = "en") -> Page:
        context = pages.context(base_url=server, viewport=VIEWPORT)
        context.add_init_script(
            "try { if (!localStorage.getItem('basra.lang')) "
            f"localStorage.setItem('basra.lang', '{language}'); "
            "localStorage.setItem('basra.sound', 'on'); } catch {}")
        page = pages.page(name, context=context, allow_failed_resource=True)
        page.goto("/help")
        status = page.evaluate("""([name, password]) => fetch("/api/signup", {
            method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({name, password})}).then(r => r.status)""", [name, PASSWORD])
        assert status == 201, f"signing up {name}: {status}"
        return page

    return make


@pytest.fixture
def shot(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., None]:
    """Saves a screenshot named after the test and ``what``."""
    folder = Path(os.environ.get("BASRA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    original = request.node.originalname
    test = original.removeprefix("test_")[:40] + request.node.name[len(original):]

    def take(page: Page, what: str, *, full_page: bool = False) -> None:
        path = folder / f"{test}-{what}.png"
        page.screenshot(path=path, full_page=full_page)
        print(f"screenshot {path}")

    return take


def listening(page: Page) -> None:
    """Waits until the page's notification stream is open."""
    expect(page.locator("body")).to_have_attribute("data-notifications", "listening")


def table_code(page: Page) -> str:
    """Waits until the page is at a table, seated; the table's code."""
    page.wait_for_url(TABLE_URL, timeout=30_000)
    expect(page.locator("body")).not_to_have_attribute("data-my-seat", "")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


@pytest.mark.parametrize("language", ["en", "ar"])
def test_follow_see_online_challenge_accept_from_the_notification_and_play(
        person: Person, language: str, shot: Callable[..., None]) -> None:
    """A follows B from B's page and sees B online in the following list; A challenges B
    from the list; B's page shows the challenge at once (with a sound, sounds being on),
    B accepts it there and both land at the same table, where they play the match out."""
    text = TEXT[language]
    amira, bashir = new_name("Amira"), new_name("Bashir")
    a = person(amira, language)
    b = person(bashir, language)
    names = tuple(MADE)

    a.goto(f"/u/{bashir}")
    follow = a.get_by_role("button", name=text["follow"], exact=True)
    expect(follow).to_have_attribute("aria-pressed", "false")
    expect(a.get_by_role("button", name=text["challenge"], exact=True)).to_be_visible()
    shot(a, "profile")
    follow.click()
    unfollow = a.get_by_role("button", name=text["unfollow"], exact=True)
    expect(unfollow).to_have_attribute("aria-pressed", "true")
    expect(a.locator("#player-followers")).to_have_text(text["followers"])
    expect_translated(a, names)

    a.locator("#following-link").click()  # the header's link
    a.wait_for_url(re.compile(r"/following$"))
    friend = a.locator(f'[data-testid=following] li[data-name="{bashir}"]')
    expect(friend).to_have_attribute("data-status", "online")
    expect(friend).to_contain_text(text["online"])
    expect_translated(a, names)
    shot(a, "following")

    b.goto("/")
    listening(b)
    friend.get_by_role("button", name=text["challenge"]).click()
    dialog = a.locator("#challenge-dialog")
    expect(dialog).to_be_visible()
    expect(a.locator("#challenge-casual")).to_be_checked()
    expect_translated(a, names)
    dialog.get_by_role("button", name=text["send"]).click()
    expect(a.locator("#challenge-sent")).to_be_visible()
    expect(a.locator("#challenge-status")).to_contain_text(bashir)

    toast = b.locator(".toast[data-kind=challenge]")
    expect(toast).to_be_visible()  # no reload: it came over the stream
    expect(toast).to_contain_text(amira)
    expect(b.locator("#inbox-link")).to_have_attribute("data-unread", "1")
    expect(b.locator("body")).to_have_attribute("data-sounds", re.compile(r"\bnotify\b"))
    expect_translated(b, names)
    shot(b, "toast")
    toast.get_by_role("button", name=text["accept"]).click()

    code = table_code(b)
    assert table_code(a) == code  # the challenger's page went there by itself
    shot(a, "table")
    play_all_to_the_result([a, b])
    for page in (a, b):
        expect(page.get_by_test_id("result")).to_be_visible()
    expect_translated(b, (*names, amira[0], bashir[0]))  # (the seats' avatars: initials)


def test_an_open_challenge_link_is_accepted_by_whoever_opens_it(
        person: Person, shot: Callable[..., None]) -> None:
    """A makes a link from the following list; C opens it, accepts, and both are seated
    at one table; D, who follows A, sees A playing, with a link to watch that table."""
    amira, carim, dalia = new_name("Amira"), new_name("Carim"), new_name("Dalia")
    a, c, d = person(amira), person(carim), person(dalia)
    d.goto("/following")
    d.get_by_label("Follow a player by name").fill(amira)
    d.get_by_role("button", name="Follow", exact=True).click()
    expect(d.locator(f'[data-testid=following] li[data-name="{amira}"]')).to_be_visible()

    a.goto("/following")
    listening(a)
    a.get_by_role("button", name="Make a challenge link").click()
    dialog = a.locator("#challenge-dialog")
    expect(a.locator("#challenge-open")).to_be_checked()
    a.locator("#challenge-timer").select_option("30")
    dialog.get_by_role("button", name="Make a challenge link").click()
    link = a.locator("#challenge-link")
    expect(link).to_have_value(re.compile(r"/challenge/\w+$"))
    shot(a, "link")
    url = link.input_value()

    c.goto(url)
    expect(c.locator("#challenge-who")).to_have_text(f"{amira} challenges anyone")
    expect(c.locator("#challenge-game")).to_have_text(
        "Egyptian · 2 players · Casual · 30 s a turn")
    shot(c, "challenge-page")
    c.get_by_role("button", name="Accept").click()
    code = table_code(c)
    assert table_code(a) == code

    d.reload()
    friend = d.locator(f'[data-testid=following] li[data-name="{amira}"]')
    expect(friend).to_have_attribute("data-status", "playing")
    expect(friend).to_contain_text("Playing now")
    expect(friend.get_by_role("link", name=f"Watch the game of {amira}")).to_have_attribute(
        "href", f"/t/{code}")
    shot(d, "following-playing")


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_token_is_shown_once_listed_after_a_reload_and_revoked(
        person: Person, language: str, shot: Callable[..., None]) -> None:
    """Making a token shows it once, with a warning; the list after a reload names it
    but never shows it; revoking (asked twice) removes it."""
    name = new_name("Yara")
    page = person(name, language)
    page.goto("/account")
    panel = page.locator("#tokens-panel")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("tokens").locator("li.empty")).to_be_visible()
    page.locator("#token-create").click()  # no scope: refused on the page
    expect(page.locator("#token-error")).to_be_visible()
    page.locator("#token-description").fill("my bot")
    page.locator("#token-scope-bot").check()
    page.locator("#token-scope-read").check()
    page.locator("#token-create").click()
    made = page.locator("#token-made")
    expect(made).to_be_visible()
    expect(made.locator(".token-warning")).to_be_visible()
    token = page.locator("#token-value").input_value()
    assert token.startswith("basra_") and len(token) > 40
    # What the test typed, the token, and the browser's own name (the sessions' list).
    browser = re.findall(r"[A-Za-z0-9](?:[A-Za-z0-9:=.'_-]*[A-Za-z0-9])?",
                         page.evaluate("navigator.userAgent"))
    typed = (name, "my", "bot", *browser)
    expect_translated(page, (*typed, token))
    shot(page, "made", full_page=True)
    assert page.evaluate("""token => fetch("/api/account", {
        headers: {Authorization: "Bearer " + token}}).then(r => r.json())""", token)[
        "name"] == name  # it works

    page.reload()
    item = page.get_by_test_id("tokens").locator("li[data-token]")
    expect(item).to_have_count(1)
    expect(item.locator(".token-description")).to_have_text("my bot")
    expect(page.locator("#token-made")).to_be_hidden()
    assert token not in page.content()  # shown once: never again
    item.locator("button[data-revoke]").click()
    expect(item.locator(".token-warning")).to_be_visible()
    expect_translated(page, typed)
    shot(page, "revoke")
    item.locator("button[data-revoke-confirm]").click()
    expect(page.get_by_test_id("tokens").locator("li[data-token]")).to_have_count(0)
    assert page.evaluate("""token => fetch("/api/account", {
        headers: {Authorization: "Bearer " + token}}).then(r => r.status)""", token) == 401
