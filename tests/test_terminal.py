"""``basra`` on a real terminal (a pseudo-terminal) and piped: colours, suit symbols, names,
line widths, and how the game stops (``quit``, end of input, Ctrl-C)."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from basra.record import loads, replay

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminals only")

ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
RED_CARD = re.compile(r"\x1b\[31m(?:[2-9AJQK]|10)[♥♦]\x1b\[0m")
BLACK_CARD = re.compile(r"(?<![\dAJQK])(?:[2-9AJQK]|10)[♠♣]")


def _environment(**extra: str) -> dict[str, str]:
    """This environment without what overrides Rich's own terminal detection."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TTY_COMPATIBLE",
                          "TTY_INTERACTIVE", "PYTHONWARNINGS")}
    env["TERM"] = "xterm-256color"
    env.update(extra)
    return env


class Terminal:
    """``basra ARGS`` on a pseudo-terminal of its own: the terminal is its controlling
    terminal, so Ctrl-C typed there interrupts its whole process group, as in a shell."""

    def __init__(self, *args: str, columns: int = 120) -> None:
        self.fd, child = os.openpty()
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "basra", *args], stdin=child, stdout=child, stderr=child,
            env=_environment(), start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(child)
        self.output = b""
        self.closed = False

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: every process holding the terminal has gone
            chunk = b""
        if chunk:
            self.output += chunk
        else:
            self.closed = True

    def expect(self, text: str, count: int = 1, timeout: float = 30) -> None:
        """Read until ``text`` has appeared ``count`` times in all."""
        deadline = time.monotonic() + timeout
        while self.text.count(text) < count and not self.closed:
            if time.monotonic() > deadline:
                break
            self._read(0.1)
        assert self.text.count(text) >= count, f"waited for {text!r} in:\n{self.plain}"

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def finish(self, timeout: float = 30) -> int:
        """Read to the end (worker processes included) and give the exit code."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            self._read(0.1)
        code = self.process.wait(timeout=max(1.0, deadline - time.monotonic()))
        os.close(self.fd)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace").replace("\r\n", "\n")

    @property
    def plain(self) -> str:
        """What the terminal shows, without colours and cursor codes."""
        return ESCAPE.sub("", self.text)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    yield started
    for terminal in started:
        terminal.kill()


def _play(terminals: list[Terminal], *args: str, columns: int = 120) -> Terminal:
    terminal = Terminal("play", *args, columns=columns)
    terminals.append(terminal)
    return terminal


def test_play_shows_suit_symbols_in_colour_named_opponents_and_80_columns(
        tmp_path: Path, terminals: list[Terminal]) -> None:
    path = tmp_path / "quit.json"
    # Four sides (no partnerships) and a long name: the widest score lines there are.
    terminal = _play(terminals, "-v", "classic", "-p", "4", "--opponents",
                     "greedy,random,expert", "--name", "Scheherazade Al-Basri", "--seed", "3",
                     "--record", str(path), columns=120)
    for turn in range(1, 4):
        terminal.expect("Your play", turn)
        terminal.type("1\n")
    terminal.expect("Your play", 4)
    terminal.type("quit\n")
    assert terminal.finish() == 0
    shown = terminal.plain
    assert RED_CARD.search(terminal.text), "hearts and diamonds in red"
    assert BLACK_CARD.search(shown), "spades and clubs with their symbols"
    assert not re.search(r"\x1b\[[0-9;]*m(?:[2-9AJQK]|10)[♠♣]", terminal.text), \
        "spades and clubs in the default colour"
    assert not re.search(r"\b(?:[2-9AJQK]|10)[SHDC]\b", shown), "no card codes"
    for label in ("Layla (greedy)", "Nadia (random)", "Sami (expert)"):
        assert label in shown
    assert "Seat 1" not in shown and "seat 1" not in shown, shown
    lines = shown.splitlines()
    scores = [line for line in lines if line.startswith("Scores:")]
    assert len(scores) == 4 and "Scheherazad… 0 · Layla 0 · Nadia 0 · Sami 0" in scores[0]
    too_wide = [line for line in lines if len(line) > 80 and not line.startswith("Saved")]
    assert not too_wide, "every line fits 80 columns on a wider terminal"
    assert "Traceback" not in shown
    assert "Saved the unfinished record" in shown
    record = loads(path.read_text(encoding="utf-8"))
    assert "result" not in record
    assert [p["name"] for p in record["players"]] == [
        "Scheherazade Al-Basri", "greedy", "random", "expert"]
    assert not replay(record).is_over


def test_end_of_input_on_a_terminal_saves_and_exits_0(
        tmp_path: Path, terminals: list[Terminal]) -> None:
    path = tmp_path / "eof.json"
    terminal = _play(terminals, "--seed", "5", "--record", str(path))
    terminal.expect("Your play")
    terminal.type("\x04")  # Ctrl-D at the start of a line: end of input
    assert terminal.finish() == 0
    assert "Saved the unfinished record" in terminal.plain
    assert "Traceback" not in terminal.plain
    assert not replay(loads(path.read_text(encoding="utf-8"))).is_over


@pytest.mark.parametrize("when", ["at the prompt", "while the master thinks"])
@pytest.mark.slow
def test_ctrl_c_against_the_master_exits_130_without_a_traceback(
        tmp_path: Path, terminals: list[Terminal], when: str) -> None:
    path = tmp_path / "interrupted.json"
    terminal = _play(terminals, "-p", "3", "--opponents", "master", "--think-ms", "200",
                     "--seed", "4", "--record", str(path))
    terminal.expect("Your play")
    terminal.type("1\n")  # the two masters search on their worker processes
    terminal.expect("Your play", 2)
    if when == "while the master thinks":
        terminal.type("1\n")
        terminal.expect("You play", 2)
        time.sleep(0.1)  # within the first master's 200 ms
    else:
        # As a person would: a Ctrl-C in the microseconds between the prompt and the
        # read of the line is seen only when the line is read (so is Python's own REPL).
        time.sleep(0.3)
    terminal.type("\x03")  # Ctrl-C: SIGINT to every process of the game, workers too
    assert terminal.finish() == 130
    shown = terminal.plain
    assert "Traceback" not in shown
    assert "KeyboardInterrupt" not in shown
    assert "Match stopped before the end." in shown
    assert "Saved the unfinished record" in shown
    record = loads(path.read_text(encoding="utf-8"))
    assert "result" not in record
    assert not replay(record).is_over


def _piped(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, env=_environment())


def test_piped_play_has_symbols_and_no_escape_codes(tmp_path: Path) -> None:
    result = _piped("play", "--seed", "4", "-p", "3", "--record", str(tmp_path / "p.json"),
                    stdin="1\n2\nquit\n")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout + result.stderr
    assert "Layla (greedy)" in result.stdout and "Nadia (greedy)" in result.stdout
    assert BLACK_CARD.search(result.stdout) and re.search(r"(?:[2-9AJQK]|10)[♥♦]", result.stdout)
    # The answers read from the pipe are shown after their prompts.
    assert "Your play (number or card, ? for help): 1\n" in result.stdout


@pytest.mark.parametrize(
    ("args", "title"),
    [
        (["variants", "iraqi"], "iraqi: Egyptian play with 5-point basras and a 6-point 10♦"),
        (["variants"], "Variants (basra variants NAME shows every option)"),
    ],
)
def test_piped_tables_keep_their_titles_on_one_line(args: list[str], title: str) -> None:
    result = _piped(*args)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert result.stdout.splitlines()[0] == title
