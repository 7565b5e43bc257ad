"""The HTML pages: each is a file of the front end (``src/basra/web``), served as it is."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from .errors import NoPageError

__all__ = ["router", "web_root"]

router = APIRouter(include_in_schema=False)


def web_root() -> Path:
    """The folder of the front end's files."""
    return Path(str(resources.files("basra") / "web"))


def page(name: str) -> FileResponse:
    """A page of the front end."""
    return FileResponse(web_root() / name, media_type="text/html")


def optional_page(name: str) -> FileResponse:
    """A page the front end may not have yet: 404 until its file is there."""
    if not (web_root() / name).is_file():
        raise NoPageError(f"this page ({name}) is not part of this server's front end yet",
                          page=name)
    return page(name)


@router.get("/")
async def lobby() -> FileResponse:
    return page("index.html")


@router.get("/t/{code}")
async def table_page(code: str) -> FileResponse:
    return page("table.html")


@router.get("/u/{name}")
async def profile_page(name: str) -> FileResponse:
    return optional_page("profile.html")


@router.get("/leaderboard")
async def leaderboard_page() -> FileResponse:
    return optional_page("leaderboard.html")


@router.get("/help")
async def help_page() -> FileResponse:
    return optional_page("help.html")


@router.get("/replay")
@router.get("/replay/{record_id}")
async def replay_page(record_id: str | None = None) -> FileResponse:
    return page("replay.html")


@router.get("/puzzles")
async def puzzles_page() -> FileResponse:
    return page("puzzles.html")
