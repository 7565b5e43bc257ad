"""The table page at a comfortable glance: the hints in a panel of their own (signed points,
explained) that covers no seat, the Chat button clear of the hand on a phone, card names
that read left to right in Arabic and Persian, the tab's title on your turn and at the end,
the basra announced in words, "The floor is empty" only once the floor is, and no Coach on
the result. At a desk (1280 x 900) and on a phone (390 x 844), in English, Arabic and
Persian.

Tables are made through the API with ``"rules": {"target": 1}`` (a match is one deal)
against the expert computer, so hints are allowed. Where a test needs a position the deal
may not bring (a Jack put back in the stock, a basra), it sends the page one more state
over the page's own socket, made from the last one the server sent. Screenshots of what
each test checked are saved under its ``tmp_path``.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, ViewportSize, WebSocketRoute, expect

from basra.i18n import text
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
    tap_sockets,
)

pytestmark = pytest.mark.e2e

MAX_PLAYS = 60
"""More of one player's plays than a match to 1 takes; a loop past it is a hang."""


DIGITS = {"en": "0123456789", "ar": "٠١٢٣٤٥٦٧٨٩", "fa": "۰۱۲۳۴۵۶۷۸۹"}
DECIMAL = {"en": ".", "ar": "٫", "fa": "٫"}


# Opening and reading pages.


def new_page(pages: Opener, server: str, viewport: ViewportSize, lang: str) -> Page:
    """A page in a browser context of its own, in ``lang`` (as the language switch
    leaves it in localStorage)."""
    context = pages.browser.new_context(viewport=viewport, locale="en-US", base_url=server)
    context.set_default_timeout(TIMEOUT_MS)
    pages.contexts.append(context)
    page = pages.page(lang, context=context)
    page.goto("/")
    page.evaluate("lang => localStorage.setItem('basra.lang', lang)", lang)
    return page


def open_new_table(page: Page, players: int = 2) -> dict[str, Any]:
    """A table of the page's player against the expert (partners at four), opened; the
    API's answer."""
    body = {"name": "Amira", "rules": {"target": 1}, "players": players,
            "partnership": players == 4, "seats": [HUMAN] + [EXPERT] * (players - 1)}
    created: dict[str, Any] = page.evaluate(CREATE_TABLE, body)
    assert "code" in created, created
    page.goto(created["url"])
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    return created


NO_GHOSTS = "() => !document.querySelector('#floor .ghost')"
"""Whether the floor holds no card on its way to a pile."""


def next_event(page: Page) -> str:
    event: str = page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value()
    return event


def seq_of(page: Page) -> int:
    return int(page.locator("body").get_attribute("data-seq") or 0)


def play_a_card(page: Page) -> None:
    """Plays the first playable card (the first capture offered) and waits for it."""
    before = seq_of(page)
    page.get_by_test_id("hand").locator('button[aria-disabled="false"]').first.click()
    outcome = page.wait_for_function(PLAYED_OR_CHOOSING, arg=before,
                                     timeout=TURN_TIMEOUT_MS).json_value()
    if outcome == "choose":
        page.locator("#capture-options button").first.click()
    page.wait_for_function("before => document.body.dataset.seq !== String(before)",
                           arg=before, timeout=TURN_TIMEOUT_MS)


Box = dict[str, float]


def box_of(locator: Locator) -> Box:
    box = locator.bounding_box()
    assert box is not None, f"{locator} has no box"
    return {"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]}


def overlaps(a: Box, b: Box) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def expect_clear(what: str, box: Box, others: Locator) -> None:
    """``box`` overlaps none of the visible elements of ``others``."""
    for other in others.all():
        if not other.is_visible():
            continue
        assert not overlaps(box, box_of(other)), \
            f"{what} at {box} covers {other.inner_text()!r} at {box_of(other)}"


def luminance(css: str) -> float:
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", css)[:3])
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
              for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(page: Page, selector: str, background: str) -> float:
    """The contrast ratio of the text of ``selector`` on the (opaque) background of
    ``background``, as WCAG computes it."""
    colors: list[str] = page.evaluate(
        "([a, b]) => [getComputedStyle(document.querySelector(a)).color,"
        " getComputedStyle(document.querySelector(b)).backgroundColor]", [selector, background])
    assert "rgba" not in colors[1], f"{background} has no opaque background: {colors[1]}"
    light, dark = sorted((luminance(colors[0]), luminance(colors[1])), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def number_of(shown: str, lang: str) -> float:
    """A number as ``lang`` writes it ("١٢٫٥") as a float."""
    western = shown.translate(str.maketrans(DIGITS[lang], "0123456789"))
    return float(western.replace(DECIMAL[lang], "."))


def shoot(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"))


# The hints.

HINT_CASES = [
    pytest.param(VIEWPORT, "en", 2, id="desktop-en"),
    pytest.param(VIEWPORT, "ar", 2, id="desktop-ar"),
    pytest.param(VIEWPORT, "fa", 2, id="desktop-fa"),
    pytest.param(PHONE, "en", 2, id="phone-en"),
    pytest.param(PHONE, "ar", 2, id="phone-ar"),
    pytest.param(VIEWPORT, "en", 4, id="desktop-en-4"),
    pytest.param(PHONE, "ar", 4, id="phone-ar-4"),
]


@pytest.mark.parametrize(("viewport", "lang", "players"), HINT_CASES)
def test_the_hints_have_their_own_place_and_say_what_their_points_mean(
        pages: Opener, server: str, tmp_path: Path, viewport: ViewportSize, lang: str,
        players: int) -> None:
    page = new_page(pages, server, viewport, lang)
    created = open_new_table(page, players)
    for _ in range(2):  # a turn into the deal: the piles and last captures have something
        assert next_event(page) == "turn"
        play_a_card(page)
    assert next_event(page) == "turn"
    your_turn = text(lang, "your_turn")
    expect(page).to_have_title(re.compile(f"^{re.escape(your_turn)} · "))
    # The cards the last capture took leave the floor for 750 ms and hold their places
    # till then; the floor may lose a row when they go. The layout is read once they have.
    page.wait_for_function(NO_GHOSTS)

    floor_before = box_of(page.get_by_test_id("floor"))
    page.locator("#hint-button").click()
    panel = page.get_by_test_id("hints")
    moves = panel.locator(".hint-moves li")
    expect(moves.first).to_be_visible()
    card = panel.locator(".hint-card")
    expect(card.locator(".hint-title")).to_have_text(text(lang, "hint_title"))

    # Each move's value: the server's, in signed points, in the page's digits.
    answer: dict[str, Any] = page.evaluate(
        "async ([code, token]) => (await fetch(`/api/tables/${code}/hint?token=${token}`)).json()",
        [created["code"], created["token"]])
    expect(card.locator(".hint-explain")).to_have_text(
        text(lang, "hint_explain_exact" if answer["exact"] else "hint_explain"))
    expect(moves).to_have_count(len(answer["moves"]))
    points = {"en": r"points?", "ar": r"(?:نقطة|نقاط)", "fa": r"امتیاز"}[lang]
    digits = f"[{DIGITS[lang]}]"
    shape = re.compile(f"^([+−]?)({digits}+{re.escape(DECIMAL[lang])}{digits}) {points}$")
    for row, move in zip(moves.all(), answer["moves"], strict=True):
        assert row.get_attribute("data-move") == move["move"]
        shown = row.locator(".hint-value").inner_text()
        found = shape.match(shown)
        assert found, f"{shown!r} is not a signed number of points in {lang}"
        size = number_of(found[2], lang)
        sign = "" if size == 0 else "+" if move["value"] > 0 else "−"
        assert found[1] == sign and abs(size - abs(move["value"])) <= 0.05 + 1e-9, \
            f"{move['move']} is worth {move['value']}, shown as {shown!r}"

    # Dark text on the panel's paper: readable (WCAG AA, 4.5:1 and more).
    for part in (".hint-title", ".hint-explain", ".hint-moves li .hint-value",
                 ".hint-moves li .hint-move"):
        ratio = contrast(page, f"#hint-panel {part}", "#hint-panel .hint-card")
        assert ratio >= 4.5, f"{part} has a contrast of {ratio:.1f} on the panel"

    # Its own place: over no seat, no card, not the middle of the table; the middle
    # stays where it was (at a desk) and "Your turn" and the last play clear the seats.
    shoot(page, tmp_path, f"hints-{lang}-{players}")
    hints = box_of(card)
    felt = box_of(page.locator("#felt"))
    assert felt["x"] <= hints["x"] and hints["x"] + hints["width"] <= felt["x"] + felt["width"], \
        f"the hint panel at {hints} sticks out of the table at {felt}"
    seat_labels = page.locator("#felt .plate, #felt .tray-name, #felt .backs-row, "
                               "#felt .pile, #felt .last-capture")
    expect_clear("the hint panel", hints, seat_labels)
    expect_clear("the hint panel", hints, page.locator("#hand .card, #floor, .turn-row, "
                                                       "#last-play"))
    expect_clear('"Your turn"', box_of(page.get_by_test_id("turn")), page.locator("#felt .plate"))
    expect_clear("the last play", box_of(page.get_by_test_id("last-play")),
                 page.locator("#felt .plate"))
    if viewport == VIEWPORT:
        assert box_of(page.get_by_test_id("floor")) == floor_before, "the hints moved the floor"
    size = page.viewport_size
    assert size is not None
    assert hints["y"] >= 0 and hints["y"] + hints["height"] <= size["height"], \
        f"the hint panel at {hints} is not in view"
    expect_clear("the Chat button", box_of(page.locator("#chat-toggle")), card)

    # It closes; it goes when the turn does; the tab's title too.
    panel.get_by_role("button", name=text(lang, "close")).click()
    expect(panel).to_be_hidden()
    page.locator("#hint-button").click()
    expect(moves.first).to_be_visible()
    page.evaluate("""() => {
      window.titles = [];
      new MutationObserver(() => window.titles.push(document.title))
        .observe(document.querySelector("title"), {childList: true});
    }""")
    play_a_card(page)
    expect(panel).to_be_hidden()
    page.wait_for_function("mine => window.titles.some(title => !title.startsWith(mine))",
                           arg=your_turn)


# The Chat button on a phone.


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_on_a_phone_the_chat_button_covers_no_card_of_the_hand(
        pages: Opener, server: str, tmp_path: Path, lang: str) -> None:
    page = new_page(pages, server, PHONE, lang)
    open_new_table(page)
    assert next_event(page) == "turn"
    chat = page.locator("#chat-toggle")
    expect(chat).to_be_visible()
    cards = page.get_by_test_id("hand").locator(".card")
    assert cards.count() == 4
    button = box_of(chat)
    for card in cards.all():  # every card, as it is and lifted under the pointer
        code = card.get_attribute("data-card")
        assert not overlaps(button, box_of(card)), f"the Chat button covers {code}"
        card.hover()
        assert not overlaps(button, box_of(card)), f"the Chat button covers {code}, lifted"
    shoot(page, tmp_path, f"phone-chat-{lang}")


# Injected states: a Jack put back in the stock, a basra that empties the floor.


def routed_page(pages: Opener, server: str, viewport: ViewportSize, lang: str
                ) -> tuple[Page, list[WebSocketRoute], list[dict[str, Any]]]:
    """A page whose table socket passes through the test: the routes, and the states
    the server sent (newest last)."""
    page = new_page(pages, server, viewport, lang)
    sockets, states = tap_sockets(page)
    return page, sockets, states


def a_basra_by(state: dict[str, Any], seat: int) -> dict[str, Any]:
    """``state``, one play later: ``seat`` took the whole floor with J♣ (a basra), and J♠
    had come up and gone back into the stock."""
    after = copy.deepcopy(state)
    deal = after["deal"]
    taken = list(deal["floor"])
    after["seq"] = state["seq"] + 1
    after["last_play"] = {"seat": seat, "card": "JC", "captured": taken, "basra": True}
    deal["floor"] = []
    deal["buried"] = ["JS"]
    side = seat % len(deal["pile_counts"])
    deal["pile_counts"][side] += len(taken) + 1
    deal["basras"][side] += 1
    deal["last_captures"][side] = {"seat": seat, "card": "JC", "captured": taken}
    deal["to_play"] = 1 - seat
    after["legal"] = []
    return after


SAMPLE_FLOOR = """() => {
  window.floorSamples = [];
  window.crossings = [];
  const floor = document.getElementById("floor");
  const labels = [...document.querySelectorAll("#turn, #hint-button, .coach-toggle")]
    .filter(label => label.checkVisibility());
  const sample = () => {
    const ghosts = [...floor.querySelectorAll(".ghost")];
    window.floorSamples.push([ghosts.length, getComputedStyle(floor, "::after").content]);
    for (const ghost of ghosts) {
      ghost.style.pointerEvents = "auto"; // (they let the pointer through: here they may be hit)
      const a = ghost.getBoundingClientRect();
      for (const label of labels) {
        const b = label.getBoundingClientRect();
        const left = Math.max(a.left, b.left), right = Math.min(a.right, b.right);
        const top = Math.max(a.top, b.top), bottom = Math.min(a.bottom, b.bottom);
        if (right - left < 2 || bottom - top < 2) continue;
        const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
        window.crossings.push([label.id || label.className, Boolean(hit?.closest(".ghost"))]);
      }
    }
    if (window.floorSamples.length < 150) requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
}"""
"""Samples, each frame for a while, the cards still flying off the floor and what the
floor says of itself ("none" while it says nothing); and where a flying card crosses
"Your turn", Hint or Coach, which of the two is drawn on top."""

CHARACTER_XS = """cards => cards.map(card => {
  const text = card.firstChild;
  const range = document.createRange();
  const xs = [];
  for (let i = 0; i < text.data.length; i++) {
    if (text.data[i] === "\\uFE0E") continue;  // the text-style selector draws nothing
    range.setStart(text, i);
    range.setEnd(text, i + 1);
    xs.push([text.data[i], range.getBoundingClientRect().left]);
  }
  return [card.dataset.code, xs];
})"""
"""Each mini card's characters with the left edge where each one is drawn."""


@pytest.mark.parametrize(("viewport", "lang"), [
    pytest.param(VIEWPORT, "ar", id="desktop-ar"),
    pytest.param(PHONE, "fa", id="phone-fa"),
    pytest.param(VIEWPORT, "en", id="desktop-en"),
    pytest.param(PHONE, "ar", id="phone-ar"),
])
def test_a_basra_is_announced_in_words_flies_under_the_labels_and_jacks_read_j_first(
        pages: Opener, server: str, tmp_path: Path, viewport: ViewportSize, lang: str) -> None:
    page, sockets, states = routed_page(pages, server, viewport, lang)
    open_new_table(page)
    for _ in range(MAX_PLAYS):  # our turn, with cards on the floor
        assert next_event(page) == "turn"
        state = states[-1]
        if state["seq"] == seq_of(page) and state["deal"]["floor"]:
            break
        play_a_card(page)
    else:
        pytest.fail("the floor was never without cards at our turn")

    # The computer takes the whole floor: the cards fly to its pile, and only then does
    # the floor say it is empty.
    page.evaluate(SAMPLE_FLOOR)
    sockets[-1].send(json.dumps(a_basra_by(state, 1)))
    banner = page.get_by_test_id("announcement")
    expect(banner).to_have_text(text(lang, "basra_by", name=_bot_name(page)))
    page.wait_for_function("() => window.floorSamples.length >= 150", timeout=10_000)
    samples: list[list[Any]] = page.evaluate("window.floorSamples")
    flying = [content for ghosts, content in samples if ghosts]
    assert flying, "no card flew off the floor"
    assert all(content == "none" for content in flying), \
        f"the floor said it was empty while cards were still on it: {set(flying)}"
    assert samples[-1] == [0, json.dumps(text(lang, "empty_floor"), ensure_ascii=False)], \
        samples[-1]
    # Flying up to the computer's pile, the cards pass under "Your turn", Hint and Coach.
    crossings: list[list[Any]] = page.evaluate("window.crossings")
    assert crossings, "no card flew across the turn's line"
    over = {label for label, ghost_on_top in crossings if ghost_on_top}
    assert not over, f"flying cards were drawn over {over}"

    # Right to left too, J♣ (last capture) and J♠ (put back in the stock) read J first:
    # the J is drawn left of its suit, as 7♦ and A♣ are.
    cards = page.locator("#stock .mini-card, [data-testid^=last-capture] .mini-card")
    expect(page.locator("#stock [data-code=JS]")).to_be_visible()
    measured: list[list[Any]] = cards.evaluate_all(CHARACTER_XS)
    jacks = [code for code, _ in measured if code.startswith("J")]
    assert "JS" in jacks and "JC" in jacks, measured
    for code, xs in measured:
        lefts = [x for _, x in xs]
        assert lefts == sorted(lefts) and len(set(lefts)) == len(lefts), \
            f"{code} is drawn as {''.join(c for c, _ in sorted(xs, key=lambda p: p[1]))!r}"
    shoot(page, tmp_path, f"basra-{lang}")

    # Our own basra is ours in words: "You score a basra!", not "You scores".
    sockets[-1].send(json.dumps(a_basra_by(state | {"seq": state["seq"] + 1}, 0)))
    expect(banner).to_have_text(text(lang, "look_basra_you"))


def _bot_name(page: Page) -> str:
    """The computer's name as the page shows it on its plate."""
    name: str = page.locator("#felt .plate.bot .plate-name").inner_text()
    return name


# The end of a match.


@pytest.mark.parametrize(("viewport", "lang"), [
    pytest.param(VIEWPORT, "en", id="desktop-en"),
    pytest.param(PHONE, "ar", id="phone-ar"),
])
def test_the_tab_tells_the_result_and_the_result_shows_no_coach(
        pages: Opener, server: str, tmp_path: Path, viewport: ViewportSize, lang: str) -> None:
    page = new_page(pages, server, viewport, lang)
    open_new_table(page)
    expect(page.locator("#coach-mode")).to_be_visible(timeout=TURN_TIMEOUT_MS)
    for _ in range(MAX_PLAYS):
        event = next_event(page)
        if event == "result":
            break
        if event == "score":
            page.locator("#score-continue").click()
        else:
            play_a_card(page)
    else:
        pytest.fail(f"no result after {MAX_PLAYS} plays with a target of 1")
    result = page.get_by_test_id("result")
    expect(result).to_be_visible()
    outcome = page.locator("#result-title").inner_text()
    assert outcome in {text(lang, "you_won"), text(lang, "you_lost"), text(lang, "draw")}
    expect(page).to_have_title(re.compile(f"^{re.escape(outcome)} · "))
    expect(page.locator("#coach-mode")).to_be_hidden()
    expect(page.locator("#coach-controls")).to_be_hidden()
    expect(page.get_by_test_id("hints")).to_be_hidden()
    shoot(page, tmp_path, f"result-{lang}")
