"""Whether the server works, for load balancers and operators.

    GET /healthz   200 while storage commits ("degraded" when a stored table could not
                   be restored), else 503; tables, sockets, the cluster, the collector
    GET /readyz    200 when storage commits and the server is not stopping, else 503
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from .collector import Collector
from .deps import HubOf, StoreOf, collector_of

__all__ = ["router"]

router = APIRouter()


@router.get("/healthz")
async def healthz(hub: HubOf,
                  collector: Annotated[Collector | None, Depends(collector_of)]
                  ) -> JSONResponse:
    """Whether the server works: 200 when storage commits (``status`` "degraded"
    when some stored table could not be restored), 503 while storage fails."""
    report = hub.health()
    if collector is not None:
        report["collector"] = collector.health()
    ok = report["storage"]["ok"]
    status = "failing" if not ok else ("degraded" if report["unrestored"] else "ok")
    return JSONResponse({"status": status, **report}, status_code=200 if ok else 503)


@router.get("/readyz")
async def readyz(store: StoreOf, hub: HubOf) -> JSONResponse:
    """Whether to send players here: 200 when storage commits, else 503 (503 too while
    the server stops: ``stopping``)."""
    ok = store.health.ok and not hub.draining
    return JSONResponse({"ready": ok, "stopping": hub.draining,
                         "storage": store.health.to_dict()},
                        status_code=200 if ok else 503)
