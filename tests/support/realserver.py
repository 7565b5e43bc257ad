"""What the tests that run a real ``basra serve`` share: a free port, the server as a child
process (started, waited for, stopped) and a small tmpfs to fill or to make read-only.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO

import pytest

START_SECONDS = 30.0
"""How long a server may take to answer before the test gives up."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def serve_command(port: int, db_url: str, *options: str) -> list[str]:
    """``python -m basra serve`` on ``port`` with the database ``db_url``."""
    return [sys.executable, "-m", "basra", "serve", "--port", str(port), "--db", db_url,
            *options]


def answers(url: str) -> bool:
    """Whether ``GET url`` answers 200 now."""
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


class Server:
    """``python -m basra serve`` as a child process on a free port, its output in
    ``folder/server-PORT.log`` (with ``apart``, its stderr in ``server-PORT.err``);
    ``port`` to start it again where a stopped one was. Stopped on leaving a ``with``
    block."""

    def __init__(self, db_url: str, folder: Path, *options: str, apart: bool = False,
                 port: int | None = None) -> None:
        self.port = port if port is not None else free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.command = serve_command(self.port, db_url, *options)
        folder.mkdir(parents=True, exist_ok=True)
        self.log_path = folder / f"server-{self.port}.log"
        self.err_path = folder / f"server-{self.port}.err" if apart else None
        with contextlib.ExitStack() as files:
            out = files.enter_context(self.log_path.open("wb"))
            err: IO[bytes] | int = (subprocess.STDOUT if self.err_path is None
                                    else files.enter_context(self.err_path.open("wb")))
            self.process = subprocess.Popen(self.command, stdout=out, stderr=err,
                                            stdin=subprocess.DEVNULL)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    def log(self) -> str:
        """What the server wrote so far (its stdout alone with ``apart``)."""
        return self.log_path.read_text(errors="replace")

    def errors(self) -> str:
        """What the server wrote on stderr so far (with ``apart``)."""
        assert self.err_path is not None, "stderr goes to the log"
        return self.err_path.read_text(errors="replace")

    def wait(self, path: str = "/", seconds: float = START_SECONDS) -> float:
        """Wait until ``GET path`` answers 200; the seconds it took. Fails the test with
        the server's output if it exits first or does not answer in ``seconds``."""
        started = time.monotonic()
        while not answers(self.base + path):
            if self.process.poll() is not None:
                why = f"exited with status {self.process.returncode}"
            elif time.monotonic() - started > seconds:
                why = f"did not answer GET {path} in {seconds:g} s"
            else:
                time.sleep(0.05)
                continue
            output = self.log() + (self.errors() if self.err_path is not None else "")
            pytest.fail(f"`{shlex.join(self.command)}` {why}; its output:\n{output[-5000:]}",
                        pytrace=False)
        return time.monotonic() - started

    async def ready(self, seconds: float = START_SECONDS) -> float:
        """Wait until ``/readyz`` answers 200 (off the event loop); the seconds it took."""
        return await asyncio.to_thread(self.wait, "/readyz", seconds)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGINT, as Ctrl-C would (SIGKILL after 15 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


async def until(condition: Callable[[], bool], what: str, seconds: float = 10.0) -> float:
    """Wait until ``condition()`` holds (checked every 10 ms); the seconds it took."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > seconds:
            raise AssertionError(f"{what}: not within {seconds:g} s")
        await asyncio.sleep(0.01)
    return time.monotonic() - started


# -- a small disk ------------------------------------------------------------------------


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder`` (root only: skips the test otherwise),
    unmounted on the way out."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                              str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def fill_under(database: Path, filler: Path) -> int:
    """Fill the file system of a SQLite ``database`` so that its next write fails: the
    bytes written to ``filler``.

    SQLite reuses the space of its write-ahead log once the log is checkpointed, so a full
    disk is felt only when the log must grow: the log is truncated first (a checkpoint
    from this process, as any other connection may run one), then the disk filled.
    """
    with contextlib.closing(sqlite3.connect(database, timeout=10)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return fill(filler)


def fill(path: Path) -> int:
    """Write ``path`` until its file system is full; the bytes written."""
    written = 0
    with path.open("wb", buffering=0) as filler:
        for size in (1 << 20, 1 << 12, 1):
            block = b"\0" * size
            while True:
                try:
                    written += filler.write(block)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    return written
