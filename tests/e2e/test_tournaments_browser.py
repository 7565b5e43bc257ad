"""Tournaments in a real browser: two accounts join an arena with computer players from its
page, the page takes each to their game, they play it by clicking cards, the table takes
them back to the tournament, the standings count their games, and when the arena is over
the podium and the winner are shown, on the tournament's page and in the list.

The server is ``basra serve`` as every browser test runs it (fast computers, no takeover,
the per-address limits lifted), with its hidden options for demonstrations and tests: the
tournament director passes every 0.2 s and an arena's minute lasts ``MINUTE`` seconds, so
an arena of the shortest length the API takes (5 minutes) is over while its first games
are played, and those games end it.

The New tournament form is checked on its own: a guest is asked to log in, a bad value is
refused beside its field, a tournament made from it opens, and its page's Join, Pause,
Resume and Withdraw act through their routes.

The table's side alone (a finished match of a tournament's game leads back to the
tournament) is also checked with a state sent to the page (``tap_sockets``), as the server
sends it (``docs/web-protocol.md``).

Each test runs in English and Arabic. Screenshots go to ``$BASRA_SCREENSHOTS``, or to the
test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error, Page, expect

from basra.i18n import phrase, text
from tests.support.browsing import (
    CREATE_TABLE,
    EXPERT,
    HUMAN,
    NEXT_EVENT,
    PLAYED_OR_CHOOSING,
    TABLE_URL,
    TURN_TIMEOUT_MS,
    VIEWPORT,
    Opener,
    expect_translated,
    tap_sockets,
)
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

LANGUAGES = ["en", "ar"]
MINUTE = 4.0
"""Seconds in an arena's minute on this module's server: an arena of 5 minutes lasts 20 s."""
PASSWORD = "a long tournament password"
COMPUTERS = ["random", "greedy"]
TOURNAMENT_URL = re.compile(r"/tournament/\w+$")
PLAY_SECONDS = 300
"""How long the two players may take to play their games to the end of the arena."""

Visit = Callable[..., Page]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's ``basra serve``: as every browser test's, with a fast director."""
    folder = tmp_path_factory.mktemp("tournaments")
    with Server(sqlite_url(folder / "tournaments.db"), folder,
                "--bot-delay", "0.05", "--away-after", "600",
                "--create-limit", "1000/minute;10000/day", "--join-limit", "1000/minute",
                "--socket-limit", "1000/minute", "--signup-limit", "1000/minute",
                "--tournament-limit", "100", "--tournament-tick", "0.2",
                "--tournament-minute", str(MINUTE)) as served:
        served.wait()
        yield served.base


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


# Two accounts in an arena.


def sign_up(page: Page, stem: str) -> str:
    """A new account, signed up through the API from the page's browser (its cookie)."""
    name = f"{stem}{uuid.uuid4().hex[:6]}"
    answer = page.request.post("/api/signup", data={"name": name, "password": PASSWORD})
    assert answer.ok, answer.text()
    return name


def table_event(page: Page) -> str | None:
    """What a page at a table waits for next (``NEXT_EVENT``), or None while it is not at
    a table (it is on the tournament's page, or on its way)."""
    if not TABLE_URL.search(page.url):
        return None
    try:
        event = page.evaluate(f"({NEXT_EVENT})()")
    except Error:  # it left for the tournament's page just now
        return None
    return event or None


def play_turn(page: Page) -> None:
    """Clicks the first playable card of the hand (and the first capture if asked)."""
    before = page.locator("body").get_attribute("data-seq")
    try:
        page.locator('[data-testid=hand] button[data-card][aria-disabled="false"]').first.click(
            timeout=TURN_TIMEOUT_MS)
        outcome = page.wait_for_function(PLAYED_OR_CHOOSING, arg=before,
                                         timeout=TURN_TIMEOUT_MS).json_value()
        if outcome == "choose":
            page.locator("#capture-options button").first.click()
    except Error:
        if TABLE_URL.search(page.url):
            raise


def play_until_the_end(players: list[Page], tournament: str, seen: Callable[[Page], None]
                       ) -> dict[int, int]:
    """Each page plays its turns by clicking cards wherever the tournament takes it, until
    the tournament is over on both pages (back on its page); the tables each was taken
    to (``seen`` is called with each page once it shows a result)."""
    tables: dict[int, set[str]] = {i: set() for i in range(len(players))}
    results: set[tuple[int, str]] = set()
    deadline = time.monotonic() + PLAY_SECONDS
    while True:
        assert time.monotonic() < deadline, f"the arena was not over in {PLAY_SECONDS} s"
        over = 0
        acted = False
        for i, page in enumerate(players):
            if page.url.endswith(f"/tournament/{tournament}"):
                over += page.locator("body").get_attribute("data-status") == "finished"
                continue
            event = table_event(page)
            if event is None:
                continue
            code = page.url.rsplit("/", 1)[-1]
            tables[i].add(code)
            if event == "turn":
                play_turn(page)
                acted = True
            elif event == "score":
                page.locator("#score-continue").click()
                acted = True
            elif event == "result" and (i, code) not in results:
                results.add((i, code))
                seen(page)
        if over == len(players):
            return {i: len(codes) for i, codes in tables.items()}
        if not acted:
            players[0].wait_for_timeout(100)


def standing_of(page: Page, name: str) -> Any:
    return page.get_by_test_id("standing").filter(has_text=name)


@pytest.mark.parametrize("language", LANGUAGES)
def test_two_accounts_play_an_arena_with_computers_to_its_podium(
        visit: Visit, language: str, shot: Callable[[Page, str], None]) -> None:
    players = [visit(stem, language) for stem in ("Amira", "Bashir")]
    for page in players:
        page.goto("/tournaments")
    names = [sign_up(page, stem) for page, stem in zip(players, ("Amira", "Bashir"),
                                                       strict=True)]
    allowed = (*names, "ndjson")
    made = players[0].request.post("/api/tournaments", data={
        "kind": "arena", "variant": "egyptian", "players": 2,
        "rated": True, "minutes": 5, "starts_in": 12, "turn_seconds": 60,
        "computers": COMPUTERS})
    assert made.status == 201, made.text()
    tournament = made.json()["id"]
    title = text(language, "tournament_default_name").format(
        variant=text(language, "variant_egyptian"), kind=text(language, "kind_arena"))

    # Each joins from the tournament's page before it starts.
    for page, name in zip(players, names, strict=True):
        page.goto(f"/tournament/{tournament}")
        expect(page.get_by_test_id("name")).to_have_text(title)  # named by the server
        expect(page.get_by_test_id("clock")).to_contain_text(
            phrase(language, "tournament_starts_in", time=""))
        expect(page.get_by_role("button", name=text(language, "tournament_withdraw"))
               ).to_be_hidden()
        page.get_by_role("button", name=text(language, "tournament_join")).click()
        expect(page.get_by_test_id("you")).to_have_text(
            text(language, "tournament_you_active"))
        expect(page.get_by_role("button", name=text(language, "tournament_join"))
               ).to_be_hidden()
        expect(page.get_by_role("button", name=text(language, "tournament_withdraw"))
               ).to_be_visible()
        expect(standing_of(page, name)).to_be_visible()
    standings = players[1].get_by_test_id("standing")
    expect(standings).to_have_count(2 + len(COMPUTERS))
    expect(standings.locator(".computer-mark")).to_have_count(len(COMPUTERS))
    expect_translated(players[1], allowed)
    shot(players[1], "joined")

    # At the start, the page takes each to their game.
    for page in players:
        page.wait_for_url(TABLE_URL, timeout=30_000)
        expect(page.locator("body")).not_to_have_attribute("data-my-seat", "")

    def seen(page: Page) -> None:
        """A result at a tournament's table: the way back instead of a rematch."""
        result = page.get_by_test_id("result")
        back = result.get_by_role("link", name=text(language, "back_to_tournament"))
        expect(back).to_have_attribute("href", f"/tournament/{tournament}")
        expect(page.locator("#rematch")).to_be_hidden()
        if page is players[0]:
            shot(page, "result")

    games = play_until_the_end(players, tournament, seen)
    assert all(count >= 1 for count in games.values()), games

    # Over: the standings count every game, the podium names the winner.
    for page, name in zip(players, names, strict=True):
        expect(page).to_have_url(TOURNAMENT_URL)
        mine = standing_of(page, name)
        expect(mine.locator(".results li")).to_have_count(games[players.index(page)])
        expect(page.get_by_test_id("clock")).to_contain_text(
            phrase(language, "tournament_finished_at", when=""))
        podium = page.get_by_test_id("podium")
        expect(podium).to_be_visible()
        leader = page.get_by_test_id("standing").first.locator(".player bdi").first
        winner = podium.get_by_test_id("place-1").locator(".podium-name bdi")
        expect(winner).to_have_text(leader.inner_text())
        finished = page.get_by_test_id("done-games").get_by_test_id("done-game")
        expect(finished.first.get_by_test_id("replay")).to_have_attribute(
            "href", re.compile(r"^/replay/\d+$"))
        expect(page.get_by_test_id("download-games")).to_have_attribute(
            "href", f"/api/tournaments/{tournament}/records")
    expect_translated(players[0], allowed)
    shot(players[0], "podium")
    winner_name = players[0].get_by_test_id("place-1").locator(".podium-name bdi").inner_text()
    records = players[0].request.get(f"/api/tournaments/{tournament}/records").text()
    assert len(records.splitlines()) >= max(games.values())

    # The list shows it among the finished, with its winner.
    page = players[1]
    page.goto("/tournaments")
    item = page.get_by_test_id("finished").locator(f'[data-id="{tournament}"]')
    expect(item.get_by_test_id("winner")).to_contain_text(winner_name)
    expect_translated(page, allowed)
    shot(page, "list")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_new_tournament_form_checks_its_fields_and_opens_the_new_tournament(
        visit: Visit, language: str, shot: Callable[[Page, str], None]) -> None:
    """A guest is asked to log in; an account fills the form (a bad length is refused
    beside its field, which takes the focus) and lands on the new tournament's page."""
    page = visit("creator", language)
    page.goto("/tournaments")
    expect(page.get_by_test_id("create-guest")).to_have_text(
        text(language, "tournament_login_to_create"))
    expect(page.locator("#tournament-form")).to_be_hidden()
    name = sign_up(page, "Hala")
    page.reload()
    form = page.locator("#tournament-form")
    expect(form).to_be_visible()
    expect(page.get_by_test_id("create-guest")).to_be_hidden()
    length = form.get_by_label(text(language, "tournament_minutes_label"))
    length.fill("3")
    form.get_by_role("button", name=text(language, "tournament_create")).click()
    expect(page.locator("#t-minutes-error")).to_have_text(
        phrase(language, "err_range", min=5, max=720))
    expect(length).to_be_focused()
    expect(length).to_have_attribute("aria-invalid", "true")
    expect_translated(page, (name,))
    shot(page, "refused")
    form.get_by_label(text(language, "tournament_format")).select_option("swiss")
    expect(length).to_be_hidden()
    form.get_by_label(text(language, "tournament_rounds_label")).fill("3")
    form.get_by_label(text(language, "level_expert"), exact=True).fill("2")
    form.get_by_role("button", name=text(language, "tournament_create")).click()
    page.wait_for_url(TOURNAMENT_URL)
    expect(page.get_by_test_id("rules")).to_contain_text(
        phrase(language, "tournament_rules_swiss",
               rounds=phrase(language, "tournament_rounds", n=3)))
    expect(page.get_by_test_id("standing").locator(".computer-mark")).to_have_count(2)
    expect_translated(page, (name,))
    shot(page, "made")

    # Join, Pause, Resume and Withdraw, each through its route.
    def press(key: str) -> None:
        page.get_by_role("button", name=text(language, key)).click()

    press("tournament_join")
    expect(page.get_by_test_id("you")).to_have_text(text(language, "tournament_you_active"))
    expect(page.get_by_test_id("standing").filter(has_text=name)).to_be_visible()
    press("tournament_pause")
    expect(page.get_by_test_id("you")).to_have_text(text(language, "tournament_you_paused"))
    expect(page.get_by_test_id("standing").filter(has_text=name)).to_contain_text(
        text(language, "tournament_paused_mark"))
    press("tournament_resume")
    expect(page.get_by_test_id("you")).to_have_text(text(language, "tournament_you_active"))
    press("tournament_withdraw")  # before a Swiss starts, withdrawing leaves it
    expect(page.get_by_test_id("standing").filter(has_text=name)).to_have_count(0)
    expect(page.get_by_role("button", name=text(language, "tournament_join"))).to_be_visible()
    expect(page.get_by_role("button", name=text(language, "tournament_withdraw"))
           ).to_be_hidden()
