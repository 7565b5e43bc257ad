"""The whole suite's set-up: a throwaway PostgreSQL server for the storage tests, the
markers and the quick run.

The storage tests (``test_store.py``, ``test_migrations.py``, ``web/test_api.py``,
``web/test_durability.py``) also run on PostgreSQL when ``BASRA_TEST_POSTGRES_URL`` names a
database. When that variable is not set and PostgreSQL's server is installed (Debian's
``postgresql`` package, in ``/usr/lib/postgresql/*/bin``), the session starts a cluster of
its own: in a temporary folder, on a free port of 127.0.0.1, as the ``postgres`` user when
run as root, with a database ``basra_test``. The variable is set before any test module is
collected, and the cluster is stopped and removed when the session ends (by a watchdog
process if the session is killed).

- Without PostgreSQL's server the PostgreSQL variants are not collected, and the run ends
  with one line saying so (``sh tests/system-packages.sh`` installs it).
- A set ``BASRA_TEST_POSTGRES_URL`` is used as it is; set to nothing, it leaves PostgreSQL
  out.

The markers (declared in ``pyproject.toml``) say what a test needs: ``e2e`` (Chromium),
``postgres`` (the PostgreSQL server; every variant parametrized with ``"postgresql"`` gets
it here), ``cluster`` (PostgreSQL, Redis and nginx) and ``slow`` (seconds or more).
``pytest --quick`` runs the rest, the everyday run, and starts no PostgreSQL.
"""

from __future__ import annotations

import os
import signal

import pytest

from tests.support.services import Postgres, server_binaries

URL_VARIABLE = "BASRA_TEST_POSTGRES_URL"
QUICK = "not e2e and not slow and not postgres and not cluster"
"""What ``--quick`` selects."""

cluster: Postgres | None = None
left_out: str | None = None
"""Why the PostgreSQL variants did not run, said at the end of the run."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--quick", action="store_true",
                     help="the everyday run: leave out the tests marked e2e, slow, postgres or "
                          "cluster (as well as what -m leaves out), and start no PostgreSQL")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    global cluster, left_out
    if config.getoption("help", False):
        return
    if config.getoption("quick"):
        asked = config.option.markexpr
        config.option.markexpr = f"({asked}) and {QUICK}" if asked else QUICK
        left_out = "PostgreSQL: left out (--quick)."
        return
    if URL_VARIABLE in os.environ:
        if not os.environ[URL_VARIABLE]:
            left_out = (f"PostgreSQL: not tested ({URL_VARIABLE} is empty); the storage "
                        "tests ran on SQLite only.")
        return
    binaries = server_binaries()
    if binaries is None:
        left_out = ("PostgreSQL: not tested (no server in /usr/lib/postgresql/*/bin); the "
                    "storage tests ran on SQLite only. `sh tests/system-packages.sh` "
                    "installs it.")
        return
    try:
        cluster = Postgres(binaries)
        os.environ[URL_VARIABLE] = cluster.start()
    except (OSError, RuntimeError) as error:
        if cluster is not None:
            cluster.remove()
            cluster = None
        raise pytest.UsageError(
            f"could not start a throwaway PostgreSQL ({binaries}) for the storage tests: "
            f"{error}. Set {URL_VARIABLE} to a database to use that one, or to nothing "
            "to leave PostgreSQL out.") from None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``postgres`` every test parametrized with ``"postgresql"`` (the storage tests'
    ``database`` and ``backend`` parameters), before ``-m`` selects."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and any(isinstance(value, str) and value == "postgresql"
                                        for value in callspec.params.values()):
            item.add_marker(pytest.mark.postgres)


def pytest_unconfigure(config: pytest.Config) -> None:
    global cluster
    if cluster is not None:
        cluster.remove()
        cluster = None
        os.environ.pop(URL_VARIABLE, None)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if left_out:
        terminalreporter.write_line(left_out)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the fast path's kernels once, before any test runs: on a fresh checkout
    that takes a minute or two (then numba's cache makes every later start quick), and
    tests that start ``basra`` in a subprocess with a timeout must not pay for it.

    Ctrl-C is heard again where the run was started with it ignored (a shell's ``&`` job
    without job control ignores it, and so would every process the tests start: the
    tests that press Ctrl-C need it delivered)."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if session.config.getoption("help", False) or session.config.option.collectonly:
        return
    from basra import fast

    if fast.available():
        from basra.fast import core

        core.compile_kernels()
