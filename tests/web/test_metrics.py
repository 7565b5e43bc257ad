"""``GET /metrics`` (``basra.server.metrics``): Prometheus' text format, counters that move
with play, the token on the main port and the port of its own; request ids and the JSON
logs (``basra.server.logs``)."""

from __future__ import annotations

import io
import json
import logging
import re
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from basra.server.logs import ACCESS, JsonFormatter
from tests.support.realserver import free_port

TOKEN = "a-scraper-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def samples(text: str) -> Samples:
    """Every sample of an exposition, by name and labels (the parser fails on bad text)."""
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples}


def scrape(web: Any) -> Samples:
    response = web.http.get("/metrics", headers=BEARER)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return samples(response.text)


def test_counters_move_with_play(start_web: Callable[..., Any]) -> None:
    web = start_web(metrics_token=TOKEN)
    before = scrape(web)
    assert before[("basra_moves_confirmed_total", ())] == 0
    assert before[("basra_tables_live", ())] == 0
    commits_before = before[("basra_commit_seconds_count", ())]
    quick = web.quick("Amira")
    client = web.connect(quick["code"], quick["token"])
    during = scrape(web)
    assert during[("basra_tables_live", ())] == 1
    assert during[("basra_connections", (("kind", "table"),))] == 1
    state = web.play_to_end([client], plays=3)
    after = scrape(web)
    # every play confirmed to the table (Amira's three and the computer's) was committed
    assert after[("basra_moves_confirmed_total", ())] == state["seq"] >= 3
    assert after[("basra_commit_seconds_count", ())] >= commits_before + 3
    assert (after[("basra_commit_batch_size_count", ())]
            == after[("basra_commit_seconds_count", ())])
    assert after[("basra_commit_batch_size_sum", ())] >= after[("basra_moves_confirmed_total",
                                                                 ())]
    for queue in ("master", "hint", "analysis"):
        assert after[("basra_queue_length", (("queue", queue),))] == 0
    assert after[("basra_writer_queue", ())] == 0
    assert after[("basra_seeks_waiting", ())] == 0
    assert after[("basra_connections", (("kind", "seek"),))] == 0


def test_refusals_and_errors_are_counted(start_web: Callable[..., Any]) -> None:
    web = start_web(metrics_token=TOKEN, rate_limits={"create": "1/minute"})
    web.quick()
    refused = web.http.post("/api/quick", json={})
    assert refused.status_code == 429
    unknown = web.http.get("/api/tables/NOSUCH")
    assert unknown.status_code == 404
    found = scrape(web)
    assert found[("basra_rate_limit_refusals_total", (("kind", "create"),))] == 1
    assert found[("basra_errors_total", (("code", refused.json()["code"]),))] == 1
    assert found[("basra_errors_total", (("code", unknown.json()["code"]),))] == 1


def test_closed_on_the_main_port_without_the_token(start_web: Callable[..., Any]) -> None:
    web = start_web(metrics_token=TOKEN)
    absent = web.http.get("/no-such-page-here")
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN},
                    {"Authorization": f"Basic {TOKEN}"}):
        response = web.http.get("/metrics", headers=headers)
        assert response.status_code == 404, headers
        assert response.json() == absent.json()
    closed = start_web()  # no token: closed to everyone
    assert closed.http.get("/metrics", headers=BEARER).status_code == 404
    assert closed.http.get("/metrics", headers={"Authorization": "Bearer "}).status_code == 404


def test_served_on_a_port_of_its_own(start_web: Callable[..., Any]) -> None:
    port = free_port()
    web = start_web(metrics_address=("127.0.0.1", port))
    assert web.http.get("/metrics", headers=BEARER).status_code == 404  # not the main port
    quick = web.quick()
    web.play_to_end([web.connect(quick["code"], quick["token"])], plays=1)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        found = samples(answer.read().decode())
    assert found[("basra_tables_live", ())] == 1
    assert found[("basra_moves_confirmed_total", ())] >= 1


@pytest.fixture()
def json_access_log() -> Iterator[io.StringIO]:
    """The access log as JSON lines, in a buffer, while the test runs."""
    lines = io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.setFormatter(JsonFormatter())
    level, propagate = ACCESS.level, ACCESS.propagate
    ACCESS.addHandler(handler)
    ACCESS.setLevel(logging.INFO)
    ACCESS.propagate = False
    try:
        yield lines
    finally:
        ACCESS.removeHandler(handler)
        ACCESS.setLevel(level)
        ACCESS.propagate = propagate


def test_json_access_log_names_the_request_id(start_web: Callable[..., Any],
                                              json_access_log: io.StringIO) -> None:
    web = start_web()
    response = web.http.get("/api/tables/NOSUCH")
    sent = web.http.get("/healthz", headers={"X-Request-Id": "from-the-proxy-42"})
    quick = web.quick()
    web.connect(quick["code"], quick["token"]).socket.close()
    deadline = time.monotonic() + 10
    while '"method": "WS"' not in json_access_log.getvalue():  # logged once the app's side
        assert time.monotonic() < deadline, "the socket's line was never logged"  # ends
        time.sleep(0.02)
    lines = [json.loads(line) for line in json_access_log.getvalue().splitlines()]
    request_id = response.headers["X-Request-Id"]
    assert len(request_id) == 16
    first = next(line for line in lines if line["path"] == "/api/tables/NOSUCH")
    assert first["request_id"] == request_id
    assert (first["level"], first["logger"], first["method"], first["status"]) == (
        "INFO", "basra.access", "GET", 404)
    assert first["duration_ms"] >= 0 and first["time"].endswith("Z")
    assert sent.headers["X-Request-Id"] == "from-the-proxy-42"
    assert any(line["request_id"] == "from-the-proxy-42" for line in lines)
    socket = next(line for line in lines if line["method"] == "WS")
    assert (socket["path"], socket["status"]) == (f"/ws/{quick['code']}", 101)
    assert len({line["request_id"] for line in lines}) == len(lines)


def test_a_bad_request_id_is_replaced(start_web: Callable[..., Any]) -> None:
    web = start_web()
    response = web.http.get("/healthz", headers={"X-Request-Id": "no spaces\tor tabs"})
    assert response.headers["X-Request-Id"] != "no spaces\tor tabs"
    assert len(response.headers["X-Request-Id"]) == 16


def test_the_dashboard_and_the_docs_name_metrics_that_exist(
        start_web: Callable[..., Any]) -> None:
    web = start_web(metrics_token=TOKEN)
    deadline = time.monotonic() + 10
    while True:  # the tournament director's first pass (every second) sets its gauge
        text = web.http.get("/metrics", headers=BEARER).text
        if "basra_tournaments_live " in text:
            break
        assert time.monotonic() < deadline, "the director never counted the tournaments"
        time.sleep(0.05)
    known = {name for family in text_string_to_metric_families(text)
             for name in (family.name, *(family.name + suffix for suffix in
                                         ("_total", "_bucket", "_count", "_sum")))}
    root = Path(__file__).resolve().parents[2]
    dashboard = json.loads((root / "deploy" / "grafana" / "basra.json").read_text())
    shown = {name for panel in dashboard["panels"] for target in panel["targets"]
             for name in re.findall(r"basra_[a-z_]+", target["expr"])}
    documented = set(re.findall(r"`(basra_[a-z_]+)", (root / "docs" / "operations.md")
                                .read_text()))
    assert len(shown) >= 10 and shown <= known, shown - known
    assert len(documented) >= 12 and documented <= known, documented - known
