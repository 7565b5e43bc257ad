"""The pages: HTML from one base template (``web/templates/base.html``), in the language
the person chose (the ``basra_lang`` cookie the language menu sets), else the first of
their browser's languages that has a catalog, else English.

=============  ==================  =========================================
URL            template            scripts and styles
=============  ==================  =========================================
/              lobby.html          lobby.js; lobby.css
/t/{code}      table.html          table.js; table.css
/replay[/id]   replay.html         replay.js; table.css, replay.css
/u/{name}      profile.html        profile.js; info.css
/leaderboard   leaderboard.html    leaderboard.js; info.css
/help          help.html           help.js; info.css
/puzzles       puzzles.html        puzzles.js; table.css, puzzles.css
/mod           moderation.html     moderation.js; info.css, moderation.css
=============  ==================  =========================================

Every page has the same header: the lobby, play online, puzzles, the leaderboard, help,
the account and a language menu with one entry a catalog (``web/i18n/<lang>.json``).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates

from basra.i18n import choose_language, languages, text

from .errors import NoPageError

__all__ = ["LANGUAGE_COOKIE", "NAVIGATION", "router", "web_root"]

LANGUAGE_COOKIE = "basra_lang"
"""The cookie that keeps the language a person chose (set by the pages' language menu)."""

NAVIGATION = (("/", "lobby"), ("/#online", "play_online"), ("/puzzles", "puzzles"),
              ("/leaderboard", "leaderboard"), ("/help", "help"))
"""The header's links on every page: where each goes and its catalog key."""

BASE_STYLES = ("base", "components")
"""The style sheets every page loads (``web/css/``), before its own."""


@dataclass(frozen=True)
class Page:
    """A page: its template, its script and its own style sheets."""

    template: str
    script: str
    styles: tuple[str, ...]
    title_key: str | None = None


PAGES = {
    "lobby": Page("lobby.html", "lobby", ("lobby",)),
    "table": Page("table.html", "table", ("table",)),
    "replay": Page("replay.html", "replay", ("table", "replay"), "replay_title"),
    "profile": Page("profile.html", "profile", ("info",), "basra"),
    "leaderboard": Page("leaderboard.html", "leaderboard", ("info",), "leaderboard"),
    "help": Page("help.html", "help", ("info",), "help"),
    "puzzles": Page("puzzles.html", "puzzles", ("table", "puzzles"), "puzzles_title"),
    "moderation": Page("moderation.html", "moderation", ("info", "moderation"),
                       "mod_title"),
    "account": Page("account.html", "account_page", ("info",), "account_title"),
}


def web_root() -> Path:
    """The folder of the front end's files."""
    return Path(str(resources.files("basra") / "web"))


def _templates_folder() -> Path:
    return web_root() / "templates"


templates = Jinja2Templates(directory=_templates_folder())

router = APIRouter(include_in_schema=False)


def page_language(request: Request) -> str:
    """The language of the pages for this request."""
    return choose_language(request.cookies.get(LANGUAGE_COOKIE),
                           request.headers.get("accept-language"))


def _context(language: str, page: Page, current: str) -> dict[str, Any]:
    def translate(key: str, **params: object) -> str:
        return text(language, key, **params)

    return {
        "lang": language,
        "dir": text(language, "language_dir"),
        "languages": [{"code": code, "name": text(code, "language_name"),
                       "dir": text(code, "language_dir")} for code in languages()],
        "t": translate,
        "links": NAVIGATION,
        "current": current,
        "script": page.script,
        "styles": (*BASE_STYLES, *page.styles),
        "title_key": page.title_key,
    }


def render(request: Request, name: str, current: str = "") -> Response:
    """The page ``name`` of :data:`PAGES` in the request's language; a 404 when its
    template is not part of this server's front end."""
    page = PAGES[name]
    if not (_templates_folder() / page.template).is_file():
        raise NoPageError(f"this page ({page.template}) is not part of this server's front "
                          "end yet", page=page.template)
    language = page_language(request)
    response = templates.TemplateResponse(request, page.template,
                                           _context(language, page, current))
    response.headers["Content-Language"] = language
    response.headers["Vary"] = "Cookie, Accept-Language"
    return response


@router.get("/")
async def lobby(request: Request) -> Response:
    return render(request, "lobby", "/")


@router.get("/t/{code}")
async def table_page(request: Request, code: str) -> Response:
    return render(request, "table")


@router.get("/u/{name}")
async def profile_page(request: Request, name: str) -> Response:
    return render(request, "profile")


@router.get("/leaderboard")
async def leaderboard_page(request: Request) -> Response:
    return render(request, "leaderboard", "/leaderboard")


@router.get("/help")
async def help_page(request: Request) -> Response:
    return render(request, "help", "/help")


@router.get("/puzzles")
async def puzzles_page(request: Request) -> Response:
    return render(request, "puzzles", "/puzzles")


@router.get("/account")
async def account_page(request: Request) -> Response:
    return render(request, "account")


@router.get("/replay")
@router.get("/replay/{record_id}")
async def replay_page(request: Request, record_id: str | None = None) -> Response:
    return render(request, "replay")
