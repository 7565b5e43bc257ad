"""Play at the tables this server owns: intents, commits, timers and the computer.

**Nothing is confirmed before it is stored.** A play or a rematch is written to the
database and committed (``basra.store``) before the table changes in memory and before
anyone is sent the new state. One table's intents are handled one at a time (a lock per
table); the store commits many tables' changes together. When storage fails, tables
stop taking plays and every connection is told (``paused`` in the state) until writes
commit again.

After every change the table's next event is planned: the computer's move (after
``bot_delay``), or the turn timer of a person; a seat with no socket in a running match
is marked away after ``away_after`` seconds, and the computer plays for it. The computer
plays only at tables that someone is connected to.

**Conduct in rated play** (:mod:`basra.players.conduct`): a human seat of a rated match
marked away (gone, or out of time) before its first play of its own aborts the match
(unrated for everyone); after it, it forfeits (its side ranks last). Either counts as an
abandon of its account (``store.conduct``), and enough of them flag the account for
moderators. Who made each move is stored with the move and the forfeits with the table,
so a table loaded again knows both. A rated rematch starts only when every human seat
has asked for it while every one is connected; results between the same two accounts
past ``same_pair_limit`` a day are unrated and flagged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import AbstractAsyncContextManager, contextmanager, nullcontext
from typing import Any

from basra.observe import observe
from basra.players.conduct import ranks_with_forfeits
from basra.players.ratings import computer_key
from basra.record import dumps
from basra.store import FencedError, RatedMatch, StorageError, Store, StoreHealth, user_key

from .chat import TableChat
from .computer import ComputerPlayers
from .connections import Connection, encode
from .errors import IntentError, LeaveError, TableMovedError
from .messages import Intent
from .settings import HubSettings
from .sockets import Sockets
from .table import Table, new_seed
from .views import state_message

__all__ = ["RESUME_NOTICE_SECONDS", "TablePlay"]

log = logging.getLogger("basra.server")

RESUME_NOTICE_SECONDS = 5.0
"""A computer move that waited this long for someone to come to the table is announced as
play resuming."""
PAUSES_KEPT = 10_000
"""Tables whose pause (nobody connected) is remembered, at most (the oldest go first)."""


class TablePlay:
    """Intents, commits, timers and the computer at this server's tables.

    ``tables`` and ``epochs`` are the server's own tables and the owner epoch each was
    claimed at (kept by the table lifecycle, read here)."""

    def __init__(self, store: Store, settings: HubSettings, sockets: Sockets,
                 tables: Mapping[str, Table], epochs: Mapping[str, int]) -> None:
        self.store = store
        self.settings = settings
        self.sockets = sockets
        self.tables = tables
        self.epochs = epochs
        self.computer = ComputerPlayers(settings.master_ms, settings.master_workers)
        self.locks: dict[str, asyncio.Lock] = {}
        """One lock per table: its intents are handled one at a time."""
        self.lost: Callable[[Table], None] = lambda table: None
        """Called when a write finds the table taken over by another server."""
        self.games: Callable[[Table, str], None] = lambda table, what: None
        """Told when a table's match starts (``start``) or ends (``finish``): the Bot API
        tells its bot accounts (``bot_api.py``)."""
        self._next_event: dict[str, asyncio.TimerHandle] = {}
        self._away_timers: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._planned: dict[str, tuple[int, int, bool]] = {}
        """The turn (seq, seat, computer or not) each table's next event is for."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self.chat = TableChat(store, sockets)
        self._unattended: dict[str, float] = {}
        """Since when (monotonic) each table's computer move waits for someone to come
        (kept while the table is out of memory, so that a return is told)."""

    # -- tables coming and going -------------------------------------------------------

    def add_table(self, table: Table) -> None:
        """A table came into memory."""
        self.locks[table.code] = asyncio.Lock()

    def remove_table(self, table: Table) -> None:
        """A table left memory: its timers stop."""
        code = table.code
        self.locks.pop(code, None)
        self.chat.forget(code)
        self._planned.pop(code, None)
        handle = self._next_event.pop(code, None)
        if handle is not None:
            handle.cancel()
        for seat in range(table.rules.players):
            timer = self._away_timers.pop((code, seat), None)
            if timer is not None:
                timer.cancel()
        self.computer.forget(code)

    async def stop(self) -> None:
        """Cancel timers and pending work; what is confirmed is already stored."""
        for handle in [*self._next_event.values(), *self._away_timers.values()]:
            handle.cancel()
        self._next_event.clear()
        self._away_timers.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def close(self) -> None:
        """Stop the computer players' workers."""
        self.computer.close()

    # -- tasks -------------------------------------------------------------------------

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Keep a background task until it ends (its failure is logged)."""
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run work in the background (kept until it ends)."""
        self.keep(asyncio.ensure_future(work))

    def _spawn_later(self, work: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        self.spawn(work())

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a table task failed", exc_info=task.exception())

    def busy(self, code: str) -> bool:
        """Whether an intent or a computer move is being handled at the table now."""
        lock = self.locks.get(code)
        return lock is not None and lock.locked()

    def settled(self, code: str) -> AbstractAsyncContextManager[Any]:
        """Entered once no intent nor computer move is being handled at the table (its
        lock: they wait for it meanwhile)."""
        lock = self.locks.get(code)
        return lock if lock is not None else nullcontext()

    # -- intents -----------------------------------------------------------------------

    async def act(self, connection: Connection, intent: Intent) -> None:
        """Act on an intent of a socket at a table this server owns (its own socket, or
        a relaying server's stand-in for one)."""
        table = connection.table
        assert isinstance(table, Table)
        if intent.kind == "ping":
            connection.send({"type": "pong"})
            return
        if intent.kind == "chat":
            await self.chat.say(connection, intent)
            return
        seat = connection.seat
        if seat is None:
            raise IntentError("not_seated", f"watchers cannot send {intent.kind!r}")
        if intent.kind == "chat_consent":
            if not table.is_human(seat):
                raise IntentError("not_seated", "only a player's seat agrees to the chat")
            if intent.allow:
                table.chat_consent.add(seat)
            else:
                table.chat_consent.discard(seat)
            self.changed(table)
            return
        if intent.kind == "back":
            if seat in table.resigned:
                raise LeaveError("resigned", "you resigned this match: the computer plays "
                                 "your seat to its end")
            if seat in table.away:
                table.away.discard(seat)
                self.changed(table)
            else:
                connection.send(state_message(table, seat))
            return
        if not self.store.health.ok:
            raise IntentError("storage_down", "the server cannot save plays right now (its "
                              "storage is failing); play resumes when it works again")
        if self.tables.get(table.code) is not table:
            raise TableMovedError()
        async with self.locks[table.code]:
            if self.tables.get(table.code) is not table:
                raise TableMovedError()  # handed or taken over while this waited its turn
            if intent.kind == "resign":
                await self._resign(table, seat)
            elif intent.kind == "abort":
                await self._abort(table, seat)
            elif intent.kind == "rematch" and table.config.tournament is not None:
                raise IntentError("tournament_game", "a tournament game has no rematch: "
                                  "the tournament pairs your next game")
            elif intent.kind == "rematch" and table.config.rated:
                await self._rated_rematch(table, seat)
            elif intent.kind == "rematch":
                await self._rematch(table)
            else:
                assert intent.seq is not None and intent.card is not None
                move = table.resolve_play(seat, intent.seq, intent.card, intent.captured)
                await self._commit(table, move, mover=seat)
                table.away.discard(seat)  # playing is coming back
        self.changed(table)

    # -- commits -----------------------------------------------------------------------

    @contextmanager
    def _saved_or_refused(self, table: Table, moved: str, failed: str) -> Iterator[None]:
        """Around a write of the table's: a table another server has taken is let go and
        the intent refused with ``moved``; a write the store refused, with ``failed`` and
        why (``server_error`` both times, and nothing changed)."""
        try:
            yield
        except FencedError:
            self.lost(table)
            raise IntentError("server_error", moved) from None
        except StorageError as error:
            raise IntentError("server_error", f"{failed}: {error}") from None

    async def _commit(self, table: Table, move: int, mover: int | None = None) -> None:
        """Store a legal move, then play it (call with the table's lock held); ``mover``
        is the human seat that played it itself, if one did."""
        with self._saved_or_refused(table, "the table moved to another server, so the play "
                                    "was not made: send it again",
                                    "the play could not be saved, so it was not made"):
            await self.store.tables.add_move(table.code, table.match_number, table.seq, move,
                                             epoch=self.epochs.get(table.code), by_seat=mover)
        table.apply(move, mover)
        if table.status == "finished":
            await self.save_record(table, mover=mover)

    async def save_record(self, table: Table, announce: bool = False,
                          mover: int | None = None) -> None:
        """Store the finished match's record, with the human seats the computer was
        playing for at the end (but ``mover``, who made the last play itself); with
        ``announce``, send the table's connections the state that names it."""
        number = table.match_number
        record = table.record()
        finished_for = sorted(seat for seat in table.away if seat != mover)
        if table.last_record_id is None:
            await self._limit_pairs(table)  # (once: a record saved again was counted)
        rated = self._rated_match(table)
        try:
            record_id = await self.store.records.save(table.code, number, record,
                                                      dumps(record), finished_for, rated)
        except StorageError:
            log.exception("the record of table %s, match %d, could not be stored; it "
                          "is written when the table is loaded again", table.code, number)
            return
        changes = None
        if rated is not None:
            try:
                changes = await self.store.ratings.changes(record_id)
            except Exception:
                log.exception("the rating changes of record %d could not be read", record_id)
        if record_id not in table.record_ids:
            table.record_ids.append(record_id)
            self.games(table, "finish")
        if table.match_number == number:
            table.last_record_id = record_id
            if changes is not None:
                table.rating_changes = [change.to_dict() for change in changes]
                for change in changes:
                    table.ratings[change.seat] = change.after
            if announce:
                self.changed(table)

    @staticmethod
    def _rated_match(table: Table) -> RatedMatch | None:
        """What rates a rated table's finished match: every human seat counts for its
        account (also when the computer finished the match for it, but a side that
        forfeited ranks below every side that stayed), every computer seat plays at its
        level's fixed rating. None at a casual table, for an unrated match (aborted, or
        past the same-pair limit), or when a human seat has no account."""
        match = table.match
        if (not table.config.rated or match is None or match.winner is None
                or table.unrated is not None):
            return None
        players: list[str] = []
        for seat in range(table.rules.players):
            account = table.accounts[seat]
            if table.is_human(seat):
                if account is None:
                    log.warning("rated table %s has no account at seat %d: not rated",
                                table.code, seat)
                    return None
                players.append(user_key(account[0]))
            else:
                players.append(computer_key(table.level_for(seat)))
        ranks = ranks_with_forfeits(list(match.totals), match.winner, table.forfeited_sides())
        return RatedMatch(table.config.pool, tuple(players), tuple(table.rules.side_of),
                          tuple(ranks))

    async def _rematch(self, table: Table) -> None:
        if table.match is None or table.status != "finished":
            raise IntentError("not_over", "the match is not over yet")
        seed = new_seed()
        with self._saved_or_refused(table, "the table moved to another server: ask again",
                                    "the rematch could not be saved"):
            await self.store.tables.start_match(table.code, table.match_number + 1, seed,
                                                epoch=self.epochs.get(table.code))
        table.rematch(seed)
        self.games(table, "start")

    async def _rated_rematch(self, table: Table, seat: int) -> None:
        """A rematch at a rated table: the seat's ask is kept; the rematch starts when
        every human seat has asked while every one is connected. A seat with no
        connection means a player has left: the asker is sent back to seeking."""
        if table.match is None or table.status != "finished":
            raise IntentError("not_over", "the match is not over yet")
        gone = [s for s in table.human_seats() if table.connections[s] == 0]
        if gone:
            raise IntentError("seek_again", "a player has left this rated table: a rated "
                              "rematch needs every player here, so seek a new game")
        table.rematch_asks.add(seat)
        if all(s in table.rematch_asks for s in table.human_seats()):
            await self._rematch(table)
            await self.rated_start(table)

    # -- resigning and aborting --------------------------------------------------------

    async def _save_conduct(self, table: Table, conduct: dict[str, Any]) -> None:
        """Store a table's conduct before it changes; raises :class:`IntentError`
        (``server_error``) when it cannot be stored, and nothing changes."""
        with self._saved_or_refused(table, "the table moved to another server: send it again",
                                    "it could not be saved, so nothing changed"):
            await self.store.conduct.save_table(table.code, conduct,
                                                epoch=self.epochs.get(table.code))

    async def _resign(self, table: Table, seat: int) -> None:
        """A seat resigns (call with the table's lock held): stored, then made; a match
        it ends is recorded (and rated)."""
        await self._save_conduct(table, table.check_resign(seat))
        table.resign(seat)
        self.sockets.broadcast(table, encode({
            "type": "notice", "code": "resigned", "seat": seat,
            "message": "a player resigned: the computer plays their seat on"
                       if table.status == "playing" else "a player resigned: the match is over"}))
        if table.status == "finished":
            await self.save_record(table)

    async def _abort(self, table: Table, seat: int) -> None:
        """A seat aborts the match before its first play (call with the table's lock
        held): stored, then made; at a rated table it is an abandon."""
        await self._save_conduct(table, table.check_abort(seat))
        table.abort(seat)
        self.spawn(self.store.tables.set_status(table.code, "finished"))
        self.games(table, "finish")
        self.sockets.broadcast(table, encode({
            "type": "notice", "code": "aborted", "seat": seat,
            "message": "a player aborted the match before their first play: it is over"}))
        if table.config.rated:
            self.spawn(self._abandoned(table, "abort", [seat], table.match_number))

    # -- conduct in rated play ---------------------------------------------------------

    async def rated_start(self, table: Table) -> None:
        """A rated table's match started: past the same-pair limit it is unrated (told
        in the state, stored, and flagged for moderators)."""
        try:
            await self._limit_pairs(table)
        except Exception:
            log.exception("the same-pair limit of table %s could not be checked", table.code)

    async def _limit_pairs(self, table: Table) -> None:
        """Make the current match unrated when two of its accounts had
        ``same_pair_limit`` rated results together in its pool lately (and flag it)."""
        limit = self.settings.same_pair_limit
        if not table.config.rated or table.unrated is not None or limit <= 0:
            return
        accounts = sorted({account[0] for seat, account in enumerate(table.accounts)
                           if account is not None and table.is_human(seat)})
        since = int((time.time() - self.settings.conduct_window) * 1000)
        for index, first in enumerate(accounts):
            for second in accounts[index + 1:]:
                results = await self.store.conduct.pair_results(first, second,
                                                                table.config.pool, since)
                if results < limit:
                    continue
                table.unrated = "same_pair"
                await self._store_conduct(table)
                await self.store.flags.raise_flag(
                    "same_pair", first, second, table_code=table.code,
                    details={"pool": table.config.pool, "results": results,
                             "limit": limit, "match": table.match_number})
                return

    def _left(self, table: Table, seat: int) -> None:
        """A human seat was marked away (gone, or out of time): in a rated match it
        aborts or forfeits (:meth:`Table.leave`); everyone is told, and it is stored."""
        kind = table.leave(seat)
        if kind is None:
            return
        culprits = [seat]
        if kind == "abort":  # every other seat that never played nor is here is gone too
            culprits += [s for s in table.human_seats() if s != seat
                         and s not in table.played and table.connections[s] == 0]
        self.sockets.broadcast(table, encode({
            "type": "notice", "code": f"conduct_{'aborted' if kind == 'abort' else 'forfeit'}",
            "seat": seat,
            "message": ("a player left before their first play: this match is not rated"
                        if kind == "abort" else "a player left: they forfeit this match")}))
        self.spawn(self._abandoned(table, kind, culprits, table.match_number))

    async def _store_conduct(self, table: Table) -> None:
        try:
            await self.store.conduct.save_table(table.code, table.conduct(),
                                                epoch=self.epochs.get(table.code))
        except FencedError:
            self.lost(table)
        except StorageError:
            log.exception("the conduct of table %s could not be stored", table.code)

    async def _abandoned(self, table: Table, kind: str, culprits: list[int],
                         number: int) -> None:
        """Store an abort or forfeit: the table's conduct, and an abandon for the account
        of each seat that caused it (an account reaching ``abandon_flag_at`` abandons
        is flagged)."""
        await self._store_conduct(table)
        since = int((time.time() - self.settings.conduct_window) * 1000)
        for seat in culprits:
            account = table.accounts[seat]
            if account is None:
                continue
            try:
                await self.store.conduct.record_abandon(
                    account[0], kind if seat == culprits[0] else "abort", table.code,
                    number, since, flag_at=self.settings.abandon_flag_at)
            except StorageError:
                log.exception("the abandon of account %d could not be stored", account[0])

    def storage_changed(self, health: StoreHealth) -> None:
        """Storage failed or came back: tell every table; resume play when it is back."""
        paused = None if health.ok else "storage"
        for table in list(self.tables.values()):
            table.paused = paused
            if health.ok:
                self._planned.pop(table.code, None)  # fresh timers for everyone
            self.changed(table)

    # -- what happens next -------------------------------------------------------------

    def changed(self, table: Table) -> None:
        """Something about the table changed: plan its next event, then send every
        connection its view (and every relaying server the views of the seats it
        serves)."""
        if table.rematch_asks:  # an ask holds only while its player is here
            table.rematch_asks = {s for s in table.rematch_asks if table.connections[s] > 0}
        self.plan(table)
        self.sockets.send_views(table, self.epochs.get(table.code, 0))

    def seat_came(self, table: Table, seat: int) -> None:
        """A socket for a seat opened (here or at a relaying server)."""
        self.sockets.recount(table)
        timer = self._away_timers.pop((table.code, seat), None)
        if timer is not None:
            timer.cancel()
        if seat not in table.resigned:
            table.away.discard(seat)  # a returning player takes the seat back
        self.changed(table)

    def plan(self, table: Table) -> None:
        """Arm the table's next event, unless the same turn already has one (comings and
        goings must not restart a turn timer or delay a computer move). Nothing is armed
        at a table nobody is connected to (but a tournament's, which plays on: its turn
        timer runs and its computers play), or while storage fails."""
        self._watch_absent(table)
        seat = table.to_play()
        seq = table.seq
        attended = ((self.sockets.attended(table.code) or table.plays_unattended)
                    and table.paused is None)
        self._note_pause(table, seat, attended)
        turn = None if seat is None or not attended else (seq, seat, table.computer_plays(seat))
        if turn is not None and table.code in self._next_event \
                and self._planned.get(table.code) == turn:
            return
        handle = self._next_event.pop(table.code, None)
        if handle is not None:
            handle.cancel()
        self._planned.pop(table.code, None)
        table.deadline_ms = None
        if seat is None or turn is None:
            return
        self._planned[table.code] = turn
        loop = asyncio.get_running_loop()
        if table.computer_plays(seat):
            match = table.match
            assert match is not None
            fresh_deal = not match.deals[-1].plays and len(match.deals) > 1
            delay = self.settings.bot_delay * (3 if fresh_deal else 1)
            self._next_event[table.code] = loop.call_later(
                delay, self._spawn_later, lambda: self._computer_move(table, seat, seq))
        elif table.config.turn_seconds:
            seconds = table.config.turn_seconds
            table.deadline_ms = int((time.time() + seconds) * 1000)
            self._next_event[table.code] = loop.call_later(
                seconds, self._time_out, table, seat, seq)

    def _note_pause(self, table: Table, seat: int | None, attended: bool) -> None:
        """Note when a computer move starts waiting for someone to come to the table, and
        tell the table when play resumes after a long wait."""
        code = table.code
        if seat is None or not table.computer_plays(seat) or table.paused is not None:
            self._unattended.pop(code, None)
            return
        if not attended:
            if code not in self._unattended:
                if len(self._unattended) >= PAUSES_KEPT:
                    self._unattended.pop(next(iter(self._unattended)))
                self._unattended[code] = time.monotonic()
            return
        since = self._unattended.pop(code, None)
        if since is not None and time.monotonic() - since >= RESUME_NOTICE_SECONDS:
            seconds = int(time.monotonic() - since)
            self.sockets.broadcast(table, encode({
                "type": "notice", "code": "play_resumed", "seat": seat,
                "params": {"seconds": seconds},
                "message": f"play resumes: it waited {seconds} s for someone to come"}))

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
                    self.settings.away_after, self._gone_away, table, seat)

    def _gone_away(self, table: Table, seat: int) -> None:
        self._away_timers.pop((table.code, seat), None)
        if (self.tables.get(table.code) is table and table.connections[seat] == 0
                and table.status == "playing"):
            table.away.add(seat)
            self._left(table, seat)
            self.changed(table)

    def _time_out(self, table: Table, seat: int, seq: int) -> None:
        self._next_event.pop(table.code, None)
        if table.seq == seq and table.to_play() == seat and not table.computer_plays(seat):
            table.away.add(seat)
            self._left(table, seat)
            self.changed(table)

    async def _computer_move(self, table: Table, seat: int, seq: int) -> None:
        self._next_event.pop(table.code, None)
        self._planned.pop(table.code, None)

        def still_its_turn() -> bool:
            return (self.tables.get(table.code) is table and table.seq == seq
                    and table.to_play() == seat and table.computer_plays(seat)
                    and table.paused is None and self.store.health.ok)

        if not still_its_turn():
            return
        match = table.match
        assert match is not None
        choice = await self.computer.choose(table.code, table.level_for(seat),
                                            observe(match, seat))
        lock = self.locks.get(table.code)
        if lock is None:
            return  # the table left memory meanwhile
        async with lock:
            if not still_its_turn():
                return  # the player came back and played meanwhile, or storage failed
            try:
                await self._commit(table, choice.move)
            except IntentError:
                log.error("the computer's move at table %s could not be saved", table.code)
                return
        if choice.note is not None:
            self.sockets.broadcast(table, encode({
                "type": "notice", "code": choice.note, "seat": seat,
                "message": "the master is busy: the expert played this move"}))
        self.changed(table)
