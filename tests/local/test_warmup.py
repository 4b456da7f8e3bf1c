"""Vectors read ahead at open: the latest users first, within the budget, never a stale result."""

from __future__ import annotations

import functools
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from zepkit.core import Message
from zepkit.core.spi import SearchRequest, UserProfile
from zepkit.local import LocalBackend, vectors, warmup

np = pytest.importorskip("numpy")


async def three_users(path: Path, words: Any) -> list[int]:
    """A file where users u1, u2 and u3 wrote in that order; their graphs, u1's first."""
    backend = LocalBackend(path, retriever="hybrid", embedder=words())
    try:
        for name in ("u1", "u2", "u3"):
            await backend.ensure_user(UserProfile(name))
            await backend.ensure_thread(f"{name}-t", name)
            said = [Message("user", f"Note {n} from {name} about taxes.") for n in range(5)]
            await backend.add_messages(f"{name}-t", said)
    finally:
        await backend.aclose()
    conn = sqlite3.connect(path)
    graphs = [
        conn.execute("SELECT graph FROM users WHERE user_id = ?", (name,)).fetchone()[0]
        for name in ("u1", "u2", "u3")
    ]
    conn.close()
    return graphs


def rows(conn: sqlite3.Connection, graph: int) -> int:
    """The graph's stored vectors of the words embedder."""
    return vectors.VectorIndex("test-words").stats(conn, graph)[0]


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)


async def test_the_users_who_wrote_last_are_read_first_within_the_budget(
    db_path: Path, words: Any
) -> None:
    graphs = await three_users(db_path, words)
    conn = connect(db_path)
    assert warmup.recent_graphs(conn) == graphs[::-1]
    assert vectors.VectorIndex("test-words").stats(conn, graphs[0]) == (5, 0)
    conn.close()

    read: list[int] = []

    def record(conn: sqlite3.Connection, graph: int, stop: threading.Event) -> str:
        read.append(graph)
        return f"matrix of {graph}"

    everything = warmup.Warmup(lambda: connect(db_path), record, rows, budget=10**6)
    assert everything.take(graphs[2]) == f"matrix of {graphs[2]}"
    assert everything.take(graphs[2]) is None  # handed over once
    everything.stop()
    assert read == graphs[::-1]

    read.clear()
    two_users = 2 * 5 * warmup.ROW_BYTES
    within = warmup.Warmup(lambda: connect(db_path), record, rows, budget=two_users)
    assert within.take(graphs[0]) is None  # beyond the budget: read by its search
    within.stop()
    assert read == [graphs[2], graphs[1]]


async def test_a_search_does_not_wait_for_reads_ahead_of_its_user(
    db_path: Path, words: Any
) -> None:
    graphs = await three_users(db_path, words)
    first_read = threading.Event()
    release = threading.Event()
    read: list[int] = []

    def slow(conn: sqlite3.Connection, graph: int, stop: threading.Event) -> str:
        read.append(graph)
        first_read.set()
        release.wait(10)
        return f"matrix of {graph}"

    ahead = warmup.Warmup(lambda: connect(db_path), slow, rows, budget=10**6)
    assert first_read.wait(10)
    assert ahead.take(graphs[0]) is None  # not read yet: its search reads it, the warm-up skips it
    release.set()
    assert ahead.take(graphs[2]) == f"matrix of {graphs[2]}"  # being read: waited for
    ahead.stop()
    assert read == [graphs[2], graphs[1]]


def test_a_file_that_cannot_be_read_ahead_hands_over_nothing(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE notes (text TEXT)").connection.commit()
    for path in (other, tmp_path / "missing.sqlite"):
        ahead = warmup.Warmup(
            functools.partial(connect, path), lambda *_: "never", rows, budget=10**6
        )
        assert ahead.take(1) is None
        ahead.stop()


async def test_the_first_search_uses_the_matrix_read_at_open(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, words: Any
) -> None:
    await three_users(db_path, words)
    reads: list[str] = []
    read_matrix = vectors.VectorIndex.read_matrix

    def counted(self: vectors.VectorIndex, *args: object, **kwargs: object) -> object:
        reads.append(threading.current_thread().name)
        return read_matrix(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors.VectorIndex, "read_matrix", counted)
    backend = LocalBackend(db_path, retriever="hybrid", embedder=words())
    try:
        found = await backend.search(SearchRequest("taxes u3", user_id="u3", scope="episodes"))
        assert found.episodes and "u3" in found.episodes[0].content
    finally:
        await backend.aclose()
    # u3 wrote last: read ahead first, and the search waited for that read instead of its own.
    assert reads and set(reads) == {"zepkit-vectors-warm"}


async def test_rows_written_after_the_read_ahead_are_searched(db_path: Path, words: Any) -> None:
    await three_users(db_path, words)
    backend = LocalBackend(db_path, retriever="hybrid", embedder=words())
    try:
        await backend.add_messages("u3-t", [Message("user", "We adopted a puppy.")])
        found = await backend.search(SearchRequest("dog", user_id="u3", scope="episodes"))
        assert found.episodes[0].content == "We adopted a puppy."
    finally:
        await backend.aclose()
    assert not [t for t in threading.enumerate() if t.name == "zepkit-vectors-warm"]


async def test_a_backend_closed_at_once_stops_reading_ahead(db_path: Path, words: Any) -> None:
    await three_users(db_path, words)
    for _ in range(3):
        backend = LocalBackend(db_path, retriever="hybrid", embedder=words())
        await backend.aclose()
        assert not [t for t in threading.enumerate() if t.name == "zepkit-vectors-warm"]
