"""Table chat over the table socket (``docs/web-protocol.md``, "Chat"): ready phrases,
free text when every player agrees, who hears whom, and the limits."""

from __future__ import annotations

from typing import Any

import pytest

from basra.server.messages import CHAT_PHRASES, MAX_CHAT


def chats(client: Any) -> list[dict[str, Any]]:
    """The chat messages a client has been sent so far."""
    return [m for m in client.sync() if m["type"] == "chat"]


@pytest.fixture()
def table(web: Any) -> tuple[Any, Any, Any, Any]:
    """Two players (Amira at seat 0, Bashir at seat 1) and two watchers."""
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], name="Amira")
    code = created["code"]
    joined = web.join(code, name="Bashir")
    amira = web.connect(code, created["token"], "Amira")
    bashir = web.connect(code, joined["token"], "Bashir")
    first, second = web.connect(code, label="watcher 1"), web.connect(code, label="watcher 2")
    web.settle([amira, bashir, first, second])
    return amira, bashir, first, second


def test_a_players_phrase_reaches_everyone_at_the_table(table: Any) -> None:
    amira, _bashir, _first, _second = table
    seq = amira.state["seq"]
    amira.send({"type": "chat", "phrase": "good_luck"})
    for client in table:
        assert chats(client) == [{"type": "chat", "from": {"seat": 0, "name": "Amira"},
                                  "phrase": "good_luck"}]
        assert client.state["seq"] == seq


def test_a_watchers_message_reaches_the_watchers_only(table: Any) -> None:
    amira, bashir, first, second = table
    second.send({"type": "chat", "phrase": "well_played"})
    heard = {"type": "chat", "from": {"watcher": True, "name": "Watcher 2"},
             "phrase": "well_played"}
    assert chats(first) == [heard]
    assert chats(second) == [heard]
    assert chats(amira) == [] and chats(bashir) == []


def test_free_text_needs_every_players_consent(table: Any) -> None:
    amira, bashir, first, second = table
    assert amira.state["chat"] == {"free_text": False, "consent": []}
    amira.send({"type": "chat", "text": "hello"})
    amira.expect_error("free_text_off")
    first.send({"type": "chat_consent", "allow": True})
    first.expect_error("not_seated")
    amira.send({"type": "chat_consent", "allow": True})
    state = bashir.next_state()
    assert state["chat"] == {"free_text": False, "consent": [0]}
    bashir.send({"type": "chat", "text": "hello"})
    bashir.expect_error("free_text_off")
    bashir.send({"type": "chat_consent", "allow": True})
    state = first.wait_for(lambda s: s["chat"]["consent"] == [0, 1])
    assert state["chat"] == {"free_text": True, "consent": [0, 1]}
    bashir.send({"type": "chat", "text": "  <b>salam</b>\u0007 ya\n  Amira "})
    said = {"type": "chat", "from": {"seat": 1, "name": "Bashir"},
            "text": "<b>salam</b> ya Amira"}
    for client in table:
        assert said in chats(client)
    first.send({"type": "chat", "text": "watching"})  # watchers too, among themselves
    assert [m.get("text") for m in chats(second)] == ["watching"]
    assert chats(amira) == []
    amira.send({"type": "chat_consent", "allow": False})  # one says no: off again
    state = bashir.wait_for(lambda s: s["chat"]["consent"] == [1])
    assert state["chat"] == {"free_text": False, "consent": [1]}
    bashir.send({"type": "chat", "text": "still?"})
    bashir.expect_error("free_text_off")


def test_at_a_table_with_the_computer_one_consent_is_enough(web: Any) -> None:
    quick = web.quick("Amira")
    amira = web.connect(quick["code"], quick["token"])
    amira.send({"type": "chat_consent", "allow": True})
    state = amira.wait_for(lambda s: s["chat"]["consent"] == [0])
    assert state["chat"]["free_text"] is True
    amira.send({"type": "chat", "text": "hi computer"})
    assert [m["text"] for m in chats(amira)] == ["hi computer"]


def test_five_messages_per_ten_seconds(table: Any) -> None:
    amira, bashir, _first, _second = table
    for phrase in CHAT_PHRASES:
        amira.send({"type": "chat", "phrase": phrase})
    amira.send({"type": "chat", "phrase": "thanks"})
    messages = [m for m in amira.sync() if m["type"] in ("chat", "error")]
    assert [m.get("phrase") for m in messages[:5]] == list(CHAT_PHRASES)
    assert messages[5]["type"] == "error" and messages[5]["code"] == "chat_limit"
    assert len(chats(bashir)) == 5
    bashir.send({"type": "chat", "phrase": "oops"})  # per seat
    assert len(chats(amira)) == 1


@pytest.mark.parametrize("bad", [
    {"type": "chat"},
    {"type": "chat", "phrase": "you_lose"},
    {"type": "chat", "phrase": "good_game", "text": "both"},
    {"type": "chat", "text": 5},
    {"type": "chat", "text": "   "},
    {"type": "chat", "text": "x" * (MAX_CHAT + 1)},
    {"type": "chat", "phrase": ["good_game"]},
    {"type": "chat_consent", "allow": "yes"},
    {"type": "chat_consent"},
])
def test_bad_chat_messages_change_nothing(table: Any, bad: dict[str, Any]) -> None:
    amira, bashir, first, _second = table
    before = amira.state
    amira.send(bad)
    amira.expect_error("bad_message")
    assert chats(bashir) == [] and chats(first) == []
    assert amira.sync() == []
    amira.send({"type": "chat", "phrase": "oops"})  # the socket still works
    assert [m["phrase"] for m in chats(bashir)] == ["oops"]
    assert amira.state == before


def test_free_text_is_turned_off_for_every_new_table(web: Any, table: Any) -> None:
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}])
    state = web.fresh_state(created["code"], created["token"])
    assert state["chat"] == {"free_text": False, "consent": []}
