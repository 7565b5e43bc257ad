"""The whole suite's set-up: a throwaway PostgreSQL server for the storage tests.

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
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

URL_VARIABLE = "BASRA_TEST_POSTGRES_URL"
DATABASE = "basra_test"
SUPERUSER = "postgres"
START_TRIES = 3
"""Another process may take the free port between the probe and the server's start."""


def server_binaries() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` with a server, else ``initdb``'s
    folder on the ``PATH``, else None."""

    def version(initdb: Path) -> tuple[int, ...]:
        name = initdb.parent.parent.name
        return tuple(int(part) for part in name.split(".") if part.isdigit())

    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=version)
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """A PostgreSQL cluster in a folder of its own, owned by the user that runs it:
    ``postgres`` when this process is root (the server refuses to run as root)."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.as_user: list[str] = []
        owner: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam(SUPERUSER)
            except KeyError:
                raise RuntimeError(f"no user {SUPERUSER!r} to run the server as") from None
            self.as_user = ["runuser", "-u", SUPERUSER, "--"]
        self.folder = Path(tempfile.mkdtemp(prefix="basra-test-pg-",
                                            dir="/tmp" if owner else None))
        if owner:
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        self.data = self.folder / "data"
        self.log = self.folder / "log"
        self.started = False
        self.watchdog: subprocess.Popen[bytes] | None = None
        self.alive = -1
        self.watch()

    def run(self, program: str, *arguments: str, owner: bool = True) -> None:
        command = [*(self.as_user if owner else []), str(self.binaries / program), *arguments]
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"{program} failed: {' / '.join(said) or done.returncode}")

    def start(self) -> str:
        """Create, start and return the URL of the database."""
        self.run("initdb", "-D", str(self.data), "-A", "trust", "-U", SUPERUSER,
                 "-E", "UTF8", "--no-locale", "--no-sync")
        settings = self.data / "postgresql.conf"
        base = settings.read_text()
        for attempt in range(START_TRIES):
            port = free_port()
            settings.write_text(base + f"\nport = {port}\nlisten_addresses = '127.0.0.1'\n"
                                f"unix_socket_directories = '{self.folder}'\n")
            try:
                self.run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "start")
            except RuntimeError:
                if attempt == START_TRIES - 1:
                    log = self.log.read_text().strip().splitlines()[-3:]
                    raise RuntimeError(f"the server did not start: {' / '.join(log)}") from None
                continue
            self.started = True
            break
        self.run("createdb", "-h", "127.0.0.1", "-p", str(port), "-U", SUPERUSER, DATABASE,
                 owner=False)
        return f"postgresql+asyncpg://{SUPERUSER}@127.0.0.1:{port}/{DATABASE}"

    def watch(self) -> None:
        """Start a watchdog that stops the server (if it runs) and deletes the folder once
        this process ends, however it ends (a killed test run leaves no server behind): it
        waits for the end of a pipe that only this process writes to."""
        stop = shlex.join([*self.as_user, str(self.binaries / "pg_ctl"), "-D", str(self.data),
                           "-m", "fast", "-w", "stop"])
        script = f"read _ignored; {stop} >/dev/null 2>&1; rm -rf {shlex.quote(str(self.folder))}"
        read_end, self.alive = os.pipe()
        try:
            self.watchdog = subprocess.Popen(
                ["sh", "-c", script], stdin=read_end, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True)
        finally:
            os.close(read_end)

    def remove(self) -> None:
        """Stop the server (if it runs) and delete the folder."""
        if self.watchdog is not None:
            os.close(self.alive)
            self.watchdog.wait(timeout=60)
            self.watchdog = None
        elif self.started:
            self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        self.started = False
        shutil.rmtree(self.folder, ignore_errors=True)


cluster: Cluster | None = None
left_out: str | None = None
"""Why the PostgreSQL variants did not run, said at the end of the run."""


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    global cluster, left_out
    if config.getoption("help", False):
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
        cluster = Cluster(binaries)
        os.environ[URL_VARIABLE] = cluster.start()
    except (OSError, RuntimeError) as error:
        if cluster is not None:
            cluster.remove()
            cluster = None
        raise pytest.UsageError(
            f"could not start a throwaway PostgreSQL ({binaries}) for the storage tests: "
            f"{error}. Set {URL_VARIABLE} to a database to use that one, or to nothing "
            "to leave PostgreSQL out.") from None


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
    tests that start ``basra`` in a subprocess with a timeout must not pay for it."""
    if session.config.getoption("help", False):
        return
    from basra import fast

    if fast.available():
        from basra.fast import core

        core.compile_kernels()
