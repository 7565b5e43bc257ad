"""The lessons' HTTP API (``/learn``): the lessons, a step's answer, and the lessons an
account has finished.

    GET  /api/lessons                         -> {"lessons": [{id, family, title, steps, preset}]}
    GET  /api/lessons/{id}                    -> {id, family, title, preset, next, steps: [...]}
    POST /api/lessons/{id}/steps/{n}/answer   {move} -> {right, move, taken, leftover, basra,
                                                          bonus, why}
    GET  /api/learn/progress                  -> {"account": name | null, "lessons": {id: ms}}
    PUT  /api/learn/progress                  {lessons: [id, ...]} -> the same, after adding

Every position comes from :mod:`basra.study.lessons`, built and judged by the rules core;
texts travel as catalog keys with their params, cards as codes (``7D``). A pile game's
step (family ``pisti``) lists its pile bottom to top, a face-down card as null, and the
stock's ``shown`` bottom card; an answer's ``bonus`` is what its basra, sur or pişti
scores (a double pişti's 20). An unknown lesson or step is ``unknown_lesson`` (404), a
move that is not legal there ``illegal_move`` (400). Only a logged-in account has
progress here (a guest's stays in the browser, and a guest's PUT is ``login_required``,
401); the page sends a guest's progress with its first PUT after logging in, and it joins
the account's.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from basra.study.lessons import LESSONS, Lesson, judge, lesson, step_view

from .bodies import AnswerBody, ProgressBody, openapi_body, read_body
from .deps import AccountOf, StoreOf
from .errors import BadRequestError, IllegalAnswerError, LoginRequiredError, UnknownLessonError

__all__ = ["router"]

router = APIRouter()

MAX_LESSONS_SENT = 100
"""Most lesson ids one PUT may carry (there are far fewer lessons)."""


def _lesson(lesson_id: str) -> Lesson:
    try:
        return lesson(lesson_id)
    except KeyError:
        raise UnknownLessonError(f"no lesson has the id {lesson_id[:40]!r}",
                                 lesson=lesson_id[:40]) from None


def _summary(found: Lesson) -> dict[str, Any]:
    return {"id": found.id, "family": found.family, "title": found.title,
            "steps": len(found.steps), "preset": found.rules_preset}


@router.get("/api/lessons")
async def lessons() -> dict[str, Any]:
    """Every lesson, Basra's first, then Pasur's, then the pile games'."""
    return {"lessons": [_summary(found) for found in LESSONS]}


@router.get("/api/lessons/{lesson_id}")
async def one_lesson(lesson_id: str) -> dict[str, Any]:
    """A lesson with every step's position and each card's legal moves."""
    found = _lesson(lesson_id)
    index = LESSONS.index(found)
    following = LESSONS[index + 1].id if index + 1 < len(LESSONS) else None
    return {**_summary(found), "next": following,
            "steps": [step_view(step) for step in found.steps]}


@router.post("/api/lessons/{lesson_id}/steps/{number}/answer", response_model=None,
             openapi_extra=openapi_body(AnswerBody, True))
async def answer(lesson_id: str, number: int, request: Request) -> JSONResponse:
    """Judge a move of a step (numbered from 1): right, or why it is worse."""
    found = _lesson(lesson_id)
    if not 1 <= number <= len(found.steps):
        raise UnknownLessonError(
            f"lesson {found.id!r} has steps 1 to {len(found.steps)}, not {number}",
            lesson=found.id, step=number)
    body = await read_body(request, AnswerBody, example='{"move": "5S:5D"}')
    move = body.move
    if not isinstance(move, str) or not move or len(move) > 200:
        raise BadRequestError('expected {"move": "5S:5D"}')
    try:
        verdict = judge(found.steps[number - 1], move)
    except ValueError as error:
        raise IllegalAnswerError(str(error), move=move[:40]) from None
    return JSONResponse(verdict.to_json())


@router.get("/api/learn/progress")
async def progress(store: StoreOf, user: AccountOf) -> dict[str, Any]:
    """The lessons the logged-in account finished; none for a guest."""
    if user is None:
        return {"account": None, "lessons": {}}
    return {"account": user[1], "lessons": await store.learning.finished(user[0])}


@router.put("/api/learn/progress", openapi_extra=openapi_body(ProgressBody, True))
async def add_progress(request: Request, store: StoreOf, user: AccountOf) -> dict[str, Any]:
    """Add finished lessons to the account's (a guest's progress stays in the browser)."""
    if user is None:
        raise LoginRequiredError("progress is kept for accounts: log in to keep it here "
                                 "(a guest's stays in the browser)")
    body = await read_body(request, ProgressBody, example='{"lessons": ["matching"]}')
    sent = body.lessons
    if (not isinstance(sent, list) or len(sent) > MAX_LESSONS_SENT
            or not all(isinstance(item, str) for item in sent)):
        raise BadRequestError(
            f'expected {{"lessons": ["matching", ...]}} with at most {MAX_LESSONS_SENT} ids')
    ids = [_lesson(item).id for item in sent]
    await store.learning.finish(user[0], ids)
    return {"account": user[1], "lessons": await store.learning.finished(user[0])}
