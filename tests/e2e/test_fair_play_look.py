"""Fair play in a real browser, against a real ``basra serve``: an account that abandoned
rated games too often sees its wait on the seek panel, in its language, and the Help
page explains the rules (``docs/web-protocol.md``, "Fair play")."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.browsing import VIEWPORT, Opener, expect_translated
from tests.support.realserver import Server, sqlite_url

pytestmark = pytest.mark.e2e

TEXT = {
    "en": {"sign_up": "Sign up", "username": "Username", "password": "Password",
           "create": "Create account", "play_online": "Play online",
           "wait": "wait 5 minutes", "fair_play": "Fair play"},
    "ar": {"sign_up": "اشترك", "username": "اسم المستخدم", "password": "كلمة المرور",
           "create": "أنشئ الحساب", "play_online": "العب عبر الإنترنت",
           "wait": "انتظر ٥ دقائق", "fair_play": "اللعب النظيف"},
    "fa": {"sign_up": "ثبت‌نام", "username": "نام کاربری", "password": "گذرواژه",
           "create": "ساختن حساب", "play_online": "بازی آنلاین",
           "wait": "۵ دقیقه", "fair_play": "بازی جوانمردانه"},
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """This module's server and its database file."""
    folder = tmp_path_factory.mktemp("fair-play")
    database = folder / "fair.db"
    with Server(sqlite_url(database), folder, "--bot-delay", "0.05") as server:
        server.wait()
        yield server.base, database


def abandon_twice(database: Path, name: str) -> None:
    """Two rated games abandoned just now, as the server stores them."""
    now = int(time.time() * 1000)
    with contextlib.closing(sqlite3.connect(database, timeout=10)) as db, db:
        [(user_id,)] = db.execute("SELECT id FROM basra_users WHERE name = ?", (name,))
        db.executemany("INSERT INTO basra_abandons (user_id, kind, table_code, match_number,"
                       " created_at) VALUES (?, ?, ?, 1, ?)",
                       [(user_id, "abort", f"gone{n}", now - n) for n in (1, 0)])


@pytest.mark.parametrize("language", ["en", "ar", "fa"])
def test_a_player_who_keeps_leaving_sees_the_wait_and_the_rules(
        pages: Opener, served: tuple[str, Path], language: str, tmp_path: Path) -> None:
    base, database = served
    text = TEXT[language]
    context = pages.context(base_url=base, viewport=VIEWPORT)
    context.add_init_script(f"localStorage.setItem('basra.lang', '{language}')")
    page: Page = pages.page(language, context=context, allow_failed_resource=True)
    name = f"Leaver{os.getpid() % 1000}{language}"
    page.goto("/")
    page.get_by_role("button", name=text["sign_up"]).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label(text["username"]).fill(name)
    dialog.get_by_label(text["password"]).fill("correct horse 42")
    dialog.get_by_role("button", name=text["create"]).click()
    expect(dialog).to_be_hidden()
    abandon_twice(database, name)

    expect(page.locator("#online-rated")).to_be_checked()
    page.get_by_role("button", name=text["play_online"]).click()
    error = page.locator("#online-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text(text["wait"])
    expect(page.locator("#online-form")).to_be_visible()  # back to choosing
    expect_translated(page, (name,))
    page.screenshot(path=tmp_path / f"playban-{language}.png")

    page.goto("/help")
    section = page.locator("#fair-play")
    expect(section.get_by_role("heading")).to_have_text(text["fair_play"])
    expect(section.locator("p")).to_have_count(9)  # with resigning, aborting and leaving
    expect_translated(page, (name,))
