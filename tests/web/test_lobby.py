"""What the lobby reads from the server: every rule option as a form offers it, the
tables open to join, and the matches the computer finished for someone
(``docs/web-protocol.md``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from basra.rules import OPTION_GROUPS, OPTION_RANGES, PRESETS, Rules, option_names

State = dict[str, Any]


def test_options_describe_every_rule_option_once_as_a_form_offers_it(web: Any) -> None:
    specs = web.ok(web.http.get("/api/options"))["specs"]
    names = [spec["name"] for spec in specs]
    assert sorted(names) == sorted(option_names()) and len(set(names)) == len(names)
    assert names == [name for group in OPTION_GROUPS.values() for name in group]
    defaults = Rules().to_dict()
    for spec in specs:
        name, kind = spec["name"], spec["kind"]
        assert spec["group"] in OPTION_GROUPS
        if kind == "number":
            assert spec["range"] == list(OPTION_RANGES[name])
            assert type(defaults[name]) is int
        elif kind == "flag":
            assert type(defaults[name]) is bool
        elif kind == "choice":
            assert defaults[name] in spec["choices"]
            for preset in PRESETS.values():
                assert getattr(preset.rules, name) in spec["choices"]
        else:
            assert (name, kind) in {("bury", "cards"), ("card_points", "card_points")}
    by_name = {spec["name"]: spec for spec in specs}
    assert by_name["seven_diamonds"]["choices"] == ["plain", "sweep", "sweep_small", "sweep_any"]
    assert by_name["card_points"]["range"] == [0, 100]
    assert by_name["target"]["group"] == "table"


def test_open_tables_are_only_those_with_a_seat_to_take(web: Any) -> None:
    quick = web.quick("Amira")  # playing: nobody can join it
    full = web.new_table(seats=[{"kind": "human"}, {"kind": "bot", "level": "expert"}])
    computers = web.new_table(seats=[{"kind": "bot", "level": "random"},
                                     {"kind": "bot", "level": "greedy"}])
    waiting = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], name="Amira")
    listed = web.ok(web.http.get("/api/tables"))
    assert [table["code"] for table in listed] == [waiting["code"]]
    assert listed[0]["status"] == "waiting"
    assert [seat["taken"] for seat in listed[0]["seats"]] == [True, False]
    assert {quick["code"], full["code"], computers["code"]} <= set(web.hub.tables)

    web.join(waiting["code"], name="Omar")
    assert web.ok(web.http.get("/api/tables")) == []


def test_a_match_the_computer_finished_for_a_player_is_marked_in_records(
        start_web: Callable[..., Any]) -> None:
    web = start_web(away_after=0.05)
    code, token0, _token1 = web.two_humans(rules={"target": 1})  # seat 1 never comes
    amira = web.connect(code, token0, "seat 0")
    amira.wait_for(lambda state: state["table"]["seats"][1]["away"], seconds=5)
    end = web.play_to_end([amira])
    assert end["result"] is not None

    records = [r for r in web.ok(web.http.get("/api/records")) if r["code"] == code]
    assert len(records) == 1
    assert records[0]["computer_seats"] == [1]
    assert web.ok(web.http.get("/api/tables")) == []

