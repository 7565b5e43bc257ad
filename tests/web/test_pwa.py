"""The site as an installable app (``basra.server.pwa``): the manifest in the page's
language, its icons (PNGs of the sizes it declares), the service worker at the site's root
with the version of the static files it was started with, and uploads of bad records
refused with what the replay page needs to say why."""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from basra.i18n import languages, phrase, text
from basra.match import Match
from basra.record import Player, dumps, match_record
from basra.rules import make_rules
from basra.server import app as app_module
from basra.server import create_app
from basra.server.pages import LANGUAGE_COOKIE, web_root
from basra.server.pwa import MANIFEST_TYPE, VERSION_HEADER, shell, static_version

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height a PNG's header (its IHDR chunk) gives."""
    assert data[:8] == PNG_SIGNATURE, data[:8]
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def worker_version(script: str) -> str:
    found = re.search(r'^const VERSION = "([0-9a-f]+)";$', script, re.M)
    assert found is not None, script[:400]
    return found[1]


@pytest.mark.parametrize("language", languages())
def test_the_manifest_is_in_the_pages_language(web: Any, language: str) -> None:
    web.http.cookies.set(LANGUAGE_COOKIE, language)
    response = web.http.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(MANIFEST_TYPE)
    assert response.headers["content-language"] == language
    assert "Cookie" in response.headers["vary"]
    manifest = json.loads(response.text)
    assert manifest["lang"] == language
    assert manifest["dir"] == text(language, "language_dir")
    assert manifest["name"] == phrase(language, "app_name")
    assert manifest["short_name"] == phrase(language, "basra")
    assert manifest["description"] == phrase(language, "app_description")
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == ("/", "/",
                                                                               "standalone")
    for colour in ("theme_color", "background_color"):
        assert re.fullmatch(r"#[0-9a-f]{6}", manifest[colour])


def test_the_browsers_language_names_the_app_when_nobody_chose(web: Any) -> None:
    manifest = web.http.get("/manifest.webmanifest",
                            headers={"Accept-Language": "ar-EG,ar;q=0.9"}).json()
    assert (manifest["lang"], manifest["dir"]) == ("ar", "rtl")
    assert manifest["name"] == phrase("ar", "app_name") != phrase("en", "app_name")


def test_the_manifests_icons_are_pngs_of_the_sizes_it_declares(web: Any) -> None:
    icons = web.http.get("/manifest.webmanifest").json()["icons"]
    sizes = {(icon["sizes"], icon["purpose"]) for icon in icons}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in icons:
        response = web.http.get(icon["src"])
        assert response.status_code == 200, icon
        assert response.headers["content-type"] == icon["type"] == "image/png"
        width, height = png_size(response.content)
        assert f"{width}x{height}" == icon["sizes"], icon


def test_every_page_links_the_manifest_the_ios_icon_and_the_worker(web: Any) -> None:
    for path in ("/", "/help", "/replay", "/offline", "/t/k3f9x2q"):
        page = web.http.get(path).text
        assert '<link rel="manifest" href="/manifest.webmanifest"' in page, path
        assert '<meta name="apple-mobile-web-app-capable" content="yes">' in page, path
        assert '<meta name="theme-color"' in page, path
        assert '<script type="module" src="/static/js/service_worker.js">' in page, path
        assert '<link rel="apple-touch-icon" href="/static/icons/apple-touch-icon.png">' in page
    response = web.http.get("/static/icons/apple-touch-icon.png")
    assert response.headers["content-type"] == "image/png"
    assert png_size(response.content) == (180, 180)


@pytest.mark.parametrize("language", languages())
def test_the_help_page_says_how_to_install_the_app(web: Any, language: str) -> None:
    web.http.cookies.set(LANGUAGE_COOKIE, language)
    page = web.http.get("/help").text
    section = re.search(r'<section class="panel" id="app".*?</section>', page, re.S)
    assert section is not None
    for key in ("app_help_title", "app_help_install", "app_help_offline"):
        assert f'data-i18n="{key}">{phrase(language, key)}<' in html.unescape(section[0]), key


def test_the_worker_is_served_from_the_root_uncached_with_the_static_version(web: Any) -> None:
    response = web.http.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["service-worker-allowed"] == "/"
    version = worker_version(response.text)
    assert version == static_version(web_root()) == web.app.state.static_version
    page = web.http.get("/help")
    assert page.headers[VERSION_HEADER] == version
    assert "__SHELL__" not in response.text and "__VERSION__" not in response.text


def test_the_worker_keeps_the_offline_page_its_catalogs_and_icons_first(web: Any) -> None:
    script = web.http.get("/sw.js").text
    found = re.search(r"^const SHELL = (\[.*\]);$", script, re.M)
    assert found is not None
    kept = json.loads(found[1])
    assert kept == shell(web_root())
    for needed in ("/static/js/offline.js", "/static/js/i18n.js", "/static/js/dom.js",
                   "/static/js/service_worker.js", "/static/css/base.css",
                   "/static/css/info.css", "/static/icons/icon-192.png"):
        assert needed in kept
    assert {f"/static/i18n/{code}.json" for code in languages()} <= set(kept)
    for url in kept:
        assert web.http.get(url).status_code == 200, url
    assert web.http.get("/offline").status_code == 200


def test_the_worker_never_keeps_the_api_sockets_or_posts(web: Any) -> None:
    script = web.http.get("/sw.js").text
    assert 'request.method !== "GET"' in script
    handled = re.search(r'self\.addEventListener\("fetch".*?\n\}\);', script, re.S)
    assert handled is not None
    assert 'url.pathname.startsWith("/static/")' in handled[0]
    assert 'request.mode === "navigate"' in handled[0]
    assert "/api/" not in handled[0]  # neither kept nor answered: straight to the network


def test_the_version_changes_when_a_static_file_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "web"
    shutil.copytree(web_root(), folder)
    monkeypatch.setattr(app_module, "web_root", lambda: folder)

    def served_version() -> str:
        client = TestClient(create_app(f"sqlite:///{tmp_path / 'basra.db'}"))
        return worker_version(client.get("/sw.js").text)

    before = served_version()
    assert served_version() == before  # the same files: the same version
    sheet = folder / "css" / "base.css"
    sheet.write_text(sheet.read_text(encoding="utf-8") + "\n/* changed */\n", encoding="utf-8")
    after = served_version()
    assert after != before
    (folder / "js" / "new.js").write_text("export {};\n", encoding="utf-8")
    assert served_version() not in (before, after)


# Uploads of bad records: what the replay page words in its language.


def bad_record(response: Any) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == "bad_record", body
    assert isinstance(body["message"], str) and body["message"]
    return body


def a_record() -> dict[str, Any]:
    match = Match(make_rules("egyptian"), seed=3, variant="egyptian")
    while not match.is_over:
        match.play(match.legal_moves()[0])
    record: dict[str, Any] = json.loads(dumps(match_record(
        match, [Player("Amira", "human"), Player("Layla", "bot")])))
    return record


@pytest.mark.parametrize(("content", "params"), [
    (b"", {"problem": "not_json"}),
    (b"Expecting value", {"problem": "not_json"}),
    (b"\xff\xfe\x00", {"problem": "not_text"}),
    (b"[1, 2]", {"problem": "not_record"}),
    (b"{}", {"problem": "not_record"}),
    (b'{"format": "pgn"}', {"problem": "not_record"}),
    (b'{"format": "basra-record/2"}', {"problem": "version", "version": "basra-record/2"}),
])
def test_a_file_that_is_no_record_says_what_it_is(web: Any, content: bytes,
                                                 params: dict[str, Any]) -> None:
    assert bad_record(web.http.post("/api/replay", content=content))["params"] == params


def test_a_record_that_breaks_the_rules_says_where(web: Any) -> None:
    record = a_record()
    assert web.http.post("/api/replay", json=record).status_code == 200
    broken = json.loads(json.dumps(record))
    broken["deals"][1]["plays"][3]["basra"] = not broken["deals"][1]["plays"][3]["basra"]
    body = bad_record(web.http.post("/api/replay", json=broken))
    assert body["params"] == {"problem": "invalid", "deal": 2, "play": 4}
    assert body["message"].startswith("deal 2, play 4: ")
    broken = json.loads(json.dumps(record))
    broken["deals"][0]["floor"] = "7D"
    assert bad_record(web.http.post("/api/replay", json=broken))["params"] == {
        "problem": "invalid", "deal": 1}
    broken = json.loads(json.dumps(record))
    broken["result"]["winner"] = 1 - broken["result"]["winner"]
    assert bad_record(web.http.post("/api/replay", json=broken))["params"] == {
        "problem": "invalid"}
