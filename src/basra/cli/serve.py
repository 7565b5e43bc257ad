"""``basra serve``: the web app (the web framework loads only when the command runs)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import click

from basra.cli.common import UserError, cli, err, out
from basra.server.ratelimit import ACCOUNT_LIMITS
from basra.server.ratelimit import DEFAULT_LIMITS as _DEFAULT_LIMITS


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 for every network interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--db", "database", metavar="URL",
              help="Database URL: sqlite:///PATH or postgresql+asyncpg://USER:PASS@HOST/DB "
                   "[default: basra.db in the user data directory].")
@click.option("--bot-delay", type=click.FloatRange(min=0), default=0.8, show_default=True,
              help="Seconds a computer player waits before it plays, so people can follow.")
@click.option("--away-after", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="Seconds without a connection before the computer plays for a seat.")
@click.option("--master-ms", type=click.IntRange(min=1), default=300, show_default=True,
              help="Thinking time of the master level per move, in milliseconds.")
@click.option("--allow-origin", "allow_origins", metavar="ORIGIN", multiple=True,
              help="Another site whose pages may create and join tables and open table "
                   "sockets here, e.g. https://basra.example (repeatable); the server's own "
                   "pages always may.")
@click.option("--allowed-host", "allowed_host", metavar="HOST", multiple=True,
              help="A host name (or address) the server answers to in the Host header, "
                   "e.g. basra.example or *.example.org (repeatable); * answers any. "
                   "[default: localhost, 127.0.0.1, ::1 and --host] Others get 400, which "
                   "keeps pages of other names (DNS rebinding) away from the API.")
@click.option("--create-limit", default=_DEFAULT_LIMITS["create"], show_default=True,
              metavar="RATES", help="New tables (quick games too) per client address, e.g. "
                                    "20/minute;300/day.")
@click.option("--join-limit", default=_DEFAULT_LIMITS["join"], show_default=True,
              metavar="RATES", help="Seats taken per client address.")
@click.option("--socket-limit", default=_DEFAULT_LIMITS["socket"], show_default=True,
              metavar="RATES", help="Table sockets opened per client address.")
@click.option("--signup-limit", default=ACCOUNT_LIMITS["signup"], show_default=True,
              metavar="RATES", help="New accounts per client address.")
@click.option("--login-limit", default=ACCOUNT_LIMITS["login"], show_default=True,
              metavar="RATES", help="Log-in attempts per client address.")
@click.option("--sockets-per-address", type=click.IntRange(min=1), default=64,
              show_default=True, help="Most table sockets open from one client address.")
@click.option("--max-tables", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Most tables in memory; new tables beyond it are refused.")
@click.option("--master-workers", type=click.IntRange(min=1), default=None,
              help="Processes the master thinks in [default: every core but one].")
@click.option("--redis", "redis_url", metavar="URL",
              help="Share the tables with every other server given the same Redis "
                   "(redis://HOST:6379/0) and PostgreSQL --db: run as many servers as you "
                   "like behind a load balancer (see deploy/).")
@click.option("--server-id", metavar="NAME",
              help="This server's name among the servers sharing a Redis, in logs and "
                   "/healthz; each start adds a fresh suffix (NAME.1a2b3c4d), so a "
                   "restarted server is a new owner [default: a random name].")
@click.option("--puzzle-floor", type=click.IntRange(min=0), default=1600, show_default=True,
              help="Puzzles mined from a match join the public puzzles at once only when "
                   "it was rated and every player was rated at least this much; others "
                   "wait for a moderator.")
@click.option("--tournaments", "schedule_file", metavar="FILE",
              type=click.Path(dir_okay=False),
              help="A TOML file of tournaments the server holds on a schedule (an hourly "
                   "arena, a daily Swiss...): see docs/web.md, \"Tournaments\".")
@click.option("--tournament-limit", type=click.IntRange(min=0), default=3, show_default=True,
              help="Tournaments one account may create in 24 hours.")
@click.option("--shutdown-seconds", type=click.FloatRange(min=1), default=10.0,
              show_default=True,
              help="On SIGTERM (or Ctrl-C), the most seconds the server takes to stop: it "
                   "makes no new tables, tells its sockets to reconnect (close code 1012), "
                   "finishes its writes and exits; past this, it exits at once (every "
                   "confirmed move is stored already).")
@click.option("--tournament-minute", type=click.FloatRange(min=0.01), default=60.0,
              hidden=True, help="Seconds in an arena's minute (demonstrations and tests).")
@click.option("--tournament-tick", type=click.FloatRange(min=0.01), default=1.0,
              hidden=True, help="Seconds between two passes of the tournament director.")
@click.option("--metrics-port", type=click.IntRange(1, 65535), default=None,
              help="Serve Prometheus' metrics at GET /metrics on this port of its own "
                   "(see docs/operations.md); off by default.")
@click.option("--metrics-host", default="127.0.0.1", show_default=True,
              help="Address the --metrics-port listens on.")
@click.option("--metrics-token", metavar="TOKEN", envvar="BASRA_METRICS_TOKEN",
              help="Serve GET /metrics on the main port too, to a scraper that sends "
                   "Authorization: Bearer TOKEN (others get 404) [env: BASRA_METRICS_TOKEN].")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text",
              show_default=True,
              help="json: one JSON object a line (time, level, logger, message, request "
                   "id), for a log collector.")
@click.option("--access-log", is_flag=True,
              help="Log a line per HTTP request and WebSocket (method, path, status, "
                   "duration, request id).")
def serve(host: str, port: int, database: str | None, bot_delay: float, away_after: float,
          master_ms: int, allow_origins: tuple[str, ...], allowed_host: tuple[str, ...],
          create_limit: str, join_limit: str,
          socket_limit: str, signup_limit: str, login_limit: str,
          sockets_per_address: int, max_tables: int, master_workers: int | None,
          redis_url: str | None, server_id: str | None, puzzle_floor: int,
          schedule_file: str | None, tournament_limit: int, tournament_minute: float,
          tournament_tick: float, metrics_port: int | None, metrics_host: str,
          metrics_token: str | None, log_format: str, access_log: bool,
          shutdown_seconds: float) -> None:
    """Start the web app: play Basra in the browser with friends and computer players.

    One server with SQLite suits a home or a club. For more, start several servers with
    the same --db postgresql://… and --redis redis://…, behind a load balancer."""
    import asyncio
    import importlib.util
    import socket

    import uvicorn

    from basra.players.events import ScheduleError, load_schedule
    from basra.server import create_app
    from basra.server.collector import Collector
    from basra.server.directing import TournamentSettings
    from basra.server.logs import configure_logging
    from basra.server.ratelimit import parse_limits
    from basra.server.security import WebSocketHandshakeProtocol, allowed_hosts, parse_origin
    from basra.store import StorageError, Store, database_url, default_database_url

    try:
        url = database_url(database) if database else default_database_url()
    except ValueError as error:
        raise UserError(str(error)) from None
    try:
        origins = [parse_origin(origin) for origin in allow_origins]
    except ValueError as error:
        raise UserError(f"--allow-origin: {error}") from None
    try:
        hosts = allowed_hosts(host, allowed_host)
    except ValueError as error:
        raise UserError(f"--allowed-host: {error}") from None
    for option, rates in (("--create-limit", create_limit), ("--join-limit", join_limit),
                          ("--socket-limit", socket_limit), ("--signup-limit", signup_limit),
                          ("--login-limit", login_limit)):
        try:
            parse_limits(rates)
        except ValueError as error:
            raise UserError(f"{option}: {error}") from None
    try:
        schedule = () if schedule_file is None else load_schedule(schedule_file)
    except ScheduleError as error:
        raise UserError(f"--tournaments: {error}") from None
    if url.startswith("postgresql") and importlib.util.find_spec("asyncpg") is None:
        raise UserError("PostgreSQL storage needs the asyncpg driver: "
                        "pip install 'basra[postgres]'")
    if redis_url is not None:
        if not url.startswith("postgresql"):
            raise UserError("--redis shares tables between servers, which needs a database "
                            "they all reach: give --db postgresql://USER:PASS@HOST/DB too")
        if importlib.util.find_spec("redis") is None:
            raise UserError("--redis needs the redis package: pip install 'basra[cluster]'")
        if not redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise UserError(f"--redis {redis_url!r} is not a Redis URL; expected "
                            "redis://HOST:PORT/DB")
    if server_id is not None and not (0 < len(server_id) <= 40 and server_id.replace(
            "-", "").replace("_", "").isalnum()):
        raise UserError(f"--server-id {server_id!r} must be 1 to 40 letters, digits, - or _")
    if metrics_token is not None and len(metrics_token) < 16:
        raise UserError(f"--metrics-token is {len(metrics_token)} characters long; give "
                        "one of at least 16 (e.g. openssl rand -hex 16)")
    if metrics_port is not None and (metrics_port, metrics_host) == (port, host):
        raise UserError(f"--metrics-port {metrics_port} is the server's own --port: "
                        "choose another, or use --metrics-token on the main port")
    listens = [(host, port, "--port or --host")]
    if metrics_port is not None:
        listens.append((metrics_host, metrics_port, "--metrics-port or --metrics-host"))
    for at, number, options in listens:
        family = socket.AF_INET6 if ":" in at else socket.AF_INET
        try:
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((at, number))
        except OSError as error:
            raise UserError(f"cannot listen on {at}:{number}: {error.strerror or error}; "
                            f"choose another {options}") from None
    configure_logging(log_format, access_log)

    async def check_storage() -> None:
        store = Store(url)
        await store.open()  # migrates, and checks that a write commits
        await store.close()
        if redis_url is not None:
            from redis.asyncio import Redis

            client = Redis.from_url(redis_url)
            try:
                await client.ping()
            except Exception as error:
                raise StorageError(f"cannot reach Redis at {redis_url}: {error}") from None
            finally:
                await client.aclose()

    try:
        asyncio.run(check_storage())
    except StorageError as error:
        raise UserError(str(error)) from None
    cluster = None
    if redis_url is not None:
        from basra.server.cluster import RedisCluster

        cluster = RedisCluster(redis_url, server_id)
    app = create_app(url, bot_delay=bot_delay, away_after=away_after, master_ms=master_ms,
                     allow_origins=origins,
                     rate_limits={"create": create_limit, "join": join_limit,
                                  "socket": socket_limit, "signup": signup_limit,
                                  "login": login_limit},
                     address_connections=sockets_per_address, max_tables=max_tables,
                     master_workers=master_workers, warm_master=True, cluster=cluster,
                     puzzle_floor=puzzle_floor,
                     tournaments=TournamentSettings(
                         tick=tournament_tick, minute=tournament_minute,
                         daily_limit=tournament_limit, schedule=schedule),
                     collector=Collector(), allowed_hosts=hosts,
                     rate_limit_storage=redis_url or "memory://",
                     metrics_token=metrics_token,
                     metrics_address=(None if metrics_port is None
                                      else (metrics_host, metrics_port)))
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    out.print(f"[bold]Basra[/] is served at [bold cyan]http://{shown}:{port}/[/] "
              "(open it in a browser; Ctrl-C stops)", soft_wrap=True)
    out.print(f"Storage: {_hide_password(url)}", soft_wrap=True)
    for item in schedule:
        out.print(f"Holds {item.spec.name!r} every {item.every} minutes", soft_wrap=True)
    if metrics_port is not None:
        out.print(f"Metrics at http://{metrics_host}:{metrics_port}/metrics", soft_wrap=True)
    if cluster is not None:
        out.print(f"Shares tables through Redis {_hide_password(redis_url or '')} as "
                  f"server {cluster.server_id}", soft_wrap=True)
    logs: dict[str, Any] = {"log_config": None} if log_format == "json" else {}
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            ws_max_size=65536, ws=WebSocketHandshakeProtocol,
                            timeout_graceful_shutdown=max(1, int(shutdown_seconds / 2)),
                            **logs)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stopped it cleanly: exit 0
        _stopping_server(config, app.state.hub.drain, shutdown_seconds).run()


def _stopping_server(config: Any, drain: Callable[[], None], bound: float) -> Any:
    """uvicorn's server, which on SIGTERM or SIGINT closes its listening socket, closes
    every WebSocket with 1012 ("service restart": the page reconnects quietly), waits for
    the requests in flight (half of ``bound``) and runs the app's shutdown (the writer's
    last commits); this one also makes no new tables from the signal on (``drain``), and
    exits at once, status 1, if all that takes more than ``bound`` seconds."""
    import uvicorn

    class StoppingServer(uvicorn.Server):
        deadline: threading.Timer | None = None

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if self.deadline is None:
                drain()
                self.deadline = threading.Timer(bound, give_up)
                self.deadline.daemon = True
                self.deadline.start()
            super().handle_exit(sig, frame)

    def give_up() -> None:
        err.print(f"basra serve: not stopped within --shutdown-seconds {bound:g}: exiting "
                  "now (every confirmed move is stored)", soft_wrap=True)
        os._exit(1)

    return StoppingServer(config)


def _hide_password(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
