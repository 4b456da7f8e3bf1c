"""Fixtures for the local engine's tests: real SQLite, in memory or in a temporary file."""

from __future__ import annotations

import os
import sqlite3
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import zepkit.local
from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend, schema


@pytest.fixture
async def backend() -> AsyncIterator[LocalBackend]:
    """A fresh in-memory backend."""
    memory = LocalBackend()
    yield memory
    await memory.aclose()


TOLD_FROM = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
"""When `told_monthly` tells its first message."""

EndTimes = dict[str, datetime | None]


@pytest.fixture
def told_monthly(backend: LocalBackend) -> Callable[..., Awaitable[EndTimes]]:
    """`tell(query, *said)`: user "ana" says each of `said` in one thread, a month after the one
    before (from `TOLD_FROM`); the end time of each fact a search for `query` finds, by its text
    (None: current)."""

    async def tell(query: str, *said: str) -> EndTimes:
        await backend.ensure_user(UserProfile("ana", first_name="Ana"))
        await backend.ensure_thread("t", "ana")
        for n, text in enumerate(said):
            when = TOLD_FROM + timedelta(days=30 * n)
            await backend.add_messages("t", [Message("user", text, created_at=when)])
        found = await backend.search(SearchRequest(query, user_id="ana", limit=10))
        return {fact.fact.split(": ", 1)[1]: fact.invalid_at for fact in found.edges}

    return tell


@pytest.fixture
async def alice(backend: LocalBackend) -> LocalBackend:
    """The in-memory backend with user "alice" (Alice Smith) owning threads "a1" and "a2"."""
    await backend.ensure_user(UserProfile("alice", first_name="Alice", last_name="Smith"))
    await backend.ensure_thread("a1", "alice")
    await backend.ensure_thread("a2", "alice")
    return backend


@pytest.fixture
async def lexical() -> AsyncIterator[LocalBackend]:
    """An in-memory backend searching by words only (no model to find meaning)."""
    memory = LocalBackend(retriever="lexical")
    yield memory
    await memory.aclose()


@pytest.fixture
async def lexical_alice() -> AsyncIterator[LocalBackend]:
    """Like `alice`, on a backend that searches lexically only, for exact BM25 expectations."""
    memory = LocalBackend(retriever="lexical")
    await memory.ensure_user(UserProfile("alice", first_name="Alice", last_name="Smith"))
    await memory.ensure_thread("a1", "alice")
    yield memory
    await memory.aclose()


class WordEmbedder:
    """Dogs on one dimension, cities on another, every other word hashed onto the rest: a
    deterministic embedder for dense tests ("dog" finds "puppy", "lisbon" finds "Lisbon.")."""

    model_id = "test-words"

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * 64
            for word in text.lower().replace(".", " ").split():
                slot = {"puppy": 0, "dog": 0, "lisbon": 1}.get(word, 2 + sum(map(ord, word)) % 62)
                vector[slot] += 3.0 if slot < 2 else 1.0
            out.append(vector)
        return out


@pytest.fixture
def words() -> type[WordEmbedder]:
    """`WordEmbedder`, for `embedder=words()`."""
    return WordEmbedder


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where a file-backed test database goes."""
    return tmp_path / "memory.sqlite"


@pytest.fixture
def child_env() -> dict[str, str]:
    """Environment for a child Python process that must import zepkit from this checkout."""
    source = Path(zepkit.local.__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture
def python() -> str:
    """The interpreter running the tests, for child processes."""
    return sys.executable


def _as_version_6(conn: sqlite3.Connection) -> None:
    """Rewrite a file of this schema as version 6 stored it: each message and statement with its
    own text and times, each graph-owned row with a stored uuid, no id marks."""
    for column in ("content", "created_at", "metadata"):
        conn.execute(
            f"UPDATE messages SET {column} = "
            f"(SELECT {column} FROM episodes AS e WHERE e.message = messages.id)"
        )
    conn.execute(
        "UPDATE statements SET (text, valid_at, created_at) = "
        "(SELECT text, valid_at, created_at FROM statement_rows AS r WHERE r.id = statements.id)"
    )
    for table in ("episodes", "statements", "entities"):
        rows = conn.execute(f"SELECT id FROM {table} WHERE uuid = ''").fetchall()
        conn.executemany(
            f"UPDATE {table} SET uuid = ? WHERE id = ?", [(str(uuid.uuid4()), i) for (i,) in rows]
        )
    for undo in (
        "ALTER TABLE entities DROP COLUMN own",
        "DROP INDEX statements_states_many",
        "DROP INDEX statements_states",
        "ALTER TABLE statements DROP COLUMN states",
        "DROP VIEW message_rows",
        "DROP VIEW statement_rows",
        "DROP TABLE id_marks",
        "DROP TABLE settings",
        "DROP TRIGGER statements_fts_insert",
        "DROP TRIGGER statements_fts_delete",
        "DROP TABLE statements_fts",
        "ALTER TABLE statements DROP COLUMN span_start",
        "ALTER TABLE statements DROP COLUMN span_chars",
        "ALTER TABLE episodes DROP COLUMN stored_at",
        *(step for step in schema.MIGRATIONS[0] if "statements_fts" in step),
        "INSERT INTO statements_fts (statements_fts) VALUES ('rebuild')",
    ):
        conn.execute(undo)
    conn.execute("PRAGMA user_version = 6")


@pytest.fixture
def as_version_6() -> Callable[[sqlite3.Connection], None]:
    """`as_version_6(conn)`: the file written as schema 6 (so a test can take it back further)."""
    return _as_version_6
