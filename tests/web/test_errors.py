"""One table of errors: every refusal, over HTTP or a socket, answers from it with
``{"code", "message", "params"}``; and the OpenAPI document describes every body."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from basra.server.errors import ERRORS, UnknownTableError, refusal_of

BODY_FIELDS = {
    "/api/quick": {"name"},
    "/api/tables": {"name", "variant", "players", "rules", "seats", "turn_seconds",
                    "takeover_level", "open_stores"},
    "/api/tables/{code}/join": {"name", "seat"},
    "/api/tournaments": {"kind", "variant", "players", "rated", "minutes", "rounds",
                         "starts_in", "turn_seconds", "computers", "allow_bots", "name"},
    "/api/tournaments/{tournament_id}/join": {"partner"},
    "/api/tokens": {"description", "scopes"},
    "/api/challenge/{name}": {"variant", "players", "rated", "turn_seconds", "invite"},
    "/api/challenge/open": {"variant", "players", "rated", "turn_seconds", "invite"},
    "/api/challenge/{challenge_id}/decline": {"reason"},
    "/api/notifications/read": {"ids"},
    "/api/tournaments/{tournament_id}/pause": {"paused"},
    "/api/signup": {"name", "password"},
    "/api/login": {"name", "password"},
    "/api/puzzles/{puzzle_id}/answer": {"move", "streak"},
}
"""The routes whose body is a JSON object, and its fields."""
NO_BODY = {"/api/logout", "/api/records/{record_id}/analysis", "/api/puzzles/streak",
           "/api/tournaments/{tournament_id}/withdraw",
           "/api/challenge/{challenge_id}/accept", "/api/challenge/{challenge_id}/cancel",
           "/api/follow/{name}", "/api/unfollow/{name}",
           "/api/bot/account/upgrade", "/api/bot/game/{code}/move/{move}"}
"""The POST routes that read no body."""


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text)
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    assert set(body) == {"code", "message", "params"}, body
    assert isinstance(body["message"], str) and "error" not in body
    return body


def test_every_error_has_a_code_a_status_and_a_close_code() -> None:
    for error_type, kind in ERRORS.items():
        assert re.fullmatch(r"[a-z_]+", kind.code), error_type
        assert 400 <= kind.status < 600, error_type
        assert 4000 <= kind.close < 5000, error_type


def test_a_subclass_answers_as_its_nearest_listed_type() -> None:
    class Stranger(UnknownTableError):
        pass

    answer = refusal_of(Stranger("abc"))
    assert answer is not None
    assert (answer.code, answer.status, answer.close) == ("unknown_table", 404, 4404)
    assert answer.params == {"table": "abc"}
    assert refusal_of(ZeroDivisionError()) is None  # a bug: answered 500, not hidden


def test_the_openapi_document_describes_every_body(web: Any) -> None:
    document = web.ok(web.http.get("/api/openapi.json"))
    posts = {path: item["post"] for path, item in document["paths"].items() if "post" in item}
    assert set(BODY_FIELDS) <= set(posts)
    for path, operation in posts.items():
        if path in NO_BODY:
            continue
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        assert schema["type"] == "object", path
        if path in BODY_FIELDS:
            assert set(schema["properties"]) == BODY_FIELDS[path], path
            assert all(field.get("description") for field in schema["properties"].values())
    seats = posts["/api/tables"]["requestBody"]["content"]["application/json"]["schema"]
    seat = seats["properties"]["seats"]["items"]
    assert set(seat["properties"]) == {"kind", "level"}  # inlined, no dangling $ref


@pytest.mark.parametrize("path", ["/api/quick", "/api/tables", "/api/signup", "/api/login"])
@pytest.mark.parametrize("content", [b"{\"name\": ", b"[1, 2]", b"\"Amira\"", b"\xff\xfe"])
def test_a_malformed_body_gets_bad_request_never_a_500(web: Any, path: str,
                                                      content: bytes) -> None:
    refused(web.http.post(path, content=content), 400, "bad_request")


def test_a_malformed_join_or_answer_body_gets_bad_request(web: Any) -> None:
    quick = web.quick()
    refused(web.http.post(f"/api/tables/{quick['code']}/join", content=b"[1]"), 400,
            "bad_request")
    puzzle = web.ok(web.http.get("/api/puzzles/next"))["puzzle"]["id"]
    refused(web.http.post(f"/api/puzzles/{puzzle}/answer", content=b"{"), 400, "bad_request")


def test_errors_that_had_no_code_have_one(web: Any) -> None:
    body = refused(web.http.get("/api/tables/nosuchtable"), 404, "unknown_table")
    assert body["params"] == {"table": "nosuchtable"}
    refused(web.http.get("/api/records/123456"), 404, "unknown_record")
    refused(web.http.post("/api/replay", content=b"{}"), 400, "bad_record")
    refused(web.http.post("/api/tables", json={"variant": "chess"}), 400, "bad_config")
    refused(web.http.get("/api/records?limit=many"), 400, "bad_request")
    refused(web.http.get("/no/such/path"), 404, "not_found")
    quick = web.quick()
    refused(web.http.post(f"/api/tables/{quick['code']}/join", json={}), 409, "no_free_seat")
    refused(web.http.post(f"/api/tables/{quick['code']}/join", json={"seat": 1}), 409,
            "computer_seat")
    refused(web.http.post(f"/api/tables/{quick['code']}/join", json={"seat": 7}), 400,
            "bad_seat")


def test_a_refused_socket_gets_the_tables_code_params_and_close(web: Any) -> None:
    with web.http.websocket_connect("/ws/nosuchtable") as socket:
        error = socket.receive_json()
        assert error == {"type": "error", "code": "unknown_table",
                         "message": "no table has the code 'nosuchtable'",
                         "params": {"table": "nosuchtable"}}
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == ERRORS[UnknownTableError].close
