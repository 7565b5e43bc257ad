"""``GET /metrics`` on the main port: Prometheus' text format (:mod:`.metrics`) for a
scraper that sends ``Authorization: Bearer TOKEN`` (``basra serve --metrics-token``).
Any other request is answered 404, as if the path did not exist."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from .errors import HTTP_CODES, http_error_response
from .metrics import CONTENT_TYPE, Metrics

__all__ = ["router"]

router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """The metrics, to the holder of the token; 404 to anyone else."""
    found: Metrics = request.app.state.metrics
    if not found.opens(request.headers.get("authorization")):
        found.answered(HTTP_CODES[404])
        return http_error_response(404, "Not Found")
    return Response(found.exposition(), media_type=CONTENT_TYPE)
