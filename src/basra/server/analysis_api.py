"""Analysis, puzzles and hints over HTTP (``docs/web-protocol.md``, "Analysis and puzzles").

    POST /api/records/{id}/analysis  -> 202 {"status": "running"} | 200 {"status": "done", ...}
    GET  /api/records/{id}/analysis  -> 200 {"status": "done" | "running" | "failed" | "none"}
    GET  /api/puzzles/next?rating=R&skip=ID,ID&streak=N  -> a puzzle to solve (no
                                      solution in it); harder as a streak ``N`` grows
    GET  /api/puzzles/{id}           -> that puzzle
    POST /api/puzzles/{id}/answer    {"move": "7S:2H+5D", "streak": false} -> right or not,
                                      the solution, the explanation (as data and in
                                      English); an account's puzzle rating moves, or in
                                      a streak its Puzzle Streak
    GET  /api/puzzles/rating         -> the logged-in account's puzzle rating
    GET  /api/puzzles/streak         -> the logged-in account's Puzzle Streak
    POST /api/puzzles/streak         -> the account begins a new Puzzle Streak
    GET  /api/tables/{code}/hint?token=T -> the master's ranking of the seat's moves

Analyses run in a pool of worker processes, never on the server's event loop, one match
per worker at a time; a finished analysis is stored and the puzzles found in the match
are added to the puzzle set. Hints are only for a seated player, at an unrated table where
every other seat is a computer, on the player's own turn; they are computed from that
seat's observation only.

One client cannot hold the workers: analyses are limited per client address and per
account, at most ``max_queued`` run or wait at once, and a match analyses at most
``max_decisions`` of its decisions (spread evenly through a longer one); hints are
limited per client address and per seat, and a hint asked for again on the same turn is
not computed again (``STUDY_LIMITS`` in ``ratelimit.py``, ``docs/web-protocol.md``).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from basra.cards import CARD_NAMES, card_names
from basra.observe import Observation, observe
from basra.position import parse_position
from basra.record import loads, replay
from basra.rules import PRESETS
from basra.state import move_captured, move_card, move_text, parse_move
from basra.store import Store
from basra.store.analysis import PUZZLE_RATING_FLOOR
from basra.study.analysis import (
    DEFAULT_THINK_MS,
    analysis_document,
    analyze_match,
    decision_points,
    evaluate,
)
from basra.study.puzzles import Puzzle, PuzzleError, mine_record, packaged_puzzles

from .bodies import AnswerBody, openapi_body, read_body
from .computer import stop_pool, watch_server
from .deps import AccountOf, HubOf, StoreOf, address
from .errors import (
    BadRequestError,
    HintRefusedError,
    IllegalAnswerError,
    LimitReachedError,
    QueueFullError,
    UnknownPuzzleError,
    UnknownRecordError,
    UnknownTableError,
    refusal_of,
)
from .hub import Hub
from .ratelimit import RateLimited, RateLimits
from .table import Table

__all__ = ["Analyses", "AnalysisSettings", "analyze_record_text", "puzzle_view", "router"]

HINT_MS = 300
"""The search budget of one hint, in milliseconds."""
HINTS_KEPT = 2000
"""The latest hints kept (one per seat that asked), the oldest forgotten first."""
MAX_DECISIONS = 400
"""Most decisions of one match analysed (some 80 s of a worker at 200 ms each); a longer
match has this many analysed, spread evenly through it, and its analysis says so."""
MAX_QUEUED = 8
"""Most analyses running or waiting for a worker; beyond it a new one is refused (503)."""
QUEUE_RETRY = 60
"""The ``Retry-After`` (seconds) of an analysis refused because the queue is full."""


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


class AnalysisSettings:
    """How the server analyses: ``workers`` processes, ``think_ms`` per decision,
    ``hint_ms`` per hint, at most ``max_decisions`` decisions of one match and
    ``max_queued`` analyses running or waiting. The defaults can be set by the
    environment: ``BASRA_ANALYSIS_WORKERS``, ``BASRA_ANALYSIS_THINK_MS``,
    ``BASRA_HINT_MS``, ``BASRA_ANALYSIS_MAX_DECISIONS``, ``BASRA_ANALYSIS_QUEUE``."""

    def __init__(self, workers: int | None = None, think_ms: int | None = None,
                 hint_ms: int | None = None, max_decisions: int | None = None,
                 max_queued: int | None = None) -> None:
        self.workers = workers or _env_int("BASRA_ANALYSIS_WORKERS", 1)
        self.think_ms = think_ms or _env_int("BASRA_ANALYSIS_THINK_MS", DEFAULT_THINK_MS)
        self.hint_ms = hint_ms or _env_int("BASRA_HINT_MS", HINT_MS)
        self.max_decisions = max_decisions or _env_int("BASRA_ANALYSIS_MAX_DECISIONS",
                                                       MAX_DECISIONS)
        self.max_queued = max_queued or _env_int("BASRA_ANALYSIS_QUEUE", MAX_QUEUED)


def analyze_record_text(text: str, record_id: int, think_ms: int,
                        max_decisions: int | None = None
                        ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run in a worker process: a stored record's ``basra-analysis/1`` document and the
    puzzles mined from it (at most ``max_decisions`` decisions analysed, spread evenly
    through a longer match: the document's ``sampled`` says so)."""
    record = loads(text)
    match = replay(record)
    in_match = sum(1 for _ in decision_points(match))
    decisions = analyze_match(match, think_ms=think_ms, jobs=1, max_decisions=max_decisions)
    document = analysis_document(record, decisions, think_ms=think_ms,
                                 decisions_in_match=in_match)
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


STREAK_START = 800
"""The rating of the first puzzles of a Puzzle Streak."""
STREAK_STEP = 60
"""How much harder (in puzzle rating) each puzzle solved in a streak makes the next."""


def streak_target(solved: int) -> int:
    """The puzzle rating a streak of ``solved`` puzzles asks for next.

    >>> streak_target(0), streak_target(10), streak_target(1000)
    (800, 1400, 2400)
    """
    return min(2400, STREAK_START + STREAK_STEP * max(0, solved))


def puzzle_view(puzzle: Puzzle) -> dict[str, Any]:
    """What the puzzle page shows before the answer: the position from the solver's seat
    (every card is known, the other hand too), the legal moves, tags and rating, and
    the variant (``preset``: its preset, whose rules page is ``/rules/{preset}``;
    ``house_rules``: whether the puzzle's rules change some of the preset's; in a pile
    game, ``pile``: the pile bottom to top)."""
    state = parse_position(puzzle.position)
    seat = state.to_play
    other = 1 - seat
    rules = state.rules
    variant = puzzle.position.split(" | ")[0].strip()
    words = variant.split()
    name = words[0].partition("/")[0]
    return {
        "id": puzzle.id, "rating": puzzle.rating, "tags": list(puzzle.tags),
        "variant": variant, "family": rules.family,
        "preset": name if name in PRESETS else None, "house_rules": len(words) > 1,
        "seat": seat, "hand": card_names(state.hands[seat]),
        "other_hand": card_names(state.hands[other]), "floor": card_names(state.floor),
        "pile_counts": [p.bit_count() for p in state.piles],
        "basras": list(state.basras), "carry": puzzle.carry,
        "side": rules.side_of[seat],
        "moves": [{"move": m, "card": m.split(":")[0],
                   "captured": m.split(":")[1].split("+") if ":" in m else []}
                  for m in sorted(puzzle.values)],
        **({"pile": [CARD_NAMES[c] for c in state.laid]} if state.table.pile else {}),
    }


class Analyses:
    """The analyses running and failed, the worker pools, the puzzles and the hints of
    one app (``app.state.analyses``). With a ``hub``, other servers may ask this one
    for the hints at its tables."""

    def __init__(self, store: Store, hub: Hub | None = None,
                 settings: AnalysisSettings | None = None,
                 executor: Executor | None = None,
                 limiter: RateLimits | None = None) -> None:
        self.config = settings or AnalysisSettings()
        self.stored = store.analysis
        self.executor = executor
        self.limiter = limiter
        """Counts analyses and hints (``STUDY_LIMITS``); none are counted without."""
        self._hints: dict[tuple[str, int], tuple[int, asyncio.Future[dict[str, Any]]]] = {}
        """Each seat's latest hint, by (table, seat): its ``seq`` and the hint (being)
        computed. Asked for again on the same turn, it is not computed again."""
        self.running: dict[int, asyncio.Task[None]] = {}
        self.on_waited: Callable[[str, float], None] | None = None
        """Called with ``"analysis"`` or ``"hint"`` and the seconds each waited for a
        worker and took (the server's metrics)."""
        self.failures: dict[int, str] = {}
        self._pools: dict[str, Executor] = {}
        self._shipped: list[Puzzle] = []
        self.puzzle_floor = (hub.settings.puzzle_floor if hub is not None
                             else PUZZLE_RATING_FLOOR)
        """Mined puzzles join the public set at once only from rated matches between
        players rated at least this much (``store.analysis.mining_verdict``)."""
        if hub is not None:
            hub.relay.call_handlers["hint"] = lambda args: self.hint_call(hub, args)

    def workers(self, kind: str = "analysis") -> Executor:
        """The analyses' pool, or the hints' own (a hint never waits for an analysis)."""
        if self.executor is not None:
            return self.executor
        if kind not in self._pools:
            from basra.bots.master import _pool_context

            count = self.config.workers if kind == "analysis" else 1
            self._pools[kind] = ProcessPoolExecutor(
                max_workers=count, mp_context=_pool_context(), initializer=watch_server,
                initargs=(os.getpid(),))
        return self._pools[kind]

    def close(self) -> None:
        """Stop the worker pools (the server stops): running analyses are cancelled and
        their workers end; each worker also leaves by itself once the server process is
        gone (:func:`~basra.server.computer.watch_server`)."""
        for task in self.running.values():
            task.cancel()
        pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            stop_pool(pool)

    async def run(self, record_id: int, text: str) -> None:
        """Analyse a record in the pool and store the analysis and its puzzles."""
        loop = asyncio.get_running_loop()
        began = time.monotonic()
        try:
            document, puzzles = await loop.run_in_executor(
                self.workers(), analyze_record_text, text, record_id, self.config.think_ms,
                self.config.max_decisions)
            self._waited("analysis", began)
            await self.stored.save(record_id, document, puzzles, self.puzzle_floor)
        except Exception as error:  # reported to whoever asks next
            self.failures[record_id] = f"the analysis failed: {error}"
        finally:
            self.running.pop(record_id, None)

    async def status(self, record_id: int) -> JSONResponse:
        """Always 200 (a page polls it): done with the document, running, failed, none."""
        # Running is read before the store: an analysis that ends while the store is read
        # was saved after that read began, and is still running to this answer.
        was_running = record_id in self.running
        document = await self.stored.get(record_id)
        if document is not None:
            return JSONResponse({"status": "done", "analysis": document})
        if was_running or record_id in self.running:
            return JSONResponse({"status": "running"})
        if record_id in self.failures:
            return JSONResponse({"status": "failed", "error": self.failures[record_id]})
        return JSONResponse({"status": "none"})

    async def puzzles(self) -> dict[str, Puzzle]:
        """Every puzzle: the shipped ones and those mined from analysed matches."""
        if not self._shipped:
            self._shipped.extend(packaged_puzzles())
        found = {p.id: p for p in self._shipped}
        for data in await self.stored.mined_puzzles():
            try:
                puzzle = Puzzle.from_dict(data)
            except PuzzleError:
                continue
            found.setdefault(puzzle.id, puzzle)
        return found

    async def puzzle(self, puzzle_id: str) -> Puzzle:
        """The puzzle with this id, or :class:`UnknownPuzzleError`."""
        puzzle = (await self.puzzles()).get(puzzle_id)
        if puzzle is None:
            raise UnknownPuzzleError(f"no puzzle has the id {puzzle_id[:40]!r}",
                                     id=puzzle_id[:40])
        return puzzle

    async def hint(self, table: Table, token: str) -> tuple[int, dict[str, Any]]:
        """The hint for the seat ``token`` holds at a table this server owns: (status,
        body)."""
        try:
            seat = _hint_seat(table, token)
        except HintRefusedError as refused:
            answer = refusal_of(refused)
            assert answer is not None
            return answer.status, answer.body()
        assert table.match is not None
        seq = table.seq
        key = (table.code, seat)
        known = self._hints.get(key)
        if known is None or known[0] != seq or (known[1].done()
                                                and known[1].exception() is not None):
            # counted once per hint computed, however often it is asked for
            over = await self._limit("hint_seat", f"{table.code} seat {seat}", "hint_limit")
            if over is not None:
                return over
            known = (seq, asyncio.ensure_future(self._rank(observe(table.match, seat), seq,
                                                           seat)))
            self._hints.pop(key, None)
            self._hints[key] = known
            while len(self._hints) > HINTS_KEPT:
                del self._hints[next(iter(self._hints))]
        ranked = await asyncio.shield(known[1])
        return 200, {"seat": seat, "seq": seq, **ranked}

    async def _rank(self, view: Observation, seq: int, seat: int) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        began = time.monotonic()
        ranked: dict[str, Any] = await loop.run_in_executor(
            self.workers("hint"), rank_moves, view, self.config.hint_ms, seq * 7919 + seat)
        self._waited("hint", began)
        return ranked

    def _waited(self, queue: str, began: float) -> None:
        if self.on_waited is not None:
            self.on_waited(queue, time.monotonic() - began)

    @property
    def hints_pending(self) -> int:
        """Hints being computed or waiting for the hints' worker."""
        return sum(not hint.done() for _, hint in self._hints.values())

    async def _limit(self, kind: str, key: str, code: str) -> tuple[int, dict[str, Any]] | None:
        """Count one of ``kind`` for ``key``: None when it may go on, else the answer
        that refuses it (``code``, with the seconds to wait)."""
        try:
            await self.check(kind, key, code)
        except LimitReachedError as refused:
            answer = refusal_of(refused)
            assert answer is not None
            return answer.status, answer.body()
        return None

    async def check(self, kind: str, key: str, code: str) -> None:
        """Count one of ``kind`` for ``key``, or raise :class:`LimitReachedError`."""
        if self.limiter is None:
            return
        try:
            await self.limiter.check(kind, key)
        except RateLimited as refused:
            raise LimitReachedError(code, str(refused), refused.retry_after) from None

    def queue_full(self) -> None:
        """Raise :class:`QueueFullError` when no analysis may be queued now."""
        if len(self.running) >= self.config.max_queued:
            raise QueueFullError(
                f"{len(self.running)} analyses are running or waiting, the most this "
                "server queues: try again later", QUEUE_RETRY)

    async def hint_call(self, hub: Hub, args: dict[str, Any]) -> dict[str, Any]:
        """Another server asks this one (the table's owner) for a hint."""
        try:
            table = await hub.table(str(args.get("code")))
        except UnknownTableError as error:
            answer = refusal_of(error)
            assert answer is not None
            return {"value": [answer.status, answer.body()]}
        except Exception as error:
            return {"error": "busy", "message": str(error)}
        status, body = await self.hint(table, str(args.get("token") or ""))
        return {"value": [status, body]}


def _hint_seat(table: Table, token: str) -> int:
    """The seat a hint is for, or :class:`HintRefusedError` saying why none is given."""
    seat = table.seat_of_token(token) if token and len(token) <= 100 else None
    if seat is None:
        raise HintRefusedError("not_seated", "hints are only for a player seated at the "
                                             "table (give the seat's token)")
    if table.config.rated:
        raise HintRefusedError("rated", "no hints in rated games")
    if any(table.is_human(s) for s in range(table.rules.players) if s != seat):
        raise HintRefusedError("not_against_computers",
                               "hints are only for games against the computer")
    if table.match is None or table.to_play() != seat:
        raise HintRefusedError("not_your_turn", "hints are given on your own turn")
    return seat


def analyses_of(connection: HTTPConnection) -> Analyses:
    """The app's :class:`Analyses`."""
    analyses: Analyses = connection.app.state.analyses
    return analyses


AnalysesOf = Annotated[Analyses, Depends(analyses_of)]

router = APIRouter()


def _in_range(record_id: int) -> bool:
    return -(2**63) <= record_id < 2**63


@router.get("/api/records/{record_id}/analysis", response_model=None)
async def get_analysis(record_id: int, analyses: AnalysesOf) -> JSONResponse:
    """A stored record's analysis: done (with the document), running, failed or none."""
    if not _in_range(record_id):
        return JSONResponse({"status": "none"})
    return await analyses.status(record_id)


@router.post("/api/records/{record_id}/analysis", response_model=None)
async def start_analysis(record_id: int, request: Request, analyses: AnalysesOf,
                         store: StoreOf, user: AccountOf) -> JSONResponse:
    """Analyse a stored, finished match in the worker pool (once). Refused while the
    queue is full (503) or past the client's limits (429), both with ``Retry-After``."""
    unknown = UnknownRecordError(f"no record has the id {record_id}", id=str(record_id))
    if not _in_range(record_id):
        raise unknown
    if record_id in analyses.running:
        return JSONResponse({"status": "running"}, status_code=202)
    if await analyses.stored.get(record_id) is not None:
        return await analyses.status(record_id)
    found = await store.records.get(record_id)
    if found is None:
        raise unknown
    analyses.queue_full()
    await analyses.check("analysis", address(request), "analysis_limit")
    if user is not None:
        await analyses.check("analysis_account", f"account {user[0]}", "analysis_limit")
    if record_id in analyses.running:  # started by another request meanwhile
        return JSONResponse({"status": "running"}, status_code=202)
    analyses.queue_full()  # again: others may have queued while the limits were checked
    analyses.failures.pop(record_id, None)
    analyses.running[record_id] = asyncio.create_task(analyses.run(record_id, found.record))
    return JSONResponse({"status": "running"}, status_code=202)


@router.get("/api/puzzles/rating", response_model=None)
async def puzzle_rating(analyses: AnalysesOf, user: AccountOf) -> JSONResponse:
    """The logged-in account's puzzle rating (null for a guest, who keeps streaks)."""
    if user is None:
        return JSONResponse({"rating": None, "solved": 0, "attempts": 0})
    rating, solved, attempts = await analyses.stored.puzzle_rating(user[0])
    return JSONResponse({"rating": rating, "solved": solved, "attempts": attempts})


@router.get("/api/puzzles/streak", response_model=None)
async def puzzle_streak(store: StoreOf, user: AccountOf) -> JSONResponse:
    """The logged-in account's Puzzle Streak (nulls for a guest, whose streak the browser
    keeps)."""
    if user is None:
        return JSONResponse({"current": None, "best": None})
    return JSONResponse((await store.streaks.get(user[0]))._asdict())


@router.post("/api/puzzles/streak", response_model=None)
async def start_streak(store: StoreOf, user: AccountOf) -> JSONResponse:
    """The logged-in account begins a new Puzzle Streak (its best is kept)."""
    if user is None:
        return JSONResponse({"current": None, "best": None})
    return JSONResponse((await store.streaks.start(user[0]))._asdict())


@router.get("/api/puzzles/next", response_model=None)
async def next_puzzle(analyses: AnalysesOf, user: AccountOf, rating: int | None = None,
                      skip: str = "", streak: int | None = None) -> JSONResponse:
    """A puzzle near ``rating`` (the account's puzzle rating when logged in; in a Puzzle
    Streak of ``streak`` puzzles solved, harder as it grows), not one of ``skip`` (ids,
    comma-separated)."""
    puzzles = await analyses.puzzles()
    if streak is not None:
        rating = streak_target(streak)
    elif user is not None:
        rating = (await analyses.stored.puzzle_rating(user[0]))[0]
    target = 1000 if rating is None else max(0, min(3000, rating))
    skipped = set(skip.split(",")[:200])
    choices = [p for p in puzzles.values() if p.id not in skipped] or list(puzzles.values())
    choices.sort(key=lambda p: (abs(p.rating - target), p.id))
    chosen = random.choice(choices[:12])
    return JSONResponse({"puzzle": puzzle_view(chosen), "count": len(puzzles)})


@router.get("/api/puzzles/{puzzle_id}", response_model=None)
async def one_puzzle(puzzle_id: str, analyses: AnalysesOf) -> JSONResponse:
    """A puzzle, without its solution."""
    return JSONResponse({"puzzle": puzzle_view(await analyses.puzzle(puzzle_id))})


@router.post("/api/puzzles/{puzzle_id}/answer", response_model=None,
             openapi_extra=openapi_body(AnswerBody, True))
async def answer(puzzle_id: str, request: Request, analyses: AnalysesOf, store: StoreOf,
                 user: AccountOf) -> JSONResponse:
    """Check an answer; the solution and explanation come back either way. A logged-in
    account's puzzle rating moves only for a puzzle whose solution it has not been
    shown (see ``store/reveals.py``)."""
    puzzle = await analyses.puzzle(puzzle_id)
    body = await read_body(request, AnswerBody, example='{"move": "7S:2H+5D"}')
    move, in_streak = body.move, body.streak
    if not isinstance(move, str) or len(move) > 200:
        raise BadRequestError('expected {"move": "7S:2H+5D"}')
    if in_streak is not None and not isinstance(in_streak, bool):
        raise BadRequestError(f'"streak" must be true or false, not {in_streak!r:.40}')
    try:
        played = move_text(parse_move(puzzle.state(), move))
    except ValueError as error:
        raise IllegalAnswerError(str(error)) from None
    correct = played == puzzle.solution
    out: dict[str, Any] = {
        "correct": correct, "played": played, "solution": puzzle.solution,
        "explanation": puzzle.explanation, "explained": puzzle.why(),
        "line": list(puzzle.line),
        "values": {m: round(v, 2) for m, v in puzzle.values.items()},
    }
    if user is not None and in_streak:
        out["streak"] = (await store.streaks.answer(user[0], puzzle.id, correct))._asdict()
    elif user is not None:
        out["rating"] = await _rated_answer(store, analyses, user[0], puzzle, correct,
                                            address(request))
    # noted before the solution is sent: whoever sees it next finds it shown
    await store.reveals.reveal(puzzle.id, None if user is None else user[0],
                               address(request))
    return JSONResponse(out)


async def _rated_answer(store: Store, analyses: Analyses, user_id: int, puzzle: Puzzle,
                        correct: bool, client: str) -> dict[str, Any]:
    """An account's answer counted for its puzzle rating, unless its solution was shown
    to the account, or to its address within a day: ``unrated`` then says why
    (``solution_shown``, ``solution_shown_here``, ``answered_before``)."""
    shown = await store.reveals.shown(puzzle.id, user_id, client)
    if shown is not None:
        rating = (await analyses.stored.puzzle_rating(user_id))[0]
        return {"before": rating, "after": rating, "counted": False, "unrated": shown}
    before, after, counted = await analyses.stored.record_attempt(
        user_id, puzzle.id, puzzle.rating, correct)
    return {"before": before, "after": after, "counted": counted,
            "unrated": None if counted else "answered_before"}


@router.get("/api/tables/{code}/hint", response_model=None)
async def hint(code: str, request: Request, hub: HubOf, analyses: AnalysesOf,
               token: str = "") -> JSONResponse:
    """The master's ranking of the seat's moves: only for a seated player, at an unrated
    table against computers only, on the player's turn (asked of the table's owner when
    another server owns it)."""
    async def here(table: Table) -> tuple[int, dict[str, Any]]:
        return await analyses.hint(table, token)

    await analyses.check("hint", address(request), "hint_limit")
    status, body = await hub.relay.at_owner(code, "hint", {"token": token}, here)
    retry = (body.get("params") or {}).get("seconds") if status == 429 else None
    return JSONResponse(body, status_code=status,
                        headers=None if retry is None else {"Retry-After": str(retry)})
