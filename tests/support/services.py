"""Real services for the tests and benchmarks: a throwaway PostgreSQL cluster, Redis, an
nginx load balancer and Prometheus, each started from Debian's packages on loopback ports and
stopped when done, and fresh databases on a PostgreSQL server.

Used by the tests (``tests/conftest.py``, ``tests/web/test_cluster.py``) and by
``python -m benchmarks.capacity --servers N``.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType

START_SECONDS = 20.0

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


class Postgres:
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



def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def missing_programs() -> list[str]:
    """The programs a set-up of many servers needs that are not installed."""
    return [name for name in ("redis-server", "nginx")
            if shutil.which(name) is None and not Path(f"/usr/sbin/{name}").exists()]


class _Process:
    """A child process that listens on ``port``; stopped on leaving a ``with`` block."""

    name = "process"

    def __init__(self, command: list[str], port: int, log: Path) -> None:
        self.port = port
        self.log_path = log
        with log.open("wb") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL,
                                            start_new_session=True)
        started = time.monotonic()
        while not listening(port):
            if self.process.poll() is not None or time.monotonic() - started > START_SECONDS:
                self.stop()
                raise RuntimeError(f"{self.name} did not start on port {port}: "
                                   f"{log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)

    def __enter__(self) -> _Process:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


class Redis(_Process):
    """``redis-server`` on a free loopback port, keeping nothing on disk."""

    name = "redis-server"

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        port = free_port()
        program = shutil.which("redis-server") or "/usr/bin/redis-server"
        super().__init__([program, "--port", str(port), "--bind", "127.0.0.1",
                          "--save", "", "--appendonly", "no", "--dir", str(folder),
                          "--maxclients", "10000"],
                         port, folder / f"redis-{port}.log")
        self.url = f"redis://127.0.0.1:{port}/0"


NGINX_CONF = """\
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log warn;
daemon off;
events {{ worker_connections 16384; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
{site}
}}
"""


class Balancer(_Process):
    """nginx balancing ``ports`` with the project's own site (``deploy/nginx``), its
    upstream servers and listening port changed to loopback ones."""

    name = "nginx"

    def __init__(self, folder: Path, ports: list[int]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        deploy = Path(__file__).resolve().parents[2] / "deploy" / "nginx"
        site = (deploy / "basra.conf").read_text()
        listed = re.findall(r"^ *server 127\.0\.0\.1:(\d+) .*\n", site, flags=re.MULTILINE)
        lines = re.findall(r"^ *server 127\.0\.0\.1:\d+ .*\n", site, flags=re.MULTILINE)
        assert listed, "deploy/nginx/basra.conf lists no upstream server"
        servers = "".join(lines[0].replace(f":{listed[0]} ", f":{port} ") for port in ports)
        site = site.replace("".join(lines), servers)
        port = free_port()
        site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
        site = site.replace("/etc/nginx/basra-locations.conf",
                            str(deploy / "basra-locations.conf"))
        conf = folder / "nginx.conf"
        conf.write_text(NGINX_CONF.format(folder=folder, site=site))
        program = shutil.which("nginx") or "/usr/sbin/nginx"
        super().__init__([program, "-p", str(folder), "-c", str(conf)], port,
                         folder / "nginx.log")
        self.base = f"http://127.0.0.1:{port}"
        self.ws_base = f"ws://127.0.0.1:{port}"


def prometheus_program() -> str | None:
    """Prometheus' server (Debian's ``prometheus`` package), if installed."""
    found = shutil.which("prometheus")
    return found or ("/usr/bin/prometheus" if Path("/usr/bin/prometheus").exists() else None)


class Prometheus(_Process):
    """Prometheus on a free loopback port, with the project's scrape configuration
    (``deploy/prometheus/prometheus.yml``) scraping ``targets`` every ``interval``."""

    name = "prometheus"

    def __init__(self, folder: Path, targets: list[str], interval: str = "1s") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        deploy = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"
        config = (deploy / "prometheus.yml").read_text()
        assert "- 127.0.0.1:9100\n" in config, "deploy/prometheus/prometheus.yml lists no target"
        config = config.replace("- 127.0.0.1:9100\n", "".join(
            f"- {target}\n          " for target in targets).rstrip() + "\n")
        config = re.sub(r"(scrape|evaluation)_interval: \S+", rf"\1_interval: {interval}",
                        config)
        (folder / "prometheus.yml").write_text(config)
        port = free_port()
        program = prometheus_program() or "prometheus"
        super().__init__([program, f"--config.file={folder / 'prometheus.yml'}",
                          f"--storage.tsdb.path={folder / 'data'}",
                          f"--web.listen-address=127.0.0.1:{port}"],
                         port, folder / "prometheus.log")
        self.base = f"http://127.0.0.1:{port}"
        started = time.monotonic()
        while not self.ready():  # it listens before its storage is open (503)
            if self.process.poll() is not None or time.monotonic() - started > START_SECONDS:
                self.stop()
                raise RuntimeError(f"prometheus did not get ready on port {port}: "
                                   f"{self.log_path.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)

    def ready(self) -> bool:
        """Whether Prometheus answers queries (``GET /-/ready`` answers 200)."""
        try:
            with urllib.request.urlopen(f"{self.base}/-/ready", timeout=1) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False


def fresh_database(url: str) -> str:
    """A new, empty database on the PostgreSQL server of ``url`` (an asyncpg URL); its
    URL."""
    import asyncpg
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    name = f"basra_{secrets.token_hex(4)}"

    async def create() -> None:
        connection = await asyncpg.connect(
            host=parsed.host, port=parsed.port, user=parsed.username,
            password=parsed.password, database=parsed.database)
        try:
            await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()

    asyncio.run(create())
    return parsed.set(database=name).render_as_string(hide_password=False)
