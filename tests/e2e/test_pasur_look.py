"""Pasur in the browser: the New table form offers it and fits its controls to it, a table
made from the lobby is played to its result saying "sur" and showing the clubs prize, the
states only Pasur's house rules make (a sur, a seat that sits out a deciding deal, surs
that cancel, a leftover shared out when nobody captured) are shown, and a Pasur record
replays; in English, Arabic and Persian, at a desk's size and a phone's.

Screenshots go to ``$BASRA_SCREENSHOTS``, or to the test's temporary folder (its path is
printed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from basra.match import Match
from basra.record import Player, dumps, match_record
from basra.rules import make_rules
from tests.support.browsing import (
    EXPERT,
    HUMAN,
    NEXT_EVENT,
    PHONE,
    TABLE_URL,
    TURN_TIMEOUT_MS,
    VIEWPORT,
    Opener,
    expect_translated,
    play_first_card,
    tap_sockets,
)
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

TEXT = {
    "en": {
        "name": "Amira", "target": "Target score", "create": "Create table",
        "description": "The Iranian game: a card takes cards that add up to 11 with it, surs "
                       "cancel out, 7 points for most clubs, to 62.",
        "points_per_sur": "Points per sur", "points_per_basra": "Points per basra",
        "family": "Game", "hand_size": "Cards per hand",
        "tie_deal": "Deciding deal after a tie", "tied": "Only the tied players",
        "err_tie_deal": "With these hands the stock cannot be dealt to the tied players "
                        "alone: change the cards per hand, or let everyone play the "
                        "deciding deal.",
        "err_family": "seven_diamonds: Pasur plays this rule one way only: choose the game "
                      "Basra to change it.",
        "title": "Pasur · 2 players", "title_3": "Pasur · 3 players",
        "surs": "Surs", "sur_points": "Sur points", "clubs": "Clubs", "cancelled": "Cancelled",
        "sur": "Sur!", "sur_by": "{name} makes a sur!", "layla": "Layla",
        "sits_out": "sits out", "your_turn": "Your turn",
        "you_sit_out": "You sit out this deal: only the tied players play it.",
        "split": "Left on the floor at the end, shared out one card at a time: 5 of "
                 "diamonds, 3 of hearts to Layla; 7 of clubs to Nadia.",
        "sat_out": "Sat out this deal: Amira.", "next": "Next", "last": "Last",
    },
    "ar": {
        "name": "أميرة", "target": "نقاط الفوز", "create": "أنشئ الطاولة",
        "description": "اللعبة الإيرانية: الورقة تأكل ما يكمل معها 11، والسور يلغي بعضه "
                       "بعضًا، و7 نقاط لأكثر سباتي، واللعب إلى 62 نقطة.",
        "points_per_sur": "نقاط السور", "points_per_basra": "نقاط الباصرة",
        "family": "اللعبة", "hand_size": "ورق كل يد",
        "tie_deal": "التوزيعة الفاصلة بعد التعادل", "tied": "المتعادلون فقط",
        "err_tie_deal": "بهذه اليد لا يُوزَّع الورق الباقي على المتعادلين وحدهم: غيّر ورق "
                        "كل يد أو اجعل الجميع يلعب التوزيعة الفاصلة.",
        "err_family": "seven_diamonds: الباسور يلعب هذه القاعدة بطريقة واحدة فقط: اختر "
                      "لعبة الباصرة لتغييرها.",
        "title": "باسور · لاعبان", "title_3": "باسور · ٣ لاعبين",
        "surs": "سور", "sur_points": "نقاط السور", "clubs": "السباتي", "cancelled": "الملغى",
        "sur": "سور!", "sur_by": "سور من {name}!", "layla": "ليلى",
        "sits_out": "خارج التوزيعة", "your_turn": "دورك",
        "you_sit_out": "أنت خارج هذه التوزيعة: يلعبها المتعادلون فقط.",
        "split": "الباقي على الأرض في النهاية قُسِّم ورقة ورقة: ٥ ديناري، ٣ كبة إلى ليلى؛ "
                 "٧ سباتي إلى نادية.",
        "sat_out": "خارج هذه التوزيعة: أميرة.", "next": "التالية", "last": "الأخيرة",
    },
    "fa": {  # \u200c: the zero-width non-joiner of Persian words (کارت\u200cها)
        "name": "امیرا", "target": "امتیاز برد", "create": "ساختن میز",
        "description": "بازی ایرانی: هر کارت کارت\u200cهایی را برمی\u200cدارد که با آن 11 "
                       "شوند، سورها همدیگر را خنثی می\u200cکنند، 7 امتیاز برای بیشترین "
                       "گشنیز، تا 62.",
        "points_per_sur": "امتیاز هر سور", "points_per_basra": "امتیاز هر باصره",
        "family": "بازی", "hand_size": "کارت هر پخش",
        "tie_deal": "دست تعیین\u200cکننده پس از تساوی", "tied": "فقط بازیکنان مساوی",
        "err_tie_deal": "با این پخش، کارت\u200cهای مانده فقط میان بازیکنان مساوی بخش "
                        "نمی\u200cشود: کارت هر پخش را عوض کنید یا بگذارید همه دست "
                        "تعیین\u200cکننده را بازی کنند.",
        "err_family": "seven_diamonds: پاسور این قانون را فقط یک جور بازی می\u200cکند: "
                      "برای عوض کردنش بازی باصره را انتخاب کنید.",
        "title": "پاسور · دو نفر", "title_3": "پاسور · ۳ نفر",
        "surs": "سورها", "sur_points": "امتیاز سور", "clubs": "گشنیز",
        "cancelled": "خنثی\u200cشده", "sur": "سور!", "sur_by": "{name} سور زد!",
        "layla": "لیلا", "sits_out": "بیرون از دست", "your_turn": "نوبت شماست",
        "you_sit_out": "شما در این دست بازی نمی\u200cکنید: فقط بازیکنان مساوی بازی "
                       "می\u200cکنند.",
        "split": "مانده\u200cی زمین در پایان، یکی\u200cیکی بخش شد: ۵ خشت، ۳ دل به لیلا؛ "
                 "۷ گشنیز به نادیا.",
        "sat_out": "بیرون از این دست: امیرا.", "next": "بعدی", "last": "آخر",
    },
}
MAX_TURNS = 60
"""More of a player's own turns than a Pasur match to a target of 1 takes."""


@dataclass(frozen=True)
class View:
    """A screen size and a language."""

    name: str
    viewport: ViewportSize
    language: str

    @property
    def phone(self) -> bool:
        return self.viewport == PHONE

    @property
    def text(self) -> dict[str, str]:
        return TEXT[self.language]


DESKTOP_EN = View("desktop-en", VIEWPORT, "en")
DESKTOP_AR = View("desktop-ar", VIEWPORT, "ar")
PHONE_EN = View("phone-en", PHONE, "en")
PHONE_AR = View("phone-ar", PHONE, "ar")
DESKTOP_FA = View("desktop-fa", VIEWPORT, "fa")
PHONE_FA = View("phone-fa", PHONE, "fa")
VIEWS = [DESKTOP_EN, DESKTOP_AR, PHONE_EN, PHONE_AR, DESKTOP_FA, PHONE_FA]


def views(*chosen: View) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("view", chosen, ids=[v.name for v in chosen])


Visit = Callable[..., Page]
NAMES = tuple(TEXT[language]["name"] for language in TEXT)
"""The names typed in this module, in every script: the lobby lists their matches."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's ``basra serve``: fast computers, limits high enough for its tables,
    and a lobby that lists only the matches played here."""
    folder = tmp_path_factory.mktemp("pasur-look")
    with Server(sqlite_url(folder / "pasur.db"), folder, "--bot-delay", "0.05",
                "--away-after", "600", "--create-limit", "1000/minute;10000/day",
                "--join-limit", "1000/minute", "--socket-limit", "5000/minute") as served:
        served.wait()
        yield served.base


@pytest.fixture
def visit(pages: Opener, server: str) -> Callable[..., Page]:
    """Opens a page at a view's size and in its language: ``visit(view, label)``."""

    def opener(view: View, label: str = "page", *, allow_failed_resource: bool = False) -> Page:
        context = pages.context(base_url=server, viewport=view.viewport,
                                is_mobile=view.phone, has_touch=view.phone,
                                accept_downloads=True)
        context.add_init_script(
            "try { if (!localStorage.getItem('basra.lang')) "
            f"localStorage.setItem('basra.lang', '{view.language}'); }} catch {{}}")
        return pages.page(label, context=context, allow_failed_resource=allow_failed_resource)

    return opener


def choose_pasur(page: Page, view: View) -> None:
    page.goto("/")
    page.locator("#variant").select_option("pasur")
    expect(page.locator("#variant-description")).to_have_text(view.text["description"])


def open_house_rules(page: Page) -> None:
    if not page.locator("#house-rules").evaluate("n => n.open"):
        page.locator("#house-rules > summary").click()
    expect(page.locator("#rule-groups")).to_be_visible()


def field(page: Page, name: str) -> Any:
    return page.locator(f'[data-field="{name}"]')


def expect_error_beside(page: Page, control: Any, message: str) -> None:
    """The one error shown is ``message``, under ``control``, which has the focus."""
    expect(control).to_be_focused()
    expect(control).to_have_attribute("aria-invalid", "true")
    expect(control).to_have_accessible_description(re.compile(re.escape(message)))
    error = page.locator("#new-table .field-error:visible")
    expect(error).to_have_count(1)
    expect(error).to_have_text(message)
    shown, under = error.bounding_box(), control.bounding_box()
    assert shown and under and 0 <= shown["y"] - (under["y"] + under["height"]) < 120


# The New table form.


@views(*VIEWS)
def test_the_form_offers_pasur_and_fits_its_rules_to_it(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    page = visit(view, allow_failed_resource=True)  # the server's 400 answers
    text = view.text
    choose_pasur(page, view)
    open_house_rules(page)
    # The rules Pasur plays one way only are not offered; the others speak of surs.
    for name in ("seven_diamonds", "basra", "sums"):
        expect(field(page, name)).to_be_hidden()
    expect(page.get_by_label(text["points_per_sur"], exact=True)).to_have_value("5")
    expect(page.get_by_label(text["target"], exact=True)).to_have_value("62")
    for name in ("family", "floor_redeal", "basra_cancel", "last_batch_basra", "leftover",
                 "majority_min", "clubs_points", "clubs_min", "tie_deal"):
        expect(field(page, name)).to_be_visible()
    expect(page.locator('[data-option="clubs_points"]')).to_have_value("7")
    expect(page.locator('[data-option="family"]')).to_have_value("pasur")
    expect_translated(page, NAMES)
    shot(page, "form", full_page=True)

    # Basra's game again: its rules come back, and the words are Basra's.
    family = page.get_by_label(text["family"], exact=True)
    family.select_option("basra")
    expect(field(page, "seven_diamonds")).to_be_visible()
    expect(page.get_by_label(text["points_per_basra"], exact=True)).to_be_visible()
    family.select_option("pasur")
    expect(field(page, "seven_diamonds")).to_be_hidden()

    # A combination the server refuses is said beside the option it names.
    page.locator("#players").select_option("3")
    page.get_by_label(text["hand_size"], exact=True).fill("16")
    tie_deal = page.get_by_label(text["tie_deal"], exact=True)
    tie_deal.select_option("tied")
    page.get_by_role("button", name=text["create"]).click()
    expect_error_beside(page, tie_deal, text["err_tie_deal"])
    shot(page, "tie-deal-error")
    page.get_by_label(text["hand_size"], exact=True).fill("4")

    # A Basra rule given to Pasur in the Advanced box is said there.
    page.locator("#advanced > summary").click()
    raw = page.locator("#more-rules")
    raw.fill("seven_diamonds=sweep")
    page.get_by_role("button", name=text["create"]).click()
    expect_error_beside(page, raw, text["err_family"])
    raw.fill("")
    with page.expect_request(lambda r: r.url.endswith("/api/tables")
                             and r.method == "POST") as sent:
        page.get_by_role("button", name=text["create"]).click()
    body = sent.value.post_data_json
    assert body["variant"] == "pasur" and body["players"] == 3
    assert body["rules"] == {"tie_deal": "tied"}
    page.wait_for_url(TABLE_URL)
    expect(page.locator("#table-title")).to_have_text(text["title_3"])


def test_pasur_chosen_as_a_house_rule_plays_the_7_of_diamonds_plain(visit: Visit) -> None:
    """Pasur under another variant's name: the controls Pasur fixes take its values, so
    the table is made."""
    page = visit(DESKTOP_EN)
    page.goto("/")
    open_house_rules(page)
    expect(page.locator('[data-option="seven_diamonds"]')).to_have_value("sweep_small")
    page.get_by_label("Game", exact=True).select_option("pasur")
    expect(field(page, "seven_diamonds")).to_be_hidden()
    expect(page.locator("#changed-count")).to_have_text("2 changed")
    with page.expect_request(lambda r: r.url.endswith("/api/tables")
                             and r.method == "POST") as sent:
        page.get_by_role("button", name="Create table").click()
    assert sent.value.post_data_json["rules"] == {"family": "pasur",
                                                  "seven_diamonds": "plain"}
    page.wait_for_url(TABLE_URL)
    expect(page.locator("#table-title")).to_have_text("Egyptian · 2 players · Pasur")
    expect(page.locator("#score-sides .stat-label").nth(1)).to_have_text("Surs")


# A table from the lobby to the result.


@views(DESKTOP_EN, PHONE_AR, DESKTOP_AR, PHONE_EN, PHONE_FA)
def test_a_pasur_table_from_the_lobby_to_its_result(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    page = visit(view)
    text = view.text
    choose_pasur(page, view)
    page.locator("#player-name").fill(text["name"])
    page.get_by_label(text["target"], exact=True).fill("1")  # one deal
    page.get_by_role("button", name=text["create"]).click()
    page.wait_for_url(TABLE_URL)
    code = page.url.rsplit("/", 1)[-1]
    allowed = (*NAMES, code)
    expect(page.locator("#table-title")).to_have_text(text["title"])
    expect(page.locator("#score-sides .stat-label").nth(1)).to_have_text(text["surs"])

    checked: set[str] = set()
    for _turn in range(MAX_TURNS):
        event = page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value()
        if event == "result":
            expect_translated(page, allowed)
            shot(page, "result")
            break
        if event == "score":
            dialog = page.locator("#score-dialog")
            heads = {key: dialog.locator(f'tr[data-row="{key}"] th') for key in
                     ("clubs", "basras", "basra_points")}
            expect(heads["clubs"]).to_have_text(text["clubs"])
            expect(heads["basras"]).to_have_text(text["surs"])
            expect(heads["basra_points"]).to_have_text(text["sur_points"])
            expect(dialog.locator('tr[data-row="majority"]')).to_have_count(0)
            clubs = dialog.locator('tr[data-row="clubs"] td').all_inner_texts()
            assert sorted(clubs) == ["0", "7"], clubs
            expect_translated(page, allowed)
            shot(page, "score")
            checked.add("score")
            page.locator("#score-continue").click()
            continue
        if "turn" not in checked and page.locator("body").get_attribute("data-seq") != "0":
            checked.add("turn")
            expect_translated(page, allowed)
            shot(page, "table")
        play_first_card(page)
        # Read in one step: the computer's next play may replace the line at any moment.
        badge = page.evaluate(
            "() => document.querySelector('#last-play .basra-badge')?.textContent ?? null")
        if badge is not None:  # a sur was just made
            assert badge.strip() == text["sur"], badge
    else:
        pytest.fail(f"no result after {MAX_TURNS} turns")
    assert checked == {"turn", "score"}, checked


# States only Pasur's house rules make, sent to the page as the server would.


def create_table(page: Page, body: dict[str, Any]) -> dict[str, Any]:
    """Makes a table from ``page`` (same origin) and keeps its seat's token."""
    created: dict[str, Any] = page.evaluate("""async body => {
      const answer = await fetch("/api/tables", {method: "POST",
        headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
      const created = await answer.json();
      localStorage.setItem("basra.token." + created.code,
                           JSON.stringify({seat: created.seat, token: created.token}));
      return created;
    }""", body)
    return created


@views(*VIEWS)
def test_surs_a_seat_sitting_out_and_a_shared_leftover_are_shown(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    page = visit(view)
    text = view.text
    sockets, states = tap_sockets(page)
    page.goto("/")
    created = create_table(page, {"variant": "pasur", "players": 3, "name": text["name"],
                                  "rules": {"tie_deal": "tied", "leftover": "split"},
                                  "seats": [HUMAN, EXPERT, EXPERT]})
    page.goto(created["url"])
    assert page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value() == "turn"
    allowed = (*NAMES, created["code"])
    real = states[-1]
    assert real["deal"]["to_play"] == 0 and real["table"]["family"] == "pasur"

    def send(state: dict[str, Any]) -> None:
        sockets[-1].send(json.dumps(state))

    # Layla clears the floor: a sur, announced as one.
    sur = json.loads(json.dumps(real))
    sur["seq"] += 1
    sur["last_play"] = {"deal": 1, "seat": 1, "card": "5S", "captured": ["6H"],
                        "basra": True}
    sur["deal"]["basras"] = [0, 1, 0]
    send(sur)
    expect(page.get_by_test_id("announcement")).to_have_text(
        text["sur_by"].format(name=text["layla"]))
    shot(page, "sur")
    expect(page.locator("#last-play .basra-badge")).to_have_text(text["sur"], timeout=4000)

    # A deciding deal that Layla (seat 1) sits out.
    deciding = json.loads(json.dumps(sur))
    deciding["seq"] += 1
    deciding["deal"].update(number=2, seats=[2, 0], hand_counts=[4, 0, 4], to_play=0)
    send(deciding)
    layla = page.locator(".plate").filter(has_text=text["layla"])
    expect(layla).to_have_class(re.compile(r"\bsitting-out\b"))
    expect(layla.locator(".sitting-out-badge")).to_have_text(text["sits_out"])
    expect(page.locator(".plate.active")).to_have_count(1)
    expect(page.get_by_test_id("turn")).to_have_text(text["your_turn"])
    expect_translated(page, allowed)
    shot(page, "layla-sits-out")

    # One that Amira herself sits out: no cards, no turn, and she is told why.
    out = json.loads(json.dumps(deciding))
    out["seq"] += 1
    out["deal"].update(seats=[1, 2], hand=[], hand_counts=[0, 4, 4], to_play=1)
    out["legal"] = []
    send(out)
    expect(page.get_by_test_id("turn")).to_have_text(text["you_sit_out"])
    expect(page.locator('[data-testid=hand] button[data-card]')).to_have_count(0)
    mine = page.locator(".plate").filter(has_text=text["name"])
    expect(mine.locator(".sitting-out-badge")).to_have_text(text["sits_out"])
    shot(page, "i-sit-out")

    # Its score: surs that cancelled, the clubs prize, a leftover nobody captured before,
    # shared out card by card.
    scored = json.loads(json.dumps(out))
    scored["seq"] += 1
    scored["deal_scores"] = [{
        "deal": 2, "seats": [1, 2], "cards": [0, 30, 22], "basras": [0, 2, 1],
        "basras_cancelled": [0, 1, 1], "majority": [0, 0, 0], "card_points": [0, 6, 7],
        "basra_points": [0, 5, 0], "clubs": [0, 7, 0], "total": [0, 18, 7],
        "carry_in": 0, "carry_out": 0,
        "leftover": {"seat": -1, "cards": ["5D", "7C", "3H"], "sides": [1, 2, 1]}}]
    send(scored)
    dialog = page.locator("#score-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator('tr[data-row="clubs"] td')).to_have_text(["0", "7", "0"])
    expect(dialog.locator('tr[data-row="basras_cancelled"] th')).to_have_text(text["cancelled"])
    expect(dialog.locator('tr[data-row="basras_cancelled"] td')).to_have_text(["0", "1", "1"])
    expect(dialog.locator('tr[data-row="basra_points"] td')).to_have_text(["0", "5", "0"])
    notes = dialog.locator("#score-body p")
    expect(notes).to_have_text([text["split"], text["sat_out"]])
    expect_translated(page, allowed)
    shot(page, "score")


# A Pasur record on the replay page.


def pasur_record() -> tuple[str, int, int]:
    """A Pasur match of three to 10 (each seat playing its first legal move) with a sur
    and a deciding deal: (its record as text, the frame of its first sur, the first frame
    of the deciding deal)."""
    rules = make_rules("pasur", 3, {"tie_deal": "tied", "target": 10})
    for seed in range(200):
        match = Match(rules, seed=seed, variant="pasur")
        while not match.is_over:
            match.play(match.legal_moves()[0])
        frame, sur, deciding = 0, None, None
        for deal in match.deals:
            if deciding is None and not all(deal.layout.hands):
                deciding = frame
            frame += 1
            for play in deal.plays:
                if sur is None and play.basra:
                    sur = frame
                frame += 1
        if sur is not None and deciding is not None:
            players = [Player("Amira", "human"), Player("Layla (expert)", "bot"),
                       Player("Nadia (expert)", "bot")]
            return dumps(match_record(match, players)), sur, deciding
    raise AssertionError("no seed below 200 gives a sur and a deciding deal")


@views(DESKTOP_AR, PHONE_EN, DESKTOP_FA)
def test_a_pasur_record_replays_with_its_surs_and_clubs(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    text, sur, deciding = pasur_record()
    page = visit(view)
    page.goto("/replay")
    page.locator("#record-file").set_input_files(
        {"name": "pasur.json", "mimeType": "application/json", "buffer": text.encode()})
    expect(page.locator("#viewer")).to_be_visible()
    words = view.text
    for _ in range(sur):
        page.keyboard.press("ArrowRight")
    expect(page.locator("body")).to_have_attribute("data-frame", str(sur))
    expect(page.locator("#play .basra-badge")).to_have_text(words["sur"])
    expect(page.locator("#replay-scores .stat-label").nth(1)).to_have_text(words["surs"])
    expect_translated(page, NAMES)
    shot(page, "sur")
    page.keyboard.press("Home")
    for _ in range(deciding):
        page.keyboard.press("ArrowRight")
    expect(page.locator("body")).to_have_attribute("data-frame", str(deciding))
    expect(page.locator("#hands .sitting-out-badge")).to_have_count(1)
    expect(page.locator("#hands .sitting-out-badge")).to_have_text(words["sits_out"])
    page.keyboard.press("End")
    score = page.locator("#deal-score")
    expect(score.locator('tr[data-row="clubs"] th')).to_have_text(words["clubs"])
    expect(score.locator('tr[data-row="basra_points"] th')).to_have_text(words["sur_points"])
    expect_translated(page, NAMES)
    shot(page, "last", full_page=True)
