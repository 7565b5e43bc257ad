"""Rule options, the seven presets of spec section 8, overrides and refusals."""

import dataclasses
import json

import pytest

from basra.cards import CARD_NAMES, parse_card
from basra.rules import (
    OPTION_RANGES,
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


def test_the_presets_are_the_seven_of_the_spec_pasur_and_the_pile_games() -> None:
    assert set(PRESETS) == set(TABLE) | {"pasur", "pisti", "xeri"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pasur_preset_follows_spec_section_8(players: int) -> None:
    rules = make_rules("pasur", players)
    assert rules.family == "pasur"
    assert rules.partnership is (players == 4)
    assert (rules.hand_size, rules.floor_size, rules.bury) == (4, 4, ("J",))
    assert rules.floor_redeal and rules.basra_cancel
    assert (rules.basra_points, rules.clubs_points, rules.majority_points) == (5, 7, 0)
    assert rules.last_play_basra is False
    assert dict(rules.card_points) == STANDARD_POINTS
    assert (rules.target, rules.tie_rule) == (62, "highest")
    assert preset("Pasoor") is preset("pasur")


def test_pasur_refuses_the_options_of_the_basra_family() -> None:
    with pytest.raises(RulesError, match="seven_diamonds belongs to the basra family"):
        make_rules("pasur", overrides={"seven_diamonds": "sweep"})
    with pytest.raises(RulesError, match="pasur needs basra=clear"):
        make_rules("pasur", overrides={"basra": "lone"})


def test_three_player_target_rises_above_every_total_by_default() -> None:
    assert make_rules("three-player").target_raise == "above"


def test_tie_deal_tied_needs_hands_that_deal_out_to_fewer_players() -> None:
    assert make_rules("egyptian", 3, {"tie_deal": "tied"}).tie_deal == "tied"
    with pytest.raises(RulesError, match="needs hands that also deal out to 3 players"):
        make_rules("egyptian", 4, {"partnership": "false", "hand_size": "12",
                                   "tie_deal": "tied"})


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
        ("basra_points", "-1", ["basra_points", "0 to 1000", "-1"]),
        ("target", "0", ["target", "1 to 10000", "0"]),
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
        ("card_points", "J:-1", ["card_points[J]", "0 to 100", "-1"]),
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
        make_rules("ethiopian")
    message = str(caught.value)
    assert "'ethiopian'" in message
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
    with pytest.raises(RulesError, match="option players must be 2 to 4, not 5"):
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


# Ranges of the numeric options

SCORING_OPTIONS = ["basra_points", "majority_points", "majority_min", "clubs_points", "clubs_min",
                   "target",
                   "target_step"]


def test_every_whole_number_option_has_a_range() -> None:
    whole = {f.name for f in dataclasses.fields(Rules) if f.type in (int, "int")}
    pile = {"pisti_points", "jack_pisti_points", "pile_down"}  # issue 41: the pile family
    assert whole == {"players", "hand_size", "floor_size", *SCORING_OPTIONS, *pile}
    assert set(OPTION_RANGES) == whole | {"card_points"}
    for low, high in OPTION_RANGES.values():
        assert 0 <= low < high <= 10_000


def test_ranges_admit_the_usual_house_rules() -> None:
    for target in (151, 201, 301, 501, 1001):
        assert make_rules("egyptian", overrides={"target": target}).target == target
    rules = make_rules("egyptian", overrides={"basra_points": 100, "majority_points": 100,
                                              "card_points": "J:50,A:10,2C:20,10D:30"})
    assert (rules.basra_points, rules.majority_points) == (100, 100)
    assert max(rules.points_of) == 50


@pytest.mark.parametrize("name", SCORING_OPTIONS)
def test_scoring_options_are_accepted_at_their_edges_and_refused_beyond(name: str) -> None:
    low, high = OPTION_RANGES[name]
    for value in (low, high):
        assert getattr(make_rules("egyptian", overrides={name: value}), name) == value
        assert getattr(make_rules("egyptian", overrides={name: str(value)}), name) == value
    for value in (low - 1, high + 1):
        with pytest.raises(RulesError) as caught:
            make_rules("egyptian", overrides={name: value})
        assert str(caught.value) == f"option {name} must be {low} to {high}, not {value}"
        with pytest.raises(RulesError, match=f"option {name} must be {low} to {high}"):
            Rules.from_dict({name: value})


def test_card_points_are_accepted_at_their_edges_and_refused_beyond() -> None:
    assert make_rules("egyptian", overrides={"card_points": "J:0,A:100"}).card_points == (
        ("J", 0), ("A", 100),
    )
    for value in (-1, 101):
        for given in (f"10d:{value}", {"10D": value}, [["10D", value]]):
            with pytest.raises(RulesError) as caught:
                make_rules("egyptian", overrides={"card_points": given})
            assert str(caught.value) == f"option card_points[10D] must be 0 to 100, not {value}"
        with pytest.raises(RulesError, match="card_points\\[10D\\] must be 0 to 100"):
            Rules(card_points=(("10D", value),))


def test_players_are_refused_outside_two_to_four() -> None:
    for players in (2, 3, 4):
        assert Rules(players=players).players == players
    for players in (1, 5, 0, -2):
        with pytest.raises(RulesError, match=f"option players must be 2 to 4, not {players}"):
            Rules(players=players)


def test_deal_sizes_are_accepted_at_their_edges_and_refused_beyond() -> None:
    # The whole deck in one batch of two hands, and a floor of all but one card per seat.
    assert Rules(hand_size=26, floor_size=0, bury=()).hand_size == 26
    assert Rules(hand_size=1, floor_size=50, bury=()).floor_size == 50
    assert Rules(hand_size=1).hand_size == 1
    assert Rules(hand_size=2, floor_size=0).floor_size == 0
    for name, value in (("hand_size", 0), ("hand_size", 27), ("floor_size", -1),
                        ("floor_size", 51)):
        low, high = OPTION_RANGES[name]
        with pytest.raises(RulesError) as caught:
            Rules.from_dict({name: value, "bury": []})
        assert str(caught.value) == f"option {name} must be {low} to {high}, not {value}"


HUGE = "9" * 4000


TARGET_RANGE = "option target must be 1 to 10000, not"
CARD_RANGE = "option card_points[J] must be 0 to 100, not"

HUGE_VALUES: list[tuple[str, str, object, str]] = [
    ("10**300", "target", 10**300, f"{TARGET_RANGE} 10**300"),
    ("10**300 as text", "target", "1" + "0" * 300, f"{TARGET_RANGE} 10**300"),
    ("-10**300", "target", -10**300, f"{TARGET_RANGE} -10**300"),
    ("4000 nines", "target", int(HUGE), f"{TARGET_RANGE} 9999…(4000 digits)"),
    ("4000 nines as text", "target", HUGE, f"{TARGET_RANGE} 9999…(4000 digits)"),
    # More digits than Python converts (4300): refused as out of range all the same.
    ("5000 nines as text", "target", "9" * 5000,
     f"{TARGET_RANGE} '99999999…(5000 characters)'"),
    ("100000 nines below 0", "target", "-" + "9" * 100_000,
     f"{TARGET_RANGE} '-9999999…(100001 characters)'"),
    ("below 0", "target", -5, f"{TARGET_RANGE} -5"),
    ("basra 10**30", "basra_points", 10**30,
     "option basra_points must be 0 to 1000, not 10**30"),
    ("basra below 0", "basra_points", -1, "option basra_points must be 0 to 1000, not -1"),
    ("majority 2**53", "majority_points", 2**53,
     "option majority_points must be 0 to 1000, not 9007…(16 digits)"),
    ("step 10**5000", "target_step", 10**5000,
     "option target_step must be 0 to 1000, not 10**5000"),
    ("card 4000 nines as text", "card_points", "J:" + HUGE, f"{CARD_RANGE} 9999…(4000 digits)"),
    ("card 4000 nines", "card_points", {"J": int(HUGE)}, f"{CARD_RANGE} 9999…(4000 digits)"),
    ("card 5000 nines as text", "card_points", "J:" + "9" * 5000,
     f"{CARD_RANGE} '99999999…(5000 characters)'"),
]


@pytest.mark.parametrize(("name", "value", "message"), [case[1:] for case in HUGE_VALUES],
                         ids=[case[0] for case in HUGE_VALUES])
def test_huge_values_are_refused_with_a_short_message(name: str, value: object,
                                                      message: str) -> None:
    with pytest.raises(RulesError) as caught:
        make_rules("egyptian", overrides={name: value})
    assert str(caught.value) == message
    if name != "card_points" and not isinstance(value, str):
        with pytest.raises(RulesError) as direct:
            Rules.from_dict({name: value})
        assert str(direct.value) == message


LONG_BAD_VALUES: list[dict[str, object]] = [
    {"basra_points": "x" * 5000},
    {"sums": "x" * 5000},
    {"seven_diamonds": "x" * 5000},
    {"bury": "Z" * 5000},
    {"card_points": "J" * 5000},
    {"card_points": {"Z" * 5000: 1}},
    {"x" * 5000: 1},
    {"sums": 10**5000},
    {"seven_diamonds": 10**5000},
    {"bury": [10**5000]},
    {"card_points": [[10**5000, 1]]},
    {"target": [[1] * 1000]},
]


@pytest.mark.parametrize("options", LONG_BAD_VALUES,
                         ids=[f"case{n}" for n in range(len(LONG_BAD_VALUES))])
def test_long_bad_values_are_quoted_short(options: dict[str, object]) -> None:
    with pytest.raises(RulesError) as caught:
        Rules.from_dict(options)
    message = str(caught.value)
    # The unknown-option message lists every option name (the pile family added nine).
    assert len(message) < 560 and "\n" not in message
    assert "characters" in message or "10**5000" in message


def test_huge_player_counts_are_quoted_short() -> None:
    with pytest.raises(RulesError) as caught:
        make_rules("egyptian", 10**300)
    assert str(caught.value) == "variant 'egyptian' is played by 2 or 3 or 4 players, not 10**300"
    with pytest.raises(RulesError, match="option players must be 2 to 4, not 10\\*\\*300"):
        Rules(players=10**300)


def test_rules_under_which_nobody_scores_are_refused() -> None:
    with pytest.raises(RulesError, match="no side could ever score"):
        make_rules("egyptian", overrides={"card_points": "J:0", "basra_points": 0,
                                          "majority_points": 0})
    # One way to score is enough.
    for options in ({"card_points": "none", "basra_points": 0},
                    {"card_points": "none", "majority_points": 0},
                    {"basra_points": 0, "majority_points": 0}):
        make_rules("egyptian", overrides=options)


@pytest.mark.parametrize("rules", all_rules(), ids=repr)
def test_every_preset_builds_within_the_ranges(rules: Rules) -> None:
    for name in ("players", "hand_size", "floor_size", *SCORING_OPTIONS):
        low, high = OPTION_RANGES[name]
        assert low <= getattr(rules, name) <= high
    low, high = OPTION_RANGES["card_points"]
    assert all(low <= points <= high for _, points in rules.card_points)
    assert dataclasses.replace(rules) == rules
