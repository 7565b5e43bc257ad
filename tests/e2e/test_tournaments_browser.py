"""Tournaments in a real browser: the table of a tournament's game leads back to the
tournament when the match is over.

The table's side needs nothing but a table: the test passes the page's socket through
(``tap_sockets``) and sends it the state of a finished match that names a tournament, as the
server sends it for a tournament's game (``docs/web-protocol.md``).

Each test runs in English and Arabic, against ``basra serve`` (``tests/e2e/conftest.py``).
Screenshots go to ``$BASRA_SCREENSHOTS``, or to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from basra.i18n import phrase, text
from tests.support.browsing import (
    CREATE_TABLE,
    EXPERT,
    HUMAN,
    NEXT_EVENT,
    TURN_TIMEOUT_MS,
    VIEWPORT,
    Opener,
    expect_translated,
    tap_sockets,
)

pytestmark = pytest.mark.e2e

LANGUAGES = ["en", "ar"]

Visit = Callable[..., Page]


@pytest.fixture
def visit(pages: Opener, server: str) -> Visit:
    """``visit(label, language)``: a page in a browser context of its own (one person), in
    ``language``."""

    def opener(label: str, language: str) -> Page:
        context = pages.context(base_url=server, viewport=VIEWPORT)
        context.add_cookies([{"name": "basra_lang", "value": language, "url": server}])
        # A tournament that the state names but the server does not have answers 404.
        return pages.page(label, context=context, allow_failed_resource=True)

    return opener


@pytest.fixture
def shot(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[Page, str], None]:
    """Saves a screenshot named after the test and ``what``."""
    folder = Path(os.environ.get("BASRA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    original = request.node.originalname
    test = original.removeprefix("test_")[:40] + request.node.name[len(original):]

    def take(page: Page, what: str) -> None:
        page.screenshot(path=folder / f"{test}-{what}.png", full_page=True)

    return take


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_tournament_table_goes_back_to_the_tournament_when_the_match_is_over(
        visit: Visit, language: str, shot: Callable[[Page, str], None]) -> None:
    """Once the match is over, Back to the tournament replaces Rematch and New game, a
    countdown says when the page goes back, and it goes back by itself."""
    page = visit("player", language)
    sockets, states = tap_sockets(page)
    page.goto("/help")
    created: dict[str, Any] = page.evaluate(CREATE_TABLE, {"seats": [HUMAN, EXPERT]})
    page.goto(created["url"])
    assert page.wait_for_function(NEXT_EVENT, timeout=TURN_TIMEOUT_MS).json_value() == "turn"
    over = json.loads(json.dumps(states[-1]))
    over.update(seq=over["seq"] + 1, tournament="t1abc",
                result={"winner": 0, "totals": [101, 37], "record_id": None})
    over["table"]["status"] = "finished"
    sockets[-1].send(json.dumps(over))
    result = page.get_by_test_id("result")
    expect(result).to_be_visible()
    back = result.get_by_role("link", name=text(language, "back_to_tournament"))
    expect(back).to_be_visible()
    expect(back).to_have_attribute("href", "/tournament/t1abc")
    expect(page.locator("#rematch")).to_be_hidden()
    expect(page.locator("#after-new-game")).to_be_hidden()
    countdown = result.get_by_test_id("tournament-return")
    expect(countdown).to_have_text(re.compile(
        "|".join(re.escape(phrase(language, "back_to_tournament_in", n=n)) for n in range(1, 6))))
    expect_translated(page, (created["code"],))
    shot(page, "result")
    page.wait_for_url(re.compile(r"/tournament/t1abc$"), timeout=10_000)
    expect(page.locator("#t-title")).to_have_text(text(language, "error.unknown_tournament"))
