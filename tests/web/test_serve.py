"""`basra serve`: starts a real server, refuses bad options with one line and exit code 2."""

from __future__ import annotations

import json
import socket
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from basra.cli import cli
from tests.support.realserver import Server, sqlite_url


@pytest.mark.slow
def test_serve_starts_answers_and_stops_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "serve.db"
    with Server(sqlite_url(db), tmp_path, "--bot-delay", "0", apart=True) as server:
        server.wait("/")
        with urllib.request.urlopen(server.base + "/", timeout=2) as page:
            assert page.status == 200
            assert "/static/js/lobby.js" in page.read().decode()
        request = urllib.request.Request(server.base + "/api/quick", data=b"{}",
                                         method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            quick = json.loads(answer.read())
        assert quick["url"] == f"/t/{quick['code']}" and quick["seat"] == 0
    err = server.errors()
    assert server.process.returncode == 0, err
    assert f"http://localhost:{server.port}/" in server.log()
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
