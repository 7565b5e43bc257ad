"""Fixtures of the browser tests: the real server in a subprocess, and Chromium.

``basra serve`` runs as a child process on a free port and a fresh SQLite file, with
fast computer players (``--bot-delay 0.05``), no takeover during a test
(``--away-after 600``) and the per-address limits on new tables, seats and sockets lifted:
every browser test comes from 127.0.0.1, and the limits have tests of their own
(``tests/web/test_limits.py``). The browser is the system's Chromium (Debian's ``chromium``
package, or ``$BASRA_CHROMIUM``), driven by Playwright's sync API; Playwright never
downloads a browser here.

Every page a test opens records its console errors and uncaught exceptions; the test
fails at its end if there were any.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright

from tests.support.browsing import PHONE, TIMEOUT_MS, VIEWPORT, Opener
from tests.support.realserver import Server, sqlite_url

CHROMIUM = os.environ.get("BASRA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT``) of a ``basra serve`` child process."""
    folder = tmp_path_factory.mktemp("e2e")
    with Server(sqlite_url(folder / "e2e.db"), folder,
                "--bot-delay", "0.05", "--away-after", "600",
                "--create-limit", "1000/minute;10000/day", "--join-limit", "1000/minute",
                "--socket-limit", "1000/minute") as served:
        served.wait()
        yield served.base


# Module scope, not session scope: while Playwright's sync API is started it marks its
# event loop as the running one, which would break every later test that calls
# asyncio.run() or anyio. Stopping it with the module hands the thread back.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless system Chromium."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: install it with `apt-get install -y chromium` "
                    "(or point $BASRA_CHROMIUM at a Chromium binary); the browser tests "
                    "never download one", pytrace=False)
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def pages(browser: Browser) -> Iterator[Opener]:
    """Opens pages (``pages.page(label, context=None, allow_failed_resource=False)``),
    each in a browser context of its own unless given one (``pages.context()``).

    At the end of the test, fails if any of them logged a console error or threw.
    """
    opener = Opener(browser)
    yield opener
    opener.finish()


OpenPage = Callable[..., Page]


@pytest.fixture
def open_page(pages: Opener, server: str) -> OpenPage:
    """Opens pages on the session's server, each in a browser context of its own:
    ``open_page(label="A", allow_failed_resource=False)`` (see ``pages``)."""

    def opener(label: str = "page", *, allow_failed_resource: bool = False) -> Page:
        context = pages.context(base_url=server, accept_downloads=True)
        return pages.page(label, context=context, allow_failed_resource=allow_failed_resource)

    return opener


Visit = Callable[..., Page]


@pytest.fixture
def visit(pages: Opener, server: str) -> Visit:
    """A page in a context of its own, in ``language`` (chosen before: the cookie and the
    browser's memory, as the language menu keeps it), at ``viewport``'s size."""

    def opener(language: str = "en", viewport: ViewportSize = VIEWPORT, *,
               allow_failed_resource: bool = False) -> Page:
        phone = viewport == PHONE
        context = pages.context(base_url=server, viewport=viewport, is_mobile=phone,
                                has_touch=phone)
        context.add_cookies([{"name": "basra_lang", "value": language, "url": server}])
        context.add_init_script(f"try {{ localStorage.setItem('basra.lang', '{language}'); }} "
                                "catch {}")
        return pages.page(language, context=context,
                          allow_failed_resource=allow_failed_resource)

    return opener


@pytest.fixture
def shot(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., None]]:
    """Saves a screenshot named after the test and ``what``."""
    folder = Path(os.environ.get("BASRA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    test = request.node.originalname.removeprefix("test_")[:40]
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None:
        test += f"-{callspec.id}"

    def take(page: Page, what: str, *, full_page: bool = False) -> None:
        path = folder / f"{test}-{what}.png"
        page.screenshot(path=path, full_page=full_page)
        print(f"screenshot {path}")

    yield take
