"""What the benchmarks against a real ``basra serve`` share: a free port, the server process
and its log, CPU time, percentiles, the machine's description and the results file.

``capacity`` and ``reliability`` run as modules from the repository root (``python -m
benchmarks.capacity``) and import it as ``benchmarks.harness``, and the helpers the tests
share as ``tests.support``; the other scripts run as ``python benchmarks/NAME.py``, which
puts this folder on ``sys.path``, and import it by its plain name.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import platform
import random
import resource
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

try:
    import httpx2 as httpx  # what the test extra installs (starlette's test client uses it)
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]
from rich.console import Console

err = Console(stderr=True, highlight=False)
"""Progress and warnings; the figures go to stdout."""


# -- the server ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """A server process (``command``, listening on ``port``) whose output goes to
    ``log_path``. Stopped on leaving a ``with`` block; a log with ``ERROR`` lines is kept
    in the temporary folder as ``keep_log_as`` (formatted with ``pid`` and ``port``)."""

    def __init__(self, port: int, command: list[str], log_path: Path, keep_log_as: str
                 ) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.ws_base = f"ws://127.0.0.1:{port}"
        self.log_path = log_path
        self.keep_log_as = keep_log_as
        with log_path.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        self.started = time.monotonic()

    @property
    def pid(self) -> int:
        return self.process.pid

    def __enter__(self) -> Server:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    async def ready(self, path: str, seconds: float) -> float:
        """Wait until ``GET path`` answers 200 (``/`` for a server without ``/readyz``);
        the seconds since the process started."""
        async with httpx.AsyncClient(base_url=self.base, timeout=5) as client:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the server exited with {self.process.returncode}:\n"
                                       + self.log_path.read_text(errors="replace")[-2000:])
                with contextlib.suppress(httpx.HTTPError):
                    status = (await client.get(path)).status_code
                    if status == 200:
                        return time.monotonic() - self.started
                    if status == 404 and path == "/readyz":
                        path = "/"
                if time.monotonic() - self.started > seconds:
                    raise RuntimeError(f"the server did not answer GET {path} within "
                                       f"{seconds:g} s")
                await asyncio.sleep(0.02)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """SIGINT (SIGKILL after 15 s); say where the log is kept if it holds errors."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        text = self.log_path.read_text(errors="replace")
        problems = sum(1 for line in text.splitlines() if line.startswith("ERROR"))
        if problems:
            kept = Path(tempfile.gettempdir()) / self.keep_log_as.format(pid=self.pid,
                                                                         port=self.port)
            kept.write_text(text, encoding="utf-8")
            err.print(f"[yellow]the server logged {problems} error(s); its log: {kept}[/]",
                      soft_wrap=True)


# -- players ---------------------------------------------------------------------------


class Slipping:
    """A level that plays a uniformly random legal move with chance ``chance`` (a player
    the master reads as that level, who strays from it now and then, as people do)."""

    def __init__(self, bot: Any, chance: float, seed: int) -> None:
        self.bot = bot
        self.chance = chance
        self.rng = random.Random(seed)
        self.name = f"{bot.name}~{chance:g}"

    def choose(self, observation: Any) -> int:
        moves: list[int] = observation.legal_moves
        if self.rng.random() < self.chance:
            return self.rng.choice(moves)
        return int(self.bot.choose(observation))

    def close(self) -> None:
        from basra.bots import close_bot

        close_bot(self.bot)


def level_spec(spec: str) -> tuple[str, float]:
    """A level given as ``LEVEL`` or ``LEVEL~CHANCE`` (slipping with that chance): the
    level's name and the chance (0 for none); ValueError naming what was expected."""
    level, slips, chance = spec.partition("~")
    try:
        value = float(chance) if slips else 0.0
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise ValueError(f"{spec!r}: expected LEVEL~CHANCE with a chance from 0 to 1, "
                         "e.g. expert~0.03")
    return level, value


def make_level(spec: str, seed: int) -> Any:
    """The player ``spec`` names (:func:`level_spec`): a level, slipping if asked."""
    from basra.bots import make_bot

    level, chance = level_spec(spec)
    bot = make_bot(level, seed)
    return Slipping(bot, chance, seed + 1) if chance else bot


# -- the machine -----------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (psutil if installed, else /proc;
    NaN where neither tells)."""
    try:
        import psutil  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return math.nan
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def usable_cores() -> int:
    """The cores this process may run on (fewer than the machine's under taskset)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU ticks of the whole machine, from /proc/stat."""
    try:
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return 0.0, 0.0
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return float(sum(values) - idle), float(sum(values))


def process_tree(pid: int) -> list[int]:
    """A process and its children (PostgreSQL's backends, nginx's worker)."""
    found = [pid]
    with contextlib.suppress(OSError):
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            found += process_tree(int(child))
    return found


def raise_open_files() -> None:
    """Lift the soft limit on open files: each table costs sockets on both ends."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


# -- figures and the results file ------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile of sorted ``values`` (NaN when empty)."""
    if not values:
        return math.nan
    return values[max(0, math.ceil(share / 100 * len(values)) - 1)]


def stamp(script: str) -> dict[str, str]:
    """The command line and the date of this run of ``benchmarks/<script>`` (a file such as
    ``strength.py``), or of ``python -m benchmarks.<script>`` (a module such as
    ``capacity``)."""
    run = ([f"benchmarks/{script}"] if script.endswith(".py")
           else ["-m", f"benchmarks.{script}"])
    return {"command": shlex.join(["python", *run, *sys.argv[1:]]),
            "date": datetime.now(UTC).isoformat(timespec="seconds")}


def save(result: dict[str, Any], path: Path) -> None:
    """Append the run to the JSON file's ``runs``."""
    runs: list[dict[str, Any]] = []
    if path.exists():
        with contextlib.suppress(ValueError, KeyError, TypeError):
            runs = list(json.loads(path.read_text(encoding="utf-8"))["runs"])
    runs.append(result)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": runs}, indent=1) + "\n", encoding="utf-8")
