"""The seek pool: who pairs with whom, when, at which seats; and what never pairs."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basra.players.matchmaking import (
    BASE_RANGE,
    RANGE_STEP,
    STEP_SECONDS,
    UNLIMITED_AFTER,
    GuestRatedSeekError,
    Matchmaker,
    Pairing,
    Seek,
    SeekError,
    UnknownSeekError,
    balanced_teams,
    rating_range,
    same_address,
)
from basra.players.ratings import RATED_POOLS, UnknownPoolError, parse_pool

_count = itertools.count()


def seek(rating: int = 1500, *, variant: str = "egyptian", players: int = 2,
         rated: bool = True, at: float = 0.0, player: str | None = None,
         seek_id: str | None = None, **more: Any) -> Seek:
    number = next(_count)
    return Seek(f"s{number}" if seek_id is None else seek_id, player or f"p{number}",
                f"Player {number}", rating, variant, players, rated, at, **more)


def pool_of(*seeks: Seek) -> Matchmaker:
    pool = Matchmaker()
    for s in seeks:
        pool.add(s)
    return pool


def ids(pairings: list[Pairing]) -> list[tuple[str | None, ...]]:
    return [tuple(None if s is None else s.id for s in p.seats) for p in pairings]


# -- ranges --------------------------------------------------------------------------------


def test_range_widens_with_time() -> None:
    assert rating_range(0) == BASE_RANGE == 100
    assert rating_range(STEP_SECONDS - 0.01) == 100
    assert rating_range(STEP_SECONDS) == BASE_RANGE + RANGE_STEP == 150
    assert rating_range(30) == 100 + 6 * 50
    assert rating_range(UNLIMITED_AFTER - 0.01) == 100 + 11 * 50
    assert rating_range(UNLIMITED_AFTER) == math.inf
    assert rating_range(-5) == 100  # a clock that went back


@settings(deadline=None)
@given(st.floats(0, 1000), st.floats(0, 1000))
def test_range_never_narrows(a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert rating_range(low) <= rating_range(high)


# -- pairing by rating and time ------------------------------------------------------------


def test_close_ratings_pair_at_once() -> None:
    a, b = seek(1500), seek(1600)
    pool = pool_of(a, b)
    (pairing,) = pool.pair(now=0.0)
    assert pairing.seats == (a, b)
    assert (pairing.pool, pairing.rated, pairing.partnership) == ("egyptian-2", True, False)
    assert len(pool) == 0


def test_far_ratings_wait_until_the_ranges_widen() -> None:
    a, b = seek(1500, at=0.0), seek(1760, at=0.0)
    pool = pool_of(a, b)
    for now in (0.0, 4.9, 10.0, 14.9, 15.0, 19.9):
        assert pool.pair(now) == [], now
    # At 20 s both ranges are ±300.
    assert ids(pool.pair(20.0)) == [(a.id, b.id)]


def test_both_ranges_must_hold() -> None:
    old, new = seek(1500, at=0.0), seek(1800, at=58.0)
    pool = pool_of(old, new)
    # The old seek takes anyone after 60 s, the new one only ±100 yet.
    assert pool.pair(60.0) == []
    # At 68 s the new seek has waited 10 s: ±200, still short of 300.
    assert pool.pair(68.0) == []
    assert ids(pool.pair(78.0)) == [(old.id, new.id)]  # 20 s: ±300


def test_after_a_minute_any_ratings_pair() -> None:
    a, b = seek(800, at=0.0), seek(2600, at=0.0)
    pool = pool_of(a, b)
    assert pool.pair(UNLIMITED_AFTER - 1) == []
    assert len(pool.pair(UNLIMITED_AFTER)) == 1


def test_closest_rating_is_preferred() -> None:
    oldest = seek(1500, at=0.0)
    far, near = seek(1590, at=1.0), seek(1520, at=2.0)
    pool = pool_of(oldest, far, near)
    assert ids(pool.pair(3.0)) == [(oldest.id, near.id)]
    assert [s.id for s in pool.seeks] == [far.id]


def test_longest_waiting_is_served_first() -> None:
    # The middle seek is closest to both; the older of the other two gets it.
    young, middle, old = seek(1450, at=9.0), seek(1500, at=5.0), seek(1550, at=1.0)
    pool = pool_of(young, middle, old)
    assert ids(pool.pair(10.0)) == [(old.id, middle.id)]


def test_equal_distance_prefers_the_older() -> None:
    me = seek(1500, at=0.0)
    below, above = seek(1450, at=3.0), seek(1550, at=2.0)
    pool = pool_of(me, below, above)
    assert ids(pool.pair(4.0)) == [(me.id, above.id)]


def test_many_pairs_at_once() -> None:
    seeks = [seek(1500 + 10 * i, at=float(i)) for i in range(10)]
    pool = pool_of(*seeks)
    pairings = pool.pair(20.0)
    assert len(pairings) == 5
    assert len(pool) == 0
    seated = [s.id for p in pairings for s in p.seeks]
    assert sorted(seated) == sorted(s.id for s in seeks)


# -- what never pairs ----------------------------------------------------------------------


@pytest.mark.parametrize("other", [
    {"variant": "pasur"}, {"players": 3}, {"rated": False}, {"variant": "classic"},
])
def test_incompatible_seeks_never_pair(other: dict[str, Any]) -> None:
    a = seek(1500, at=0.0)
    b = seek(1500, at=0.0, **other)
    pool = pool_of(a, b)
    assert pool.pair(1000.0) == []
    assert len(pool) == 2


def test_aliases_of_a_variant_share_its_pool() -> None:
    a = seek(1500, variant="pasur")
    b = seek(1500, variant="pasoor")
    assert a.pool == b.pool == "pasur-2"
    assert len(pool_of(a, b).pair(0.0)) == 1


def test_a_player_never_meets_themselves() -> None:
    a = seek(1500, player="ann", rated=True)
    b = seek(1500, player="ann", rated=False)
    c = seek(1500, player="ann", players=3)
    pool = pool_of(a, b, c)
    assert pool.pair(1000.0) == []
    with pytest.raises(SeekError, match="already waits for a rated egyptian-2 game"):
        pool.add(seek(1500, player="ann", rated=True))


def test_a_player_is_seated_once_and_their_other_seeks_leave() -> None:
    ann_two = seek(1500, player="ann", at=0.0)
    ann_casual = seek(1500, player="ann", rated=False, at=0.0)
    bob = seek(1500, player="bob", at=1.0)
    cid = seek(1500, player="cid", rated=False, at=1.0)
    pool = pool_of(ann_two, ann_casual, bob, cid)
    pairings = pool.pair(2.0)
    assert len(pairings) == 1
    assert "ann" in {s.player for s in pairings[0].seeks}
    assert [s.id for s in pool.seeks] == [cid.id]


def test_cancelled_seeks_never_pair() -> None:
    a, b, c = seek(1500, at=0.0), seek(1500, at=1.0), seek(1500, at=2.0)
    pool = pool_of(a, b, c)
    assert pool.cancel(b.id) is True
    assert pool.cancel(b.id) is False
    assert pool.cancel("never-added") is False
    assert ids(pool.pair(3.0)) == [(a.id, c.id)]
    assert b.id not in pool


def test_a_seek_is_paired_at_most_once() -> None:
    a, b = seek(1500), seek(1500)
    pool = pool_of(a, b)
    assert len(pool.pair(0.0)) == 1
    assert pool.pair(100.0) == []
    assert pool.cancel(a.id) is False
    with pytest.raises(UnknownSeekError):
        pool.waiting_for(a.id, 1.0)


def test_duplicate_ids_are_refused() -> None:
    pool = pool_of(seek(1500, seek_id="x"))
    with pytest.raises(SeekError, match="seek 'x' is already waiting"):
        pool.add(seek(1600, seek_id="x"))


# -- guests and bad seeks ------------------------------------------------------------------


def test_guests_may_not_seek_rated_games() -> None:
    with pytest.raises(GuestRatedSeekError, match="guests play casual games only") as caught:
        seek(1500, rated=True, guest=True)
    assert isinstance(caught.value, ValueError)
    casual = seek(1500, rated=False, guest=True)
    other = seek(1500, rated=False)
    assert len(pool_of(casual, other).pair(0.0)) == 1


@pytest.mark.parametrize(("changes", "message"), [
    ({"variant": "chess"}, "unknown variant 'chess'"),
    ({"players": 5}, "not 5"),
    ({"variant": "jawaker", "players": 4}, "played by 2 players"),
    ({"rating": 1500.5}, "rating must be a whole number"),
    ({"rating": True}, "rating must be a whole number"),
    ({"at": math.nan}, "created_at must be a finite number"),
    ({"rated": "yes"}, "rated must be true or false"),
    ({"seek_id": ""}, "seek id must be non-empty"),
])
def test_bad_seeks_are_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(SeekError, match=message):
        seek(**{"rating": 1500, **changes})


def test_unknown_pools_are_value_errors() -> None:
    assert issubclass(SeekError, ValueError) and issubclass(UnknownPoolError, ValueError)


# -- waiting -------------------------------------------------------------------------------


def test_waiting_for() -> None:
    a = seek(1500, at=100.0)
    pool = pool_of(a)
    assert pool.waiting_for(a.id, 100.0) == 0.0
    assert pool.waiting_for(a.id, 137.5) == 37.5
    assert pool.waiting_for(a.id, 90.0) == 0.0
    assert a.range(137.5) == 100 + 7 * 50
    with pytest.raises(UnknownSeekError, match="no waiting seek 'nope'"):
        pool.waiting_for("nope", 0.0)
    with pytest.raises(KeyError):
        pool.get("nope")
    assert pool.get(a.id) is a


# -- three and four players ----------------------------------------------------------------


def test_three_player_tables_take_three() -> None:
    a, b = seek(1500, players=3, at=0.0), seek(1510, players=3, at=1.0)
    pool = pool_of(a, b)
    assert pool.pair(1000.0) == []
    c = seek(1490, players=3, at=2.0)
    pool.add(c)
    (pairing,) = pool.pair(1000.0)
    assert pairing.seats == (a, b, c)  # in the order they came
    assert pairing.pool == "egyptian-3"


def test_three_players_need_every_pair_in_range() -> None:
    # b is within 100 of both a and c, but a and c are 180 apart.
    a, b, c = (seek(r, variant="pasur", players=3, at=0.0) for r in (1410, 1500, 1590))
    pool = pool_of(a, b, c)
    assert pool.pair(0.0) == []
    assert len(pool.pair(STEP_SECONDS * 2)) == 1  # ±200


def test_three_players_smallest_spread_wins() -> None:
    oldest = seek(1500, players=3, at=0.0)
    spread = [seek(r, players=3, at=float(i + 1)) for i, r in enumerate((1420, 1580, 1505,
                                                                           1495))]
    pool = pool_of(oldest, *spread)
    (pairing,) = pool.pair(5.0)
    assert sorted(s.rating for s in pairing.seeks) == [1495, 1500, 1505]


def test_four_player_free_for_all() -> None:
    four = [seek(1500 + i, variant="classic", players=4, at=float(i)) for i in range(4)]
    (pairing,) = pool_of(*four).pair(10.0)
    assert pairing.seats == tuple(four)
    assert not pairing.partnership


def test_partnership_tables_are_balanced() -> None:
    ratings = (1500, 1510, 1900, 1880)
    four = [seek(r, players=4, at=float(i)) for i, r in enumerate(ratings)]
    pool = pool_of(*four)
    assert pool.pair(30.0) == []  # 400 apart: not yet
    (pairing,) = pool.pair(UNLIMITED_AFTER)
    assert pairing.partnership
    seats = [s.rating for s in pairing.seeks]
    assert seats[0] == 1500  # the longest waiting
    team_a, team_b = seats[0] + seats[2], seats[1] + seats[3]
    assert abs(team_a - team_b) == min(
        abs(a + b - (sum(ratings) - a - b)) for a, b in itertools.combinations(ratings, 2))
    assert {seats[0], seats[2]} == {1500, 1900}


@settings(deadline=None)
@given(st.lists(st.integers(800, 2400), min_size=4, max_size=4, unique=True))
def test_balanced_teams_is_the_best_split(ratings: list[int]) -> None:
    four = [seek(r, players=4, at=float(i)) for i, r in enumerate(ratings)]
    seats = balanced_teams(four)
    assert sorted(s.id for s in seats) == sorted(s.id for s in four)
    assert seats[0] is four[0]
    gap = abs(seats[0].rating + seats[2].rating - seats[1].rating - seats[3].rating)
    assert gap == min(abs(2 * (a + b) - sum(ratings))
                      for a, b in itertools.combinations(ratings, 2))


def test_balanced_teams_needs_four() -> None:
    with pytest.raises(ValueError, match="seats 4, not 3"):
        balanced_teams([seek(1500, players=4) for _ in range(3)])


# -- computer fill -------------------------------------------------------------------------


def test_computer_fill_for_two_players() -> None:
    a = seek(1500, at=0.0)
    pool = pool_of(a)
    pairing = pool.expand_with_computer(a.id, now=20.0)
    assert pairing.seats == (a, None)
    assert pairing.names == (a.name, None)
    assert len(pool) == 0
    with pytest.raises(UnknownSeekError):
        pool.expand_with_computer(a.id, now=21.0)


def test_computer_fill_takes_willing_compatible_seeks_only() -> None:
    me = seek(1500, players=4, at=0.0)
    willing = seek(1550, players=4, at=3.0, computer_fill=True)
    unwilling = seek(1500, players=4, at=1.0)
    far = seek(2200, players=4, at=2.0, computer_fill=True)
    other_pool = seek(1500, players=3, at=1.0, computer_fill=True)
    casual = seek(1500, players=4, rated=False, at=1.0, computer_fill=True)
    pool = pool_of(me, willing, unwilling, far, other_pool, casual)
    pairing = pool.expand_with_computer(me.id, now=10.0)
    assert pairing.seats == (me, willing, None, None)
    assert pairing.partnership and pairing.rated
    assert {s.id for s in pool.seeks} == {unwilling.id, far.id, other_pool.id, casual.id}


def test_computer_fill_joiners_fit_each_other() -> None:
    me = seek(1500, players=4, at=0.0)
    low = seek(1410, players=4, at=1.0, computer_fill=True)
    high = seek(1590, players=4, at=2.0, computer_fill=True)
    pool = pool_of(me, low, high)
    # Each is within 100 of me, but 180 apart: only one may join.
    pairing = pool.expand_with_computer(me.id, now=1.0)
    assert pairing.seats[0] is me and pairing.seats[2:] == (None, None)
    assert pairing.seats[1] in (low, high)
    assert len(pool) == 1


def test_computer_fill_never_overfills() -> None:
    me = seek(1500, players=3, at=0.0)
    others = [seek(1500 + i, players=3, at=1.0 + i, computer_fill=True) for i in range(4)]
    pool = pool_of(me, *others)
    pairing = pool.expand_with_computer(me.id, now=100.0)
    assert len(pairing.seats) == 3 and None not in pairing.seats
    assert len(pool) == 2


# -- properties over random pools ----------------------------------------------------------

pools = st.sampled_from(RATED_POOLS)


@st.composite
def seek_lists(draw: st.DrawFn) -> list[Seek]:
    count = draw(st.integers(0, 40))
    players = draw(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "i"]),
                            min_size=count, max_size=count))
    found: list[Seek] = []
    taken: set[tuple[str, str, bool]] = set()
    for index, player in enumerate(players):
        pool = parse_pool(draw(st.sampled_from(["egyptian-2", "egyptian-3", "egyptian-4",
                                                "classic-4"])))
        rated = draw(st.booleans())
        if (player, pool.key, rated) in taken:
            continue
        taken.add((player, pool.key, rated))
        found.append(Seek(f"s{index}", player, player.upper(), draw(st.integers(1000, 2000)),
                          pool.variant, pool.players, rated, draw(st.floats(0, 100)),
                          computer_fill=draw(st.booleans())))
    return found


@settings(max_examples=200, deadline=None)
@given(seek_lists(), st.floats(0, 200), st.sets(st.integers(0, 39)))
def test_pairings_are_always_valid(seeks: list[Seek], now: float, cancel: set[int]) -> None:
    pool = pool_of(*seeks)
    cancelled = {s.id for i, s in enumerate(seeks) if i in cancel}
    for seek_id in cancelled:
        pool.cancel(seek_id)
    waiting_before = {s.id for s in pool.seeks}
    pairings = pool.pair(now)
    seated = [s for p in pairings for s in p.seeks]
    assert len({s.id for s in seated}) == len(seated)  # each seek once
    assert len({s.player for s in seated}) == len(seated)  # each player once
    assert not cancelled & {s.id for s in seated}
    for pairing in pairings:
        shape = parse_pool(pairing.pool)
        assert len(pairing.seats) == shape.players and None not in pairing.seats
        for s in pairing.seeks:
            assert (s.pool, s.rated) == (pairing.pool, pairing.rated)
        for a, b in itertools.combinations(pairing.seeks, 2):
            assert abs(a.rating - b.rating) <= min(a.range(now), b.range(now))
        if shape.partnership:
            assert balanced_teams(pairing.seeks) == pairing.seats
    left = {s.id for s in pool.seeks}
    assert left == waiting_before - {s.id for s in seated} - {
        s.id for s in seeks if s.player in {t.player for t in seated}}
    # Nothing more can be paired right away: the same call again finds no table.
    assert pool.pair(now) == []


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(1300, 1700), st.floats(0, 80)), min_size=3, max_size=12),
       st.integers(2, 3), st.floats(0, 120))
def test_closest_group_is_the_best_by_brute_force(entries: list[tuple[int, float]],
                                                  count: int, now: float) -> None:
    from basra.players.matchmaking import _closest_group

    members = [seek(rating, players=count + 1, at=at) for rating, at in entries]
    ratings = [s.rating for s in members]
    ranges = [s.range(now) for s in members]
    me, near = 0, list(range(1, len(members)))
    found = _closest_group(members, ratings, ranges, me, near, count)

    def score(group: tuple[int, ...]) -> tuple[int, float]:
        chosen = [ratings[j] for j in (me, *group)]
        return max(chosen) - min(chosen), sum(members[j].created_at for j in group)

    valid = [g for g in itertools.combinations(near, count)
             if all(abs(ratings[a] - ratings[b]) <= min(ranges[a], ranges[b])
                    for a, b in itertools.combinations(g, 2))]
    if not valid:
        assert found is None
    else:
        assert found is not None
        spread, started = score(found)
        best_spread, best_started = min(score(g) for g in valid)
        assert spread == best_spread
        assert started == pytest.approx(best_started)  # sums in another order


# One address


def test_a_seek_prefers_a_player_from_another_address() -> None:
    first = seek(1500, at=0.0, address="10.0.0.1")
    twin = seek(1500, at=1.0, address="10.0.0.1")
    stranger = seek(1560, at=2.0, address="10.0.0.2")
    [pairing] = pool_of(first, twin, stranger).pair(now=3.0)
    assert pairing.seeks == (first, stranger)


def test_one_address_waits_while_another_address_waits() -> None:
    """Out of range for now, the stranger still keeps the two seeks of one address apart,
    until the ranges widen (then the oldest takes the stranger)."""
    first = seek(1500, at=0.0, address="10.0.0.1")
    twin = seek(1500, at=1.0, address="10.0.0.1")
    stranger = seek(1900, at=2.0, address="10.0.0.2")
    pool = pool_of(first, twin, stranger)
    assert pool.pair(now=3.0) == []
    [pairing] = pool.pair(now=UNLIMITED_AFTER + 2.0)
    assert pairing.seeks == (first, stranger)
    assert len(pool) == 1


def test_one_address_alone_may_pair() -> None:
    first = seek(1500, at=0.0, address="10.0.0.1")
    twin = seek(1500, at=1.0, address="10.0.0.1")
    [pairing] = pool_of(first, twin).pair(now=2.0)
    assert pairing.seeks == (first, twin)
    assert same_address(first, twin)
    assert not same_address(seek(address=""), seek(address=""))  # unknown: not the same


def test_three_players_from_three_addresses_come_first() -> None:
    seeks = [seek(1500, players=3, at=float(i), address=address)
             for i, address in enumerate(["a", "a", "b", "c"])]
    [pairing] = pool_of(*seeks).pair(now=5.0)
    assert {s.address for s in pairing.seeks} == {"a", "b", "c"}


def test_three_players_share_an_address_when_nothing_else_fits() -> None:
    seeks = [seek(1500, players=3, at=float(i), address=address)
             for i, address in enumerate(["a", "a", "b"])]
    [pairing] = pool_of(*seeks).pair(now=5.0)
    assert len(pairing.seeks) == 3


def test_the_computer_fills_a_seat_rather_than_a_seek_from_the_same_address() -> None:
    asker = seek(1500, players=3, at=0.0, address="a")
    twin = seek(1500, players=3, at=1.0, address="a", computer_fill=True)
    other = seek(1510, players=3, at=2.0, address="b", computer_fill=True)
    pool = pool_of(asker, twin, other)
    assert pool.expand_with_computer(asker.id, now=30.0).seats == (asker, other, None)
    assert twin.id in pool


def test_an_address_must_be_text() -> None:
    with pytest.raises(SeekError, match="address must be text"):
        seek(address=7)


# -- the pile games ------------------------------------------------------------------------


def test_pile_seeks_pair_within_their_own_pool() -> None:
    pisti = [seek(1500, variant="pisti", at=0.0), seek(1520, variant="pişti", at=1.0)]
    xeri = [seek(1500, variant="xeri", at=0.0), seek(1510, variant="ξερή", at=2.0)]
    egyptian = seek(1500, at=0.0)
    assert {s.pool for s in pisti} == {"pisti-2"} and {s.pool for s in xeri} == {"xeri-2"}
    pool = pool_of(*pisti, *xeri, egyptian)
    pairings = pool.pair(5.0)
    assert sorted(p.pool for p in pairings) == ["pisti-2", "xeri-2"]
    assert sorted(ids(pairings)) == sorted([(pisti[0].id, pisti[1].id),
                                            (xeri[0].id, xeri[1].id)])
    assert [s.id for s in pool.seeks] == [egyptian.id]  # it waits on


@pytest.mark.parametrize("variant", ["pisti", "xeri"])
def test_four_player_pile_seeks_sit_as_balanced_partnerships(variant: str) -> None:
    ratings = (1500, 1510, 1700, 1690)
    four = [seek(r, variant=variant, players=4, at=float(i)) for i, r in enumerate(ratings)]
    (pairing,) = pool_of(*four).pair(UNLIMITED_AFTER)
    assert pairing.pool == f"{variant}-4" and pairing.partnership
    seats = [s.rating for s in pairing.seeks]
    assert {seats[0], seats[2]} == {1500, 1700}  # 3200 against 3200


def test_three_player_pisti_is_a_free_for_all_and_xeri_has_no_three() -> None:
    three = [seek(1500 + i, variant="pisti", players=3, at=float(i)) for i in range(3)]
    (pairing,) = pool_of(*three).pair(10.0)
    assert pairing.pool == "pisti-3" and not pairing.partnership
    with pytest.raises(SeekError, match=r"xeri.*2 or 4 players, not 3"):
        seek(1500, variant="xeri", players=3)
