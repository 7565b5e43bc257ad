"""The site on a phone's home screen, in a real browser: the manifest is linked and parsed,
the service worker registers, controls the page after a reload and keeps it, so that
without a network a visited page still opens and another shows the offline page (in
English and Arabic, with a Retry button that works once the network is back); and the
replay page's steps fit one row on a phone, where a refused upload says why in the page's
language.

Screenshots go to ``$BASRA_SCREENSHOTS``, or to the test's temporary folder (its path is
printed).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from basra.i18n import phrase
from basra.match import Match
from basra.record import Player, dumps, match_record
from basra.rules import make_rules
from tests.support.browsing import PHONE, expect_translated

pytestmark = pytest.mark.e2e

Visit = Callable[..., Page]

STEPS = ("#first", "#previous", "#counter", "#next", "#last")
"""The replay page's steps, in the order they stand in its row."""


def worker_ready(page: Page) -> dict[str, Any]:
    """Waits for the page's service worker to be active; its scope, script and state."""
    found: dict[str, Any] = page.evaluate("""async () => {
        const registration = await navigator.serviceWorker.ready;
        const worker = registration.active;
        if (worker.state !== "activated") {
            await new Promise((done) => worker.addEventListener("statechange", () => {
                if (worker.state === "activated") done();
            }));
        }
        return { scope: registration.scope, script: worker.scriptURL, state: worker.state,
                 controlled: navigator.serviceWorker.controller !== null };
    }""")
    return found


def wait_until_kept(page: Page, path: str, seconds: float = 15) -> None:
    """Waits until the worker has kept the page at ``path``."""
    deadline = time.monotonic() + seconds
    while not page.evaluate("""async (path) => {
        const cache = await caches.open("basra-pages");
        return (await cache.match(path, { ignoreVary: true })) !== undefined;
    }""", path):
        assert time.monotonic() < deadline, f"the worker did not keep {path}"
        time.sleep(0.1)


def test_the_manifest_is_linked_and_the_browser_reads_it(visit: Visit, server: str) -> None:
    page = visit("ar")
    page.goto("/")
    expect(page.locator('link[rel="manifest"]')).to_have_attribute("href",
                                                                   "/manifest.webmanifest")
    session = page.context.new_cdp_session(page)
    read = session.send("Page.getAppManifest")
    assert read["url"] == f"{server}/manifest.webmanifest"
    assert read["errors"] == [], read["errors"]
    manifest = json.loads(read["data"])
    assert manifest["name"] == phrase("ar", "app_name")  # the page's language: its cookie
    assert manifest["dir"] == "rtl"
    for icon in manifest["icons"]:
        size = page.evaluate("""async (src) => {
            const image = new Image();
            image.src = src;
            await image.decode();
            return `${image.naturalWidth}x${image.naturalHeight}`;
        }""", icon["src"])
        assert size == icon["sizes"], icon


def test_the_worker_registers_and_controls_the_page_after_a_reload(
        visit: Visit, server: str) -> None:
    page = visit()
    page.goto("/help")
    worker = worker_ready(page)
    assert worker["scope"] == f"{server}/"
    assert worker["script"] == f"{server}/sw.js"
    assert worker["state"] == "activated"
    page.reload()
    assert page.evaluate("navigator.serviceWorker.controller?.scriptURL") == f"{server}/sw.js"
    # Files come from its cache now; the API and the socket never go through it.
    answered = page.evaluate("""async () => {
        const answer = async (url) => (await fetch(url)).headers.get("content-type");
        return [await answer("/static/css/base.css"), await answer("/api/me")];
    }""")
    assert answered[0].startswith("text/css") and answered[1].startswith("application/json")
    kept = page.evaluate("""async () => {
        const names = await caches.keys();
        const urls = [];
        for (const name of names) {
            for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
        }
        return urls;
    }""")
    assert f"{server}/help" in kept and f"{server}/static/js/help.js" in kept
    assert not [url for url in kept if "/api/" in url or "/ws" in url], kept


@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_offline_a_visited_page_opens_and_another_shows_the_offline_page(
        visit: Visit, server: str, shot: Callable[..., None], language: str) -> None:
    page = visit(language, PHONE, allow_failed_resource=True)
    page.goto("/help")
    worker_ready(page)
    page.reload()
    wait_until_kept(page, "/help")
    help_title = phrase(language, "help_title")
    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text(help_title)
    expect(page.locator("html")).to_have_attribute("lang", language)

    page.goto("/leaderboard")  # never opened here
    expect(page.get_by_role("heading", level=1)).to_have_text(
        phrase(language, "app_offline_heading"))
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    kept = page.get_by_test_id("kept-pages").get_by_role("link")
    expect(kept.filter(has_text=phrase(language, "help"))).to_have_attribute("href", "/help")
    retry = page.get_by_role("button", name=phrase(language, "app_retry"))
    expect(retry).to_be_visible()
    expect(page.get_by_text(phrase(language, "app_offline_needs"))).to_be_visible()
    expect_translated(page)
    shot(page, "offline")

    with page.expect_navigation():
        retry.click()  # still offline: the offline page again, reloaded
    expect(page.get_by_role("heading", level=1)).to_have_text(
        phrase(language, "app_offline_heading"))
    page.context.set_offline(False)
    retry.click()
    expect(page.locator("h1.page-title")).to_have_text(phrase(language, "leaderboard"))


# The replay page.


def a_record() -> dict[str, Any]:
    """A short match of two as a record."""
    rules = make_rules("egyptian", 2, {"target": 10})
    match = Match(rules, seed=11, variant="egyptian")
    while not match.is_over:
        match.play(match.legal_moves()[0])
    record: dict[str, Any] = json.loads(dumps(match_record(
        match, [Player("Amira", "human"), Player("Layla (expert)", "bot")])))
    return record


def upload(page: Page, content: bytes, name: str = "match.json") -> None:
    page.locator("#record-file").set_input_files(
        {"name": name, "mimeType": "application/json", "buffer": content})


@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_the_replay_steps_fit_one_row_on_a_phone(
        visit: Visit, shot: Callable[..., None], language: str) -> None:
    page = visit(language, PHONE)
    page.goto("/replay")
    upload(page, json.dumps(a_record()).encode())
    expect(page.locator("#viewer")).to_be_visible()
    page.locator("#last").click()
    boxes = [box for step in STEPS if (box := page.locator(step).bounding_box())]
    assert len(boxes) == len(STEPS), boxes
    buttons = [box for step, box in zip(STEPS, boxes, strict=True) if step != "#counter"]
    assert len({round(box["y"]) for box in buttons}) == 1, buttons  # one top
    lowest_top = max(box["y"] for box in boxes)
    assert all(lowest_top < box["y"] + box["height"] for box in boxes), boxes  # one row
    assert all(box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] for box in boxes)
    lefts = [box["x"] for box in boxes]
    # In a right-to-left page "first" is on the right.
    assert lefts == sorted(lefts, reverse=language != "en"), lefts
    for step in ("first", "previous", "next", "last"):
        expect(page.get_by_role("button", name=phrase(language, step), exact=True)).to_be_visible()
    expect(page.locator("#counter")).not_to_have_text("")
    page.locator("#previous").click()
    expect(page.locator("#next")).to_have_attribute("aria-disabled", "false")
    shot(page, "steps")


@pytest.mark.parametrize("language", ["en", "ar"])
def test_the_replay_steps_keep_their_words_on_a_desk(
        visit: Visit, shot: Callable[..., None], language: str) -> None:
    page = visit(language)
    page.goto("/replay")
    upload(page, json.dumps(a_record()).encode())
    for step in ("first", "previous", "next", "last"):
        expect(page.locator(f"#{step}")).to_have_text(phrase(language, step))
    expect(page.locator(".keys-hint")).to_be_visible()
    shot(page, "steps")


@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_a_refused_upload_says_why_in_the_pages_language(
        visit: Visit, shot: Callable[..., None], language: str) -> None:
    page = visit(language, PHONE, allow_failed_resource=True)  # (the 400s)
    page.goto("/replay")
    alert = page.locator("#alert")
    upload(page, b"this is not JSON", "notes.txt")
    expect(alert).to_have_text(phrase(language, "upload_not_json"))
    assert "Expecting value" not in alert.inner_text()
    shot(page, "not-json")
    upload(page, b'{"players": []}')
    expect(alert).to_have_text(phrase(language, "upload_not_record"))
    upload(page, b'{"format": "basra-record/2"}')
    expect(alert).to_have_text(phrase(language, "upload_version", version="basra-record/2"))
    broken = a_record()
    broken["deals"][0]["plays"][2]["basra"] = not broken["deals"][0]["plays"][2]["basra"]
    upload(page, json.dumps(broken).encode())
    expect(alert).to_have_text(phrase(language, "upload_invalid_play", deal=1, play=3))
    expect(page.locator("#viewer")).to_be_hidden()
