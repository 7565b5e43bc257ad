"""The table page when things go wrong on the server: a full disk, a stored table that
cannot be restored, an expired table, a seat opened in too many tabs.

These tests run their own ``basra serve`` (module scope) whose SQLite database lives on a
small tmpfs they mount, so that a test can fill the disk under the running server (root
only: without root the module is skipped). See ``docs/web-protocol.md``: "Confirmed plays",
"Tables in memory", the ``paused`` field of the state message and the close codes.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    ViewportSize,
    expect,
)

pytestmark = pytest.mark.e2e

SERVER_START_SECONDS = 30.0
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
TIMEOUT_MS = 15_000
TURN_TIMEOUT_MS = 20_000
PAUSE_TIMEOUT_MS = 15_000
"""How long the page may take to show or hide the paused banner: the server probes its
database after 5 s without a write, and retries a failed write at most 2 s apart."""
FAILED_RESOURCE = "Failed to load resource"
TABLE_URL = re.compile(r"/t/[^/]+$")

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

NEXT_EVENT = """() => {
  if (document.getElementById("score-dialog").open) return "score";
  if (!document.querySelector("[data-testid=result]").hidden) return "result";
  const body = document.body;
  const mine = body.dataset.mySeat !== "" && body.dataset.toPlay === body.dataset.mySeat;
  if (body.dataset.status === "playing" && mine &&
      document.querySelector('[data-testid=hand] button[aria-disabled="false"]')) return "turn";
  return false;
}"""

PLAYED_OR_CHOOSING = """before => {
  if (document.getElementById("capture-dialog").open) return "choose";
  return document.body.dataset.seq !== String(before) ? "played" : false;
}"""


# The server, on a disk a test can fill.


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@dataclass
class Server:
    base: str
    disk: Path
    db: Path
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

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


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder``, unmounted on the way out."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                              str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A ``basra serve`` child process whose database is on a 16 MiB tmpfs."""
    folder = tmp_path_factory.mktemp("failures")
    with small_tmpfs(folder / "disk", "16m") as disk:
        port = _free_port()
        db = disk / "e2e.db"
        log_path = folder / "server.log"
        command = [sys.executable, "-m", "basra", "serve", "--port", str(port),
                   "--db", f"sqlite:///{db}", "--bot-delay", "0.05", "--away-after", "600"]
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + SERVER_START_SECONDS
        try:
            while not _answers(base + "/"):
                if process.poll() is not None or time.monotonic() > deadline:
                    why = (f"exited with status {process.returncode}"
                           if process.poll() is not None
                           else f"did not answer GET / in {SERVER_START_SECONDS:.0f} s")
                    pytest.fail(f"`{' '.join(command)}` {why}; its output:\n"
                                f"{log_path.read_text(errors='replace')}", pytrace=False)
                time.sleep(0.1)
            yield Server(base, disk, db, log_path)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def fill(path: Path) -> int:
    """Write ``path`` until its file system is full; the bytes written."""
    written = 0
    with path.open("wb", buffering=0) as filler:
        for size in (1 << 20, 1 << 12, 1):
            block = b"\0" * size
            while True:
                try:
                    written += filler.write(block)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    return written


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


class Opener:
    """Opens pages on the test's server, each in a new browser context (its own
    localStorage) or in a given one; records their console errors and uncaught
    exceptions (a failed resource only where ``allow_failed_resource``)."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def context(self) -> BrowserContext:
        context = self.browser.new_context(viewport=VIEWPORT, locale="en-US")
        context.set_default_timeout(TIMEOUT_MS)
        self.contexts.append(context)
        return context

    def page(self, label: str = "page", *, context: BrowserContext | None = None,
             allow_failed_resource: bool = False) -> Page:
        page = (context or self.context()).new_page()

        def on_console(message: ConsoleMessage) -> None:
            if message.type != "error":
                return
            if allow_failed_resource and message.text.startswith(FAILED_RESOURCE):
                return
            self.errors.append(f"{label}: console error: {message.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.errors.append(f"{label}: page error: {error}"))
        return page


@pytest.fixture
def pages(browser: Browser) -> Iterator[Opener]:
    """Fails the test at its end if any page it opened logged an error or threw."""
    expect.set_options(timeout=TIMEOUT_MS)
    opener = Opener(browser)
    yield opener
    try:
        if opener.errors:
            pytest.fail("the pages logged errors:\n" + "\n".join(opener.errors), pytrace=False)
    finally:
        for context in opener.contexts:
            context.close()


def seq_of(page: Page) -> int:
    return int(page.locator("body").get_attribute("data-seq") or "-1")


def hand_buttons(page: Page) -> Locator:
    return page.get_by_test_id("hand").locator("button[data-card]")


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
        assert fill(filler) > 0
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

        page.locator("#lang-toggle").click()
        expect(html).to_have_attribute("dir", "rtl")
        expect(html).to_have_attribute("lang", "ar")
        expect(banner).to_have_text(PAUSED_AR)
        expect(banner).to_be_visible()
        page.screenshot(path=tmp_path / "paused-ar.png")
        page.locator("#lang-toggle").click()
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
               moves=[(1 << 6) | 1])  # a card capturing itself: the rules refuse it
    message = re.compile(rf"^table '{code}' could not be restored from storage \(.+\); "
                         r"the server's operator is told$")

    visitor = pages.page("visitor", allow_failed_resource=True)  # the 503 of /api/tables
    visitor.goto(f"{server.base}/t/{code}")
    expect(visitor.get_by_role("alert")).to_have_text(message)
    expect(visitor.get_by_test_id("turn")).to_have_text(message)
    expect(visitor.locator("#join-panel")).to_be_hidden()
    expect(visitor.get_by_role("button", name="Join")).to_have_count(0)

    status, health = server.get("/healthz")
    assert status == 200 and health["status"] == "degraded", health
    assert code in [entry["code"] for entry in health["unrestored"]], health
    status, answer = server.get(f"/api/tables/{code}")
    assert status == 503 and message.match(answer["error"]), answer

    # A player of the table (the copied seat's token) is told too, and not reconnected.
    player = pages.page("player")
    player.goto(server.base + "/")
    player.evaluate("([code, token]) => localStorage.setItem('basra.token.' + code, "
                    "JSON.stringify({seat: 0, token}))", [code, quick["token"]])
    player.goto(f"{server.base}/t/{code}")
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
    assert answer["error"] == message

    visitor = pages.page("visitor", allow_failed_resource=True)  # the 410 of /api/tables
    visitor.goto(f"{server.base}/t/{code}")
    expect(visitor.get_by_role("alert")).to_have_text(message)
    expect(visitor.get_by_test_id("turn")).to_have_text(message)
    expect(visitor.locator("#join-panel")).to_be_hidden()
    expect(visitor.get_by_role("button", name="Join")).to_have_count(0)

    player = pages.page("player")
    player.goto(server.base + "/")
    player.evaluate("([code, token]) => localStorage.setItem('basra.token.' + code, "
                    "JSON.stringify({seat: 0, token}))", [code, quick["token"]])
    player.goto(f"{server.base}/t/{code}")
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
    oldest.locator("#lang-toggle").click()
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
