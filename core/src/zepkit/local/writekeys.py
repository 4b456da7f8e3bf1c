"""Idempotency keys of message writes, so a write replayed from the outbox is stored once.

A write can commit after its caller gave up on it (a deadline passed while it waited its turn on
the worker) and then be replayed; the key, recorded in the write's own transaction, makes the
replay a no-op. Keys older than `KEEP_DAYS` are pruned: replays happen within hours.
"""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from zepkit.core._sqlite import BUSY_TIMEOUT_MS
from zepkit.local.codec import encode_time, now

KEEP_DAYS = 7

TABLE = (
    "CREATE TABLE IF NOT EXISTS write_keys ("
    " key TEXT PRIMARY KEY, created_at TEXT NOT NULL) WITHOUT ROWID"
)


def prune(conn: sqlite3.Connection) -> None:
    """Forget keys past their use, unless another process holds the write lock right now (then
    a later open prunes): opening a file must not wait for the lock."""
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return
        raise
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'write_keys'").fetchone():
            cutoff = encode_time(now() - timedelta(days=KEEP_DAYS))
            conn.execute("DELETE FROM write_keys WHERE created_at < ?", (cutoff,))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def claim(conn: sqlite3.Connection, key: str) -> bool:
    """Record `key` inside the caller's write transaction; False when it was already written."""
    conn.execute(TABLE)  # made with the first keyed write: no write at open
    inserted = conn.execute(
        "INSERT INTO write_keys (key, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
        (key, encode_time(now())),
    ).rowcount
    return inserted == 1
