"""Write keys: a replayed write is stored once, and keys past their use are pruned while the
process runs, not only when the file is opened."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from zepkit.core._backend import UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend, writekeys
from zepkit.local.codec import encode_time, now


async def _backend(path: Path) -> LocalBackend:
    backend = LocalBackend(path, retriever="lexical")
    await backend.ensure_user(UserProfile("u"))
    await backend.ensure_thread("t", "u")
    return backend


def _keys(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [key for (key,) in conn.execute("SELECT key FROM write_keys ORDER BY key")]


def _age(path: Path, key: str, days: int) -> None:
    with sqlite3.connect(path) as conn:
        written = encode_time(now() - timedelta(days=days))
        conn.execute("UPDATE write_keys SET created_at = ? WHERE key = ?", (written, key))


async def test_a_replayed_write_is_stored_once(tmp_path: Path) -> None:
    backend = await _backend(tmp_path / "m.db")
    try:
        for _ in range(2):
            await backend.add_messages("t", [Message("user", "I keep bees.")], idempotency_key="k")
        assert len(await backend.get_messages("t")) == 1
    finally:
        await backend.aclose()


async def test_a_long_running_process_prunes_old_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.db"
    backend = await _backend(path)
    try:
        await backend.add_messages("t", [Message("user", "One.")], idempotency_key="old")
        await backend.add_messages("t", [Message("user", "Two.")], idempotency_key="recent")
        _age(path, "old", writekeys.KEEP_DAYS + 1)
        _age(path, "recent", writekeys.KEEP_DAYS - 1)
        monkeypatch.setattr(writekeys, "_next_prune", float("inf"))  # not due: nothing goes
        await backend.add_messages("t", [Message("user", "Three.")], idempotency_key="new")
        assert _keys(path) == ["new", "old", "recent"]
        monkeypatch.setattr(writekeys, "_next_prune", 0.0)  # due: the next keyed write prunes
        await backend.add_messages("t", [Message("user", "Four.")], idempotency_key="newer")
        assert _keys(path) == ["new", "newer", "recent"]
        assert writekeys._next_prune > 0.0  # and waits PRUNE_EVERY_S for the next time
    finally:
        await backend.aclose()
