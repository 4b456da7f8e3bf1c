"""delete_thread removes the thread and what was derived from it, nothing else."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._errors import NotFoundError
from zepkit.core._models import Message
from zepkit.local import LocalBackend


async def test_delete_thread_removes_only_its_own_memory(db_path: Path) -> None:
    backend = LocalBackend(db_path)
    try:
        for user in ("a", "b"):
            await backend.ensure_user(UserProfile(user))
        await backend.ensure_thread("a-gone", "a")
        await backend.ensure_thread("a-kept", "a")
        await backend.ensure_thread("b-kept", "b")
        gone = [Message("user", "I secretly love Zanzibar pineapples.")]
        kept = [Message("user", "I openly love pineapples.")]
        await backend.add_messages("a-gone", gone)
        await backend.add_messages("a-kept", kept)
        await backend.add_messages("b-kept", gone)
        await backend.add_data("Pineapples grow slowly.", type="text", user_id="a")

        await backend.delete_thread("a-gone")

        with pytest.raises(NotFoundError):
            await backend.get_messages("a-gone")
        with pytest.raises(NotFoundError):
            await backend.delete_thread("a-gone")
        facts = await backend.search(SearchRequest("pineapples", user_id="a", limit=50))
        assert sorted(f.fact for f in facts.edges) == [
            "Pineapples grow slowly.",
            "user: I openly love pineapples.",
        ]
        nodes = await backend.search(SearchRequest("zanzibar", user_id="a", scope="nodes"))
        assert "Zanzibar" not in [n.name for n in nodes.nodes]
        episodes = await backend.search(SearchRequest("secretly", user_id="a", scope="episodes"))
        assert episodes.is_empty()
        others = await backend.search(SearchRequest("zanzibar", user_id="b", limit=50))
        assert [f.fact for f in others.edges] == ["user: I secretly love Zanzibar pineapples."]
        assert len(await backend.get_messages("b-kept")) == 1
    finally:
        await backend.aclose()

    with sqlite3.connect(db_path) as conn:
        for table in ("episodes_fts", "statements_fts", "entities_fts"):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        orphans = conn.execute(
            "SELECT count(*) FROM entities WHERE id NOT IN (SELECT entity FROM mentions)"
        )
        assert orphans.fetchone()[0] == 0
