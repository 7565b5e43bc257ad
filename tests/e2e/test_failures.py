"""The table page when things go wrong on the server: a full disk, a stored table that
cannot be restored, an expired table, a seat opened in too many tabs.

These tests run their own ``basra serve`` (module scope) whose SQLite database lives on a
small tmpfs they mount, so that a test can fill the disk under the running server (root
only: without root the module is skipped). See ``docs/web-protocol.md``: "Confirmed plays",
"Tables in memory", the ``paused`` field of the state message and the close codes.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.support import realserver
from tests.support.browsing import (
    NEXT_EVENT,
    PLAYED_OR_CHOOSING,
    TABLE_URL,
    TURN_TIMEOUT_MS,
    VIEWPORT,
    Opener,
)

pytestmark = pytest.mark.e2e

PAUSE_TIMEOUT_MS = 15_000
"""How long the page may take to show or hide the paused banner: the server probes its
database after 5 s without a write, and retries a failed write at most 2 s apart."""

PAUSED_EN = ("The server cannot save right now, so the game is paused. Nothing is lost: "
             "play goes on by itself when saving works again.")
PAUSED_AR = ("لا يستطيع الخادم الحفظ الآن، فاللعبة متوقفة مؤقتًا. لن يضيع شيء: يستأنف اللعب "
             "تلقائيًا عندما يعود الحفظ.")
REPLACED_EN = ("This seat was opened in another tab or device, so this page stopped "
               "following it.")
REPLACED_AR = "فُتح هذا المقعد في نافذة أو جهاز آخر، فتوقفت هذه الصفحة عن متابعته."
UNRESTORED_EN = ("This table could not be restored from the server's storage. The server's "
                 "operator has been told.")
EXPIRED_EN = "This table expired: nobody came to it."


# The server, on a disk a test can fill.


class Server(realserver.Server):
    """The module's server: its database on a tmpfs (``disk``) that a test can fill."""

    def __init__(self, disk: Path, folder: Path) -> None:
        self.disk = disk
        self.db = disk / "e2e.db"
        super().__init__(realserver.sqlite_url(self.db), folder,
                         "--bot-delay", "0.05", "--away-after", "600")

    def get(self, path: str) -> tuple[int, Any]:
        """The status and JSON body of ``GET path`` (error answers included)."""
        try:
            with urllib.request.urlopen(self.base + path, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def quick(self) -> dict[str, Any]:
        """A new quick game, made over HTTP (nobody at it yet)."""
        request = urllib.request.Request(
            self.base + "/api/quick", data=b'{"name": "Omar"}', method="POST",
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer

    def connections(self) -> int:
        status, report = self.get("/healthz")
        assert status == 200, report
        count: int = report["connections"]
        return count


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A ``basra serve`` child process whose database is on a 16 MiB tmpfs."""
    folder = tmp_path_factory.mktemp("failures")
    with realserver.small_tmpfs(folder / "disk", "16m") as disk, Server(disk, folder) as served:
        served.wait()
        yield served


def copy_table(db: Path, source: str, code: str, *, status: str, moves: list[int]) -> None:
    """Store a copy of the table ``source`` (its row and seats, not its moves) as ``code``
    with ``status`` and the given moves of its current match, as another server might have
    left it."""
    with contextlib.closing(sqlite3.connect(db, timeout=10)) as conn, conn:
        for name in ("basra_tables", "basra_seats"):
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({name})")]
            rows = conn.execute(f"SELECT * FROM {name} WHERE code = ?", (source,)).fetchall()
            assert rows, f"no {name} row for {source}"
            for row in rows:
                values = dict(zip(columns, row, strict=True))
                values["code"] = code
                if name == "basra_tables":
                    values["status"] = status
                    match_number = values["match_number"]
                conn.execute(f"INSERT INTO {name} ({', '.join(columns)}) "
                             f"VALUES ({', '.join('?' * len(columns))})",
                             [values[c] for c in columns])
        conn.executemany(
            "INSERT INTO basra_moves (code, match_number, idx, move) VALUES (?, ?, ?, ?)",
            [(code, match_number, idx, move) for idx, move in enumerate(moves)])


# Pages.


def seq_of(page: Page) -> int:
    return int(page.locator("body").get_attribute("data-seq") or "-1")


def playable(page: Page) -> Locator:
    return page.get_by_test_id("hand").locator('button[data-card][aria-disabled="false"]')


def start_quick_game(page: Page, base: str, name: str) -> str:
    """Starts a quick game from the lobby; returns the table's code."""
    page.goto(base + "/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Quick game").click()
    page.wait_for_url(TABLE_URL)
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    expect(page.locator("body")).to_have_attribute("data-my-seat", "0")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def wait_for_turn(page: Page) -> None:
    """Waits until it is the page's turn, closing deal scores on the way."""
    for _ in range(10):
        event = page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value()
        if event == "turn":
            return
        assert event == "score", f"the match ended ({event}) before the player's turn"
        page.get_by_role("button", name="Continue").click()
        expect(page.locator("#score-dialog")).not_to_be_visible()
    pytest.fail("ten deal scores in a row without a turn")


def click_to_play(page: Page) -> int:
    """Clicks the first playable card (and the first capture offered); returns the seq the
    play answered, once the page shows a later one."""
    before = seq_of(page)
    playable(page).first.click()
    outcome = page.wait_for_function(PLAYED_OR_CHOOSING, arg=before,
                                     timeout=TURN_TIMEOUT_MS).json_value()
    if outcome == "choose":
        page.get_by_role("dialog", name="Choose a capture").get_by_role("button").first.click()
    page.wait_for_function("before => document.body.dataset.seq !== String(before)",
                           arg=before, timeout=TURN_TIMEOUT_MS)
    return before


def open_as_seat_0(page: Page, base: str, code: str, token: str) -> None:
    """Opens the table's page as the holder of seat 0's ``token``, kept where the lobby
    keeps it."""
    page.goto(base + "/")
    page.evaluate("([code, token]) => localStorage.setItem('basra.token.' + code, "
                  "JSON.stringify({seat: 0, token}))", [code, token])
    page.goto(f"{base}/t/{code}")


def visit_refused_table(pages: Opener, base: str, code: str,
                        message: str | re.Pattern[str]) -> None:
    """A visitor to the table's page, which the API refuses (its error status logged as a
    failed resource), is shown ``message`` and offered no seat."""
    visitor = pages.page("visitor", allow_failed_resource=True)
    visitor.goto(f"{base}/t/{code}")
    expect(visitor.get_by_role("alert")).to_have_text(message)
    expect(visitor.get_by_test_id("turn")).to_have_text(message)
    expect(visitor.locator("#join-panel")).to_be_hidden()
    expect(visitor.get_by_role("button", name="Join")).to_have_count(0)


def box_of(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} has no box"
    return {"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]}


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


# The tests.


def test_a_full_disk_pauses_the_page_then_play_goes_on(
        pages: Opener, server: Server, tmp_path: Path) -> None:
    page = pages.page("A")
    start_quick_game(page, server.base, "Amira")
    wait_for_turn(page)  # nothing is written while the server waits for us
    seq = seq_of(page)
    banner = page.locator("#paused")
    html = page.locator("html")
    expect(banner).to_be_hidden()

    filler = server.disk / "filler"
    try:
        assert realserver.fill_under(server.db, filler) > 0
        expect(banner).to_be_visible(timeout=PAUSE_TIMEOUT_MS)
        expect(banner).to_have_text(PAUSED_EN)
        expect(banner).to_have_role("status")
        status, health = server.get("/healthz")
        assert status == 503 and health["status"] == "failing", health

        # The banner hides nothing the player needs, and the cards stay on screen.
        shown = box_of(banner)
        for needed in ("#scores", "#turn", "#floor", "#hand", "#bottom-seat"):
            assert not overlaps(shown, box_of(page.locator(needed))), \
                f"the paused banner overlaps {needed}"
        hand = box_of(page.get_by_test_id("hand"))
        assert hand["y"] + hand["height"] <= VIEWPORT["height"], "the hand is off screen"
        page.screenshot(path=tmp_path / "paused-en.png")

        page.locator(".lang-toggle:visible").first.click()
        expect(html).to_have_attribute("dir", "rtl")
        expect(html).to_have_attribute("lang", "ar")
        expect(banner).to_have_text(PAUSED_AR)
        expect(banner).to_be_visible()
        page.screenshot(path=tmp_path / "paused-ar.png")
        page.locator(".lang-toggle:visible").first.click()
        expect(html).to_have_attribute("dir", "ltr")
        expect(banner).to_have_text(PAUSED_EN)
        print(f"screenshots in {tmp_path}")

        # While paused the hand offers no play and the turn line says why.
        expect(playable(page)).to_have_count(0)
        expect(page.get_by_test_id("turn")).to_have_text(
            "Paused: waiting for the server to save again.")
        assert seq_of(page) == seq
        expect(banner).to_be_visible()
    finally:
        filler.unlink(missing_ok=True)

    expect(banner).to_be_hidden(timeout=PAUSE_TIMEOUT_MS)
    status, health = server.get("/healthz")
    assert status == 200 and health["status"] == "ok", health
    assert seq_of(page) == seq
    wait_for_turn(page)
    assert click_to_play(page) == seq  # confirmed: the page shows a later seq
    wait_for_turn(page)  # and the computer answered
    assert seq_of(page) >= seq + 2


def test_a_table_that_cannot_be_restored_says_so_on_its_page(
        pages: Opener, server: Server) -> None:
    quick = server.quick()
    code = "unrestored1"
    copy_table(server.db, quick["code"], code, status="playing",
               moves=[(1 << 1) << 6 | 1])  # card 1 capturing itself: never legal
    message = re.compile(rf"^table '{code}' could not be restored from storage \(.+\); "
                         r"the server's operator is told$")

    visit_refused_table(pages, server.base, code, UNRESTORED_EN)  # translated by its code

    status, health = server.get("/healthz")
    assert status == 200 and health["status"] == "degraded", health
    assert code in [entry["code"] for entry in health["unrestored"]], health
    status, answer = server.get(f"/api/tables/{code}")
    assert status == 503 and message.match(answer["message"]), answer

    # A player of the table (the copied seat's token) is told too, and not reconnected.
    player = pages.page("player")
    open_as_seat_0(player, server.base, code, quick["token"])
    expect(player.get_by_test_id("turn")).to_have_text(UNRESTORED_EN)
    expect(player.locator("#join-panel")).to_be_hidden()
    expect(player.locator("#conn")).to_be_hidden()


def test_an_expired_table_says_so_on_its_page(pages: Opener, server: Server) -> None:
    quick = server.quick()
    code = "expired1"
    copy_table(server.db, quick["code"], code, status="expired", moves=[])
    status, answer = server.get(f"/api/tables/{code}")
    assert status == 410, answer
    message = f"table '{code}' expired: nobody came to it"
    assert answer["message"] == message

    visit_refused_table(pages, server.base, code, EXPIRED_EN)  # translated by its code

    player = pages.page("player")
    open_as_seat_0(player, server.base, code, quick["token"])
    expect(player.get_by_test_id("turn")).to_have_text(EXPIRED_EN)
    expect(player.locator("#join-panel")).to_be_hidden()


def test_a_seat_opened_in_more_tabs_closes_its_oldest_page(
        pages: Opener, server: Server) -> None:
    context = pages.context()
    oldest = pages.page("tab 1", context=context)
    code = start_quick_game(oldest, server.base, "Amira")
    wait_for_turn(oldest)
    seq = seq_of(oldest)
    tabs = [oldest]
    for n in range(2, 7):  # five more tabs of the same seat: six sockets, four allowed
        tab = pages.page(f"tab {n}", context=context)
        tab.goto(f"{server.base}/t/{code}")
        expect(tab.locator("body")).to_have_attribute("data-my-seat", "0")
        expect(tab.locator("body")).to_have_attribute("data-seq", str(seq))
        tabs.append(tab)

    replaced, kept = tabs[:2], tabs[2:]
    for tab in replaced:
        expect(tab.get_by_test_id("turn")).to_have_text(REPLACED_EN)
        expect(tab.locator("#conn")).to_be_hidden()
    connections = server.connections()
    time.sleep(3)  # a page that reconnected would be back by now
    assert server.connections() <= connections
    for tab in replaced:
        expect(tab.get_by_test_id("turn")).to_have_text(REPLACED_EN)
        expect(tab.locator("#conn")).to_be_hidden()
        expect(playable(tab)).to_have_count(0)

    # The page keeps saying why in the other language, and playing from it does nothing.
    oldest.locator(".lang-toggle:visible").first.click()
    expect(oldest.locator("html")).to_have_attribute("dir", "rtl")
    expect(oldest.get_by_test_id("turn")).to_have_text(REPLACED_AR)
    expect(playable(oldest)).to_have_count(0)

    newest = kept[-1]
    wait_for_turn(newest)
    assert click_to_play(newest) == seq
    for tab in kept:
        expect(tab.locator("body")).not_to_have_attribute("data-seq", str(seq))
    for tab in replaced:
        assert seq_of(tab) == seq
    assert server.connections() <= connections
