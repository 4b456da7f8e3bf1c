"""Reading the vectors of the users who wrote last while the memory file opens.

A hybrid backend's first search of a user reads that user's vectors (100k of them take 100-200
ms, and a large graph's sign words for the coarse scan are made too). A backend opening an
existing file starts that reading at once on a thread of its own, with a read-only connection of
its own, for the users whose messages are the latest, as many as fit the index's cache budget:
it runs beside the open's integrity check and the model's load. A search of a user being read
waits for that read; a search of a user not read yet reads it itself (the warm-up then skips
it). A matrix handed over is checked against the file like any cached one (rows written since
are read on top), so a warm-up never changes a result.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

M = TypeVar("M")
RECENT_MESSAGES = 4096
"""How many of the latest messages name the users to read ahead (the most recent first)."""
ROW_BYTES = 400
"""Bytes a row of a 384-wide matrix takes in memory, to fit the reading to the budget."""

logger = logging.getLogger("zepkit.local")


def recent_graphs(conn: sqlite3.Connection, limit: int = RECENT_MESSAGES) -> list[int]:
    """The user graphs of the latest `limit` messages, the most recently written first."""
    rows = conn.execute(
        "SELECT u.graph FROM (SELECT thread FROM messages ORDER BY id DESC LIMIT ?) AS m "
        "JOIN threads AS t ON t.id = m.thread JOIN users AS u ON u.id = t.user",
        (limit,),
    ).fetchall()
    return list(dict.fromkeys(graph for (graph,) in rows))


class Warmup(Generic[M]):
    """Matrices read on a thread of their own, each handed over once with `take`.

    `read(conn, graph, stop)` reads one graph's matrix (None when `stop` was set meanwhile);
    `rows(conn, graph)` says how many rows it holds; `connect()` opens the thread's connection;
    `budget`: bytes of matrices to read at most; `then(conn)` runs on the thread after the
    reads, unless stopped.
    """

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection],
        read: Callable[[sqlite3.Connection, int, threading.Event], M | None],
        rows: Callable[[sqlite3.Connection, int], int],
        budget: int,
        then: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        self._connect = connect
        self._then = then
        self._read = read
        self._rows = rows
        self._budget = budget
        self._stop = threading.Event()
        self._planned = threading.Event()
        self._done: dict[int, threading.Event] = {}
        self._ready: dict[int, M] = {}
        self._skip: set[int] = set()
        """Graphs a search read itself before the warm-up came to them."""
        self._reading: int | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="zepkit-vectors-warm", daemon=True)
        self._thread.start()

    def take(self, graph: int) -> M | None:
        """The graph's matrix if the warm-up has read it or is reading it (waiting for the
        read), else None (and the warm-up will not read it)."""
        self._planned.wait()
        with self._lock:
            done = self._done.get(graph)
            if done is None or (graph != self._reading and not done.is_set()):
                self._skip.add(graph)
                return None
        done.wait()
        with self._lock:
            return self._ready.pop(graph, None)

    def stop(self) -> None:
        """Stop reading (a read under way ends at its next chunk), wait for the thread, and let
        the matrices not taken go."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
        with self._lock:
            self._ready.clear()

    def _run(self) -> None:
        try:
            conn = self._connect()
        except (sqlite3.Error, OSError) as exc:  # no file yet, or not one we can read
            logger.debug("zepkit.local: no vectors read ahead: %s", exc)
            self._finish()
            return
        try:
            current = self._read_planned(conn)
            self._finish()  # waiters go on while `then` runs
            if current and self._then is not None and not self._stop.is_set():
                self._then(conn)
        except sqlite3.Error as exc:  # another application's file, an old schema, corrupt
            logger.debug("zepkit.local: vectors read ahead stopped: %s", exc)
        finally:
            conn.close()
            self._finish()

    def _read_planned(self, conn: sqlite3.Connection) -> bool:
        """Read the plan's matrices; False when the file's schema is not current (the open
        migrates it meanwhile: nothing is read ahead)."""
        from zepkit.local.schema import SCHEMA_VERSION, schema_version  # schema imports vectors

        if schema_version(conn) != SCHEMA_VERSION:
            return False
        plan: list[int] = []
        held = 0
        for graph in recent_graphs(conn):
            rows = self._rows(conn, graph)
            if rows == 0:
                continue
            if held + rows * ROW_BYTES > self._budget:
                break
            held += rows * ROW_BYTES
            plan.append(graph)
        self._done = {graph: threading.Event() for graph in plan}
        self._planned.set()
        for graph in plan:
            with self._lock:
                if self._stop.is_set():
                    return True
                if graph in self._skip:
                    continue
                self._reading = graph
            matrix = self._read(conn, graph, self._stop)
            with self._lock:
                if matrix is not None and not self._stop.is_set():
                    self._ready[graph] = matrix
                self._reading = None
                self._done[graph].set()
        return True

    def _finish(self) -> None:
        """Release every waiter: what was not read is read by the search that wants it."""
        self._planned.set()
        for done in self._done.values():
            done.set()
