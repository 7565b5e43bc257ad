"""Request ids, structured logs and the access log.

Every HTTP request and every WebSocket gets a request id (:data:`REQUEST_ID`, a context
variable set by the :class:`RequestIds` middleware): the one the client or the proxy sent
in ``X-Request-Id`` when it is short and plain, else a fresh one. An HTTP answer carries
it back in ``X-Request-Id``, and every log line written while the request (or the socket)
is served can name it.

``basra serve --log-format json`` writes one JSON object a line (:class:`JsonFormatter`):

    {"time": "2026-11-29T01:02:03.456Z", "level": "INFO", "logger": "basra.access",
     "message": "GET /api/tables 200 3.1 ms", "request_id": "5f0c...", "method": "GET",
     "path": "/api/tables", "status": 200, "duration_ms": 3.1}

``--access-log`` adds a line per HTTP request and per WebSocket (when it closes: status
101) on the ``basra.access`` logger; without it nothing is written per request.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import secrets
import sys
import time
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ACCESS", "REQUEST_ID", "JsonFormatter", "RequestIds", "configure_logging"]

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id",
                                                                        default=None)
"""The id of the HTTP request or WebSocket being served (None outside one)."""

ACCESS = logging.getLogger("basra.access")
"""One line per request, at INFO, when ``--access-log`` is given."""

_SENT_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_FIELDS = ("method", "path", "status", "duration_ms")


def _request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            sent: str = value.decode("latin-1")
            if _SENT_ID.fullmatch(sent):
                return sent
    return secrets.token_hex(8)


class RequestIds:
    """ASGI middleware: a request id per HTTP request and WebSocket, sent back in
    ``X-Request-Id`` (HTTP), and an access log line when :data:`ACCESS` logs INFO."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        token = REQUEST_ID.set(request_id)
        began = time.perf_counter()
        status = 101 if kind == "websocket" else 500
        header = (b"x-request-id", request_id.encode())
        accepted: list[bool] = []

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            elif message["type"] == "websocket.accept":
                accepted.append(True)
            elif message["type"] == "websocket.close" and not accepted:
                status = 403  # refused before the handshake
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if ACCESS.isEnabledFor(logging.INFO):
                method = "WS" if kind == "websocket" else scope.get("method", "")
                duration = round((time.perf_counter() - began) * 1000, 1)
                path = scope.get("path", "")
                ACCESS.info("%s %s %s %.1f ms", method, path, status, duration,
                            extra={"method": method, "path": path, "status": status,
                                   "duration_ms": duration})
            REQUEST_ID.reset(token)


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON: time (UTC), level, logger, message, the request
    id (when one is being served) and, for the access log, method, path, status and
    duration in milliseconds.

    >>> record = logging.LogRecord("basra.server", logging.WARNING, "", 0, "a %s", ("b",),
    ...                            None)
    >>> line = json.loads(JsonFormatter().format(record))
    >>> line["level"], line["logger"], line["message"]
    ('WARNING', 'basra.server', 'a b')
    """

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            line["request_id"] = request_id
        for field in _FIELDS:
            if field in record.__dict__:
                line[field] = record.__dict__[field]
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure_logging(log_format: str, access_log: bool) -> None:
    """Set up the process's logs for ``basra serve``: with ``"json"``, every logger (the
    server's and the web server's) writes JSON lines to stderr; with ``"text"``, the logs
    stay as Python writes them. ``access_log`` adds a line per request."""
    if log_format not in ("text", "json"):
        raise ValueError(f"bad log format {log_format!r}; expected text or json")
    if log_format == "json":
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        root = logging.getLogger()
        root.handlers = [handler]
        root.setLevel(logging.WARNING)
    elif access_log:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_TextAccess())
        ACCESS.addHandler(handler)
        ACCESS.propagate = False
    if access_log:
        ACCESS.setLevel(logging.INFO)


class _TextAccess(logging.Formatter):
    """An access log line as text: time, request id, then the request."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%d %H:%M:%S")
        return f"{stamp} [{REQUEST_ID.get() or '-'}] {record.getMessage()}"
