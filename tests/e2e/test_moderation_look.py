"""Reporting, blocking and the moderation page in Chromium, in English and in Arabic (right
to left): a player reports and blocks another from their page, the moderator finds the
report on /mod and mutes the player, and the muted player sees why on their pages.

The server is a ``basra serve`` of this module's own, so ``basra admin grant-moderator``
can run on its database."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from basra.i18n import text
from tests.support.browsing import Opener
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

PASSWORD = "a good long password"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(base URL, database URL) of a server of this module's own."""
    folder = tmp_path_factory.mktemp("moderation")
    url = sqlite_url(folder / "mod.db")
    with Server(url, folder, "--bot-delay", "0.05", "--away-after", "600") as server:
        server.wait()
        yield server.base, url


def logged_in(pages: Opener, base: str, language: str, name: str) -> Page:
    """A page of a new account's own browser, in ``language``."""
    context = pages.context(base_url=base)
    context.add_cookies([{"name": "basra_lang", "value": language, "url": base}])
    page = pages.page(name, context=context)
    answer = page.request.post(f"{base}/api/signup", data={"name": name, "password": PASSWORD})
    assert answer.status == 201, answer.text()
    return page


@pytest.mark.parametrize("language", ["en", "ar"])
def test_report_block_and_moderate_in_the_browser(
        pages: Opener, served: tuple[str, str], language: str, tmp_path: Path) -> None:
    base, database = served
    rania, tariq, mona = (f"{name}{language}" for name in ("Rania", "Tariq", "Mona"))

    def say(key: str, **params: object) -> str:
        return text(language, key, **params)

    reporter = logged_in(pages, base, language, rania)
    target = logged_in(pages, base, language, tariq)
    reporter.goto(f"/u/{tariq}")
    expect(reporter.locator("html")).to_have_attribute("dir", say("language_dir"))
    reporter.locator("#report-player").click()
    dialog = reporter.locator("#report-dialog")
    expect(dialog.locator("#report-title")).to_have_text(say("mod_report_title", name=tariq))
    dialog.get_by_label(say("mod_reason_abuse")).check()
    dialog.locator("#report-text").fill("insults after every deal")
    dialog.locator("#report-send").click()
    expect(dialog.locator("#report-done")).to_have_text(say("mod_report_sent"))
    dialog.locator("#report-cancel").click()
    reporter.locator("#block-player").click()
    expect(reporter.locator("#player-action-status")).to_have_text(
        say("mod_blocked_name", name=tariq))
    expect(reporter.locator("#block-player")).to_have_text(say("mod_unblock"))
    reporter.goto(f"/u/{rania}")
    expect(reporter.locator("#blocks li bdi")).to_have_text([tariq])

    moderator = logged_in(pages, base, language, mona)
    granted = subprocess.run([sys.executable, "-m", "basra", "admin", "grant-moderator", mona,
                              "--db", database], capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr
    moderator.goto("/mod")
    expect(moderator.locator("h1")).to_have_text(say("mod_title"))
    report = moderator.locator("#mod-reports li.mod-item", has_text=tariq)
    expect(report).to_contain_text("insults after every deal")
    expect(report).to_contain_text(say("mod_reason_abuse"))
    report.locator("button[data-action=mute]").click()
    expect(moderator.locator("#mod-name")).to_have_value(tariq)
    moderator.locator("#mod-reason").fill("insults")
    moderator.locator("#mod-do").click()
    expect(moderator.locator("#mod-audit tr[data-action=mute]", has_text=tariq)).to_contain_text(
        "insults")
    expect(moderator.locator("#mod-reports li.mod-item", has_text=tariq)).to_have_count(0)
    if language == "ar":
        moderator.set_viewport_size({"width": 1100, "height": 900})
        moderator.screenshot(path=str(tmp_path / "moderation-ar.png"), full_page=True)

    target.goto("/")
    notice = target.locator("#standing .standing-notice[data-kind=mute]")
    expect(notice).to_contain_text(say("mod_sanction_mute"))
    expect(notice).to_contain_text(say("mod_because", reason="insults"))
