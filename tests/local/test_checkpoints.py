"""The write-ahead log is copied into the file by a thread of its own, not by a write's commit."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend, checkpoints
from zepkit.local.checkpoints import BACKSTOP_PAGES, LOG_PAGES, MAX_CALLS, calls_for


def test_the_pace_writes_about_a_log_of_pages_between_checkpoints() -> None:
    assert calls_for(frames=500, calls=16) == 32  # 31 pages a call: 32 calls make 1,000
    assert calls_for(frames=LOG_PAGES * 3, calls=1) == 1  # bulk writes: after each
    assert calls_for(frames=0, calls=16) == MAX_CALLS  # reads alone: the longest wait
    assert calls_for(frames=10, calls=16) == MAX_CALLS  # capped for a burst to come
    assert calls_for(frames=100, calls=0) == 10


def _wal_bytes(path: Path) -> int:
    """The log file's size, by its directory entry alone (opening and closing a file SQLite
    has open would drop SQLite's locks on it)."""
    try:
        return os.stat(f"{path}-wal").st_size
    except FileNotFoundError:
        return 0


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
        await asyncio.sleep(0.002)  # a moment for the thread, as between a user's turns


async def test_a_file_is_checkpointed_beside_its_writes(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "LOG_PAGES", 40)
    monkeypatch.setattr(checkpoints, "FIRST_CALLS", 4)
    backend = LocalBackend(db_path, retriever="lexical")
    try:
        # a commit copies the log itself only far past the thread's mark
        (limit,) = await backend._run(
            backend._engine.run, lambda conn: conn.execute("PRAGMA wal_autocheckpoint").fetchone()
        )
        assert limit == BACKSTOP_PAGES
        await _written(backend, 60)
        checkpointer = backend._checkpoints
        assert checkpointer is not None
        await _wait_for(lambda: checkpointer.checkpoints > 0)
        assert 1 <= checkpointer._every < checkpoints.MAX_CALLS  # paced by what was written
        kept_short = _wal_bytes(db_path)
    finally:
        await backend.aclose()
    assert checkpointer._thread is not None and not checkpointer._thread.is_alive()
    assert _wal_bytes(db_path) == 0  # the last connection emptied the log

    # the same writes with the thread never woken: the log only grows
    monkeypatch.setattr(checkpoints, "FIRST_CALLS", 10**9)
    other = db_path.with_name("other.db")
    unchecked = LocalBackend(other, retriever="lexical")
    try:
        await _written(unchecked, 60)
        grown = _wal_bytes(other)
        assert unchecked._checkpoints is not None and unchecked._checkpoints.checkpoints == 0
    finally:
        await unchecked.aclose()
    assert kept_short * 2 < grown


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
    """With a checkpoint after nearly every call, vacuums between writes still empty the log
    (a checkpoint of the backend's own beside one would make it fail as busy)."""
    monkeypatch.setattr(checkpoints, "LOG_PAGES", 1)
    monkeypatch.setattr(checkpoints, "FIRST_CALLS", 1)
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
    monkeypatch.setattr(checkpoints, "FIRST_CALLS", 4)
    backend = LocalBackend(db_path, retriever="lexical", inline=True)
    try:
        await _written(backend, 30)
        checkpointer = backend._checkpoints
        assert checkpointer is not None
        await _wait_for(lambda: checkpointer.checkpoints > 0)
    finally:
        await backend.aclose()
