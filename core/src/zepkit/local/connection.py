"""The local engine's SQLite needs: the FTS5 check and the transaction helpers."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from zepkit.core._errors import ConfigurationError
from zepkit.core._sqlite import BUSY_TIMEOUT_MS

TOKENIZER = "porter unicode61 remove_diacritics 2"


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


@contextmanager
def write_transaction(
    conn: sqlite3.Connection, *, locked: bool = False
) -> Iterator[sqlite3.Connection]:
    """One write transaction; IMMEDIATE takes the write lock up front so it never upgrades.
    `locked`: the caller began it already (`try_write_lock`); it is committed here all the same."""
    if not locked:
        conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def try_write_lock(conn: sqlite3.Connection) -> bool:
    """Begin a write transaction without waiting: False, with nothing begun, when another
    connection holds SQLite's write lock (where `BEGIN IMMEDIATE` would wait for it)."""
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return False
        raise
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return True


@contextmanager
def read_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One consistent snapshot for reads made of several queries."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


PASSING_CACHE_PAGES = 256
"""SQLite's page cache during a one-off pass over many rows (see `passing_read`)."""


@contextmanager
def passing_read(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run a pass over many rows that will not be read again (a graph's vectors into memory, a
    count) with a small page cache, then restore it: their pages would fill the cache (8 MB
    of resident memory) and push out the full-text index's pages that searches reuse."""
    (cache,) = conn.execute("PRAGMA cache_size").fetchone()
    conn.execute(f"PRAGMA cache_size = {PASSING_CACHE_PAGES}")
    try:
        yield conn
    finally:
        conn.execute(f"PRAGMA cache_size = {int(cache)}")
