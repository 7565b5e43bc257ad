"""Rule options, the seven presets of spec section 8, overrides and refusals."""

import dataclasses
import json

import pytest

from basra.cards import CARD_NAMES, parse_card
from basra.rules import (
    PRESETS,
    Rules,
    RulesError,
    make_rules,
    option_names,
    preset,
)

STANDARD_POINTS = {"J": 1, "A": 1, "2C": 2, "10D": 3}

# The table of spec section 8, one row per preset.
TABLE = {
    "jawaker": dict(
        players=(2,), hand_size=4, bury=("J", "7D"), jack_basra="never",
        seven_diamonds="sweep", basra="clear", basra_points=10, majority_points=30,
        majority_tie="carry", card_points=STANDARD_POINTS, target=121, tie_rule="highest",
    ),
    "egyptian": dict(
        players=(2, 3, 4), hand_size=4, bury=("J", "7D"), jack_basra="lone",
        seven_diamonds="sweep_small", basra="clear", basra_points=10, majority_points=30,
        majority_tie="none", card_points=STANDARD_POINTS, target=101, tie_rule="highest",
    ),
    "lebanese": dict(
        players=(2, 3, 4), hand_size=4, bury=("J",), jack_basra="never",
        seven_diamonds="plain", basra="lone", basra_points=10, majority_points=30,
        majority_tie="none", card_points=STANDARD_POINTS, target=101, tie_rule="highest",
    ),
    "iraqi": dict(
        players=(2, 3, 4), hand_size=4, bury=("J", "7D"), jack_basra="lone",
        seven_diamonds="sweep_small", basra="clear", basra_points=5, majority_points=30,
        majority_tie="none", card_points={"J": 1, "A": 1, "2C": 2, "10D": 6}, target=101,
        tie_rule="highest",
    ),
    "six-card": dict(
        players=(2, 4), hand_size=6, bury=(), jack_basra="never",
        seven_diamonds="plain", basra="lone", basra_points=10, majority_points=3,
        majority_tie="none", card_points=STANDARD_POINTS, target=101, tie_rule="highest",
    ),
    "three-player": dict(
        players=(3,), hand_size=8, bury=("J", "10D"), jack_basra="never",
        seven_diamonds="plain", basra="clear", basra_points=5, majority_points=3,
        majority_tie="none", card_points=STANDARD_POINTS, target=51, tie_rule="raise",
    ),
    "classic": dict(
        players=(2, 3, 4), hand_size=4, bury=("J", "7D"), jack_basra="never",
        seven_diamonds="sweep_any", basra="clear", basra_points=10, majority_points=30,
        majority_tie="carry", card_points={"J": 1, "A": 1, "2C": 2, "7D": 3}, target=101,
        tie_rule="highest",
    ),
}

PARTNERSHIP_AT_FOUR = {"egyptian", "lebanese", "iraqi", "six-card"}


def test_the_presets_are_exactly_the_seven_of_the_spec() -> None:
    assert set(PRESETS) == set(TABLE)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_preset_matches_the_spec_table(name: str) -> None:
    row = TABLE[name]
    assert preset(name).players == row["players"]
    for players in row["players"]:
        rules = make_rules(name, players)
        assert rules.players == players
        assert rules.hand_size == row["hand_size"]
        assert rules.floor_size == 4
        assert rules.bury == row["bury"]
        assert rules.jack_basra == row["jack_basra"]
        assert rules.seven_diamonds == row["seven_diamonds"]
        assert rules.basra == row["basra"]
        assert rules.basra_points == row["basra_points"]
        assert rules.majority_points == row["majority_points"]
        assert rules.majority_tie == row["majority_tie"]
        assert dict(rules.card_points) == row["card_points"]
        assert rules.target == row["target"]
        assert rules.tie_rule == row["tie_rule"]
        # Spec defaults shared by every preset.
        assert rules.sums is True
        assert rules.optional_capture is False
        assert rules.last_play_basra is True
        assert rules.target_step == 10


@pytest.mark.parametrize("name", sorted(TABLE))
def test_preset_refuses_player_counts_outside_the_table(name: str) -> None:
    for players in (2, 3, 4):
        if players in TABLE[name]["players"]:
            make_rules(name, players)
        else:
            with pytest.raises(RulesError, match=f"not {players}"):
                make_rules(name, players)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_card_point_table_per_card(name: str) -> None:
    rules = make_rules(name)
    points = rules.points_of
    expected = [0] * 52
    for spec, value in TABLE[name]["card_points"].items():
        for card, card_text in enumerate(CARD_NAMES):
            if card_text == spec or card_text[:-1] == spec:
                expected[card] = value
    assert list(points) == expected
    assert points[parse_card("JH")] == 1
    assert points[parse_card("AC")] == 1
    assert points[parse_card("2C")] == 2
    assert points[parse_card("2D")] == 0
    assert points[parse_card("KD")] == 0


def test_classic_seven_of_diamonds_is_worth_three_and_ten_of_diamonds_nothing() -> None:
    points = make_rules("classic").points_of
    assert points[parse_card("7D")] == 3
    assert points[parse_card("10D")] == 0
    assert make_rules("egyptian").points_of[parse_card("7D")] == 0
    assert make_rules("iraqi").points_of[parse_card("10D")] == 6


def test_standard_card_points_add_up() -> None:
    rules = make_rules("egyptian")
    # 4 Jacks, 4 Aces, 2C worth 2, 10D worth 3.
    assert rules.card_points_of((1 << 52) - 1) == 4 + 4 + 2 + 3
    assert rules.card_points_of(0) == 0
    assert rules.card_points_of(1 << parse_card("10D") | 1 << parse_card("JS")) == 4


@pytest.mark.parametrize("name", sorted(TABLE))
def test_partnership_defaults(name: str) -> None:
    for players in TABLE[name]["players"]:
        rules = make_rules(name, players)
        partnership = players == 4 and name in PARTNERSHIP_AT_FOUR
        assert rules.partnership is partnership
        assert rules.sides == (2 if partnership else players)


def test_partnership_sides_pair_opposite_seats() -> None:
    rules = make_rules("egyptian", 4)
    assert rules.side_of == (0, 1, 0, 1)
    assert make_rules("classic", 4).side_of == (0, 1, 2, 3)
    assert make_rules("egyptian", 3).side_of == (0, 1, 2)


def test_classic_four_players_may_choose_partnerships() -> None:
    rules = make_rules("classic", 4, {"partnership": "true"})
    assert rules.partnership is True
    assert rules.side_of == (0, 1, 0, 1)
    assert make_rules("egyptian", 4, {"partnership": "false"}).sides == 4


def test_default_player_count_is_the_presets_first() -> None:
    assert make_rules("egyptian").players == 2
    assert make_rules("three-player").players == 3
    assert make_rules("egyptian", overrides={"players": "3"}).players == 3


def test_six_card_with_three_players_is_refused() -> None:
    with pytest.raises(RulesError, match="'six-card' is played by 2 or 4 players, not 3"):
        make_rules("six-card", 3)


def test_unknown_option_name_lists_the_options() -> None:
    with pytest.raises(RulesError) as caught:
        make_rules("egyptian", overrides={"colour": "red"})
    message = str(caught.value)
    assert "'colour'" in message
    for name in option_names():
        assert name in message


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("basra_points", "five", ["basra_points", "'five'"]),
        ("basra_points", "-1", ["basra_points", "0 or more"]),
        ("target", "0", ["target", "at least 1"]),
        ("sums", "maybe", ["sums", "true or false", "'maybe'"]),
        ("seven_diamonds", "huge", ["seven_diamonds", "plain, sweep, sweep_small, sweep_any"]),
        ("basra", "any", ["basra", "clear, lone", "'any'"]),
        ("jack_basra", "always", ["jack_basra", "never, lone, lone_or_pair"]),
        ("majority_tie", "split", ["majority_tie", "none, carry"]),
        ("tie_rule", "lowest", ["tie_rule", "highest, raise"]),
        ("bury", "ZZ", ["'ZZ'"]),
        ("card_points", "J1", ["'J1'", "CARD:POINTS"]),
        ("card_points", "J:x", ["card_points[J]", "'x'"]),
        ("card_points", "J:1,J:2", ["twice"]),
        ("card_points", "J:-1", ["card_points", "0 or more"]),
        ("majority_points", "lots", ["majority_points", "'lots'"]),
    ],
)
def test_bad_values_are_refused_with_clear_messages(
    name: str, value: str, words: list[str]
) -> None:
    with pytest.raises(RulesError) as caught:
        make_rules("egyptian", overrides={name: value})
    for word in words:
        assert word in str(caught.value)


def test_hand_size_must_divide_the_stock() -> None:
    with pytest.raises(RulesError, match=r"hand_size 5 with 2 players does not divide the 48"):
        make_rules("egyptian", overrides={"hand_size": "5"})
    with pytest.raises(RulesError, match=r"48 / 20 is not whole"):
        make_rules("egyptian", 4, {"hand_size": 5})
    # 48 / (3 * 8) = 2 batches, 48 / (2 * 6) = 4, 48 / (4 * 6) = 2: all whole.
    assert make_rules("egyptian", 3, {"hand_size": 8}).hand_size == 8
    assert make_rules("egyptian", 2, {"hand_size": 6}).hand_size == 6
    assert make_rules("egyptian", 4, {"hand_size": 6}).hand_size == 6


def test_partnership_needs_four_players() -> None:
    with pytest.raises(RulesError, match="partnerships need 4 players, not 2"):
        make_rules("egyptian", overrides={"partnership": "true"})
    with pytest.raises(RulesError, match="partnerships need 4 players, not 3"):
        make_rules("egyptian", 3, {"partnership": True})
    with pytest.raises(RulesError, match="partnerships need 4 players"):
        Rules(players=2, partnership=True)


def test_unknown_variant_lists_the_valid_ones() -> None:
    with pytest.raises(RulesError) as caught:
        make_rules("pasur")
    message = str(caught.value)
    assert "'pasur'" in message
    for name in TABLE:
        assert name in message


def test_variant_names_are_case_and_separator_insensitive() -> None:
    assert preset("Six_Card").name == "six-card"
    assert preset(" THREE-PLAYER ").name == "three-player"
    assert make_rules("Egyptian") == make_rules("egyptian")


def test_players_given_twice_differently_is_refused() -> None:
    with pytest.raises(RulesError, match="players given twice: 2 and 3"):
        make_rules("egyptian", 2, {"players": 3})
    assert make_rules("egyptian", 3, {"players": "3"}).players == 3


def test_direct_construction_is_validated() -> None:
    with pytest.raises(RulesError, match="players must be 2, 3 or 4, not 5"):
        Rules(players=5)
    with pytest.raises(RulesError, match="basra_points must be a whole number"):
        Rules(basra_points=True)
    with pytest.raises(RulesError, match="not canonical"):
        Rules(bury=("j",))
    with pytest.raises(RulesError, match="seven_diamonds"):
        dataclasses.replace(Rules(), seven_diamonds="sweep-small")
    with pytest.raises(RulesError, match="sums must be true or false"):
        Rules(sums=1)  # type: ignore[arg-type]


def test_override_basra_points_and_target() -> None:
    rules = make_rules("egyptian", overrides={"basra_points": "5", "target": "151"})
    assert rules.basra_points == 5
    assert rules.target == 151
    # Everything else stays the preset's.
    assert dataclasses.replace(rules, basra_points=10, target=101) == make_rules("egyptian")


@pytest.mark.parametrize(
    ("text", "bury"),
    [
        ("J,7D", ("J", "7D")),
        ("j 7d", ("J", "7D")),
        ("J, 10D", ("J", "10D")),
        ("T♦", ("10D",)),
        ("1", ("A",)),
        ("none", ()),
        ("None", ()),
        ("", ()),
    ],
)
def test_override_bury(text: str, bury: tuple[str, ...]) -> None:
    rules = make_rules("egyptian", overrides={"bury": text})
    assert rules.bury == bury


def test_bury_mask() -> None:
    rules = make_rules("egyptian", overrides={"bury": "J,7D"})
    assert sorted(CARD_NAMES[c] for c in range(52) if rules.bury_mask >> c & 1) == [
        "7D", "JC", "JD", "JH", "JS",
    ]
    assert make_rules("six-card").bury_mask == 0
    three = make_rules("three-player").bury_mask
    assert three == sum(1 << parse_card(t) for t in ("JS", "JH", "JD", "JC", "10D"))


def test_override_card_points() -> None:
    rules = make_rules("egyptian", overrides={"card_points": "J:1,10D:6"})
    assert rules.card_points == (("J", 1), ("10D", 6))
    assert rules.points_of[parse_card("10D")] == 6
    assert rules.points_of[parse_card("JD")] == 1
    assert rules.points_of[parse_card("AS")] == 0
    assert rules.points_of[parse_card("2C")] == 0


def test_card_points_card_entry_overrides_its_rank_in_any_order() -> None:
    for text in ("J:1,JD:5", "JD:5,J:1"):
        points = make_rules("egyptian", overrides={"card_points": text}).points_of
        assert [points[parse_card(t)] for t in ("JS", "JH", "JD", "JC")] == [1, 1, 5, 1]


def test_card_points_other_forms() -> None:
    assert make_rules("egyptian", overrides={"card_points": "none"}).card_points == ()
    assert make_rules("egyptian", overrides={"card_points": "t=2 1=4"}).card_points == (
        ("10", 2), ("A", 4),
    )
    assert make_rules("egyptian", overrides={"card_points": {"J": 1, "7d": 3}}).card_points == (
        ("J", 1), ("7D", 3),
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [("true", True), ("True", True), ("YES", True), ("on", True), ("1", True),
     ("false", False), ("no", False), ("Off", False), ("0", False)],
)
def test_boolean_overrides(text: str, value: bool) -> None:
    for name in ("sums", "optional_capture", "last_play_basra"):
        assert getattr(make_rules("egyptian", overrides={name: text}), name) is value


def test_choice_overrides_accept_dashes_and_case() -> None:
    rules = make_rules("egyptian", overrides={"seven_diamonds": "Sweep-Any", "jack-basra": "LONE"})
    assert rules.seven_diamonds == "sweep_any"
    assert rules.jack_basra == "lone"


def test_house_rule_matches_only() -> None:
    assert make_rules("egyptian", overrides={"sums": "false"}).sums is False


def all_rules() -> list[Rules]:
    found = []
    for name, entry in PRESETS.items():
        for players in entry.players:
            found.append(make_rules(name, players))
    found.append(make_rules("classic", 4, {"partnership": True}))
    found.append(make_rules("egyptian", overrides={
        "card_points": "none", "bury": "none", "sums": False, "optional_capture": True,
        "last_play_basra": False, "target_step": 7, "jack_basra": "lone_or_pair",
    }))
    return found


@pytest.mark.parametrize("rules", all_rules(), ids=repr)
def test_to_dict_from_dict_round_trip(rules: Rules) -> None:
    options = rules.to_dict()
    assert list(options) == option_names()
    assert Rules.from_dict(options) == rules
    # The dict is JSON-ready and survives a trip through JSON.
    assert Rules.from_dict(json.loads(json.dumps(options))) == rules


def test_to_dict_values() -> None:
    options = make_rules("iraqi").to_dict()
    assert options["bury"] == ["J", "7D"]
    assert options["card_points"] == {"J": 1, "A": 1, "2C": 2, "10D": 6}
    assert options["basra_points"] == 5


def test_from_dict_defaults_and_refusals() -> None:
    assert Rules.from_dict({}) == Rules()
    with pytest.raises(RulesError, match="unknown rule option 'colour'"):
        Rules.from_dict({"colour": "red"})


def test_rules_are_frozen_and_hashable() -> None:
    rules = make_rules("egyptian")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.target = 5  # type: ignore[misc]
    assert hash(rules) == hash(make_rules("egyptian"))
