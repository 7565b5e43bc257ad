"""The server's numbers for Prometheus, on the well-kept ``prometheus_client``.

One :class:`Metrics` per app (``app.state.metrics``), with a registry of its own: a test
process makes many apps, and each counts only its own play. Counters count where things
happen, through a tiny interface the other modules call back (they import nothing from
here): :meth:`Metrics.committed` (the store's writer, per transaction),
:meth:`Metrics.refused` (the rate limits), :meth:`Metrics.answered` (every error
answered), :meth:`Metrics.waited` (the master's, the hints' and the analyses' queues).
What lives elsewhere (tables, sockets, queues, seeks, tournaments) is read when
Prometheus scrapes, on the event loop's thread (:class:`_Live`).

    basra_tables_live                       tables this server owns, in memory
    basra_connections{kind}                 open sockets: table, seek, notifications
    basra_moves_confirmed_total             moves committed (a move is confirmed then)
    basra_commit_seconds                    one transaction of the writer (histogram)
    basra_commit_batch_size                 changes committed together (histogram)
    basra_writer_queue                      changes waiting for their commit
    basra_queue_length{queue}               master moves, hints, analyses running or waiting
    basra_queue_wait_seconds{queue}         how long each waited and ran (histogram)
    basra_rate_limit_refusals_total{kind}   requests over a rate limit, by kind
    basra_errors_total{code}                errors answered, by error code
    basra_tournaments_live                  tournaments not finished (directing server)
    basra_seeks_waiting                     seeks waiting to be paired (pairing server)

Served at ``GET /metrics`` on a port of its own (``basra serve --metrics-port``, see
:func:`listen`) or on the main port to a scraper with the bearer token
(``--metrics-token``); see ``docs/operations.md``.
"""

from __future__ import annotations

import asyncio
import hmac
import threading
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = ["CONTENT_TYPE", "Metrics", "listen"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""Prometheus' text format."""

SCRAPE_SECONDS = 5.0
"""How long a scrape from the metrics port waits for the event loop."""

_COMMIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                   2.5, 5.0)
_BATCH_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)
_WAIT_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)


class Metrics:
    """One app's counters, histograms and scrape-time gauges."""

    def __init__(self, token: str | None = None) -> None:
        self.token = token
        """The bearer token that opens ``/metrics`` on the main port (None: closed)."""
        self.registry = CollectorRegistry(auto_describe=False)
        self.moves = Counter("basra_moves_confirmed", "Moves committed, each confirmed "
                             "to its table then", registry=self.registry)
        self.commit_seconds = Histogram(
            "basra_commit_seconds", "Seconds one transaction of the writer took to commit",
            buckets=_COMMIT_BUCKETS, registry=self.registry)
        self.batch_size = Histogram(
            "basra_commit_batch_size", "Changes committed in one transaction",
            buckets=_BATCH_BUCKETS, registry=self.registry)
        self.refusals = Counter("basra_rate_limit_refusals", "Requests over a rate limit, "
                                "by kind of limit", ["kind"], registry=self.registry)
        self.errors = Counter("basra_errors", "Errors answered over HTTP or on a socket, "
                              "by error code", ["code"], registry=self.registry)
        self.waits = Histogram("basra_queue_wait_seconds", "Seconds a master move, a hint "
                               "or an analysis waited and ran", ["queue"],
                               buckets=_WAIT_BUCKETS, registry=self.registry)
        self._live: _Live | None = None

    # -- the interface the other modules call ------------------------------------------

    def committed(self, changes: int, moves: int, seconds: float) -> None:
        """A transaction of ``changes`` (``moves`` of them moves) committed in
        ``seconds``."""
        self.commit_seconds.observe(seconds)
        self.batch_size.observe(changes)
        if moves:
            self.moves.inc(moves)

    def refused(self, kind: str) -> None:
        """A request over the rate limit ``kind`` (``create``, ``socket``, ...)."""
        self.refusals.labels(kind).inc()

    def answered(self, code: str) -> None:
        """An error answered with ``code`` (``unknown_table``, ``not_found``, ...)."""
        self.errors.labels(code).inc()

    def waited(self, queue: str, seconds: float) -> None:
        """Work of ``queue`` (``master``, ``hint``, ``analysis``) done after ``seconds``."""
        self.waits.labels(queue).observe(seconds)

    # -- reading ----------------------------------------------------------------------

    def watch(self, state: Any) -> None:
        """Read the live numbers from an app's ``state`` (its hub, store, seeking,
        notifier, analyses and director) at each scrape, on the event loop running
        now."""
        self._live = _Live(state, asyncio.get_running_loop())
        self.registry.register(self._live)

    def unwatch(self) -> None:
        """Stop reading the app's state (it stopped)."""
        if self._live is not None:
            self.registry.unregister(self._live)
            self._live = None

    def exposition(self) -> bytes:
        """Every metric in Prometheus' text format."""
        return generate_latest(self.registry)

    def opens(self, authorization: str | None) -> bool:
        """Whether a request with this ``Authorization`` header may read the metrics on
        the main port."""
        if self.token is None or authorization is None:
            return False
        return hmac.compare_digest(authorization.encode(), f"Bearer {self.token}".encode())


class _Live(Collector):
    """The gauges read from the app's objects when Prometheus scrapes. They are read on
    the event loop's thread: a scrape from another thread (the metrics port) waits for
    the loop to read them."""

    def __init__(self, state: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.state = state
        self.loop = loop
        self.thread = threading.get_ident()

    def collect(self) -> Iterator[Metric]:
        if threading.get_ident() == self.thread:
            yield from self.read()
            return

        async def on_loop() -> list[Metric]:
            return self.read()

        future = asyncio.run_coroutine_threadsafe(on_loop(), self.loop)
        yield from future.result(SCRAPE_SECONDS)

    def read(self) -> list[Metric]:
        state = self.state
        hub = state.hub
        found: list[Metric] = [
            _gauge("basra_tables_live", "Tables this server owns, in memory",
                   len(hub.tables)),
            _gauge("basra_writer_queue", "Changes waiting for their commit",
                   state.store.writer.queued),
        ]
        connections = GaugeMetricFamily("basra_connections", "Open sockets, by kind",
                                        labels=["kind"])
        connections.add_metric(["table"], hub.sockets.count())
        connections.add_metric(["seek"], state.seeking.open_sockets)
        connections.add_metric(["notifications"], state.notifier.listening)
        queues = GaugeMetricFamily("basra_queue_length", "Master moves, hints and analyses "
                                   "running or waiting", labels=["queue"])
        queues.add_metric(["master"], hub.play.computer.master_queue)
        queues.add_metric(["hint"], state.analyses.hints_pending)
        queues.add_metric(["analysis"], len(state.analyses.running))
        found += [connections, queues]
        if state.seeking.pairing_here:
            found.append(_gauge("basra_seeks_waiting", "Seeks waiting to be paired",
                                len(state.seeking.matchmaker)))
        live = state.director.live_count
        if live is not None:
            found.append(_gauge("basra_tournaments_live", "Tournaments not finished", live))
        return found


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def listen(metrics: Metrics, host: str, port: int) -> Any:
    """Serve ``GET /metrics`` on ``host:port`` in a thread of its own (the
    ``prometheus_client`` server); returns what :func:`stop_listening` stops."""
    from prometheus_client import start_http_server

    return start_http_server(port, addr=host, registry=metrics.registry)


def stop_listening(listener: Any) -> None:
    """Stop a listener of :func:`listen`."""
    server, thread = listener
    server.shutdown()
    server.server_close()
    thread.join(SCRAPE_SECONDS)
