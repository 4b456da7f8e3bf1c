"""Copying the write-ahead log back into the file on a thread of its own, not in a commit.

SQLite checkpoints when a commit finds the log past `wal_autocheckpoint` pages (1,000 by
default): that commit, holding the write lock, copies the log's pages into the file and syncs it,
20-40 ms on a 2-core machine, about every 30 single-message adds. Here a thread with its own
connection does that copy (PASSIVE: it waits for no reader or writer, and none waits for it),
about every `LOG_PAGES` pages written; the writer keeps SQLite's own check at `BACKSTOP_PAGES`
only, for when this thread cannot keep up.

The thread learns the log's size only from SQLite: each checkpoint reports how many frames the
log held. The backend counts its calls, and the thread is woken every so many of them: as many
as wrote about `LOG_PAGES` frames at the pace the last checkpoint found. (Nothing else reads the
log or its index: a second descriptor of a file SQLite has open would, once closed, drop every
POSIX lock the process holds on that file, SQLite's own included.)
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from typing import TypeVar

LOG_PAGES = 1000
"""Log pages the thread lets gather before it copies them (SQLite's own default)."""
FIRST_CALLS = 16
"""Calls before the first checkpoint, whose report sets the pace."""
MAX_CALLS = 64
"""The most calls between two checkpoints, however few pages they wrote (reads write none): a
burst of writes after a quiet spell is checkpointed before the writer's backstop."""
CATCH_UPS = 4
"""Checkpoints run again for the frames written during one: SQLite writes the log again from
its start only when a write begins with every frame copied, so a log never wholly copied
would grow without end (and every read would search a longer wal-index)."""
BACKSTOP_PAGES = 4000
"""The writer's `wal_autocheckpoint`: a commit checkpoints only past this (16 MB of 4 KB pages),
should the thread fall behind (bulk writes back to back) or stop."""

T = TypeVar("T")
log = logging.getLogger(__name__)


def calls_for(frames: int, calls: int) -> int:
    """Calls until the next checkpoint, when `calls` calls wrote `frames` log frames: as many as
    write about `LOG_PAGES` at that pace, from 1 to `MAX_CALLS`."""
    if frames <= 0:
        return MAX_CALLS
    return max(1, min(MAX_CALLS, LOG_PAGES * max(calls, 1) // frames))


class Checkpointer:
    """The checkpoint thread of one writable file (started when the log first needs it)."""

    def __init__(self, path: str, writer: sqlite3.Connection) -> None:
        writer.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
        self._path = path
        self._wake = threading.Event()
        self._lock = threading.Lock()
        """Held by a checkpoint, and by work that must not run beside one (`paused`)."""
        self._starting = threading.Lock()
        """Taken to start or stop the thread: the loop's thread and the extraction worker's may
        both call and find it not started."""
        self._counting = threading.Lock()
        self._calls = 0
        self._every = FIRST_CALLS
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.checkpoints = 0
        """Checkpoints this thread has run."""

    def nudge(self) -> None:
        """After an engine call: wake the thread once the calls since its last checkpoint are
        as many as its pace asks (a counter otherwise; the thread sleeps)."""
        with self._counting:
            self._calls += 1
            if self._stopped or self._calls < self._every:
                return
        if self._thread is None:
            with self._starting:
                if self._thread is None and not self._stopped:
                    thread = threading.Thread(
                        target=self._run, name="zepkit-checkpoint", daemon=True
                    )
                    thread.start()
                    self._thread = thread
        self._wake.set()

    def paused(self, work: Callable[[], T]) -> T:
        """Run `work` with no checkpoint of this thread's beside it (a vacuum, which empties
        the log itself and would find it busy)."""
        with self._lock:
            return work()

    def close(self) -> None:
        """Stop the thread (after the checkpoint it may be running) and close its connection."""
        with self._starting:
            self._stopped = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopped:
                    return
                with self._lock:
                    if self._stopped:
                        return
                    if conn is None:
                        conn = sqlite3.connect(
                            self._path, isolation_level=None, check_same_thread=False
                        )
                    self._checkpoint(conn)
        except Exception as exc:  # never into the app: the writer's own backstop remains
            log.warning("zepkit: checkpoints of %s stopped: %s", self._path, exc)
        finally:
            if conn is not None:
                conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        """Copy the log into the file, again while frames written meanwhile remain, and set the
        pace from the frames the first copy found."""
        with self._counting:
            calls, self._calls = self._calls, 0
        for attempt in range(CATCH_UPS + 1):
            # read to its end: a statement left open would hold a read of the log
            busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.checkpoints += 1
            if attempt == 0:
                with self._counting:
                    self._every = calls_for(frames, calls)
            if busy or frames <= copied:
                return
