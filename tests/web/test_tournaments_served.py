"""Tournaments on a real ``basra serve`` over real sockets (``docs/web-protocol.md``,
"Tournaments"): results count once, across a restart too, and absent players lose their
game and stop being paired (the issue's "Fair play").

- **A restart in the middle of a round.** A rated Swiss event of two accounts and two
  computers, two rounds: in round 1 each account plays a computer. Amal plays her game to
  its end; Basil makes a few plays and holds his turn, so that his game is in progress
  when the server stops: with SIGTERM once Amal's result is in the standings (counted
  before the stop: it must not count again), or with SIGKILL as soon as her game is over
  (stored with its table, perhaps not counted yet: the restarted server counts it, once).
  Started again on the same database, the server plays on: Basil comes back to his table
  where he left it, round 2 is paired and played, and the event ends. Every game was
  paired once and counted once: the standings add up to two points a game, the records
  download has one line per game, and each account's rating moved once per game.
- **An absent player.** Basil leaves his round 1 game after two plays (he forfeits once
  the grace period is over), or never comes (the match is aborted): the computer plays
  his seat to the end, yet he ranks last, and round 2 is paired without him.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.support import tournaments as t
from tests.support.realserver import Server, sqlite_url, until

pytestmark = pytest.mark.slow

ROUNDS = 2
OPTIONS = ("--bot-delay", "0", "--away-after", "60")
"""Computers play at once; a seat left without a socket is played by the computer only
after a minute (Basil is away while the server restarts)."""
EVENT = {"kind": "swiss", "rounds": ROUNDS, "variant": "egyptian", "players": 2,
         "rated": True, "starts_in": 5, "turn_seconds": 60,
         "computers": ["expert", "greedy"]}
"""Rated by the computers above two new accounts (1500), round 1 pairs each account with
a computer. A turn lasts up to a minute: Basil holds his while the server restarts."""


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_a_restart_in_the_middle_of_a_round_loses_no_result(tmp_path: Path,
                                                            stop: str) -> None:
    url = sqlite_url(tmp_path / "basra.db")

    async def scenario() -> None:
        with Server(url, tmp_path / "first", *OPTIONS) as first:
            await first.ready()
            amal = await t.sign_up(first.base, "Amal")
            basil = await t.sign_up(first.base, "Basil")
            tid = await t.create(first.base, amal, **EVENT)
            for account in (amal, basil):
                await t.join(first.base, tid, account)
            started = await t.view_until(
                first.base, tid, lambda v: v["status"] == "started"
                and sum(g["table"] is not None for g in v["games"]) == 2,
                "round 1 paired")
            assert started["round"] == 1 and len(started["standings"]) == 4
            hers = await t.game_of(first.base, tid, amal)
            his = await t.game_of(first.base, tid, basil)
            assert hers is not None and his is not None
            assert hers["table"] != his["table"], "round 1 pairs each account with a computer"
            holder = t.Player(his, first.ws_base, plays=3).start()
            await until(lambda: holder.waiting(), "Basil's game waits for his fourth play",
                        60)
            assert holder.made == 3
            end = await t.play_through(hers, first.ws_base, "Amal's round 1 game")
            assert end["tournament"] == tid and end["rating_changes"], end
            if stop == "SIGTERM":
                counted = await t.view_until(
                    first.base, tid, lambda v: any(g["table"] == hers["table"]
                                                   and g["result"] is not None
                                                   for g in v["games"]),
                    "Amal's result counted")
                first.process.send_signal(signal.SIGTERM)
                await asyncio.to_thread(first.process.wait, 30)
            else:
                first.kill()
                counted = None
            assert not holder.over(), "Basil's game went on to its end before the stop"
            await holder.close()
            before = first.log()
        assert "Traceback" not in before, before[-3000:]
        if counted is not None:
            assert counted["round"] == 1 and counted["status"] == "started"

        with Server(url, tmp_path / "second", *OPTIONS) as second:
            await second.ready()
            # Basil comes back to his table where he left it, and plays it out.
            again = await t.game_of(second.base, tid, basil)
            assert again == his, (again, his)
            back = t.Player(his, second.ws_base).start()
            await until(lambda: back.first is not None, "Basil's table after the restart",
                        30)
            assert back.first is not None and holder.state is not None
            assert back.first["seq"] == holder.state["seq"], "the table lost or made a play"
            assert back.first["result"] is None
            await t.until_state(back, back.over, "Basil's round 1 game", 120)
            await back.close()
            # Round 2 is paired and played; the event ends.
            played = await asyncio.gather(
                t.follow(second.base, second.ws_base, tid, amal, done=(hers["table"],)),
                t.follow(second.base, second.ws_base, tid, basil, done=(his["table"],)))
            assert all(len(tables) == 1 for tables in played), played
            finished = await t.view_until(second.base, tid,
                                          lambda v: v["status"] == "finished",
                                          "the end of the event")
            t.check_counted_once(finished, ROUNDS, 2)
            assert len(await t.records(second.base, tid)) == 2 * ROUNDS
            for account in (amal, basil):
                history = await t.rating_history(second.base, account.name)
                assert len(history) == ROUNDS, (account.name, history)
            after = second.log()
        assert "Traceback" not in after, after[-3000:]

    asyncio.run(scenario())



@pytest.mark.parametrize("absence", ["leaves", "never_comes"])
def test_an_absent_player_loses_the_game_and_is_not_paired_again(tmp_path: Path,
                                                                  absence: str) -> None:
    """Round 1 of a rated Swiss event: Basil makes two plays and leaves (he forfeits once
    the grace period is over: his loss, rated), or never comes (the match is aborted:
    unrated). The computer plays his seat to the end, yet he ranks last, and he is not
    paired in round 2 (absent entrants are paused); Amal plays every round."""
    url = sqlite_url(tmp_path / "basra.db")

    async def scenario() -> None:
        with Server(url, tmp_path, "--bot-delay", "0", "--away-after", "2") as server:
            await server.ready()
            amal = await t.sign_up(server.base, "Amal")
            basil = await t.sign_up(server.base, "Basil")
            tid = await t.create(server.base, amal, **{
                **EVENT, "turn_seconds": 5, "computers": ["random", "random"]})
            for account in (amal, basil):
                await t.join(server.base, tid, account)
            await t.view_until(server.base, tid, lambda v: v["status"] == "started"
                               and sum(g["table"] is not None for g in v["games"]) == 2,
                               "round 1 paired")
            hers = asyncio.create_task(t.follow(server.base, server.ws_base, tid, amal))
            his = await t.game_of(server.base, tid, basil)
            assert his is not None
            if absence == "leaves":
                leaver = t.Player(his, server.ws_base, plays=2).start()
                await until(leaver.waiting, "Basil's game waits for his third play", 30)
                await leaver.close()
            played = await hers
            finished = await t.view_until(server.base, tid,
                                          lambda v: v["status"] == "finished",
                                          "the end of the event")
            gone = next(line for line in finished["standings"] if line["name"] == "Basil")
            assert gone["paused"], gone
            assert gone["results"] == [0, None], f"Basil ranks last in round 1: {gone}"
            games = [g for g in finished["games"] if not g["bye"]]
            byes = [g for g in finished["games"] if g["bye"]]
            assert len(games) == 3 and len(byes) == 1, finished["games"]
            assert not any("Basil" in g["players"] for g in games if g["round"] == 2)
            assert played == [g["table"] for g in reversed(games) if "Amal" in g["players"]]
            assert sum(line["score"] for line in finished["standings"]) == 2 * 4
            assert len(await t.records(server.base, tid)) == 3
            assert len(await t.rating_history(server.base, "Amal")) == len(played)
            history = await t.rating_history(server.base, "Basil")
            if absence == "leaves":  # a forfeit is his loss
                assert len(history) == 1 and history[0][1] < 1500, history
            else:  # an aborted match rates nobody
                assert history == [], history
            log = server.log()
        assert "Traceback" not in log, log[-3000:]

    asyncio.run(scenario())
