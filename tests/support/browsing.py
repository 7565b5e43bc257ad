"""What the browser tests share: pages opened in browser contexts of their own and watched
for console errors, and the scripts that wait on the table page.

Used by ``tests/e2e`` (``from tests.support.browsing import ...``).
"""

from __future__ import annotations

import functools
import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    ViewportSize,
    WebSocketRoute,
)

from basra.i18n import DEFAULT_LANGUAGE, catalog, text

VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
"""Wide enough for the lobby's columns, so the Arabic test can see them mirrored."""

PHONE: ViewportSize = {"width": 390, "height": 844}
"""A phone held upright: the lobby's columns stack."""

TIMEOUT_MS = 15_000
"""How long an action or an expectation waits before it fails (Playwright's default of
5 s for expectations is short for a loaded CI machine)."""

TURN_TIMEOUT_MS = 20_000
"""How long a page may take to come back to its player (a computer move, a deal)."""

FAILED_RESOURCE = "Failed to load resource"
TABLE_URL = re.compile(r"/t/[^/]+$")

HUMAN = {"kind": "human"}
EXPERT = {"kind": "bot", "level": "expert"}
"""A table's seats as ``POST /api/tables`` takes them: a person, the expert."""

CREATE_TABLE = """async body => {
  const answer = await fetch("/api/tables", {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  });
  const created = await answer.json();
  if (created.token) {
    localStorage.setItem("basra.token." + created.code,
                         JSON.stringify({seat: created.seat, token: created.token}));
  }
  return created;
}"""
"""Makes a table as the lobby would (same origin) and keeps its seat's token."""

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

SEQ_MOVED = "before => document.body.dataset.seq !== String(before)"
"""Whether a page shows a later seq than ``before``."""



def play_first_card(page: Page) -> None:
    """Play the first card the page's hand may play (and its first capture, when it asks
    which); wait until the play is sent back."""
    before = page.locator("body").get_attribute("data-seq")
    page.locator('[data-testid=hand] button[data-card][aria-disabled="false"]').first.click()
    outcome = page.wait_for_function(PLAYED_OR_CHOOSING, arg=before,
                                     timeout=TURN_TIMEOUT_MS).json_value()
    if outcome == "choose":
        page.locator("#capture-options button").first.click()
        page.wait_for_function(SEQ_MOVED, arg=before, timeout=TURN_TIMEOUT_MS)


MAX_TURNS = 400
"""More turns of all the players together than a match to 101 takes."""


class Opener:
    """Opens pages, each in a new browser context (its own localStorage) or in a given
    one; records their console errors and uncaught exceptions (a failed resource only
    where ``allow_failed_resource``). ``finish`` fails the test if there were any."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def context(self, **options: Any) -> BrowserContext:
        """A new browser context: ``VIEWPORT`` and an English locale unless ``options``
        say otherwise (``viewport=PHONE``...)."""
        options = {"viewport": VIEWPORT, "locale": "en-US", **options}
        context = self.browser.new_context(**options)
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


KEY_NAMES = ("Home", "End", "Enter", "Space")
"""Keys named as their keycaps print them: a page in any language may name them so."""

LETTER_EXAMPLES = ("i", "o", "I", "l")
"""Latin letters the Help page shows as themselves (look-alike names: a dotless ı for an
i, a 0 for an o, a capital I for an l), in every language."""

_UNTRANSLATED = r"""([language, allowed, english]) => {
  const latinWord = /[A-Za-z0-9](?:[A-Za-z0-9:=.'’_-]*[A-Za-z0-9])?/g;
  const arabic = /[\u0600-\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFF]/;
  const card = /^(?:A|[2-9]|10|J|Q|K)[SHDC]?(?::\d+)?$/;
  const ok = new Set(allowed);
  const found = [];
  const visible = (node) => node.checkVisibility({ checkVisibilityCSS: true });
  const otherLanguage = (node) =>
    (node.closest("[lang]")?.getAttribute("lang") || language) !== language;
  const where = (node) => node.tagName.toLowerCase() + (node.id ? "#" + node.id : "") +
    (typeof node.className === "string" && node.className
      ? "." + node.className.split(" ")[0] : "");
  const englishWords = new Set(english);
  const wrong = (text) => {
    if (englishWords.size) {  // a language in Latin letters: English words are wrong
      const words = (text.match(/\p{L}+/gu) ?? [])
        .filter((word) => englishWords.has(word.toLowerCase()) && !ok.has(word));
      return words.length ? words.join(" ") : null;
    }
    if (language === "en") {
      const rest = allowed.reduce((left, word) => left.split(word).join(" "), text);
      return arabic.test(rest) ? rest.match(arabic)[0] : null;
    }
    // An allowed name goes whole first: "Ayşe" is no untranslated "Ay" and "e".
    const rest = allowed.filter((word) => /[^\x00-\x7F]/.test(word))
      .reduce((left, word) => left.split(word).join(" "), text);
    const words = (rest.match(latinWord) ?? [])
      .filter((word) => /[A-Za-z]/.test(word) && !card.test(word) && !ok.has(word));
    return words.length ? words.join(" ") : null;
  };
  const check = (text, place) => {
    const bad = text && text.trim() && wrong(text);
    if (bad) found.push(`${place}: ${JSON.stringify(text.trim())} (${bad})`);
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !node.data.trim() || otherLanguage(parent)) continue;
    // card faces (A, J, Q, K) and names as players typed them
    if (parent.closest("script, style, svg, .mini-card, bdi.player-name")) continue;
    const shown = parent.tagName === "OPTION" ? parent.closest("select") : parent;
    if (!shown || !visible(shown)) continue;
    check(node.data, where(parent));
  }
  for (const node of document.body.querySelectorAll("[aria-label], [placeholder], [title]")) {
    if (otherLanguage(node) || !visible(node)) continue;
    for (const name of ["aria-label", "placeholder", "title"]) {
      check(node.getAttribute(name), `${where(node)}[${name}]`);
    }
  }
  check(document.title, "title");
  return found;
}"""


def untranslated(page: Page, allowed: tuple[str, ...] = ()) -> list[str]:
    """The texts of the page that are not in its language (``<html lang>``), each as
    ``place: "text" (the offending part)``: every visible text node, the options of
    visible selects, ``aria-label``, ``placeholder`` and ``title`` attributes and the
    document's title. An element marked with another ``lang`` (the language switch) is
    left out, and so are card faces drawn as text.

    On a Turkish page (a language in Latin letters) a text fails with a word of
    :func:`english_words`. On an Arabic, Persian or Greek page a text fails with a word in
    Latin letters, unless it is a
    card (``7D``, ``10``, ``J``, ``J:1``), one of ``KEY_NAMES``, ``LETTER_EXAMPLES`` or ``allowed``
    (what the test typed: player names, table codes). On an English page a text fails
    with Arabic-script letters (Arabic or Persian) outside the words of ``allowed``. The
    names in ``bdi.player-name`` are as players typed them (other tests on the same server
    may list theirs): they are left out, and allowed in the page's other texts.
    """
    language = page.locator("html").get_attribute("lang") or "en"
    typed = page.locator("bdi.player-name").all_inner_texts()
    found: list[str] = page.evaluate(_UNTRANSLATED,
                                     [language, [*KEY_NAMES, *LETTER_EXAMPLES, *allowed, *typed],
                                      list(english_words(language))])
    return found


@functools.cache
def english_words(language: str) -> frozenset[str]:
    """For a language written in Latin letters (Turkish), the words of the English catalog
    (small, three letters or more) that its own catalog never uses: on its pages such a
    word is English left in place. Empty for English and the other scripts, whose pages
    are checked for Latin letters instead."""
    if language == DEFAULT_LANGUAGE or not re.match(r"[A-Za-z]", text(language,
                                                                        "language_name")):
        return frozenset()

    def words(code: str) -> set[str]:
        forms = [form for value in catalog(code).values()
                 for form in ([value] if isinstance(value, str) else value.values())]
        return {word.lower() for form in forms
                for word in re.findall(r"[^\W\d_]{3,}", re.sub(r"\{\w+\}", "", form))}

    return frozenset(words(DEFAULT_LANGUAGE) - words(language))


def expect_translated(page: Page, allowed: tuple[str, ...] = ()) -> None:
    """Fails the test, listing them, if the page shows texts not in its language."""
    found = untranslated(page, allowed)
    assert not found, f"untranslated texts on {page.url}:\n" + "\n".join(found)


def open_menu(page: Page) -> None:
    """Opens the header's Menu where the links fold behind it (a phone); else nothing."""
    toggle = page.locator("#menu-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


def tap_sockets(page: Page) -> tuple[list[WebSocketRoute], list[dict[str, Any]]]:
    """Passes the page's sockets (``/ws/...``) through the test: their routes (to send the
    page a frame of the test's own) and every state the server sent (newest last)."""
    sockets: list[WebSocketRoute] = []
    states: list[dict[str, Any]] = []

    def route(socket: WebSocketRoute) -> None:
        upstream = socket.connect_to_server()

        def from_server(message: str | bytes) -> None:
            parsed = json.loads(message)
            if parsed.get("type") == "state":
                states.append(parsed)
            socket.send(message)

        upstream.on_message(from_server)
        sockets.append(socket)

    page.route_web_socket(re.compile(r"/ws/"), route)
    return sockets, states


def play_all_to_the_result(players: list[Page]) -> None:
    """Every page plays its first playable card on its turn and closes deal scores,
    until each shows the result."""
    done: set[int] = set()
    deadline = time.monotonic() + 600
    for _turn in range(MAX_TURNS * 4):
        if len(done) == len(players):
            return
        assert time.monotonic() < deadline, "the match took more than 10 minutes"
        acted = False
        for i, page in enumerate(players):
            if i in done:
                continue
            event = page.evaluate(f"({NEXT_EVENT})()")
            if event == "result":
                done.add(i)
            elif event == "score":
                page.locator("#score-continue").click()
                acted = True
            elif event == "turn":
                before = page.locator("body").get_attribute("data-seq")
                page.locator('[data-testid=hand] button[data-card][aria-disabled="false"]'
                             ).first.click()
                outcome = page.wait_for_function(PLAYED_OR_CHOOSING, arg=before,
                                                 timeout=TURN_TIMEOUT_MS).json_value()
                if outcome == "choose":
                    page.locator("#capture-options button").first.click()
                acted = True
        if not acted:
            players[0].wait_for_timeout(100)
    pytest.fail(f"no result after {MAX_TURNS} turns")
