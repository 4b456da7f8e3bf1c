"""The outbox: a local SQLite spool for writes the backend could not take (an outage, a timeout,
a rate limit), kept in order with their idempotency keys until they are replayed.

A write is acknowledged once it is committed here (WAL, `synchronous=FULL`), so it survives a crash
or a restart. The file is created, private (0600), only when the first write is kept. When
`max_items` writes wait, a new one is refused with `OutboxFullError` (and logged as lost): the
writes already kept stay in order rather than being dropped from the middle of a conversation.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from os import PathLike, fspath
from typing import Any

from zepkit.core._errors import BackendError, ConfigurationError

DEFAULT_MAX_ITEMS = 10_000
"""Writes an outbox holds before it refuses new ones (a write is at most 30 messages)."""

_VERSION = 1
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS outbox ("
    " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " kind TEXT NOT NULL,"
    " target TEXT NOT NULL,"
    " key TEXT NOT NULL UNIQUE,"
    " payload TEXT NOT NULL,"
    " created_at TEXT NOT NULL,"
    " attempts INTEGER NOT NULL DEFAULT 0,"
    " failed INTEGER NOT NULL DEFAULT 0,"
    " last_error TEXT)"
)


class OutboxFullError(BackendError):
    """The outbox holds its maximum of writes; the write that met it is lost."""


@dataclass(frozen=True)
class OutboxItem:
    """One kept write: `kind` "messages" or "data", for `target` (a thread, user or graph)."""

    seq: int
    kind: str
    target: str
    key: str
    payload: dict[str, Any]
    created_at: datetime
    attempts: int
    failed: bool
    last_error: str | None


@dataclass(frozen=True)
class OutboxStatus:
    """What waits in an outbox: `pending` writes to replay, `failed` ones the backend refused for
    good (kept for inspection and `replay --failed`), the oldest one's time."""

    path: str
    pending: int
    failed: int
    oldest: datetime | None
    max_items: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "pending": self.pending,
            "failed": self.failed,
            "oldest": self.oldest.isoformat() if self.oldest else None,
            "max_items": self.max_items,
        }


class Outbox:
    """A spool file of writes waiting for the backend. Methods block on disk: call them from a
    worker thread (`asyncio.to_thread`) on the event loop. Safe across threads and processes."""

    def __init__(self, path: str | PathLike[str], *, max_items: int = DEFAULT_MAX_ITEMS) -> None:
        self.path = fspath(path)
        if self.path in ("", ":memory:"):
            raise ValueError("an outbox needs a file path: it must outlive the process")
        if isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 1:
            raise ValueError(f"max_items must be a positive integer, got {max_items!r}")
        self.max_items = max_items
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._targets: Counter[str] = Counter()
        if os.path.exists(self.path):
            with self._lock:
                self._load_targets(self._connect())

    # -- connection ---------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        with contextlib.suppress(FileExistsError):  # created private, before SQLite opens it
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout = 10000")
            self._check(conn)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")  # acknowledged means on disk
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(_SCHEMA)
            conn.execute(f"PRAGMA user_version = {_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _check(self, conn: sqlite3.Connection) -> None:
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if tables - {"outbox", "sqlite_sequence"} or version > _VERSION:
            raise ConfigurationError(
                f"{self.path!r} is not a zepkit outbox (another application's database, or a "
                "newer zepkit's); give the outbox a file of its own"
            )

    def _load_targets(self, conn: sqlite3.Connection) -> None:
        rows = conn.execute("SELECT target, count(*) FROM outbox WHERE failed = 0 GROUP BY target")
        self._targets = Counter({target: count for target, count in rows})

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- writing ------------------------------------------------------------------------------

    def put(self, kind: str, target: str, key: str, payload: dict[str, Any]) -> None:
        """Keep one write (committed to disk when this returns); `OutboxFullError` when full."""
        body = json.dumps(payload, ensure_ascii=False)
        with self._lock:
            conn = self._connect()
            conn.execute("BEGIN IMMEDIATE")
            try:
                (count,) = conn.execute("SELECT count(*) FROM outbox WHERE failed = 0").fetchone()
                if count >= self.max_items:
                    raise OutboxFullError(
                        f"the outbox {self.path!r} holds its maximum of {self.max_items} writes; "
                        "this write is lost (raise max_items, or replay: zepkit outbox replay)"
                    )
                added = conn.execute(
                    "INSERT INTO outbox (kind, target, key, payload, created_at)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                    (kind, target, key, body, datetime.now(UTC).isoformat()),
                ).rowcount
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            if added:
                self._targets[target] += 1

    def remove(self, item: OutboxItem) -> None:
        """Forget a write that was delivered."""
        with self._lock:
            self._connect().execute("DELETE FROM outbox WHERE seq = ?", (item.seq,))
            self._forget_target(item)

    def discard(self, match: Callable[[OutboxItem], bool]) -> int:
        """Drop every kept write (waiting or set aside) that `match` picks; how many. For writes
        that must never arrive, such as those of a user being deleted."""
        if not os.path.exists(self.path):
            return 0
        with self._lock:
            conn = self._connect()
            conn.execute("BEGIN IMMEDIATE")
            try:
                rows = conn.execute(
                    "SELECT seq, kind, target, key, payload, created_at, attempts, failed,"
                    " last_error FROM outbox"
                ).fetchall()
                doomed = [(item.seq,) for item in map(_item, rows) if match(item)]
                conn.executemany("DELETE FROM outbox WHERE seq = ?", doomed)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            self._load_targets(conn)
            return len(doomed)

    def record_failure(self, item: OutboxItem, error: str, *, permanent: bool) -> None:
        """Count a failed delivery; a permanent one is set aside (not replayed automatically)."""
        with self._lock:
            self._connect().execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ?, failed = ?"
                " WHERE seq = ?",
                (error[:500], int(permanent), item.seq),
            )
            if permanent:
                self._forget_target(item)

    def retry_failed(self) -> int:
        """Put writes set aside as failed back in line; how many."""
        if not os.path.exists(self.path):
            return 0
        with self._lock:
            conn = self._connect()
            count = conn.execute("UPDATE outbox SET failed = 0 WHERE failed = 1").rowcount
            self._load_targets(conn)
            return int(count)

    def _forget_target(self, item: OutboxItem) -> None:
        if not item.failed:
            self._targets[item.target] -= 1
            if self._targets[item.target] <= 0:
                del self._targets[item.target]

    # -- reading ------------------------------------------------------------------------------

    def has_pending(self, target: str | None = None) -> bool:
        """Whether writes wait (for `target`, or at all). In memory: no disk access."""
        return bool(self._targets.get(target)) if target is not None else bool(self._targets)

    def refresh(self) -> None:
        """Read which targets have writes waiting again (another process may have added some)."""
        if os.path.exists(self.path):
            with self._lock:
                self._load_targets(self._connect())

    def pending(self, limit: int = 100) -> list[OutboxItem]:
        """The oldest `limit` writes waiting, in the order they were kept."""
        if not os.path.exists(self.path):
            return []
        with self._lock:
            rows = self._connect().execute(
                "SELECT seq, kind, target, key, payload, created_at, attempts, failed, last_error"
                " FROM outbox WHERE failed = 0 ORDER BY seq LIMIT ?",
                (limit,),
            )
            return [_item(row) for row in rows]

    def status(self) -> OutboxStatus:
        if not os.path.exists(self.path):
            return OutboxStatus(self.path, 0, 0, None, self.max_items)
        with self._lock:
            pending, failed, oldest = (
                self._connect()
                .execute(
                    "SELECT count(*) FILTER (WHERE failed = 0), count(*) FILTER (WHERE failed = 1),"
                    " min(created_at) FILTER (WHERE failed = 0) FROM outbox"
                )
                .fetchone()
            )
        return OutboxStatus(
            self.path,
            pending,
            failed,
            datetime.fromisoformat(oldest) if oldest else None,
            self.max_items,
        )


def _item(row: tuple[Any, ...]) -> OutboxItem:
    seq, kind, target, key, payload, created_at, attempts, failed, last_error = row
    return OutboxItem(
        seq=seq,
        kind=kind,
        target=target,
        key=key,
        payload=json.loads(payload),
        created_at=datetime.fromisoformat(created_at),
        attempts=attempts,
        failed=bool(failed),
        last_error=last_error,
    )
