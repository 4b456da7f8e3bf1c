"""The write-ahead log is copied into the file by a thread of its own, not by a write's commit."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend, checkpoints
from zepkit.local.checkpoints import BACKSTOP_PAGES, pending_frames


def test_pending_frames_are_read_from_the_wal_index(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("CREATE TABLE t (x BLOB)")
    for _ in range(5):
        writer.execute("INSERT INTO t VALUES (randomblob(3000))")
    index = f"{path}-shm"
    before = pending_frames(index)
    other = sqlite3.connect(path, isolation_level=None)
    _, frames, copied = other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert before == frames == copied > 5  # what SQLite itself reports the log held
    assert pending_frames(index) == 0
    writer.execute("INSERT INTO t VALUES (randomblob(3000))")  # the log starts again
    assert 0 < pending_frames(index) < frames
    other.close()
    writer.close()
    assert pending_frames(index) == 0  # no log, no index: nothing pending
    assert pending_frames(str(tmp_path / "missing.db-shm")) == 0


def _exists(path: str) -> bool:
    return os.path.exists(path)


async def _wait_for(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.01)


async def _written(backend: LocalBackend, messages: int) -> None:
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    for n in range(messages):
        said = f"Note {n}: I planted {n} tulips by the shed and the neighbours came round."
        await backend.add_messages("t", [Message("user", said)])


async def test_a_file_is_checkpointed_beside_its_writes(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "LOG_PAGES", 40)
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        # a commit copies the log itself only far past the thread's mark
        (limit,) = await backend._run(
            backend._engine.run, lambda conn: conn.execute("PRAGMA wal_autocheckpoint").fetchone()
        )
        assert limit == BACKSTOP_PAGES
        await _written(backend, 30)
        checkpointer = backend._checkpoints
        assert checkpointer is not None
        await _wait_for(lambda: checkpointer.checkpoints > 0)
        await _wait_for(lambda: pending_frames(f"{db_path}-shm") < 40)
    finally:
        await backend.aclose()
    assert checkpointer._thread is not None and not checkpointer._thread.is_alive()
    assert not _exists(f"{db_path}-wal")  # the last connection emptied the log


async def test_memory_and_read_only_backends_run_no_checkpoint_thread(db_path: Path) -> None:
    memory = LocalBackend()
    try:
        assert memory._checkpoints is None
    finally:
        await memory.aclose()
    writer = LocalBackend(db_path, retriever="lexical")
    await _written(writer, 1)
    await writer.aclose()
    reader = LocalBackend(db_path, retriever="lexical", read_only=True)
    try:
        assert reader._checkpoints is None
    finally:
        await reader.aclose()


async def test_a_vacuum_never_finds_the_log_busy_with_a_checkpoint(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a checkpoint after nearly every write, vacuums between writes still empty the log
    (a checkpoint of the backend's own beside one would make it fail as busy)."""
    monkeypatch.setattr(checkpoints, "LOG_PAGES", 1)
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        await _written(backend, 3)
        for n in range(10):
            await backend.add_messages("t", [Message("user", f"Round {n} of the vacuum test.")])
            await backend.vacuum()
        assert backend._checkpoints is not None and backend._checkpoints.checkpoints > 0
    finally:
        await backend.aclose()


async def test_inline_writes_are_checkpointed_too(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "LOG_PAGES", 40)
    backend = LocalBackend(db_path, retriever="lexical", inline=True)
    try:
        await _written(backend, 30)
        checkpointer = backend._checkpoints
        assert checkpointer is not None
        await _wait_for(lambda: checkpointer.checkpoints > 0)
    finally:
        await backend.aclose()
