"""Ratings per pool: keys, the display scale, provisional marks, updates of every shape."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basra.bots import BOT_LEVELS
from basra.players.ratings import (
    COMPUTER_RATINGS,
    ELO_PER_MU,
    INITIAL_SIGMA,
    NEW_DISPLAY,
    PROVISIONAL_GAMES,
    PROVISIONAL_SIGMA,
    RATED_POOLS,
    MatchResultError,
    Pool,
    Rating,
    RatingUpdate,
    UnknownPoolError,
    computer_key,
    computer_level,
    computer_rating,
    new_rating,
    parse_pool,
    pool_key,
    ranks_from_totals,
    rate,
    rate_match,
)
from basra.rules import PRESETS

ratings = st.builds(
    Rating,
    mu=st.floats(min_value=0, max_value=50),
    sigma=st.floats(min_value=0.5, max_value=INITIAL_SIGMA),
    games=st.integers(min_value=0, max_value=500),
)


# -- pools ---------------------------------------------------------------------------------


def test_every_preset_player_count_is_a_pool() -> None:
    expected = {f"{name}-{n}" for name, found in PRESETS.items() for n in found.players}
    assert set(RATED_POOLS) == expected
    assert len(RATED_POOLS) == len(expected)
    for name, found in PRESETS.items():
        for players in found.players:
            key = pool_key(name, players)
            assert key == f"{name}-{players}"
            pool = parse_pool(key)
            assert (pool.variant, pool.players, pool.key) == (name, players, key)
            assert pool.partnership == (players in found.partnership_players)


def test_pool_shapes() -> None:
    assert parse_pool("egyptian-2").side_sizes == (1, 1)
    assert parse_pool("pasur-3").side_sizes == (1, 1, 1)
    assert parse_pool("egyptian-4").side_sizes == (2, 2)
    assert parse_pool("classic-4").side_sizes == (1, 1, 1, 1)  # no partnerships in classic


def test_pool_key_takes_any_name_of_a_variant() -> None:
    assert pool_key("PASOOR", 2) == "pasur-2"
    assert pool_key("six_card", 4) == "six-card-4"


@pytest.mark.parametrize(("variant", "players", "message"), [
    ("chess", 2, "unknown variant 'chess'"),
    ("jawaker", 3, "played by 2 players, not 3"),
    ("six-card", 3, "played by 2 or 4 players, not 3"),
    ("egyptian", True, "not True"),
])
def test_pool_key_refuses_what_is_not_a_pool(variant: str, players: int, message: str) -> None:
    with pytest.raises(UnknownPoolError, match=message):
        pool_key(variant, players)


@pytest.mark.parametrize("key", ["egyptian", "egyptian-", "egyptian-x", "-2", "egyptian-02",
                                 "pasoor-2", "Egyptian-2", "egyptian-10", "chess-2"])
def test_parse_pool_refuses_malformed_keys(key: str) -> None:
    with pytest.raises(UnknownPoolError):
        parse_pool(key)


# -- the display scale ---------------------------------------------------------------------


def test_a_new_player_shows_1500_and_is_provisional() -> None:
    rating = new_rating()
    assert rating.display == NEW_DISPLAY == 1500
    assert rating.provisional
    assert rating.games == 0


def test_elo_scale_400_points_are_ten_to_one() -> None:
    # Between settled players the model's odds for a mu gap d are exp(d / (sqrt 2 * beta)).
    from basra.players.ratings import BETA

    gap = 400 / ELO_PER_MU
    assert math.exp(gap / (math.sqrt(2) * BETA)) == pytest.approx(10)
    assert Rating(25 + gap, 1.0).display - Rating(25, 1.0).display == 400


@settings(deadline=None)
@given(ratings)
def test_from_display_inverts_display(rating: Rating) -> None:
    again = Rating.from_display(rating.display, rating.sigma, rating.games)
    assert again.display == rating.display
    assert abs(again.mu - rating.mu) <= 0.5 / ELO_PER_MU + 1e-9


def test_provisional_until_enough_games_or_certainty() -> None:
    assert Rating(25, INITIAL_SIGMA, PROVISIONAL_GAMES - 1).provisional
    assert not Rating(25, INITIAL_SIGMA, PROVISIONAL_GAMES).provisional
    assert not Rating(25, PROVISIONAL_SIGMA, 0).provisional
    assert Rating(25, PROVISIONAL_SIGMA + 0.01, 0).provisional


def test_ten_games_end_the_provisional_mark() -> None:
    me, other = new_rating(), new_rating()
    for game in range(PROVISIONAL_GAMES):
        assert me.provisional
        (me,), (other,) = rate("egyptian-2", [[me], [other]], [game % 2, 1 - game % 2])
    assert me.games == PROVISIONAL_GAMES
    assert not me.provisional


@pytest.mark.parametrize(("field", "value"), [
    ("mu", math.nan), ("mu", math.inf), ("mu", "25"), ("sigma", 0.0), ("sigma", -1.0),
    ("games", -1), ("games", 1.5), ("games", True),
])
def test_rating_refuses_bad_values(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(new_rating(), **{field: value})


# -- updates -------------------------------------------------------------------------------


def test_two_players_winner_gains_loser_loses() -> None:
    (winner,), (loser,) = rate("egyptian-2", [[new_rating()], [new_rating()]], [0, 1])
    assert winner.display > 1500 > loser.display
    assert winner.display - 1500 == 1500 - loser.display  # equal players: symmetric
    assert winner.sigma < INITIAL_SIGMA and loser.sigma < INITIAL_SIGMA
    assert winner.games == loser.games == 1


def test_order_of_sides_does_not_matter() -> None:
    a, b = Rating(27.0, 5.0, 12), Rating(23.0, 7.0, 3)
    (a1,), (b1,) = rate("pasur-2", [[a], [b]], [1, 0])
    (b2,), (a2,) = rate("pasur-2", [[b], [a]], [0, 1])
    assert (a1, b1) == (a2, b2)


def test_an_upset_moves_more_than_an_expected_win() -> None:
    strong, weak = Rating(30.0, 3.0, 50), Rating(20.0, 3.0, 50)
    (expected,), _ = rate("egyptian-2", [[strong], [weak]], [0, 1])
    _, (upset,) = rate("egyptian-2", [[strong], [weak]], [1, 0])
    assert 0 < expected.mu - strong.mu < upset.mu - weak.mu


def test_teams_share_the_result() -> None:
    a, c = Rating(26.0, 6.0, 4), Rating(24.0, 6.0, 4)
    b, d = Rating(25.0, 6.0, 4), Rating(25.0, 6.0, 4)
    (a1, c1), (b1, d1) = rate("egyptian-4", [[a, c], [b, d]], [0, 1])
    assert a1.mu > a.mu and c1.mu > c.mu
    assert b1.mu < b.mu and d1.mu < d.mu
    assert all(r.games == 5 for r in (a1, c1, b1, d1))


def test_free_for_all_ranks_order_the_changes() -> None:
    sides = [[new_rating()] for _ in range(3)]
    (second,), (first,), (third,) = rate("pasur-3", sides, [1, 0, 2])
    assert first.mu > second.mu > third.mu
    assert first.mu > 25 > third.mu


def test_free_for_all_ties_are_shared() -> None:
    sides = [[new_rating()] for _ in range(3)]
    (a,), (b,), (c,) = rate("egyptian-3", sides, [1, 0, 1])
    assert a == c
    assert b.mu > 25 > a.mu
    # Four players, two tied for second.
    (w,), (x,), (y,), (z,) = rate("classic-4", [[new_rating()] for _ in range(4)], [0, 1, 1, 3])
    assert x == y
    assert w.mu > x.mu > z.mu


def test_ranks_need_not_be_dense() -> None:
    sides = [[new_rating()] for _ in range(3)]
    assert rate("pasur-3", sides, [0, 1, 2]) == rate("pasur-3", sides, [0, 5, 9])


@pytest.mark.parametrize(("pool", "sides", "ranks", "message"), [
    ("egyptian-2", 3, [0, 1, 2], "sides of 1 and 1 players, not 1 and 1 and 1"),
    ("egyptian-4", 4, [0, 1, 2, 3], "sides of 2 and 2 players"),
    ("egyptian-2", 2, [0], "one rank per side"),
    ("egyptian-2", 2, [0, -1], "0 or more"),
    ("egyptian-2", 2, [0, 1.5], "whole numbers"),
    ("egyptian-2", 2, [0, 0], "nobody won"),
    ("pasur-3", 3, [1, 1, 1], "nobody won"),
])
def test_rate_refuses_results_that_do_not_fit(pool: str, sides: int, ranks: list[int],
                                              message: str) -> None:
    if pool == "egyptian-4" and sides == 4:
        shaped = [[new_rating()] for _ in range(4)]
    else:
        shaped = [[new_rating()] for _ in range(sides)]
    with pytest.raises(MatchResultError, match=message):
        rate(pool, shaped, ranks)


def test_rate_refuses_unknown_pools() -> None:
    with pytest.raises(UnknownPoolError):
        rate("chess-2", [[new_rating()], [new_rating()]], [0, 1])


@settings(deadline=None)
@given(st.sampled_from([p for p in RATED_POOLS if not parse_pool(p).partnership]), st.data())
def test_free_for_all_properties(pool: str, data: st.DataObject) -> None:
    players = parse_pool(pool).players
    before = data.draw(st.lists(ratings, min_size=players, max_size=players))
    ranks = data.draw(st.lists(st.integers(0, players - 1), min_size=players,
                               max_size=players).filter(lambda r: len(set(r)) > 1))
    after = rate(pool, [[r] for r in before], ranks)
    assert [side[0].games for side in after] == [r.games + 1 for r in before]
    for (new,) in after:
        assert math.isfinite(new.mu) and new.sigma > 0
    # A lone winner never loses points, a lone last never gains (a tie for first with a
    # far weaker player may cost some: the model expected better).
    best, worst = min(ranks), max(ranks)
    for (new,), old, rank in zip(after, before, ranks, strict=True):
        if ranks.count(rank) == 1 and rank == best:
            assert new.mu >= old.mu - 1e-9
        if ranks.count(rank) == 1 and rank == worst:
            assert new.mu <= old.mu + 1e-9
    # Same result, same numbers: a stored match can be rated again to check it.
    assert rate(pool, [[r] for r in before], ranks) == after


@settings(deadline=None)
@given(st.lists(ratings, min_size=4, max_size=4), st.booleans())
def test_partnership_properties(four: list[Rating], first_won: bool) -> None:
    ranks = [0, 1] if first_won else [1, 0]
    (a, c), (b, d) = rate("egyptian-4", [[four[0], four[2]], [four[1], four[3]]], ranks)
    winners, losers = ((a, c), (b, d)) if first_won else ((b, d), (a, c))
    old_winners = (four[0], four[2]) if first_won else (four[1], four[3])
    old_losers = (four[1], four[3]) if first_won else (four[0], four[2])
    for new, old in zip(winners, old_winners, strict=True):
        assert new.mu >= old.mu
    for new, old in zip(losers, old_losers, strict=True):
        assert new.mu <= old.mu


# -- match results -------------------------------------------------------------------------


def test_ranks_from_totals() -> None:
    assert ranks_from_totals([101, 60], winner=0) == [0, 1]
    assert ranks_from_totals([60, 101], winner=1) == [1, 0]
    assert ranks_from_totals([30, 55, 30], winner=1) == [1, 0, 1]
    assert ranks_from_totals([54, 55, 30], winner=1) == [1, 0, 2]
    # The winner goes first whatever the totals say (a tie broken by an extra deal).
    assert ranks_from_totals([70, 70, 10], winner=1) == [1, 0, 2]
    with pytest.raises(MatchResultError, match="winner 3"):
        ranks_from_totals([1, 2, 3], winner=3)


@settings(deadline=None)
@given(st.lists(st.integers(0, 200), min_size=2, max_size=4), st.data())
def test_ranks_from_totals_properties(totals: list[int], data: st.DataObject) -> None:
    winner = data.draw(st.integers(0, len(totals) - 1))
    ranks = ranks_from_totals(totals, winner)
    assert ranks[winner] == 0
    assert all(rank > 0 for side, rank in enumerate(ranks) if side != winner)
    for a in range(len(totals)):
        for b in range(len(totals)):
            if winner not in (a, b) and totals[a] > totals[b]:
                assert ranks[a] < ranks[b]
            if winner not in (a, b) and totals[a] == totals[b]:
                assert ranks[a] == ranks[b]


def test_rate_match_gives_history_rows() -> None:
    known = {"ann": Rating(28.0, 4.0, 30)}
    updates = rate_match("match-7", "egyptian-2", [["ann"], ["bob"]], [1, 0], known)
    assert [u.player for u in updates] == ["ann", "bob"]
    ann, bob = updates
    assert isinstance(ann, RatingUpdate)
    assert (ann.match_id, ann.pool) == ("match-7", "egyptian-2")
    assert ann.before == known["ann"] and bob.before == new_rating()
    assert ann.change < 0 < bob.change
    assert ann.change == ann.after.display - ann.before.display
    assert ann.after.games == 31 and bob.after.games == 1
    # The same match rated again from the same ratings gives the same rows.
    assert rate_match("match-7", "egyptian-2", [["ann"], ["bob"]], [1, 0], known) == updates


def test_rate_match_keeps_computer_ratings_fixed() -> None:
    updates = rate_match("m", "egyptian-2", [["ann"], [computer_key("expert")]], [0, 1], {})
    assert [u.player for u in updates] == ["ann"]
    # Beating the expert is worth more than beating a new player.
    beat_new = rate_match("m", "egyptian-2", [["ann"], ["bob"]], [0, 1], {})[0]
    assert updates[0].change > beat_new.change
    # A computer level may hold both seats of a side, never a person.
    both = rate_match("m", "egyptian-4", [["ann", "computer:greedy"],
                                          ["computer:greedy", "bob"]], [0, 1], {})
    assert [u.player for u in both] == ["ann", "bob"]
    with pytest.raises(MatchResultError, match="two seats"):
        rate_match("m", "egyptian-4", [["ann", "bob"], ["ann", "cid"]], [0, 1], {})
    with pytest.raises(MatchResultError, match="non-empty"):
        rate_match("m", "egyptian-2", [["ann"], [""]], [0, 1], {})


def test_rate_match_checks_the_shape() -> None:
    with pytest.raises(MatchResultError, match="sides of 2 and 2"):
        rate_match("m", "egyptian-4", [["a"], ["b"]], [0, 1], {})


# -- the computer levels ---------------------------------------------------------------------


def test_every_level_has_a_rating_in_every_pool() -> None:
    assert tuple(COMPUTER_RATINGS) == BOT_LEVELS
    for pool in RATED_POOLS:
        shown = [computer_rating(level, pool).display for level in BOT_LEVELS]
        assert shown == [COMPUTER_RATINGS[level] for level in BOT_LEVELS]
        assert all(not computer_rating(level, pool).provisional for level in BOT_LEVELS)


def test_the_levels_are_in_order() -> None:
    shown = [COMPUTER_RATINGS[level] for level in BOT_LEVELS]
    assert shown == sorted(shown)
    assert len(set(shown)) == len(shown)


def test_computer_keys() -> None:
    for level in BOT_LEVELS:
        assert computer_level(computer_key(level)) == level
    assert computer_level("computer:grandmaster") is None
    assert computer_level("master") is None
    with pytest.raises(ValueError, match="unknown computer level 'grandmaster'"):
        computer_key("grandmaster")
    with pytest.raises(UnknownPoolError):
        computer_rating("expert", "chess-2")


# -- the pile games' pools ---------------------------------------------------------------------


def test_pisti_and_xeri_are_rated_pools_with_partnerships_at_four() -> None:
    for key in ("pisti-2", "pisti-3", "pisti-4", "xeri-2", "xeri-4"):
        assert key in RATED_POOLS
    assert "xeri-3" not in RATED_POOLS  # Xeri is played by 2 or 4
    assert parse_pool("pisti-4") == Pool("pisti", 4, partnership=True)
    assert parse_pool("xeri-4").side_sizes == (2, 2)
    assert parse_pool("pisti-3").side_sizes == (1, 1, 1)
    assert pool_key("pişti", 2) == "pisti-2" and pool_key("ξερή", 4) == "xeri-4"
    assert pool_key("kseri", 2) == "xeri-2"
    with pytest.raises(UnknownPoolError, match="played by 2 or 4 players, not 3"):
        pool_key("xeri", 3)


def test_a_pile_pool_rates_partnerships_and_keeps_the_computers_fixed() -> None:
    updates = rate_match("p1", "xeri-4", [["ann", computer_key("greedy")],
                                          ["bob", computer_key("random")]], [0, 1], {})
    assert [(u.player, u.pool, u.change > 0) for u in updates] == [
        ("ann", "xeri-4", True), ("bob", "xeri-4", False)]
    with pytest.raises(MatchResultError, match="sides of 2 and 2"):
        rate_match("p2", "pisti-4", [["a"], ["b"], ["c"], ["d"]], [0, 1, 2, 3], {})
    three = rate_match("p3", "pisti-3", [["ann"], ["bob"], [computer_key("expert")]],
                       [1, 0, 2], {})
    assert [u.player for u in three] == ["ann", "bob"] and three[1].change > three[0].change
    for level in BOT_LEVELS:
        assert computer_rating(level, "pisti-2").display == COMPUTER_RATINGS[level]
