"""Conduct in rated play, the pure rules (``basra.players.conduct``) and a table's part
(``basra.server.table.Table.leave``): aborts, forfeits, ranks and playbans."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from basra.players.conduct import PLAYBAN, PlaybanRule, playban_seconds, ranks_with_forfeits
from basra.players.ratings import ranks_from_totals
from basra.server.table import SeatConfig, Table, TableConfig

HOUR = 3600.0


def test_one_abandon_a_day_is_forgiven_then_waits_double_up_to_a_day() -> None:
    assert [PLAYBAN.wait(n) for n in range(0, 4)] == [0, 0, 300, 600]
    assert PLAYBAN.wait(9) == 300 * 2 ** 7
    assert PLAYBAN.wait(10) == 300 * 2 ** 8 < 24 * HOUR
    assert PLAYBAN.wait(11) == PLAYBAN.wait(1000) == 24 * HOUR


def test_the_wait_counts_from_the_latest_abandon() -> None:
    times = [0.0, 1000.0, 1100.0]  # three in a day: ten minutes after the last
    assert playban_seconds(times, now=1100.0) == 600
    assert playban_seconds(times, now=1650.5) == 50
    assert playban_seconds(times, now=1700.0) == 0


def test_abandons_older_than_the_window_are_forgotten() -> None:
    times = [0.0, 10.0, 20.0 + 24 * HOUR]
    assert playban_seconds(times, now=21.0 + 24 * HOUR) == 0  # one left in the window


def test_a_rule_without_a_base_bans_nobody() -> None:
    assert playban_seconds([0.0] * 10, now=1.0, rule=PlaybanRule(base=0)) == 0


@given(st.lists(st.floats(0, 10 * 24 * HOUR), max_size=20), st.floats(0, 10 * 24 * HOUR))
def test_one_more_abandon_never_shortens_the_wait(times: list[float], now: float) -> None:
    before = [t for t in times if t <= now]
    assert playban_seconds([*before, now], now) >= playban_seconds(before, now)


@given(st.lists(st.integers(0, 200), min_size=2, max_size=4), st.data())
def test_a_forfeiter_ranks_below_every_side_that_stayed(totals: list[int],
                                                        data: st.DataObject) -> None:
    winner = data.draw(st.integers(0, len(totals) - 1))
    gone = data.draw(st.lists(st.integers(0, len(totals) - 1), unique=True,
                              max_size=len(totals)))
    ranks = ranks_with_forfeits(totals, winner, gone)
    stayed = [side for side in range(len(totals)) if side not in gone]
    for side in gone:
        assert all(ranks[side] > ranks[other] for other in stayed)
    for earlier, later in itertools.pairwise(gone):
        assert ranks[earlier] > ranks[later]  # the first to go ranks lowest
    if not gone:
        assert ranks == ranks_from_totals(totals, winner)


def test_leaving_never_beats_losing() -> None:
    """Ahead on points when they left, a forfeiter still ranks last."""
    assert ranks_with_forfeits([101, 40], winner=0, forfeits=[0]) == [1, 0]
    assert ranks_with_forfeits([101, 40, 30], winner=0, forfeits=[0]) == [2, 0, 1]


def test_a_bad_forfeit_side_is_refused() -> None:
    with pytest.raises(ValueError, match="not a side"):
        ranks_with_forfeits([1, 2], winner=1, forfeits=[5])


def rated_table(players: int = 2, variant: str = "egyptian") -> Table:
    config = TableConfig(variant, players, {}, (SeatConfig("human"),) * players, 60,
                         "expert", rated=True)
    table = Table("t1", config, 7)
    for seat in range(players):
        table.take_seat(seat, f"P{seat}", "h" * 64, (seat + 1, f"P{seat}"))
    table.start()
    return table


def play_until_everyone_played(table: Table) -> list[int | None]:
    """Each seat plays its first legal move until every one has played: who made each."""
    assert table.match is not None
    movers: list[int | None] = []
    while len(table.played) < table.rules.players:
        seat = table.to_play()
        assert seat is not None
        table.apply(table.match.legal_moves()[0], seat)
        movers.append(seat)
    return movers


def test_gone_before_a_first_play_aborts_the_match_for_everyone() -> None:
    table = rated_table()
    assert table.leave(1) == "abort"
    assert (table.unrated, table.aborted_by, table.forfeits) == ("aborted", 1, [])
    assert table.leave(0) is None  # nothing is at stake any more
    assert table.conduct() == {"match": 1, "forfeits": [], "aborted_by": 1,
                               "unrated": "aborted", "resigned": [], "aborted": None}


def test_gone_after_a_first_play_forfeits_and_only_one_side_of_two_does() -> None:
    table = rated_table()
    play_until_everyone_played(table)
    assert table.leave(0) == "forfeit"
    assert table.leave(0) is None and table.leave(1) is None
    assert table.forfeits == [0] and table.unrated is None
    assert table.forfeited_sides() == [0]


def test_partners_forfeit_as_one_side() -> None:
    table = rated_table(4)
    assert table.rules.sides == 2
    play_until_everyone_played(table)
    assert table.leave(2) == "forfeit"
    assert table.leave(0) is None and table.leave(1) is None
    assert table.forfeited_sides() == [0]


def test_three_players_may_forfeit_one_after_another() -> None:
    table = rated_table(3)
    play_until_everyone_played(table)
    assert [table.leave(seat) for seat in (2, 0)] == ["forfeit", "forfeit"]
    assert table.forfeited_sides() == [2, 0]


def test_casual_tables_and_finished_matches_know_no_forfeits() -> None:
    table = rated_table()
    casual = Table("t2", TableConfig(seats=(SeatConfig("human"), SeatConfig("human"))), 7)
    casual.take_seat(0, "A", "h" * 64)
    casual.take_seat(1, "B", "h" * 64)
    casual.start()
    assert casual.leave(0) is None and casual.conduct() is None
    assert table.conduct() is None


def test_the_conduct_is_taken_back_for_its_own_match_only() -> None:
    table = rated_table(3)
    movers = play_until_everyone_played(table)
    table.leave(1)
    stored = table.conduct()
    again = rated_table(3)
    again.match = None  # as a table loaded from the store: rebuilt from its moves
    again.restore(table.moves, movers)
    again.load_conduct(stored)
    assert again.forfeits == [1] and again.played == {0, 1, 2}
    assert again.leave(1) is None and again.leave(0) == "forfeit"
    unknown = rated_table(3)
    unknown.match = None
    unknown.restore(table.moves)  # stored before who played was kept: nobody has
    assert unknown.played == set() and unknown.leave(0) == "abort"
    later = rated_table(3)
    later.match_number = 2
    later.load_conduct(stored)
    assert later.forfeits == []
