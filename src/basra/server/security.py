"""The web app's edge: who may change state, the security headers, and the limits on
request paths and bodies (``docs/web-protocol.md``, "Security").

Every request passes ``EdgeChecks`` before the app sees it:

    check             HTTP answer                WebSocket handshake
    Host              400 for a host not allowed refused (403) before accept
                      (``AllowedHosts``, ``basra serve --allowed-host``)
    path + query      414 over MAX_PATH bytes    refused (403) before accept
    Origin            403 on POST/PUT/PATCH/     refused (403) before accept
                      DELETE from another site
    body              413 over the app's cap     -
    headers           CSP, nosniff, referrer     -

A request without an ``Origin`` header (curl, bots, other programs) passes; a browser
sends one with every cross-site POST and every WebSocket, and ``Origin: null`` (a
sandboxed frame, a ``file:`` page) is refused like any foreign origin.

``WebSocketHandshakeProtocol`` is for uvicorn (``basra serve`` passes it as ``ws=``): it
answers a WebSocket handshake that the websockets library refuses to parse (a request
line or a header line over 8 KiB) instead of leaving the connection open.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .errors import error_body

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "LOCAL_HOSTS",
    "MAX_PATH",
    "SECURITY_HEADERS",
    "AllowedHosts",
    "BodyTooLargeError",
    "CappedBody",
    "EdgeChecks",
    "WebSocketHandshakeProtocol",
    "allowed_hosts",
    "parse_origin",
]

MAX_PATH = 2048
"""Longest path and query string (in bytes, as sent) that reaches the app."""

STATE_CHANGING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
"""The HTTP methods whose requests must come from an allowed origin."""

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
"""The pages load their scripts, styles and images from the server itself, with no
inline script or style attribute; ``connect-src 'self'`` covers ``fetch`` and the
table's ``ws:``/``wss:`` socket on the same host."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    # same-origin keeps a table's code (in the page's path) from every other site. Not
    # no-referrer: under it a browser sends "Origin: null" with a same-origin form post.
    (b"referrer-policy", b"same-origin"),
)
"""Headers added to every HTTP answer."""

DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}


class BodyTooLargeError(Exception):
    """A request body grew past the cap while it was read."""


def parse_origin(text: str) -> str:
    """The normal form of a web origin (``scheme://host[:port]``); ``ValueError`` if
    ``text`` is not one.

    >>> parse_origin("HTTPS://Basra.Example:443/")
    'https://basra.example'
    """
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        raise ValueError(f"{text!r} is not an origin like https://basra.example") from None
    if (parts.scheme not in ("http", "https") or not parts.hostname
            or parts.username is not None or parts.path not in ("", "/")
            or parts.query or parts.fragment):
        raise ValueError(f"{text!r} is not an origin like https://basra.example")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return _without_default_port(parts.scheme, host if port is None else f"{host}:{port}")


def _without_default_port(scheme: str, host: str) -> str:
    """``scheme://host`` in lower case, without the scheme's default port."""
    host = host.lower()
    default = DEFAULT_PORTS.get(scheme)
    if default is not None and host.endswith(f":{default}"):
        host = host[: -len(default) - 1]
    return f"{scheme}://{host}"


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of the request header ``name`` (lower case), or None."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def own_origin(scope: Scope) -> str | None:
    """The origin the request was sent to: its scheme and its ``Host`` header (None
    without a Host header)."""
    host = header(scope, b"host")
    if not host:
        return None
    scheme: str = scope["scheme"]
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    return _without_default_port(scheme, host.strip())


def refused_origin(scope: Scope, allowed: frozenset[str]) -> str | None:
    """The request's ``Origin`` if it is neither the server's own origin nor an allowed
    one; None if the request may go on (no ``Origin`` header at all included)."""
    origin = header(scope, b"origin")
    if origin is None:
        return None
    try:
        normal = parse_origin(origin)
    except ValueError:
        return origin  # "null", or not an origin at all
    return None if normal == own_origin(scope) or normal in allowed else origin


def path_length(scope: Scope) -> int:
    """The length in bytes of the request's path and query string, as sent."""
    raw_path = scope.get("raw_path") or scope["path"].encode()
    query: bytes = scope.get("query_string", b"")
    return len(raw_path) + (len(query) + 1 if query else 0)


def declared_length(scope: Scope) -> int | None:
    """The request's ``Content-Length``, or None without one (or an unreadable one)."""
    value = header(scope, b"content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def with_headers(send: Send, headers: Sequence[tuple[bytes, bytes]]) -> Send:
    """``send`` that adds ``headers`` to the answer's start, where not already there."""

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {bytes(key).lower() for key, _ in message.get("headers", [])}
            extra = [(key, value) for key, value in headers if key not in present]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return send_with_headers


class CappedBody:
    """A request's ``receive`` that raises ``BodyTooLargeError`` as soon as the body
    passes ``limit`` bytes, before anything more is read; ``over`` tells it did."""

    def __init__(self, receive: Receive, limit: int) -> None:
        self.inner = receive
        self.limit = limit
        self.received = 0
        self.over = False

    async def receive(self) -> Message:
        message = await self.inner()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.over = True
                raise BodyTooLargeError(f"request body over {self.limit} bytes")
        return message


async def answer(send: Send, status: int, code: str, message: str,
                 extra: Iterable[tuple[bytes, bytes]] = (), **params: Any) -> None:
    """Send the JSON error answer (``{"code", "message", "params"}``) with ``status``."""
    body = json.dumps(error_body(code, message, params)).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]})
    await send({"type": "http.response.body", "body": body})


async def answer_too_large(send: Send, limit: int) -> None:
    """413, closing the connection so the rest of the body is never read."""
    await answer(send, 413, "body_too_large",
                 f"the request body is over {limit} bytes; at most {limit}",
                 [(b"connection", b"close")], most=limit)


def origin_error(origin: str) -> str:
    """Why a request from ``origin`` is refused."""
    return (f"requests from the origin {origin!r} are refused; "
            "only the server's own pages (and origins it allows) may send them")


class EdgeChecks:
    """ASGI middleware: the path limit, the origin rule, the body cap and the security
    headers (see the module's docstring).

    ``allow_origins`` are origins besides the server's own (``https://basra.example``)
    whose pages may POST and open table sockets; ``max_body`` caps request bodies.
    """

    def __init__(self, app: ASGIApp, *, allow_origins: Sequence[str] = (),
                 max_body: int = 1_000_000) -> None:
        self.app = app
        self.allowed = frozenset(parse_origin(origin) for origin in allow_origins)
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, with_headers(send, SECURITY_HEADERS))
        elif scope["type"] == "websocket":
            await self.websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse what breaks a rule, else pass the request on with its body capped."""
        length = path_length(scope)
        if length > MAX_PATH:
            await answer(send, 414, "path_too_long",
                         f"the request path is {length} bytes; at most {MAX_PATH}",
                         length=length, most=MAX_PATH)
            return
        if scope["method"] in STATE_CHANGING_METHODS:
            origin = refused_origin(scope, self.allowed)
            if origin is not None:
                await answer(send, 403, "foreign_origin", origin_error(origin),
                             origin=origin[:100])
                return
        declared = declared_length(scope)
        if declared is not None and declared > self.max_body:
            await answer_too_large(send, self.max_body)
            return
        await self.capped_body(scope, receive, send)

    async def capped_body(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app, answering 413 instead of whatever it answers once the body has
        passed the cap (it may catch the error and answer 400 or 500 itself)."""
        body = CappedBody(receive, self.max_body)
        started = False

        async def send_unless_over(message: Message) -> None:
            nonlocal started
            if body.over:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        with contextlib.suppress(BodyTooLargeError):
            await self.app(scope, body.receive, send_unless_over)
        if body.over and not started:
            await answer_too_large(send, self.max_body)

    async def websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse the handshake (403) for a long path or a foreign origin."""
        if path_length(scope) > MAX_PATH or refused_origin(scope, self.allowed) is not None:
            await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)


LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The names a server is always reached by on its own machine."""


def host_pattern(host: str) -> str:
    """A host as ``Host`` headers write it (an IPv6 address in brackets), lower case.

    >>> host_pattern("::1"), host_pattern("Basra.Example"), host_pattern("*.example.org")
    ('[::1]', 'basra.example', '*.example.org')
    """
    host = host.strip().lower()
    if ":" in host and not host.startswith("["):
        return f"[{host}]"
    return host


def allowed_hosts(listen: str, given: Sequence[str] = ()) -> list[str]:
    """The ``Host`` names a server listening on ``listen`` answers: ``given``
    (``--allowed-host``, ``*`` for any; ``*.example.org`` for its subdomains), else the
    local names and ``listen`` itself (unless it is every interface).

    >>> allowed_hosts("127.0.0.1")
    ['localhost', '127.0.0.1', '[::1]']
    >>> allowed_hosts("0.0.0.0", ["basra.example", "*"])
    ['*']
    """
    if given:
        patterns = [host_pattern(host) for host in given]
        for pattern in patterns:
            wildcard = pattern.startswith("*") and pattern != "*"
            if not pattern or "*" in pattern[1:] or (wildcard and not pattern.startswith("*.")):
                raise ValueError(f"{pattern!r} is not a host name, an address, '*' or "
                                 "'*.example.org'")
        return ["*"] if "*" in patterns else list(dict.fromkeys(patterns))
    found = [host_pattern(host) for host in LOCAL_HOSTS]
    if listen not in ("0.0.0.0", "::", ""):
        found.append(host_pattern(listen))
    return list(dict.fromkeys(found))


class AllowedHosts:
    """ASGI middleware: Starlette's ``TrustedHostMiddleware`` decides which ``Host``
    headers are answered (a page of another name that resolves to this server, DNS
    rebinding, is refused); a refusal is answered as the API answers every one (400,
    ``{"code": "bad_host", ...}``), and a WebSocket handshake is refused (403)."""

    def __init__(self, app: ASGIApp, *, hosts: Sequence[str]) -> None:
        self.app = app
        self.checker = TrustedHostMiddleware(self._passed, allowed_hosts=list(hosts),
                                             www_redirect=False)

    async def _passed(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["basra.host_allowed"] = True
        await self.app(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_if_passed(message: Message) -> None:
            if scope.get("basra.host_allowed"):
                await send(message)

        await self.checker(scope, receive, send_if_passed)
        if scope.get("basra.host_allowed"):
            return
        host = (header(scope, b"host") or "")[:100]
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await answer(send, 400, "bad_host",
                     f"this server does not answer to the host {host!r}; it answers only "
                     "to the names its operator allows (--allowed-host)", host=host)


class WebSocketHandshakeProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets protocol, answering handshakes websockets cannot parse.

    uvicorn hands a WebSocket upgrade to websockets' ``ServerProtocol``. When that
    refuses the request (a request line or header line over 8 KiB gets "414 Request-URI
    Too Long" or "431"), it queues the refusal and no request event; uvicorn only sends
    data on events, so the refusal was never sent and the connection stayed open. This
    sends it and closes the connection.
    """

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.handshake_initiated and self.conn.handshake_exc is not None:
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.transport.close()
