"""The web app's edge (``docs/web-protocol.md``, "Security"): the origin rule for posts
and table sockets, the security headers, the body cap, the path limit, out-of-range
record ids; the body cap and the path limit also against a real ``basra serve``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import InvalidStatus

from basra.server.security import CONTENT_SECURITY_POLICY, MAX_PATH, parse_origin
from tests.support.realserver import Server, sqlite_url

OWN = "http://testserver"
"""The origin of the test client's requests (its Host is ``testserver``)."""

MAX_BODY = 1_000_000


def error_of(response: Any, status: int) -> str:
    """The one-line ``message`` of a refused request."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"code", "message", "params"}, body
    assert isinstance(body["code"], str) and body["code"] and isinstance(body["params"], dict)
    assert isinstance(body["message"], str) and body["message"] and "\n" not in body["message"]
    text: str = body["message"]
    return text


def table_count(web: Any) -> int:
    return len(web.hub.tables)


# The origin rule


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://testserver.evil",
                                    "https://testserver", "not an origin"])
@pytest.mark.parametrize("content_type", ["application/json", "text/plain"])
def test_a_cross_site_post_is_refused_and_creates_no_table(
        web: Any, origin: str, content_type: str) -> None:
    response = web.http.post("/api/quick", content=b"{}",
                             headers={"Origin": origin, "Content-Type": content_type})
    assert origin in error_of(response, 403)
    assert table_count(web) == 0


def test_every_state_changing_route_checks_the_origin(web: Any) -> None:
    code = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}])["code"]
    evil = {"Origin": "https://evil.example"}
    for path in ("/api/quick", "/api/tables", f"/api/tables/{code}/join", "/api/replay"):
        error_of(web.http.post(path, json={}, headers=evil), 403)
    for method in ("PUT", "PATCH", "DELETE"):
        error_of(web.http.request(method, "/api/tables", headers=evil), 403)
    assert web.join(code)["seat"] == 1  # the refused join took no seat
    assert table_count(web) == 1


def test_a_same_origin_post_and_one_without_origin_work(web: Any) -> None:
    for headers in ({"Origin": OWN}, {"Origin": "HTTP://TestServer:80"}, {}):
        answer = web.ok(web.http.post("/api/quick", json={}, headers=headers))
        assert answer["seat"] == 0
    assert table_count(web) == 3


def test_reading_is_open_to_every_origin(web: Any) -> None:
    assert web.http.get("/api/variants", headers={"Origin": "null"}).status_code == 200


def test_an_allowed_origin_may_post_and_others_still_may_not(
        start_web: Callable[..., Any]) -> None:
    web = start_web(allow_origins=["https://basra.example", "http://localhost:5173/"])
    for origin in ("https://basra.example", "https://basra.example:443", "http://localhost:5173"):
        web.ok(web.http.post("/api/quick", json={}, headers={"Origin": origin}))
    for origin in ("http://basra.example", "https://evil.example", "http://localhost:5174"):
        error_of(web.http.post("/api/quick", json={}, headers={"Origin": origin}), 403)
    assert table_count(web) == 3


@pytest.mark.parametrize("text", ["basra.example", "https://basra.example/path", "null", "*",
                                  "ftp://basra.example", "https://u@basra.example",
                                  "https://basra.example:99999"])
def test_a_bad_allowed_origin_is_refused_by_name(text: str) -> None:
    with pytest.raises(ValueError, match="is not an origin"):
        parse_origin(text)


def test_parse_origin_gives_the_normal_form() -> None:
    assert parse_origin("HTTPS://Basra.Example:443/") == "https://basra.example"
    assert parse_origin("http://[::1]:8000") == "http://[::1]:8000"
    assert parse_origin("http://localhost:80") == "http://localhost"


@pytest.mark.parametrize("origin", ["https://evil.example", "null"])
def test_a_socket_from_a_foreign_origin_is_refused_before_accept(web: Any, origin: str) -> None:
    code = web.quick()["code"]
    with pytest.raises(WebSocketDisconnect) as refused, \
            web.http.websocket_connect(f"/ws/{code}", headers={"Origin": origin}):
        pass
    assert refused.value.code == 1008


def test_a_socket_from_the_own_origin_or_without_origin_is_accepted(web: Any) -> None:
    quick = web.quick()
    for headers in ({"Origin": OWN}, {}):
        with web.http.websocket_connect(f"/ws/{quick['code']}?token={quick['token']}",
                                        headers=headers) as socket_:
            message = json.loads(socket_.receive_text())
            assert message["type"] == "state" and message["you"]["seat"] == 0


# Headers


@pytest.mark.parametrize("path", ["/", "/t/k3f9x2q", "/replay/5", "/static/css/base.css",
                                  "/static/js/table.js", "/api/variants", "/api/tables/nope",
                                  "/api/records/1", "/no/such/page"])
def test_every_answer_has_the_security_headers(web: Any, path: str) -> None:
    headers = web.http.get(path).headers
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"


def test_refusals_have_the_security_headers_too(web: Any) -> None:
    response = web.http.post("/api/quick", json={}, headers={"Origin": "null"})
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_the_policy_allows_no_inline_script_or_style_and_no_framing() -> None:
    directives = dict(part.split(" ", 1) for part in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["script-src"] == directives["style-src"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in CONTENT_SECURITY_POLICY


def test_the_pages_keep_to_the_policy() -> None:
    """No inline script, event handler or style attribute in the pages and scripts (the
    browser tests would see a CSP violation as a console error)."""
    root = Path(__file__).parents[2] / "src" / "basra" / "web"
    for page in (root / "templates").glob("*.html"):
        text = page.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), page.name
        assert not re.search(r"\son[a-z]+\s*=", text), page.name
        assert not re.search(r"\sstyle\s*=", text), page.name
    for script in (root / "js").glob("*.js"):
        text = script.read_text()
        assert not re.search(r"""setAttribute\(\s*["']style|\sstyle=|\bon[a-z]+=["']""", text), \
            script.name
        assert "eval(" not in text and "new Function" not in text, script.name


def test_the_docs_ui_is_off_and_the_schema_stays(web: Any) -> None:
    assert web.http.get("/api/docs").status_code == 404
    assert web.http.get("/api/openapi.json").json()["info"]["title"] == "basra"


# Bodies


def test_a_body_over_the_cap_is_refused_by_its_length(web: Any) -> None:
    response = web.http.post("/api/quick", content=b" " * (2 * MAX_BODY),
                             headers={"Content-Type": "application/json"})
    assert str(MAX_BODY) in error_of(response, 413)
    assert table_count(web) == 0


def test_a_chunked_body_over_the_cap_is_refused(web: Any) -> None:
    sent: list[int] = []

    def chunks() -> Iterator[bytes]:
        for _ in range(2 * MAX_BODY // 65536 + 1):
            sent.append(65536)
            yield b" " * 65536

    for path in ("/api/quick", "/api/replay"):
        response = web.http.post(path, content=chunks())
        assert "content-length" not in response.request.headers
        assert str(MAX_BODY) in error_of(response, 413)
    assert table_count(web) == 0


def test_a_body_at_the_cap_is_read(web: Any) -> None:
    body = b"{}" + b" " * (MAX_BODY - 2)
    assert web.ok(web.http.post("/api/quick", content=body))["seat"] == 0


# Paths and record ids


def test_a_long_path_is_refused_with_414(web: Any) -> None:
    assert str(MAX_PATH) in error_of(web.http.get("/t/" + "a" * MAX_PATH), 414)
    assert web.http.get("/api/variants?" + "a=1&" * 100).status_code == 200


def test_a_socket_with_a_long_path_is_refused(web: Any) -> None:
    with pytest.raises(WebSocketDisconnect), \
            web.http.websocket_connect("/ws/" + "a" * MAX_PATH):
        pass


@pytest.mark.parametrize("record_id", [2**63, 2**63 + 1, -(2**63) - 1, 10**30])
def test_a_record_id_out_of_the_database_range_is_unknown(web: Any, record_id: int) -> None:
    for path in (f"/api/records/{record_id}", f"/api/records/{record_id}/frames"):
        assert str(record_id) in error_of(web.http.get(path), 404)


def test_the_largest_record_id_is_just_unknown(web: Any) -> None:
    error_of(web.http.get(f"/api/records/{2**63 - 1}"), 404)


# Against a real `basra serve`

@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A ``basra serve`` child process."""
    folder = tmp_path_factory.mktemp("security")
    with Server(sqlite_url(folder / "serve.db"), folder, "--bot-delay", "0",
                "--allow-origin", "https://basra.example", apart=True) as server:
        server.wait("/")
        yield server
    assert "Traceback" not in server.errors(), server.errors()


def exchange(port: int, head: bytes, body: Iterable[bytes] = (),
             seconds: float = 5.0) -> tuple[bytes, int]:
    """Send a raw request (head, then body pieces until the server stops taking them);
    (the answer, the body bytes sent). Fails after ``seconds`` without a whole answer."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as raw:
        raw.sendall(head)
        with contextlib.suppress(OSError):
            for piece in body:
                raw.sendall(piece)
                sent += len(piece)
        try:
            return read_answer(raw), sent
        except TimeoutError:
            raise AssertionError(f"no whole answer in {seconds} s") from None


def read_answer(raw: socket.socket) -> bytes:
    """An HTTP answer's head and body (by its Content-Length), or what came before the
    connection closed."""
    answer = b""
    while True:
        head, blank, rest = answer.partition(b"\r\n\r\n")
        if blank:
            lines = head.decode("latin-1").lower().split("\r\n")
            length = next((int(line.split(":", 1)[1]) for line in lines
                           if line.startswith("content-length:")), 0)
            if len(rest) >= length:
                return answer
        try:
            piece = raw.recv(65536)
        except ConnectionResetError:
            return answer
        if not piece:
            return answer
        answer += piece


def upgrade_head(port: int, path: str, extra: str = "") -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extra}\r\n").encode()


@pytest.mark.parametrize("length", [4_000, 8_000, 8_200, 20_000, 70_000])
def test_serve_refuses_a_socket_with_a_long_path_at_once(served: Server, length: int) -> None:
    """Over 8 KiB the websockets library refuses the request line; that refusal used to
    stay unsent and the connection open."""
    port = served.port
    started = time.monotonic()
    answer, _ = exchange(port, upgrade_head(port, "/ws/" + "a" * length))
    assert answer.split(b" ")[1] in (b"403", b"414"), answer[:200]
    assert time.monotonic() - started < 2


def test_serve_refuses_a_socket_with_a_long_header_line_at_once(served: Server) -> None:
    port = served.port
    answer, _ = exchange(port, upgrade_head(port, "/ws/x", f"Cookie: {'a' * 9000}\r\n"))
    assert answer.startswith(b"HTTP/1.1 431"), answer[:200]


def test_serve_refuses_a_long_path_with_414(served: Server) -> None:
    port = served.port
    head = f"GET /t/{'a' * 8000} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    answer, _ = exchange(port, head)
    assert answer.startswith(b"HTTP/1.1 414"), answer[:200]


def test_serve_refuses_a_declared_big_body_before_it_is_sent(served: Server) -> None:
    port = served.port
    head = (f"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Length: 100000000\r\n\r\n").encode()
    answer, _ = exchange(port, head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"connection: close" in answer.lower()
    assert b'{"code": "body_too_large", ' in answer


def test_serve_stops_reading_a_chunked_body_past_the_cap(served: Server) -> None:
    port = served.port
    piece = b"x" * 65536
    chunk = b"%x\r\n" % len(piece) + piece + b"\r\n"

    def body() -> Iterator[bytes]:
        for _ in range(100_000_000 // len(piece)):  # 100 MB, if the server read it all
            yield chunk
        yield b"0\r\n\r\n"

    head = (f"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode()
    answer, sent = exchange(port, head, body(), seconds=20)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 20 * MAX_BODY, f"the server took {sent} bytes"


def test_serve_checks_socket_origins(served: Server) -> None:
    port = served.port
    quick = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"http://127.0.0.1:{port}/api/quick", data=b"{}", method="POST"), timeout=5).read())
    url = f"ws://127.0.0.1:{port}/ws/{quick['code']}"

    async def first_message(origin: str | None) -> Any:
        headers = {} if origin is None else {"Origin": origin}
        async with websockets.connect(url, additional_headers=headers, open_timeout=5) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), 5))

    for origin in (None, f"http://127.0.0.1:{port}", "https://basra.example"):
        assert asyncio.run(first_message(origin))["type"] == "state"
    for origin in ("https://evil.example", "null"):
        with pytest.raises(InvalidStatus) as refused:
            asyncio.run(first_message(origin))
        assert refused.value.response.status_code == 403
