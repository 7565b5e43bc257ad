"""HTTP to a real ``basra serve`` from one source address, keeping the session cookie.

Clients come from different loopback addresses (127.0.0.2, 127.0.0.3, ...): Linux routes
all of 127.0.0.0/8 to the server at 127.0.0.1, so each is a real address of its own, as
the server sees it, without any header it would have to trust.
"""

from __future__ import annotations

import http.client
import json
from http.cookies import SimpleCookie
from typing import Any

from tests.support.realserver import Server


class Client:
    """HTTP from one source address, keeping the session cookie."""

    def __init__(self, server: Server, source: str = "127.0.0.1",
                 agent: str = "test-browser") -> None:
        self.server = server
        self.source = source
        self.agent = agent
        self.cookie: str | None = None

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None, raw: bytes | None = None
                ) -> tuple[int, Any, dict[str, str]]:
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30,
                                                source_address=(self.source, 0))
        sent = {"User-Agent": self.agent, **(headers or {})}
        if self.cookie:
            sent["Cookie"] = f"basra_session={self.cookie}"
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if data is not None:
            sent["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=data, headers=sent)
            response = connection.getresponse()
            text = response.read()
            answer_headers = {k.lower(): v for k, v in response.getheaders()}
            for header in response.headers.get_all("set-cookie") or []:
                cookie: SimpleCookie = SimpleCookie()
                cookie.load(header)
                if "basra_session" in cookie:
                    self.cookie = cookie["basra_session"].value or None
        finally:
            connection.close()
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text.decode(errors="replace")
        return response.status, parsed, answer_headers

    def post(self, path: str, body: Any = None, **options: Any) -> tuple[int, Any, dict[str, str]]:
        return self.request("POST", path, body if body is not None else {}, **options)

    def get(self, path: str, **options: Any) -> tuple[int, Any, dict[str, str]]:
        return self.request("GET", path, **options)
