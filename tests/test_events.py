"""Tournament specs and the operator's schedule (:mod:`basra.players.events`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from basra.players.events import (
    ScheduledTournament,
    ScheduleError,
    SpecError,
    load_schedule,
    parse_spec,
)


def test_a_spec_takes_the_presets_defaults_and_names_itself() -> None:
    spec = parse_spec({"kind": "arena", "minutes": 30})
    assert (spec.variant, spec.players, spec.rated, spec.turn_seconds) == ("egyptian", 2,
                                                                           False, 30)
    assert spec.name == "Egyptian Arena" and spec.rounds is None and spec.starts_in == 60
    assert parse_spec({"kind": "swiss", "rounds": 4, "variant": "Pasoor"}).variant == "pasur"


def test_partnerships_and_three_player_games_have_their_sides() -> None:
    four = parse_spec({"kind": "swiss", "rounds": 3, "players": 4})
    three = parse_spec({"kind": "arena", "minutes": 20, "players": 3})
    assert (four.sides, four.teams) == (2, True)
    assert (three.sides, three.teams) == (3, False)


@pytest.mark.parametrize(("body", "field"), [
    ({"kind": "swiss", "rounds": 21}, "rounds"),
    ({"kind": "swiss", "rounds": True}, "rounds"),
    ({"kind": "arena", "minutes": 721}, "minutes"),
    ({"kind": "arena", "minutes": 30, "rated": "yes"}, "rated"),
    ({"kind": "arena", "minutes": 30, "computers": "expert"}, "computers"),
    ({"kind": "arena", "minutes": 30, "computers": ["expert"] * 17}, "computers"),
    ({"kind": "arena", "minutes": 30, "name": "x" * 81}, "name"),
    ({"kind": "arena", "minutes": 30, "variant": 7}, "variant"),
    ({"kind": "arena", "minutes": 30, "players": 5}, "players"),
])
def test_a_bad_field_is_named(body: dict[str, object], field: str) -> None:
    with pytest.raises(SpecError) as raised:
        parse_spec(body)
    assert raised.value.field == field and field in str(raised.value)


def test_the_next_start_is_the_next_multiple_of_every_plus_the_offset() -> None:
    item = ScheduledTournament(parse_spec({"kind": "arena", "minutes": 30}), 60, 15, 30)
    hour = 3_600_000
    assert item.next_start(0) == 15 * 60_000
    assert item.next_start(hour) == hour + 15 * 60_000
    assert item.next_start(hour + 15 * 60_000) == hour + 15 * 60_000  # starting now
    assert item.next_start(hour + 15 * 60_000 + 1) == 2 * hour + 15 * 60_000
    assert item.key(hour) != item.key(2 * hour)


def test_a_schedule_file_is_read_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[[tournament]]\nname = "Hourly"\nkind = "arena"\nminutes = 30\n'
                    'every = 60\n\n[[tournament]]\nname = "Daily"\nkind = "swiss"\n'
                    'rounds = 5\nevery = 1440\noffset = 1200\n')
    hourly, daily = load_schedule(path)
    assert (hourly.every, hourly.offset, hourly.announce) == (60, 0, 60)
    assert (daily.every, daily.offset, daily.announce, daily.spec.rounds) == (1440, 1200, 60,
                                                                              5)
    path.write_text('[[tournament]]\nname = "A"\nkind = "arena"\nminutes = 30\nevery = 60\n'
                    'offset = 60\n')
    with pytest.raises(ScheduleError, match="tournament 1: offset"):
        load_schedule(path)
    path.write_text('[[tournament]]\nname = "A"\nkind = "arena"\nminutes = 30\nevery = 60\n'
                    '[[tournament]]\nname = "A"\nkind = "swiss"\nrounds = 3\nevery = 60\n')
    with pytest.raises(ScheduleError, match="two tournaments are named 'A'"):
        load_schedule(path)
    with pytest.raises(ScheduleError, match="No such file"):
        load_schedule(tmp_path / "missing.toml")


def test_pisti_and_xeri_events_name_themselves_and_play_in_teams_at_four() -> None:
    arena = parse_spec({"kind": "arena", "minutes": 30, "variant": "pişti", "rated": True})
    assert (arena.variant, arena.players, arena.sides, arena.name) == (
        "pisti", 2, 2, "Pişti Arena")
    swiss = parse_spec({"kind": "swiss", "rounds": 3, "variant": "xeri", "players": 4,
                        "computers": ["greedy"]})
    assert (swiss.name, swiss.sides, swiss.teams) == ("Xeri Swiss", 2, True)
    assert parse_spec({"kind": "swiss", "rounds": 2, "variant": "pisti",
                       "players": 3}).teams is False
    with pytest.raises(SpecError, match="xeri is played by 2 or 4 players, not 3"):
        parse_spec({"kind": "swiss", "rounds": 2, "variant": "xeri", "players": 3})
