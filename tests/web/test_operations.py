"""A real ``basra serve`` as operators run it: scraped by a real Prometheus with the
project's configuration (``deploy/prometheus``), and writing structured logs."""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from email.message import Message
from pathlib import Path
from typing import Any

import pytest

from tests.support import services
from tests.support.realserver import Server, free_port, sqlite_url

pytestmark = pytest.mark.slow

SCRAPED_SECONDS = 60.0
"""How long Prometheus may take to start and scrape the server."""


def get(url: str, **headers: str) -> tuple[int, Message, bytes]:
    """Status, headers (any case) and body of ``GET url``."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers, refused.read()


def quick_table(base: str) -> dict[str, Any]:
    request = urllib.request.Request(f"{base}/api/quick", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        created: dict[str, Any] = json.loads(answer.read())
    return created


def query(prometheus: str, expression: str) -> list[dict[str, Any]]:
    """The result of an instant query through Prometheus' HTTP API."""
    status, _, body = get(f"{prometheus}/api/v1/query?"
                          + urllib.parse.urlencode({"query": expression}))
    answer = json.loads(body)
    assert status == 200 and answer["status"] == "success", answer
    result: list[dict[str, Any]] = answer["data"]["result"]
    return result


@pytest.mark.skipif(services.prometheus_program() is None,
                    reason="needs Prometheus (sh tests/system-packages.sh installs it)")
def test_prometheus_scrapes_the_metrics_port(tmp_path: Path) -> None:
    metrics_port = free_port()
    target = f"127.0.0.1:{metrics_port}"
    with Server(sqlite_url(tmp_path / "basra.db"), tmp_path,
                "--metrics-port", str(metrics_port)) as server:
        server.wait("/readyz")
        quick_table(server.base)
        status, _, _ = get(f"{server.base}/metrics")
        assert status == 404  # not on the public port without a token
        status, _, body = get(f"http://{target}/metrics")
        assert status == 200 and b"basra_tables_live 1.0" in body
        with services.Prometheus(tmp_path / "prometheus", [target]) as prometheus:
            deadline = time.monotonic() + SCRAPED_SECONDS
            while not (found := query(prometheus.base, "basra_tables_live")):
                assert time.monotonic() < deadline, (
                    f"Prometheus did not scrape {target}: "
                    f"{prometheus.log_path.read_text(errors='replace')[-2000:]}")
                time.sleep(0.2)
            assert found[0]["metric"]["instance"] == target
            assert found[0]["metric"]["job"] == "basra"
            assert found[0]["value"][1] == "1"
            up = query(prometheus.base, 'up{job="basra"}')
            assert [series["value"][1] for series in up] == ["1"]
            assert query(prometheus.base, "basra_commit_seconds_count")  # histograms too


def test_json_logs_name_each_request(tmp_path: Path) -> None:
    with Server(sqlite_url(tmp_path / "basra.db"), tmp_path, "--log-format", "json",
                "--access-log", apart=True) as server:
        server.wait("/readyz")
        status, headers, _ = get(f"{server.base}/api/tables/NOSUCH")
        assert status == 404
        server.stop()
        lines = [json.loads(line) for line in server.errors().splitlines() if line.strip()]
    request_id = headers["X-Request-Id"]
    assert request_id
    mine = [line for line in lines if line.get("request_id") == request_id]
    assert [(line["logger"], line["method"], line["path"], line["status"])
            for line in mine] == [("basra.access", "GET", "/api/tables/NOSUCH", 404)]
    assert {"time", "level", "message", "duration_ms"} <= set(mine[0])
