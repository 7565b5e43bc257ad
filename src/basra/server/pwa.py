"""The site as an app on a phone's home screen: the web app manifest and the service worker.

    GET /manifest.webmanifest   the manifest, in the page's language (name, colours, icons)
    GET /sw.js                  the service worker (``web/sw.js``), scope the whole site

The worker keeps the static files in a cache named for :func:`static_version`, a hash of
the web folder's files computed when the server starts: a server with other files has
another version, so a browser never runs scripts of an older one (``docs/web.md``). The
pages carry the version in their ``X-Basra-Static`` header (:data:`VERSION_HEADER`).

The icons (``web/icons/``) are PNGs drawn from ``web/favicon.svg``'s design.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from basra.i18n import phrase, text

from .pages import BASE_STYLES, PAGES, page_language, web_root

__all__ = ["ICONS", "MANIFEST_TYPE", "VERSION_HEADER", "manifest", "router", "shell",
           "static_version"]

router = APIRouter(include_in_schema=False)

MANIFEST_TYPE = "application/manifest+json"

VERSION_HEADER = "X-Basra-Static"
"""The header of every page that names the static files' version it was served with."""

THEME_COLOUR = "#0b2a1a"
"""The header bar's green (a phone's status bar and title bar take it)."""

BACKGROUND_COLOUR = "#1f6e44"
"""The felt (the splash screen while the app starts)."""

ICONS = (("icon-192.png", 192, "any"), ("icon-512.png", 512, "any"),
         ("icon-maskable-512.png", 512, "maskable"))
"""The manifest's icons in ``web/icons/``: file, size in pixels (square), purpose. The
maskable one keeps the card inside the middle 80 % that every mask shows;
``apple-touch-icon.png`` (180 px, for iOS) is linked from the pages."""

_IMPORT = re.compile(r"""(?:\bfrom|\bimport)\s*\(?\s*["']\./([\w-]+\.js)["']""")


def static_version(root: Path) -> str:
    """A hash of every file under ``root`` (names and bytes): another file, or a file
    changed, gives another version.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "a.js").write_text("one")
    ...     before = static_version(Path(folder))
    ...     _ = (Path(folder) / "a.js").write_text("two")
    ...     before != static_version(Path(folder))
    True
    """
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        name = path.relative_to(root).as_posix()
        if "__pycache__" in name:
            continue
        digest.update(f"{name}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _scripts(root: Path, script: str) -> list[str]:
    """``script`` (``js/<script>.js``) and every module it imports, directly or not."""
    found: list[str] = []
    waiting = [f"{script}.js"]
    while waiting:
        name = waiting.pop()
        if name in found or not (root / "js" / name).is_file():
            continue
        found.append(name)
        waiting.extend(_IMPORT.findall((root / "js" / name).read_text(encoding="utf-8")))
    return sorted(found)


def shell(root: Path) -> list[str]:
    """The static files the worker keeps as soon as it is installed: what the offline
    page needs (its scripts and style sheets), every catalog, the icons."""
    offline = PAGES["offline"]
    scripts = sorted({*_scripts(root, offline.script), *_scripts(root, "service_worker")})
    files = [f"js/{name}" for name in scripts]
    files += [f"css/{sheet}.css" for sheet in (*BASE_STYLES, *offline.styles)]
    files += [f"i18n/{path.name}" for path in sorted((root / "i18n").glob("*.json"))]
    files += ["favicon.svg"]
    files += [f"icons/{path.name}" for path in sorted((root / "icons").glob("*.png"))]
    return [f"/static/{name}" for name in files if (root / name).is_file()]


def manifest(language: str) -> dict[str, Any]:
    """The web app manifest in ``language``."""
    return {
        "id": "/",
        "name": phrase(language, "app_name"),
        "short_name": phrase(language, "basra"),
        "description": phrase(language, "app_description"),
        "lang": language,
        "dir": text(language, "language_dir"),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "categories": ["games"],
        "icons": [{"src": f"/static/icons/{name}", "sizes": f"{size}x{size}",
                   "type": "image/png", "purpose": purpose} for name, size, purpose in ICONS],
    }


def version_of(request: Request) -> str:
    """The static files' version of the app serving ``request``."""
    version: str = getattr(request.app.state, "static_version", "")
    return version


@router.get("/manifest.webmanifest")
async def manifest_file(request: Request) -> Response:
    language = page_language(request)
    return Response(json.dumps(manifest(language), ensure_ascii=False, indent=1),
                    media_type=MANIFEST_TYPE,
                    headers={"Content-Language": language, "Cache-Control": "no-cache",
                             "Vary": "Cookie, Accept-Language"})


@router.get("/sw.js")
async def service_worker(request: Request) -> Response:
    root = web_root()
    source = (root / "sw.js").read_text(encoding="utf-8")
    script = (source.replace('"__VERSION__"', json.dumps(version_of(request)))
              .replace("__SHELL__", json.dumps(shell(root))))
    return Response(script, media_type="text/javascript",
                    headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})
