"""Vectors for episodes stored without one: before the extra `embeddings` was installed, or
under another embedder's model. Until they have one, dense search cannot see them (lexical can).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

_MISSING = (
    "FROM episodes AS e LEFT JOIN episode_vectors AS v ON v.episode = e.id AND v.model = ? "
    "WHERE v.episode IS NULL"
)


def count_missing(conn: sqlite3.Connection, model: str) -> int:
    """How many episodes have no vector of `model`."""
    row = conn.execute(f"SELECT count(*) {_MISSING}", (model,)).fetchone()
    return int(row[0])


def missing(conn: sqlite3.Connection, model: str, after: int, limit: int) -> list[tuple[int, str]]:
    """Up to `limit` episodes with ids above `after` and no vector of `model`, in id order:
    (row id, content). Paging by id keeps a whole backfill one pass over the table."""
    return conn.execute(
        f"SELECT e.id, e.content {_MISSING} AND e.id > ? ORDER BY e.id LIMIT ?",
        (model, after, limit),
    ).fetchall()


def still_stored(conn: sqlite3.Connection, episodes: Sequence[int]) -> list[int]:
    """The episodes of `episodes` that exist (one may be deleted while its vector is made)."""
    marks = ", ".join("?" * len(episodes))
    found = {
        row[0] for row in conn.execute(f"SELECT id FROM episodes WHERE id IN ({marks})", episodes)
    }
    return [episode for episode in episodes if episode in found]
