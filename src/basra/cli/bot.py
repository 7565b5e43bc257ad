"""``basra bot connect``: play a bot on a server through the Bot API (``docs/api.md``,
"Bot accounts").

Any bot the arena runs (a level, or ``cmd:COMMAND`` speaking ``docs/protocol.md``) plays
unchanged: the bridge reads the account's event stream, accepts the challenges that fit
(declining the others with a reason), and plays every game it is in at once, one task a
game (game stream -> the bot, in a thread -> the move, POSTed). A stream that drops is
opened again after a pause that doubles up to :data:`MOST_BACKOFF` seconds; a game
stream starts with the whole current state, and the event stream with the games in
progress, so a bridge that stopped resumes its games where they were.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import click
import httpx2 as httpx

from basra.bots import Bot, UnknownBotError, close_bot, make_bot
from basra.cli.common import UserError, cli, err, out
from basra.observe import observation_from_dict
from basra.rules import RulesError, preset
from basra.state import move_text

__all__ = ["Bridge", "bot"]

MOST_BACKOFF = 30.0
"""Longest pause before a dropped stream is opened again (seconds)."""
READ_TIMEOUT = 30.0
"""A stream silent this long (the server sends a line at least every 10 s) is dropped."""
KINDS = ("casual", "rated")


class StopBridge(Exception):
    """The bridge cannot go on (a revoked token, a server that refuses it): the message
    says why."""


@dataclass
class Bridge:
    """One bot account's games on a server, played by a bot."""

    server: str
    token: str
    spec: str
    accept: frozenset[str] = frozenset(KINDS)
    variants: frozenset[str] | None = None
    """The variants it plays (None: all)."""
    games: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    name: str = ""

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.server.rstrip("/"),
            headers={"authorization": f"Bearer {self.token}"},
            timeout=httpx.Timeout(10.0, read=READ_TIMEOUT),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=50))

    # -- the events ------------------------------------------------------------------

    async def run(self) -> None:
        """Play until stopped (Ctrl-C) or refused (:class:`StopBridge`)."""
        async with self.client() as client:
            try:
                await self._events(client)
            finally:
                for task in self.games.values():
                    task.cancel()
                await asyncio.gather(*self.games.values(), return_exceptions=True)

    async def _events(self, client: httpx.AsyncClient) -> None:
        pause = 1.0
        connected_once = False

        def opened() -> None:
            nonlocal connected_once, pause
            pause = 1.0
            if not connected_once:
                connected_once = True
                out.print(f"[green]connected[/] to {self.server} as a bot playing "
                          f"{self.spec}; waiting for challenges")

        while True:
            try:
                async for event in _lines(client, "/api/stream/event", opened):
                    await self._event(client, event)
                err.print(f"[yellow]the event stream ended[/]; reconnecting in {pause:g} s")
            except (httpx.TransportError, StreamDropped) as error:
                if not connected_once:
                    raise StopBridge(f"cannot reach {self.server}: {_why(error)}") from None
                err.print(f"[yellow]the event stream dropped[/] ({_why(error)}); "
                          f"reconnecting in {pause:g} s")
            await asyncio.sleep(pause)
            pause = min(pause * 2, MOST_BACKOFF)

    async def _event(self, client: httpx.AsyncClient, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "challenge":
            await self._answer(client, event["challenge"])
        elif kind == "gameStart":
            game = event["game"]
            code = str(game["id"])
            running = self.games.get(code)
            if running is None or running.done():
                out.print(f"game [bold]{code}[/] started: seat {game['seat']}")
                self.games[code] = asyncio.create_task(self._game(client, code))

    async def _answer(self, client: httpx.AsyncClient, challenge: dict[str, Any]) -> None:
        """Accept a challenge that fits, decline another with the reason."""
        cid = challenge["id"]
        who = challenge.get("from") or "someone"
        kind = "rated" if challenge.get("rated") else "casual"
        reason = None
        if kind not in self.accept:
            reason = "casual" if kind == "rated" else "rated"  # what it would play
        elif self.variants is not None and challenge.get("variant") not in self.variants:
            reason = "variant"
        if reason is not None:
            answer = await client.post(f"/api/challenge/{cid}/decline", json={"reason": reason})
            out.print(f"declined {kind} {challenge.get('variant')} from {who} ({reason})")
        else:
            answer = await client.post(f"/api/challenge/{cid}/accept")
            out.print(f"accepted {kind} {challenge.get('variant')} from {who}")
        if answer.status_code >= 400:
            err.print(f"[yellow]challenge {cid}:[/] {_problem(answer)}")

    # -- one game ----------------------------------------------------------------------

    async def _game(self, client: httpx.AsyncClient, code: str) -> None:
        """Play one game to its end, reconnecting its stream when it drops."""
        player: Bot | None = None
        moved = -1
        pause = 1.0
        try:
            while True:
                try:
                    async for line in _lines(client, f"/api/bot/game/stream/{code}"):
                        pause = 1.0
                        if line.get("type") != "state":
                            continue
                        if line.get("result") is not None or line.get("aborted") is not None:
                            self._finished(code, line)
                            return
                        observation = line.get("observation")
                        if observation is None or line["seq"] <= moved:
                            continue
                        if player is None:
                            player = make_bot(self.spec)
                        view = observation_from_dict(observation)
                        move = await asyncio.to_thread(player.choose, view)
                        if await self._move(client, code, move_text(move)):
                            moved = line["seq"]
                    return  # the stream ended with the match
                except StopBridge as refused:
                    err.print(f"[red]game {code}:[/] {refused}")
                    return
                except (httpx.TransportError, StreamDropped) as error:
                    err.print(f"[yellow]game {code}: the stream dropped[/] ({_why(error)}); "
                              f"reconnecting in {pause:g} s")
                await asyncio.sleep(pause)
                pause = min(pause * 2, MOST_BACKOFF)
        finally:
            if player is not None:
                await asyncio.to_thread(close_bot, player)

    async def _move(self, client: httpx.AsyncClient, code: str, text: str) -> bool:
        """POST a move; whether the server took it (a refusal is logged)."""
        while True:
            answer = await client.post(f"/api/bot/game/{code}/move/{text}")
            if answer.status_code == 429:
                await asyncio.sleep(float(answer.headers.get("retry-after", "1")))
                continue
            if answer.status_code in (401, 403):
                raise StopBridge(_problem(answer))
            if answer.status_code != 200:
                err.print(f"[yellow]game {code}: move {text} refused:[/] {_problem(answer)}")
                return False
            return True

    def _finished(self, code: str, state: dict[str, Any]) -> None:
        result = state.get("result")
        if result is None:
            out.print(f"game [bold]{code}[/] aborted")
            return
        side = state["you"]["side"]
        totals = result["totals"]
        names = [seat.get("account") or seat.get("name") or "?"
                 for seat in state["table"]["seats"] if seat["side"] != side]
        verdict = "[green]won[/]" if result["winner"] == side else "[red]lost[/]"
        score = "-".join(str(totals[s]) for s in [side, *(s for s in range(len(totals))
                                                         if s != side)])
        out.print(f"game [bold]{code}[/] {verdict} {score} against {', '.join(names)}")


class StreamDropped(Exception):
    """A stream ended or failed before it was done."""


async def _lines(client: httpx.AsyncClient, path: str,
                 opened: Callable[[], None] | None = None) -> AsyncIterator[dict[str, Any]]:
    """The JSON lines of a stream (keep-alive lines skipped); ``opened`` is called once
    the server answers. Raises :class:`StopBridge` when the server refuses the token,
    :class:`StreamDropped` for another refusal."""
    async with client.stream("GET", path) as response:
        if response.status_code in (401, 403):
            await response.aread()
            raise StopBridge(_problem(response))
        if response.status_code != 200:
            await response.aread()
            if response.status_code == 404:
                raise StopBridge(_problem(response))
            raise StreamDropped(_problem(response))
        if opened is not None:
            opened()
        async for line in response.aiter_lines():
            if line.strip():
                yield json.loads(line)


def _problem(response: httpx.Response) -> str:
    try:
        body = response.json()
        return f"{body['message']} ({body['code']}, HTTP {response.status_code})"
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


def _why(error: Exception) -> str:
    return str(error) or type(error).__name__


def _kinds(text: str) -> frozenset[str]:
    kinds = frozenset(word.strip().lower() for word in text.split(",") if word.strip())
    unknown = sorted(kinds - set(KINDS))
    if unknown or not kinds:
        raise UserError(f"--accept {text!r}: expected casual, rated or both "
                        "(casual,rated)")
    return kinds


def _variants(text: str | None) -> frozenset[str] | None:
    if not text:
        return None
    try:
        return frozenset(preset(word.strip()).name for word in text.split(",") if word.strip())
    except RulesError as error:
        raise UserError(f"--variants: {error}") from None


@cli.group()
def bot() -> None:
    """Bot accounts: play a bot on a server."""


@bot.command()
@click.option("--server", required=True, metavar="URL",
              help="The server, e.g. https://basra.example.")
@click.option("--token", required=True, envvar="BASRA_TOKEN", metavar="TOKEN",
              help="A personal access token of the bot account, scope bot (or $BASRA_TOKEN).")
@click.option("--accept", "accept_text", default="casual,rated", show_default=True,
              metavar="KINDS", help="The challenges it accepts: casual, rated or both.")
@click.option("--variants", "variants_text", metavar="NAMES",
              help="The variants it plays, comma-separated (all by default).")
@click.argument("spec", metavar="BOT")
def connect(server: str, token: str, accept_text: str, variants_text: str | None,
            spec: str) -> None:
    """Connect BOT (a level, or cmd:COMMAND speaking the bot protocol) to a server: it
    accepts the challenges that fit and plays every game it is in, until Ctrl-C."""
    if not server.startswith(("http://", "https://")):
        raise UserError(f"--server {server!r} is not a URL: expected http://HOST[:PORT] or "
                        "https://HOST")
    try:
        close_bot(make_bot(spec))
    except UnknownBotError as error:
        raise UserError(str(error)) from None
    bridge = Bridge(server, token, spec, _kinds(accept_text), _variants(variants_text))
    try:
        asyncio.run(bridge.run())
    except StopBridge as error:
        raise UserError(str(error)) from None
    except KeyboardInterrupt:
        out.print("stopped")

