"""What the browser tests share: pages opened in browser contexts of their own and watched
for console errors, and the scripts that wait on the table page.

``conftest.py`` and the test modules beside it import it by its plain name: pytest puts
this folder (it has no ``__init__.py``) on ``sys.path`` before it imports them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, ViewportSize

VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
"""Wide enough for the lobby's three columns, so the Arabic test can see them mirrored."""

TIMEOUT_MS = 15_000
"""How long an action or an expectation waits before it fails (Playwright's default of
5 s for expectations is short for a loaded CI machine)."""

TURN_TIMEOUT_MS = 20_000
"""How long a page may take to come back to its player (a computer move, a deal)."""

FAILED_RESOURCE = "Failed to load resource"
TABLE_URL = re.compile(r"/t/[^/]+$")

NEXT_EVENT = """() => {
  const body = document.body;
  if (document.getElementById("score-dialog").open) return "score";
  if (!document.querySelector("[data-testid=result]").hidden) return "result";
  const mine = body.dataset.mySeat !== "" && body.dataset.toPlay === body.dataset.mySeat;
  if (body.dataset.status === "playing" && mine &&
      document.querySelector('[data-testid=hand] button[aria-disabled="false"]')) return "turn";
  return false;
}"""
"""What a seated page waits for next: a deal score to dismiss, the result, or its turn."""

PLAYED_OR_CHOOSING = """before => {
  if (document.getElementById("capture-dialog").open) return "choose";
  return document.body.dataset.seq !== String(before) ? "played" : false;
}"""
"""Whether a page shows a later seq than ``before`` ("played") or asks which capture
("choose")."""


class Opener:
    """Opens pages, each in a new browser context (its own localStorage) or in a given
    one; records their console errors and uncaught exceptions (a failed resource only
    where ``allow_failed_resource``). ``finish`` fails the test if there were any."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def context(self, **options: Any) -> BrowserContext:
        context = self.browser.new_context(viewport=VIEWPORT, locale="en-US", **options)
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

    def finish(self) -> None:
        """Fail the test if any page logged an error or threw; close the contexts."""
        try:
            if self.errors:
                pytest.fail("the pages logged errors:\n" + "\n".join(self.errors),
                            pytrace=False)
        finally:
            for context in self.contexts:
                context.close()
