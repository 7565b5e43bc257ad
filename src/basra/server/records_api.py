"""Finished matches over HTTP: their records and replays (``docs/web-protocol.md``).

    GET  /api/records?limit=N               the latest records' summaries
    GET  /api/records/{id}[?download=true]  a record (basra-record/1)
    GET  /api/records/{id}/frames           a record as replay frames
    POST /api/replay                        an uploaded record as replay frames
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from basra.record import loads

from .bodies import MAX_BODY
from .deps import StoreOf
from .errors import BadRecordError, UnknownRecordError
from .replay import replay_frames

__all__ = ["router"]

router = APIRouter()

RECORDS_LISTED = (1, 100)
"""The fewest and most records ``GET /api/records`` lists."""


def _in_database_range(record_id: int) -> bool:
    """Whether an id fits the database's 64-bit integers (any other id is unknown)."""
    return -(2**63) <= record_id < 2**63


async def _record_text(store: Any, record_id: int) -> str:
    found = await store.records.get(record_id) if _in_database_range(record_id) else None
    if found is None:
        raise UnknownRecordError(f"no record has the id {record_id}", id=str(record_id))
    text: str = found.record
    return text


@router.get("/api/records")
async def records(store: StoreOf, limit: int = 20) -> list[dict[str, Any]]:
    """The latest finished matches, newest first."""
    found = await store.records.latest(limit=max(RECORDS_LISTED[0],
                                               min(limit, RECORDS_LISTED[1])))
    return [r.summary() for r in found]


@router.get("/api/records/{record_id}", response_model=None)
async def record(record_id: int, store: StoreOf, download: bool = False) -> Response:
    """A finished match's record (as a file to save with ``download``)."""
    text = await _record_text(store, record_id)
    headers = ({"Content-Disposition": f'attachment; filename="basra-{record_id}.json"'}
               if download else {})
    return Response(text, media_type="application/json", headers=headers)


@router.get("/api/records/{record_id}/frames", response_model=None)
async def record_frames(record_id: int, store: StoreOf) -> Response:
    """A finished match as one open view per play."""
    return JSONResponse(replay_frames(loads(await _record_text(store, record_id))))


@router.post("/api/replay", response_model=None, openapi_extra={"requestBody": {
    "required": True, "content": {"application/json": {"schema": {
        "type": "object", "description": "A basra-record/1 document."}}}}})
async def replay_upload(request: Request) -> Response:
    """An uploaded record (basra-record/1), checked and turned into replay frames."""
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise BadRecordError(f"record of {len(raw)} bytes; at most {MAX_BODY}",
                             problem="too_big", size=len(raw), most=MAX_BODY)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRecordError("the record is not UTF-8 text", problem="not_text") from None
    return JSONResponse(replay_frames(loads(text)))
