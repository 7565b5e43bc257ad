"""The table page while its server restarts (``docs/operations.md``, "Restarts"): the
server, stopped with SIGTERM, closes the page's socket with 1012 ("service restart"); the
page says nothing (no reconnecting banner, no alert), reconnects once the server is back
on the same port and database, and the game goes on at the same move.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.test_failures import click_to_play, seq_of, start_quick_game, wait_for_turn
from tests.support.browsing import Opener
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

WATCH = """() => {
  window.__seen = { banner: false, alerts: [] };
  const conn = document.getElementById("conn");
  const alert = document.getElementById("alert");
  new MutationObserver(() => { if (!conn.hidden) window.__seen.banner = true; })
    .observe(conn, { attributes: true });
  new MutationObserver(() => {
    if (alert.textContent) window.__seen.alerts.push(alert.textContent);
  }).observe(alert, { childList: true, characterData: true, subtree: true });
}"""

COUNT_OPENS = """(() => {
  window.__opens = 0;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("open", () => { window.__opens += 1; });
    }
  };
})();"""


def test_a_restart_reconnects_the_page_quietly(pages: Opener, tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "restart.db")
    options = ("--bot-delay", "0.05", "--away-after", "600")
    page = pages.page("A")
    page.add_init_script(COUNT_OPENS)
    with Server(url, tmp_path, *options) as first:
        first.wait("/readyz")
        start_quick_game(page, first.base, "Amira")
        wait_for_turn(page)
        page.evaluate(WATCH)
        seq = seq_of(page)
        opens = page.evaluate("window.__opens")
        first.process.send_signal(signal.SIGTERM)
        first.process.wait(timeout=15)
    with Server(url, tmp_path, *options, port=first.port) as again:
        again.wait("/readyz")
        page.wait_for_function("opens => window.__opens > opens", arg=opens)
        expect(page.locator("body")).to_have_attribute("data-seq", str(seq))
        assert click_to_play(page) == seq
        wait_for_turn(page)
        assert seq_of(page) >= seq + 2
        page.screenshot(path=tmp_path / "after-restart.png")
        print(f"screenshot in {tmp_path}")
        expect(page.locator("#conn")).to_be_hidden()
        assert page.evaluate("window.__seen") == {"banner": False, "alerts": []}
    # While no server listened, Chromium itself logged each refused connection attempt
    # ("WebSocket connection to ... failed"): the browser's log, not an error of the page.
    pages.errors = [error for error in pages.errors
                    if "console error: WebSocket connection to" not in error]
