"""The hub: every live table, its connections, its computer players, timers and storage.

All table changes happen on the event loop, each one synchronously from check to apply,
so two intents can never interleave. Every connection has an outbox that one task drains
into its socket, so each connection gets its messages in order.

After each change the hub sends every connection its view and plans the next event of the
table: a computer move after ``bot_delay`` seconds, or the end of the human seat's turn
timer. A human seat whose connections are all gone for ``away_after`` seconds is played by
the computer until its player comes back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from basra.bots import Bot, close_bot, make_bot
from basra.observe import Observation, observe
from basra.record import dumps
from basra.store import Store

from .messages import Intent, parse_intent
from .table import IntentError, Table, TableConfig, new_code, new_seed
from .views import shared_parts, state_message

__all__ = ["Connection", "Hub", "UnknownTableError"]

log = logging.getLogger("basra.server")

OUTBOX_LIMIT = 256
"""A connection this far behind is closed (it reconnects and gets the current state)."""


class UnknownTableError(KeyError):
    """No table has this code."""


@dataclass(eq=False)
class Connection:
    """One open socket at a table: a seat's or a watcher's."""

    table: Table
    seat: int | None
    outbox: asyncio.Queue[dict[str, Any] | str | None] = field(default_factory=asyncio.Queue)
    """Messages to send: dicts, or text already encoded (a state shared by a seat's sockets)."""

    def send(self, message: dict[str, Any] | str) -> None:
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.outbox.put_nowait(None)  # tells the socket's writer to close
            return
        self.outbox.put_nowait(message)


def _master_move(observation: Observation, think_ms: int) -> int:
    """A master decision, in a worker process."""
    bot = make_bot("master", think_ms=think_ms, workers=1)
    try:
        return bot.choose(observation)
    finally:
        close_bot(bot)


class Hub:
    """The live tables of one server."""

    def __init__(self, store: Store, *, bot_delay: float = 0.8, away_after: float = 30.0,
                 master_ms: int = 1000) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.away_after = away_after
        self.master_ms = master_ms
        self.tables: dict[str, Table] = {}
        self.connections: dict[str, set[Connection]] = {}
        self._next_event: dict[str, asyncio.TimerHandle] = {}
        self._away_timers: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._planned: dict[str, tuple[int, int, bool]] = {}
        """The turn (seq, seat, computer or not) each table's next event is for."""
        self._bots: dict[tuple[str, int, str], Bot] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._pool: ProcessPoolExecutor | None = None

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Load every stored table, rebuilt from its moves, and resume play."""
        for saved in await self.store.load_tables():
            try:
                table = Table(saved.code, TableConfig.from_dict(saved.config), saved.seed,
                              saved.match_number)
                for seat, (name, hashed) in saved.seats.items():
                    table.take_seat(seat, name, hashed)
                table.restore(saved.moves)
            except Exception:
                log.exception("table %s could not be restored; it is left out", saved.code)
                continue
            records = await self.store.list_records(limit=1000, code=saved.code)
            table.record_ids = sorted(r.id for r in records)
            finished = [r.id for r in records if r.match_number == table.match_number]
            table.last_record_id = finished[0] if finished else None
            self.tables[table.code] = table
            self.connections[table.code] = set()
            self._plan(table)

    async def stop(self) -> None:
        """Cancel timers, finish pending work and write everything to the store."""
        for handle in [*self._next_event.values(), *self._away_timers.values()]:
            handle.cancel()
        self._next_event.clear()
        self._away_timers.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for bot in self._bots.values():
            close_bot(bot)
        self._bots.clear()
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        await self.store.flush()

    def table(self, code: str) -> Table:
        table = self.tables.get(code)
        if table is None:
            raise UnknownTableError(code)
        return table

    # -- tables and seats ----------------------------------------------------------------

    def create_table(self, config: TableConfig, name: object = None
                     ) -> tuple[Table, int | None, str | None]:
        """A new table; the caller takes its first human seat, if it has one."""
        code = new_code()
        while code in self.tables:
            code = new_code()
        table = Table(code, config, new_seed())
        seat: int | None = None
        token: str | None = None
        if table.free_seats():
            seat, token = table.join(name)
        self.tables[code] = table
        self.connections[code] = set()
        self.store.create_table(code, config.to_dict(), table.seed)
        for taken, hashed in table.token_hashes.items():
            self.store.save_seat(code, taken, table.names[taken] or "", hashed)
        if table.ready():
            table.start()
        self._changed(table)
        return table, seat, token

    def join(self, code: str, name: object, seat: object = None) -> tuple[int, str]:
        """Take a human seat at a table: (seat, token)."""
        table = self.table(code)
        taken, token = table.join(name, seat)
        self.store.save_seat(code, taken, table.names[taken] or "", table.token_hashes[taken])
        if table.ready():
            table.start()
        self._changed(table)
        return taken, token

    # -- connections ---------------------------------------------------------------------

    def connect(self, table: Table, seat: int | None) -> Connection:
        """A new socket at a table; it is sent the current state at once."""
        connection = Connection(table, seat)
        self.connections[table.code].add(connection)
        if seat is None:
            connection.send(state_message(table, None))
            return connection
        table.connections[seat] += 1
        timer = self._away_timers.pop((table.code, seat), None)
        if timer is not None:
            timer.cancel()
        table.away.discard(seat)  # a returning player takes the seat back
        self._changed(table)
        return connection

    def disconnect(self, connection: Connection) -> None:
        table = connection.table
        self.connections[table.code].discard(connection)
        seat = connection.seat
        if seat is None:
            return
        table.connections[seat] -= 1
        self._changed(table)

    def _watch_absent(self, table: Table) -> None:
        """Start the away timer of every human seat with no connection in a running match
        (gone, or never come: a table must not wait forever for anyone)."""
        if table.status != "playing":
            return
        loop = asyncio.get_running_loop()
        for seat in range(table.rules.players):
            key = (table.code, seat)
            if (table.is_human(seat) and table.connections[seat] == 0
                    and seat not in table.away and key not in self._away_timers):
                self._away_timers[key] = loop.call_later(
                    self.away_after, self._gone_away, table, seat)

    def _gone_away(self, table: Table, seat: int) -> None:
        self._away_timers.pop((table.code, seat), None)
        if table.connections[seat] == 0 and table.status == "playing":
            table.away.add(seat)
            self._changed(table)

    def error(self, connection: Connection, code: str, message: str) -> None:
        connection.send({"type": "error", "code": code, "message": message,
                         "seq": connection.table.seq})

    async def receive(self, connection: Connection, text: str) -> None:
        """Handle one message from a socket: act on it, or answer an error to it alone."""
        try:
            intent = parse_intent(text)
            await self._act(connection, intent)
        except IntentError as refused:
            self.error(connection, refused.code, str(refused))
        except Exception:  # a bug must not take the table or the server down
            log.exception("message %r at table %s failed", text[:200], connection.table.code)
            self.error(connection, "server_error", "the server could not handle this message")

    async def _act(self, connection: Connection, intent: Intent) -> None:
        table = connection.table
        if intent.kind == "ping":
            connection.send({"type": "pong"})
            return
        seat = connection.seat
        if seat is None:
            raise IntentError("not_seated", f"watchers cannot send {intent.kind!r}")
        if intent.kind == "back":
            if seat in table.away:
                table.away.discard(seat)
                self._changed(table)
            else:
                connection.send(state_message(table, seat))
            return
        if intent.kind == "rematch":
            table.rematch(new_seed())
            self.store.start_match(table.code, table.match_number, table.seed)
            self._changed(table)
            return
        assert intent.seq is not None and intent.card is not None
        move = table.resolve_play(seat, intent.seq, intent.card, intent.captured)
        table.away.discard(seat)  # playing is coming back
        await self._commit(table, move)

    # -- play ----------------------------------------------------------------------------

    async def _commit(self, table: Table, move: int) -> None:
        index = table.seq
        table.apply(move)
        self.store.add_move(table.code, table.match_number, index, move)
        if table.status == "finished":
            record = table.record()
            number = table.match_number
            try:
                record_id = await self.store.save_record(table.code, number, record,
                                                         dumps(record))
            except Exception:
                log.exception("the record of table %s, match %d, could not be stored",
                              table.code, number)
            else:
                table.record_ids.append(record_id)
                if table.match_number == number:
                    table.last_record_id = record_id
        self._changed(table)

    def _changed(self, table: Table) -> None:
        """Plan the table's next event, then send every connection its view."""
        self._plan(table)
        connections = self.connections.get(table.code, ())
        if not connections:
            return
        shared = shared_parts(table)
        texts: dict[int | None, str] = {}
        for connection in connections:
            text = texts.get(connection.seat)
            if text is None:
                text = texts[connection.seat] = encode(
                    state_message(table, connection.seat, shared))
            connection.send(text)

    def _plan(self, table: Table) -> None:
        """Arm the table's next event, unless the same turn already has one (comings and
        goings must not restart a turn timer or delay a computer move)."""
        self._watch_absent(table)
        seat = table.to_play()
        seq = table.seq
        turn = None if seat is None else (seq, seat, table.computer_plays(seat))
        if turn is not None and table.code in self._next_event \
                and self._planned.get(table.code) == turn:
            return
        handle = self._next_event.pop(table.code, None)
        if handle is not None:
            handle.cancel()
        table.deadline_ms = None
        if seat is None or turn is None:
            return
        self._planned[table.code] = turn
        loop = asyncio.get_running_loop()
        if table.computer_plays(seat):
            match = table.match
            assert match is not None
            fresh_deal = not match.deals[-1].plays and len(match.deals) > 1
            delay = self.bot_delay * (3 if fresh_deal else 1)
            self._next_event[table.code] = loop.call_later(
                delay, self._spawn, lambda: self._computer_move(table, seat, seq))
        elif table.config.turn_seconds:
            seconds = table.config.turn_seconds
            table.deadline_ms = int((time.time() + seconds) * 1000)
            self._next_event[table.code] = loop.call_later(
                seconds, self._time_out, table, seat, seq)

    def _spawn(self, work: Callable[[], Any]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work())
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a table task failed", exc_info=task.exception())

    def _time_out(self, table: Table, seat: int, seq: int) -> None:
        self._next_event.pop(table.code, None)
        if table.seq == seq and table.to_play() == seat and not table.computer_plays(seat):
            table.away.add(seat)
            self._changed(table)

    async def _computer_move(self, table: Table, seat: int, seq: int) -> None:
        self._next_event.pop(table.code, None)
        if table.seq != seq or table.to_play() != seat or not table.computer_plays(seat):
            return
        match = table.match
        assert match is not None
        observation = observe(match, seat)
        level = table.level_for(seat)
        if level == "master":
            move = await asyncio.get_running_loop().run_in_executor(
                self._master_pool(), _master_move, observation, self.master_ms)
        else:
            move = self._bot(table.code, seat, level).choose(observation)
        if table.seq != seq or not table.computer_plays(seat):
            return  # the player came back and played meanwhile
        await self._commit(table, move)

    def _bot(self, code: str, seat: int, level: str) -> Bot:
        key = (code, seat, level)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = make_bot(level)
        return bot

    def _master_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("forkserver"))
        return self._pool


def encode(message: dict[str, Any]) -> str:
    """A message as the JSON text sent on the socket."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)
