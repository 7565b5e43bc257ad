"""Fixtures of the browser tests: the real server in a subprocess, and Chromium.

``basra serve`` runs as a child process on a free port and a fresh SQLite file, with
fast computer players (``--bot-delay 0.05``) and no takeover during a test
(``--away-after 600``). The browser is the system's Chromium (Debian's ``chromium``
package, or ``$BASRA_CHROMIUM``), driven by Playwright's sync API; Playwright never
downloads a browser here.

Every page a test opens records its console errors and uncaught exceptions; the test
fails at its end if there were any.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, ViewportSize, expect, sync_playwright

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
SERVER_START_SECONDS = 30.0
"""How long the server may take to answer ``GET /`` before the tests give up."""

VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
"""Wide enough for the lobby's three columns, so the Arabic test can see them mirrored."""

FAILED_RESOURCE = "Failed to load resource"

TIMEOUT_MS = 15_000
"""How long an action or an expectation waits before it fails (Playwright's default of
5 s for expectations is short for a loaded CI machine)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: end-to-end tests in a real browser against `basra serve`")


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


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT``) of a ``basra serve`` child process."""
    folder = tmp_path_factory.mktemp("e2e")
    port = _free_port()
    stderr_path = folder / "server.log"
    command = [sys.executable, "-m", "basra", "serve", "--port", str(port),
               "--db", f"sqlite:///{folder / 'e2e.db'}",
               "--bot-delay", "0.05", "--away-after", "600"]
    with open(stderr_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_SECONDS
    try:
        while not _answers(base + "/"):
            if process.poll() is not None or time.monotonic() > deadline:
                why = (f"exited with status {process.returncode}" if process.poll() is not None
                       else f"did not answer GET / in {SERVER_START_SECONDS:.0f} s")
                output = stderr_path.read_text(errors="replace")
                pytest.fail(f"`{' '.join(command)}` {why}; its output:\n{output}",
                            pytrace=False)
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


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


class PageErrors:
    """Console errors and uncaught exceptions of the pages one test opened."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def watch(self, page: Page, label: str, *, allow_failed_resource: bool) -> None:
        def on_console(message: ConsoleMessage) -> None:
            if message.type != "error":
                return
            if allow_failed_resource and message.text.startswith(FAILED_RESOURCE):
                return
            self.lines.append(f"{label}: console error: {message.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.lines.append(f"{label}: page error: {error}"))


OpenPage = Callable[..., Page]


@pytest.fixture
def open_page(browser: Browser, server: str) -> Iterator[OpenPage]:
    """Opens pages, each in a browser context of its own (its own localStorage):
    ``open_page(label="A", allow_failed_resource=False)``.

    At the end of the test, fails if any of them logged a console error or threw.
    """
    errors = PageErrors()
    contexts = []

    def opener(label: str = "page", *, allow_failed_resource: bool = False) -> Page:
        context = browser.new_context(base_url=server, viewport=VIEWPORT,
                                      accept_downloads=True, locale="en-US")
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        errors.watch(page, label, allow_failed_resource=allow_failed_resource)
        return page

    yield opener
    try:
        if errors.lines:
            pytest.fail("the pages logged errors:\n" + "\n".join(errors.lines), pytrace=False)
    finally:
        for context in contexts:
            context.close()
