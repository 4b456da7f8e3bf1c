"""Opening the SQLite connection: the FTS5 check, pragmas and transaction helpers."""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from zepkit.core.errors import ConfigurationError

TOKENIZER = "porter unicode61 remove_diacritics 2"
BUSY_TIMEOUT_MS = 5000
CACHE_KIB = 32_768
PRIVATE_MODE = 0o600


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


def is_file_path(path: str | os.PathLike[str]) -> bool:
    """Whether `path` names a file on disk (not ":memory:", a temporary or a URI database)."""
    name = os.fspath(path)
    return name not in ("", ":memory:") and not name.startswith("file:")


def create_private(path: str | os.PathLike[str]) -> None:
    """Create `path` empty with owner-only permissions unless it exists (SQLite fills it, and
    gives the `-wal` and `-shm` files it creates beside it the same permissions)."""
    if is_file_path(path):
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_MODE))


def open_connection(
    path: str | os.PathLike[str],
    *,
    busy_timeout: float = BUSY_TIMEOUT_MS / 1000,
    read_only: bool = False,
    check: Callable[[sqlite3.Connection], None] | None = None,
) -> sqlite3.Connection:
    """A connection in autocommit mode (we issue BEGIN ourselves), WAL, usable from one worker.
    A new file is created private (0600); `read_only` opens an existing file without writing;
    `check` looks at the file before anything (the switch to WAL) writes to it."""
    if read_only:
        if not is_file_path(path) or not os.path.exists(path):
            raise sqlite3.OperationalError(f"no database file at {os.fspath(path)!r}")
        target = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    else:
        create_private(path)
        target = os.fspath(path)
    conn = sqlite3.connect(
        target,
        timeout=busy_timeout,
        isolation_level=None,
        check_same_thread=False,
        uri=read_only,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        if check is not None:
            check(conn)
        if not read_only:
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
