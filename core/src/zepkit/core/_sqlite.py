"""Opening a SQLite file the way zepkit's durable stores want it: WAL, private, autocommit.

Shared by the local engine and the Zep backend's durable id map, so neither imports the other.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable

BUSY_TIMEOUT_MS = 5000
CACHE_KIB = 8_192  # a memory file's hot pages; more bought no speed at 100k messages, only memory
PRIVATE_MODE = 0o600


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
