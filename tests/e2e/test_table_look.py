"""The table page as a game people choose: piles, announcements, the result, names, the
title, sound and motion, at a desk (1280 x 900) and on a phone (390 x 844), in English and
Arabic.

Tables are made through the API with ``"rules": {"target": 1}``, so a match ends with its
first deal. What the page shows is checked against what the server sends the seat (its
own socket, opened beside the page's). Every test saves screenshots of what it checked
under its ``tmp_path`` (``--basetemp`` keeps them where one can look).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, ViewportSize, WebSocketRoute, expect
from websockets.sync.client import connect

from tests.support.browsing import (
    CREATE_TABLE,
    EXPERT,
    HUMAN,
    NEXT_EVENT,
    PHONE,
    PLAYED_OR_CHOOSING,
    TIMEOUT_MS,
    TURN_TIMEOUT_MS,
    VIEWPORT,
    Opener,
)

pytestmark = pytest.mark.e2e

DESKTOP_EN = pytest.param(VIEWPORT, "en", id="desktop-en")
DESKTOP_AR = pytest.param(VIEWPORT, "ar", id="desktop-ar")
PHONE_EN = pytest.param(PHONE, "en", id="phone-en")
PHONE_AR = pytest.param(PHONE, "ar", id="phone-ar")

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "basra": "Basra", "title_2": "Egyptian · 2 players",
        "title_4": "Egyptian · 4 players · partners", "cards": "Cards {n}",
        "Karim": "Karim", "Layla": "Layla", "Nadia": "Nadia", "Sami": "Sami",
        "expert": "expert", "turn_of": "{name}'s turn", "name_won": "{name} won",
        "team": "Team {n}", "team_won": "Team {n} won", "you_won": "You won",
        "you_lost": "You lost", "won_sub": "Well played!", "lost_sub": "Good game. A rematch?",
        "pile_mine": "Your pile", "pile_of": "{name}'s pile", "last_capture": "Last capture",
        "sound": "Sound", "close": "Close", "guest": "Guest {n}", "code": "Code {code}",
        "notice": "The master was busy, so the expert played this move.",
    },
    "ar": {
        "basra": "باصرة", "title_2": "مصرية · لاعبان", "title_4": "مصرية · ٤ لاعبين · شراكة",
        "cards": "الورق {n}",
        "Karim": "كريم", "Layla": "ليلى", "Nadia": "نادية", "Sami": "سامي",
        "expert": "خبير", "turn_of": "دور {name}", "name_won": "فاز {name}",
        "team": "الفريق {n}", "team_won": "فاز الفريق {n}", "you_won": "فزت",
        "you_lost": "خسرت", "won_sub": "أحسنت!", "lost_sub": "مباراة جميلة. نلعب مرة أخرى؟",
        "pile_mine": "كومتك", "pile_of": "كومة {name}", "last_capture": "آخر أكلة",
        "sound": "الصوت", "close": "إغلاق", "guest": "ضيف {n}", "code": "الرمز {code}",
        "notice": "كان المستوى الأقوى مشغولًا، فلعب الخبير هذه الورقة.",
    },
}

MAX_PLAYS = 60
"""More of one player's plays than a match to 1 takes; a loop past it is a hang."""


# Opening pages.


DIGITS = {"en": "0123456789", "ar": "٠١٢٣٤٥٦٧٨٩"}
"""How each language writes the digits of the numbers in its sentences."""


def local(number: int, lang: str) -> str:
    """``number`` as ``lang`` writes it in a sentence."""
    return str(number).translate(str.maketrans("0123456789", DIGITS[lang]))


def new_page(pages: Opener, server: str, viewport: ViewportSize, lang: str,
             label: str = "page", **options: Any) -> Page:
    """A page in a browser context of its own, in ``lang`` (as the language switch
    leaves it in localStorage)."""
    context = pages.browser.new_context(viewport=viewport, locale="en-US", base_url=server,
                                        **options)
    context.set_default_timeout(TIMEOUT_MS)
    pages.contexts.append(context)
    page = pages.page(label, context=context)
    page.goto("/")  # the lobby: a page of the server's origin, for its localStorage
    page.evaluate("lang => localStorage.setItem('basra.lang', lang)", lang)
    return page


def open_new_table(page: Page, body: dict[str, Any]) -> dict[str, Any]:
    """Makes a table from ``page`` and opens it there; the API's answer."""
    created: dict[str, Any] = page.evaluate(CREATE_TABLE, body)
    assert "code" in created, created
    page.goto(created["url"])
    expect(page.locator("body")).not_to_have_attribute("data-status", "")
    return created


# Reading the page.


def body_data(page: Page, name: str) -> str:
    return page.locator("body").get_attribute(f"data-{name}") or ""


def seq_of(page: Page) -> int:
    return int(body_data(page, "seq"))


def box_of(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} has no box"
    return {"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]}


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def expect_within_viewport(page: Page) -> None:
    """Every name plate at the table lies wholly inside the viewport."""
    size = page.viewport_size
    assert size is not None
    plates = page.locator("#felt .plate")
    assert plates.count() >= 2
    for plate in plates.all():
        box = box_of(plate)
        inside = (box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"]
                  and box["y"] + box["height"] <= size["height"])
        assert inside, f"the plate {plate.inner_text()!r} at {box} is not within {size}"


def codes_in(locator: Locator, attribute: str = "data-card") -> list[str]:
    codes: list[str] = locator.evaluate_all(
        f"ns => ns.map(n => n.getAttribute('{attribute}'))")
    return codes


def server_state(server: str, code: str, token: str | None) -> dict[str, Any]:
    """The state the server sends a connection of this seat (a watcher's without token)."""
    url = server.replace("http://", "ws://") + f"/ws/{code}" + (f"?token={token}" if token else "")
    with connect(url, open_timeout=10) as socket:
        while True:
            message: dict[str, Any] = json.loads(socket.recv(timeout=10))
            if message["type"] == "state":
                return message


def settle(page: Page) -> None:
    """Waits until the result panel (if shown) has come in: its animation is done."""
    page.get_by_test_id("result").evaluate(
        "n => Promise.all(n.getAnimations().map(a => a.finished))")


def shoot(page: Page, folder: Path, name: str) -> None:
    settle(page)
    page.screenshot(path=str(folder / f"{name}.png"))


# Acting on the page.


def next_event(page: Page) -> str:
    event: str = page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value()
    return event


def close_deal_score(page: Page) -> None:
    dialog = page.locator("#score-dialog")
    expect(dialog).to_be_visible()
    page.locator("#score-continue").click()
    expect(dialog).to_be_hidden()


def play_a_card(page: Page) -> None:
    """Plays the page's first playable card (taking the first capture offered) and waits
    until the server took it."""
    before = seq_of(page)
    page.get_by_test_id("hand").locator('button[aria-disabled="false"]').first.click()
    outcome = page.wait_for_function(PLAYED_OR_CHOOSING, arg=before,
                                     timeout=TURN_TIMEOUT_MS).json_value()
    if outcome == "choose":
        page.locator("#capture-options button").first.click()
    page.wait_for_function("before => document.body.dataset.seq !== String(before)",
                           arg=before, timeout=TURN_TIMEOUT_MS)


def play_to_the_end(page: Page, on_score: Any = None) -> None:
    """Plays the page's turns until the match is over; closes each deal's score, after
    calling ``on_score()`` with it open."""
    for _ in range(MAX_PLAYS):
        event = next_event(page)
        if event == "result":
            return
        if event == "score":
            if on_score is not None:
                on_score()
            close_deal_score(page)
        else:
            play_a_card(page)
    pytest.fail(f"no result after {MAX_PLAYS} plays with a target of 1")


def watch_to_the_end(page: Page, on_score: Any = None) -> None:
    """A watcher's page: waits for the result, closing each deal's score on the way."""
    for _ in range(10):
        page.wait_for_function("""() => document.getElementById("score-dialog").open ||
            !document.querySelector("[data-testid=result]").hidden""", timeout=60_000)
        if not page.locator("#score-dialog").evaluate("d => d.open"):
            return
        if on_score is not None:
            on_score()
        close_deal_score(page)
    pytest.fail("no result after ten deals with a target of 1")


def check_result_shows_alone(page: Page) -> None:
    """The result panel is up, no dialog covers it, and it covers no name plate."""
    result = page.get_by_test_id("result")
    expect(result).to_be_visible()
    settle(page)
    assert page.locator("dialog[open]").count() == 0, "a dialog is open over the result"
    panel = box_of(result)
    for plate in page.locator("#felt .plate").all():
        assert not overlaps(panel, box_of(plate)), \
            f"the result covers the plate {plate.inner_text()!r}"
    expect_within_viewport(page)


# The tests.


@pytest.mark.parametrize(("viewport", "lang"), [DESKTOP_EN, DESKTOP_AR, PHONE_EN, PHONE_AR])
def test_piles_last_captures_and_the_result_of_a_match(
        pages: Opener, server: str, tmp_path: Path, viewport: ViewportSize, lang: str) -> None:
    text = TEXTS[lang]
    page = new_page(pages, server, viewport, lang)
    created = open_new_table(page, {"name": "Amira", "rules": {"target": 1},
                                    "seats": [HUMAN, EXPERT]})
    expect(page.locator("body")).to_have_attribute("data-status", "playing")

    # The table is named by its variant and players; the computer by its name and level.
    expect(page.locator("#table-title")).to_have_text(text["title_2"])
    # (after "Your turn · " while it is ours)
    expect(page).to_have_title(re.compile(f"{re.escape(text['title_2'])} · {text['basra']}$"))
    layla = page.locator("#felt .plate").filter(has_text=text["Layla"])
    expect(layla).to_have_count(1)
    expect(layla.locator(".level-badge")).to_have_text(text["expert"])
    expect(page.locator("#felt")).not_to_contain_text(re.compile(r"Computer|كمبيوتر|\(expert\)"),
                                                       use_inner_text=True)

    # Play until our side has captured something.
    for _ in range(MAX_PLAYS):
        assert next_event(page) == "turn", "the deal ended before we captured anything"
        if int(page.get_by_test_id("pile-0").get_attribute("data-count") or 0) and \
                seq_of(page) >= 6:
            break
        play_a_card(page)
    sent = server_state(server, created["code"], created["token"])
    assert sent["seq"] == seq_of(page)
    deal = sent["deal"]

    # Each side's pile: a stack with its count, labelled plainly, and its last capture.
    for side in (0, 1):
        pile = page.get_by_test_id(f"pile-{side}")
        count = deal["pile_counts"][side]
        expect(pile).to_be_visible()
        expect(pile.locator(".pile-count")).to_have_text(
            text["cards"].format(n=local(count, lang)))
        assert (pile.locator(".pile-layer").count() > 0) == (count > 0)
        expect(page.get_by_test_id("scores").locator(f".side-{side} .stat-cards")).to_have_text(
            f"{text['cards'].format(n='').strip()} {local(count, lang)}")
        shown = codes_in(page.get_by_test_id(f"last-capture-{side}").locator("[data-code]"),
                         "data-code")
        capture = deal["last_captures"][side]
        assert shown == ([capture["card"], *capture["captured"]] if capture else [])
    shoot(page, tmp_path, f"mid-game-{lang}")

    # Our own pile opens: every card we took, and our last capture.
    pile = page.get_by_test_id("pile-0")
    pile.click()
    dialog = page.locator("#pile-dialog")
    expect(dialog).to_be_visible()
    cards = text["cards"].format(n=local(deal["pile_counts"][0], lang))
    expect(dialog).to_have_accessible_name(f"{text['pile_mine']} · {cards}")
    assert sorted(codes_in(dialog.get_by_test_id("pile-cards").locator("[data-card]"))) == \
        sorted(deal["pile"])
    mine = deal["last_captures"][0]
    expect(dialog.locator(".capture-cards [data-card]")).to_have_count(1 + len(mine["captured"]))
    shoot(page, tmp_path, f"own-pile-{lang}")
    dialog.get_by_role("button", name=text["close"]).click()
    expect(dialog).to_be_hidden()
    expect(pile).to_be_focused()

    # The other side's pile lies face down: only its last capture opens.
    page.get_by_test_id("pile-1").click()
    expect(dialog).to_be_visible()
    cards = text["cards"].format(n=local(deal["pile_counts"][1], lang))
    expect(dialog).to_have_accessible_name(
        f"{text['pile_of'].format(name=text['Layla'])} · {cards}")
    expect(dialog.get_by_test_id("pile-cards")).to_have_count(0)
    theirs = deal["last_captures"][1]
    expect(dialog.locator(".capture-cards [data-card]")).to_have_count(
        1 + len(theirs["captured"]) if theirs else 0)
    shoot(page, tmp_path, f"their-pile-{lang}")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    # At the end the last deal's score comes first; the result waits for it to close.
    def score_before_result() -> None:
        expect(page.get_by_test_id("result")).to_be_hidden()
        shoot(page, tmp_path, f"last-score-{lang}")

    play_to_the_end(page, score_before_result)
    check_result_shows_alone(page)
    result = page.get_by_test_id("result")
    won = result.get_attribute("class") or ""
    assert " won" in won or " lost" in won
    outcome = "won" if " won" in won else "lost"
    expect(result.get_by_role("heading", level=2)).to_have_text(text[f"you_{outcome}"])
    expect(result.locator(".result-sub")).to_have_text(text[f"{outcome}_sub"])
    shoot(page, tmp_path, f"result-{lang}")


RECORD_TURNS = """addEventListener("DOMContentLoaded", () => {
  window.turns = [];
  const turn = document.querySelector("[data-testid=turn]");
  new MutationObserver(() => window.turns.push(turn.textContent))
    .observe(turn, {childList: true, characterData: true, subtree: true});
});"""
"""Keeps every text of the turn line in ``window.turns``."""


@pytest.mark.parametrize(("viewport", "lang"), [DESKTOP_EN, PHONE_AR])
def test_a_watcher_sees_two_computers_by_name_and_the_winner_named(
        pages: Opener, server: str, tmp_path: Path, viewport: ViewportSize, lang: str) -> None:
    text = TEXTS[lang]
    page = new_page(pages, server, viewport, lang)
    page.context.add_init_script(script=RECORD_TURNS)
    created = open_new_table(page, {"rules": {"target": 1}, "seats": [EXPERT, EXPERT]})
    assert created["token"] is None
    names = [text["Karim"], text["Layla"]]
    plates = page.locator("#felt .plate")
    expect(plates).to_have_count(2)
    assert sorted(plates.locator(".plate-name").all_inner_texts()) == sorted(names)
    expect(plates.locator(".level-badge")).to_have_text([text["expert"]] * 2)
    shoot(page, tmp_path, f"watcher-{lang}")

    watch_to_the_end(page)
    turns: list[str] = page.evaluate("window.turns")
    for name in names:  # "Layla's turn", never "Computer (expert)'s turn"
        assert text["turn_of"].format(name=name) in turns, turns

    # A watcher sees no pile's cards, only each side's last capture.
    page.get_by_test_id("pile-0").click()
    expect(page.locator("#pile-dialog")).to_be_visible()
    expect(page.locator("#pile-body h3")).to_have_count(1)  # the last capture, no pile
    expect(page.get_by_test_id("pile-cards")).to_have_count(0)
    shoot(page, tmp_path, f"watcher-pile-{lang}")
    page.locator("#pile-close").click()
    expect(page.locator("#pile-dialog")).to_be_hidden()

    check_result_shows_alone(page)
    result = page.get_by_test_id("result")
    winner = result.locator("li.winner .side-name").inner_text()
    assert winner in names
    expect(result.get_by_role("heading", level=2)).to_have_text(
        text["name_won"].format(name=winner))
    expect(page.locator("body")).not_to_contain_text(re.compile("Side|side"),
                                                     use_inner_text=True)
    shoot(page, tmp_path, f"watcher-result-{lang}")


@pytest.mark.parametrize(("viewport", "lang"), [DESKTOP_AR, PHONE_EN])
def test_partners_are_teams_everywhere_and_every_seat_fits(
        pages: Opener, server: str, tmp_path: Path, viewport: ViewportSize, lang: str) -> None:
    text = TEXTS[lang]
    page = new_page(pages, server, viewport, lang, "player")
    created = open_new_table(page, {
        "name": "Amira", "players": 4, "rules": {"target": 1, "partnership": True},
        "seats": [HUMAN, EXPERT, EXPERT, EXPERT]})
    watcher = new_page(pages, server, viewport, lang, "watcher")
    watcher.goto(created["url"])
    expect(watcher.locator("#watching")).to_be_visible()

    for each in (page, watcher):
        expect(each.locator("#table-title")).to_have_text(text["title_4"])
        plate_names = each.locator("#felt .plate-name").all_inner_texts()
        for name in ("Layla", "Nadia", "Sami"):
            assert sum(text[name] in shown for shown in plate_names) == 1, plate_names
        sides = each.get_by_test_id("scores").locator(".side-name")
        for i in (0, 1):
            team = text["team"].format(n=local(i + 1, lang))
            expect(sides.nth(i)).to_have_text(re.compile("^" + re.escape(team)))
        expect(each.locator("body")).not_to_contain_text(re.compile("Side|Computer"),
                                                         use_inner_text=True)
        expect_within_viewport(each)
    assert next_event(page) == "turn"
    shoot(page, tmp_path, f"four-players-{lang}")
    shoot(watcher, tmp_path, f"four-watcher-{lang}")

    play_to_the_end(page)
    check_result_shows_alone(page)
    shoot(page, tmp_path, f"four-result-{lang}")

    def teams_in_the_score() -> None:
        heads = watcher.locator("#score-dialog thead th")
        expect(heads).to_have_text([text["team"].format(n=local(n, lang)) for n in (1, 2)])

    watch_to_the_end(watcher, teams_in_the_score)
    check_result_shows_alone(watcher)
    result = watcher.get_by_test_id("result")
    title = result.get_by_role("heading", level=2).inner_text()
    teams = [text["team_won"].format(n=local(n, lang)) for n in (1, 2)]
    assert title in teams, title
    rows = result.locator(".side-name").all_inner_texts()
    assert [row.split(":")[0] for row in rows] == [text["team"].format(n=local(n, lang))
                                                   for n in (1, 2)]
    expect(watcher.locator("body")).not_to_contain_text(re.compile("Side|side"),
                                                        use_inner_text=True)
    shoot(watcher, tmp_path, f"four-watcher-result-{lang}")


SHOWING = """shown => {
  const box = document.querySelector("[data-testid=announcement]");
  return window.shown.length === shown && box.checkVisibility() &&
    Number(getComputedStyle(box).opacity) === 1;
}"""
"""Whether the ``shown``-th announcement is on screen, fully opaque (mid-animation)."""


@pytest.mark.parametrize(("viewport", "lang"), [DESKTOP_EN, PHONE_AR])
def test_announcements_are_brief_queued_and_clear_of_the_cards(
        pages: Opener, server: str, tmp_path: Path, viewport: ViewportSize, lang: str) -> None:
    text = TEXTS[lang]
    page = new_page(pages, server, viewport, lang)
    sockets: list[WebSocketRoute] = []

    def route(socket: WebSocketRoute) -> None:
        socket.connect_to_server()
        sockets.append(socket)

    page.route_web_socket(re.compile(r"/ws/"), route)
    open_new_table(page, {"name": "Amira", "rules": {"target": 1}, "seats": [HUMAN, EXPERT]})
    assert next_event(page) == "turn"
    page.evaluate("""() => {
      window.shown = [];
      const box = document.querySelector("[data-testid=announcement]");
      new MutationObserver(() => window.shown.push([performance.now(), box.textContent]))
        .observe(box, {childList: true});
    }""")
    notice = json.dumps({"type": "notice", "code": "master_busy", "seat": 1, "message": "…"})
    sockets[-1].send(notice)
    sockets[-1].send(notice)

    banner = page.get_by_test_id("announcement")
    for shown in (1, 2):  # each one, while it shows, is clear of the hand and the floor
        page.wait_for_function(SHOWING, arg=shown)
        expect(banner).to_have_text(text["notice"])
        for place in ("hand", "floor"):
            assert not overlaps(box_of(banner), box_of(page.get_by_test_id(place))), \
                f"the announcement covers the {place}"
        shoot(page, tmp_path, f"announcement-{shown}-{lang}")
    expect(banner).to_be_empty(timeout=4000)

    shown: list[tuple[float, str]] = page.evaluate("window.shown")
    times = [at for at, words in shown if words]
    assert len(times) == 2, f"the two announcements were shown as {shown}"
    gone = next(at for at, words in shown if not words)
    assert 1000 <= times[1] - times[0] <= 2000, "the second did not wait for the first"
    assert gone - times[1] <= 2000, "an announcement stayed over 2 s"


def sounds_of(page: Page) -> list[str]:
    """The latest sounds the page played, oldest first."""
    return body_data(page, "sounds").split()


@pytest.mark.parametrize(("viewport", "lang"), [DESKTOP_EN, PHONE_AR])
def test_sound_is_off_on_a_first_visit_then_remembered(
        pages: Opener, server: str, viewport: ViewportSize, lang: str) -> None:
    text = TEXTS[lang]
    page = new_page(pages, server, viewport, lang)
    open_new_table(page, {"name": "Amira", "rules": {"target": 1}, "seats": [HUMAN, EXPERT]})
    toggle = page.get_by_role("button", name=text["sound"])
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert next_event(page) == "turn"
    play_a_card(page)
    assert next_event(page) in ("turn", "score")
    assert sounds_of(page) == [], "a sound played while sounds were off"

    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    while next_event(page) == "score":
        close_deal_score(page)
    play_a_card(page)
    if next_event(page) == "turn":  # the computer answered: its card, then our turn's chime
        expect(page.locator("body")).to_have_attribute(
            "data-sounds", re.compile("^(play|capture|basra) (play|capture|basra) turn$"))
    else:
        assert sounds_of(page)[0] in ("play", "capture", "basra")

    page.reload()
    expect(page.get_by_role("button", name=text["sound"])).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name=text["sound"]).click()
    page.reload()
    expect(page.get_by_role("button", name=text["sound"])).to_have_attribute(
        "aria-pressed", "false")


COUNT_MOTION = """() => {
  window.motion = [];
  for (const type of ["animationstart", "transitionrun"]) {
    document.addEventListener(type, (event) => {
      const node = event.target;
      if (node.closest && node.closest("#felt, #confetti, .card")) {
        window.motion.push(`${type} ${node.className}`);
      }
    }, true);
  }
}"""


@pytest.mark.parametrize(("viewport", "lang"), [DESKTOP_AR, PHONE_EN])
def test_reduced_motion_runs_no_card_animation(
        pages: Opener, server: str, viewport: ViewportSize, lang: str) -> None:
    motion: dict[str, list[str]] = {}
    for preference in ("no-preference", "reduce"):
        page = new_page(pages, server, viewport, lang, preference, reduced_motion=preference)
        page.context.add_init_script(script=f"({COUNT_MOTION})()")
        open_new_table(page, {"name": "Amira", "rules": {"target": 1},
                              "seats": [HUMAN, EXPERT]})
        for _ in range(3):
            while next_event(page) == "score":
                close_deal_score(page)
            play_a_card(page)
        next_event(page)
        page.wait_for_timeout(500)
        motion[preference] = page.evaluate("window.motion")
        assert page.evaluate("document.getAnimations().length") == 0 or preference != "reduce"
    assert motion["no-preference"], "no animation ran at all: the check sees nothing"
    assert motion["reduce"] == [], f"animations ran with reduced motion: {motion['reduce']}"


@pytest.mark.parametrize(("viewport", "lang"), [DESKTOP_AR, PHONE_EN])
def test_a_player_without_a_name_is_a_guest_and_the_code_sits_by_the_link(
        pages: Opener, server: str, tmp_path: Path, viewport: ViewportSize, lang: str) -> None:
    text = TEXTS[lang]
    host = new_page(pages, server, viewport, lang, "host")
    created = open_new_table(host, {"seats": [HUMAN, HUMAN]})
    expect(host.locator("body")).to_have_attribute("data-status", "waiting")
    expect(host.locator("#table-code")).to_have_text(text["code"].format(code=created["code"]))
    shoot(host, tmp_path, f"waiting-{lang}")

    guest = new_page(pages, server, viewport, lang, "guest")
    guest.goto(created["url"])
    name = guest.locator("#join-name")
    expect(name).to_have_attribute("placeholder", text["guest"].format(n=local(2, lang)))
    guest.locator("#join-button").click()
    for page in (host, guest):
        expect(page.locator("body")).to_have_attribute("data-status", "playing")
        names = page.locator("#felt .plate-name")
        expect(names).to_have_count(2)
        joined = " ".join(names.all_inner_texts())
        assert text["guest"].format(n=local(1, lang)) in joined
        assert text["guest"].format(n=local(2, lang)) in joined
    shoot(guest, tmp_path, f"guests-{lang}")
