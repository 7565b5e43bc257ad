"""The pages: HTML from one base template (``web/templates/base.html``), in the language
the person chose (the ``basra_lang`` cookie the language menu sets), else the first of
their browser's languages that has a catalog, else English.

=============  ==================  =========================================
URL            template            scripts and styles
=============  ==================  =========================================
/              lobby.html          lobby.js; lobby.css
/t/{code}      table.html          table.js; table.css, leaving.css
/replay[/id]   replay.html         replay.js; table.css, replay.css
/u/{name}      profile.html        profile.js; info.css, friends.css
/leaderboard   leaderboard.html    leaderboard.js; info.css
/help          help.html           help.js; info.css
/puzzles[/id]  puzzles.html        puzzles.js; table.css, puzzles.css
/mod           moderation.html     moderation.js; info.css, moderation.css
/account       account.html        account_page.js, tokens.js; info.css, friends.css
/learn[/id]    learn.html          learn.js; table.css, learn.css
/rules[/name]  rules.html          rules_page.js; info.css, rules.css
/watch         watch.html          watch.js; info.css, watch.css
/tournaments   tournaments.html    tournaments.js; info.css, tournaments.css
/tournament/i  tournament.html     tournament.js; info.css, tournaments.css
/tv            tv.html             tv.js, table.js; table.css, leaving.css, watch.css
/offline       offline.html        offline.js; info.css
/following     following.html      following.js; info.css, friends.css
/inbox         inbox.html          inbox.js; info.css, friends.css
/challenge/id  challenge.html      challenge_page.js; info.css, friends.css
=============  ==================  =========================================

Every page has the same header: the lobby, play online, learn, puzzles, watch,
tournaments, the leaderboard, help, the account and a language menu with one entry a catalog
(``web/i18n/<lang>.json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates

from basra.i18n import choose_language, languages, phrase, text
from basra.players.marks import MAX_MARKS

from .errors import NoPageError
from .rules_page import rules_context
from .settings import CHAT_LIMIT

__all__ = ["LANGUAGE_COOKIE", "NAVIGATION", "help_params", "lobby_params", "router", "web_root"]

LANGUAGE_COOKIE = "basra_lang"
"""The cookie that keeps the language a person chose (set by the pages' language menu)."""

NAVIGATION = (("/", "lobby"), ("/#online", "play_online"), ("/learn", "learn"),
              ("/puzzles", "puzzles"), ("/watch", "nav_watch"),
              ("/tournaments", "nav_tournaments"), ("/leaderboard", "leaderboard"),
              ("/help", "help"))
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
    "table": Page("table.html", "table", ("table", "leaving")),
    "replay": Page("replay.html", "replay", ("table", "replay"), "replay_title"),
    "profile": Page("profile.html", "profile", ("info", "friends"), "basra"),
    "leaderboard": Page("leaderboard.html", "leaderboard", ("info",), "leaderboard"),
    "help": Page("help.html", "help", ("info",), "help"),
    "puzzles": Page("puzzles.html", "puzzles", ("table", "puzzles"), "puzzles_title"),
    "moderation": Page("moderation.html", "moderation", ("info", "moderation"),
                       "mod_title"),
    "account": Page("account.html", "account_page", ("info", "friends"), "account_title"),
    "learn": Page("learn.html", "learn", ("table", "learn"), "learn"),
    "rules": Page("rules.html", "rules_page", ("info", "rules"), "rules"),
    "watch": Page("watch.html", "watch", ("info", "watch"), "nav_watch"),
    "tournaments": Page("tournaments.html", "tournaments", ("info", "tournaments"),
                        "nav_tournaments"),
    "tournament": Page("tournament.html", "tournament", ("info", "tournaments"),
                       "tournament_title"),
    "tv": Page("tv.html", "tv", ("table", "leaving", "watch"), "tv"),
    "offline": Page("offline.html", "offline", ("info",), "offline_title"),
    "following": Page("following.html", "following", ("info", "friends"), "friends_title"),
    "inbox": Page("inbox.html", "inbox", ("info", "friends"), "inbox_title"),
    "challenge": Page("challenge.html", "challenge_page", ("info", "friends"),
                      "challenge_page_title"),
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
        return phrase(language, key, **params)

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


Param = dict[str, Any]
"""A catalog text's params; one that is itself a text is ``{"key": ..., its params}``
(:func:`basra.i18n.phrase`, and the pages' ``data-i18n-params``)."""

_UNITS = (("hour", 3600), ("minute", 60), ("second", 1))


def duration(seconds: float) -> Param:
    """A span of time as a text: in the largest unit that measures it whole.

    >>> duration(86400), duration(300), duration(90)
    ({'key': 'duration_hour', 'n': 24}, {'key': 'duration_minute', 'n': 5}, \
{'key': 'duration_second', 'n': 90})
    """
    whole = max(1, round(seconds))
    unit, size = next((unit, size) for unit, size in _UNITS if whole % size == 0)
    return {"key": f"duration_{unit}", "n": whole // size}


def rate(items: Sequence[Any]) -> Param:
    """A rate limit's items (the ``limits`` library's, ``20/minute;300/day``) as a text:
    "20 a minute (300 a day)"; "any number" without a limit."""
    texts: list[Param] = []
    for item in items:
        unit = item.GRANULARITY.name
        if item.multiples == 1 and unit in ("second", "minute", "hour", "day"):
            texts.append({"key": f"rate_{unit}", "n": item.amount})
        else:
            texts.append({"key": "rate_per", "n": item.amount,
                          "period": duration(item.get_expiry())})
    if not texts:
        return {"key": "rate_any"}
    if len(texts) == 1:
        return texts[0]
    more = texts[1]
    for item_text in texts[2:]:
        more = {"key": "rate_and", "first": more, "second": item_text}
    return {"key": "rate_help", "rate": texts[0], "more": more}


def help_params(state: Any) -> dict[str, Param]:
    """The numbers the help page states, as this server has them: its hub's settings
    (``state.hub.settings``), the rate limits in force (``state.limiter``), the analyses'
    settings (``state.analyses.config``) and the chat's limits; params by catalog key."""
    settings = state.hub.settings
    limits = state.limiter.limits
    analysis = state.analyses.config
    messages, seconds = CHAT_LIMIT
    window = duration(settings.conduct_window)
    return {
        "conduct_help_pairs": {"times": {"key": "times_count", "n": settings.same_pair_limit},
                               "window": window},
        "conduct_help_playban": {"window": window, "wait": duration(settings.playban_base),
                                 "cap": duration(settings.playban_cap)},
        "mod_help_puzzles": {"rating": settings.puzzle_floor},
        "limit_help_play": {"tables": rate(limits.get("create", [])),
                            "connections": settings.address_connections,
                            "hints_seat": rate(limits.get("hint_seat", [])),
                            "hints": rate(limits.get("hint", []))},
        "limit_help_chat": {"messages": {"key": "messages_count", "n": messages},
                            "period": duration(seconds),
                            "marks": {"key": "marks_count", "n": MAX_MARKS}},
        "limit_help_analysis": {"network": rate(limits.get("analysis", [])),
                                "account": rate(limits.get("analysis_account", [])),
                                "queued": analysis.max_queued,
                                "moves": analysis.max_decisions},
    }


def render(request: Request, name: str, current: str = "",
           **extra: Any) -> Response:
    """The page ``name`` of :data:`PAGES` in the request's language; a 404 when its
    template is not part of this server's front end."""
    page = PAGES[name]
    if not (_templates_folder() / page.template).is_file():
        raise NoPageError(f"this page ({page.template}) is not part of this server's front "
                          "end yet", page=page.template)
    language = page_language(request)
    response = templates.TemplateResponse(request, page.template,
                                           {**_context(language, page, current), **extra})
    response.headers["Content-Language"] = language
    response.headers["Vary"] = "Cookie, Accept-Language"
    response.headers["X-Basra-Static"] = getattr(request.app.state, "static_version", "")
    return response


def lobby_params(state: Any) -> dict[str, Param]:
    """The numbers the lobby states, as this server has them: the turn timer of the
    tables Play online makes (``state.seeking.settings``); params by catalog key."""
    return {"online_hint": {"time": duration(state.seeking.settings.turn_seconds)}}


@router.get("/")
async def lobby(request: Request) -> Response:
    return render(request, "lobby", "/", params=lobby_params(request.app.state))


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
    return render(request, "help", "/help", params=help_params(request.app.state))


@router.get("/puzzles")
@router.get("/puzzles/{puzzle_id}")
async def puzzles_page(request: Request, puzzle_id: str | None = None) -> Response:
    """The puzzles; ``/puzzles/{id}`` opens that puzzle (the page says so when there is
    none with that id)."""
    return render(request, "puzzles", "/puzzles")


@router.get("/account")
async def account_page(request: Request) -> Response:
    return render(request, "account")


@router.get("/replay")
@router.get("/replay/{record_id}")
async def replay_page(request: Request, record_id: str | None = None) -> Response:
    return render(request, "replay")


@router.get("/learn")
@router.get("/learn/{lesson}")
async def learn_page(request: Request, lesson: str | None = None) -> Response:
    return render(request, "learn", "/learn")


@router.get("/rules")
@router.get("/rules/{preset}")
async def rules_page(request: Request, preset: str | None = None) -> Response:
    context, status = rules_context(preset)
    response = render(request, "rules", "", **context)
    response.status_code = status
    return response


@router.get("/watch")
async def watch_page(request: Request) -> Response:
    return render(request, "watch", "/watch")


@router.get("/tournaments")
async def tournaments_page(request: Request) -> Response:
    """The tournaments: upcoming, running and finished, and the form of a new one."""
    return render(request, "tournaments", "/tournaments")


@router.get("/tournament/{tournament_id}")
async def tournament_page(request: Request, tournament_id: str) -> Response:
    """A tournament: its rules, countdown, standings and games (the page says so when
    there is none with that id)."""
    return render(request, "tournament", "/tournaments")


TV_NEXT_SECONDS = 6
"""Seconds Basra TV stays on a game that ended before it moves on to the next."""


@router.get("/tv")
async def tv_page(request: Request, after: str | None = None) -> Response:
    """Basra TV: the table page, as a watcher, of the best live game (the first of the
    Watch list, :mod:`basra.server.watching`) other than ``after``, the one just shown."""
    listing = await request.app.state.hub.watching.listing()
    chosen = next((entry for entry in listing if entry["code"] != after), None)
    return render(request, "tv", "/watch", tv=chosen, tv_next_ms=TV_NEXT_SECONDS * 1000)


@router.get("/offline")
async def offline_page(request: Request) -> Response:
    return render(request, "offline")


@router.get("/following")
async def following_page(request: Request) -> Response:
    """The players one follows: who is playing (to watch), online or away."""
    return render(request, "following")


@router.get("/inbox")
async def inbox_page(request: Request) -> Response:
    """One's notifications: challenges to answer, tables to go to."""
    return render(request, "inbox")


@router.get("/challenge/{challenge_id}")
async def challenge_page(request: Request, challenge_id: str) -> Response:
    """A challenge, to accept (an open challenge's link leads here)."""
    return render(request, "challenge")
