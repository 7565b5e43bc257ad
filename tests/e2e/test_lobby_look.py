"""The lobby as a game people choose: a refused value is shown beside its field and
focused; every house rule is a labelled control with an explanation; every page speaks the
chosen language throughout, with each name kept in its own direction; Open tables lists
only tables that can be joined and Recent matches marks those the computer finished for
someone; an unknown table is one message and a way back; the lobby's columns use a
desktop's width and stack on a phone.

Every test runs at a desktop's size (1280x900) and a phone's (390x844), in English and in
Arabic (``view``), against a ``basra serve`` of this module's own whose rate limits let it
make many tables. Screenshots go to ``$BASRA_SCREENSHOTS``, or to the test's temporary
folder (its path is printed).
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, ViewportSize, expect
from websockets.sync.client import connect

from basra.bots import BOT_LEVELS
from basra.i18n import languages, text
from tests.support.browsing import (
    NEXT_EVENT,
    PHONE,
    TABLE_URL,
    TURN_TIMEOUT_MS,
    VIEWPORT,
    Opener,
    expect_translated,
    open_menu,
    play_first_card,
)
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

TEXT = {
    "en": {
        "name": "Your name", "target": "Target score", "create": "Create table",
        "hand_size": "Cards per hand", "err_range": "Enter a number from 1 to 10000.",
        "err_unknown": "There is no rule named “foo”.",
        "err_hand_size": "Hands of this size do not share the stock out evenly: try "
                         "another number.",
        "finished_for": "(computer finished)", "layla": "Layla (expert)",
        "egyptian": "Egyptian", "join": "Join", "changed": "1 changed",
        "no_table": "There is no table nosuchtable.", "back": "Back to the lobby",
        "continue": "Continue", "replay": "Replay", "next": "Next", "lobby": "Lobby",
    },
    "ar": {
        "name": "اسمك", "target": "نقاط الفوز", "create": "أنشئ الطاولة",
        "hand_size": "ورق كل يد", "err_range": "أدخل عددًا من ١ إلى ١٠٠٠٠.",
        "err_unknown": "لا توجد قاعدة اسمها «foo».",
        "err_hand_size": "يد بهذا الحجم لا تقسم الورق الباقي بالتساوي: جرّب عددًا آخر.",
        "finished_for": "(أكملها الكمبيوتر)", "layla": "ليلى (خبير)",
        "egyptian": "مصرية", "join": "انضم", "changed": "المعدّل: ١",
        "no_table": "لا توجد طاولة nosuchtable.", "back": "العودة إلى الصالة",
        "continue": "متابعة", "replay": "إعادة العرض", "next": "التالية", "lobby": "الصالة",
    },
    "fa": {
        "name": "نام شما", "target": "امتیاز برد", "create": "ساختن میز",
        "hand_size": "کارت هر پخش", "err_range": "عددی از ۱ تا ۱۰۰۰۰ وارد کنید.",
        "err_unknown": "قانونی به نام «foo» وجود ندارد.",
        "err_hand_size": "پخش به این اندازه کارت\u200cهای مانده را درست بخش نمی\u200cکند: "
                         "عدد دیگری را امتحان کنید.",
        "finished_for": "(رایانه تمامش کرد)", "layla": "لیلا (خبره)",
        "egyptian": "مصری", "join": "پیوستن", "changed": "۱ تغییر",
        "no_table": "میز nosuchtable وجود ندارد.", "back": "بازگشت به سالن",
        "continue": "ادامه", "replay": "بازپخش", "next": "بعدی", "lobby": "سالن",
    },
}
PLAYER_NAMES = {"en": "Amira", "ar": "أميرة", "fa": "امیرا"}
"""The name a player types, in the script of the page's language."""
ARABIC = re.compile(r"[\u0600-\u06FF]")
MAX_TURNS = 60
"""More of a player's own turns than a match to a target of 1 takes."""


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
    def rtl(self) -> bool:
        return self.language in ("ar", "fa")

    @property
    def text(self) -> dict[str, str]:
        return TEXT[self.language]


VIEWS = [View("desktop-en", VIEWPORT, "en"), View("desktop-ar", VIEWPORT, "ar"),
         View("phone-en", PHONE, "en"), View("phone-ar", PHONE, "ar")]


# The server, pages and screenshots.


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's ``basra serve``: fast computers, limits high enough for its tables."""
    folder = tmp_path_factory.mktemp("lobby-look")
    with Server(sqlite_url(folder / "lobby.db"), folder, "--bot-delay", "0.05",
                "--away-after", "600", "--create-limit", "1000/minute;10000/day",
                "--join-limit", "1000/minute", "--socket-limit", "5000/minute") as served:
        served.wait()
        yield served.base


@pytest.fixture(params=VIEWS, ids=[view.name for view in VIEWS])
def view(request: pytest.FixtureRequest) -> View:
    found: View = request.param
    return found


Visit = Callable[..., Page]


@pytest.fixture
def visit(pages: Opener, server: str, view: View) -> Visit:
    """Opens a page at the view's size, in the view's language unless the page picks
    another (``visit(label, allow_failed_resource=False)``)."""

    def opener(label: str = "page", *, allow_failed_resource: bool = False) -> Page:
        context = pages.context(base_url=server, viewport=view.viewport,
                                is_mobile=view.phone, has_touch=view.phone)
        context.add_init_script(
            "try { if (!localStorage.getItem('basra.lang')) "
            f"localStorage.setItem('basra.lang', '{view.language}'); }} catch {{}}")
        return pages.page(label, context=context, allow_failed_resource=allow_failed_resource)

    return opener


def open_lobby(page: Page) -> None:
    """Goes to the lobby and waits until its buttons answer: the page loads before the
    script that wires them has its language's texts (fetched, in any language but
    English), and a click before then would do nothing."""
    page.goto("/")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


@pytest.fixture
def shot(request: pytest.FixtureRequest, tmp_path: Path, view: View) -> Callable[..., None]:
    """Saves a screenshot named after the test, the view and ``what``."""
    folder = Path(os.environ.get("BASRA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    test = request.node.originalname.removeprefix("test_")[:40]

    def take(page: Page, what: str, *, full_page: bool = False) -> None:
        page.screenshot(path=folder / f"{test}-{view.name}-{what}.png", full_page=full_page)
        print(f"screenshot {folder / f'{test}-{view.name}-{what}.png'}")

    return take


# The server's side, over HTTP and sockets.


def get_json(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return json.loads(response.read())


def post_json(base: str, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def play_through(base: str, code: str, token: str, *, play: bool) -> dict[str, Any]:
    """Holds the seat of ``token`` until the match ends, playing its first legal move on
    its turn, or never (then its turn timer runs out and the computer plays for it);
    returns the last state."""
    url = base.replace("http://", "ws://") + f"/ws/{code}?token={token}"
    sent = -1
    with connect(url, open_timeout=10) as socket:
        while True:
            state = json.loads(socket.recv(timeout=30))
            if state["type"] != "state":
                continue
            if state["result"] is not None and state["result"]["record_id"] is not None:
                return dict(state)
            if play and state["legal"] and state["seq"] > sent:
                sent = state["seq"]
                move = state["legal"][0]
                socket.send(json.dumps({"type": "play", "seq": sent, "card": move["card"],
                                        "captured": move["captured"]}))


@dataclass(frozen=True)
class Lists:
    """What the lobby lists: a table waiting for a player, tables nobody can join."""

    waiting: str
    not_joinable: tuple[str, ...]


@pytest.fixture(scope="module")
def lists(server: str) -> Lists:
    """Zaid played his match to its end against Layla; Huda left hers (her turn timer
    ran out) and the computer finished it for her; Rania waits for a second player; a
    quick game is being played."""
    one_deal = {"variant": "egyptian", "players": 2, "rules": {"target": 1},
                "seats": [{"kind": "human"}, {"kind": "bot", "level": "expert"}]}
    zaid = post_json(server, "/api/tables", {**one_deal, "name": "Zaid"})
    play_through(server, zaid["code"], zaid["token"], play=True)
    huda = post_json(server, "/api/tables", {**one_deal, "name": "Huda", "turn_seconds": 5})
    play_through(server, huda["code"], huda["token"], play=False)
    rania = post_json(server, "/api/tables", {
        "name": "Rania", "seats": [{"kind": "human"}, {"kind": "human"}]})
    quick = post_json(server, "/api/quick", {"name": "Omar"})
    return Lists(rania["code"], (zaid["code"], huda["code"], quick["code"]))


# Reading the page.


def box(locator: Locator) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None, f"{locator} has no box"
    return dict(found)


def expect_error_beside(page: Page, view: View, control: Locator, message: str) -> None:
    """The one error shown is ``message``, just under ``control``, on screen; the control
    has the focus and is described by it."""
    expect(control).to_be_focused()
    expect(control).to_have_attribute("aria-invalid", "true")
    expect(control).to_have_accessible_description(re.compile(re.escape(message)))
    error = page.locator("#new-table .field-error:visible")
    expect(error).to_have_count(1)
    expect(error).to_have_text(message)
    shown, under = box(error), box(control)
    assert 0 <= shown["y"] - (under["y"] + under["height"]) < 120, (shown, under)
    assert shown["y"] >= 0 and shown["y"] + shown["height"] <= view.viewport["height"], \
        f"the error is off screen: {shown}"
    expect(page.locator("#form-error")).to_be_hidden()


def open_house_rules(page: Page) -> None:
    if not page.locator("#house-rules").evaluate("n => n.open"):
        page.locator("#house-rules > summary").click()
    expect(page.locator("#rule-groups")).to_be_visible()


def control_values(page: Page) -> dict[str, Any]:
    """What every rule control shows, by option name."""
    values: dict[str, Any] = page.evaluate("""() => Object.fromEntries(
      [...document.querySelectorAll("[data-option]")].map(n =>
        [n.dataset.option, n.type === "checkbox" ? n.checked : n.value]))""")
    return values


def shown(spec: dict[str, Any], value: Any) -> Any:
    """How a control shows an option's value."""
    if spec["kind"] == "cards":
        return " ".join(value)
    if spec["kind"] == "card_points":  # a table: its entries in any order
        return sorted(f"{card}:{points}" for card, points in value.items())
    if spec["kind"] == "flag":
        return bool(value)
    return str(value)


def play_to_the_result(page: Page, *, check: Callable[[str], None]) -> None:
    """Plays the page's first playable card on each turn and continues past deal scores
    until the result shows; ``check(moment)`` looks at the page mid-game, at the first
    deal score and at the result."""
    checked: set[str] = set()
    for _turn in range(MAX_TURNS):
        event = page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value()
        if event == "result":
            check("result")
            return
        if event == "score":
            if "score" not in checked:
                checked.add("score")
                check("score")
            page.locator("#score-continue").click()
            expect(page.locator("#score-dialog")).not_to_be_visible()
            continue
        if "turn" not in checked and page.locator("body").get_attribute("data-seq") != "0":
            checked.add("turn")
            check("turn")
        play_first_card(page)
    pytest.fail(f"no result after {MAX_TURNS} turns")


# The tests.


def test_new_table_errors_show_beside_their_field_and_take_the_focus(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    page = visit(allow_failed_resource=True)  # the server's 400 answers
    open_lobby(page)
    text = view.text
    target = page.get_by_label(text["target"], exact=True)
    expect(target).to_have_value("101")
    create = page.get_by_role("button", name=text["create"])

    # Checked in the page against the option's range: nothing is sent.
    target.fill("0")
    create.click()
    expect_error_beside(page, view, target, text["err_range"])
    assert page.url.endswith("/")
    shot(page, "target")
    target.fill("101")  # typing clears the error
    expect(page.locator("#new-table .field-error:visible")).to_have_count(0)
    expect(target).not_to_have_attribute("aria-invalid", "true")

    # The raw box is only under Advanced; its errors show beside it.
    raw = page.locator("#more-rules")
    expect(raw).to_be_hidden()
    open_house_rules(page)
    expect(raw).to_be_hidden()
    page.locator("#advanced > summary").click()
    expect(raw).to_be_visible()
    raw.fill("target=0")
    create.click()
    expect_error_beside(page, view, raw, f"target: {text['err_range']}")
    raw.fill("foo=bar")  # refused by the server, which names the option
    create.click()
    expect_error_beside(page, view, raw, text["err_unknown"])
    shot(page, "raw")
    raw.fill("")

    # A value only the server can refuse (the stock must split evenly), its control
    # folded away: the house rules open, and the control takes the focus.
    hand_size = page.get_by_label(text["hand_size"], exact=True)
    hand_size.fill("5")
    page.locator("#house-rules > summary").click()
    expect(hand_size).to_be_hidden()
    create.click()
    expect_error_beside(page, view, hand_size, text["err_hand_size"])
    shot(page, "hand-size")
    hand_size.fill("4")
    create.click()
    page.wait_for_url(TABLE_URL)


def test_other_refusals_show_beside_the_button_pressed(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    page = visit(allow_failed_resource=True)  # the 503 answers
    busy = {"status": 503, "json": {"code": "server_busy", "params": {},
                                    "message": "the server cannot save anything right now"}}
    page.route("**/api/quick", lambda route: route.fulfill(**busy))
    page.route("**/api/tables", lambda route: route.fulfill(**busy)
               if route.request.method == "POST" else route.fallback())
    open_lobby(page)
    said = {"en": "The server is busy or cannot save right now; try again in a moment.",
            "ar": "الخادم مشغول أو لا يستطيع الحفظ الآن، حاول بعد قليل."}[view.language]
    for button, error in ((page.locator("#quick"), page.locator("#quick-error")),
                          (page.get_by_role("button", name=view.text["create"]),
                           page.locator("#form-error"))):
        button.click()
        expect(error).to_have_text(said)
        expect(error).to_have_role("alert")
        expect(error).to_be_focused()
        pressed, shown = box(button), box(error)
        assert 0 <= shown["y"] - (pressed["y"] + pressed["height"]) < 80 or \
            abs(shown["y"] - pressed["y"]) < 20, (pressed, shown)  # under it, or beside it
        assert shown["y"] + shown["height"] <= view.viewport["height"]
        expect(button).to_be_enabled()
        assert page.url.endswith("/")
    shot(page, "create")


def check_rule_control(page: Page, view: View, spec: dict[str, Any], control: Any) -> None:
    """A house rule's control: labelled, explained, translated, its choices or range."""
    label = page.locator(f'label[for="{control.get_attribute("id")}"]').inner_text()
    assert label and label != spec["name"] and "_" not in label, (spec, label)
    expect(control).to_have_accessible_name(label)
    help_text = page.locator(f'#{control.get_attribute("id")}-help')
    expect(help_text).to_be_visible()
    explanation = help_text.inner_text()
    assert explanation and "_" not in explanation
    expect(control).to_have_accessible_description(explanation)
    if view.rtl:
        assert ARABIC.search(label) and ARABIC.search(explanation), (label, explanation)
    if spec["kind"] == "choice":
        names = control.locator("option").all_inner_texts()
        assert len(names) == len(spec["choices"]) and "_" not in "".join(names)
        assert not set(names) & set(spec["choices"]), names
        if view.rtl:
            assert all(ARABIC.search(name) for name in names), names
    if spec["kind"] == "number":
        low, high = spec["range"]
        expect(control).to_have_attribute("min", str(low))
        expect(control).to_have_attribute("max", str(high))


def test_every_house_rule_is_a_labelled_control_with_an_explanation(
        visit: Visit, view: View, server: str, shot: Callable[..., None]) -> None:
    specs = [s for s in get_json(server, "/api/options")["specs"] if s["name"] != "players"]
    variants = get_json(server, "/api/variants")
    page = visit()
    open_lobby(page)
    open_house_rules(page)
    # Every option is a control of Basra's form or of a pile game's (each family hides the
    # other's own options), at four players (the partners' box shows).
    checked: set[str] = set()
    for variant in ("egyptian", "pisti"):
        page.locator("#variant").select_option(variant)
        page.locator("#players").select_option("4")
        pile_control = page.locator('[data-option="pisti_points"]')
        expect(pile_control).to_be_visible(visible=variant == "pisti")
        for spec in specs:
            control = page.locator(f'[data-option="{spec["name"]}"]')
            if spec["name"] not in checked and control.is_visible():
                checked.add(spec["name"])
                check_rule_control(page, view, spec, control)
    assert checked == {spec["name"] for spec in specs}
    page.locator("#variant").select_option("egyptian")
    expect_translated(page)
    shot(page, "house-rules", full_page=True)

    # Every control shows the chosen variant's rules for the chosen player count.
    for variant in variants:
        page.locator("#variant").select_option(variant["name"])
        for players in variant["players"]:
            page.locator("#players").select_option(str(players))
            rules = {**variant["rules"], "players": players,
                     "partnership": players in variant["partnership_players"]}
            values = control_values(page)
            for spec in specs:
                value = values[spec["name"]]
                if spec["kind"] == "card_points":
                    value = sorted(value.split())
                assert value == shown(spec, rules[spec["name"]]), \
                    (variant["name"], players, spec["name"])
            expect(page.locator('[data-field="partnership"]')).to_be_visible(
                visible=players == 4)

    # A value the player changed stays when the variant changes; only changed options
    # are sent.
    page.locator("#variant").select_option("egyptian")
    page.locator("#players").select_option("2")
    target = page.get_by_label(view.text["target"], exact=True)
    target.fill("151")
    page.locator("#variant").select_option("jawaker")
    expect(target).to_have_value("151")
    expect(page.locator('[data-option="seven_diamonds"]')).to_have_value("sweep")
    expect(page.locator("#changed-count")).to_have_text("")
    page.locator('[data-option="majority_tie"]').select_option("none")
    expect(page.locator("#changed-count")).to_have_text(view.text["changed"])
    expect(page.locator('[data-field="majority_tie"]')).to_have_class(re.compile(r"\bchanged\b"))
    with page.expect_request(lambda r: r.url.endswith("/api/tables")
                             and r.method == "POST") as sent:
        page.get_by_role("button", name=view.text["create"]).click()
    body = sent.value.post_data_json
    assert body["variant"] == "jawaker" and body["players"] == 2
    assert body["rules"] == {"target": 151, "majority_tie": "none"}
    page.wait_for_url(TABLE_URL)


def test_lobby_lists_joinable_tables_and_who_finished_each_match(
        visit: Visit, view: View, lists: Lists, shot: Callable[..., None]) -> None:
    page = visit()
    open_lobby(page)
    text = view.text

    tables = page.locator("#tables")
    expect(tables.locator(f'a[href="/t/{lists.waiting}"]')).to_have_text(text["join"])
    waiting = tables.locator("li").filter(has=page.locator(f'a[href="/t/{lists.waiting}"]'))
    expect(waiting).to_contain_text(text["egyptian"])
    expect(waiting.locator("bdi")).to_have_text(["Rania"])
    for code in lists.not_joinable:
        expect(tables.locator(f'a[href="/t/{code}"]')).to_have_count(0)

    records = page.locator("#records")
    zaid = records.locator("li").filter(has_text="Zaid")
    huda = records.locator("li").filter(has_text="Huda")
    expect(zaid).to_have_count(1)
    expect(huda).to_have_count(1)
    expect(huda.locator(".finished-for")).to_have_text([text["finished_for"]])
    expect(zaid.locator(".finished-for")).to_have_count(0)
    expect(zaid.locator(".item-sub")).to_contain_text(text["egyptian"])
    for line, name in ((zaid, "Zaid"), (huda, "Huda")):
        # Each name in its own direction, its total beside it, the sides in reading order.
        expect(line.locator(".record-sides bdi")).to_have_text([name, text["layla"]])
        sides = line.locator(".record-side")
        expect(sides).to_have_count(2)
        first, second = box(sides.nth(0)), box(sides.nth(1))
        if abs(first["y"] - second["y"]) < 5:  # on one line
            assert (first["x"] > second["x"]) == view.rtl, (first, second)
        for side in sides.all():
            name_box = box(side.locator("bdi").first)
            total_box = box(side.locator(".record-total"))
            if abs(name_box["y"] - total_box["y"]) < 5:
                assert (total_box["x"] < name_box["x"]) == view.rtl, (name_box, total_box)
            else:  # wrapped: the total comes on the next line
                assert total_box["y"] > name_box["y"], (name_box, total_box)
    mark, huda_name = box(huda.locator(".finished-for")), box(huda.locator("bdi").first)
    assert (mark["x"] < huda_name["x"]) == view.rtl  # the mark follows her name
    expect_translated(page, allowed=("Zaid", "Huda", "Rania", "Omar"))
    huda.scroll_into_view_if_needed()
    shot(page, "lists")


def test_an_unknown_table_is_one_message_with_a_way_back(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    page = visit(allow_failed_resource=True)  # the 404 of /api/tables/nosuchtable
    page.goto("/t/nosuchtable")
    text = view.text
    message = page.get_by_role("heading", name=text["no_table"])
    expect(message).to_be_visible()
    back = page.get_by_role("link", name=text["back"])
    expect(back).to_be_visible()
    expect(back).to_have_attribute("href", "/")
    main_text = page.locator("main").inner_text()
    assert main_text.split() == f"{text['no_table']} {text['back']}".split(), main_text
    expect(page.get_by_text(text["no_table"])).to_have_count(1)
    for hidden in ("#felt", "#scores", "#table-title", "#join-panel", "#alert",
                   "[data-testid=turn]", ".keys-hint"):
        expect(page.locator(hidden).first).to_be_hidden()
    expect(page.get_by_role("alert")).to_have_count(0)
    expect_translated(page, allowed=("nosuchtable",))
    shot(page, "page")

    other = "en" if view.rtl else "ar"
    page.locator(".lang-toggle:visible").first.click()
    expect(page.get_by_role("heading", name=TEXT[other]["no_table"])).to_be_visible()
    expect_translated(page, allowed=("nosuchtable",))
    page.get_by_role("link", name=TEXT[other]["back"]).click()
    page.wait_for_url(re.compile(r"/$"))


def test_the_lobby_columns_use_the_width_and_stack_on_a_phone(
        visit: Visit, view: View, lists: Lists, shot: Callable[..., None]) -> None:
    page = visit()
    open_lobby(page)
    expect(page.locator("#records li").first).to_be_visible()
    sections = {name: box(page.locator(f"main > .{name}"))
                for name in ("hero", "lobby-tables", "lobby-new", "lobby-records")}
    width = view.viewport["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "it scrolls sideways"
    hero, tables, new, records = sections.values()
    if view.phone:
        # One column, in this order, each as wide as the screen allows.
        tops = [s["y"] for s in sections.values()]
        assert tops == sorted(tops), sections
        for section in sections.values():
            assert section["width"] >= width - 40, section
        for upper, lower in zip(list(sections.values()), list(sections.values())[1:],
                                strict=False):
            assert upper["y"] + upper["height"] <= lower["y"], sections
    else:
        # Two columns: Quick game beside Open tables, New table beside Recent matches;
        # mirrored in Arabic. Together they fill most of the width.
        for left, right in ((hero, tables), (new, records)):
            start, end = (right, left) if view.rtl else (left, right)
            assert start["x"] + start["width"] <= end["x"], sections
            assert abs(left["y"] - right["y"]) < 2, sections
        assert new["y"] >= hero["y"] + hero["height"], sections
        assert new["width"] > records["width"] > 300, sections
        assert hero["width"] + tables["width"] > 0.85 * width, sections
        assert tables["height"] == pytest.approx(hero["height"], abs=2), sections
    shot(page, "lobby", full_page=True)


def test_the_new_table_form_offers_every_level_and_a_neural_table_plays(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    """Every level, the neural one among them, is offered for a computer seat at a Basra
    table and at a pile table, named in the page's language; a one-deal table against the
    neural computer is played to its result."""
    page = visit()
    open_lobby(page)
    names = [text(view.language, f"level_{level}") for level in BOT_LEVELS]
    picker = page.locator("#seat-1-level")
    for variant in ("pisti", "egyptian"):
        page.locator("#variant").select_option(variant)
        assert picker.locator("option").evaluate_all(
            "options => options.map((o) => o.value)") == list(BOT_LEVELS)
        assert picker.locator("option").all_inner_texts() == names
    picker.select_option("neural")
    expect(picker).to_have_value("neural")
    picker.scroll_into_view_if_needed()
    shot(page, "levels")
    page.locator("#player-name").fill(PLAYER_NAMES[view.language])
    page.get_by_label(view.text["target"], exact=True).fill("1")  # one deal
    page.get_by_role("button", name=view.text["create"]).click()
    page.wait_for_url(TABLE_URL)
    expect(page.locator(".plate .level-badge")).to_have_text(
        text(view.language, "level_neural"))
    for _turn in range(MAX_TURNS):
        event = page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value()
        if event == "result":
            break
        if event == "score":
            page.locator("#score-continue").click()
            expect(page.locator("#score-dialog")).not_to_be_visible()
            continue
        play_first_card(page)
    else:
        raise AssertionError(f"no result after {MAX_TURNS} turns")
    shot(page, "neural-result")


TRANSLATION_VIEWS = [VIEWS[1], VIEWS[3], VIEWS[0], View("desktop-fa", VIEWPORT, "fa"),
                     View("phone-fa", PHONE, "fa")]


@pytest.mark.parametrize("view", TRANSLATION_VIEWS, ids=[v.name for v in TRANSLATION_VIEWS],
                         indirect=True)
def test_every_page_speaks_one_language_from_the_lobby_to_the_replay(
        visit: Visit, view: View, lists: Lists, shot: Callable[..., None]) -> None:
    """In Arabic and Persian no text is left in Latin letters (but cards, keys, table codes
    and the names people typed); in English none is in Arabic script (but the language
    switch)."""
    name = PLAYER_NAMES[view.language]
    allowed = ("Zaid", "Huda", "Rania", "Omar", *PLAYER_NAMES.values())
    page = visit()
    open_lobby(page)
    open_house_rules(page)
    page.locator("#advanced > summary").click()
    expect_translated(page, allowed)
    page.get_by_label(view.text["name"]).fill(name)
    page.get_by_label(view.text["target"], exact=True).fill("1")  # one deal
    page.get_by_role("button", name=view.text["create"]).click()
    page.wait_for_url(TABLE_URL)
    code = page.url.rsplit("/", 1)[-1]

    def check(moment: str) -> None:
        expect_translated(page, (*allowed, code))
        shot(page, f"table-{moment}")

    play_to_the_result(page, check=check)
    page.get_by_test_id("result").get_by_role("link", name=view.text["replay"]).click()
    page.wait_for_url(re.compile(r"/replay/\d+$"))
    expect(page.locator("#counter")).not_to_be_empty()
    expect_translated(page, allowed)
    page.get_by_role("button", name=view.text["next"]).click()
    expect_translated(page, allowed)
    shot(page, "replay")

    open_menu(page)
    page.locator(".topnav").get_by_role("link", name=view.text["lobby"]).click()
    page.wait_for_url(re.compile(r"/$"))
    mine = page.locator("#records li").filter(has_text=name).first
    expect(mine).to_be_visible()
    expect(mine.locator("bdi").first).to_have_text(name)
    expect_translated(page, allowed)


LANGUAGE_NAMES = {"en": "English", "ar": "العربية", "fa": "فارسی", "tr": "Türkçe",
                  "el": "Ελληνικά"}
WORDS = {"en": "Quick game", "ar": "لعبة سريعة", "fa": "بازی سریع", "tr": "Hızlı oyun",
         "el": "Γρήγορο παιχνίδι"}


@pytest.mark.parametrize("view", [VIEWS[0], VIEWS[3]], ids=[VIEWS[0].name, VIEWS[3].name],
                         indirect=True)
def test_the_language_switch_offers_each_other_language_in_itself(
        visit: Visit, view: View, shot: Callable[..., None]) -> None:
    """English, Arabic, Persian, Turkish and Greek: every page offers the others, each
    button named in its own language; the choice is kept, and Arabic and Persian read
    right to left."""
    assert set(languages()) == set(LANGUAGE_NAMES)
    page = visit()
    open_lobby(page)
    html = page.locator("html")
    order = ["en", "ar", "fa", "tr", "el"] if view.language == "en" else [
        "ar", "en", "fa", "tr", "el"]
    for current, chosen in zip(order, order[1:] + order[:1], strict=True):
        expect(html).to_have_attribute("lang", current)
        expect(html).to_have_attribute("dir", "rtl" if current in ("ar", "fa") else "ltr")
        expect(page.get_by_role("button", name=WORDS[current])).to_be_visible()
        offered = page.locator(".lang-toggle:visible")
        expect(offered).to_have_text([LANGUAGE_NAMES[code] for code in languages()
                                      if code != current])
        for button in offered.all():
            assert button.get_attribute("lang") in LANGUAGE_NAMES
        if current == "fa":  # the names of the matches listed are as people typed them
            expect_translated(page, ("Zaid", "Huda", "Rania", "Omar", *PLAYER_NAMES.values()))
            shot(page, "lobby-fa")
        page.get_by_role("button", name=LANGUAGE_NAMES[chosen]).click()
        assert page.evaluate("localStorage.getItem('basra.lang')") == chosen
    page.reload()
    expect(html).to_have_attribute("lang", order[0])
