"""The web app: pages, the HTTP API and the table WebSocket (see ``docs/web-protocol.md``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from basra.bots import BOT_LEVELS
from basra.record import RecordError, loads
from basra.rules import OPTION_RANGES, option_names, option_specs
from basra.store import StorageError, Store

from .accounts_api import AccountSettings, accounts_router, request_account
from .cluster import Cluster
from .collector import Collector
from .hub import (
    Account,
    Connection,
    ExpiredTableError,
    Hub,
    HubSettings,
    RefusedConnection,
    ServerBusyError,
    UnknownTableError,
    UnrestoredTableError,
    encode,
)
from .pages import router as pages_router
from .players_api import players_router
from .ratelimit import DEFAULT_LIMITS, RateLimited, RateLimits
from .replay import replay_frames
from .security import EdgeChecks
from .seeking import Seeking, SeekSettings
from .table import ConfigError, JoinError, SeatConfig, TableConfig

__all__ = ["create_app"]

MAX_BODY = 1_000_000
"""Largest request body read (an uploaded record), in bytes."""


def web_root() -> Path:
    """The folder of the front end's files."""
    return Path(str(resources.files("basra") / "web"))


def _in_database_range(record_id: int) -> bool:
    """Whether an id fits the database's 64-bit integers (any other id is unknown)."""
    return -(2**63) <= record_id < 2**63


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise ConfigError(f"request body of {len(raw)} bytes; at most {MAX_BODY}")
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise ConfigError("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise ConfigError(f"expected a JSON object, not {raw[:60]!r}")
    return body


def create_app(database: str | None = None, *, store: Store | None = None,
               allow_origins: Sequence[str] = (),
               rate_limits: Mapping[str, str] = DEFAULT_LIMITS,
               rate_limit_storage: str = "memory://", accounts: AccountSettings | None = None,
               seeking: SeekSettings | None = None, cluster: Cluster | None = None,
               collector: Collector | None = None, **settings: Any) -> FastAPI:
    """The app, storing in ``database`` (a SQLAlchemy URL; the user's SQLite file by
    default). Pages from ``allow_origins`` (``https://basra.example``) may post and open
    table sockets besides the server's own. ``rate_limits`` per client address (see
    :mod:`basra.server.ratelimit`); ``settings`` are :class:`HubSettings` fields
    (``bot_delay``, ``away_after``, ``master_ms``, ...); ``accounts`` how accounts
    work (:class:`basra.server.accounts_api.AccountSettings`); ``seeking`` how seeks
    are paired (:class:`basra.server.seeking.SeekSettings`); ``cluster`` the servers it
    shares its tables with (:class:`basra.server.cluster.RedisCluster`; alone by
    default); ``collector`` when the process collects its garbage
    (:class:`basra.server.collector.Collector`, which ``basra serve`` gives; Python's
    defaults without)."""
    store = store if store is not None else Store(database)
    hub = Hub(store, HubSettings(**settings), cluster)
    limiter = RateLimits(rate_limits, rate_limit_storage)
    account_settings = accounts if accounts is not None else AccountSettings()
    seeks = Seeking(hub, store, seeking, session_clock=account_settings.clock)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await store.open()
        if collector is not None:
            collector.start()  # (before any table is in memory: none is frozen)
        await hub.start()
        await seeks.start()
        try:
            yield
        finally:
            await seeks.stop()
            await hub.stop()
            await store.close()
            if collector is not None:
                await collector.stop()

    app = FastAPI(title="basra", lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url="/api/openapi.json")
    app.state.hub = hub
    app.state.store = store
    app.state.seeking = seeks
    app.add_middleware(EdgeChecks, allow_origins=allow_origins, max_body=MAX_BODY)
    root = web_root()
    app.mount("/static", StaticFiles(directory=root), name="static")
    app.include_router(accounts_router(store, account_settings, allow_origins=allow_origins,
                                       rate_limits=rate_limits,
                                       rate_limit_storage=rate_limit_storage))
    app.include_router(players_router(store))

    async def account_of(request: Request) -> Account | None:
        user = await request_account(store, request, account_settings.clock)
        return None if user is None else (user.id, user.name)

    from .analysis_api import analysis_router  # analysis, puzzles, hints
    app.include_router(analysis_router(store, hub, account_of=account_of))

    app.include_router(pages_router)

    # -- API ---------------------------------------------------------------------------

    @app.exception_handler(ConfigError)
    async def config_error(_request: Request, error: ConfigError) -> JSONResponse:
        return _error(400, str(error))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'][1:])}: {problem['msg']}"
            for problem in error.errors())
        return _error(400, problems or "bad request")

    @app.exception_handler(JoinError)
    async def join_error(_request: Request, error: JoinError) -> JSONResponse:
        return _error(error.status, str(error))

    @app.exception_handler(UnknownTableError)
    async def unknown_table(_request: Request, error: UnknownTableError) -> JSONResponse:
        return _error(404, f"no table has the code {error.args[0]!r}")

    @app.exception_handler(ExpiredTableError)
    async def expired_table(_request: Request, error: ExpiredTableError) -> JSONResponse:
        return _error(410, f"table {error.args[0]!r} expired: nobody came to it")

    @app.exception_handler(UnrestoredTableError)
    async def unrestored(_request: Request, error: UnrestoredTableError) -> JSONResponse:
        return _error(503, f"table {error.args[0]!r} could not be restored from storage "
                           f"({error.args[1]}); the server's operator is told")

    @app.exception_handler(ServerBusyError)
    async def busy(_request: Request, error: ServerBusyError) -> JSONResponse:
        return _error(503, str(error))

    @app.exception_handler(StorageError)
    async def storage_error(_request: Request, error: StorageError) -> JSONResponse:
        return _error(503, f"storage is failing: {error}")

    @app.exception_handler(RateLimited)
    async def rate_limited(_request: Request, error: RateLimited) -> JSONResponse:
        response = _error(429, f"{error}; try again in {error.retry_after} s")
        response.headers["Retry-After"] = str(error.retry_after)
        return response

    def address(request: Request | WebSocket) -> str:
        return request.client.host if request.client is not None else ""

    # -- health ------------------------------------------------------------------------

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        """Whether the server works: 200 when storage commits (``status`` "degraded"
        when some stored table could not be restored), 503 while storage fails."""
        report = hub.health()
        if collector is not None:
            report["collector"] = collector.health()
        ok = report["storage"]["ok"]
        status = "failing" if not ok else ("degraded" if report["unrestored"] else "ok")
        return JSONResponse({"status": status, **report}, status_code=200 if ok else 503)

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        """Whether to send players here: 200 when storage commits, else 503."""
        ok = store.health.ok
        return JSONResponse({"ready": ok, "storage": store.health.to_dict()},
                            status_code=200 if ok else 503)

    @app.get("/api/variants")
    async def variants() -> list[dict[str, Any]]:
        from .table import variants_listing

        return variants_listing()

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        return {"levels": list(BOT_LEVELS), "options": option_names(),
                "ranges": {name: list(bounds) for name, bounds in OPTION_RANGES.items()},
                "specs": option_specs()}

    def seated(table_code: str, seat: int | None, token: str | None) -> dict[str, Any]:
        return {"code": table_code, "seat": seat, "token": token, "url": f"/t/{table_code}"}

    @app.post("/api/quick")
    async def quick(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        config = TableConfig("egyptian", 2, {}, (SeatConfig("human"),
                                                 SeatConfig("bot", "expert")))
        await limiter.check("create", address(request))
        account = await account_of(request)
        table, seat, token = await hub.create_table(config, named(body, account), account)
        return seated(table.code, seat, token)

    def named(body: dict[str, Any], account: Account | None) -> Any:
        """The name a player gave, else their account's."""
        name = body.get("name")
        return account[1] if name is None and account is not None else name

    @app.post("/api/tables")
    async def new_table(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        config = TableConfig.parse(body)
        await limiter.check("create", address(request))
        account = await account_of(request)
        table, seat, token = await hub.create_table(config, named(body, account), account)
        return seated(table.code, seat, token)

    @app.get("/api/tables")
    async def open_tables() -> list[dict[str, Any]]:
        """Tables that someone can join: waiting for a person in a free seat."""
        listed = await hub.open_tables()
        listed.sort(key=lambda t: str(t["code"]))
        return listed[:50]

    @app.get("/api/tables/{code}")
    async def describe_table(code: str) -> dict[str, Any]:
        return await hub.describe(code)

    @app.post("/api/tables/{code}/join")
    async def join(code: str, request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        await limiter.check("join", address(request))
        account = await account_of(request)
        seat, token = await hub.join(code, named(body, account), body.get("seat"), account)
        return {"seat": seat, "token": token}

    @app.get("/api/records")
    async def records(limit: int = 20) -> list[dict[str, Any]]:
        found = await store.list_records(limit=max(1, min(limit, 100)))
        return [r.summary() for r in found]

    @app.get("/api/records/{record_id}", response_model=None)
    async def record(record_id: int, download: bool = False) -> Response:
        found = await store.get_record(record_id) if _in_database_range(record_id) else None
        if found is None:
            return _error(404, f"no record has the id {record_id}")
        headers = ({"Content-Disposition": f'attachment; filename="basra-{record_id}.json"'}
                   if download else {})
        return Response(found.record, media_type="application/json", headers=headers)

    @app.get("/api/records/{record_id}/frames", response_model=None)
    async def record_frames(record_id: int) -> Response:
        found = await store.get_record(record_id) if _in_database_range(record_id) else None
        if found is None:
            return _error(404, f"no record has the id {record_id}")
        return JSONResponse(replay_frames(loads(found.record)))

    @app.post("/api/replay", response_model=None)
    async def replay_upload(request: Request) -> Response:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            return _error(400, f"record of {len(raw)} bytes; at most {MAX_BODY}")
        try:
            text = raw.decode("utf-8")
            return JSONResponse(replay_frames(loads(text)))
        except UnicodeDecodeError:
            return _error(400, "the record is not UTF-8 text")
        except RecordError as error:
            return _error(400, str(error))

    # -- the seek socket ---------------------------------------------------------------

    @app.websocket("/ws/seek")
    async def seek_socket(websocket: WebSocket) -> None:
        """One seek: waiting messages until the player is seated (see ``seeking.py``)."""
        if await limiter.hit("socket", address(websocket)) is not None:
            await websocket.close(1008)
            return
        await websocket.accept()
        await seeks.serve(websocket)

    # -- the table socket --------------------------------------------------------------

    @app.websocket("/ws/{code}")
    async def table_socket(websocket: WebSocket, code: str) -> None:
        if await limiter.hit("socket", address(websocket)) is not None:
            await websocket.close(1008)  # before the handshake: answered 403, cheaply
            return
        await websocket.accept()

        async def refuse(error_code: str, message: str, close_code: int) -> None:
            # The client may have gone meanwhile (a slow refusal): nothing to tell then.
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await websocket.send_text(encode({"type": "error", "code": error_code,
                                                  "message": message}))
                await websocket.close(close_code)

        try:
            connection = await hub.open_socket(code, websocket.query_params.get("token"),
                                               address(websocket))
        except UnknownTableError:
            return await refuse("unknown_table", f"no table has the code {code[:40]!r}", 4404)
        except ExpiredTableError:
            return await refuse("expired", "this table expired: nobody came to it", 4410)
        except UnrestoredTableError as error:
            return await refuse("unrestored", "this table could not be restored from "
                                f"storage ({error.args[1]}); the operator is told", 4500)
        except StorageError:
            return await refuse("storage_down", "the server cannot read its storage right "
                                "now; try again in a moment", 4503)
        except ServerBusyError as error:
            return await refuse("server_busy", str(error), 4503)
        except RefusedConnection as refused:
            return await refuse(refused.code, str(refused),
                                4401 if refused.code == "unknown_token" else 4429)
        # The socket ends when the client goes, or when the server closes it (a seat
        # opened in too many places, a client too far behind).
        reader = asyncio.create_task(_read(websocket, connection, hub))
        writer = asyncio.create_task(_write(websocket, connection))
        try:
            await asyncio.wait({reader, writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            reader.cancel()
            writer.cancel()
            hub.disconnect(connection)

    return app


async def _read(websocket: WebSocket, connection: Connection, hub: Hub) -> None:
    """Hand every message of a socket to the hub, in order, until the client goes."""
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                hub.error(connection, "bad_message", "send JSON text frames, not bytes")
                continue
            await hub.receive(connection, text)


async def _write(websocket: WebSocket, connection: Connection) -> None:
    """Send a connection's outbox to its socket, in order."""
    with contextlib.suppress(Exception):
        while True:
            message = await connection.outbox.get()
            if message is None:
                await websocket.close(1013)
                return
            await websocket.send_text(message if isinstance(message, str) else encode(message))
