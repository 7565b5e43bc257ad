"""`basra serve`: starts a real server, refuses bad options with one line and exit code 2."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from click.testing import CliRunner

from basra.cli import cli


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_starts_answers_and_stops_cleanly(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "serve.db"
    server = subprocess.Popen(
        [sys.executable, "-m", "basra", "serve", "--port", str(port), "--db",
         f"sqlite:///{db}", "--bot-delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/", timeout=2) as page:
                    assert page.status == 200
                    assert "/static/js/lobby.js" in page.read().decode()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    stderr = server.stderr.read() if server.stderr else ""
                    raise AssertionError(f"the server did not start: {stderr}") from None
                time.sleep(0.2)
        request = urllib.request.Request(base + "/api/quick", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            quick = json.loads(answer.read())
        assert quick["url"] == f"/t/{quick['code']}" and quick["seat"] == 0
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=20)
    assert server.returncode == 0, err
    assert f"http://localhost:{port}/" in out
    assert "Traceback" not in err
    assert db.exists()


def test_serve_refuses_a_bad_database_url() -> None:
    result = CliRunner().invoke(cli, ["serve", "--db", "mysql://u@h/db"])
    assert result.exit_code == 2
    assert "mysql" in result.output and "Traceback" not in result.output


def test_serve_refuses_a_port_in_use() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--port", str(port)])
    assert result.exit_code == 2
    assert f"127.0.0.1:{port}" in result.output and "--port" in result.output
