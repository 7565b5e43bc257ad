"""`basra serve`: starts a real server, refuses bad options with one line and exit code 2."""

from __future__ import annotations

import json
import socket
import time
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


@pytest.mark.parametrize(("text", "named"), [
    ("[[tournament]]\nkind = 'arena'\nminutes = 30\n", "every"),
    ("[[tournament]]\nkind = 'cup'\nevery = 60\n", "kind"),
    ("[[tournament\n", "not TOML"),
])
def test_serve_refuses_a_bad_tournament_schedule(tmp_path: Path, text: str,
                                                 named: str) -> None:
    schedule = tmp_path / "t.toml"
    schedule.write_text(text)
    result = CliRunner().invoke(cli, ["serve", "--tournaments", str(schedule)])
    assert result.exit_code == 2, result.output
    assert "--tournaments" in result.output and named in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_serve_holds_the_scheduled_tournaments(tmp_path: Path) -> None:
    """The schedule's next events are listed as soon as the server runs, once each."""
    schedule = tmp_path / "t.toml"
    schedule.write_text(
        '[[tournament]]\nname = "Hourly Egyptian arena"\nkind = "arena"\n'
        'variant = "egyptian"\nminutes = 30\nevery = 60\nannounce = 60\n'
        'computers = ["expert"]\n\n'
        '[[tournament]]\nname = "Daily Pasur Swiss"\nkind = "swiss"\nvariant = "pasur"\n'
        'rounds = 5\nevery = 1440\nannounce = 1440\n')
    db = tmp_path / "serve.db"
    with Server(sqlite_url(db), tmp_path, "--tournaments", str(schedule),
                apart=True) as server:
        server.wait("/")
        listed: dict[str, list[dict[str, object]]] = {}
        for _ in range(100):
            with urllib.request.urlopen(server.base + "/api/tournaments", timeout=5) as got:
                listed = json.loads(got.read())
            if len(listed["upcoming"]) + len(listed["running"]) == 2:
                break
            time.sleep(0.1)
        shown = listed["upcoming"] + listed["running"]
        assert sorted(str(t["name"]) for t in shown) == ["Daily Pasur Swiss",
                                                         "Hourly Egyptian arena"]
        arena = next(t for t in shown if t["kind"] == "arena")
        assert arena["variant"] == "egyptian" and arena["minutes"] == 30
        assert arena["entrants"] == 1  # its computer
        assert "Hourly Egyptian arena" in server.log()
    assert server.process.returncode == 0, server.errors()
