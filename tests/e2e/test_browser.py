"""The web app in a real browser: lobby, table, replay, two players, reload, Arabic, keys.

Each test drives headless Chromium through the pages as a player would (by the
accessible names of buttons and fields, and by the keyboard) against a real
``basra serve`` (see ``conftest.py``). The pages expose testing hooks: ``data-*``
attributes on ``<body>`` (seq, status, to-play, my-seat, deal) and ``data-testid`` on the
hand, floor, scores, turn, last-play and result areas; hand cards carry ``data-card``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect
from websockets.sync.client import connect

from basra.record import replay
from tests.support.browsing import NEXT_EVENT, PLAYED_OR_CHOOSING, TABLE_URL, TURN_TIMEOUT_MS

pytestmark = pytest.mark.e2e

OpenPage = Callable[..., Page]

CARD_NAME = re.compile(r"^(ace|[2-9]|10|jack|queen|king) of (spades|hearts|diamonds|clubs)$")
ARABIC_CARD_NAME = re.compile(r"^(آص|ولد|بنت|شايب|[٢-٩]|١٠) (بستوني|كبة|ديناري|سباتي)$")
DEAL_SCORE = re.compile(r"^Deal (\d+) score$")

MAX_PLAYS = 300
"""More of a player's own plays than any match to 101 takes; a loop past it is a hang."""


# Reading the page.


def body_data(page: Page, name: str) -> str:
    return page.locator("body").get_attribute(f"data-{name}") or ""


def seq_of(page: Page) -> int:
    return int(body_data(page, "seq"))


def hand_buttons(page: Page) -> Locator:
    return page.get_by_test_id("hand").locator("button[data-card]")


def hand_of(page: Page) -> list[str]:
    """The page's own hand, in order, as card codes."""
    cards: list[str] = hand_buttons(page).evaluate_all("ns => ns.map(n => n.dataset.card)")
    return cards


def floor_of(page: Page) -> set[str]:
    cards: list[str] = page.get_by_test_id("floor").locator("[data-card]").evaluate_all(
        "ns => ns.map(n => n.dataset.card)")
    return set(cards)


def seen_cards(page: Page) -> tuple[set[str], str]:
    """The card codes (``data-card``, ``data-code``) and the accessible labels anywhere in
    the page but its last-play line (which may show the previous deal's last play, whose
    cards a new deal can deal again) and the cards buried this deal (every seat saw them
    face up on the first floor before they went back into the stock, to be dealt again)."""
    seen: dict[str, Any] = page.evaluate("""() => {
      const nodes = [...document.querySelectorAll("[data-card], [data-code], [aria-label]")]
        .filter(n => !n.closest("[data-testid=last-play], [data-testid=buried]"));
      return {
        codes: nodes.flatMap(n => [n.dataset.card, n.dataset.code]).filter(Boolean),
        labels: nodes.map(n => n.getAttribute("aria-label") || "").join("\\n"),
      };
    }""")
    return set(seen["codes"]), seen["labels"]


def english_name(card: str) -> str:
    """``"QS"`` -> ``"queen of spades"``, as the pages name cards in English."""
    ranks = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
    suits = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    return f"{ranks.get(card[:-1], card[:-1])} of {suits[card[-1]]}"


def next_event(page: Page) -> str:
    event: str = page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value()
    return event


def wait_for_seq(page: Page, seq: int) -> None:
    expect(page.locator("body")).to_have_attribute("data-seq", str(seq),
                                                   timeout=TURN_TIMEOUT_MS)


FOCUS_REPORT = """() => ({
  active: document.activeElement ? document.activeElement.outerHTML.slice(0, 200) : null,
  dialogs: [...document.querySelectorAll("dialog[open]")].map((d) => d.id),
  seq: document.body.dataset.seq, toPlay: document.body.dataset.toPlay,
  hand: [...document.querySelectorAll("[data-testid=hand] button")].map(
    (b) => `${b.dataset.card}:${b.getAttribute("aria-disabled")}`),
})"""


def focus_report(page: Page) -> str:
    """Where the page's focus is, its open dialogs and its hand: what a failed focus
    check needs to be understood."""
    return json.dumps(page.evaluate(FOCUS_REPORT))


def expect_focused(page: Page, locator: Locator, what: str) -> None:
    """Fails, saying ``what`` and :func:`focus_report`, unless ``locator`` gets the focus."""
    try:
        expect(locator).to_be_focused()
    except AssertionError as error:
        raise AssertionError(f"{what}: {focus_report(page)}") from error


def playable_indexes(page: Page) -> list[int]:
    states: list[str] = hand_buttons(page).evaluate_all(
        "ns => ns.map(n => n.getAttribute('aria-disabled'))")
    return [i for i, disabled in enumerate(states) if disabled == "false"]


# Acting on the page.


def start_quick_game(page: Page, name: str) -> None:
    page.goto("/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Quick game").click()
    page.wait_for_url(TABLE_URL)
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    expect(page.locator("body")).to_have_attribute("data-my-seat", "0")


def dismiss_deal_score(page: Page, deal: int | None = None, *, keyboard: bool = False) -> None:
    """Closes the open deal score dialog with its Continue button (by Enter if
    ``keyboard``); checks it is the score of deal ``deal`` when given."""
    dialog = page.get_by_role("dialog", name=DEAL_SCORE)
    expect(dialog).to_be_visible()
    if deal is not None:
        expect(dialog).to_have_accessible_name(f"Deal {deal} score")
    button = dialog.get_by_role("button", name="Continue")
    if keyboard:
        expect(button).to_be_focused()
        page.keyboard.press("Enter")
    else:
        button.click()
    expect(dialog).to_be_hidden()


def dismiss_deal_score_and_press_at_once(page: Page) -> bool:
    """Closes the open score dialog of the first deal and presses the number key of the hand's last
    card in the same moment, before the dialog's close event comes (a quick player's
    keys): the card keyed keeps the focus, where the dialog's return of the focus to the
    hand would move it to the first playable card. False, and nothing done, where the
    hand holds fewer than two cards (the match is over)."""
    dialog = page.get_by_role("dialog", name=DEAL_SCORE)
    expect(dialog).to_be_visible()
    expect(dialog).to_have_accessible_name("Deal 1 score")
    count = hand_buttons(page).count()
    if count < 2:
        return False
    page.evaluate("""key => new Promise((resolve) => {
      const dialog = document.getElementById("score-dialog");
      dialog.addEventListener("close", () => setTimeout(resolve, 0), { once: true });
      document.getElementById("score-continue").click();
      document.body.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
    })""", str(count))
    expect(dialog).to_be_hidden()
    expect_focused(page, hand_buttons(page).nth(count - 1),
                   f"key {count} pressed as the deal score closed lost its focus")
    return True


def choose_first_capture(page: Page, *, keyboard: bool) -> None:
    dialog = page.get_by_role("dialog", name="Choose a capture")
    expect(dialog).to_be_visible()
    first = dialog.get_by_role("button").first
    expect(first).not_to_have_accessible_name("Cancel")
    if keyboard:
        expect(first).to_be_focused()
        page.keyboard.press("Enter")
    else:
        first.click()
    expect(dialog).to_be_hidden()


def play_turn(page: Page, choice: int, *, keyboard: bool) -> str:
    """Plays a card on the page whose turn it is: the ``choice``-th playable card (mod
    their number) by its number key and Enter, or by a click; takes the first capture
    offered if the capture dialog opens. Returns the card; waits until the server took it.
    """
    indexes = playable_indexes(page)
    assert indexes, f"no playable card in {hand_of(page)} on the player's turn"
    index = indexes[choice % len(indexes)]
    button = hand_buttons(page).nth(index)
    card = button.get_attribute("data-card") or ""
    before = seq_of(page)
    if keyboard:
        page.keyboard.press(str(index + 1))
        expect_focused(page, button, f"key {index + 1} did not focus {card}")
        page.keyboard.press("Enter")
    else:
        button.click()
    outcome = page.wait_for_function(PLAYED_OR_CHOOSING, arg=before,
                                     timeout=TURN_TIMEOUT_MS).json_value()
    if outcome == "choose":
        choose_first_capture(page, keyboard=keyboard)
    page.wait_for_function("before => document.body.dataset.seq !== String(before)",
                           arg=before, timeout=TURN_TIMEOUT_MS)
    expect(page.locator("#alert")).to_be_empty()
    return card


def server_hand(base: str, code: str, token: str) -> list[str]:
    """The seat's hand as the server sends it to that seat's own socket."""
    url = base.replace("http://", "ws://") + f"/ws/{code}?token={token}"
    with connect(url, open_timeout=10) as socket:
        while True:
            message = json.loads(socket.recv(timeout=10))
            if message["type"] == "state":
                hand: list[str] = message["deal"]["hand"]
                return hand


def stored_token(page: Page, code: str) -> str:
    stored: dict[str, Any] = page.evaluate(
        "code => JSON.parse(localStorage.getItem('basra.token.' + code))", code)
    token: str = stored["token"]
    return token


def table_code(page: Page) -> str:
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def x_of(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None, f"{locator} has no box"
    return box["x"]


# The tests.


def test_quick_game_to_the_result_by_keyboard_then_record_and_replay(
        open_page: OpenPage) -> None:
    page = open_page()
    start_quick_game(page, "Amira")
    expect(page.get_by_test_id("scores")).to_contain_text("Amira")

    deals_scored = 0
    for ply in range(MAX_PLAYS):
        event = next_event(page)
        if event == "score":
            deals_scored += 1
            if deals_scored > 1 or not dismiss_deal_score_and_press_at_once(page):
                dismiss_deal_score(page, deals_scored, keyboard=True)
        elif event == "result":
            break
        else:
            play_turn(page, ply, keyboard=True)
    else:
        pytest.fail(f"no result after {MAX_PLAYS} of the player's turns")
    assert deals_scored >= 1, "the match ended without a deal score dialog"

    result = page.get_by_test_id("result")
    expect(result).to_be_visible()
    title = result.get_by_role("heading", level=2)
    expect(title).to_have_text(re.compile(r"^You (won|lost)$"))
    won = title.inner_text() == "You won"
    rows = result.get_by_role("listitem")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("Amira")
    totals = [int(row.locator("strong").inner_text()) for row in rows.all()]
    assert max(totals) >= 101, f"the match ended at {totals}, under the target 101"
    expect(page.get_by_test_id("turn")).to_have_text("Match over")
    expect(result.get_by_role("button", name="Rematch")).to_be_visible()

    with page.expect_download() as download_info:
        result.get_by_role("link", name="Download record").click()
    download = download_info.value
    assert re.fullmatch(r"basra-\d+\.json", download.suggested_filename)
    record = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert record["format"] == "basra-record/1"
    assert record["players"][0]["name"] == "Amira"
    match = replay(record)  # raises RecordError on any play or score that is off
    assert match.is_over
    assert list(match.totals) == totals == record["result"]["totals"]
    assert (match.winner == 0) == won
    assert len(record["deals"]) == deals_scored

    result.get_by_role("link", name="Replay").click()
    page.wait_for_url(re.compile(r"/replay/\d+$"))
    frames = sum(len(deal["plays"]) + 1 for deal in record["deals"])
    counter = page.locator("#counter")
    expect(counter).to_have_text(f"Step 1 of {frames}")
    expect(page.locator("body")).to_have_attribute("data-frame", "0")
    page.get_by_role("button", name="Next").click()
    expect(counter).to_have_text(f"Step 2 of {frames}")
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"Step 3 of {frames}")
    second_card = record["deals"][0]["plays"][1]["card"]  # what the third frame shows
    expect(page.get_by_test_id("last-play").locator(f'[data-code="{second_card}"]')
           ).to_have_count(1)
    page.keyboard.press("End")
    expect(counter).to_have_text(f"Step {frames} of {frames}")


def test_two_players_at_one_table_see_only_their_own_hands(
        open_page: OpenPage, server: str) -> None:
    amira = open_page("A")
    amira.goto("/")
    amira.get_by_label("Your name").fill("Amira")
    amira.get_by_label("Target score").fill("1")  # the match ends with its first deal
    amira.get_by_label("Seat 2", exact=True).select_option("human")
    amira.get_by_role("button", name="Create table").click()
    amira.wait_for_url(TABLE_URL)
    expect(amira.locator("body")).to_have_attribute("data-status", "waiting")
    link = amira.get_by_label("Share this link").input_value()
    code = table_code(amira)
    assert link == f"{server}/t/{code}"

    omar = open_page("B")
    omar.goto(link)
    omar.get_by_label("Your name").fill("Omar")
    omar.get_by_role("button", name="Join").click()
    for page, seat in ((amira, "0"), (omar, "1")):
        expect(page.locator("body")).to_have_attribute("data-status", "playing")
        expect(page.locator("body")).to_have_attribute("data-my-seat", seat)
        expect(page.get_by_test_id("scores")).to_contain_text("Amira")
        expect(page.get_by_test_id("scores")).to_contain_text("Omar")
    expect(amira.locator("#felt")).to_contain_text("Amira (You)")
    expect(omar.locator("#felt")).to_contain_text("Omar (You)")
    tokens = {0: stored_token(amira, code), 1: stored_token(omar, code)}
    pages = {0: amira, 1: omar}

    plays = 0
    deals_scored = 0
    while True:
        seq = seq_of(amira)
        wait_for_seq(omar, seq)
        open_dialogs = [p for p in pages.values()
                        if p.get_by_role("dialog", name=DEAL_SCORE).is_visible()]
        if open_dialogs:
            assert len(open_dialogs) == 2, "only one player was shown the deal score"
            deals_scored += 1
            for page in pages.values():
                dismiss_deal_score(page, deals_scored)
        if amira.get_by_test_id("result").is_visible():
            break
        assert plays < 120, "no result after 120 plays (five deals) with a target of 1"

        hands = {seat: hand_of(page) for seat, page in pages.items()}
        for seat, page in pages.items():
            other = 1 - seat
            assert hands[seat] == server_hand(server, code, tokens[seat])
            assert not set(hands[seat]) & set(hands[other])
            codes, labels = seen_cards(page)
            assert set(hands[seat]) <= codes
            for card in hands[other]:
                assert card not in codes, f"seat {seat} can see {card} of seat {other}"
                assert english_name(card) not in labels, \
                    f"seat {seat} can see {card} of seat {other} in {labels!r}"
            # The opponent's hand is only backs, as many as the cards they hold.
            opponent = page.locator("#felt .seat").filter(has=page.locator(".backs"))
            expect(opponent.locator(".card.back")).to_have_count(len(hands[other]))
            expect(opponent.locator(".count-badge")).to_have_text(str(len(hands[other])))
            expect(opponent.locator("[data-card]")).to_have_count(0)

        to_play = int(body_data(amira, "to-play"))
        assert body_data(omar, "to-play") == str(to_play)
        mover, waiter = pages[to_play], pages[1 - to_play]
        expect(waiter.get_by_test_id("turn")).to_have_text(
            f"{'Amira' if to_play == 0 else 'Omar'}'s turn")
        expect(waiter.get_by_test_id("hand").locator('[aria-disabled="false"]')).to_have_count(0)
        deal = body_data(mover, "deal")
        card = play_turn(mover, plays, keyboard=False)
        plays += 1
        wait_for_seq(amira, seq + 1)
        wait_for_seq(omar, seq + 1)
        assert floor_of(amira) == floor_of(omar)
        if body_data(mover, "deal") == deal:
            assert card not in hand_of(mover)
        for page in pages.values():
            expect(page.get_by_test_id("last-play")).to_contain_text("played")

    assert plays >= 24, f"the match ended after {plays} plays, before a whole deal"
    assert deals_scored >= 1
    titles = {seat: page.get_by_test_id("result").get_by_role("heading", level=2)
              for seat, page in pages.items()}
    texts = sorted(title.inner_text() for title in titles.values())
    assert texts in (["You lost", "You won"], ["Draw", "Draw"]), texts


def test_a_reload_in_the_middle_of_a_deal_comes_back_to_the_same_seat_and_cards(
        open_page: OpenPage) -> None:
    page = open_page()
    start_quick_game(page, "Amira")
    plays = 0
    while plays < 3:
        if next_event(page) == "score":
            dismiss_deal_score(page)
            continue
        play_turn(page, plays, keyboard=True)
        plays += 1
    assert next_event(page) == "turn"  # the computer waits for us: nothing moves now

    seat = body_data(page, "my-seat")
    hand = hand_of(page)
    floor = floor_of(page)
    seq = seq_of(page)
    scores = page.get_by_test_id("scores").inner_text()
    assert hand and seq >= 5

    page.reload()
    wait_for_seq(page, seq)
    expect(page.locator("#join-panel")).to_be_hidden()
    assert body_data(page, "my-seat") == seat
    assert hand_of(page) == hand
    assert floor_of(page) == floor
    expect(page.get_by_test_id("scores")).to_have_text(scores, use_inner_text=True)
    expect(page.get_by_test_id("turn")).to_have_text("Your turn")

    assert next_event(page) == "turn"
    play_turn(page, 0, keyboard=True)
    assert seq_of(page) > seq
    if next_event(page) == "score":
        dismiss_deal_score(page)
    assert next_event(page) == "turn"
    assert seq_of(page) >= seq + 2  # the computer answered after the reload


def test_arabic_mirrors_the_layout_and_names_cards_in_arabic(open_page: OpenPage) -> None:
    page = open_page()
    page.goto("/")
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "en")
    expect(html).to_have_attribute("dir", "ltr")
    new_table = page.locator("section[aria-labelledby=new-title]")
    open_tables = page.locator("section[aria-labelledby=tables-title]")
    assert x_of(new_table) < x_of(open_tables)

    page.get_by_role("button", name="العربية").click()
    expect(html).to_have_attribute("lang", "ar")
    expect(html).to_have_attribute("dir", "rtl")
    expect(page.get_by_role("button", name="لعبة سريعة")).to_be_visible()
    expect(page.get_by_role("button", name="Quick game")).to_have_count(0)
    assert x_of(new_table) > x_of(open_tables), "the lobby's columns are not mirrored"
    assert page.evaluate("localStorage.getItem('basra.lang')") == "ar"

    page.reload()
    expect(html).to_have_attribute("lang", "ar")
    expect(html).to_have_attribute("dir", "rtl")
    page.get_by_label("اسمك").fill("أميرة")
    page.get_by_role("button", name="لعبة سريعة").click()
    page.wait_for_url(TABLE_URL)
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    expect(html).to_have_attribute("dir", "rtl")
    assert next_event(page) == "turn"
    expect(page.get_by_test_id("turn")).to_have_text("دورك")
    buttons = hand_buttons(page)
    expect(buttons).to_have_count(4)
    for button in buttons.all():
        expect(button).to_have_accessible_name(ARABIC_CARD_NAME)
    mine = page.get_by_test_id("scores").locator(".score-side.mine")
    theirs = page.get_by_test_id("scores").locator(".score-side:not(.mine)")
    assert x_of(mine) > x_of(theirs), "the scores are not mirrored in Arabic"
    assert x_of(buttons.first) > x_of(buttons.last), "the hand is not mirrored in Arabic"

    page.get_by_role("button", name="English").click()
    expect(html).to_have_attribute("lang", "en")
    expect(html).to_have_attribute("dir", "ltr")
    expect(page.get_by_test_id("turn")).to_have_text("Your turn")
    for button in buttons.all():
        expect(button).to_have_accessible_name(CARD_NAME)
    assert x_of(mine) < x_of(theirs)
    assert x_of(buttons.first) < x_of(buttons.last)

    page.reload()
    expect(html).to_have_attribute("lang", "en")
    expect(page.get_by_role("button", name="العربية")).to_be_visible()
    assert page.evaluate("localStorage.getItem('basra.lang')") == "en"


def test_keyboard_only_reaches_and_plays_the_hand_cards(open_page: OpenPage) -> None:
    page = open_page()
    page.goto("/")
    name = page.get_by_label("Your name")
    for _ in range(40):  # past the header's links, account and language menu
        if name.evaluate("n => n === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(name).to_be_focused()
    page.keyboard.type("Amira")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Quick game")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(TABLE_URL)

    for _turn in range(3):
        while (event := next_event(page)) == "score":
            dismiss_deal_score(page, keyboard=True)
        assert event == "turn"
        buttons = hand_buttons(page)
        cards = hand_of(page)
        assert cards
        for button in buttons.all():
            expect(button).to_have_accessible_name(CARD_NAME)
            expect(button).to_have_attribute("aria-disabled", "false")

        # From the top of the page, Tab reaches the hand and walks it card by card.
        page.get_by_role("link", name="Basra").focus()
        reached = []
        for _ in range(40):  # the header, the table's Lobby, Abort and Resign, then the hand
            page.keyboard.press("Tab")
            focused = page.evaluate("document.activeElement.dataset.card || null")
            if focused:
                reached.append(focused)
            elif reached:
                break
        assert reached == cards, f"Tab reached {reached} of the hand {cards}"

        # Arrows, Home and End move within the hand; Space plays.
        page.keyboard.press("1")
        expect(buttons.first).to_be_focused()
        page.keyboard.press("End")
        expect(buttons.last).to_be_focused()
        page.keyboard.press("Home")
        expect(buttons.first).to_be_focused()
        if len(cards) > 1:
            page.keyboard.press("ArrowRight")
            expect(buttons.nth(1)).to_be_focused()
        before = seq_of(page)
        page.keyboard.press("Space")
        if page.wait_for_function(PLAYED_OR_CHOOSING, arg=before).json_value() == "choose":
            choose_first_capture(page, keyboard=True)
        page.wait_for_function("before => document.body.dataset.seq !== String(before)",
                               arg=before)


def test_an_unknown_table_says_so(open_page: OpenPage) -> None:
    page = open_page(allow_failed_resource=True)  # the 404 of /api/tables/nosuch
    page.goto("/t/nosuch")
    expect(page.get_by_role("heading", name="There is no table nosuch.")).to_be_visible()
    expect(page.get_by_role("link", name="Back to the lobby")).to_have_attribute("href", "/")
    expect(page.get_by_role("alert")).to_have_count(0)  # said once, not twice
    expect(page.get_by_test_id("turn")).to_be_hidden()
    expect(page.locator("#join-panel")).to_be_hidden()
