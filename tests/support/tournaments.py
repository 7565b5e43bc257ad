"""What the tests of tournaments on real ``basra serve`` processes share
(``docs/web-protocol.md``, "Tournaments"): accounts, the tournament API over HTTP, players
that play each of their tournament games over a real WebSocket, and the checks that every
game was paired once and its result counted once.

An account's next game is read from ``GET /api/tournaments/{id}`` (``you.game``: the
table, seat and token its tournament page would take it to), as the page does.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from typing import Any

import httpx2 as httpx

from tests.support.seats import SeatClient, State

PASSWORD = "correct horse battery"
HTTP_SECONDS = 30.0


class Account:
    """A signed-up account: its name and session cookie."""

    def __init__(self, name: str, session: str) -> None:
        self.name = name
        self.session = session

    def __repr__(self) -> str:
        return f"<Account {self.name}>"

    @property
    def headers(self) -> dict[str, str]:
        return {"cookie": f"basra_session={self.session}"}


async def answer(method: str, url: str, account: Account | None = None,
                 body: Any = None, status: int = 200) -> Any:
    """The JSON answer of one request (as ``account`` when given); fails unless it comes
    with ``status``."""
    async with httpx.AsyncClient(timeout=HTTP_SECONDS) as client:
        response = await client.request(method, url, json=body,
                                        headers=account.headers if account else {})
    assert response.status_code == status, (method, url, response.status_code, response.text)
    return response.json()


async def sign_up(base: str, name: str) -> Account:
    """A new account, signed up at the server ``base``."""
    async with httpx.AsyncClient(timeout=HTTP_SECONDS) as client:
        response = await client.post(f"{base}/api/signup",
                                     json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    return Account(name, str(response.cookies["basra_session"]))


async def create(base: str, account: Account, **body: Any) -> str:
    """A new tournament made by ``account``: its id."""
    made = await answer("POST", f"{base}/api/tournaments", account, body, status=201)
    return str(made["id"])


async def join(base: str, tid: str, account: Account) -> State:
    joined: State = await answer("POST", f"{base}/api/tournaments/{tid}/join", account, {})
    assert joined["you"]["entered"], joined["you"]
    return joined


async def view(base: str, tid: str, account: Account | None = None) -> State:
    """The tournament as ``account`` (or a guest) is shown it."""
    found: State = await answer("GET", f"{base}/api/tournaments/{tid}", account)
    return found


async def view_until(base: str, tid: str, wanted: Any, what: str, seconds: float = 60,
                     account: Account | None = None) -> State:
    """Read the tournament every 100 ms until ``wanted(view)``; that view."""
    started = time.monotonic()
    while True:
        found = await view(base, tid, account)
        if wanted(found):
            return found
        if time.monotonic() - started > seconds:
            raise AssertionError(f"{what}: not within {seconds:g} s; the tournament: "
                                 f"{json.dumps(found)[:3000]}")
        await asyncio.sleep(0.1)


async def game_of(base: str, tid: str, account: Account) -> State | None:
    """The account's game in progress (``you.game``), if any."""
    game: State | None = (await view(base, tid, account))["you"]["game"]
    return game


class Player(SeatClient):
    """An account's seat at a tournament table: it plays its first legal move at once;
    with ``plays``, it stops after that many plays of its own (its game then waits at its
    turn) until :meth:`go_on`."""

    def __init__(self, game: State, ws_base: str, plays: int | None = None) -> None:
        super().__init__(game["table"], game["seat"], game["token"], ws_base)
        self.plays_left = plays
        self.made = 0

    def wants_to_play(self, state: State) -> bool:
        return super().wants_to_play(state) and self.plays_left != 0

    def send_play(self, state: State) -> None:
        if self.plays_left is not None:
            self.plays_left -= 1
        self.made += 1
        super().send_play(state)

    def go_on(self) -> None:
        """Play on to the end."""
        self.plays_left = None
        if self.state is not None:
            self.consider(self.state)

    def over(self) -> bool:
        return self.state is not None and self.state["result"] is not None

    def waiting(self) -> bool:
        """Whether the game waits for this seat's play (it holds, its plays confirmed)."""
        return (self.state is not None and self.my_turn() and self.plays_left == 0
                and self.pending is None)


async def play_through(game: State, ws_base: str, what: str, seconds: float = 120
                       ) -> State:
    """Play a game to its end over a socket at ``ws_base``; its last state."""
    player = Player(game, ws_base).start()
    try:
        await until_state(player, lambda: player.over(), f"{what} played to its end",
                          seconds)
    finally:
        await player.close()
    assert player.state is not None
    return player.state


async def until_state(player: Player, condition: Any, what: str, seconds: float) -> None:
    """Wait until ``condition()``; fails early, saying so, if the player's socket
    closed."""
    started = time.monotonic()
    while not condition():
        if player.closed is not None:
            raise AssertionError(f"{what}: the socket of {player!r} closed "
                                 f"({player.closed}); errors: {player.errors}")
        if time.monotonic() - started > seconds:
            raise AssertionError(f"{what}: not within {seconds:g} s (latest state seq "
                                 f"{player.state and player.state['seq']})")
        await asyncio.sleep(0.02)


async def follow(base: str, ws_base: str, tid: str, account: Account,
                 done: tuple[str, ...] = (), seconds: float = 240) -> list[str]:
    """Play every game the tournament pairs the account in (but at the tables ``done``,
    played already), each to its end, until the tournament is over: the tables played,
    in order."""
    played: list[str] = []
    started = time.monotonic()
    while True:
        shown = await view(base, tid, account)
        game = shown["you"]["game"]
        if shown["status"] == "finished" and game is None:
            return played
        if game is not None and game["table"] not in (*done, *played):
            end = await play_through(game, ws_base, f"{account.name}'s game {game['table']}")
            assert end["tournament"] == tid, end
            played.append(game["table"])
        elif time.monotonic() - started > seconds:
            raise AssertionError(f"{account.name}: the tournament did not end within "
                                 f"{seconds:g} s: {json.dumps(shown)[:3000]}")
        else:
            await asyncio.sleep(0.1)


async def records(base: str, tid: str) -> list[State]:
    """The tournament's ndjson download, one record per line."""
    async with httpx.AsyncClient(timeout=HTTP_SECONDS) as client:
        response = await client.get(f"{base}/api/tournaments/{tid}/records")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines()]


async def rating_history(base: str, name: str, pool: str = "egyptian-2") -> list[Any]:
    """The account's rating after each of its rated matches in ``pool``."""
    profile = await answer("GET", f"{base}/api/users/{name}")
    history: list[Any] = profile["history"].get(pool, [])
    return history


def check_counted_once(finished: State, rounds: int, tables_per_round: int) -> None:
    """A finished Swiss event with no byes: every entrant paired once a round, no pair
    twice, every game counted once (two points a game, one result per round each), one
    record per game."""
    assert finished["status"] == "finished", finished["status"]
    games = finished["games"]
    assert not any(game["bye"] for game in games), games
    assert len(games) == rounds * tables_per_round, (
        f"{len(games)} games paired, not {rounds} rounds of {tables_per_round}: {games}")
    tables = [game["table"] for game in games]
    assert len(set(tables)) == len(tables), f"a table holds two games: {tables}"
    names = sorted(line["name"] for line in finished["standings"])
    for number in range(1, rounds + 1):
        seated = sorted(name for game in games if game["round"] == number
                        for name in game["players"])
        assert seated == names, f"round {number} seats {seated}, not each of {names} once"
    pairs = Counter(frozenset(game["players"]) for game in games)
    assert max(pairs.values()) == 1, f"a pair met twice: {pairs}"
    assert all(game["result"] is not None and sum(game["result"]) == 2 for game in games), (
        games)
    record_ids = [game["record"] for game in games]
    assert None not in record_ids and len(set(record_ids)) == len(record_ids), record_ids
    for line in finished["standings"]:
        assert line["games"] == rounds and len(line["results"]) == rounds, line
        assert sum(line["results"]) == line["score"], line
        assert line["playing"] is None, line
    assert sum(line["score"] for line in finished["standings"]) == 2 * len(games)
    assert finished["winner"] == finished["standings"][0]["name"]
