"""The web app: pages, the HTTP API and the table WebSocket (see ``docs/web-protocol.md``).

``create_app`` builds the app's shared objects (on ``app.state``), includes one router
per capability and answers every error from the one table of :mod:`.errors`:

    pages.py          the HTML pages
    pwa.py            the web app manifest and the service worker
    tables_api.py     tables, seats and the table and seek sockets
    records_api.py    records and replays
    accounts_api.py   sign up, log in, log out, who is logged in
    sessions_api.py   your account: sessions, change of password
    players_api.py    players' pages and the leaderboards
    games_api.py      open data: a player's finished matches as ndjson
    analysis_api.py   analyses, puzzles and hints
    moderation_api.py reports, blocks, sanctions and the moderation page
    tournaments_api.py tournaments: made, listed, joined, their standings and records
    tokens_api.py     personal access tokens (bearer.py: who a token stands for)
    challenges_api.py challenges, and notifications (notifying.py delivers them)
    friends_api.py    following players: follow, unfollow, who is online or playing
    bot_api.py        bot accounts and the Bot API's streams and moves
    health_api.py     /healthz and /readyz
    metrics_api.py    /metrics on the main port, to the holder of a token (metrics.py:
                      the numbers; logs.py: request ids and structured logs)
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from basra.store import Store

from . import (
    accounts_api,
    analysis_api,
    bot_api,
    bot_play,
    challenges_api,
    friends_api,
    games_api,
    health_api,
    learn_api,
    metrics_api,
    moderation_api,
    pages,
    players_api,
    pwa,
    records_api,
    sessions_api,
    tables_api,
    tokens_api,
    tournaments_api,
)
from .accounts_api import Accounts, AccountSettings
from .analysis_api import Analyses
from .bodies import MAX_BODY
from .cluster import Cluster
from .collector import Collector
from .directing import Director, TournamentSettings
from .errors import ERRORS, HTTP_CODES, error_response, http_error_response, refusal_of
from .hub import Hub
from .logs import RequestIds
from .metrics import Metrics, listen, stop_listening
from .notifying import Notifier
from .pages import web_root
from .ratelimit import DEFAULT_LIMITS, STUDY_LIMITS, TOKEN_LIMITS, RateLimits
from .security import AllowedHosts, EdgeChecks
from .seeking import Seeking, SeekSettings
from .settings import HubSettings

__all__ = ["MAX_BODY", "create_app", "web_root"]


def create_app(database: str | None = None, *, store: Store | None = None,
               allow_origins: Sequence[str] = (),
               rate_limits: Mapping[str, str] = DEFAULT_LIMITS,
               rate_limit_storage: str = "memory://", accounts: AccountSettings | None = None,
               seeking: SeekSettings | None = None, cluster: Cluster | None = None,
               collector: Collector | None = None, allowed_hosts: Sequence[str] | None = None,
               tournaments: TournamentSettings | None = None,
               metrics_token: str | None = None,
               metrics_address: tuple[str, int] | None = None, **settings: Any) -> FastAPI:
    """The app, storing in ``database`` (a SQLAlchemy URL; the user's SQLite file by
    default). Pages from ``allow_origins`` (``https://basra.example``) may post and open
    table sockets besides the server's own. ``rate_limits`` per client address (see
    :mod:`basra.server.ratelimit`); ``settings`` are :class:`HubSettings` fields
    (``bot_delay``, ``away_after``, ``master_ms``, ...); ``accounts`` how accounts
    work (:class:`basra.server.sessions.AccountSettings`); ``seeking`` how seeks
    are paired (:class:`basra.server.seeking.SeekSettings`); ``cluster`` the servers it
    shares its tables with (:class:`basra.server.cluster.RedisCluster`; alone by
    default); ``collector`` when the process collects its garbage
    (:class:`basra.server.collector.Collector`, which ``basra serve`` gives; Python's
    defaults without); ``allowed_hosts`` the ``Host`` names it answers
    (:func:`basra.server.security.allowed_hosts`; any without); ``tournaments`` how the
    tournament director works and the operator's schedule
    (:class:`basra.server.directing.TournamentSettings`); ``metrics_token`` the bearer
    token that opens ``GET /metrics`` on the app's own port (404 without it: closed by
    default), ``metrics_address`` a (host, port) that serves ``/metrics`` to anyone who
    reaches it, while the app runs (:mod:`basra.server.metrics`)."""
    store = store if store is not None else Store(database)
    hub = Hub(store, HubSettings(**settings), cluster)
    account_settings = accounts if accounts is not None else AccountSettings()
    limiter = RateLimits({**STUDY_LIMITS, **TOKEN_LIMITS, **rate_limits}, rate_limit_storage)
    seeks = Seeking(hub, store, seeking, session_clock=account_settings.clock,
                    limiter=limiter)
    analyses = Analyses(store, hub, limiter=limiter)
    director = Director(hub, store, tournaments, clock=account_settings.clock)
    notifier = Notifier(store, clock=account_settings.clock)
    metrics = Metrics(metrics_token)
    store.on_commit(metrics.committed)
    limiter.on_refused = metrics.refused
    hub.play.computer.on_waited = metrics.waited
    analyses.on_waited = metrics.waited

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await store.open()
        if collector is not None:
            collector.start()  # (before any table is in memory: none is frozen)
        await hub.start()
        await seeks.start()
        await director.start()
        await notifier.start()
        metrics.watch(_app.state)
        listener = (None if metrics_address is None
                    else listen(metrics, *metrics_address))
        try:
            yield
        finally:
            if listener is not None:
                stop_listening(listener)
            metrics.unwatch()
            analyses.close()
            await notifier.stop()
            await director.stop()
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
    app.state.limiter = limiter
    app.state.account_settings = account_settings
    app.state.accounts = Accounts(account_settings, allow_origins=allow_origins,
                                  rate_limits=rate_limits,
                                  rate_limit_storage=rate_limit_storage)
    app.state.accounts.limiter.on_refused = metrics.refused
    app.state.analyses = analyses
    app.state.director = director
    app.state.notifier = notifier
    app.state.metrics = metrics
    moderation_api.register(hub)
    bot_play.register(hub, notifier)
    app.state.collector = collector
    if allowed_hosts is not None:
        app.add_middleware(AllowedHosts, hosts=allowed_hosts)
    app.add_middleware(EdgeChecks, allow_origins=allow_origins, max_body=MAX_BODY)
    app.add_middleware(RequestIds)  # the outermost: its id is in every line logged
    app.mount("/static", StaticFiles(directory=web_root()), name="static")
    app.state.static_version = pwa.static_version(web_root())
    for module in (pages, health_api, tables_api, records_api, accounts_api, players_api,
                   games_api, analysis_api, moderation_api, sessions_api, learn_api,
                   tournaments_api, tokens_api, challenges_api, friends_api, bot_api,
                   metrics_api, pwa):
        app.include_router(module.router)
    for error_type in ERRORS:
        app.add_exception_handler(error_type, _answer_error)
    app.add_exception_handler(HTTPException, _answer_http_error)
    return app


async def _answer_error(request: Request, error: Exception) -> JSONResponse:
    answer = refusal_of(error)
    if answer is not None:
        request.app.state.metrics.answered(answer.code)
    return error_response(error)


async def _answer_http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    request.app.state.metrics.answered(HTTP_CODES.get(error.status_code,
                                                      f"http_{error.status_code}"))
    return http_error_response(error.status_code, str(error.detail), error.headers)
