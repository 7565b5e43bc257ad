"""External bots: any program that speaks ``basra-bot/1``, JSON lines over stdin/stdout.

The program is started lazily at its first decision and told the rules once; then each
decision is one request line and one answer line (see ``docs/protocol.md``)::

    basra  -> bot   {"type": "hello", "protocol": "basra-bot/1", "seat": 1, "rules": {..}, ..}
    basra  -> bot   {"type": "move", "observation": {.., "legal_moves": ["7H", "9S:4C+5D"]}}
    bot    -> basra {"move": "9S:4C+5D"}
    basra  -> bot   {"type": "quit"}

The bot is never trusted: its answer is read against the observation's legal moves only.
A bot that crashes, hangs past ``timeout`` or answers garbage or an illegal move loses
that decision to the greedy bot, with one message through ``on_error``; a crashed or hung
program is restarted at its next decision, at most :data:`MAX_RESTARTS` times.

This module is not part of the rules core: it does I/O (subprocesses, a reader thread).
It imports only the standard library and the core.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import secrets
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import IO, Any

from basra.bots.base import UnknownBotError
from basra.bots.simple import GreedyBot
from basra.cards import card_name, cards_text
from basra.observe import Observation
from basra.state import (
    AmbiguousMoveError,
    IllegalMoveError,
    make_move,
    move_text,
    split_move_text,
)

__all__ = ["MAX_RESTARTS", "PROTOCOL", "ExternalBot", "read_move"]

PROTOCOL = "basra-bot/1"
"""The protocol name sent in the hello line."""

MAX_RESTARTS = 3
"""How many times a crashed or hung program is started again within one match."""

QUIT_GRACE = 1.0
"""Seconds a program has to exit after the quit line before it is killed."""


def read_move(text: str, legal_moves: Sequence[int]) -> int:
    """The legal move that a bot's move text names, judged against ``legal_moves`` only.

    Same grammar as :func:`basra.state.parse_move`: ``7H:4H+3C`` plays 7H and captures
    exactly those cards (in any order); ``7H:`` or ``7H:-`` lays 7H down, where that is
    legal. A bare ``7H`` lays it down where that is legal (always under
    ``optional_capture``), otherwise it means 7H's only capture, and is ambiguous when 7H
    can capture in several ways. See ``docs/protocol.md``, "Reading an answer".

    >>> legal = [make_move(25, 1 << 13 | 1 << 11), make_move(25, 1 << 24), make_move(32)]
    >>> move_text(read_move("7H:4H+3C", legal)), move_text(read_move("9s", legal))
    ('7H:3C+4H', '9S')
    >>> read_move("7H", legal)
    Traceback (most recent call last):
    ...
    basra.state.AmbiguousMoveError: 7H can capture in several ways: 7H:3C+4H, 7H:7S
    """
    card, captured, sep = split_move_text(text)
    choices = [m for m in legal_moves if m & 63 == card]
    if sep or card in choices:
        move = make_move(card, captured)
        if move in choices:
            return move
    elif len(choices) == 1:
        return choices[0]
    elif choices:
        listed = ", ".join(move_text(m) for m in choices)
        raise AmbiguousMoveError(f"{card_name(card)} can capture in several ways: {listed}")
    if not choices:
        reason = f"{card_name(card)} is not a card you can play"
    elif captured:
        reason = f"{card_name(card)} cannot capture {cards_text(captured)}"
    else:
        reason = f"{card_name(card)} must capture"
    listed = ", ".join(move_text(m) for m in legal_moves)
    raise IllegalMoveError(f"illegal move {move_text(make_move(card, captured))}: {reason} "
                           f"(legal: {listed})")


class _BotFailure(Exception):
    """One decision the program lost: ``restart`` when the program must be stopped."""

    def __init__(self, message: str, *, restart: bool, fatal: bool = False) -> None:
        super().__init__(message)
        self.restart = restart
        self.fatal = fatal
        """Starting it again cannot help (the command does not run at all)."""


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    """Copy a program's output lines into a queue, then ``None`` at the end of output."""
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)
        # Closed here, not by the bot's owner: closing a pipe that another thread is
        # reading would wait for that read to end.
        with contextlib.suppress(OSError):
            stream.close()


def _quote(text: str, limit: int = 80) -> str:
    text = text.rstrip("\r\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")


class ExternalBot:
    """A bot played by another program, speaking ``basra-bot/1`` on its stdin and stdout.

    ``command`` is split like a shell command line (``python my_bot.py --level 3``) and
    run without a shell. Its stderr is passed through to ours, so a bot author sees the
    bot's tracebacks and logs. ``timeout`` is the time in seconds for each answer.
    ``on_error`` gets one message for each decision the bot lost; by default it is
    printed to stderr.
    """

    def __init__(self, command: str, *, seed: int | None = None, timeout: float = 10.0,
                 on_error: Callable[[str], None] | None = None) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise UnknownBotError(f"bad bot command {command!r}: {error}") from None
        if not self.argv:
            raise UnknownBotError('cmd: needs a command, e.g. cmd:"python my_bot.py"')
        self.command = command
        self.name = "cmd:" + command
        self.timeout = timeout
        self.on_error = on_error if on_error is not None else _print_error
        self.restarts = 0
        """How many times the program was started again after a crash or a timeout."""
        self.given_up = False
        """Whether the fallback plays every remaining decision."""
        self._fallback = GreedyBot(seed)
        # The bot's own random seed. Deliberately independent of ``seed``: the callers
        # derive bot seeds from the match seed, and a bot that knew the match seed could
        # deal the match again and see every hand.
        self._bot_seed = secrets.randbits(32)
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._failed = False

    @property
    def pid(self) -> int | None:
        """The process id of the running program, if one is running."""
        return self._process.pid if self._process is not None else None

    def choose(self, observation: Observation) -> int:
        """The program's answer to the observation, or the greedy move when it fails."""
        if self.given_up:
            return self._fallback.choose(observation)
        try:
            if self._process is None:
                self._start(observation)
            return self._ask(observation)
        except _BotFailure as failure:
            move = self._fallback.choose(observation)
            message = f"bot {self.name}: {failure}; greedy fallback plays {move_text(move)}"
            if failure.restart:
                self._stop()
                self._failed = True
                if failure.fatal or self.restarts >= MAX_RESTARTS:
                    self.given_up = True
                    why = "" if failure.fatal else f" after {MAX_RESTARTS} restarts"
                    message += f"; giving up on the bot{why}: greedy plays for it from now on"
            self.on_error(message)
            return move

    def close(self) -> None:
        """Tell the program to quit, wait a moment, and kill it if it is still running."""
        process = self._process
        if process is None:
            return
        self._process = None
        if process.stdin is not None:
            with contextlib.suppress(OSError, ValueError):  # it may be gone already
                process.stdin.write(json.dumps({"type": "quit"}) + "\n")
                process.stdin.flush()
        _close_stdin(process)
        try:
            process.wait(QUIT_GRACE)
        except subprocess.TimeoutExpired:
            _kill(process)

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ExternalBot({self.command!r}, timeout={self.timeout!r})"

    # The program

    def _start(self, observation: Observation) -> None:
        if self._failed:
            self.restarts += 1
            self._failed = False
        try:
            process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                text=True, encoding="utf-8", errors="replace", bufsize=1,
                # Its own session: Ctrl-C at the terminal goes to basra, which then tells
                # the bot to quit, and a timeout kills the bot's own children too.
                start_new_session=os.name == "posix",
            )
        except OSError as error:
            raise _BotFailure(f"could not start {self.argv[0]!r}: {error.strerror or error}",
                              restart=True, fatal=True) from None
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        self._lines = queue.Queue()
        threading.Thread(target=_pump, args=(process.stdout, self._lines), daemon=True,
                         name=f"basra bot {process.pid}").start()
        self._send({
            "type": "hello", "protocol": PROTOCOL, "seat": observation.seat,
            "rules": observation.rules.to_dict(), "seed": self._bot_seed,
            "timeout": self.timeout,
        })

    def _send(self, message: dict[str, Any]) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
        except (OSError, ValueError):
            raise self._crash() from None

    def _ask(self, observation: Observation) -> int:
        # Lines the program wrote when nobody asked (a second answer, a stray print) would
        # answer the wrong question: drop them.
        while True:
            try:
                stray = self._lines.get_nowait()
            except queue.Empty:
                break
            if stray is None:
                raise self._crash()
        self._send({"type": "move", "observation": observation.to_dict()})
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise _BotFailure(f"no answer within {self.timeout:g} s (is it flushing its "
                              "output after each line?); stopped it", restart=True) from None
        if line is None:
            raise self._crash()
        try:
            answer = json.loads(line)
        except ValueError:
            what = "an empty line" if not line.strip() else f"{_quote(line)}, which is not JSON"
            raise _BotFailure(f"answered {what}", restart=False) from None
        if not isinstance(answer, dict) or "move" not in answer:
            raise _BotFailure(f'answered {_quote(line)}, which has no "move"', restart=False)
        text = answer["move"]
        if not isinstance(text, str):
            raise _BotFailure(f'answered {_quote(line)}: "move" must be a string such as '
                              '"7H" or "7H:3C+4D"', restart=False)
        try:
            return read_move(text, observation.legal_moves)
        except ValueError as error:
            raise _BotFailure(f"answered {_quote(text)}: {error}", restart=False) from None

    def _crash(self) -> _BotFailure:
        """What happened to a program whose pipes closed."""
        process = self._process
        assert process is not None
        try:
            code = process.wait(QUIT_GRACE)
        except subprocess.TimeoutExpired:
            return _BotFailure("closed its output", restart=True)
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return _BotFailure(f"was killed by {name}", restart=True)
        return _BotFailure(f"exited with code {code}", restart=True)

    def _stop(self) -> None:
        process = self._process
        if process is not None:
            self._process = None
            _kill(process)
            _close_stdin(process)


def _kill(process: subprocess.Popen[str]) -> None:
    """Kill a program (and, on POSIX, the children in its session) and reap it."""
    if process.returncode is None:
        try:
            if os.name == "posix":
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        except OSError:
            pass
    process.wait()


def _close_stdin(process: subprocess.Popen[str]) -> None:
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()


def _print_error(message: str) -> None:
    print(f"basra: {message}", file=sys.stderr, flush=True)

