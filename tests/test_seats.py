"""The seat client of the durability tests and the benchmarks (``tests/support/seats.py``),
fed messages by hand: one play per state, played again after a refusal, never while the
table is paused, and each play's round trip."""

from __future__ import annotations

from typing import Any

from tests.support.seats import SeatClient, State, TableLog

LEGAL = [{"card": "7H", "captured": []}, {"card": "JD", "captured": ["2C", "5S"]}]


def state(seq: int, to_play: int = 0, match: int = 1, paused: str | None = None,
          last_play: State | None = None) -> State:
    return {"type": "state", "seq": seq, "table": {"match_number": match}, "paused": paused,
            "result": None, "deal": {"to_play": to_play}, "legal": LEGAL if to_play == 0 else [],
            "last_play": last_play}


class Recording(SeatClient):
    """A seat 0 with no socket that keeps what it sends."""

    def __init__(self, log: TableLog | None = None, **options: Any) -> None:
        super().__init__("T1", 0, "token", "ws://127.0.0.1:1", log=log, **options)
        self.sent: list[State] = []

    def send(self, message: State) -> None:
        self.sent.append(message)


def test_a_seat_plays_its_turn_once_per_state() -> None:
    seat = Recording()
    seat.receive(state(3))
    seat.receive(state(3))
    assert seat.sent == [{"type": "play", "seq": 3, "card": "7H", "captured": []}]
    seat.receive(state(4, to_play=1))
    seat.receive(state(5))
    assert [message["seq"] for message in seat.sent] == [3, 5]


def test_a_refused_play_is_played_again_once_play_resumes() -> None:
    seat = Recording()
    seat.receive(state(3))
    seat.receive({"type": "error", "code": "storage_down", "seq": 3})
    assert seat.pending is None
    seat.receive(state(3, paused="storage"))
    assert len(seat.sent) == 1  # not while the table is paused
    seat.receive(state(3))
    assert [message["seq"] for message in seat.sent] == [3, 3]
    assert [error["code"] for error in seat.errors] == ["storage_down"]


def test_a_round_trip_ends_at_the_first_state_of_a_later_turn() -> None:
    seat = Recording()
    seat.receive(state(3))
    assert seat.pending is not None
    seat.receive(state(3))
    assert seat.round_trips == []
    seat.receive(state(4, to_play=1))
    assert seat.pending is None
    ((sent_at, ms),) = seat.round_trips
    assert sent_at > 0 and ms >= 0
    seat.receive(state(5))
    seat.receive(state(0, to_play=1, match=2))  # a new match is a later turn too
    assert len(seat.round_trips) == 2


def test_a_seat_that_stopped_playing_only_reads() -> None:
    seat = Recording()
    seat.playing = False
    seat.receive(state(3))
    assert seat.sent == [] and seat.state == seat.first == state(3)


def test_a_subclass_chooses_the_play() -> None:
    class Greedy(Recording):
        def choose(self, legal: list[State]) -> State:
            return max(legal, key=lambda entry: len(entry["captured"]))

    seat = Greedy()
    seat.receive(state(1))
    assert seat.sent[0]["card"] == "JD"


def test_the_table_log_keeps_the_first_play_of_each_seq_and_names_conflicts() -> None:
    log = TableLog("T1", ["a", "b"])
    assert log.top == 0
    seat = Recording(log=log)
    seat.receive(state(0))
    seat.receive(state(1, to_play=1, last_play={"card": "7H", "captured": []}))
    seat.receive(state(1, to_play=1, last_play={"card": "9H", "captured": []}))
    assert log.top == 1
    assert log.confirmed[1] == {"card": "7H", "captured": []}
    assert log.conflicts == ["T1 seq 1: {'card': '7H', 'captured': []} then "
                             "{'card': '9H', 'captured': []}"]
    (start, _), (end, _) = log.times
    assert log.confirmed_between(start, end + 1) == 1  # seq 0 is no play
