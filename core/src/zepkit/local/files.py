"""The memory file itself: created private, checked when opened, never mistaken for another's.

Memory holds what users said, so a new file (and the `-wal` / `-shm` files SQLite derives from
it, which take its permissions) is readable by its owner only. A file that cannot serve (corrupt,
read-only where writes are needed, another application's database) fails when it is opened, with
a sentence saying why, instead of on some later turn.
"""

from __future__ import annotations

import os
import sqlite3

from zepkit.core._errors import BackendError
from zepkit.local.connection import read_transaction
from zepkit.local.schema import READABLE_FROM, SCHEMA_VERSION, schema_version

_OURS = frozenset({"users", "threads", "messages"})


def check_file(
    conn: sqlite3.Connection, *, path: str | os.PathLike[str], writable: bool, verify: bool
) -> None:
    """Raise `BackendError` unless the open file is a sound zepkit memory database (or a new
    one) that can be written when `writable`."""
    name = os.fspath(path)
    if verify:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise BackendError(
                f"the local database {name!r} is corrupt ({'; '.join(problems)[:300]}); "
                "restore it from a backup or move it aside to start a new one"
            )
    with read_transaction(conn):  # one snapshot: another process may be creating the schema
        version = schema_version(conn)
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
    if (version == 0 and tables) or (version > 0 and not tables >= _OURS):
        raise BackendError(
            f"{name!r} is an SQLite database of another application, not a zepkit memory "
            "database; zepkit will not read or write it"
        )
    if not writable:
        if version > SCHEMA_VERSION:
            raise BackendError(
                f"{name!r} has schema version {version}, newer than the {SCHEMA_VERSION} this "
                "zepkit understands; upgrade zepkit to open it"
            )
        if version == 0:
            raise BackendError(f"{name!r} is not a zepkit memory database (it is empty)")
        if version < READABLE_FROM:
            raise BackendError(
                f"{name!r} has schema version {version}, older than {READABLE_FROM}; open it "
                "once for writing (any zepkit call) to upgrade it"
            )
        return
    # A write that is rolled back: fails now on a read-only file, not on a later turn. While
    # another process holds the write lock the file is plainly writable: no waiting for it.
    (timeout,) = conn.execute("PRAGMA busy_timeout").fetchone()
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"PRAGMA user_version = {version}")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return
        if "readonly" not in str(exc) and "read-only" not in str(exc):
            raise
        raise BackendError(
            f"the local database {name!r} is read-only ({exc}); zepkit needs to write to it "
            "(and to create files beside it)"
        ) from exc
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
