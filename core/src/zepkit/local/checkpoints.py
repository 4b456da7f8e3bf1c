"""Copying the write-ahead log back into the file on a thread of its own, not in a commit.

SQLite checkpoints when a commit finds the log past `wal_autocheckpoint` pages (1,000 by
default): that commit, holding the write lock, copies the log's pages into the file and syncs it,
20-40 ms on a 2-core machine, about every 30 single-message adds. Here a thread with its own
connection does that copy (PASSIVE: it waits for no reader or writer, and none waits for it)
once the log holds `LOG_PAGES` not yet copied; the writer keeps SQLite's own check at
`BACKSTOP_PAGES` only, for when this thread cannot keep up. How many the log holds is read from
the wal-index header in the `-shm` file (SQLite's documented WAL format: the last frame, and how
many frames were copied): the log file itself never shrinks, SQLite writes it again from the start.
"""

from __future__ import annotations

import logging
import sqlite3
import struct
import threading
from collections.abc import Callable
from typing import TypeVar

LOG_PAGES = 1000
"""Log pages not yet in the file from which the thread copies them (SQLite's own default)."""
CATCH_UPS = 4
"""Checkpoints run again for the frames written during one: SQLite writes the log again from
its start only when a write begins with every frame copied, so a log never wholly copied
would grow without end (and every read would search a longer wal-index)."""
BACKSTOP_PAGES = 4000
"""The writer's `wal_autocheckpoint`: a commit checkpoints only past this (16 MB of 4 KB pages),
should the thread fall behind (bulk writes back to back) or stop."""

T = TypeVar("T")
log = logging.getLogger(__name__)


class Checkpointer:
    """The checkpoint thread of one writable file (started when the log first needs it)."""

    def __init__(self, path: str, writer: sqlite3.Connection) -> None:
        writer.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
        self._path = path
        self._index = path + "-shm"
        self._wake = threading.Event()
        self._lock = threading.Lock()
        """Held by a checkpoint, and by work that must not run beside one (`paused`)."""
        self._starting = threading.Lock()
        """Taken to start or stop the thread: the loop's thread and the extraction worker's may
        both write and find it not started."""
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.checkpoints = 0
        """Checkpoints this thread has run."""

    def nudge(self) -> None:
        """After a write: wake the thread when the log holds `LOG_PAGES` not yet copied (a read
        of the wal-index header, a few microseconds; the thread sleeps otherwise)."""
        if self._stopped or pending_frames(self._index) < LOG_PAGES:
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
                    for _ in range(CATCH_UPS + 1):
                        # read to its end: a statement left open would hold a read of the log
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                        self.checkpoints += 1
                        if pending_frames(self._index) == 0:
                            break
        except Exception as exc:  # never into the app: the writer's own backstop remains
            log.warning("zepkit: checkpoints of %s stopped: %s", self._path, exc)
        finally:
            if conn is not None:
                conn.close()


_LAST_FRAME = 16
"""Offset of `mxFrame` (the log's last valid frame) in the wal-index header."""
_BACKFILLED = 96
"""Offset of `nBackfill` (frames already copied into the file) in the checkpoint info."""


def pending_frames(index: str) -> int:
    """Frames of the log not yet copied into the file, from its wal-index (`-shm`, in the
    machine's byte order); 0 when there is none."""
    try:
        with open(index, "rb") as file:
            header = file.read(_BACKFILLED + 4)
    except OSError:
        return 0
    if len(header) < _BACKFILLED + 4:
        return 0
    (last,) = struct.unpack_from("=I", header, _LAST_FRAME)
    (copied,) = struct.unpack_from("=I", header, _BACKFILLED)
    return max(int(last) - int(copied), 0)
