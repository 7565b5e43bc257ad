"""Players online in a real browser: accounts from the lobby's header, Play online, rated
tables, the table's chat, a player's page, the leaderboard and help.

The header's forms ("Sign up", "Log in": fields "Username" and "Password", buttons
"Create account" / "Log in") and the seek's waiting panel (with the seek's socket played
by the test) need nothing but the lobby. The rest meets the server's side of players
online (``/ws/seek``, rated tables, chat, ``/api/leaderboard`` and the pages ``/u/{name}``,
``/leaderboard``, ``/help``): the contract in ``docs/web-protocol.md``.

Screenshots go to ``$BASRA_SCREENSHOTS``, or to the test's temporary folder.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, ViewportSize, WebSocketRoute, expect

from tests.support.browsing import (
    PHONE,
    TABLE_URL,
    VIEWPORT,
    Opener,
    expect_translated,
    open_menu,
    play_all_to_the_result,
)
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

TEXT = {
    "en": {"sign_up": "Sign up", "log_in": "Log in", "log_out": "Log out",
           "username": "Username", "password": "Password", "create": "Create account",
           "empty_name": "Enter a username.", "play_online": "Play online",
           "cancel": "Cancel", "computer": "Play the computer for the empty seats",
           "rated": "Rated", "casual": "Casual"},
    "ar": {"sign_up": "اشترك", "log_in": "دخول", "log_out": "خروج",
           "username": "اسم المستخدم", "password": "كلمة المرور", "create": "أنشئ الحساب",
           "empty_name": "أدخل اسم المستخدم.", "play_online": "العب عبر الإنترنت",
           "cancel": "إلغاء", "computer": "العب مع الكمبيوتر في المقاعد الفارغة",
           "rated": "مصنّفة", "casual": "ودية"},
    "fa": {"sign_up": "ثبت‌نام", "log_in": "ورود", "log_out": "خروج",
           "username": "نام کاربری", "password": "گذرواژه", "create": "ساختن حساب",
           "empty_name": "نام کاربری را وارد کنید.", "play_online": "بازی آنلاین",
           "cancel": "انصراف", "computer": "بازی با رایانه در صندلی‌های خالی",
           "rated": "رتبه‌ای", "casual": "دوستانه"},
}
PASSWORD = "correct horse 42"
_numbers = itertools.count(1)


MADE: list[str] = []
"""Every account name made so far (the leaderboard lists other tests' players too)."""


def new_name(stem: str) -> str:
    """A name no test of this session has used: accounts live as long as the server."""
    name = f"{stem}{os.getpid() % 1000}x{next(_numbers)}"
    MADE.append(name)
    return name


# The server, pages and screenshots.


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's ``basra serve``: fast computers, room for many sign-ups and seats."""
    folder = tmp_path_factory.mktemp("online")
    with Server(sqlite_url(folder / "online.db"), folder, "--bot-delay", "0.05",
                "--away-after", "600", "--create-limit", "1000/minute;10000/day",
                "--join-limit", "1000/minute", "--socket-limit", "5000/minute",
                "--signup-limit", "1000/minute", "--login-limit", "1000/minute") as served:
        served.wait()
        yield served.base


Visit = Callable[..., Page]


@pytest.fixture
def visit(pages: Opener, server: str) -> Visit:
    """``visit(label, language="en", viewport=VIEWPORT, context=None)``: a page in a
    browser context of its own (cookies and localStorage of its own: one person)."""

    def opener(label: str = "page", *, language: str = "en", viewport: ViewportSize = VIEWPORT,
               context: BrowserContext | None = None, allow_failed_resource: bool = True) -> Page:
        if context is None:
            phone = viewport == PHONE
            context = pages.context(base_url=server, viewport=viewport, is_mobile=phone,
                                    has_touch=phone)
            context.add_init_script(
                "try { if (!localStorage.getItem('basra.lang')) "
                f"localStorage.setItem('basra.lang', '{language}'); }} catch {{}}")
        # The refusals a test provokes answer 4xx: the console reports them as failed loads.
        return pages.page(label, context=context, allow_failed_resource=allow_failed_resource)

    return opener


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


def post_json(base: str, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


# Acting on the pages.


def sign_up(page: Page, name: str, language: str = "en") -> None:
    """Signs up from the lobby's header; the header then shows the name."""
    text = TEXT[language]
    page.goto("/")
    page.get_by_role("button", name=text["sign_up"]).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label(text["username"]).fill(name)
    dialog.get_by_label(text["password"]).fill(PASSWORD)
    dialog.get_by_role("button", name=text["create"]).click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#account")).to_contain_text(name)


def play_online(page: Page, *, players: int = 2, rated: bool | None = None,
                fills: bool = False) -> None:
    """Presses Play online (after choosing the players, and rated or casual if given).

    The page then shows that it waits, unless it `fills` the table: the last seeker
    is seated at once, and the page may leave for the table before the waiting panel
    could be seen (expect_seated checks that one)."""
    if players != 2:
        page.locator("#online-players").select_option(str(players))
    if rated is not None:
        page.locator("#online-rated" if rated else "#online-casual").check()
    page.get_by_role("button", name="Play online").click()
    if not fills:
        expect(page.locator("#online-waiting")).to_be_visible()


def expect_seated(page: Page) -> str:
    """Waits until the page is at a table, seated, and returns the table's code."""
    page.wait_for_url(TABLE_URL, timeout=60_000)
    expect(page.locator("body")).not_to_have_attribute("data-my-seat", "")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def open_chat(page: Page) -> None:
    toggle = page.locator("#chat-toggle")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    expect(page.get_by_test_id("chat-log")).to_be_visible()


# Accounts from the lobby's header (the lobby alone).


@pytest.mark.parametrize("language", ["en", "ar"])
def test_sign_up_log_out_and_log_in_from_the_lobby_header(
        visit: Visit, language: str, shot: Callable[..., None]) -> None:
    """Each form shows its refusals beside the field they are about, which takes the
    focus; after signing up or logging in the header shows the name and Log out."""
    text = TEXT[language]
    name = new_name("Amira")
    page = visit(language=language)
    page.goto("/")
    page.get_by_role("button", name=text["sign_up"]).click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    username = dialog.get_by_label(text["username"])
    password = dialog.get_by_label(text["password"])
    expect(username).to_be_focused()
    expect_translated(page)

    dialog.get_by_role("button", name=text["create"]).click()  # nothing typed
    expect(username).to_be_focused()
    expect(username).to_have_attribute("aria-invalid", "true")
    expect(username).to_have_accessible_description(re.compile(re.escape(text["empty_name"])))
    expect(page.locator("#signup-name-error")).to_have_text(text["empty_name"])
    expect_translated(page)
    shot(page, "empty")

    username.fill(name)
    password.fill("short")
    dialog.get_by_role("button", name=text["create"]).click()
    expect(password).to_be_focused()
    expect(password).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#signup-password-error")).to_be_visible()
    expect(page.locator("#signup-name-error")).to_be_hidden()
    error_box, field_box = (page.locator("#signup-password-error").bounding_box(),
                            password.bounding_box())
    assert error_box and field_box and 0 <= error_box["y"] - field_box["y"] < 120
    expect_translated(page, (name,))
    shot(page, "bad-password")

    password.fill(PASSWORD)
    dialog.get_by_role("button", name=text["create"]).click()
    expect(dialog).to_be_hidden()
    header = page.locator("#account")
    expect(header.get_by_role("link", name=name)).to_have_attribute("href", f"/u/{name}")
    expect(header.get_by_role("button", name=text["log_out"])).to_be_visible()
    expect_translated(page, (name,))
    shot(page, "signed-up")

    page.reload()  # the session cookie holds
    expect(header).to_contain_text(name)
    header.get_by_role("button", name=text["log_out"]).click()
    expect(header.get_by_role("button", name=text["sign_up"])).to_be_visible()
    expect(header).not_to_contain_text(name)

    # The name taken: beside the name.
    page.get_by_role("button", name=text["sign_up"]).click()
    username.fill(name.upper())
    password.fill(PASSWORD)
    dialog.get_by_role("button", name=text["create"]).click()
    expect(username).to_be_focused()
    expect(page.locator("#signup-name-error")).to_be_visible()
    dialog.get_by_role("button", name=re.compile("Cancel|إلغاء")).click()

    # A wrong password: beside the password; then the right one.
    header.get_by_role("button", name=text["log_in"]).click()
    login = page.locator("#login-dialog")
    expect(login).to_be_visible()
    login.get_by_label(text["username"]).fill(name)
    login.get_by_label(text["password"]).fill("wrong password")
    login.get_by_role("button", name=text["log_in"]).click()
    expect(login.get_by_label(text["password"])).to_be_focused()
    expect(page.locator("#login-password-error")).to_be_visible()
    expect_translated(page, (name,))
    shot(page, "wrong-login")
    login.get_by_label(text["password"]).fill(PASSWORD)
    login.get_by_role("button", name=text["log_in"]).click()
    expect(login).to_be_hidden()
    expect(header.get_by_role("link", name=name)).to_be_visible()
    assert page.evaluate("fetch('/api/me').then(r => r.json())")["name"] == name


@pytest.mark.parametrize("viewport", [VIEWPORT, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_the_lobby_offers_rated_play_to_accounts_only_in_every_language(
        visit: Visit, language: str, viewport: ViewportSize, shot: Callable[..., None]) -> None:
    """A guest sees why rated play is off; after signing up Play online defaults to
    rated. The header's links and forms are in the page's language."""
    text = TEXT[language]
    page = visit(language=language, viewport=viewport)
    page.goto("/")
    expect(page.locator("#online-variant")).to_have_value("egyptian")
    expect(page.locator("#online-players")).to_have_value("2")
    expect(page.locator("#online-rated")).to_be_disabled()
    expect(page.locator("#online-casual")).to_be_checked()
    expect(page.locator("#online-rated-hint")).to_be_visible()
    expect(page.get_by_role("button", name=text["play_online"])).to_be_visible()
    open_menu(page)  # a phone: the links fold behind Menu
    for link in ("/leaderboard", "/help"):
        expect(page.locator(f'.topnav a[href="{link}"]')).to_be_visible()
    if page.locator("#menu-toggle").is_visible():
        page.keyboard.press("Escape")
    expect_translated(page)
    shot(page, "guest", full_page=True)
    page.get_by_role("button", name=text["sign_up"]).click()
    expect_translated(page)
    shot(page, "form")
    page.keyboard.press("Escape")
    name = new_name("Bashir")
    sign_up(page, name, language)
    expect(page.locator("#online-rated")).to_be_enabled()
    expect(page.locator("#online-rated")).to_be_checked()
    expect_translated(page, (name,))
    shot(page, "logged-in")


class FakeSeek:
    """The seek's socket played by the test, one script per connection: the ``waiting``
    seconds it sends on connecting, and the ``paired`` message it answers ``computer``
    with (or none). Keeps the URLs the page opened and what it sent ("closed" when it
    closed the socket)."""

    def __init__(self, *scripts: tuple[list[int], dict[str, Any] | None]) -> None:
        self.scripts = list(scripts)
        self.urls: list[str] = []
        self.received: list[Any] = []

    def __call__(self, socket: WebSocketRoute) -> None:
        self.urls.append(socket.url)
        seconds, paired = self.scripts.pop(0)
        for waited in seconds:
            socket.send(json.dumps({"type": "waiting", "seconds": waited, "range": 150}))

        def on_message(message: str | bytes) -> None:
            self.received.append(json.loads(message))
            if paired is not None and self.received[-1] == {"type": "computer"}:
                socket.send(json.dumps({"type": "paired", **paired}))
                socket.close()

        socket.on_message(on_message)
        socket.on_close(lambda code, reason: self.received.append("closed"))


@pytest.mark.parametrize("viewport", [VIEWPORT, PHONE], ids=["desktop", "phone"])
def test_the_waiting_panel_counts_offers_the_computer_and_goes_to_the_table(
        visit: Visit, server: str, viewport: ViewportSize, shot: Callable[..., None]) -> None:
    """(The seek's socket is played by the test.) Waiting shows the seconds and the
    range; Cancel closes the socket; after 20 s the computer button sends ``computer``;
    ``paired`` stores the seat's token where the table page reads it and goes there."""
    table = post_json(server, "/api/tables", {
        "name": "Amira", "seats": [{"kind": "human"}, {"kind": "bot", "level": "expert"}]})
    paired = {"table": table["code"], "seat": table["seat"], "token": table["token"],
              "url": f"/t/{table['code']}"}
    page = visit(viewport=viewport)
    seek = FakeSeek(([1, 2], None), ([19, 20, 21], paired))
    page.route_web_socket(re.compile(r"/ws/seek"), seek)
    page.goto("/")
    page.get_by_label("Your name").fill("Amira")
    page.get_by_role("button", name="Play online").click()
    expect(page.locator("#online-seconds")).to_have_text("Waited 2 s")
    expect(page.locator("#online-range")).to_have_text("Rating range ±150")
    expect(page.get_by_role("button", name=TEXT["en"]["computer"])).to_be_hidden()
    assert "variant=egyptian" in seek.urls[0] and "players=2" in seek.urls[0]
    assert "rated=0" in seek.urls[0] and "name=Amira" in seek.urls[0]
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("button", name="Play online")).to_be_focused()
    page.wait_for_function("() => true")
    for _ in range(50):
        if "closed" in seek.received:
            break
        page.wait_for_timeout(100)
    assert "closed" in seek.received, "Cancel left the seek's socket open"

    page.get_by_role("button", name="Play online").click()
    computer = page.get_by_role("button", name=TEXT["en"]["computer"])
    expect(computer).to_be_visible()
    expect(page.locator("#online-seconds")).to_have_text("Waited 21 s")
    expect_translated(page, ("Amira",))
    shot(page, "waiting", full_page=viewport == PHONE)
    computer.click()
    page.wait_for_url(TABLE_URL)
    assert {"type": "computer"} in seek.received
    stored = page.evaluate("code => JSON.parse(localStorage.getItem('basra.token.' + code))",
                           table["code"])
    assert stored == {"seat": table["seat"], "token": table["token"]}
    expect(page.locator("body")).to_have_attribute("data-my-seat", str(table["seat"]))


# With the server's side of players online (the `online` branch).


def test_two_new_accounts_play_a_rated_match_and_see_it_on_their_profiles(
        visit: Visit, shot: Callable[..., None]) -> None:
    """Amira and Bashir sign up in two browsers, both press Play online (rated, the
    default for an account), are paired at one rated table, play the whole match by
    clicking cards, see their rating changes, and their pages show the new ratings and
    the match."""
    names = [new_name("Amira"), new_name("Bashir")]
    players = [visit(name) for name in names]
    for page, name in zip(players, names, strict=True):
        sign_up(page, name)
    for i, page in enumerate(players):
        play_online(page, fills=i == len(players) - 1)
    codes = {expect_seated(page) for page in players}
    assert len(codes) == 1, f"paired at different tables: {codes}"
    for page, name in zip(players, names, strict=True):
        expect(page.get_by_test_id("rated")).to_be_visible()
        expect(page.locator("#felt")).to_contain_text(names[1 - players.index(page)])
        expect(page.locator(".rating-badge")).to_have_count(2)
        assert name in page.locator("#felt").inner_text()
    shot(players[0], "rated-table")
    play_all_to_the_result(players)
    for page in players:
        changes = page.get_by_test_id("rating-changes")
        expect(changes).to_be_visible()
        expect(changes.locator("li")).to_have_count(2)
    shot(players[0], "result")
    record = players[0].locator("#replay-record").get_attribute("href")
    assert record and record.startswith("/replay/")
    for page, name in zip(players, names, strict=True):
        page.goto(f"/u/{name}")
        expect(page.locator("#player-name")).to_have_text(name)
        rating = page.get_by_test_id("ratings").locator('[data-pool="egyptian-2"]')
        expect(rating).to_be_visible()
        expect(rating).to_have_class(re.compile("provisional"))
        expect(page.get_by_test_id("history").locator("svg polyline")).to_have_count(1)
        match = page.get_by_test_id("matches").locator("li").first
        expect(match).to_contain_text(names[0])
        expect(match).to_contain_text(names[1])
        expect(match.get_by_role("link")).to_have_attribute("href", record)
        expect(page.locator('[data-stat="games_played"] dd')).to_have_text("1")
    shot(players[0], "profile", full_page=True)
    players[0].goto("/leaderboard")
    board = players[0].locator('[data-pool="egyptian-2"]')
    expect(board).to_contain_text(names[0])
    expect(board.locator(".computer-row").first).to_be_visible()
    shot(players[0], "leaderboard", full_page=True)


def test_a_guest_plays_casual_online_with_the_computer_after_waiting(visit: Visit) -> None:
    """A guest cannot choose rated; alone in the pool, after 20 s they fill the empty
    seat with the computer and play a casual table (no rated badge, no ratings)."""
    page = visit("guest")
    page.goto("/")
    expect(page.locator("#online-rated")).to_be_disabled()
    page.get_by_label("Your name").fill("Zaid")
    play_online(page)
    computer = page.get_by_role("button", name=TEXT["en"]["computer"])
    expect(computer).to_be_visible(timeout=40_000)
    computer.click()
    expect_seated(page)
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    expect(page.get_by_test_id("rated")).to_be_hidden()
    expect(page.locator(".rating-badge")).to_have_count(0)


def test_chat_phrases_reach_the_players_and_watchers_and_never_the_wrong_audience(
        visit: Visit, shot: Callable[..., None]) -> None:
    """Two guests paired for a casual game and two watchers: a player's phrase reaches
    everyone, in each page's language; a watcher's reaches the watchers only; typed text
    opens when both players allow it, and shows as text, never as HTML; a muted player's
    messages disappear for the one who muted them."""
    one, two = visit("one"), visit("two", language="ar")
    for page, name in ((one, "Hala"), (two, "Nour")):
        page.goto("/")
        page.locator("#player-name").fill(name)
        page.locator("#online-start").click()
    code = expect_seated(one)
    assert expect_seated(two) == code
    watchers = [visit("watcher 1"), visit("watcher 2")]
    for watcher in watchers:
        watcher.goto(f"/t/{code}")
        expect(watcher.locator("#watching")).to_be_visible()
    for page in (one, two, *watchers):
        open_chat(page)

    one.get_by_role("button", name="Good game", exact=True).click()
    for page in (one, *watchers):
        expect(page.get_by_test_id("chat-log")).to_contain_text("Good game")
    expect(two.get_by_test_id("chat-log")).to_contain_text("لعبة حلوة")

    watchers[0].get_by_role("button", name="Thanks", exact=True).click()
    expect(watchers[1].get_by_test_id("chat-log")).to_contain_text("Thanks")
    one.wait_for_timeout(1000)
    expect(one.get_by_test_id("chat-log")).not_to_contain_text("Thanks")
    expect(two.get_by_test_id("chat-log")).not_to_contain_text("شكرًا")

    box = one.get_by_role("textbox", name="Message")
    expect(box).to_be_disabled()
    expect(box).to_have_attribute("maxlength", "200")
    one.get_by_label("Allow free chat").check()
    expect(box).to_be_disabled()  # one player allowed it, not both
    two.get_by_label("اسمح بالدردشة الحرة").check()
    expect(box).to_be_enabled()
    box.fill("<b>bold</b> & <img src=x onerror=alert(1)>")
    one.get_by_role("button", name="Send").click()
    line = two.get_by_test_id("chat-log").locator(".chat-text").last
    expect(line).to_have_text("<b>bold</b> & <img src=x onerror=alert(1)>")
    expect(two.get_by_test_id("chat-log").locator("b, img")).to_have_count(0)
    shot(two, "chat")

    two.get_by_role("button", name=re.compile("اكتم")).click()
    expect(two.get_by_test_id("chat-log")).not_to_contain_text("<b>bold</b>")
    two.reload()
    open_chat(two)
    expect(two.get_by_role("button", name=re.compile("ألغِ كتم"))).to_have_attribute(
        "aria-pressed", "true")


def test_a_four_player_partnership_fills_from_the_pool(visit: Visit) -> None:
    """Four guests ask for Egyptian with four players; they are seated at one table."""
    players = [visit(f"player {i}") for i in range(4)]
    for i, page in enumerate(players):
        page.goto("/")
        page.locator("#player-name").fill(f"Guest{i}x")
        play_online(page, players=4, rated=False, fills=i == len(players) - 1)
    codes = {expect_seated(page) for page in players}
    assert len(codes) == 1, f"seated at {codes}"
    seats = {page.locator("body").get_attribute("data-my-seat") for page in players}
    assert seats == {"0", "1", "2", "3"}
    expect(players[0].locator("body")).to_have_attribute("data-players", "4")


@pytest.mark.parametrize("viewport", [VIEWPORT, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_the_profile_leaderboard_and_help_pages_speak_the_page_language(
        visit: Visit, server: str, language: str, viewport: ViewportSize,
        shot: Callable[..., None]) -> None:
    """Each page, in each language, has no text left in another (but names people
    typed); a player who does not exist is one message."""
    name = new_name("Rania")
    page = visit(language=language, viewport=viewport)
    sign_up(page, name, language)
    for path, what in ((f"/u/{name}", "profile"), ("/leaderboard", "leaderboard"),
                       ("/help", "help")):
        page.goto(path)
        expect(page.locator("html")).to_have_attribute("dir", "ltr" if language == "en" else "rtl")
        expect(page.locator("#account")).to_contain_text(name)
        if what != "help":  # (no network idle: a logged-in page keeps its notifications open)
            expect(page.locator("body")).to_have_attribute("data-loaded", "true")
        expect_translated(page, (*MADE, "Amira", "Bashir", "Hala", "Nour", "Zaid"))
        shot(page, what, full_page=True)
    page.goto("/u/nobody-here")
    expect(page.locator("#alert")).to_contain_text("nobody-here")
