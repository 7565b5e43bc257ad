"""Open data over HTTP (``docs/api.md``, "Open data"): ``GET /api/games/user/{name}``
streams a player's finished matches as ``basra-record/1`` lines, newest first, with
``max``, ``since``, ``until``, ``variant`` and ``rated``; a record from it replays."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from basra.cli import cli
from basra.record import loads, replay
from basra.server import games_api
from basra.server.seeking import SeekSettings
from basra.store import Store
from tests.support.finished import DAY_MS, NOV_2026, accounts, finish
from tests.support.seeking import paired

FAST = SeekSettings(computer_after=0.4, pair_every=0.05, waiting_every=0.2)


def in_store(web: Any, work: Callable[[Store], Awaitable[Any]]) -> Any:
    """Run ``work`` on the app's store, on the app's event loop."""
    return web.http.portal.call(work, web.app.state.store)


def games(web: Any, name: str, query: str = "") -> list[bytes]:
    """The lines the stream of ``name``'s matches gives, each checked to be a record."""
    response = web.http.get(f"/api/games/user/{name}" + (f"?{query}" if query else ""))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/x-ndjson"
    lines: list[bytes] = response.content.splitlines(keepends=True)
    for line in lines:
        assert line.endswith(b"\n") and b"\n" not in line[:-1]
        assert loads(line.decode("utf-8"))["format"] == "basra-record/1"
    return lines


@pytest.fixture()
def players(web: Any) -> tuple[Any, list[bytes], list[int]]:
    """An app where Amira finished five matches with Bashir, one a day from
    2026-11-01 (rated on even days; a Pasur match on day 2), and Bashir one with Omar
    after them: (web, Amira's lines newest first, their finishing times)."""

    async def fill(store: Store) -> tuple[list[bytes], list[int]]:
        amira, bashir, omar = await accounts(store, "Amira", "Bashir", "Omar")
        await accounts(store, "Nadia")  # never played
        times = [NOV_2026 + day * DAY_MS for day in range(5)]
        ids = [await finish(store, f"t{day}", [amira, bashir], at, rated=day % 2 == 0,
                            variant="pasur" if day == 2 else "egyptian", seed=day)
               for day, at in enumerate(times)]
        await finish(store, "other", [bashir, omar], times[-1] + 1, rated=True)
        lines = []
        for record_id in reversed(ids):
            stored = await store.records.get(record_id)
            assert stored is not None
            lines.append(stored.line())
        return lines, times[::-1]

    lines, times = in_store(web, fill)
    return web, lines, times


def test_a_players_matches_come_newest_first_one_record_a_line(players: Any) -> None:
    web, lines, _ = players
    assert games(web, "Amira") == lines
    assert games(web, "aMiRa") == lines  # names are found as accounts are
    assert len(games(web, "Bashir")) == 6 and len(games(web, "Omar")) == 1
    assert games(web, "Nadia") == []
    documents = [loads(line.decode()) for line in lines]
    assert [d["players"][0]["name"] for d in documents] == ["Amira"] * 5
    assert [d["variant"] for d in documents] == ["egyptian", "egyptian", "pasur",
                                                 "egyptian", "egyptian"]
    with web.http.stream("GET", "/api/games/user/Amira?max=2") as response:
        assert [line for line in response.iter_lines() if line] == [
            line.decode().rstrip("\n") for line in lines[:2]]


def test_max_since_until_variant_and_rated_choose_the_matches(players: Any) -> None:
    web, lines, times = players  # newest first: days 4, 3, 2 (pasur), 1, 0; even rated
    assert games(web, "Amira", "max=1") == lines[:1]
    assert games(web, "Amira", "max=10000") == lines
    assert games(web, "Amira", f"since={times[1]}") == lines[:2]  # both ends included
    assert games(web, "Amira", f"until={times[3]}") == lines[3:]
    assert games(web, "Amira", f"since={times[3]}&until={times[1]}") == lines[1:4]
    assert games(web, "Amira", f"since={times[0] + 1}") == []
    assert games(web, "Amira", "variant=pasur") == [lines[2]]
    assert games(web, "Amira", "variant=Pasoor") == [lines[2]]  # an alias
    assert games(web, "Amira", "variant=egyptian&max=3") == [lines[0], lines[1], lines[3]]
    assert games(web, "Amira", "rated=true") == [lines[0], lines[2], lines[4]]
    assert games(web, "Amira", "rated=FALSE") == [lines[1], lines[3]]
    assert games(web, "Amira", f"rated=true&variant=egyptian&until={times[1]}&max=1") == [
        lines[4]]


def test_max_is_a_hundred_unless_given(players: Any, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    web, lines, _ = players
    assert games_api.GAMES_DEFAULT == 100
    monkeypatch.setattr(games_api, "GAMES_DEFAULT", 3)
    assert games(web, "Amira") == lines[:3]
    assert games(web, "Amira", "max=4") == lines[:4]


def test_an_unknown_player_is_404(web: Any) -> None:
    for name in ("Nobody", "x" * 101):
        response = web.http.get(f"/api/games/user/{name}")
        assert response.status_code == 404
        body = response.json()
        assert body["code"] == "unknown_user" and body["params"] == {"name": name[:40]}


@pytest.mark.parametrize(("query", "parameter", "message"), [
    ("max=0", "max", "max must be a whole number from 1 to 10000, not '0'"),
    ("max=10001", "max", "max must be a whole number from 1 to 10000, not '10001'"),
    ("max=ten", "max", "max must be a whole number from 1 to 10000, not 'ten'"),
    ("max=-5", "max", "max must be a whole number from 1 to 10000, not '-5'"),
    ("since=yesterday", "since", "since must be a whole number from 0 to "
                                 f"{2**53}, not 'yesterday'"),
    ("until=1.5", "until", f"until must be a whole number from 0 to {2**53}, not '1.5'"),
    ("rated=yes", "rated", "rated must be true or false, not 'yes'"),
    ("variant=chess", "variant", "variant: unknown variant 'chess'; the variants are: "),
    ("since=20&until=10", "since", "since (20) is after until (10)"),
])
def test_a_bad_parameter_is_400_naming_it(players: Any, query: str, parameter: str,
                                          message: str) -> None:
    web, _, _ = players
    response = web.http.get(f"/api/games/user/Amira?{query}")
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "bad_request" and body["params"]["parameter"] == parameter
    assert body["message"].startswith(message) and "\n" not in body["message"]


def test_a_rated_match_played_online_streams_back_and_replays(
        start_web: Callable[..., Any], tmp_path: Path) -> None:
    web = start_web(seeking=FAST)
    session = web.account("Layla_g")
    seek = web.seek("rated=1", session, "Layla")
    time.sleep(FAST.computer_after + 0.2)
    seek.send({"type": "computer"})
    seat = paired(seek)
    end = web.play_to_end([web.connect(seat["table"], seat["token"])])
    assert end["result"] is not None and end["rating_changes"]
    [line] = games(web, "Layla_g", "rated=true")
    assert games(web, "Layla_g", "rated=false") == []
    assert games(web, "Layla_g", "variant=egyptian&max=5") == [line]
    document = loads(line.decode())
    [summary] = web.ok(web.http.get("/api/users/Layla_g"))["matches"]
    assert document == web.ok(web.http.get(f"/api/records/{summary['record']}"))
    assert replay(document).winner == end["result"]["winner"]
    saved = tmp_path / "layla.json"
    saved.write_bytes(line)
    result = CliRunner().invoke(cli, ["replay", "--json", str(saved)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["valid"] is True
