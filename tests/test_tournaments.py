"""Tournaments: points by rank, Swiss pairings and tie-breaks worked by hand, arena waves
and streaks; and properties of every round of random events."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basra.players.tournaments import (
    BYE_POINTS,
    DRAW_POINTS,
    WIN_POINTS,
    ArenaPlayer,
    Entrant,
    Game,
    GameResultError,
    SwissPairing,
    SwissRound,
    arena_points,
    on_fire,
    pair_arena,
    pair_swiss,
    rank_points,
    swiss_standings,
)

RATINGS = {"A": 2000, "B": 1900, "C": 1800, "D": 1700, "E": 1600, "F": 1500, "G": 1400}


def entrants(names: str) -> list[Entrant]:
    return [Entrant(name, name, RATINGS[name]) for name in names]


def won(winner: str, loser: str) -> Game:
    return Game((winner, loser), (0, 1))


def drew(first: str, second: str) -> Game:
    return Game((first, second), (0, 0))


def swiss_round(*games: Game, byes: str = "") -> SwissRound:
    return SwissRound(games, tuple(byes))


# Points ---------------------------------------------------------------------------------


def test_points_by_rank() -> None:
    assert (WIN_POINTS, DRAW_POINTS, BYE_POINTS) == (2, 1, 2)
    assert rank_points((0, 1)) == (2, 0)
    assert rank_points((0, 0)) == (1, 1)
    assert rank_points((1, 2, 0)) == (1, 0, 2)
    assert rank_points((0, 0, 2)) == (1.5, 1.5, 0)
    assert rank_points((0, 1, 1)) == (2, 0.5, 0.5)
    assert rank_points((0, 0, 0)) == (1, 1, 1)


@pytest.mark.parametrize("ranks", [(0,), (0, 2), (1, 1), (0, 0, 1), (-1, 0)])
def test_ranks_that_do_not_fit(ranks: tuple[int, ...]) -> None:
    with pytest.raises(GameResultError, match=r"ranks \("):
        rank_points(ranks)


def test_a_game_needs_one_rank_per_entrant() -> None:
    with pytest.raises(GameResultError, match="do not fit"):
        Game(("A", "B"), (0, 1, 2))
    with pytest.raises(GameResultError, match="do not fit"):
        Game(("A", "A"), (0, 1))


# Swiss pairings, worked by hand ----------------------------------------------------------


def test_first_round_top_half_meets_bottom_half() -> None:
    # One score group of six, ordered by rating: A B C | D E F.
    assert pair_swiss(entrants("FEDCBA"), []) == SwissPairing(
        (("A", "D"), ("B", "E"), ("C", "F")), ()
    )


def test_odd_count_the_lowest_has_the_bye() -> None:
    # E is the lowest; A B | C D.
    assert pair_swiss(entrants("ABCDE"), []) == SwissPairing((("A", "C"), ("B", "D")), ("E",))


def test_the_odd_one_of_a_score_group_floats_down() -> None:
    # Round 1: A-D, B-E, C-F, won by A, B, C. Scores: A B C 2, D E F 0.
    # Group 2 (A B C) pairs A-B and floats C, its lowest, to meet D, the highest of
    # group 0 (C has met F); E-F pair.
    first = swiss_round(won("A", "D"), won("B", "E"), won("C", "F"))
    assert pair_swiss(entrants("ABCDEF"), [first]).tables == (
        ("A", "B"), ("C", "D"), ("E", "F"),
    )


def test_a_group_that_cannot_pair_floats_down_not_the_group_above() -> None:
    # Round 1: A-D won by A, B-E drawn, C-F won by F. Order: A F (2) | B E (1) | C D (0).
    # A-F pair; B and E have met, so both float to group 0, in order: B-C, E-D (rather
    # than A and F floating down to meet B and E, or B-D and E-C).
    first = swiss_round(won("A", "D"), drew("B", "E"), won("F", "C"))
    assert pair_swiss(entrants("ABCDEF"), [first]).tables == (
        ("A", "F"), ("B", "C"), ("E", "D"),
    )


def test_never_the_same_pair_twice() -> None:
    # Round 1: A-C, B-D, both drawn: one group A B | C D whose Dutch pairs have met. The
    # Dutch system's next try transposes the bottom half (A-D, B-C) rather than exchange
    # between the halves (A-B, C-D).
    first = swiss_round(drew("A", "C"), drew("B", "D"))
    assert pair_swiss(entrants("ABCD"), [first]).tables == (("A", "D"), ("B", "C"))


def test_the_bye_never_twice() -> None:
    people = entrants("ABC")
    rounds: list[SwissRound] = []
    # Round 1: C, the lowest, has the bye.
    assert pair_swiss(people, rounds) == SwissPairing((("A", "B"),), ("C",))
    rounds.append(swiss_round(won("A", "B"), byes="C"))
    # Scores A 2, C 2, B 0: B has the bye; A and C have not met.
    assert pair_swiss(people, rounds) == SwissPairing((("A", "C"),), ("B",))
    rounds.append(swiss_round(won("C", "A"), byes="B"))
    # Scores C 4, A 2, B 2: B is the lowest but has had a bye, so A has it.
    assert pair_swiss(people, rounds) == SwissPairing((("C", "B"),), ("A",))
    rounds.append(swiss_round(drew("C", "B"), byes="A"))
    # Everyone has had a bye and met everyone: the lowest (B) again, and a repeat.
    assert pair_swiss(people, rounds) == SwissPairing((("C", "A"),), ("B",))


def test_withdrawn_entrants_count_in_the_history_only() -> None:
    first = swiss_round(won("A", "D"), won("B", "C"))
    assert pair_swiss(entrants("ABC"), [first]) == SwissPairing((("A", "B"),), ("C",))


def test_threes_in_order_with_byes_to_the_lowest() -> None:
    assert pair_swiss(entrants("ABCDEFG"), [], players=3) == SwissPairing(
        (("A", "B", "C"), ("D", "E", "F")), ("G",)
    )
    assert pair_swiss(entrants("ABCDE"), [], players=3) == SwissPairing(
        (("A", "B", "C"),), ("D", "E")
    )


def test_threes_repeat_only_when_they_must() -> None:
    # Round 1: A B C, then D E F, each in rating order; G's bye. Order: A D G (2), B E (1),
    # C F (0). Of six of these, two threes must hold two from one old table: no pairing
    # avoids repeats, so the lowest (F) has the bye and each seat takes the first who has
    # met the fewest: A D G, then B E C (C has met B).
    first = SwissRound(
        (Game(("A", "B", "C"), (0, 1, 2)), Game(("D", "E", "F"), (0, 1, 2))), ("G",)
    )
    assert pair_swiss(entrants("ABCDEFG"), [first], players=3) == SwissPairing(
        (("A", "D", "G"), ("B", "E", "C")), ("F",)
    )


def test_swiss_games_have_two_or_three_entrants() -> None:
    with pytest.raises(ValueError, match="players 4"):
        pair_swiss(entrants("ABCD"), [], players=4)


# Tie-breaks, computed by hand -----------------------------------------------------------

# Round 1: A beats C, B and D draw, E has the bye.
# Round 2: B beats A, C beats E, D has the bye.
#
#          scores       opponents (their score)      Buchholz        Sonneborn-Berger
#   A      2 + 0 = 2    C (2), B (3)                 5               C 2 = 2
#   B      1 + 2 = 3    D (3), A (2)                 5               D 3/2 + A 2 = 3.5
#   C      0 + 2 = 2    A (2), E (2)                 4               E 2 = 2
#   D      1 + 2 = 3    B (3), bye (own score 3)     6               B 3/2 = 1.5
#   E      2 + 0 = 2    bye (own score 2), C (2)     4               0
#
#   rank   1 D (3, 6)   2 B (3, 5)   3 A (2, 5)   4 C (2, 4, 2)   5 E (2, 4, 0)
TIE_BREAK_ROUNDS = [
    swiss_round(won("A", "C"), drew("B", "D"), byes="E"),
    swiss_round(won("B", "A"), won("C", "E"), byes="D"),
]
TIE_BREAK_TABLE = [
    # rank, key, score, Buchholz, Sonneborn-Berger, games, byes
    (1, "D", 3, 6, 1.5, 1, 1),
    (2, "B", 3, 5, 3.5, 2, 0),
    (3, "A", 2, 5, 2, 2, 0),
    (4, "C", 2, 4, 2, 2, 0),
    (5, "E", 2, 4, 0, 1, 1),
]


def test_buchholz_and_sonneborn_berger() -> None:
    table = [
        (s.rank, s.key, s.score, s.buchholz, s.sonneborn_berger, s.games, s.byes)
        for s in swiss_standings(entrants("ABCDE"), TIE_BREAK_ROUNDS)
    ]
    assert table == TIE_BREAK_TABLE


def test_tie_breaks_of_three_player_games() -> None:
    # One game: A first, B and C tied second (2, 0.5, 0.5); D has the bye (2), counting as
    # two opponents of its own score in Buchholz.
    #        Buchholz             Sonneborn-Berger
    #   A    0.5 + 0.5 = 1        0.5 + 0.5 = 1
    #   D    2 + 2 = 4            0
    #   B    2 + 0.5 = 2.5        0.5 / 2 = 0.25
    #   C    2 + 0.5 = 2.5        0.25 (then rating: B above C)
    rounds = [SwissRound((Game(("A", "B", "C"), (0, 1, 1)),), ("D",))]
    table = [
        (s.key, s.score, s.buchholz, s.sonneborn_berger)
        for s in swiss_standings(entrants("ABCD"), rounds)
    ]
    assert table == [("D", 2, 4, 0), ("A", 2, 1, 1), ("B", 0.5, 2.5, 0.25), ("C", 0.5, 2.5, 0.25)]


def test_standings_before_any_round() -> None:
    assert [s.key for s in swiss_standings(entrants("CAB"), [])] == ["A", "B", "C"]


# Arena ------------------------------------------------------------------------------------


def test_streaks_double_after_two_wins() -> None:
    assert arena_points([]) == ()
    assert arena_points([2, 2, 2, 2]) == (2, 2, 4, 4)
    assert arena_points([2, 2, 1, 2, 2]) == (2, 2, 2, 2, 2)  # the draw scores double, ends it
    assert arena_points([2, 2, 0, 2]) == (2, 2, 0, 2)
    assert arena_points([1.5, 2, 2, 0.5]) == (1.5, 2, 2, 1)  # three-player points
    assert [on_fire([]), on_fire([2]), on_fire([2, 2]), on_fire([2, 2, 1])] == [
        False, False, True, False,
    ]


def arena(key: str, score: float, last: str = "", *, paused: bool = False) -> ArenaPlayer:
    return ArenaPlayer(key, RATINGS[key], score, frozenset(last), paused)


def test_a_wave_pairs_neighbours_in_the_standings() -> None:
    wave = [arena("F", 10), arena("A", 0), arena("E", 10), arena("B", 4), arena("C", 4)]
    # By score, then rating: E F | B C | A (left to wait).
    assert pair_arena(wave) == [("E", "F"), ("B", "C")]


def test_no_immediate_rematch() -> None:
    wave = [arena("A", 6, "B"), arena("B", 6, "A"), arena("C", 2), arena("D", 0)]
    assert pair_arena(wave) == [("A", "C"), ("B", "D")]
    # Only the two who just played wait: they wait, unless no one else is active.
    assert pair_arena(wave[:2]) == []
    assert pair_arena(wave[:2], active=3) == []
    assert pair_arena(wave[:2], active=2) == [("A", "B")]


def test_paused_players_are_not_paired() -> None:
    wave = [arena("A", 6), arena("B", 6, paused=True), arena("C", 2)]
    assert pair_arena(wave) == [("A", "C")]


def test_arena_threes() -> None:
    wave = [arena(key, 0, "ABC".replace(key, "") if key in "ABC" else "") for key in "ABCDEFG"]
    # A B C just played together: A takes D E; B takes F G; C waits.
    assert pair_arena(wave, players=3) == [("A", "D", "E"), ("B", "F", "G")]


# Properties of random events ---------------------------------------------------------------


def _repeat_free_pairing_exists(keys: list[str], met: set[frozenset[str]]) -> bool:
    if not keys:
        return True
    first, rest = keys[0], keys[1:]
    return any(
        frozenset((first, other)) not in met
        and _repeat_free_pairing_exists([k for k in rest if k != other], met)
        for other in rest
    )


def _play(pairing: SwissPairing, rng: random.Random) -> SwissRound:
    games = []
    for table in pairing.tables:
        ranks = [rng.randrange(len(table)) for _ in table]
        ranks = [sorted(ranks).index(rank) for rank in ranks]
        games.append(Game(table, tuple(ranks)))
    return SwissRound(tuple(games), pairing.byes)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 10), st.integers(1, 6), st.integers(0, 2**32))
def test_every_swiss_round_seats_everyone_once(count: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    people = [Entrant(f"p{i}", f"P{i}", rng.randrange(1000, 2000)) for i in range(count)]
    history: list[SwissRound] = []
    met: set[frozenset[str]] = set()
    had_bye: set[str] = set()
    for _ in range(rounds):
        pairing = pair_swiss(people, history)
        seated = [key for table in pairing.tables for key in table] + list(pairing.byes)
        assert sorted(seated) == sorted(p.key for p in people)
        assert len(pairing.byes) == count % 2
        if len(had_bye) < count:
            assert not had_bye & set(pairing.byes)
        pairs = {frozenset(table) for table in pairing.tables}
        if pairs & met:
            # A repeat only when no bye among those allowed one leaves a repeat-free pairing.
            allowed = [p.key for p in people if p.key not in had_bye] or [p.key for p in people]
            choices = [[]] if count % 2 == 0 else [[key] for key in allowed]
            for bye in choices:
                rest = [p.key for p in people if p.key not in bye]
                assert not _repeat_free_pairing_exists(rest, met)
        met |= pairs
        had_bye |= set(pairing.byes)
        history.append(_play(pairing, rng))


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 11), st.integers(1, 4), st.integers(0, 2**32))
def test_every_three_player_round_seats_everyone_once(
    count: int, rounds: int, seed: int
) -> None:
    rng = random.Random(seed)
    people = [Entrant(f"p{i}", f"P{i}", rng.randrange(1000, 2000)) for i in range(count)]
    history: list[SwissRound] = []
    for _ in range(rounds):
        pairing = pair_swiss(people, history, players=3)
        seated = [key for table in pairing.tables for key in table] + list(pairing.byes)
        assert sorted(seated) == sorted(p.key for p in people)
        assert all(len(table) == 3 for table in pairing.tables)
        assert len(pairing.byes) == count % 3
        history.append(_play(pairing, rng))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 40), st.sampled_from([2, 3]), st.integers(0, 2**32))
def test_every_arena_wave(count: int, players: int, seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"p{i}" for i in range(count)]
    wave = [
        ArenaPlayer(
            key, rng.randrange(1000, 2000), rng.randrange(0, 20),
            frozenset(rng.sample(keys, min(count, players - 1))) - {key},
            paused=rng.random() < 0.2,
        )
        for key in keys
    ]
    tables = pair_arena(wave, players=players)
    seated = [key for table in tables for key in table]
    assert len(seated) == len(set(seated))
    by_key = {p.key: p for p in wave}
    for table in tables:
        assert len(table) == players
        for first, second in itertools.combinations(table, 2):
            assert first not in by_key[second].last_opponents
            assert second not in by_key[first].last_opponents
        assert not any(by_key[key].paused for key in table)
