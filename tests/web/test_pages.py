"""The pages (``basra.server.pages``): one header everywhere, the language the person chose,
else their browser's, else English, and a language menu with one entry a catalog."""

from __future__ import annotations

import re
from typing import Any

import pytest

from basra.i18n import languages, text
from basra.server.pages import LANGUAGE_COOKIE, NAVIGATION

PAGES = ["/", "/t/k3f9x2q", "/replay", "/replay/5", "/u/Amira", "/leaderboard", "/help",
         "/puzzles", "/watch", "/tv", "/learn", "/learn/matching", "/rules", "/rules/pasur",
         "/offline", "/account", "/tournaments", "/tournament/abc123"]


def html_attributes(page: str) -> dict[str, str]:
    tag = re.search(r"<html([^>]*)>", page)
    assert tag is not None
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag[1]))


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_the_same_navigation(web: Any, path: str) -> None:
    page = web.http.get(path).text
    nav = re.search(r'<nav class="topnav".*?</nav>', page, re.S)
    assert nav is not None, path
    links = re.findall(r'<a href="([^"]+)" data-i18n="(\w+)"', nav[0])
    assert links == list(NAVIGATION)
    assert [href for href, _ in NAVIGATION] == ["/", "/#online", "/learn", "/puzzles",
                                                 "/watch", "/tournaments", "/leaderboard",
                                                 "/help"]
    assert 'id="account"' in nav[0]
    assert re.findall(r'data-lang="(\w+)"', nav[0]) == list(languages())


@pytest.mark.parametrize("path", PAGES)
def test_pages_are_english_by_default(web: Any, path: str) -> None:
    response = web.http.get(path)
    assert response.status_code == 200
    assert html_attributes(response.text)["lang"] == "en"
    assert html_attributes(response.text)["dir"] == "ltr"
    assert response.headers["content-language"] == "en"
    assert "Cookie" in response.headers["vary"] and "Accept-Language" in response.headers["vary"]


def test_the_browsers_language_decides_when_nobody_chose(web: Any) -> None:
    page = web.http.get("/", headers={"Accept-Language": "de-DE,fa;q=0.8"}).text
    assert (html_attributes(page)["lang"], html_attributes(page)["dir"]) == ("fa", "rtl")
    assert '<span data-i18n="quick_game">' not in page
    assert text("fa", "quick_game") in page  # the server writes the page's texts itself
    assert 'href="/static/i18n/fa.json"' in page  # only its own catalog


def test_the_chosen_language_wins_over_the_browsers(web: Any) -> None:
    web.http.cookies.set(LANGUAGE_COOKIE, "ar")
    try:
        page = web.http.get("/t/abc", headers={"Accept-Language": "en-US"}).text
    finally:
        web.http.cookies.delete(LANGUAGE_COOKIE)
    assert (html_attributes(page)["lang"], html_attributes(page)["dir"]) == ("ar", "rtl")
    assert text("ar", "lobby") in page
    assert "/static/i18n/en.json" not in page


def test_an_unknown_choice_falls_back(web: Any) -> None:
    web.http.cookies.set(LANGUAGE_COOKIE, "xx")
    try:
        page = web.http.get("/help").text
    finally:
        web.http.cookies.delete(LANGUAGE_COOKIE)
    assert html_attributes(page)["lang"] == "en"


def test_the_language_menu_names_each_language_in_itself(web: Any) -> None:
    page = web.http.get("/").text
    assert html_attributes(page)["data-languages"] == " ".join(languages())
    for code in languages():
        button = re.search(rf'<button class="lang-toggle"[^>]*data-lang="{code}"[^>]*>([^<]*)<',
                           page)
        assert button is not None and button[1] == text(code, "language_name")
        assert (' hidden' in button[0]) == (code == "en")  # the page's own is not offered


@pytest.mark.parametrize(("language", "name", "word"), [
    ("tr", "Türkçe", "Hızlı oyun"), ("el", "Ελληνικά", "Γρήγορο παιχνίδι"),
])
@pytest.mark.parametrize("path", ["/", "/learn", "/t/abc123", "/rules", "/help"])
def test_turkish_and_greek_pages_read_left_to_right_in_their_language(
        web: Any, language: str, name: str, word: str, path: str) -> None:
    web.http.cookies.set(LANGUAGE_COOKIE, language)
    try:
        response = web.http.get(path)
    finally:
        web.http.cookies.delete(LANGUAGE_COOKIE)
    assert response.headers["content-language"] == language
    page = response.text
    assert (html_attributes(page)["lang"], html_attributes(page)["dir"]) == (language, "ltr")
    assert text(language, "language_name") == name
    assert re.search(rf'data-lang="{language}"[^>]*hidden>{name}<', page)
    assert f'href="/static/i18n/{language}.json"' in page
    if path == "/":
        assert word in page


def test_the_current_page_is_marked_in_the_navigation(web: Any) -> None:
    page = web.http.get("/puzzles").text
    assert re.search(r'<a href="/puzzles" data-i18n="puzzles" aria-current="page">', page)
    assert 'aria-current' not in re.sub(r'<a href="/puzzles".*?</a>', "", page)


def help_paragraph(page: str, key: str) -> str:
    found = re.search(rf'<p data-i18n="{key}"[^>]*>([^<]*)</p>', page)
    assert found is not None, key
    return found[1]


def test_the_help_page_states_this_servers_own_numbers(start_web: Any) -> None:
    web = start_web(same_pair_limit=5, puzzle_floor=1700, playban_base=120,
                    address_connections=32,
                    rate_limits={"create": "7/minute;70/day", "join": "60/minute",
                                 "socket": "240/minute"})
    english = web.http.get("/help").text
    assert "at most 5 times in 24 hours" in help_paragraph(english, "conduct_help_pairs")
    assert "a wait of 2 minutes" in help_paragraph(english, "conduct_help_playban")
    assert "rated 1700 or more" in help_paragraph(english, "mod_help_puzzles")
    play = help_paragraph(english, "limit_help_play")
    assert "7 a minute (70 a day)" in play and "keep 32 connections" in play
    assert "1600" not in english
    # the params travel with the text, so the page's script can write it in another language
    assert re.search(r'data-i18n="mod_help_puzzles" data-i18n-params=\'\{"rating": 1700\}\'',
                     english)
    web.http.cookies.set(LANGUAGE_COOKIE, "ar")
    try:
        arabic = web.http.get("/help").text
    finally:
        web.http.cookies.delete(LANGUAGE_COOKIE)
    assert "أكثر من ٥ مرات خلال ٢٤ ساعة" in help_paragraph(arabic, "conduct_help_pairs")
    assert "انتظار دقيقتين" in help_paragraph(arabic, "conduct_help_playban")
    assert "١٧٠٠" in help_paragraph(arabic, "mod_help_puzzles")
    assert "٧ في الدقيقة (٧٠ في اليوم)" in help_paragraph(arabic, "limit_help_play")
    assert "1700" not in help_paragraph(arabic, "mod_help_puzzles")


@pytest.mark.parametrize("language", ["en", "ar", "fa", "tr", "el"])
@pytest.mark.parametrize(("path", "script", "keys"), [
    ("/tournaments", "tournaments", ("tournaments_upcoming", "tournaments_running",
                                     "tournaments_finished", "tournament_new")),
    ("/tournament/abc123", "tournament", ("tournament_standings", "tournament_join",
                                          "tournament_withdraw", "tournament_download")),
])
def test_the_tournaments_pages_speak_every_language(web: Any, language: str, path: str,
                                                  script: str, keys: tuple[str, ...]) -> None:
    """The list and a tournament's page (whatever its id: its script asks the API) come in
    the chosen language with their script and style sheets, and the header marks them."""
    web.http.cookies.set(LANGUAGE_COOKIE, language)
    try:
        page = web.http.get(path).text
    finally:
        web.http.cookies.delete(LANGUAGE_COOKIE)
    assert html_attributes(page)["lang"] == language
    assert f'src="/static/js/{script}.js"' in page
    for sheet in ("info", "tournaments"):
        assert f'href="/static/css/{sheet}.css"' in page
    for key in keys:
        assert f'data-i18n="{key}">{text(language, key)}<' in page, key
    assert re.search(r'<a href="/tournaments" data-i18n="nav_tournaments" aria-current="page">'
                     + re.escape(text(language, "nav_tournaments")), page)
