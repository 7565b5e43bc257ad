"""Tournaments between bots: duplicate matches in parallel processes, with statistics.

Luck in Basra comes from the deal. A *duplicate* arena plays every deal order again with
the seats rotated, so each bot plays each seat's cards once and the luck of the deal
cancels. The deals of a match come from ``random.Random(seed)`` alone (see
:class:`~basra.match.Match`), so the same seed gives the same deals whatever is played::

    seed s, rotation r: the bot of entry i sits at seat (i + r) % players

    2 players, bots A,B              3 players, bots A,B,C
                  seat 0  seat 1                   seat 0  seat 1  seat 2
    s, rotation 0   A       B        s, rotation 0   A       B       C
    s, rotation 1   B       A        s, rotation 1   C       A       B
                                     s, rotation 2   B       C       A

Asking for K matches plays ``ceil(K / players)`` seeds (``seed``, ``seed + 1``, ...) times
``players`` rotations, so the number played is K rounded up to a multiple of the number of
players (:attr:`ArenaResult.matches_played`). In partnerships the bots may be given one
per seat or one per side; both partners of a side share its wins and points.

Each match is an independent task: with ``jobs`` > 1 they run in a pool of worker
processes, and the results are put together in task order, so the same arguments give the
same results whatever ``jobs`` is (bots that search against the clock, like ``master``,
are the exception: what they find depends on the time they get).

>>> from basra.rules import make_rules
>>> result = run_arena(make_rules("egyptian"), "egyptian", ["greedy", "random"],
...                    matches=4, seed=1)
>>> result.matches_played, len(result.win_rate), result.wins[0] + result.wins[1]
(4, 2, 4)
"""

from __future__ import annotations

import math
import multiprocessing
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from basra.bots import BOT_LEVELS, UnknownBotError, bot_label, close_bot, make_bot
from basra.match import Match
from basra.observe import observe
from basra.record import Player, dumps, match_record
from basra.rules import Rules

__all__ = [
    "ArenaError",
    "ArenaResult",
    "MatchOutcome",
    "MatchTask",
    "Runner",
    "arena_tasks",
    "play_arena_match",
    "play_tasks",
    "record_name",
    "run_arena",
    "wilson_interval",
]

Z_95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


class ArenaError(ValueError):
    """Arena arguments that cannot work: too few or too many bots, no jobs, a taken file."""


def wilson_interval(wins: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default); (0, 1) with no trials.

    >>> lo, hi = wilson_interval(8, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.4902, 0.9433)
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    """
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= wins <= trials:
        raise ValueError(f"wins must be from 0 to trials ({trials}), not {wins}")
    p = wins / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    lo = 0.0 if wins == 0 else max(0.0, centre - half)
    hi = 1.0 if wins == trials else min(1.0, centre + half)
    return lo, hi


class MatchTask(NamedTuple):
    """One match of an arena: which deals (``seed``), who sits where, how long it may run."""

    rules: Rules
    variant: str
    seed: int
    rotation: int
    bots: tuple[str, ...]
    """The bot spec at each seat."""
    owners: tuple[int, ...]
    """The entry (index into the arena's bots) at each seat."""
    think_ms: int
    workers: int | None
    """Worker processes of a searching bot (None: its default)."""
    max_deals: int
    keep_record: bool
    samples: int | None = None
    """A searching bot's fixed samples per move instead of ``think_ms`` (reproducible,
    whatever the machine's load)."""


class MatchOutcome(NamedTuple):
    """What one arena match gave: the winner, the points and the time of each decision."""

    seed: int
    rotation: int
    owners: tuple[int, ...]
    winner: int | None
    """The winning side, or None for a match stopped at ``max_deals``."""
    deals: int
    """Deals scored."""
    points: tuple[int, ...]
    """Points of each side over the scored deals."""
    basras: tuple[int, ...]
    decision_ms: tuple[tuple[float, ...], ...]
    """How long each ``choose`` call took, per seat."""
    record: str | None
    """The ``basra-record/1`` text, when asked for."""


def record_name(seed: int, rotation: int) -> str:
    """The file name of an arena match's record: ``arena-SEED-rROTATION.json``."""
    return f"arena-{seed}-r{rotation}.json"


def _seat_owners(rules: Rules, entries: int, rotation: int) -> tuple[int, ...]:
    players = rules.players
    return tuple(((seat - rotation) % players) % entries for seat in range(players))


def arena_tasks(rules: Rules, variant: str, bots: Sequence[str], matches: int, seed: int, *,
                think_ms: int = 300, workers: int | None = None, max_deals: int = 1000,
                keep_record: bool = False, samples: int | None = None) -> list[MatchTask]:
    """The matches of a duplicate arena, seed by seed and rotation by rotation.

    ``bots`` holds one bot per seat, or in partnerships one per side.

    >>> from basra.rules import make_rules
    >>> tasks = arena_tasks(make_rules("egyptian"), "egyptian", ["greedy", "random"], 3, 7)
    >>> [(t.seed, t.rotation, t.bots) for t in tasks]  # doctest: +NORMALIZE_WHITESPACE
    [(7, 0, ('greedy', 'random')), (7, 1, ('random', 'greedy')),
     (8, 0, ('greedy', 'random')), (8, 1, ('random', 'greedy'))]
    """
    entries = _check_bots(rules, bots)
    if matches < 1:
        raise ArenaError(f"matches must be at least 1, not {matches}")
    seeds = -(-matches // rules.players)
    tasks = []
    for match_seed in range(seed, seed + seeds):
        for rotation in range(rules.players):
            owners = _seat_owners(rules, len(entries), rotation)
            tasks.append(MatchTask(
                rules, variant, match_seed, rotation, tuple(entries[o] for o in owners),
                owners, think_ms, workers, max_deals, keep_record, samples,
            ))
    return tasks


def _check_bots(rules: Rules, bots: Sequence[str]) -> list[str]:
    entries = [bot_label(b) for b in bots]
    counts = f"one per seat ({rules.players})"
    if rules.partnership:
        counts += f" or one per side ({rules.sides})"
    if len(entries) != rules.players and not (rules.partnership and len(entries) == rules.sides):
        raise ArenaError(f"an arena needs {counts} bots, not {len(entries)}")
    for name in entries:
        if name not in BOT_LEVELS and not (name.startswith("cmd:") and name[4:].strip()):
            raise UnknownBotError(f"unknown bot {name!r}; the bots are: "
                                  f"{', '.join(BOT_LEVELS)}, or cmd:COMMAND")
    return entries


def claim_record_paths(records_dir: Path, names: Sequence[str]) -> list[Path]:
    """The record files to write in ``records_dir``; refuses names already taken, so a
    run never overwrites a record."""
    records_dir.mkdir(parents=True, exist_ok=True)
    paths = [records_dir / name for name in names]
    taken = [p.name for p in paths if p.exists()]
    if taken:
        raise ArenaError(
            f"{records_dir} already holds {taken[0]}"
            + (f" and {len(taken) - 1} more" if len(taken) > 1 else "")
            + ": choose another directory or seed (records are never overwritten)"
        )
    return paths


def play_bot_match(rules: Rules, variant: str, seed: int, specs: Sequence[str],
                   bot_seeds: Sequence[int], *, think_ms: int, workers: int | None,
                   max_deals: int, samples: int | None = None
                   ) -> tuple[Match, list[list[float]]]:
    """Play a match between bots (one spec and seed per seat) to its end or ``max_deals``.

    Returns the match and each seat's decision times in milliseconds.
    """
    match = Match(rules, seed, variant=variant)
    bots = []
    decision_ms: list[list[float]] = [[] for _ in specs]
    try:
        for spec, bot_seed in zip(specs, bot_seeds, strict=True):
            bots.append(make_bot(spec, bot_seed, think_ms=think_ms, workers=workers,
                                 samples=samples))
        clock = time.perf_counter
        while not match.is_over and len(match.deals) <= max_deals:
            seat = match.state.to_play
            view = observe(match, seat)
            started = clock()
            move = bots[seat].choose(view)
            decision_ms[seat].append((clock() - started) * 1000)
            match.play(move)
    finally:
        for bot in bots:
            close_bot(bot)
    return match, decision_ms


def side_totals(match: Match) -> tuple[int, list[int], list[int]]:
    """(scored deals, points per side, basras per side) over a match's finished deals."""
    sides = match.rules.sides
    points = [0] * sides
    basras = [0] * sides
    deals = 0
    for deal in match.deals:
        if deal.score is not None:
            deals += 1
            for side in range(sides):
                points[side] += deal.score.total[side]
                basras[side] += deal.score.basras[side]
    return deals, points, basras


def play_arena_match(task: MatchTask) -> MatchOutcome:
    """Play one arena match to its end (or to ``max_deals``); runs in a worker process."""
    players = task.rules.players
    bot_seeds = [(task.seed * players + task.rotation) * players + seat
                 for seat in range(players)]
    match, decision_ms = play_bot_match(
        task.rules, task.variant, task.seed, task.bots, bot_seeds, think_ms=task.think_ms,
        workers=task.workers, max_deals=task.max_deals, samples=task.samples)
    deals, points, basras = side_totals(match)
    record = None
    if task.keep_record:
        record = dumps(match_record(match, [Player(b, "bot") for b in task.bots]))
    return MatchOutcome(
        task.seed, task.rotation, task.owners, match.winner, deals, tuple(points),
        tuple(basras), tuple(tuple(times) for times in decision_ms), record,
    )


@dataclass(frozen=True)
class ArenaResult:
    """The statistics of an arena, one entry per bot in the order they were given.

    A bot's side is the side of the seat it sat at; its points and basras are its side's.
    """

    bots: list[str]
    matches: int
    """Matches asked for."""
    matches_played: int
    """Seeds times rotations: ``matches`` rounded up to a multiple of the players."""
    seeds: int
    deals: int
    """Deals scored over all matches."""
    unfinished: int
    """Matches stopped undecided at ``max_deals`` (a loss for every bot)."""
    wins: list[int]
    win_rate: list[float]
    win_rate_ci95: list[tuple[float, float]]
    points_per_deal: list[float]
    basras_per_deal: list[float]
    median_ms: list[float]
    """Median time of one decision (a ``choose`` call), in milliseconds."""
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data (rates to 4 places, per-deal figures to 3)."""
        return {
            "bots": list(self.bots),
            "matches": self.matches,
            "matches_played": self.matches_played,
            "seeds": self.seeds,
            "deals": self.deals,
            "unfinished": self.unfinished,
            "wins": list(self.wins),
            "win_rate": [round(r, 4) for r in self.win_rate],
            "win_rate_ci95": [[round(lo, 4), round(hi, 4)] for lo, hi in self.win_rate_ci95],
            "points_per_deal": [round(p, 3) for p in self.points_per_deal],
            "basras_per_deal": [round(b, 3) for b in self.basras_per_deal],
            "median_ms": [round(m, 3) for m in self.median_ms],
            "seconds": round(self.seconds, 3),
        }


def _pool_context() -> Any:
    # Not fork: the caller may be running threads (a progress bar), and a forked child
    # could inherit one of their locks held.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


Runner = Callable[[list[MatchTask], Callable[[int, MatchOutcome], None]], None]
"""Plays arena tasks, calling ``done(index, outcome)`` as each ends, in any order (a pool
of processes here, or a Ray cluster: :mod:`basra.arena.raycluster`)."""


def play_tasks(tasks: list[MatchTask], jobs: int,
               done: Callable[[int, MatchOutcome], None]) -> None:
    """Play the tasks in this process (``jobs`` 1) or a pool of ``jobs`` processes."""
    if jobs == 1 or len(tasks) == 1:
        for index, task in enumerate(tasks):
            done(index, play_arena_match(task))
        return
    executor = ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=_pool_context())
    try:
        futures: dict[Future[MatchOutcome], int] = {
            executor.submit(play_arena_match, task): index for index, task in enumerate(tasks)
        }
        for future in as_completed(futures):
            done(futures[future], future.result())
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()


def run_arena(rules: Rules, variant: str, bots: Sequence[str], matches: int, seed: int = 0,
              *, jobs: int = 1, think_ms: int = 300, records_dir: Path | None = None,
              max_deals: int = 1000,
              progress: Callable[[], None] | None = None,
              runner: Runner | None = None, samples: int | None = None) -> ArenaResult:
    """Play a duplicate arena between ``bots`` and gather each bot's statistics.

    ``bots`` holds one bot spec per seat, or in partnerships one per side; ``matches`` is
    rounded up to a multiple of the players (every seed is played in every rotation).
    ``jobs`` worker processes play the matches (1: in this process); with more than one,
    a searching bot gets one worker process of its own. ``records_dir`` receives one
    record per match, :func:`record_name`, and no file there is ever overwritten.
    ``progress`` is called once as each match ends. ``runner`` plays the matches
    elsewhere (a Ray cluster) instead of ``jobs`` local processes; the results are the same.
    ``samples``: the master searches that many samples a move instead of ``think_ms``.
    """
    entries = _check_bots(rules, bots)
    if jobs < 1:
        raise ArenaError(f"jobs must be at least 1, not {jobs}")
    tasks = arena_tasks(rules, variant, entries, matches, seed, think_ms=think_ms,
                        workers=1 if jobs > 1 or runner else None, max_deals=max_deals,
                        keep_record=records_dir is not None, samples=samples)
    paths: list[Path] = []
    if records_dir is not None:
        paths = claim_record_paths(records_dir, [record_name(t.seed, t.rotation) for t in tasks])
    outcomes: list[MatchOutcome | None] = [None] * len(tasks)

    def done(index: int, outcome: MatchOutcome) -> None:
        outcomes[index] = outcome
        if outcome.record is not None:
            with paths[index].open("x", encoding="utf-8") as file:
                file.write(outcome.record)
        if progress is not None:
            progress()

    started = time.perf_counter()
    if runner is None:
        play_tasks(tasks, jobs, done)
    else:
        runner(tasks, done)
    seconds = time.perf_counter() - started
    finished = [o for o in outcomes if o is not None]
    return summarise(rules, entries, matches, finished, seconds)


def summarise(rules: Rules, entries: list[str], matches: int, outcomes: list[MatchOutcome],
               seconds: float) -> ArenaResult:
    n = len(entries)
    wins = [0] * n
    points = [0] * n
    basras = [0] * n
    times: list[list[float]] = [[] for _ in range(n)]
    deals = unfinished = 0
    for outcome in outcomes:
        deals += outcome.deals
        unfinished += outcome.winner is None
        side_of_entry = [0] * n
        for seat, owner in enumerate(outcome.owners):
            side_of_entry[owner] = rules.side_of[seat]
            times[owner].extend(outcome.decision_ms[seat])
        for entry, side in enumerate(side_of_entry):
            wins[entry] += outcome.winner == side
            points[entry] += outcome.points[side]
            basras[entry] += outcome.basras[side]
    played = len(outcomes)
    return ArenaResult(
        bots=entries,
        matches=matches,
        matches_played=played,
        seeds=played // rules.players,
        deals=deals,
        unfinished=unfinished,
        wins=wins,
        win_rate=[w / played for w in wins],
        win_rate_ci95=[wilson_interval(w, played) for w in wins],
        points_per_deal=[p / deals if deals else 0.0 for p in points],
        basras_per_deal=[b / deals if deals else 0.0 for b in basras],
        median_ms=[statistics.median(t) if t else 0.0 for t in times],
        seconds=seconds,
    )
