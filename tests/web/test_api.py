"""The HTTP API of ``docs/web-protocol.md``: pages, tables, seats, records and replays."""

from __future__ import annotations

import copy
import json
import os
import time
from typing import Any

import pytest

from basra.bots import BOT_LEVELS
from basra.record import FORMAT, replay
from basra.rules import PRESETS, option_names

State = dict[str, Any]

DATABASES = ["sqlite", *(["postgresql"] if os.environ.get("BASRA_TEST_POSTGRES_URL") else [])]

FOUR_SEATS = [{"kind": "human"}, {"kind": "bot", "level": "expert"},
              {"kind": "human"}, {"kind": "bot", "level": "greedy"}]


def error_of(response: Any, status: int) -> str:
    """The one-line ``message`` of a refused request."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"code", "message", "params"}, body
    assert isinstance(body["code"], str) and body["code"] and isinstance(body["params"], dict)
    assert isinstance(body["message"], str) and body["message"] and "\n" not in body["message"]
    text: str = body["message"]
    return text


def keys_and_texts(value: Any) -> list[str]:
    """Every key and every value of a JSON document, as text."""
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in [key, *keys_and_texts(item)]]
    if isinstance(value, list):
        return [text for item in value for text in keys_and_texts(item)]
    return [str(value)]


# Pages


@pytest.mark.parametrize("path", ["/", "/t/k3f9x2q", "/replay", "/replay/5"])
def test_pages_answer_html(web: Any, path: str) -> None:
    response = web.http.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<html" in response.text.lower()


def test_the_table_and_replay_pages_are_their_own_files(web: Any) -> None:
    lobby, table, replay_page = (web.http.get(path).text for path in ("/", "/t/x", "/replay"))
    assert len({lobby, table, replay_page}) == 3
    assert web.http.get("/replay/12").text == replay_page


# Variants and options


def test_variants_lists_every_preset_with_its_player_counts(web: Any) -> None:
    listed = web.ok(web.http.get("/api/variants"))
    # Every preset, the pile games among them.
    assert [variant["name"] for variant in listed] == list(PRESETS)
    for variant in listed:
        found = PRESETS[variant["name"]]
        assert variant["players"] == list(found.players)
        assert variant["partnership_players"] == list(found.partnership_players)
        assert variant["description"] == found.description
        assert variant["rules"] == found.rules_for().to_dict()
    by_name = {variant["name"]: variant for variant in listed}
    assert by_name["egyptian"]["players"] == [2, 3, 4]
    assert by_name["egyptian"]["partnership_players"] == [4]
    assert by_name["three-player"]["players"] == [3]
    assert by_name["jawaker"]["rules"]["target"] == 121
    assert not by_name["egyptian"]["pile"] and by_name["pisti"]["pile"]


def test_options_lists_the_levels_and_every_rule_option(web: Any) -> None:
    options = web.ok(web.http.get("/api/options"))
    assert options["levels"] == list(BOT_LEVELS)
    assert options["levels"] == ["random", "greedy", "neural", "expert", "master"]
    assert set(options["options"]) == set(option_names())
    assert options["ranges"]["target"] == [1, 10000]
    assert set(options["ranges"]) <= set(option_names())
    for name, (low, high) in options["ranges"].items():  # the edges are the real limits
        if name in ("players", "hand_size", "floor_size", "card_points"):
            continue  # narrowed further by the deck, or per card
        assert web.http.post("/api/tables", json={"rules": {name: high + 1}}).status_code == 400
        assert web.http.post("/api/tables", json={"rules": {name: low - 1}}).status_code == 400


# Quick game


def test_quick_game_seats_the_caller_against_the_expert(web: Any) -> None:
    quick = web.quick("Amira")
    assert set(quick) == {"code", "seat", "token", "url"}
    assert quick["seat"] == 0
    assert isinstance(quick["token"], str) and len(quick["token"]) >= 16
    assert quick["url"] == f"/t/{quick['code']}"
    info = web.info(quick["code"])
    assert info["variant"] == "egyptian" and info["players"] == 2
    assert info["partnership"] is False
    assert info["status"] == "playing" and info["match_number"] == 1
    assert info["turn_seconds"] == 0
    seats = info["seats"]
    assert [(s["seat"], s["side"], s["kind"], s["level"]) for s in seats] == [
        (0, 0, "human", None), (1, 1, "bot", "expert")]
    assert [s["name"] for s in seats] == ["Amira", "Layla"]
    assert all(s["taken"] for s in seats)


def test_quick_game_needs_no_body_and_gives_a_new_table_each_time(web: Any) -> None:
    first = web.ok(web.http.post("/api/quick"))
    second = web.quick()
    assert first["code"] != second["code"] and first["token"] != second["token"]
    assert web.info(first["code"])["seats"][0]["name"] == "Guest 1"


def test_names_are_trimmed_to_printable_text_of_24_characters(web: Any) -> None:
    quick = web.quick("  Am\x07ira  bint \n Omar " + "x" * 40)
    name = web.info(quick["code"])["seats"][0]["name"]
    assert name == ("Amira bint Omar " + "x" * 40)[:24]
    assert "5" in error_of(web.http.post("/api/quick", json={"name": 5}), 400)


# New table


def test_a_new_table_waits_for_its_humans_then_plays(web: Any) -> None:
    body = {"variant": "egyptian", "players": 4, "rules": {"basra_points": 5},
            "seats": FOUR_SEATS, "turn_seconds": 30, "takeover_level": "greedy",
            "name": "Amira"}
    created = web.new_table(**body)
    code = created["code"]
    assert created["seat"] == 0 and created["url"] == f"/t/{code}"
    info = web.info(code)
    assert info["status"] == "waiting"
    assert info["variant"] == "egyptian" and info["players"] == 4
    assert info["partnership"] is True
    assert info["rules"]["basra_points"] == 5 and info["rules"]["partnership"] is True
    assert info["rules"]["players"] == 4
    assert info["turn_seconds"] == 30 and info["match_number"] == 1
    assert info["records"] == []
    seats = info["seats"]
    assert [s["kind"] for s in seats] == ["human", "bot", "human", "bot"]
    assert [s["level"] for s in seats] == [None, "expert", None, "greedy"]
    assert [s["side"] for s in seats] == [0, 1, 0, 1]
    assert [s["name"] for s in seats] == ["Amira", "Layla", None, "Sami"]
    assert [s["taken"] for s in seats] == [True, True, False, True]

    listed = web.ok(web.http.get("/api/tables"))
    assert [t["code"] for t in listed if t["status"] == "waiting"] == [code]
    entry = next(t for t in listed if t["code"] == code)
    assert entry == {"code": code, "variant": "egyptian", "players": 4, "status": "waiting",
                     "seats": seats}

    joined = web.join(code, name="Omar")
    assert joined["seat"] == 2 and joined["token"] != created["token"]
    info = web.info(code)
    assert info["status"] == "playing"
    assert [s["name"] for s in info["seats"]] == ["Amira", "Layla", "Omar", "Sami"]
    assert code in error_of(web.http.post(f"/api/tables/{code}/join", json={}), 409)
    error_of(web.http.post(f"/api/tables/{code}/join", json={"seat": 2}), 409)


def test_a_partnership_table_takes_its_house_rules(web: Any) -> None:
    created = web.new_table(players=4, rules={"partnership": True, "basra_points": "5"},
                            seats=FOUR_SEATS)
    rules = web.info(created["code"])["rules"]
    assert rules["partnership"] is True and rules["basra_points"] == 5
    plain = web.new_table(players=4, rules={"partnership": False}, seats=FOUR_SEATS)
    assert web.info(plain["code"])["partnership"] is False


def test_defaults_are_egyptian_for_two_against_the_expert(web: Any) -> None:
    created = web.new_table()
    info = web.info(created["code"])
    assert created["seat"] == 0
    assert (info["variant"], info["players"], info["turn_seconds"]) == ("egyptian", 2, 0)
    assert [s["kind"] for s in info["seats"]] == ["human", "bot"]
    assert info["seats"][1]["level"] == "expert"
    assert info["takeover_level"] == "expert"
    assert info["status"] == "playing"
    three = web.info(web.new_table(variant="three-player")["code"])
    assert three["players"] == 3 and [s["kind"] for s in three["seats"]] == [
        "human", "bot", "bot"]


def test_a_table_of_computers_is_only_watched(web: Any) -> None:
    created = web.new_table(seats=[{"kind": "bot", "level": "random"},
                                   {"kind": "bot", "level": "greedy"}])
    assert created["seat"] is None and created["token"] is None
    assert created["url"] == f"/t/{created['code']}"
    assert web.info(created["code"])["status"] in ("playing", "finished")


def test_join_refuses_seats_that_cannot_be_taken(web: Any) -> None:
    created = web.new_table(players=3, seats=[{"kind": "human"}, {"kind": "human"},
                                              {"kind": "bot", "level": "random"}])
    code = created["code"]
    join = f"/api/tables/{code}/join"
    assert "computer" in error_of(web.http.post(join, json={"seat": 2}), 409)
    assert "taken" in error_of(web.http.post(join, json={"seat": 0}), 409)
    for seat in (3, -1, 99):
        assert str(seat) in error_of(web.http.post(join, json={"seat": seat}), 400)
    for seat in ("1", 1.0, True, [1]):
        error_of(web.http.post(join, json={"seat": seat}), 400)
    error_of(web.http.post(join, json={"name": ["Omar"]}), 400)
    error_of(web.http.post(join, content=b"{seat: 1}"), 400)
    error_of(web.http.post(join, json=[1]), 400)
    assert web.info(code)["status"] == "waiting"  # nothing above took a seat

    joined = web.join(code, seat=1, name="Omar")
    assert joined["seat"] == 1
    assert web.info(code)["status"] == "playing"
    error_of(web.http.post(join, json={}), 409)
    error_of(web.http.post(join, json={"seat": 1}), 409)


def test_join_without_a_seat_takes_the_first_free_human_seat(web: Any) -> None:
    created = web.new_table(players=4, seats=[{"kind": "bot", "level": "random"},
                                              {"kind": "human"}, {"kind": "bot"},
                                              {"kind": "human"}])
    assert created["seat"] == 1
    assert web.join(created["code"])["seat"] == 3


def test_unknown_tables_answer_404(web: Any) -> None:
    assert "nope" in error_of(web.http.get("/api/tables/nope"), 404)
    assert "nope" in error_of(web.http.post("/api/tables/nope/join", json={}), 404)


BAD_TABLES: list[tuple[str, Any, str]] = [
    ("unknown variant", {"variant": "martian"}, "martian"),
    ("variant not text", {"variant": 7}, "7"),
    ("players for the variant", {"variant": "egyptian", "players": 5}, "5"),
    ("players of three-player", {"variant": "three-player", "players": 2}, "2"),
    ("players not a number", {"players": "four"}, "four"),
    ("partnership with 2", {"players": 2, "rules": {"partnership": True}}, "partnership"),
    ("house rule name", {"rules": {"basra_bonus": 5}}, "basra_bonus"),
    ("house rule value", {"rules": {"basra_points": "lots"}}, "lots"),
    ("house rule below 0", {"rules": {"basra_points": -5}}, "basra_points"),
    ("house rule choice", {"rules": {"seven_diamonds": "explode"}}, "explode"),
    ("rules not an object", {"rules": ["basra_points"]}, "basra_points"),
    ("card points not pairs", {"rules": {"card_points": [5]}}, "card_points"),
    ("seats too few", {"players": 3, "seats": [{"kind": "human"}]}, "3 seats"),
    ("seats too many", {"seats": [{"kind": "human"}] * 3}, "2 seats"),
    ("seats not a list", {"seats": "human"}, "human"),
    ("seat kind", {"seats": [{"kind": "human"}, {"kind": "alien"}]}, "alien"),
    ("seat not an object", {"seats": [{"kind": "human"}, "bot"]}, "bot"),
    ("seat level", {"seats": [{"kind": "human"}, {"kind": "bot", "level": "godlike"}]},
     "godlike"),
    ("takeover level", {"takeover_level": "godlike"}, "godlike"),
    ("turn_seconds too short", {"turn_seconds": 3}, "3"),
    ("turn_seconds too long", {"turn_seconds": 601}, "601"),
    ("turn_seconds not a number", {"turn_seconds": "x"}, "'x'"),
    ("turn_seconds fractional", {"turn_seconds": 7.5}, "7.5"),
    ("turn_seconds true", {"turn_seconds": True}, "True"),
    ("name not text", {"name": {"first": "Amira"}}, "Amira"),
]


@pytest.mark.parametrize(("body", "named"), [case[1:] for case in BAD_TABLES],
                         ids=[case[0] for case in BAD_TABLES])
def test_bad_new_table_bodies_answer_400_naming_the_value(web: Any, body: Any,
                                                          named: str) -> None:
    message = error_of(web.http.post("/api/tables", json=body), 400)
    assert named in message
    assert web.hub.tables == {}  # no table was made


@pytest.mark.parametrize("content", [b"{\"variant\": egyptian}", b"\xff\xfe", b"[1, 2]",
                                     b"\"egyptian\"", b"42"])
def test_new_table_bodies_that_are_not_json_objects_answer_400(web: Any,
                                                               content: bytes) -> None:
    error_of(web.http.post("/api/tables", content=content,
                           headers={"content-type": "application/json"}), 400)
    assert web.hub.tables == {}


def test_the_public_description_holds_no_token_or_seed(web: Any) -> None:
    created = web.new_table(seats=[{"kind": "human"}, {"kind": "human"}], turn_seconds=60)
    joined = web.join(created["code"])
    seed = web.hub.tables[created["code"]].seed
    described = [web.info(created["code"]), web.ok(web.http.get("/api/tables"))]
    for document in described:
        texts = keys_and_texts(document)
        assert not {"token", "seed", "token_hash"} & set(texts)
        for secret in (created["token"], joined["token"], str(seed)):
            assert secret not in json.dumps(document)
    info = described[0]
    assert set(info) >= {"code", "variant", "players", "partnership", "rules",
                         "turn_seconds", "status", "match_number", "seats", "records"}


# Records


def test_a_finished_quick_game_is_listed_in_records(finished: Any) -> None:
    web, quick, end = finished
    result = end["result"]
    assert result is not None and isinstance(result["record_id"], int)
    assert result["winner"] in (0, 1)
    assert max(result["totals"]) >= end["target"] >= 101
    listed = web.ok(web.http.get("/api/records"))
    assert len(listed) == 1
    entry = listed[0]
    assert entry["id"] == result["record_id"]
    assert entry["code"] == quick["code"] and entry["variant"] == "egyptian"
    assert entry["players"] == ["Amira", "Layla (expert)"]
    assert entry["totals"] == result["totals"] and entry["winner"] == result["winner"]
    assert entry["computer_seats"] == []  # Amira finished her match herself
    assert abs(entry["finished_at"] - time.time() * 1000) < 600_000
    assert web.info(quick["code"])["records"] == [entry["id"]]
    assert web.info(quick["code"])["status"] == "finished"


def test_a_stored_record_replays(finished: Any) -> None:
    web, _quick, end = finished
    record_id = end["result"]["record_id"]
    response = web.http.get(f"/api/records/{record_id}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert "content-disposition" not in response.headers
    record = response.json()
    assert record["format"] == FORMAT == "basra-record/1"
    assert record["variant"] == "egyptian"
    assert [p["name"] for p in record["players"]] == ["Amira", "Layla (expert)"]
    assert [p["kind"] for p in record["players"]] == ["human", "bot"]
    match = replay(record)
    assert match.is_over and match.totals == end["result"]["totals"]
    assert match.winner == end["result"]["winner"]
    assert sum(len(deal["plays"]) for deal in record["deals"]) == end["seq"]


def test_a_record_downloads_as_an_attachment(finished: Any) -> None:
    web, _quick, end = finished
    record_id = end["result"]["record_id"]
    response = web.http.get(f"/api/records/{record_id}?download=1")
    assert response.status_code == 200
    disposition = response.headers["content-disposition"]
    assert disposition.startswith("attachment")
    assert f'filename="basra-{record_id}.json"' in disposition
    assert response.json() == web.ok(web.http.get(f"/api/records/{record_id}"))


def test_unknown_records_answer_404(finished: Any) -> None:
    web, _quick, end = finished
    missing = end["result"]["record_id"] + 100
    assert str(missing) in error_of(web.http.get(f"/api/records/{missing}"), 404)
    error_of(web.http.get(f"/api/records/{missing}/frames"), 404)


@pytest.mark.parametrize("path", ["/api/records/abc", "/api/records/abc/frames",
                                  "/api/records?limit=many"])
def test_ill_formed_record_requests_answer_a_protocol_error(web: Any, path: str) -> None:
    """Errors answer ``{"code", "message", "params"}`` with 400 or 404, whatever the route."""
    response = web.http.get(path)
    assert response.status_code in (400, 404), (response.status_code, response.text)
    error_of(response, response.status_code)


def test_records_are_listed_newest_first_and_limited(web: Any) -> None:
    ends = []
    for _ in range(3):
        quick = web.quick()
        ends.append(web.play_to_end([web.connect(quick["code"], quick["token"])]))
    ids = [end["result"]["record_id"] for end in ends]
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert [r["id"] for r in web.ok(web.http.get("/api/records"))] == ids[::-1]
    assert [r["id"] for r in web.ok(web.http.get("/api/records?limit=2"))] == ids[:0:-1]


def frames_of(web: Any, record_id: int) -> State:
    return web.ok(web.http.get(f"/api/records/{record_id}/frames"))


def test_frames_show_every_play_of_every_deal(finished: Any) -> None:
    web, _quick, end = finished
    record_id = end["result"]["record_id"]
    record = web.ok(web.http.get(f"/api/records/{record_id}"))
    replayed = frames_of(web, record_id)
    frames = replayed["frames"]
    deals = record["deals"]
    assert len(frames) == sum(1 + len(deal["plays"]) for deal in deals)

    summary = replayed["record"]
    assert summary["variant"] == "egyptian" and summary["deals"] == len(deals)
    assert summary["totals"] == record["result"]["totals"]
    assert summary["winner"] == record["result"]["winner"]
    assert [p["name"] for p in summary["players"]] == ["Amira", "Layla (expert)"]

    totals = [0, 0]
    index = 0
    for number, deal in enumerate(deals, start=1):
        first = frames[index]
        assert first["deal"] == number and first["dealer"] == deal["dealer"]
        assert first["play"] is None and first["deal_score"] is None
        assert [set(hand) for hand in first["hands"]] == [set(hand) for hand in deal["hands"]]
        assert set(first["floor"]) == set(deal["floor"])
        assert first["stock_count"] == len(deal["stock"])
        assert first["pile_counts"] == [0, 0] and first["basras"] == [0, 0]
        assert first["totals"] == totals
        previous = first
        for play_number, play in enumerate(deal["plays"], start=1):
            frame = frames[index + play_number]
            assert frame["deal"] == number and frame["totals"] == totals
            assert frame["play"] == play
            seat, card = play["seat"], play["card"]
            assert card in previous["hands"][seat] and card not in frame["hands"][seat]
            assert set(play["captured"]) <= set(previous["floor"])
            assert not set(play["captured"]) & set(frame["floor"])
            last_of_deal = play_number == len(deal["plays"])
            if not last_of_deal:  # the last play ends the deal: the floor is taken
                assert (card in frame["floor"]) == (not play["captured"])
            assert (frame["deal_score"] is None) != last_of_deal
            previous = frame
        last = frames[index + len(deal["plays"])]
        assert last["hands"] == [[], []] and last["stock_count"] == 0
        assert sum(last["pile_counts"]) + len(last["floor"]) == 52
        score = last["deal_score"]
        for key in ("cards", "basras", "majority", "card_points", "basra_points", "total"):
            assert score[key] == deal["score"][key], key
        assert score["deal"] == number
        assert last["basras"] == deal["score"]["basras"]
        assert last["pile_counts"] == deal["score"]["cards"]
        totals = [t + s for t, s in zip(totals, score["total"], strict=True)]
        index += 1 + len(deal["plays"])
    assert totals == record["result"]["totals"]


def test_every_frame_accounts_for_all_52_cards(finished: Any) -> None:
    web, _quick, end = finished
    for frame in frames_of(web, end["result"]["record_id"])["frames"]:
        visible = [card for hand in frame["hands"] for card in hand] + frame["floor"]
        assert len(set(visible)) == len(visible)
        assert len(visible) + sum(frame["pile_counts"]) + frame["stock_count"] == 52
        assert max(len(hand) for hand in frame["hands"]) <= 4


def test_an_uploaded_record_gives_the_same_frames(finished: Any) -> None:
    web, _quick, end = finished
    record_id = end["result"]["record_id"]
    text = web.http.get(f"/api/records/{record_id}").text
    uploaded = web.ok(web.http.post("/api/replay", content=text.encode()))
    assert uploaded == frames_of(web, record_id)


def test_a_broken_record_is_refused_naming_the_deal_and_play(finished: Any) -> None:
    web, _quick, end = finished
    record = web.ok(web.http.get(f"/api/records/{end['result']['record_id']}"))
    broken = copy.deepcopy(record)
    play = broken["deals"][0]["plays"][3]
    play["basra"] = not play["basra"]
    message = error_of(web.http.post("/api/replay", content=json.dumps(broken)), 400)
    assert message.startswith("deal 1, play 4: ")
    later = copy.deepcopy(record)
    later["deals"][-1]["plays"][0]["seat"] ^= 1
    assert error_of(web.http.post("/api/replay", content=json.dumps(later)),
                    400).startswith(f"deal {len(record['deals'])}, play 1: ")


@pytest.mark.parametrize("content", [b"\xff\xfe\xfa not text", b"{\"format\": \"basra-record/1\"",
                                     b"[]", b"", b"{\"format\": \"basra-record/2\"}"])
def test_uploads_that_are_no_record_are_refused(web: Any, content: bytes) -> None:
    error_of(web.http.post("/api/replay", content=content), 400)


def test_deeply_nested_json_is_refused_not_crashed_on(web: Any) -> None:
    nested = b"[" * 5000 + b"]" * 5000
    error_of(web.http.post("/api/replay", content=nested), 400)
    error_of(web.http.post("/api/tables", content=nested), 400)
    error_of(web.http.post("/api/quick", content=nested), 400)


def test_an_upload_that_is_not_utf8_is_refused_as_such(web: Any) -> None:
    assert "UTF-8" in error_of(web.http.post("/api/replay", content=b"{\"format\": \"\xff\"}"),
                               400)


def test_a_record_with_bad_rules_is_refused_not_crashed_on(finished: Any) -> None:
    web, _quick, end = finished
    record = web.ok(web.http.get(f"/api/records/{end['result']['record_id']}"))
    for card_points in ([5], [["J"]], "J:x", {"J": "one"}):
        broken = copy.deepcopy(record)
        broken["rules"]["card_points"] = card_points
        response = web.http.post("/api/replay", content=json.dumps(broken))
        assert error_of(response, 400).startswith("rules: "), card_points


# A whole game on every database


@pytest.mark.parametrize("database", DATABASES)
def test_a_quick_game_is_played_to_the_end_and_stored(database: str, start_web: Any) -> None:
    web = start_web(database)
    quick = web.quick("Huda")
    end = web.play_to_end([web.connect(quick["code"], quick["token"])])
    record_id = end["result"]["record_id"]
    listed = web.ok(web.http.get("/api/records?limit=100"))
    assert record_id in [entry["id"] for entry in listed]
    record = web.ok(web.http.get(f"/api/records/{record_id}"))
    assert [p["name"] for p in record["players"]] == ["Huda", "Layla (expert)"]
    assert replay(record).totals == end["result"]["totals"]
    frames = frames_of(web, record_id)["frames"]
    assert len(frames) == sum(1 + len(deal["plays"]) for deal in record["deals"])
