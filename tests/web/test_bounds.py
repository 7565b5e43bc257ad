"""Rule options out of their range, sent to the HTTP API: refused in one short line that
names the option, and no table made."""

from __future__ import annotations

import json
from typing import Any

import pytest

from basra.record import FORMAT
from basra.rules import OPTION_RANGES

NINES = int("9" * 4000)

OUT_OF_RANGE: list[tuple[str, dict[str, Any], list[str]]] = [
    ("target 10**300", {"rules": {"target": 10**300}},
     ["option target", "1 to 10000", "10**300"]),
    ("a card worth 4000 nines", {"rules": {"card_points": {"J": NINES}}},
     ["option card_points[J]", "0 to 100", "9999…(4000 digits)"]),
    ("a card worth 4000 nines, as text", {"rules": {"card_points": f"J:{NINES}"}},
     ["option card_points[J]", "0 to 100", "9999…(4000 digits)"]),
    ("basra 10**30", {"rules": {"basra_points": 10**30}},
     ["option basra_points", "0 to 1000", "10**30"]),
    ("basra 10**30, as text", {"rules": {"basra_points": str(10**30)}},
     ["option basra_points", "0 to 1000", "10**30"]),
    ("majority below 0", {"rules": {"majority_points": -1}},
     ["option majority_points", "0 to 1000", "-1"]),
    ("target step too far", {"variant": "three-player", "rules": {"target_step": 1001}},
     ["option target_step", "0 to 1000", "1001"]),
    ("hand of the whole deck", {"rules": {"hand_size": 52}},
     ["option hand_size", "1 to 26", "52"]),
    ("players 10**300", {"players": 10**300}, ["players", "10**300"]),
    ("nobody scores", {"rules": {"card_points": "none", "basra_points": 0,
                                 "majority_points": 0}}, ["no side could ever score"]),
]


def error_of(response: Any) -> str:
    """The one-line ``message`` of a request refused with 400."""
    assert response.status_code == 400, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"code", "message", "params"}, body
    assert isinstance(body["code"], str) and body["code"] and isinstance(body["params"], dict)
    assert isinstance(body["message"], str) and body["message"] and "\n" not in body["message"]
    text: str = body["message"]
    return text


@pytest.mark.parametrize(("body", "words"), [case[1:] for case in OUT_OF_RANGE],
                         ids=[case[0] for case in OUT_OF_RANGE])
def test_a_new_table_with_rules_out_of_range_is_refused(web: Any, body: dict[str, Any],
                                                        words: list[str]) -> None:
    before = web.ok(web.http.get("/api/tables"))
    message = error_of(web.http.post("/api/tables", json=body))
    for word in words:
        assert word in message
    assert len(message) < 200
    assert web.ok(web.http.get("/api/tables")) == before
    assert web.hub.tables == {}  # no table was made


def test_rules_at_the_edges_of_their_ranges_make_a_table(web: Any) -> None:
    highest = {name: high for name, (_low, high) in OPTION_RANGES.items()
               if name in ("basra_points", "majority_points", "target", "target_step")}
    created = web.new_table(rules={**highest, "card_points": {"J": 100, "10D": 0}},
                            seats=[{"kind": "human"}, {"kind": "human"}])  # open to join
    rules = web.info(created["code"])["rules"]
    assert {name: rules[name] for name in highest} == highest
    assert rules["card_points"] == {"J": 100, "10D": 0}
    listed = web.ok(web.http.get("/api/tables"))
    assert [table["code"] for table in listed] == [created["code"]]


@pytest.mark.parametrize(("options", "option"), [
    ({"target": 10**300}, "option target"),
    ({"card_points": {"J": NINES}}, "option card_points[J]"),
    ({"basra_points": 10**30}, "option basra_points"),
])
def test_an_uploaded_record_with_rules_out_of_range_is_refused(web: Any, options: Any,
                                                               option: str) -> None:
    record = {"format": FORMAT, "rules": options}
    message = error_of(web.http.post("/api/replay", content=json.dumps(record)))
    assert message.startswith(f"rules: {option} must be ")
    assert len(message) < 200
