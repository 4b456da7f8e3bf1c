"""Opening the SQLite connection: the FTS5 check, pragmas and transaction helpers."""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

from zepkit.core.errors import ConfigurationError

TOKENIZER = "porter unicode61 remove_diacritics 2"
BUSY_TIMEOUT_MS = 5000
CACHE_KIB = 32_768


@functools.cache
def check_fts5() -> None:
    """Raise `ConfigurationError` unless this Python's sqlite3 has FTS5 and the tokenizer we use."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute(f"CREATE VIRTUAL TABLE temp.probe USING fts5(body, tokenize='{TOKENIZER}')")
    except sqlite3.OperationalError as exc:
        raise ConfigurationError(
            "zepkit's local engine needs SQLite with the FTS5 extension, and this Python's "
            f"sqlite3 (SQLite {sqlite3.sqlite_version}) lacks it or its tokenizer ({exc}). "
            "Use a Python built against a SQLite compiled with FTS5 (python.org builds and most "
            "Linux distributions' are), or use the Zep Cloud backend."
        ) from exc
    finally:
        probe.close()


def open_connection(
    path: str | os.PathLike[str], *, busy_timeout: float = BUSY_TIMEOUT_MS / 1000
) -> sqlite3.Connection:
    """A connection in autocommit mode (we issue BEGIN ourselves), WAL, usable from one worker."""
    conn = sqlite3.connect(
        path,
        timeout=busy_timeout,
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        _enable_wal(conn, busy_timeout)
        conn.execute("PRAGMA synchronous = NORMAL")  # in WAL, a commit survives a process crash
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        conn.execute("PRAGMA temp_store = MEMORY")
    except BaseException:
        conn.close()
        raise
    return conn


def _enable_wal(conn: sqlite3.Connection, busy_timeout: float) -> None:
    """Switch to WAL, retrying while another process converts a new file (no busy wait there)."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction; IMMEDIATE takes the write lock up front so it never upgrades."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def read_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One consistent snapshot for reads made of several queries."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
