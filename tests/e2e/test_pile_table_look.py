"""Pile games (Pişti, Xeri) at the table, in a real browser: a whole Pişti match against
the computer in Turkish and a Xeri table of four in Greek, each made with the New table
form and played by clicking, at a desktop's and a phone's size, and a Pişti table read
right to left in Arabic.

The pile is drawn as a stack (its top card face up, the first pile's face-down cards as
backs, a count), the stock's bottom card beside the stock (Pişti), the captured cards
stay closed, every pişti (xeri) the match makes is announced in the game's own word with
its points, and the score dialog counts them; no English is left. The player goes for a
pişti when the pile holds one card of a rank in hand, so a match makes some; a match
that made none is followed by a rematch until one does. Screenshots go to
``$BASRA_SCREENSHOTS`` or the test's temporary folder.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from basra.bots import BOT_LEVELS
from basra.i18n import text
from basra.match import Match
from basra.record import Player, dumps, match_record
from basra.rules import make_rules
from tests.support.browsing import (
    CREATE_TABLE,
    PHONE,
    TABLE_URL,
    TURN_TIMEOUT_MS,
    expect_translated,
    tap_sockets,
)

pytestmark = pytest.mark.e2e

DESKTOP: ViewportSize = {"width": 1100, "height": 900}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
MATCHES = 3
"""Matches a test plays at most to see a pişti (a xeri) made."""
BANNERS_DRAINED_MS = 10_000
"""How long the page may take to show the banners waiting their turn (at most three
waiting and one on screen, 1.4 s each: ``BANNER_MS`` and ``BANNERS_KEPT`` in table.js)."""

Visit = Callable[[str, ViewportSize], Page]
NAMES = {"tr": "Ayşe", "el": "Γιώργος", "ar": "Amira"}
"""The player's name in each language's test (a name in the page's letters)."""

# Every banner the page shows, as it shows it (each stays 1.4 s: the test may be busy).
KEEP_BANNERS = """() => {
  window.shownBanners = [];
  const toast = document.getElementById("toast");
  new MutationObserver(() => {
    if (toast.textContent) window.shownBanners.push([toast.className, toast.textContent]);
  }).observe(toast, { childList: true, characterData: true, subtree: true });
}"""

# What the seated page waits for next, and the card it plays on its turn: one of the rank
# of a lone top card (a pişti), else the first playable card.
NEXT = """() => {
  if (document.getElementById("score-dialog").open) return ["score"];
  if (!document.querySelector("[data-testid=result]").hidden) return ["result"];
  const body = document.body;
  const hand = document.querySelector("[data-testid=hand]");
  const playable = [...hand.querySelectorAll('button[aria-disabled="false"]')];
  if (body.dataset.toPlay !== body.dataset.mySeat || !playable.length) return [null];
  const stack = document.querySelector("[data-testid=pile-stack]");
  const top = document.querySelector("[data-testid=pile-top]")?.dataset.card;
  const lone = stack && stack.dataset.count === "1" && top;
  const rank = (card) => card.slice(0, -1);
  const pick = (lone && playable.find((b) => rank(b.dataset.card) === rank(top))) || playable[0];
  return ["turn", pick.dataset.card];
}"""


def new_table(page: Page, language: str, variant: str, players: int, target: int) -> None:
    """Makes the table with the New table form: the variant, its players, a shorter
    target, the computers at the expert level (the form offers every level); the stores
    left closed."""
    page.goto("/")
    page.locator("#player-name").fill(NAMES[language])
    page.locator("#variant").select_option(variant)
    page.locator("#players").select_option(str(players))
    expect(page.get_by_test_id("open-stores-field")).to_be_visible()
    expect(page.locator("#open-stores")).not_to_be_checked()
    expect(page.locator("label[for=open-stores]")).to_have_text(text(language, "open_stores"))
    levels = page.locator("#seat-1-level option").all_inner_texts()
    assert levels == [text(language, f"level_{level}") for level in BOT_LEVELS], levels
    expect(page.locator("#seat-1-level")).to_have_value("expert")
    page.locator("#rule-target").fill(str(target))
    expect_translated(page, (NAMES[language],))
    page.locator("#create").click()
    page.wait_for_url(TABLE_URL)
    page.evaluate(KEEP_BANNERS)


def check_centre(page: Page, language: str, states: list[dict[str, Any]], down: int,
                 bottom: bool) -> None:
    """On the player's first turn: the pile drawn as the server sent it (its count, its
    face-down cards as backs, its top card face up), the first pile as the game deals it
    (four cards, ``down`` of them face down but the Jacks turned up), the stock's bottom
    card shown or not, and the captured cards closed."""
    page.wait_for_function(f"() => ({NEXT})()[0] === 'turn'", timeout=TURN_TIMEOUT_MS)
    first = next(state["deal"] for state in states if state.get("deal"))
    # A Jack turned up from the top of a pile with face-down cards goes under it face up
    # (spec 9.3.5): one fewer face-down card for each of the Jacks at its bottom.
    below = first["stack"][:-1]
    turned = next((k for k, card in enumerate(below) if card is None or card[0] != "J"),
                  len(below)) if down else 0
    assert len(first["stack"]) == 4 and first["down_count"] + turned == down, first
    assert first["stack"].count(None) == first["down_count"], first
    deal = states[-1]["deal"]
    stack = page.get_by_test_id("pile-stack")
    if not deal["stack"]:  # the computer took the pile: an empty centre, said so
        expect(stack).to_have_count(0)
        expect(page.locator("#floor")).to_have_attribute(
            "aria-label", f'{text(language, "centre_pile")}: {text(language, "empty_pile")}')
    else:
        expect(stack).to_have_attribute("data-count", str(len(deal["stack"])))
        expect(stack).to_have_attribute("data-down", str(deal["down_count"]))
        expect(stack.locator(".stack-down")).to_have_count(min(deal["down_count"], 10))
        expect(page.get_by_test_id("pile-top")).to_have_attribute("data-card", deal["stack"][-1])
    check_closed(page, language, bottom)


def check_closed(page: Page, language: str, bottom: bool, coach: bool = True) -> None:
    """The stock's bottom card shown or not; the player's own captured cards closed; the
    coach offered against computers (the master plays the pile games)."""
    expect(page.locator("#coach-controls")).to_be_visible(visible=coach)
    expect(page.locator("#score-info")).to_contain_text(text(language, "stores_closed"))
    expect(page.get_by_test_id("bottom-card")).to_have_count(1 if bottom else 0)
    page.locator("button.pile.mine").first.click()
    expect(page.locator("#pile-body")).to_contain_text(text(language, "stores_closed_hint"))
    expect(page.get_by_test_id("pile-cards")).to_have_count(0)
    expect_translated(page, (NAMES[language],))
    page.locator("#pile-close").click()


def play_match(page: Page, language: str, variant: str, shot: Callable[..., None],
               size: str) -> None:
    """Plays the match to its result by clicking; checks each deal's score dialog."""
    bonus = "basras_xeri" if variant == "xeri" else "basras_pisti"
    deadline = time.monotonic() + 420
    scored = 0
    while time.monotonic() < deadline:
        event = page.evaluate(f"({NEXT})()")
        if event[0] == "result":
            return
        if event[0] == "score":
            dialog = page.locator("#score-dialog")
            expect(dialog.locator('tr[data-row="pistis"] th')).to_have_text(text(language, bonus))
            expect(dialog.locator('tr[data-row="jack_pistis"]')).to_have_count(1)
            if not scored:
                expect_translated(page, (NAMES[language],))
                shot(page, f"{size}-score")
            scored += 1
            page.locator("#score-continue").click()
        elif event[0] == "turn":
            before = page.locator("body").get_attribute("data-seq")
            page.locator(f'[data-testid=hand] button[data-card="{event[1]}"]').click()
            page.wait_for_function("b => document.body.dataset.seq !== b", arg=before,
                                   timeout=TURN_TIMEOUT_MS)
            if page.locator("#toast.pisti").count():
                shot(page, f"{size}-banner")
        else:
            page.wait_for_timeout(60)
    pytest.fail("the match took more than 7 minutes")


def piştis(states: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The piştis (xeris) the states announced, each once."""
    found: dict[tuple[int, int], dict[str, Any]] = {}
    for state in states:
        play = state.get("last_play")
        if play and play.get("pisti"):
            found[(state["table"]["match_number"], state["seq"])] = play
    return list(found.values())


def check_banners(page: Page, language: str, variant: str,
                  made: list[dict[str, Any]]) -> None:
    """The piştis (xeris) were announced in the game's own word with their points (another
    seat's by its name as the page shows it: a computer's name is the language's). The
    page keeps the last three banners that wait their turn (``BANNERS_KEPT``), so when
    several plays come at once an earlier pişti's banner may give way to later ones: the
    last pişti is always announced, and every pişti banner shown is one that was made.
    Each banner stays its time on screen, so the last may still be waiting when the result
    comes: the check waits until none is left."""
    page.wait_for_function("() => !document.getElementById('toast').textContent",
                           timeout=BANNERS_DRAINED_MS)
    shown = [words for kind, words in page.evaluate("window.shownBanners") if "pisti" in kind]
    suffix = "_xeri" if variant == "xeri" else ""
    said = []
    for play in made:
        if play["seat"] == 0:
            said.append(text(language, f"pisti_you{suffix}", n=play["pisti"]))
            continue
        before, after = text(language, f"pisti_by{suffix}", name="\0", n=play["pisti"]
                             ).split("\0")
        name = page.locator(f'[data-seat="{play["seat"]}"] .plate-name').first.inner_text()
        said.append(f"{before}{name}{after}")
    assert said[-1] in shown, (said, shown)
    assert set(shown) <= set(said), (said, shown)


def play_until_a_pisti(page: Page, language: str, variant: str,
                       states: list[dict[str, Any]], shot: Callable[..., None],
                       size: str) -> None:
    """Plays matches (a rematch after each) until one had a pişti (xeri), at most
    :data:`MATCHES`; checks the banners of the ones made."""
    for _match in range(MATCHES):
        play_match(page, language, variant, shot, size)
        if piştis(states):
            break
        page.locator("#rematch").click()
        expect(page.get_by_test_id("result")).to_be_hidden()
    made = piştis(states)
    assert made, f"no {variant} bonus in {MATCHES} matches"
    check_banners(page, language, variant, made)


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_whole_pisti_match_against_the_computer_in_turkish(
        visit: Visit, shot: Callable[..., None], size: str) -> None:
    page = visit("tr", SIZES[size])
    _sockets, states = tap_sockets(page)
    new_table(page, "tr", "pisti", 2, 40)
    check_centre(page, "tr", states, down=3, bottom=True)
    expect(page.get_by_test_id("bottom-card")).to_contain_text(
        text("tr", "bottom_card_shown", card="").strip())
    assert page.evaluate(SIDEWAYS) <= 0
    shot(page, f"{size}-start")
    play_until_a_pisti(page, "tr", "pisti", states, shot, size)
    expect(page.get_by_test_id("result")).to_be_visible()
    expect_translated(page, (NAMES["tr"],))
    shot(page, f"{size}-result")


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_xeri_table_of_four_in_greek(
        visit: Visit, shot: Callable[..., None], size: str) -> None:
    page = visit("el", SIZES[size])
    _sockets, states = tap_sockets(page)
    new_table(page, "el", "xeri", 4, 30)
    check_centre(page, "el", states, down=0, bottom=False)
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    assert page.evaluate(SIDEWAYS) <= 0
    shot(page, f"{size}-start")
    play_until_a_pisti(page, "el", "xeri", states, shot, size)
    expect_translated(page, (NAMES["el"],))
    shot(page, f"{size}-result")


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_pisti_table_reads_right_to_left_in_arabic(
        visit: Visit, shot: Callable[..., None], size: str) -> None:
    """Two people's table, the second seat taken but not playing: the first pile stays as
    dealt, three cards under its open top card, face down but for any Jack that came up
    on top and went under the pile (spec 9.3.5), which every seat has seen."""
    page = visit("ar", SIZES[size])
    page.goto("/")
    created = page.evaluate(CREATE_TABLE, {
        "variant": "pisti", "players": 2, "name": "Amira",
        "seats": [{"kind": "human"}, {"kind": "human"}]})
    joined = page.request.post(f"/api/tables/{created['code']}/join", data={"name": "سلمى"})
    assert joined.ok, joined.text()
    page.goto(created["url"])
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    stack = page.get_by_test_id("pile-stack")
    expect(stack).to_have_attribute("data-count", "4")
    down = int(stack.get_attribute("data-down") or 0)
    assert 1 <= down <= 3, down  # four Jacks are dealt again
    expect(stack.locator(".stack-down")).to_have_count(down)
    expect(stack.locator(".stack-under")).to_have_count(3 - down)
    expect(stack.locator(".stack-top")).to_have_count(1)
    check_closed(page, "ar", bottom=True, coach=False)  # no hints between people
    # The stack's count stands at its end: to its left in a right-to-left page.
    box = stack.bounding_box()
    count = page.get_by_test_id("pile-count").bounding_box()
    assert box and count and count["x"] + count["width"] <= box["x"] + 1, (box, count)
    assert page.evaluate(SIDEWAYS) <= 0
    shot(page, f"{size}-start")
    # A watcher sees the same pile: the face-down cards as backs, no hand.
    watcher = visit("ar", SIZES[size])
    watcher.goto(created["url"])
    watched = watcher.get_by_test_id("pile-stack")
    expect(watched).to_have_attribute("data-count", "4")
    expect(watched.locator(".stack-down")).to_have_count(down)
    expect(watcher.get_by_test_id("hand")).to_be_hidden()
    shot(watcher, f"{size}-watcher")


def pisti_record() -> tuple[str, int]:
    """A Pişti match of two to 30 (each seat playing its first legal move) with a pişti:
    its record as text, and the frame of its first pişti."""
    rules = make_rules("pisti", 2, {"target": 30})
    for seed in range(100):
        match = Match(rules, seed=seed, variant="pisti")
        while not match.is_over:
            match.play(match.legal_moves()[0])
        frame, first = 0, None
        for deal in match.deals:
            frame += 1
            for play in deal.plays:
                if first is None and play.pisti:
                    first = frame
                frame += 1
        if first is not None:
            players = [Player("Ayşe", "human"), Player("Leyla (greedy)", "bot")]
            return dumps(match_record(match, players)), first
    raise AssertionError("no seed below 100 gives a pişti")


@pytest.mark.parametrize(("language", "size"), [("tr", "desktop"), ("ar", "phone")])
def test_a_pisti_record_replays_with_its_pile_and_pistis(
        visit: Visit, shot: Callable[..., None], language: str, size: str) -> None:
    record, first = pisti_record()
    page = visit(language, SIZES[size])
    page.goto("/replay")
    page.locator("#record-file").set_input_files(
        {"name": "pisti.json", "mimeType": "application/json", "buffer": record.encode()})
    expect(page.locator("#viewer")).to_be_visible()
    stack = page.get_by_test_id("pile-stack")
    expect(stack).to_have_attribute("data-count", "4")
    expect(stack.locator(".stack-was-down")).to_have_count(3)
    expect(page.get_by_test_id("bottom-card")).to_have_count(1)
    allowed = ("Ayşe", "Leyla", "greedy", "L")  # as the record names them, and initials
    expect_translated(page, allowed)
    shot(page, "dealt")
    for _ in range(first):
        page.keyboard.press("ArrowRight")
    expect(page.locator("body")).to_have_attribute("data-frame", str(first))
    expect(page.locator("#play .basra-badge")).to_have_text(
        f"{text(language, 'basra_toast_pisti')} +{'١٠' if language == 'ar' else '10'}")
    expect(stack).to_have_attribute("data-count", "0")
    shot(page, "pisti")
    page.keyboard.press("End")
    score = page.locator("#deal-score")
    expect(score.locator('tr[data-row="pistis"] th')).to_have_text(
        text(language, "basras_pisti"))
    expect(score.locator('tr[data-row="jack_pistis"] th')).to_have_text(
        text(language, "jack_pistis_row"))
    expect_translated(page, allowed)
    shot(page, "last")
