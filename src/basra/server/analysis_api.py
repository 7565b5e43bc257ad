"""Analysis, puzzles and hints over HTTP (``docs/web-protocol.md``, "Analysis and puzzles").

    POST /api/records/{id}/analysis  -> 202 {"status": "running"} | 200 {"status": "done", ...}
    GET  /api/records/{id}/analysis  -> 200 {"status": "done" | "running" | "failed" | "none"}
    GET  /api/puzzles/next?rating=R&skip=ID,ID  -> a puzzle to solve (no solution in it)
    GET  /api/puzzles/{id}           -> that puzzle
    POST /api/puzzles/{id}/answer    {"move": "7S:2H+5D"} -> right or not, the solution, the
                                      explanation; an account's puzzle rating moves
    GET  /api/puzzles/rating         -> the logged-in account's puzzle rating
    GET  /api/tables/{code}/hint?token=T -> the master's ranking of the seat's moves

Analyses run in a pool of worker processes, never on the server's event loop, one match
per worker at a time; a finished analysis is stored and the puzzles found in the match
are added to the puzzle set. Hints are only for a seated player, at an unrated table where
every other seat is a computer, on the player's own turn; they are computed from that
seat's observation only.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from basra.cards import card_names
from basra.observe import Observation, observe
from basra.position import parse_position
from basra.record import loads, replay
from basra.state import move_captured, move_card, move_text, parse_move
from basra.store import Store
from basra.store.analysis_store import AnalysisStore
from basra.study.analysis import DEFAULT_THINK_MS, analysis_document, analyze_match, evaluate
from basra.study.puzzles import Puzzle, PuzzleError, mine_record, packaged_puzzles

__all__ = ["AnalysisSettings", "analysis_router", "analyze_record_text", "puzzle_view"]

HINT_MS = 300
"""The search budget of one hint, in milliseconds."""


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


class AnalysisSettings:
    """How the server analyses: ``workers`` processes, ``think_ms`` per decision,
    ``hint_ms`` per hint. The defaults can be set by the environment:
    ``BASRA_ANALYSIS_WORKERS``, ``BASRA_ANALYSIS_THINK_MS``, ``BASRA_HINT_MS``."""

    def __init__(self, workers: int | None = None, think_ms: int | None = None,
                 hint_ms: int | None = None) -> None:
        self.workers = workers or _env_int("BASRA_ANALYSIS_WORKERS", 1)
        self.think_ms = think_ms or _env_int("BASRA_ANALYSIS_THINK_MS", DEFAULT_THINK_MS)
        self.hint_ms = hint_ms or _env_int("BASRA_HINT_MS", HINT_MS)


def analyze_record_text(text: str, record_id: int, think_ms: int
                        ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run in a worker process: a stored record's ``basra-analysis/1`` document and the
    puzzles mined from it."""
    record = loads(text)
    match = replay(record)
    decisions = analyze_match(match, think_ms=think_ms, jobs=1)
    document = analysis_document(record, decisions, think_ms=think_ms)
    document["record"]["record_id"] = record_id
    puzzles = [p.to_dict() for p in mine_record(record, f"record {record_id}")]
    return document, puzzles


def rank_moves(observation: Observation, hint_ms: int, seed: int) -> dict[str, Any]:
    """Run in a worker process: every legal move of an observation, best first."""
    evaluation = evaluate(observation, seconds=hint_ms / 1000, seed=seed)
    return {
        "exact": evaluation.exact, "samples": evaluation.samples,
        "moves": [{"move": move_text(v.move), "card": card_names(1 << move_card(v.move))[0],
                   "captured": card_names(move_captured(v.move)),
                   "value": round(v.value, 2), "basra_risk": round(v.basra_risk, 3)}
                  for v in evaluation.moves],
    }


def puzzle_view(puzzle: Puzzle) -> dict[str, Any]:
    """What the puzzle page shows before the answer: the position from the solver's seat
    (every card is known, the other hand too), the legal moves, tags and rating."""
    state = parse_position(puzzle.position)
    seat = state.to_play
    other = 1 - seat
    rules = state.rules
    return {
        "id": puzzle.id, "rating": puzzle.rating, "tags": list(puzzle.tags),
        "variant": puzzle.position.split(" | ")[0], "family": rules.family,
        "seat": seat, "hand": card_names(state.hands[seat]),
        "other_hand": card_names(state.hands[other]), "floor": card_names(state.floor),
        "pile_counts": [p.bit_count() for p in state.piles],
        "basras": list(state.basras), "carry": puzzle.carry,
        "side": rules.side_of[seat],
        "moves": [{"move": m, "card": m.split(":")[0],
                   "captured": m.split(":")[1].split("+") if ":" in m else []}
                  for m in sorted(puzzle.values)],
    }


def _refusal(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "code": code}, status_code=status)


def analysis_router(store: Store, hub: Any = None, *,
                    settings: AnalysisSettings | None = None,
                    account_of: Callable[[Request], Any] | None = None,
                    executor: Executor | None = None) -> APIRouter:
    """The analysis, puzzle and hint routes. ``hub`` (the server's
    :class:`~basra.server.hub.Hub`) is needed for hints; ``account_of(request)`` returns
    the logged-in account as ``(id, name)`` or None (puzzle ratings)."""
    router = APIRouter()
    config = settings or AnalysisSettings()
    analyses = AnalysisStore(store)
    running: dict[int, asyncio.Task[None]] = {}
    failures: dict[int, str] = {}
    pools: dict[str, Executor] = {}
    shipped: list[Puzzle] = []

    def workers(kind: str = "analysis") -> Executor:
        """The analyses' pool, or the hints' own (a hint never waits for an analysis)."""
        if executor is not None:
            return executor
        if kind not in pools:
            from basra.bots.master import _pool_context

            count = config.workers if kind == "analysis" else 1
            pools[kind] = ProcessPoolExecutor(max_workers=count, mp_context=_pool_context())
        return pools[kind]

    async def run_analysis(record_id: int, text: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            document, puzzles = await loop.run_in_executor(
                workers(), analyze_record_text, text, record_id, config.think_ms)
            await analyses.save_analysis(record_id, document, puzzles)
        except Exception as error:  # reported to whoever asks next
            failures[record_id] = f"the analysis failed: {error}"
        finally:
            running.pop(record_id, None)

    async def status(record_id: int) -> JSONResponse:
        """Always 200 (a page polls it): done with the document, running, failed, none."""
        document = await analyses.get_analysis(record_id)
        if document is not None:
            return JSONResponse({"status": "done", "analysis": document})
        if record_id in running:
            return JSONResponse({"status": "running"})
        if record_id in failures:
            return JSONResponse({"status": "failed", "error": failures[record_id]})
        return JSONResponse({"status": "none"})

    @router.get("/api/records/{record_id}/analysis", response_model=None)
    async def get_analysis(record_id: int) -> JSONResponse:
        """A stored record's analysis: done (with the document), running, failed or
        none."""
        if not -(2**63) <= record_id < 2**63:
            return JSONResponse({"status": "none"})
        return await status(record_id)

    @router.post("/api/records/{record_id}/analysis", response_model=None)
    async def start_analysis(record_id: int) -> JSONResponse:
        """Analyse a stored, finished match in the worker pool (once)."""
        if not -(2**63) <= record_id < 2**63:
            return _refusal(404, "unknown_record", f"no record has the id {record_id}")
        if record_id in running:
            return JSONResponse({"status": "running"}, status_code=202)
        if await analyses.get_analysis(record_id) is not None:
            return await status(record_id)
        found = await store.get_record(record_id)
        if found is None:
            return _refusal(404, "unknown_record", f"no record has the id {record_id}")
        failures.pop(record_id, None)
        running[record_id] = asyncio.create_task(run_analysis(record_id, found.record))
        return JSONResponse({"status": "running"}, status_code=202)

    async def all_puzzles() -> dict[str, Puzzle]:
        if not shipped:
            shipped.extend(packaged_puzzles())
        found = {p.id: p for p in shipped}
        for data in await analyses.mined_puzzles():
            try:
                puzzle = Puzzle.from_dict(data)
            except PuzzleError:
                continue
            found.setdefault(puzzle.id, puzzle)
        return found

    async def account(request: Request) -> Any:
        return None if account_of is None else await account_of(request)

    @router.get("/api/puzzles/rating", response_model=None)
    async def puzzle_rating(request: Request) -> JSONResponse:
        """The logged-in account's puzzle rating (null for a guest, who keeps streaks)."""
        user = await account(request)
        if user is None:
            return JSONResponse({"rating": None, "solved": 0, "attempts": 0})
        rating, solved, attempts = await analyses.puzzle_rating(user[0])
        return JSONResponse({"rating": rating, "solved": solved, "attempts": attempts})

    @router.get("/api/puzzles/next", response_model=None)
    async def next_puzzle(request: Request, rating: int | None = None,
                          skip: str = "") -> JSONResponse:
        """A puzzle near ``rating`` (the account's puzzle rating when logged in), not one
        of ``skip`` (ids, comma-separated)."""
        puzzles = await all_puzzles()
        user = await account(request)
        if user is not None:
            rating = (await analyses.puzzle_rating(user[0]))[0]
        target = 1000 if rating is None else max(0, min(3000, rating))
        skipped = set(skip.split(",")[:200])
        choices = [p for p in puzzles.values() if p.id not in skipped] or list(puzzles.values())
        choices.sort(key=lambda p: (abs(p.rating - target), p.id))
        chosen = random.choice(choices[:12])
        return JSONResponse({"puzzle": puzzle_view(chosen), "count": len(puzzles)})

    @router.get("/api/puzzles/{puzzle_id}", response_model=None)
    async def one_puzzle(puzzle_id: str) -> JSONResponse:
        puzzle = (await all_puzzles()).get(puzzle_id)
        if puzzle is None:
            return _refusal(404, "unknown_puzzle", f"no puzzle has the id {puzzle_id[:40]!r}")
        return JSONResponse({"puzzle": puzzle_view(puzzle)})

    @router.post("/api/puzzles/{puzzle_id}/answer", response_model=None)
    async def answer(puzzle_id: str, request: Request) -> JSONResponse:
        """Check an answer; the solution and explanation come back either way."""
        puzzle = (await all_puzzles()).get(puzzle_id)
        if puzzle is None:
            return _refusal(404, "unknown_puzzle", f"no puzzle has the id {puzzle_id[:40]!r}")
        try:
            body = await request.json()
        except ValueError:
            return _refusal(400, "bad_request", "the request body is not JSON")
        move = body.get("move") if isinstance(body, dict) else None
        if not isinstance(move, str) or len(move) > 200:
            return _refusal(400, "bad_request", 'expected {"move": "7S:2H+5D"}')
        try:
            played = move_text(parse_move(puzzle.state(), move))
        except ValueError as error:
            return _refusal(400, "illegal_move", str(error))
        correct = played == puzzle.solution
        out: dict[str, Any] = {
            "correct": correct, "played": played, "solution": puzzle.solution,
            "explanation": puzzle.explanation, "line": list(puzzle.line),
            "values": {m: round(v, 2) for m, v in puzzle.values.items()},
        }
        user = await account(request)
        if user is not None:
            before, after, counted = await analyses.record_attempt(
                user[0], puzzle.id, puzzle.rating, correct)
            out["rating"] = {"before": before, "after": after, "counted": counted}
        return JSONResponse(out)

    async def hint_for(table: Any, token: str) -> tuple[int, dict[str, Any]]:
        """The hint for the seat ``token`` holds at a table this server owns: (status,
        body)."""
        seat = table.seat_of_token(token) if token and len(token) <= 100 else None
        if seat is None:
            return 403, {"error": "hints are only for a player seated at the table (give "
                                  "the seat's token)", "code": "not_seated"}
        if table.config.rated:
            return 403, {"error": "no hints in rated games", "code": "rated"}
        if any(table.is_human(s) for s in range(table.rules.players) if s != seat):
            return 403, {"error": "hints are only for games against the computer",
                         "code": "not_against_computers"}
        if table.match is None or table.to_play() != seat:
            return 409, {"error": "hints are given on your own turn",
                         "code": "not_your_turn"}
        view = observe(table.match, seat)
        seq = table.seq
        loop = asyncio.get_running_loop()
        ranked = await loop.run_in_executor(workers("hint"), rank_moves, view, config.hint_ms,
                                            seq * 7919 + seat)
        return 200, {"seat": seat, "seq": seq, **ranked}

    if hub is not None:
        async def hint_call(args: dict[str, Any]) -> dict[str, Any]:
            """Another server asks this one (the table's owner) for a hint."""
            from .hub import UnknownTableError

            try:
                table = await hub.table(str(args.get("code")))
            except UnknownTableError:
                return {"value": [404, {"error": "no such table", "code": "unknown_table"}]}
            except Exception as error:
                return {"error": "busy", "message": str(error)}
            status, body = await hint_for(table, str(args.get("token") or ""))
            return {"value": [status, body]}

        hub.relay.call_handlers["hint"] = hint_call

    @router.get("/api/tables/{code}/hint", response_model=None)
    async def hint(code: str, token: str = "") -> JSONResponse:
        """The master's ranking of the seat's moves: only for a seated player, at an
        unrated table against computers only, on the player's turn (asked of the table's
        owner when another server owns it)."""
        if hub is None:
            return _refusal(404, "no_hints", "this server gives no hints")
        from .hub import ServerBusyError, UnknownTableError

        async def here(table: Any) -> tuple[int, dict[str, Any]]:
            return await hint_for(table, token)

        try:
            status, body = await hub.relay.at_owner(code, "hint", {"token": token}, here)
        except UnknownTableError:
            return _refusal(404, "unknown_table", f"no table has the code {code[:40]!r}")
        except ServerBusyError as error:
            return _refusal(503, "server_busy", str(error))
        return JSONResponse(body, status_code=status)

    return router

