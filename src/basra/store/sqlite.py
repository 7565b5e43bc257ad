"""SQLite's settings and its checkpointer: the write-ahead log is copied into the database
file by a thread of its own, so that the fsyncs of checkpoints never hold up the event
loop."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from typing import Any

__all__ = ["CHECKPOINT_EVERY", "Checkpointer", "reader_pragmas", "writer_pragmas"]

log = logging.getLogger("basra.store")

CHECKPOINT_EVERY = 1.0
"""Seconds between two checkpoints of a SQLite write-ahead log that has grown."""


def reader_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Write-ahead logging, commits that only append to the log, a patient busy wait."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def writer_pragmas(dbapi_connection: Any, record: Any) -> None:
    """:func:`reader_pragmas`, with checkpoints left to the :class:`Checkpointer` and
    no waiting while another process writes."""
    reader_pragmas(dbapi_connection, record)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer thread does it
    # Busy (another process writing): fail at once and let the writer retry without
    # holding up the event loop.
    cursor.execute("PRAGMA busy_timeout=100")
    cursor.close()


class Checkpointer:
    """Copies a SQLite write-ahead log into the database file, in a thread of its own,
    at most every CHECKPOINT_EVERY seconds while there are writes."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._wrote = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="basra-sqlite-checkpoint",
                                        daemon=True)
        self._thread.start()

    def wrote(self) -> None:
        """A transaction committed: checkpoint soon."""
        self._wrote.set()

    def stop(self) -> None:
        """A last checkpoint that empties the log, then the thread ends."""
        self._stopping.set()
        self._wrote.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        connection = sqlite3.connect(self._path, check_same_thread=False)
        try:
            connection.execute("PRAGMA busy_timeout=5000")
            while not self._stopping.is_set():
                self._wrote.wait()
                self._wrote.clear()
                if self._stopping.is_set():
                    break
                try:
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as error:  # a full disk: tried again after more writes
                    log.warning("could not checkpoint the database: %s", error)
                self._stopping.wait(CHECKPOINT_EVERY)
            with contextlib.suppress(sqlite3.Error):
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
