"""Idempotency keys of message writes, so a write replayed from the outbox is stored once.

A write can commit after its caller gave up on it (a deadline passed while it waited its turn on
the worker) and then be replayed; the key, recorded in the write's own transaction, makes the
replay a no-op. Keys older than `KEEP_DAYS` are pruned (replays happen within hours): at open,
and every `PRUNE_EVERY_S` by a keyed write, so a process that runs for months (a server, whose
clients send a key with every write) does not keep them all.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import timedelta

from zepkit.local.codec import encode_time, now
from zepkit.local.connection import try_write_lock

KEEP_DAYS = 7
PRUNE_EVERY_S = 600.0
"""How often, at most, a keyed write also deletes the keys past `KEEP_DAYS` (by an index: the
hour or so of keys that aged out since)."""

TABLE = (
    "CREATE TABLE IF NOT EXISTS write_keys ("
    " key TEXT PRIMARY KEY, created_at TEXT NOT NULL) WITHOUT ROWID"
)
INDEX = "CREATE INDEX IF NOT EXISTS write_keys_created ON write_keys (created_at)"
_next_prune = 0.0
"""When (monotonic seconds) a keyed write of this process next prunes."""


def prune(conn: sqlite3.Connection) -> None:
    """Forget keys past their use, unless another process holds the write lock right now (then
    a later open prunes): opening a file must not wait for the lock."""
    if not try_write_lock(conn):
        return
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'write_keys'").fetchone():
            _delete_old(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def claim(conn: sqlite3.Connection, key: str) -> bool:
    """Record `key` inside the caller's write transaction; False when it was already written.
    Every `PRUNE_EVERY_S` the same transaction also deletes the keys past their use."""
    global _next_prune
    conn.execute(TABLE)  # made with the first keyed write: no write at open
    conn.execute(INDEX)
    inserted = conn.execute(
        "INSERT INTO write_keys (key, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
        (key, encode_time(now())),
    ).rowcount
    if time.monotonic() >= _next_prune:
        _next_prune = time.monotonic() + PRUNE_EVERY_S
        _delete_old(conn)
    return inserted == 1


def _delete_old(conn: sqlite3.Connection) -> None:
    cutoff = encode_time(now() - timedelta(days=KEEP_DAYS))
    conn.execute("DELETE FROM write_keys WHERE created_at < ?", (cutoff,))
