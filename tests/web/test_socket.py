"""The table WebSocket of ``docs/web-protocol.md``: every message, every error code, and
the computer taking over a seat whose player is gone or out of time.

After every refused message the tests check the protocol's promise "to the sending
connection only; nothing changes": the other connections get nothing (a ping they send
is answered by the very next message), and a new connection of each seat is sent the
same position as before.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from itertools import combinations
from typing import Any, NamedTuple

import pytest
from starlette.websockets import WebSocketDisconnect

from basra.match import Match

State = dict[str, Any]

STATE_KEYS = {"type", "seq", "you", "table", "deal", "legal", "last_play", "totals", "target",
              "carry", "deal_scores", "result", "deadline", "paused", "rated", "chat",
              "resigned", "aborted", "can_abort"}
DEAL_KEYS = {"number", "dealer", "to_play", "hand", "floor", "hand_counts", "stock_count",
             "pile_counts", "basras", "last_capturer", "pile", "last_captures", "seats",
             "buried"}
SEAT_KEYS = {"seat", "side", "kind", "name", "level", "taken", "connected", "away",
             "account", "bot", "rating"}


def has_ambiguous_card(match: Match) -> bool:
    """The seat to play holds a card with several equally large captures."""
    cards = [move & 63 for move in match.legal_moves()]
    return len(set(cards)) < len(cards)


class Duel(NamedTuple):
    """A running 2-player table of two connected humans and a watcher."""

    web: Any
    code: str
    tokens: tuple[str, str]
    seats: tuple[Any, Any]
    watcher: Any

    @property
    def clients(self) -> list[Any]:
        return [*self.seats, self.watcher]

    @property
    def mover(self) -> Any:
        return next(client for client in self.seats if client.my_turn())

    @property
    def other(self) -> Any:
        return next(client for client in self.seats if not client.my_turn())

    def settle(self) -> None:
        self.web.settle(self.clients)


def open_duel(web: Any, seed: int | None = None, **body: Any) -> Duel:
    code, token0, token1 = web.two_humans(seed, **body)
    seats = (web.connect(code, token0, "seat 0"), web.connect(code, token1, "seat 1"))
    duel = Duel(web, code, (token0, token1), seats, web.connect(code, label="watcher"))
    duel.settle()
    return duel


@pytest.fixture()
def duel(web: Any) -> Duel:
    """Two humans at a table whose first player holds a card with several captures (the
    deal seed is found by search and given to the table before its match starts)."""
    return open_duel(web, web.find_seed(has_ambiguous_card))


def by_card(state: State) -> dict[str, list[list[str]]]:
    """The legal capture sets of each card."""
    found: dict[str, list[list[str]]] = {}
    for entry in state["legal"]:
        found.setdefault(entry["card"], []).append(entry["captured"])
    return found


def assert_refused(duel: Duel, sender: Any, message: Any, code: str) -> State:
    """Send ``message`` and check it is refused with ``code`` and nothing else happens."""
    duel.settle()
    before = {client.label: client.state for client in duel.clients}
    seq = sender.state["seq"]
    if isinstance(message, bytes):
        sender.socket.send_bytes(message)
    else:
        sender.send(message)
    error = sender.expect_error(code)
    assert set(error) == {"type", "code", "message", "seq"}
    assert error["seq"] == seq
    for client in duel.clients:  # the sender included: nothing came after the error
        assert client.sync() == [], f"{client.label} was sent something after a refusal"
        assert client.state == before[client.label]
    for seat, token in enumerate(duel.tokens):
        now = duel.web.fresh_state(duel.code, token)
        then = before[f"seat {seat}"]
        for key in ("seq", "deal", "legal", "last_play", "totals", "result"):
            assert now[key] == then[key], key
    assert duel.web.fresh_state(duel.code)["seq"] == seq
    duel.settle()  # the short connections' comings and goings
    return error


def assert_play_accepted(duel: Duel, move: State | None = None) -> None:
    """The seat to play plays ``move`` (its first legal one by default): every
    connection is sent the position one play later."""
    duel.settle()
    mover = duel.mover
    seq = mover.state["seq"]
    mover.play(move)
    for client in duel.clients:
        state = client.next_state()
        assert state["seq"] == seq + 1
        assert state["last_play"]["seat"] == mover.seat


# Connecting


def test_a_seat_is_sent_its_own_view_on_connecting(web: Any) -> None:
    quick = web.quick("Amira")
    seat = web.connect(quick["code"], quick["token"])
    state = seat.state
    assert set(state) == STATE_KEYS and set(state["deal"]) == DEAL_KEYS
    assert state["type"] == "state"
    assert state["you"] == {"seat": 0, "side": 0, "away": False}
    table = state["table"]
    assert table["code"] == quick["code"] and table["status"] == "playing"
    assert table["variant"] == "egyptian" and table["players"] == 2
    assert table["match_number"] == 1
    assert all(set(entry) == SEAT_KEYS for entry in table["seats"])
    assert table["seats"][0]["connected"] is True and table["seats"][0]["name"] == "Amira"
    deal = state["deal"]
    assert deal["number"] == 1
    assert sorted(deal["seats"]) == [0, 1]  # both play (a deciding deal may leave one out)
    assert set(deal["buried"]) <= {"JS", "JH", "JD", "JC", "7D"}  # egyptian buries J, 7D
    assert len(deal["hand"]) == deal["hand_counts"][0] == 4
    assert not set(deal["floor"]) & set(deal["hand"])
    assert deal["stock_count"] == 52 - 4 - 8
    assert sum(deal["hand_counts"]) + len(deal["floor"]) + sum(deal["pile_counts"]) == 12
    assert state["seq"] == 4 - deal["hand_counts"][1] <= 1  # the computer may have played
    assert state["totals"] == [0, 0] and state["target"] == 101
    assert state["result"] is None and state["deadline"] is None
    if deal["to_play"] == 0:
        assert state["legal"] and {e["card"] for e in state["legal"]} <= set(deal["hand"])
        for entry in state["legal"]:
            assert set(entry["captured"]) <= set(deal["floor"])
            assert entry["text"].startswith(entry["card"])
    else:
        assert state["legal"] == []


def test_a_watcher_sees_no_hand_and_no_moves(web: Any) -> None:
    quick = web.quick("Amira")
    seat = web.connect(quick["code"], quick["token"])
    seat.wait_for(lambda s: s["deal"]["to_play"] == 0)  # the computer has made its move
    watcher = web.connect(quick["code"])
    state = watcher.state
    assert set(state) == STATE_KEYS
    assert state["you"] == {"seat": None, "side": None, "away": False}
    assert state["deal"]["hand"] == [] and state["legal"] == []
    assert state["deal"]["hand_counts"] == seat.state["deal"]["hand_counts"]
    assert state["deal"]["floor"] == seat.state["deal"]["floor"]
    assert state["seq"] == seat.state["seq"]
    assert seat.sync() == []  # a watcher coming is no change of the table


def test_an_unknown_table_is_refused_with_4404(web: Any) -> None:
    with web.http.websocket_connect("/ws/nosuchtable") as socket:
        error = socket.receive_json()
        assert error["type"] == "error" and error["code"] == "unknown_table"
        assert "nosuchtable" in error["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == 4404


@pytest.mark.parametrize("token", ["not-a-token", "other-table"])
def test_an_unknown_token_is_refused_with_4401(web: Any, token: str) -> None:
    quick = web.quick()
    if token == "other-table":
        token = web.quick()["token"]
    with web.http.websocket_connect(f"/ws/{quick['code']}?token={token}") as socket:
        error = socket.receive_json()
        assert error["type"] == "error" and error["code"] == "unknown_token"
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == 4401
    assert web.info(quick["code"])["seats"][0]["connected"] is False


def test_ping_is_answered_with_pong(duel: Duel) -> None:
    for client in duel.clients:
        client.send({"type": "ping"})
        assert client.receive() == {"type": "pong"}
        assert client.sync() == []


def test_connections_of_a_seat_come_and_go_in_everyones_seat_list(duel: Duel) -> None:
    first, second = duel.seats
    assert all(s["connected"] for s in duel.watcher.state["table"]["seats"])
    with duel.web.connection(duel.code, duel.tokens[1]) as again:
        assert again.state["you"]["seat"] == 1
        assert again.state["deal"]["hand"] == second.state["deal"]["hand"]
    second.socket.close()
    seats = first.wait_for(lambda s: not s["table"]["seats"][1]["connected"])["table"]["seats"]
    assert seats[0]["connected"] and not seats[1]["connected"] and not seats[1]["away"]


# Refused messages: bad_message, not_seated, not_your_turn, stale, illegal, ambiguous


def _floor_card(state: State) -> str:
    card: str = state["deal"]["floor"][0]
    return card


def _illegal_capture(state: State) -> State:
    """A card of the hand with a set of floor cards it may not take."""
    card, legal_sets = next(iter(by_card(state).items()))
    floor = state["deal"]["floor"]
    for size in range(1, len(floor) + 1):
        for taken in combinations(floor, size):
            if sorted(taken) not in [sorted(s) for s in legal_sets]:
                return {"type": "play", "seq": state["seq"], "card": card,
                        "captured": list(taken)}
    raise AssertionError("every set of the floor is legal")


def _ambiguous(state: State) -> State:
    card = next(card for card, sets in by_card(state).items() if len(sets) > 1)
    return {"type": "play", "seq": state["seq"], "card": card}


def _play(state: State, **fields: Any) -> State:
    message = {"type": "play", "seq": state["seq"], "card": state["legal"][0]["card"],
               "captured": state["legal"][0]["captured"]}
    message.update(fields)
    return {key: value for key, value in message.items() if value is not ...}


Build = Callable[[State], Any]

REFUSALS: list[tuple[str, str, Build, str]] = [
    ("not JSON", "mover", lambda s: "play 7D", "bad_message"),
    ("empty text", "mover", lambda s: "", "bad_message"),
    ("JSON array", "mover", lambda s: json.dumps([_play(s)]), "bad_message"),
    ("JSON string", "mover", lambda s: '"ping"', "bad_message"),
    ("unknown type", "mover", lambda s: {"type": "dance"}, "bad_message"),
    ("no type", "mover", lambda s: {"seq": s["seq"]}, "bad_message"),
    ("missing seq", "mover", lambda s: _play(s, seq=...), "bad_message"),
    ("seq as string", "mover", lambda s: _play(s, seq=str(s["seq"])), "bad_message"),
    ("seq as bool", "mover", lambda s: _play(s, seq=False), "bad_message"),
    ("seq as float", "mover", lambda s: _play(s, seq=float(s["seq"])), "bad_message"),
    ("missing card", "mover", lambda s: _play(s, card=...), "bad_message"),
    ("card not a string", "mover", lambda s: _play(s, card=7), "bad_message"),
    ("captured not a list", "mover", lambda s: _play(s, captured=_floor_card(s)),
     "bad_message"),
    ("captured of numbers", "mover", lambda s: _play(s, captured=[3]), "bad_message"),
    ("bad card name", "mover", lambda s: _play(s, card="ZZ", captured=[]), "bad_message"),
    ("bad captured name", "mover", lambda s: _play(s, captured=["1X"]), "bad_message"),
    ("bytes frame", "mover", lambda s: json.dumps(_play(s)).encode(), "bad_message"),
    ("over-long message", "mover", lambda s: json.dumps({"type": "ping", "pad": "x" * 4100}),
     "bad_message"),
    ("deeply nested JSON", "mover", lambda s: "[" * 2000 + "]" * 2000, "bad_message"),
    ("watcher plays", "watcher", lambda s: _play(s), "not_seated"),
    ("watcher asks a rematch", "watcher", lambda s: {"type": "rematch"}, "not_seated"),
    ("watcher comes back", "watcher", lambda s: {"type": "back"}, "not_seated"),
    ("other seat plays", "other", lambda s: {"type": "play", "seq": s["seq"]}, "not_your_turn"),
    ("future seq", "mover", lambda s: _play(s, seq=s["seq"] + 1), "stale"),
    ("old seq", "mover", lambda s: _play(s, seq=s["seq"] - 1), "stale"),
    ("card not in hand", "mover", lambda s: _play(s, card=_floor_card(s), captured=[]),
     "illegal"),
    ("capture not legal", "mover", _illegal_capture, "illegal"),
    ("ambiguous card", "mover", _ambiguous, "ambiguous"),
    ("rematch before the end", "mover", lambda s: {"type": "rematch"}, "not_over"),
    ("rematch by the other seat", "other", lambda s: {"type": "rematch"}, "not_over"),
]


@pytest.mark.parametrize(("sender", "build", "code"), [case[1:] for case in REFUSALS],
                         ids=[case[0] for case in REFUSALS])
def test_a_refused_message_changes_nothing_and_play_goes_on(duel: Duel, sender: str,
                                                            build: Build, code: str) -> None:
    client = {"mover": duel.mover, "other": duel.other, "watcher": duel.watcher}[sender]
    message = build(duel.mover.state)
    if code == "not_your_turn":  # the other seat plays a card of its own
        message["card"] = duel.other.state["deal"]["hand"][0]
    assert_refused(duel, client, message, code)
    assert_play_accepted(duel)


def test_every_kind_of_refusal_in_a_row_leaves_the_table_playable(duel: Duel) -> None:
    for name, sender, build, code in REFUSALS:
        if name == "deeply nested JSON":
            continue  # a bug of its own: it closes the socket (see the case above)
        client = {"mover": duel.mover, "other": duel.other, "watcher": duel.watcher}[sender]
        message = build(duel.mover.state)
        if code == "not_your_turn":
            message["card"] = duel.other.state["deal"]["hand"][0]
        if isinstance(message, bytes):
            client.socket.send_bytes(message)
        else:
            client.send(message)
        client.expect_error(code)
    assert_play_accepted(duel)
    assert_play_accepted(duel)


def test_an_ambiguous_card_is_played_with_the_capture_chosen(duel: Duel) -> None:
    state = duel.mover.state
    card, sets = next((card, sets) for card, sets in by_card(state).items() if len(sets) > 1)
    error = assert_refused(duel, duel.mover, {"type": "play", "seq": state["seq"],
                                              "card": card}, "ambiguous")
    assert card in error["message"]
    chosen = sets[-1]
    assert_play_accepted(duel, {"card": card, "captured": list(reversed(chosen))})
    play = duel.watcher.state["last_play"]
    assert (play["card"], sorted(play["captured"])) == (card, sorted(chosen))


def test_a_card_with_one_move_needs_no_captured(duel: Duel) -> None:
    state = duel.mover.state
    single = [card for card, sets in by_card(state).items() if len(sets) == 1]
    assert single, "the search seed should leave one card with a single move"
    seq = state["seq"]
    duel.mover.send({"type": "play", "seq": seq, "card": single[0]})
    assert duel.watcher.next_state()["last_play"]["card"] == single[0]


def test_a_duplicate_play_is_refused_as_stale(duel: Duel) -> None:
    mover, other = duel.mover, duel.other
    seq = mover.state["seq"]
    play = _play(mover.state)
    mover.send(play)
    mover.send(play)
    accepted = mover.next_state()
    assert accepted["seq"] == seq + 1
    assert accepted["last_play"]["card"] == play["card"]
    assert mover.expect_error("stale")["seq"] == seq + 1
    assert [m["seq"] for m in other.sync()] == [seq + 1]
    assert mover.sync() == []
    assert duel.web.fresh_state(duel.code)["seq"] == seq + 1


def test_plays_before_the_second_player_joins_are_refused_as_waiting(web: Any) -> None:
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], name="Amira")
    code = created["code"]
    seat = web.connect(code, created["token"], "seat 0")
    watcher = web.connect(code)
    assert seat.state["deal"] is None and seat.state["table"]["status"] == "waiting"
    assert seat.state["legal"] == [] and seat.state["seq"] == 0
    seat.send({"type": "play", "seq": 0, "card": "7D"})
    assert seat.expect_error("waiting")["seq"] == 0
    seat.send({"type": "rematch"})
    seat.expect_error("not_over")
    assert watcher.sync() == [] and seat.sync() == []
    assert web.info(code)["status"] == "waiting"

    web.join(code, name="Omar")
    for client in (seat, watcher):
        state = client.next_state()
        assert state["table"]["status"] == "playing"
        assert state["deal"]["number"] == 1
        assert [s["name"] for s in state["table"]["seats"]] == ["Amira", "Omar"]
    assert len(seat.state["deal"]["hand"]) == 4 and watcher.state["deal"]["hand"] == []


# The end of a match and the rematch


def test_after_the_end_plays_are_refused_and_a_rematch_starts_match_two(web: Any) -> None:
    duel = open_duel(web, rules={"target": 1}, name="Amira")
    end = web.play_to_end(list(duel.seats))
    result = end["result"]
    assert result is not None and end["table"]["status"] == "finished"
    assert max(result["totals"]) >= 1 and end["deal_scores"]
    assert end["legal"] == []
    duel.settle()

    after = {"type": "play", "seq": end["seq"], "card": "7D"}
    for seat in duel.seats:
        assert assert_refused(duel, seat, after, "match_over")["seq"] == end["seq"]
    assert_refused(duel, duel.watcher, after, "not_seated")
    assert_refused(duel, duel.watcher, {"type": "rematch"}, "not_seated")

    listed = web.ok(web.http.get("/api/records"))
    assert [(r["id"], r["code"], r["match_number"]) for r in listed] == [
        (result["record_id"], duel.code, 1)]
    assert listed[0]["players"] == ["Amira", "Guest 2"]

    duel.seats[1].send({"type": "rematch"})
    for client in duel.clients:
        state = client.next_state()
        assert state["table"]["match_number"] == 2
        assert state["table"]["status"] == "playing"
        assert state["seq"] == 0 and state["result"] is None and state["last_play"] is None
        assert state["totals"] == [0, 0] and state["deal_scores"] == []
        assert state["deal"]["number"] == 1
        assert [s["name"] for s in state["table"]["seats"]] == ["Amira", "Guest 2"]
    assert web.info(duel.code)["records"] == [result["record_id"]]
    for seat, token in enumerate(duel.tokens):  # the same tokens hold the same seats
        fresh = web.fresh_state(duel.code, token)
        assert fresh["you"]["seat"] == seat and fresh["table"]["match_number"] == 2
        assert len(fresh["deal"]["hand"]) == 4
    duel.settle()
    assert_refused(duel, duel.mover, {"type": "rematch"}, "not_over")
    assert_play_accepted(duel)


# Away: the computer plays for a seat that is gone or out of time


def test_a_disconnected_seat_is_played_by_the_computer_until_it_returns(
        start_web: Callable[..., Any]) -> None:
    web = start_web(away_after=0.3)
    code, token0, token1 = web.two_humans()
    first = web.connect(code, token0, "seat 0")
    with web.connection(code, token1) as second:
        web.settle([first, second])
        hand = set(second.state["deal"]["hand"])
        assert len(hand) == 4
    gone_at = time.monotonic()
    away = first.wait_for(lambda s: s["table"]["seats"][1]["away"])
    assert time.monotonic() - gone_at >= 0.25
    assert away["table"]["seats"][1]["connected"] is False
    assert away["you"]["away"] is False

    # Seat 0 plays when it is its turn, the computer plays for seat 1 at once, until
    # the computer has played and it is seat 0's turn (nothing moves until it plays).
    computer_plays: dict[int, str] = {}  # seq -> card played for seat 1
    last_sent = -1
    while True:
        state = first.state
        if state["seq"] > away["seq"] and state["last_play"]["seat"] == 1:
            computer_plays[state["seq"]] = state["last_play"]["card"]
        if first.my_turn():
            if computer_plays:
                break
            if state["seq"] > last_sent:
                last_sent = state["seq"]
                first.play()
        first.next_state()
    assert first.sync() == []
    now = first.state
    played_by_one = set(computer_plays.values())

    back = web.connect(code, token1, "seat 1 again")
    state = back.state
    assert state["you"] == {"seat": 1, "side": 1, "away": False}
    assert state["seq"] == now["seq"]
    assert set(state["deal"]["hand"]) == hand - played_by_one
    assert state["deal"]["floor"] == now["deal"]["floor"]
    assert state["table"]["seats"][1]["away"] is False
    returned = first.wait_for(lambda s: not s["table"]["seats"][1]["away"])
    assert returned["table"]["seats"][1]["connected"] is True
    assert returned["seq"] == now["seq"]
    # The returning player plays again: nothing moves for seat 1 until it does.
    first.play()
    assert back.wait_for(lambda s: s["seq"] == now["seq"] + 1)["legal"]
    time.sleep(0.2)
    web.settle([first, back])
    assert first.state["seq"] == back.state["seq"] == now["seq"] + 1
    assert web.fresh_state(code)["seq"] == now["seq"] + 1


def test_a_seat_that_never_connects_is_played_by_the_computer(
        start_web: Callable[..., Any]) -> None:
    """The creator of a table who never opens it must not stall the player who joined."""
    web = start_web(away_after=0.3)
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}])
    joined = web.join(created["code"])
    second = web.connect(created["code"], joined["token"], "seat 1")
    state = second.wait_for(lambda s: s["table"]["seats"][0]["away"], seconds=3)
    assert state["table"]["seats"][0]["connected"] is False
    state = second.wait_for(lambda s: s["deal"]["to_play"] == 1, seconds=3)
    assert state["legal"] and state["seq"] <= 1


def test_back_when_not_away_answers_the_state_to_the_sender_only(duel: Duel) -> None:
    duel.settle()
    mover = duel.mover
    before = mover.state
    mover.send({"type": "back"})
    state = mover.next_state()
    assert state == before
    for client in duel.clients:
        assert client.sync() == []


def test_the_turn_timer_shows_a_deadline(web: Any) -> None:
    duel = open_duel(web, turn_seconds=60)
    expected = time.time() * 1000 + 60_000
    deadline = duel.mover.state["deadline"]
    assert isinstance(deadline, int) and abs(deadline - expected) < 3000
    assert duel.other.state["deadline"] == deadline == duel.watcher.state["deadline"]
    assert_play_accepted(duel)
    later = duel.mover.state["deadline"]
    assert later >= deadline and abs(later - (time.time() * 1000 + 60_000)) < 3000
    untimed = web.quick()
    assert web.connect(untimed["code"], untimed["token"]).state["deadline"] is None


def test_comings_and_goings_do_not_move_the_deadline(web: Any) -> None:
    duel = open_duel(web, turn_seconds=60)
    deadline = duel.mover.state["deadline"]
    time.sleep(0.5)
    with duel.web.connection(duel.code, duel.tokens[duel.other.seat]):
        pass
    duel.settle()
    assert duel.mover.state["deadline"] == deadline
    assert duel.watcher.state["deadline"] == deadline


@pytest.mark.slow
def test_a_seat_out_of_time_is_played_by_the_computer_until_it_is_back(web: Any) -> None:
    duel = open_duel(web, turn_seconds=5)
    mover, other = duel.mover, duel.other
    seat = mover.seat
    deadline = mover.state["deadline"]
    away = mover.wait_for(lambda s: s["you"]["away"], seconds=8)
    assert time.time() * 1000 >= deadline - 100
    assert away["table"]["seats"][seat]["away"] is True
    assert away["table"]["seats"][seat]["connected"] is True
    played = mover.wait_for(lambda s: s["seq"] == 1)
    assert played["last_play"]["seat"] == seat
    assert played["you"]["away"] is True
    assert other.wait_for(lambda s: s["seq"] == 1)["table"]["seats"][seat]["away"] is True
    assert other.state["legal"] and other.state["deadline"] is not None

    mover.send({"type": "back"})
    state = mover.wait_for(lambda s: not s["you"]["away"])
    assert state["seq"] == 1 and state["table"]["seats"][seat]["away"] is False
    assert not other.wait_for(lambda s: not s["table"]["seats"][seat]["away"])["you"]["away"]
    # Back in charge: after the other seat plays, it is this seat's own turn again.
    assert_play_accepted(duel)
    assert mover.my_turn() and mover.state["legal"] and not mover.state["you"]["away"]
    assert mover.sync() == []
