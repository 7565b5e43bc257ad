"""Bot accounts and the Bot API on a running app (``docs/api.md``, "Bot accounts"): the
upgrade, scopes, the game stream and moves in protocol notation, the bots' own ratings
list, and where bots may not go (seeks, tournaments that do not allow them)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from basra.observe import observation_from_dict, observe
from basra.server.bot_streams import KEEP_ALIVE
from basra.server.ratelimit import DEFAULT_LIMITS
from basra.server.table import SeatConfig, TableConfig
from basra.state import move_text


def cookie(session: str) -> dict[str, str]:
    return {"cookie": f"basra_session={session}"}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def token_of(web: Any, session: str, *scopes: str) -> str:
    answer = web.http.post("/api/tokens", headers=cookie(session),
                           json={"description": "bot", "scopes": list(scopes)})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["token"])


def bot(web: Any, name: str) -> tuple[str, tuple[int, str]]:
    """A new bot account: its token (scopes bot and read) and its (id, name)."""
    token = token_of(web, web.account(name), "bot", "read")
    assert web.ok(web.http.post("/api/bot/account/upgrade", headers=bearer(token))) == {
        "name": name, "bot": True}
    me = web.ok(web.http.get("/api/account", headers=bearer(token)))
    return token, (int(me["id"]), str(me["name"]))


def person(web: Any, name: str) -> tuple[str, tuple[int, str]]:
    """A new person's account: its session and its (id, name)."""
    session = web.account(name)
    me = web.ok(web.http.get("/api/account",
                             headers=bearer(token_of(web, session, "read"))))
    return session, (int(me["id"]), str(me["name"]))


def seated(web: Any, players: list[tuple[str, tuple[int, str]] | None], rated: bool = False,
           ) -> tuple[str, list[tuple[int, str]]]:
    """A two-player table whose seats these accounts take (None: the expert computer)."""
    seats = tuple(SeatConfig("human") if p is not None else SeatConfig("bot", "expert")
                  for p in players)
    config = TableConfig("egyptian", 2, {}, seats, rated=rated)
    table, tokens = web.http.portal.call(
        web.hub.seat_players, config,
        [None if p is None else (p[1][1], p[1]) for p in players])
    return table.code, tokens


class Stream:
    """A game stream read line by line (its keep-alive lines counted apart)."""

    def __init__(self, response: Any) -> None:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("application/x-ndjson")
        self.response = response
        self.lines: Iterator[str] = response.iter_lines()
        self.silences = 0

    def next(self) -> dict[str, Any] | None:
        """The next line that says something; None when the stream ended."""
        for line in self.lines:
            if not line.strip():
                self.silences += 1
                continue
            found: dict[str, Any] = json.loads(line)
            return found
        return None

    def state_where(self, wanted: Any) -> dict[str, Any]:
        while True:
            line = self.next()
            assert line is not None, "the stream ended"
            if line["type"] == "state" and wanted(line):
                return line


def stream(web: Any, code: str, token: str) -> Any:
    return web.http.stream("GET", f"/api/bot/game/stream/{code}", headers=bearer(token))


def move(web: Any, code: str, token: str, text: str) -> Any:
    return web.http.post(f"/api/bot/game/{code}/move/{text}", headers=bearer(token))


# -- the upgrade ---------------------------------------------------------------------------

def test_an_account_that_never_played_becomes_a_bot_for_good(web: Any) -> None:
    token, _account = bot(web, "Botty")
    assert web.ok(web.http.get("/api/account", headers=bearer(token)))["bot"] is True
    again = web.http.post("/api/bot/account/upgrade", headers=bearer(token))
    assert again.status_code == 200 and again.json() == {"name": "Botty", "bot": True}
    assert web.ok(web.http.get("/api/users/Botty"))["bot"] is True
    assert web.ok(web.http.get("/api/users/" + person(web, "Hala")[1][1]))["bot"] is False


def test_an_account_that_has_played_cannot_become_a_bot(web: Any) -> None:
    session = web.account("Player")
    web.http.post("/api/quick", json={}, headers=cookie(session))  # a seat: it has played
    token = token_of(web, session, "bot", "read")
    refused = web.http.post("/api/bot/account/upgrade", headers=bearer(token))
    assert refused.status_code == 409
    assert refused.json()["code"] == "has_games"
    assert web.ok(web.http.get("/api/account", headers=bearer(token)))["bot"] is False


def test_the_bot_routes_need_the_bot_scope_and_a_bot_account(web: Any) -> None:
    session = web.account("Plain")
    reader = token_of(web, session, "read", "play")
    refused = web.http.post("/api/bot/account/upgrade", headers=bearer(reader))
    assert refused.status_code == 403 and refused.json()["code"] == "missing_scope"
    assert web.http.post("/api/bot/account/upgrade").status_code == 401
    not_yet = token_of(web, session, "bot")
    answer = web.http.get("/api/bot/game/stream/abcdefgh", headers=bearer(not_yet))
    assert answer.status_code == 403 and answer.json()["code"] == "not_a_bot"
    answer = move(web, "abcdefgh", not_yet, "7H")
    assert answer.status_code == 403 and answer.json()["code"] == "not_a_bot"
    answer = move(web, "abcdefgh", "basra_nonsense", "7H")
    assert answer.status_code == 401 and answer.json()["code"] == "bad_token"


def test_a_bot_holds_no_seat_at_someone_elses_table(web: Any) -> None:
    token, _ = bot(web, "Lonely")
    other = person(web, "Other")
    code, _ = seated(web, [other, None])
    answer = web.http.get(f"/api/bot/game/stream/{code}", headers=bearer(token))
    assert answer.status_code == 404 and answer.json()["code"] == "not_your_game"
    answer = move(web, code, token, "7H")
    assert answer.status_code == 404 and answer.json()["code"] == "not_your_game"
    answer = web.http.get("/api/bot/game/stream/nosuch00", headers=bearer(token))
    assert answer.status_code == 404 and answer.json()["code"] == "unknown_table"


# -- the game stream and moves -----------------------------------------------------------

FAST_TOKENS = {**DEFAULT_LIMITS, "token": "1000/second"}
"""Rate limits for a bot that answers a computer playing at once (a token's own limit is
10 requests a second)."""


def test_a_bot_plays_a_whole_match_over_its_stream(start_web: Any) -> None:
    web = start_web(rate_limits=FAST_TOKENS)
    token, account = bot(web, "Streamer")
    code, _ = seated(web, [("", account), None])
    assert web.info(code)["seats"][0]["bot"] is True
    assert web.info(code)["seats"][1]["bot"] is False
    moves = 0
    with stream(web, code, token) as response:
        lines = Stream(response)
        first = lines.state_where(lambda s: True)
        assert first["you"]["seat"] == 0 and first["table"]["code"] == code
        state = first
        while state["result"] is None:
            observation = state["observation"]
            if observation is None:  # the computer's turn
                assert state["legal"] == []
                state = lines.state_where(lambda s: True)
                continue
            assert state["legal"] == observation["legal_moves"]
            assert all(isinstance(text, str) for text in state["legal"])
            view = observation_from_dict(observation)
            assert view.seat == 0 and view.to_play == 0
            sent = state["seq"]
            answer = move(web, code, token, state["legal"][-1])
            assert answer.status_code == 200 and answer.json() == {"ok": True}, answer.text
            moves += 1
            state = lines.state_where(lambda s, sent=sent: s["seq"] > sent)
        assert lines.next() is None  # the stream ends after the match
    assert moves >= 12
    assert state["result"]["record_id"] is not None


def test_out_of_turn_and_illegal_moves_are_refused_with_the_reason(web: Any) -> None:
    token, account = bot(web, "Careful")
    _session, someone = person(web, "Waiting")
    code, _ = seated(web, [("", account), ("", someone)])
    table = web.hub.tables[code]
    mover, other = (0, 1) if table.to_play() == 0 else (1, 0)
    if mover == 1:  # the person is to play first: the bot is out of turn
        answer = move(web, code, token, "7H")
        assert answer.status_code == 400 and answer.json()["code"] == "not_your_turn"
        assert "turn" in answer.json()["message"]
        web.http.portal.call(_play_for, web, table, 1)
    assert table.to_play() == 0
    hand = [move_text(m) for m in observe(table.match, 0).legal_moves]
    answer = move(web, code, token, "XX")
    assert answer.status_code == 400 and answer.json()["code"] == "illegal_move"
    held = {text.split(":")[0] for text in hand}
    not_held = next(c for c in ("AS", "2S", "3S", "4S", "5S", "6S") if c not in held)
    answer = move(web, code, token, not_held)
    assert answer.status_code == 400 and answer.json()["code"] == "illegal_move"
    assert not_held in answer.json()["message"]
    before = table.seq
    assert move(web, code, token, hand[0]).json() == {"ok": True}
    assert table.seq == before + 1 and table.to_play() == 1
    answer = move(web, code, token, hand[-1])
    assert answer.status_code == 400 and answer.json()["code"] == "not_your_turn"
    assert table.seq == before + 1
    del other


async def _play_for(web: Any, table: Any, seat: int) -> None:
    """The seat's first legal move, as its socket would send it."""
    from basra.cards import CARD_NAMES, card_names
    from basra.server.connections import Connection
    from basra.server.messages import Intent

    chosen = observe(table.match, seat).legal_moves[0]
    await web.hub.act(Connection(table, seat), Intent(
        "play", table.seq, CARD_NAMES[chosen & 63], card_names(chosen >> 6)))


def test_a_bot_that_reconnects_gets_the_full_state_again(web: Any) -> None:
    token, account = bot(web, "Phoenix")
    code, _ = seated(web, [("", account), None])
    with stream(web, code, token) as response:
        first = Stream(response).state_where(lambda s: True)
    with stream(web, code, token) as response:
        again = Stream(response).state_where(lambda s: True)
    assert again["seq"] >= first["seq"]
    assert again["deal"]["hand"] and again["table"]["seats"][0]["account"] == "Phoenix"
    table = web.hub.tables[code]
    deadline = time.monotonic() + 5  # the second stream's seat closes with it
    while table.connections[0] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert table.connections[0] == 0


def test_a_stream_keeps_alive_with_empty_lines(web: Any) -> None:
    token, _account = bot(web, "Quiet")
    person_session, someone = person(web, "Slow")
    code, _ = seated(web, [("", someone), ("", _account)])
    del person_session
    started = time.monotonic()
    with stream(web, code, token) as response:
        lines = Stream(response)
        lines.state_where(lambda s: True)
        for line in lines.lines:  # nobody plays: only keep-alive lines come
            assert line.strip() == "" or json.loads(line)["type"] == "state"
            if not line.strip():
                break
    waited = time.monotonic() - started
    assert waited <= KEEP_ALIVE + 3


# -- where bots play, and their ratings ------------------------------------------------

def test_a_bot_account_never_seeks(web: Any) -> None:
    session = web.account("Seeker")
    token_of(web, session, "bot")
    web.http.post("/api/bot/account/upgrade",
                  headers=bearer(token_of(web, session, "bot")))
    client = web.seek("variant=egyptian&players=2", session=session)
    client.expect_error("bots_not_allowed")


def test_a_tournament_takes_bots_only_when_it_allows_them(web: Any) -> None:
    token, _ = bot(web, "Entrant")
    host = web.account("Host")
    closed = web.http.post("/api/tournaments", headers=cookie(host), json={
        "kind": "swiss", "rounds": 3, "starts_in": 600}).json()["id"]
    refused = web.http.post(f"/api/tournaments/{closed}/join", headers=bearer(token))
    assert refused.status_code == 403 and refused.json()["code"] == "bots_not_allowed"
    open_ = web.http.post("/api/tournaments", headers=cookie(host), json={
        "kind": "swiss", "rounds": 3, "starts_in": 600, "allow_bots": True}).json()["id"]
    joined = web.http.post(f"/api/tournaments/{open_}/join", headers=bearer(token))
    assert joined.status_code == 200, joined.text
    assert joined.json()["you"]["entered"] is True


def test_a_rated_game_with_a_bot_changes_only_the_bots_list(start_web: Any) -> None:
    web = start_web(rate_limits=FAST_TOKENS)
    token, bot_account = bot(web, "Rater")
    session, human = person(web, "Human")
    code, tokens = seated(web, [("", human), ("", bot_account)], rated=True)
    client = web.connect(code, tokens[0][1], label="human")
    table = web.hub.tables[code]
    while table.status == "playing":
        web.settle([client])
        if client.my_turn():
            seq = client.state["seq"]
            client.play()
            client.wait_for(lambda s, seq=seq: s["seq"] > seq)
        elif table.to_play() == 1:
            legal = observe(table.match, 1).legal_moves
            answer = move(web, code, token, move_text(legal[0]))
            assert answer.status_code == 200, answer.text
    web.settle([client])
    changes = client.state["rating_changes"]
    assert [change["seat"] for change in changes] == [1]  # the bot's alone
    people = web.ok(web.http.get("/api/leaderboard?pool=egyptian-2"))
    assert "Rater" not in [p["name"] for p in people["players"]]
    assert "Human" not in [p["name"] for p in people["players"]]  # still unrated
    bots = web.ok(web.http.get("/api/leaderboard?bots=1"))
    assert bots["bots"] is True
    [row] = bots["pools"]["egyptian-2"]
    assert row["name"] == "Rater" and row["bot"] is True and row["games"] == 1
    assert web.ok(web.http.get("/api/users/Human"))["ratings"] == {}
    assert web.ok(web.http.get("/api/users/Rater"))["ratings"]["egyptian-2"]["games"] == 1
    del session


# -- the event stream ----------------------------------------------------------------------

def events(web: Any, token: str) -> Any:
    return web.http.stream("GET", "/api/stream/event", headers=bearer(token))


def event_where(lines: Stream, kind: str) -> dict[str, Any]:
    while True:
        line = lines.next()
        assert line is not None, "the event stream ended"
        if line["type"] == kind:
            return line


def test_the_event_stream_brings_challenges_and_games_and_resumes(web: Any) -> None:
    token, _account = bot(web, "Eventful")
    challenger = web.account("Challenger")
    with events(web, token) as response:
        lines = Stream(response)
        made = web.http.post("/api/challenge/Eventful", headers=cookie(challenger),
                             json={"variant": "egyptian", "players": 2, "rated": False})
        assert made.status_code == 201, made.text
        challenge = event_where(lines, "challenge")["challenge"]
        assert challenge["id"] == made.json()["id"] and challenge["from"] == "Challenger"
        assert (challenge["variant"], challenge["players"], challenge["rated"]) == (
            "egyptian", 2, False)
        accepted = web.http.post(f"/api/challenge/{challenge['id']}/accept",
                                 headers=bearer(token))
        assert accepted.status_code == 200, accepted.text
        code, seat = accepted.json()["table"], accepted.json()["seat"]
        assert event_where(lines, "gameStart")["game"] == {"id": code, "seat": seat}
    # a bot that comes back is told its game again (and a pending challenge)
    second = web.http.post("/api/challenge/Eventful", headers=cookie(challenger),
                           json={"variant": "egyptian", "players": 2}).json()["id"]
    with events(web, token) as response:
        lines = Stream(response)
        first = [lines.next(), lines.next()]
        assert {"type": "gameStart", "game": {"id": code, "seat": seat}} in first
        assert [line["challenge"]["id"] for line in first if line and
                line["type"] == "challenge"] == [second]
        other = web.connect(code, _challenger_token(web, challenger), label="challenger")
        other.send({"type": "resign"})
        assert event_where(lines, "gameFinish")["game"] == {"id": code}


def _challenger_token(web: Any, session: str) -> str:
    """The challenger's seat token, from its notification that the challenge was taken."""
    inbox = web.ok(web.http.get("/api/notifications", headers=cookie(session)))
    found = next(n for n in inbox["notifications"] if n["kind"] == "challenge_accepted")
    return str(found["payload"]["token"])


def test_a_revoked_token_ends_its_streams_and_its_moves(web: Any) -> None:
    session = web.account("Revoked")
    made = web.http.post("/api/tokens", headers=cookie(session),
                         json={"description": "bot", "scopes": ["bot"]}).json()
    token = made["token"]
    web.ok(web.http.post("/api/bot/account/upgrade", headers=bearer(token)))
    started = time.monotonic()
    with events(web, token) as response:
        lines = Stream(response)
        assert web.http.delete(f"/api/tokens/{made['id']}",
                               headers=cookie(session)).status_code == 200
        assert lines.next() is None  # ended at the next keep-alive
    assert time.monotonic() - started < KEEP_ALIVE + 3
    answer = web.http.get("/api/stream/event", headers=bearer(token))
    assert answer.status_code == 401 and answer.json()["code"] == "bad_token"
    assert move(web, "abcdefgh", token, "7H").status_code == 401
