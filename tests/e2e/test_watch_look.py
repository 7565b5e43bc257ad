"""Finding everything: one header on every page (its links fold behind a Menu button on a
phone, open with the button, close with Escape), the current page marked, right to left
too; Watch lists the live games, rated games first; Basra TV follows the best live game
and moves on to the next when it ends; the lobby shows a logged-in player's name instead
of a guest name box, and the Play online form states the server's move timer.

Each test runs against a ``basra serve`` of its module (or its own), at a desktop's size
(1280x900) and a phone's (390x844), in English, Arabic and Persian. Screenshots go to the
test's temporary folder (``tmp_path``).
"""

from __future__ import annotations

import contextlib
import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from basra.i18n import languages, text
from basra.server.pages import NAVIGATION
from tests.support.browsing import PHONE, VIEWPORT, Opener, expect_translated
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

SERVER_OPTIONS = ("--bot-delay", "0.05", "--away-after", "600", "--signup-limit",
                  "1000/minute")
COMPUTERS = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "random"}]
VIEWS = {"desktop": VIEWPORT, "phone": PHONE}
PLAYERS = {"en": ("Hoda", "Farid"), "ar": ("هدى", "فريد"), "fa": ("رضا", "مریم")}
"""The players of a rated game, by the language of the test that makes it (the games of
earlier tests may still be listed)."""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's ``basra serve``: fast computers, no takeover during a test."""
    folder = tmp_path_factory.mktemp("watch")
    with Server(sqlite_url(folder / "watch.db"), folder, *SERVER_OPTIONS) as served:
        served.wait()
        yield served.base


def post(base: str, path: str, body: dict[str, Any]) -> tuple[Any, str]:
    """POST JSON as a page of the site would: (the answer, its session cookie if any)."""
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json",
                                              "origin": base}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        cookie = re.search(r"basra_session=([^;]+)", response.headers.get("set-cookie") or "")
        return json.load(response), cookie[1] if cookie else ""


def computers_table(base: str, **body: Any) -> str:
    code: str = post(base, "/api/tables", {"seats": COMPUTERS, **body})[0]["code"]
    return code


def rated_table(base: str, names: tuple[str, str]) -> str:
    """Two new accounts seek a rated game and are paired: the table's code."""
    sessions = [post(base, "/api/signup", {"name": name, "password": "a good long password"})[1]
                for name in names]
    codes = set()
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(
            base.replace("http", "ws") + "/ws/seek?rated=1",
            additional_headers={"cookie": f"basra_session={session}", "origin": base}))
            for session in sessions]
        for socket in sockets:
            while True:
                message = json.loads(socket.recv(timeout=15))
                if message["type"] == "paired":
                    codes.add(message["table"])
                    break
    assert len(codes) == 1, codes
    return codes.pop()


def open_page(pages: Opener, base: str, language: str, view: str) -> Page:
    context = pages.context(base_url=base, viewport=VIEWS[view])
    context.add_cookies([{"name": "basra_lang", "value": language, "url": base}])
    # /u/Amira has no account behind it (its data answers 404): the header is what these
    # tests look at.
    return pages.page(f"{language}-{view}", context=context, allow_failed_resource=True)


def check_header(page: Page, path: str, language: str, view: str) -> None:
    """The header's eight links, the account and the language are there and usable; the
    page's own link is marked."""
    menu = page.locator("#menu-toggle")
    links = page.locator(".topnav .nav-links a")
    expect(links).to_have_count(len(NAVIGATION))
    expect(page.locator("#account")).to_be_visible()
    # A button for every other language of the site.
    expect(page.locator(".lang-toggle:visible")).to_have_count(len(languages()) - 1)
    if view == "phone":
        expect(menu).to_be_visible()
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(links.first).to_be_hidden()
        menu.click()
        expect(menu).to_have_attribute("aria-expanded", "true")
    else:
        expect(menu).to_be_hidden()
    for (href, key), link in zip(NAVIGATION, links.all(), strict=True):
        expect(link).to_be_visible()
        expect(link).to_have_text(text(language, key))
        assert link.get_attribute("href") == href
        box = link.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= VIEWS[view]["width"]
    current = {"/": "/", "/watch": "/watch", "/tv": "/watch", "/puzzles": "/puzzles",
               "/leaderboard": "/leaderboard", "/help": "/help", "/learn": "/learn",
               "/learn/matching": "/learn", "/tournaments": "/tournaments"}.get(path)
    marked = page.locator('.topnav a[aria-current="page"]')
    if current is None:
        expect(marked).to_have_count(0)
    else:
        expect(marked).to_have_attribute("href", current)
    if view == "phone":
        page.keyboard.press("Escape")
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(menu).to_be_focused()
        expect(links.first).to_be_hidden()


@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_one_header_on_every_page(pages: Opener, base: str, view: str,
                                  tmp_path: Path) -> None:
    code = computers_table(base)
    page = open_page(pages, base, "en", view)
    for path in ("/", f"/t/{code}", "/replay", "/u/Amira", "/leaderboard", "/help",
                 "/puzzles", "/account", "/watch", "/tv", "/learn", "/learn/matching",
                 "/rules", "/rules/pasur", "/tournaments"):
        page.goto(path)
        check_header(page, path, "en", view)
    page.screenshot(path=str(tmp_path / f"header-en-{view}.png"))
    # every link goes where it says, from a page of another kind
    for href, key in NAVIGATION:
        page.goto("/puzzles")
        if view == "phone":
            page.locator("#menu-toggle").click()
        page.locator(".nav-links").get_by_role("link", name=text("en", key),
                                               exact=True).click()
        # the puzzles page's address follows the puzzle it shows (/puzzles/{id})
        tail = r"(/\w+)?$" if href == "/puzzles" else "$"
        expect(page).to_have_url(re.compile(re.escape(base + href) + tail))
    if view == "phone":  # open, as a person sees it
        page.goto("/watch")
        page.locator("#menu-toggle").click()
        page.screenshot(path=str(tmp_path / "header-en-phone-open.png"))


@pytest.mark.parametrize("language", ["ar", "fa"])
@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_the_header_right_to_left(pages: Opener, base: str, language: str, view: str,
                                  tmp_path: Path) -> None:
    page = open_page(pages, base, language, view)
    for path in ("/", "/replay", "/puzzles", "/watch", "/tournaments", "/learn",
                 "/rules/egyptian"):
        page.goto(path)
        expect(page.locator("html")).to_have_attribute("dir", "rtl")
        check_header(page, path, language, view)
    brand = page.locator(".brand").bounding_box()
    assert brand is not None and brand["x"] > VIEWS[view]["width"] / 2  # mirrored: at the right
    if view == "phone":
        page.locator("#menu-toggle").click()
    expect_translated(page)
    page.screenshot(path=str(tmp_path / f"header-{language}-{view}.png"))


@pytest.mark.parametrize(("language", "view"), [("en", "desktop"), ("ar", "phone"),
                                                 ("fa", "desktop")])
def test_watch_lists_live_games_rated_first(pages: Opener, base: str, language: str,
                                            view: str, tmp_path: Path) -> None:
    computers = computers_table(base)
    names = PLAYERS[language]
    rated = rated_table(base, names)
    page = open_page(pages, base, language, view)
    page.goto("/watch")
    games = page.get_by_test_id("live-game")
    first = page.locator(f'[data-code="{rated}"]')
    expect(first.get_by_test_id("rated")).to_have_text(text(language, "rated"))
    for name in names:
        expect(first).to_contain_text(name)
    badges = games.get_by_test_id("rated").all_text_contents()
    kinds = [badge == text(language, "rated") for badge in badges]
    assert kinds == sorted(kinds, reverse=True) and kinds[0], badges  # rated games first
    game = page.locator(f'[data-code="{computers}"]')
    expect(game.get_by_test_id("rated")).to_have_text(text(language, "casual"))
    expect(game.get_by_role("link")).to_have_attribute("href", f"/t/{computers}")
    expect(page.get_by_test_id("tv-link")).to_have_attribute("href", "/tv")
    expect_translated(page, tuple(name for pair in PLAYERS.values() for name in pair))
    page.screenshot(path=str(tmp_path / f"watch-{language}-{view}.png"), full_page=True)
    game.get_by_role("link").click()  # as a watcher
    expect(page).to_have_url(re.compile(f"/t/{computers}$"))
    expect(page.locator("body")).to_have_attribute("data-my-seat", "")
    expect(page.locator("body")).to_have_attribute("data-status", "playing")


@pytest.mark.parametrize(("language", "view"), [("en", "desktop"), ("ar", "phone")])
def test_tv_follows_the_best_game_and_moves_on(pages: Opener, language: str, view: str,
                                               tmp_path: Path,
                                               tmp_path_factory: pytest.TempPathFactory
                                               ) -> None:
    folder = tmp_path_factory.mktemp("tv")
    with Server(sqlite_url(folder / "tv.db"), folder, *SERVER_OPTIONS) as served:
        served.wait()
        page = open_page(pages, served.base, language, view)
        page.goto("/tv")
        expect(page.get_by_test_id("tv-status")).to_have_text(text(language, "tv_none"))
        page.screenshot(path=str(tmp_path / f"tv-none-{language}-{view}.png"))
        first = computers_table(served.base, rules={"target": 11})
        expect(page.locator("body")).to_have_attribute("data-table-code", first,
                                                       timeout=15_000)
        expect(page.locator("body")).to_have_attribute("data-status", "playing")
        expect(page.get_by_test_id("floor")).to_be_visible()
        second = computers_table(served.base, rules={"target": 11})
        page.screenshot(path=str(tmp_path / f"tv-{language}-{view}.png"))
        expect(page.get_by_test_id("tv-status")).to_have_text(text(language, "tv_next"),
                                                              timeout=60_000)
        expect(page.locator("body")).to_have_attribute("data-table-code", second,
                                                       timeout=20_000)
        assert page.url.endswith(f"/tv?after={first}")
        expect(page.get_by_test_id("tv-status")).to_have_text(text(language, "tv_following"))
        expect_translated(page, ("Basra",) if language == "en" else ())


@pytest.mark.parametrize(("language", "view"), [("en", "desktop"), ("ar", "phone"),
                                                 ("fa", "phone")])
def test_the_lobby_names_an_account_and_states_the_move_timer(
        pages: Opener, base: str, language: str, view: str, tmp_path: Path) -> None:
    page = open_page(pages, base, language, view)
    page.goto("/")
    expect(page.locator("#player-name")).to_be_visible()
    expect(page.get_by_test_id("playing-as")).to_be_hidden()
    minute = {"en": "1 minute", "ar": "دقيقة واحدة", "fa": "۱ دقیقه"}[language]
    expect(page.locator("#online-hint")).to_contain_text(minute)
    name = {"en": "Amal", "ar": "أمل", "fa": "آرش"}[language]
    answer = page.request.post("/api/signup", data={"name": name,
                                                    "password": "a good long password"})
    assert answer.status == 201, answer.text()
    page.reload()
    expect(page.get_by_test_id("playing-as")).to_contain_text(name)
    expect(page.locator("#player-name")).to_be_hidden()
    expect_translated(page, (name,))
    page.screenshot(path=str(tmp_path / f"lobby-{language}-{view}.png"))
    page.locator("#quick").click()  # seated under the account's name
    expect(page).to_have_url(re.compile(r"/t/\w+$"))
    expect(page.locator(".seat-bottom")).to_contain_text(name)
